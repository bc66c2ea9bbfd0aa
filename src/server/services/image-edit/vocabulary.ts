// The prompts the built-in editor understands (docs/image-edit.md). A prompt is split into
// clauses ("flip horizontally and make it night" -> "flip horizontally", "make it night"); each
// clause must name one or more known edits, and whatever is left must be filler words ("make it",
// "a bit", "the image"). Anything else fails the image with a message listing the vocabulary, rather
// than silently ignoring part of what the user asked for.

export type GeoStep = 'flip_h' | 'flip_v' | 'rotate_90' | 'rotate_180' | 'rotate_270';
export type PhotoStep = 'brighter' | 'darker' | 'more_contrast' | 'less_contrast' | 'grayscale' | 'sepia' | 'blur' | 'sharpen' | 'noise' | 'night' | 'fog' | 'rain' | 'snow' | 'sunset';
export type EditStep = GeoStep | PhotoStep;

export const GEO_STEPS: readonly GeoStep[] = ['flip_h', 'flip_v', 'rotate_90', 'rotate_180', 'rotate_270'];
export const isGeoStep = (s: string): s is GeoStep => (GEO_STEPS as readonly string[]).includes(s);

interface Term {
  step: EditStep;
  re: RegExp;
}

// Longest and most specific first: "less contrast" before "contrast", rotations with a direction
// before bare ones, "flip vertically" before "flip".
const TERMS: Term[] = [
  { step: 'rotate_270', re: /\brotat(?:e|ed|ion)\s*(?:it\s*)?(?:by\s*)?90\s*(?:degrees?|deg|°)?\s*(?:counter[\s-]?clockwise|anti[\s-]?clockwise|ccw|to the left|left)\b/ },
  { step: 'rotate_90', re: /\brotat(?:e|ed|ion)\s*(?:it\s*)?(?:by\s*)?270\s*(?:degrees?|deg|°)?\s*(?:counter[\s-]?clockwise|anti[\s-]?clockwise|ccw)\b/ },
  { step: 'rotate_90', re: /\brotat(?:e|ed|ion)\s*(?:it\s*)?(?:by\s*)?90\s*(?:degrees?|deg|°)?(?:\s*(?:clockwise|cw|to the right|right))?/ },
  { step: 'rotate_180', re: /\brotat(?:e|ed|ion)\s*(?:it\s*)?(?:by\s*)?180\s*(?:degrees?|deg|°)?(?:\s*(?:clockwise|cw|counter[\s-]?clockwise|anti[\s-]?clockwise|ccw))?/ },
  { step: 'rotate_270', re: /\brotat(?:e|ed|ion)\s*(?:it\s*)?(?:by\s*)?270\s*(?:degrees?|deg|°)?(?:\s*(?:clockwise|cw))?/ },
  { step: 'rotate_270', re: /\brotate\s*(?:it\s*)?(?:to the\s*)?left\b/ },
  { step: 'rotate_90', re: /\brotate\s*(?:it\s*)?(?:to the\s*)?right\b/ },
  { step: 'flip_v', re: /\b(?:flip(?:ped)?|mirror(?:ed)?)\s*(?:it\s*)?upside[\s-]down\b/ },
  { step: 'rotate_180', re: /\b(?:turn(?:ed)?\s*)?upside[\s-]down\b/ },
  { step: 'flip_v', re: /\b(?:flip(?:ped)?|mirror(?:ed)?)\s*(?:it\s*)?(?:the image\s*)?(?:vertical(?:ly)?|top[\s-]*(?:to[\s-]*)?bottom|up[\s-]*(?:and[\s-]*)?down)\b/ },
  { step: 'flip_v', re: /\bvertical(?:ly)?\s*(?:flip(?:ped)?|mirror(?:ed)?)\b/ },
  { step: 'flip_h', re: /\b(?:flip(?:ped)?|mirror(?:ed)?)\s*(?:it\s*)?(?:the image\s*)?(?:horizontal(?:ly)?|left[\s-]*(?:to[\s-]*)?right|sideways)\b/ },
  { step: 'flip_h', re: /\bhorizontal(?:ly)?\s*(?:flip(?:ped)?|mirror(?:ed)?)\b/ },
  { step: 'flip_h', re: /\b(?:flip(?:ped)?|mirror(?:ed)?)\b/ },
  { step: 'less_contrast', re: /\b(?:less|lower|reduce[ds]?|decrease[ds]?|low|softer|soft)\s*(?:the\s*)?contrast\b/ },
  { step: 'less_contrast', re: /\bcontrast\s*(?:down|lower|reduced)\b/ },
  { step: 'more_contrast', re: /\b(?:more|higher|increase[ds]?|boost(?:ed)?|high|stronger|strong|add)\s*(?:the\s*)?contrast\b/ },
  { step: 'more_contrast', re: /\bcontrast(?:y)?\s*(?:up|higher|increased|boosted)?\b/ },
  { step: 'brighter', re: /\b(?:brighter|brighten(?:ed)?|bright|lighter|lighten(?:ed)?|more light|increase[ds]? (?:the )?brightness|more brightness|overexpose[ds]?)\b/ },
  { step: 'darker', re: /\b(?:darker|darken(?:ed)?|dimmer|dim|less light|decrease[ds]? (?:the )?brightness|less brightness|underexpose[ds]?)\b/ },
  { step: 'grayscale', re: /\b(?:gr[ae]y[\s-]?scale|black[\s-]*(?:and|&)[\s-]*white|b\s*&\s*w|b\/w|monochrome|desaturated?|no colou?rs?)\b/ },
  { step: 'sepia', re: /\b(?:sepia|vintage|old[\s-]photo|antique)\b/ },
  { step: 'blur', re: /\b(?:blur(?:red|ry)?|out of focus|unfocused|soft[\s-]?focus)\b/ },
  { step: 'sharpen', re: /\b(?:sharpen(?:ed)?|sharper|crisper|more detail)\b/ },
  { step: 'noise', re: /\b(?:noise|noisy|grain(?:y)?|film grain|sensor noise)\b/ },
  { step: 'night', re: /\b(?:night[\s-]?time|night|nighttime|midnight|evening|dusk)\b/ },
  { step: 'fog', re: /\b(?:fog(?:gy)?|mist(?:y)?|ha[sz]e|haz[ye]|smog(?:gy)?)\b/ },
  { step: 'rain', re: /\b(?:rain(?:y|ing|fall|storm)?|downpour|drizzl(?:e|ing)|wet weather)\b/ },
  { step: 'snow', re: /\b(?:snow(?:y|ing|fall|storm)?|blizzard|winter(?:y)?|wintertime)\b/ },
  { step: 'sunset', re: /\b(?:sunset|sunrise|golden[\s-]hour|warm(?:er)?\s*(?:tint|tone|light|colou?rs?)?|orange tint)\b/ },
];

// Words that carry no edit of their own.
const FILLER = new Set(
  'a an the it its this that these those them image images photo photos picture pictures pic shot scene version copy make made look looks looking like appear seem feel as if please can you could would i want to into turn turned add adding apply applied give with some bit little slightly slight very much more lots lot of heavy heavier light strong stronger subtle effect effects filter mode style at in on by during over from time weather degrees degree also then and do set change convert be is are me my one all so just kind sort tint tone tones look-alike morning day daytime afternoon outside outdoors sky lighting'
    .split(/\s+/),
);

/** The documented vocabulary, in the order docs/image-edit.md lists it. */
export const VOCABULARY: readonly string[] = [
  'brighter',
  'darker',
  'more contrast',
  'less contrast',
  'grayscale',
  'sepia',
  'blur',
  'sharpen',
  'noise',
  'night',
  'fog',
  'rain',
  'snow',
  'sunset',
  'flip horizontally',
  'flip vertically',
  'rotate 90',
  'rotate 180',
  'rotate 270',
];

export function vocabularyMessage(unknown: string): string {
  return (
    `The built-in editor does not understand "${unknown.slice(0, 80)}". It understands: ${VOCABULARY.join(', ')} ` +
    '(rotations are clockwise), alone or combined with "and" or commas, for example "flip horizontally and make it night".'
  );
}

export type ParsedPrompt = { ok: true; steps: EditStep[] } | { ok: false; error: string };

/** The edits a prompt asks for, in the order it names them. */
export function parsePrompt(prompt: string): ParsedPrompt {
  const text = prompt
    .toLowerCase()
    .normalize('NFKC')
    .replace(/[“”"'`´]/g, ' ')
    .replace(/[.!?]+(\s|$)/g, ',$1')
    // Names that contain a clause separator.
    .replace(/\bblack\s*(?:and|&)\s*white\b/g, ' grayscale ')
    .replace(/\bb\s*&\s*w\b/g, ' grayscale ');
  const clauses = text
    .split(/,|;|\+|&(?!\s*w)|\band then\b|\bthen\b|\band\b|\bwith\b|\bplus\b/)
    .map((c) => c.trim())
    .filter(Boolean);
  const steps: EditStep[] = [];
  for (const clause of clauses) {
    let rest = ` ${clause} `;
    const found: { at: number; step: EditStep }[] = [];
    for (const term of TERMS) {
      const re = new RegExp(term.re.source, 'g');
      rest = rest.replace(re, (match, ...args) => {
        const at = args[args.length - 2] as number;
        found.push({ at, step: term.step });
        return ' '.repeat(match.length);
      });
    }
    const leftover = rest
      .split(/[^\p{L}\p{N}°/-]+/u)
      .map((w) => w.replace(/^-+|-+$/g, ''))
      .filter((w) => w && !FILLER.has(w));
    if (leftover.length) return { ok: false, error: vocabularyMessage(leftover.join(' ')) };
    if (!found.length) continue; // a clause of filler words only ("please")
    found.sort((a, b) => a.at - b.at);
    // One clause names an effect once, however many words it uses for it ("snowy winter").
    const here = new Set<EditStep>();
    for (const f of found) {
      if (!isGeoStep(f.step) && here.has(f.step)) continue;
      here.add(f.step);
      steps.push(f.step);
    }
  }
  if (!steps.length) return { ok: false, error: vocabularyMessage(prompt.trim()) };
  return { ok: true, steps };
}

/** A filename-safe tag for the steps: night, flip_h_night, rotate_90. */
export function stepsSlug(steps: readonly EditStep[]): string {
  return steps.join('_').slice(0, 60);
}
