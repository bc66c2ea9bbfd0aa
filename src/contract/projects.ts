// Projects and their classes (spec sections 3 and 7, "Projects and usage").
import { z } from 'zod';
import { sameJson } from './json';
import { storedText } from './text';

export const ANNOTATION_TYPES = ['box', 'polygon', 'polyline', 'keypoint'] as const;
export const AnnotationType = z.enum(ANNOTATION_TYPES);
export type AnnotationType = z.infer<typeof AnnotationType>;

/**
 * The 15 pastel class colours, in palette order (DESIGN.md): 15 hues 24 degrees apart in two
 * lightness tiers, neighbours far apart on the colour wheel. Projects keep the colours they have.
 */
export const CLASS_PALETTE = [
  '#F07575', '#ACF6E7', '#F075A6', '#75F0A6', '#F6ACE7', '#ACF6AC', '#D775F0', '#A6F075',
  '#CAACF6', '#E7F6AC', '#7575F0', '#F0D775', '#ACCAF6', '#F6CAAC', '#75D7F0',
] as const;

/** The colour of a class the project no longer has (a shape still naming it): the palette's light blue. */
export const FALLBACK_CLASS_COLOR = CLASS_PALETTE[12];

type Lab = readonly [number, number, number];

/** CIELAB (D65) of a #rrggbb colour. */
export function hexToLab(hex: string): Lab {
  const n = Number.parseInt(hex.replace('#', ''), 16);
  const lin = (c: number) => {
    const v = c / 255;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const r = lin((n >> 16) & 255);
  const g = lin((n >> 8) & 255);
  const b = lin(n & 255);
  const x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
  const y = 0.2126729 * r + 0.7151522 * g + 0.072175 * b;
  const z = (0.0193339 * r + 0.119192 * g + 0.9503041 * b) / 1.08883;
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : (24389 / 27 * t + 16) / 116);
  const fx = f(x);
  const fy = f(y);
  const fz = f(z);
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

/** CIEDE2000 colour difference of two CIELAB colours (about 1 = just noticeable). */
export function deltaE2000(a: Lab, b: Lab): number {
  const [L1, a1, b1] = a;
  const [L2, a2, b2] = b;
  const rad = Math.PI / 180;
  const C1 = Math.hypot(a1, b1);
  const C2 = Math.hypot(a2, b2);
  const Cm = (C1 + C2) / 2;
  const G = 0.5 * (1 - Math.sqrt(Cm ** 7 / (Cm ** 7 + 25 ** 7)));
  const a1p = (1 + G) * a1;
  const a2p = (1 + G) * a2;
  const C1p = Math.hypot(a1p, b1);
  const C2p = Math.hypot(a2p, b2);
  const hue = (bb: number, ap: number) => (bb === 0 && ap === 0 ? 0 : (Math.atan2(bb, ap) / rad + 360) % 360);
  const h1p = hue(b1, a1p);
  const h2p = hue(b2, a2p);
  const dLp = L2 - L1;
  const dCp = C2p - C1p;
  let dhp = 0;
  if (C1p * C2p !== 0) {
    dhp = h2p - h1p;
    if (dhp > 180) dhp -= 360;
    else if (dhp < -180) dhp += 360;
  }
  const dHp = 2 * Math.sqrt(C1p * C2p) * Math.sin((dhp / 2) * rad);
  const Lpm = (L1 + L2) / 2;
  const Cpm = (C1p + C2p) / 2;
  let hpm = h1p + h2p;
  if (C1p * C2p !== 0) {
    if (Math.abs(h1p - h2p) <= 180) hpm /= 2;
    else hpm = h1p + h2p < 360 ? (hpm + 360) / 2 : (hpm - 360) / 2;
  }
  const T = 1 - 0.17 * Math.cos((hpm - 30) * rad) + 0.24 * Math.cos(2 * hpm * rad) + 0.32 * Math.cos((3 * hpm + 6) * rad) - 0.2 * Math.cos((4 * hpm - 63) * rad);
  const dTheta = 30 * Math.exp(-(((hpm - 275) / 25) ** 2));
  const Rc = 2 * Math.sqrt(Cpm ** 7 / (Cpm ** 7 + 25 ** 7));
  const Sl = 1 + (0.015 * (Lpm - 50) ** 2) / Math.sqrt(20 + (Lpm - 50) ** 2);
  const Sc = 1 + 0.045 * Cpm;
  const Sh = 1 + 0.015 * Cpm * T;
  const Rt = -Math.sin(2 * dTheta * rad) * Rc;
  return Math.sqrt((dLp / Sl) ** 2 + (dCp / Sc) ** 2 + (dHp / Sh) ** 2 + Rt * (dCp / Sc) * (dHp / Sh));
}

const HEX_RE = /^#[0-9a-fA-F]{6}$/;

/**
 * The colour for a new class: the palette colour furthest (CIEDE2000, in CIELAB) from the nearest
 * colour in use, so a new class never looks like an existing one. Once every palette colour is in
 * use, the least used one (then the furthest from the others). Ties go to palette order, so the
 * first class of a project gets the first palette colour. `used`: the project's class colours
 * (any #rrggbb, also colours from outside the palette); `avoid` counts as used too (a duplicate
 * must differ from its original). Used by the Classes tab, the editor's Add Class and the importer.
 */
export function nextClassColor(used: readonly string[], avoid?: string): string {
  const colours = [...used, ...(avoid ? [avoid] : [])].filter((c) => HEX_RE.test(c)).map((c) => c.toUpperCase());
  const labs = colours.map(hexToLab);
  let best: string = CLASS_PALETTE[0];
  let bestUses = Infinity;
  let bestDistance = -1;
  for (const candidate of CLASS_PALETTE) {
    const lab = hexToLab(candidate);
    let uses = 0;
    let nearest = Infinity;
    colours.forEach((c, i) => {
      if (c === candidate) uses += 1;
      else nearest = Math.min(nearest, deltaE2000(lab, labs[i]!));
    });
    if (uses < bestUses || (uses === bestUses && nearest > bestDistance)) {
      best = candidate;
      bestUses = uses;
      bestDistance = nearest;
    }
  }
  return best;
}

// --- class attributes (issue 19), as CVAT has them: a class defines named attributes of a kind;
// an annotation's `attributes` holds {name, value} entries (contract/annotations-attributes.ts).

export const ATTRIBUTE_KINDS = ['checkbox', 'select', 'number', 'text'] as const;
export const AttributeKind = z.enum(ATTRIBUTE_KINDS);
export type AttributeKind = z.infer<typeof AttributeKind>;
export const MAX_ATTRIBUTES_PER_CLASS = 50;
export const MAX_ATTRIBUTE_OPTIONS = 100;
export const MAX_ATTRIBUTE_NAME = 100;
export const MAX_ATTRIBUTE_OPTION = 100;
export const MAX_ATTRIBUTE_TEXT = 1000;

export type AttributeValue = string | number | boolean | null;

/**
 * Why `value` does not fit `def` (a phrase such as 'must be true or false'), or null when it does.
 * checkbox: a boolean; number: a finite number; select: one of the options; text: a string of at
 * most MAX_ATTRIBUTE_TEXT characters. null ("no value") fits every kind but checkbox.
 */
export function attributeValueProblem(def: { kind: AttributeKind; options?: readonly string[] }, value: unknown): string | null {
  if (value === null && def.kind !== 'checkbox') return null;
  switch (def.kind) {
    case 'checkbox':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'select':
      return typeof value === 'string' && (def.options ?? []).includes(value) ? null : `must be one of its options (${(def.options ?? []).map((o) => `"${o}"`).join(', ')})`;
    case 'text':
      if (typeof value !== 'string') return 'must be text';
      return value.length <= MAX_ATTRIBUTE_TEXT ? null : `must be at most ${MAX_ATTRIBUTE_TEXT} characters`;
  }
}

export const AttributeDefinition = z
  .object({
    name: storedText(z.string().trim().min(1, 'Attribute name is required').max(MAX_ATTRIBUTE_NAME, `Attribute name must be at most ${MAX_ATTRIBUTE_NAME} characters`), 'Attribute name'),
    kind: AttributeKind,
    options: z
      .array(storedText(z.string().trim().min(1, 'An option must not be empty').max(MAX_ATTRIBUTE_OPTION, `An option must be at most ${MAX_ATTRIBUTE_OPTION} characters`), 'An option'))
      .max(MAX_ATTRIBUTE_OPTIONS, `An attribute has at most ${MAX_ATTRIBUTE_OPTIONS} options`)
      .optional(),
    default: z.union([storedText(z.string(), 'The default'), z.number(), z.boolean(), z.null()]).optional(),
  })
  .strict()
  .superRefine((def, ctx) => {
    const label = `Attribute "${def.name}"`;
    if (def.kind === 'select') {
      if (!def.options?.length) ctx.addIssue({ code: 'custom', path: ['options'], message: `${label} is a select and needs at least one option` });
      const seen = new Set<string>();
      for (const [i, o] of (def.options ?? []).entries()) {
        if (seen.has(o)) ctx.addIssue({ code: 'custom', path: ['options', i], message: `${label} lists the option "${o}" twice` });
        seen.add(o);
      }
    } else if (def.options !== undefined && def.options.length > 0) {
      ctx.addIssue({ code: 'custom', path: ['options'], message: `${label}: only select attributes have options` });
    }
    if (def.default !== undefined) {
      const problem = attributeValueProblem(def, def.default);
      if (problem) ctx.addIssue({ code: 'custom', path: ['default'], message: `${label}: the default ${problem}` });
    }
  });
export type AttributeDefinition = z.infer<typeof AttributeDefinition>;

/** What a new shape of the class gets: each attribute's default (false, the first option, null or '' when it has none). */
export function defaultAttributeValue(def: AttributeDefinition): AttributeValue {
  if (def.default !== undefined) return def.default;
  switch (def.kind) {
    case 'checkbox':
      return false;
    case 'select':
      return def.options?.[0] ?? null;
    case 'number':
      return null;
    case 'text':
      return '';
  }
}

/** The {name, value} entries a new shape of `cls` starts with (empty for a class without attributes). */
export function defaultAttributes(cls: { attributes?: readonly AttributeDefinition[] } | undefined): { name: string; value: AttributeValue }[] {
  return (cls?.attributes ?? []).map((d) => ({ name: d.name, value: defaultAttributeValue(d) }));
}

export const MAX_CLASS_KEYPOINTS = 1000;
export const MAX_KEYPOINT_NAME = 100;

// --- classes for every tool (issue 33 section 3) and skeleton classes (section 4).

/** The tools a class may be limited to. A class without `tools` may be drawn with any of them. */
export const CLASS_TOOLS = ['box', 'polygon', 'polyline', 'keypoint', 'mask'] as const;
export const ClassTool = z.enum(CLASS_TOOLS);
export type ClassTool = z.infer<typeof ClassTool>;

/** The tools a class made for one shape type (before migration 0016) keeps: its type, and masks for a polygon class (masks lived under polygon classes). */
export function toolsOfType(type: AnnotationType): ClassTool[] {
  return type === 'polygon' ? ['polygon', 'mask'] : [type];
}

export const MAX_PROJECT_CLASSES = 1000;
export const MAX_SKELETON_POINTS = 100;
export const MAX_SKELETON_EDGES = 500;

/** A skeleton's named points in order, and its edges as 0-based index pairs into `points` (COCO's skeleton is 1-based: the formats convert). */
export const SkeletonDefinition = z
  .object({
    points: z
      .array(storedText(z.string().trim().max(MAX_KEYPOINT_NAME, `A point name must be at most ${MAX_KEYPOINT_NAME} characters`), 'A point name'))
      .max(MAX_SKELETON_POINTS, `A skeleton has at most ${MAX_SKELETON_POINTS} points`),
    edges: z.array(z.tuple([z.number().int(), z.number().int()])).max(MAX_SKELETON_EDGES, `A skeleton has at most ${MAX_SKELETON_EDGES} edges`),
  })
  .strict();
export type SkeletonDefinition = z.infer<typeof SkeletonDefinition>;

/**
 * One class as the API takes it. `tools` limits the tools that draw it (absent: every tool).
 * `type` is the older form, a class tied to one shape type: it still works and means
 * `toolsOfType(type)`; projects keep it on classes that are still exactly that (normalizeClass).
 * `kind: 'skeleton'` with `skeleton` makes a keypoint skeleton class, drawn as one instance.
 * The list's rules (unique names, skeleton indices) are in classListProblem, which the server
 * answers with its own codes (src/contract/errors.ts) rather than as a schema failure.
 */
export const ProjectClass = z.object({
  name: storedText(z.string().trim().min(1, 'Class name is required').max(100, 'Class name must be at most 100 characters'), 'Class name'),
  /** The older one-type form: read classTools(), never this. */
  type: AnnotationType.optional(),
  color: z.string().regex(/^#[0-9a-fA-F]{6}$/, 'Colour must look like #rrggbb'),
  tools: z.array(ClassTool).max(CLASS_TOOLS.length * 2).optional(),
  kind: z.literal('skeleton').optional(),
  skeleton: SkeletonDefinition.optional(),
  /** Attribute definitions (issue 19). A class with none keeps free-form annotation attributes. */
  attributes: z
    .array(AttributeDefinition)
    .max(MAX_ATTRIBUTES_PER_CLASS, `A class has at most ${MAX_ATTRIBUTES_PER_CLASS} attributes`)
    .superRefine((defs, ctx) => {
      const seen = new Set<string>();
      defs.forEach((d, i) => {
        const key = d.name.trim().toLowerCase();
        if (seen.has(key)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `Attribute names must be unique ("${d.name}" appears twice)` });
        seen.add(key);
      });
    })
    .optional(),
  /**
   * The names of a keypoint class's points, in order: a COCO category's `keypoints` list, kept by
   * the import so the COCO export writes each [x, y, v] triple where it was (issue 32).
   */
  keypoints: z
    .array(storedText(z.string().max(MAX_KEYPOINT_NAME, `A keypoint name must be at most ${MAX_KEYPOINT_NAME} characters`), 'A keypoint name'))
    .max(MAX_CLASS_KEYPOINTS, `A class has at most ${MAX_CLASS_KEYPOINTS} keypoint names`)
    .optional(),
});
export type ProjectClass = z.infer<typeof ProjectClass>;

/** The tools that may draw `c`: a skeleton class the keypoint tool, else its `tools`, else its older `type`'s, else every tool. */
export function classTools(c: Pick<ProjectClass, 'tools' | 'type' | 'kind'>): ClassTool[] {
  if (c.kind === 'skeleton') return ['keypoint'];
  if (c.tools) return CLASS_TOOLS.filter((t) => c.tools!.includes(t));
  if (c.type) return toolsOfType(c.type);
  return [...CLASS_TOOLS];
}

export function classAllowsTool(c: Pick<ProjectClass, 'tools' | 'type' | 'kind'>, tool: ClassTool): boolean {
  return classTools(c).includes(tool);
}

/**
 * The stored form of a class: `tools` written out (from `type` when only that was given, in
 * CLASS_TOOLS order, once each), `type` kept only while the tools are still exactly its own (so
 * older readers of `type` stay right), a skeleton class without `tools` or `type`.
 */
export function normalizeClass(c: ProjectClass): ProjectClass {
  const { type, tools: _tools, ...rest } = c;
  if (c.kind === 'skeleton') return rest;
  if (!c.tools && !type) return rest;
  const tools = classTools(c);
  const keepType = type !== undefined && sameJson(tools, toolsOfType(type));
  return { ...rest, ...(keepType ? { type } : {}), tools };
}

export type ClassListCode =
  | 'class_name_taken'
  | 'class_tools_empty'
  | 'skeleton_required'
  | 'skeleton_points_invalid'
  | 'skeleton_duplicate_point'
  | 'skeleton_edge_invalid'
  | 'skeleton_duplicate_edge';

export interface ClassListProblem {
  code: ClassListCode;
  message: string;
  /** The class's index in the list. */
  index: number;
}

function skeletonProblem(c: ProjectClass, index: number): ClassListProblem | null {
  const problem = (code: ClassListCode, message: string): ClassListProblem => ({ code, message: `Class "${c.name}": ${message}`, index });
  if ((c.kind === 'skeleton') !== (c.skeleton !== undefined)) return problem('skeleton_required', c.kind === 'skeleton' ? 'a skeleton class needs its skeleton (points and edges)' : 'only a class of kind "skeleton" has a skeleton');
  if (!c.skeleton) return null;
  const { points, edges } = c.skeleton;
  if (points.length === 0) return problem('skeleton_points_invalid', 'a skeleton needs at least one point');
  const names = new Set<string>();
  for (const [i, p] of points.entries()) {
    if (!p) return problem('skeleton_points_invalid', `point ${i + 1} has no name`);
    if (names.has(p.toLowerCase())) return problem('skeleton_duplicate_point', `the point "${p}" appears twice`);
    names.add(p.toLowerCase());
  }
  const seen = new Set<string>();
  for (const [a, b] of edges) {
    if (a < 0 || b < 0 || a >= points.length || b >= points.length) return problem('skeleton_edge_invalid', `the edge [${a}, ${b}] names a point that does not exist (points are numbered 0 to ${points.length - 1})`);
    if (a === b) return problem('skeleton_edge_invalid', `the edge [${a}, ${b}] joins a point to itself`);
    const key = a < b ? `${a}-${b}` : `${b}-${a}`;
    if (seen.has(key)) return problem('skeleton_duplicate_edge', `the edge between "${points[a]}" and "${points[b]}" appears twice`);
    seen.add(key);
  }
  return null;
}

/** The first rule a project's class list breaks, as a code and a message a person can act on, or null. */
export function classListProblem(classes: readonly ProjectClass[]): ClassListProblem | null {
  const seen = new Map<string, ProjectClass>();
  for (const [index, c] of classes.entries()) {
    const key = c.name.trim().toLowerCase();
    const earlier = seen.get(key);
    if (earlier) {
      return { code: 'class_name_taken', index, message: `There is already a class named "${earlier.name}". Class names are unique whatever the tools: one class can be drawn with several tools (widen its tools instead).` };
    }
    seen.set(key, c);
    if (c.tools && c.tools.length === 0 && c.kind !== 'skeleton') return { code: 'class_tools_empty', index, message: `Class "${c.name}" needs at least one tool (leave tools out to allow every tool)` };
    const skeleton = skeletonProblem(c, index);
    if (skeleton) return skeleton;
  }
  return null;
}

function isLegacyOnly(c: ProjectClass): boolean {
  return c.type !== undefined && c.tools === undefined && c.kind === undefined && c.skeleton === undefined;
}

/**
 * A project's classes in their stored form (normalizeClass). An older client that lists one name
 * under two shape types (`person` as box and as polygon, refused before issue 33) gets one class
 * drawable with both: entries given with `type` alone, of another type, with the same attributes
 * merge into the first one (its colour stays). The same name twice with one type is a duplicate. Anything else keeps its place for classListProblem to judge.
 */
export function normalizeClassList(classes: readonly ProjectClass[]): ProjectClass[] {
  const out: ProjectClass[] = [];
  const legacyAt = new Map<string, number>();
  for (const c of classes) {
    const key = c.name.trim().toLowerCase();
    const at = legacyAt.get(key);
    const earlierTools = at === undefined ? [] : classTools(out[at]!);
    const widens = isLegacyOnly(c) && toolsOfType(c.type!).some((t) => !earlierTools.includes(t));
    if (at !== undefined && widens && sameJson(out[at]!.attributes ?? [], c.attributes ?? []) && sameJson(out[at]!.keypoints ?? [], c.keypoints ?? [])) {
      const merged = new Set([...earlierTools, ...toolsOfType(c.type!)]);
      out[at] = normalizeClass({ ...out[at]!, type: undefined, tools: CLASS_TOOLS.filter((t) => merged.has(t)) });
      continue;
    }
    if (isLegacyOnly(c) && !legacyAt.has(key)) legacyAt.set(key, out.length);
    out.push(normalizeClass(c));
  }
  return out;
}

/** A class list under the project's rules, for code that checks a whole list at once (the importer); the HTTP routes take ProjectClassList and the service answers classListProblem's codes. */
export const ProjectClasses = z
  .array(ProjectClass)
  .max(MAX_PROJECT_CLASSES)
  .superRefine((classes, ctx) => {
    const problem = classListProblem(classes);
    if (problem) ctx.addIssue({ code: 'custom', message: problem.message, path: [problem.index, 'name'] });
  });

/** The class list a request carries: each class's shape; the list's rules are checked by the server (classListProblem). */
export const ProjectClassList = z.array(ProjectClass).max(MAX_PROJECT_CLASSES, `A project has at most ${MAX_PROJECT_CLASSES} classes`);

export const PreviewImage = z.object({ id: z.string(), filename: z.string(), thumbnail_url: z.string().nullable() });

export const Project = z.object({
  id: z.string().uuid(),
  name: z.string(),
  description: z.string().nullable(),
  organization_id: z.string().uuid(),
  gcs_path: z.string(),
  classes: z.array(ProjectClass),
  annotation_types: z.array(z.string()),
  created_by: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  image_count: z.number(),
  completed_image_count: z.number(),
  annotation_count: z.number(),
  total_size: z.number(),
  archived_images: z.number(),
  /** Share (0 to 1) of an annotator's queue/next answers that are ground-truth images (issue 36 §2). */
  gt_rate: z.number(),
  /** The F1 (0 to 1) a ground-truth attempt needs to pass; the Analytics tab marks those under it. */
  gt_pass_threshold: z.number(),
  /** Up to 3 latest images, for the project card. */
  preview_images: z.array(PreviewImage),
});
export type Project = z.infer<typeof Project>;

export const ProjectsResponse = z.object({ projects: z.array(Project) });
export const ProjectResponse = z.object({ success: z.literal(true), project: Project });

const ProjectName = storedText(z.string().trim().min(1, 'Project name is required').max(200, 'Project name must be at most 200 characters'), 'Project name');
const ProjectDescription = storedText(z.string().trim().max(2000, 'Description must be at most 2000 characters'), 'Description');

export const CreateProjectRequest = z.object({
  organization_id: z.string().uuid(),
  name: ProjectName,
  description: ProjectDescription.nullish(),
  annotation_types: z.array(AnnotationType).min(1).default(['box']),
  classes: ProjectClassList.default([]),
});

/** A number from 0 to 1 (the ground-truth settings of issue 36 §2). */
const ShareOfOne = (name: string) =>
  z.number({ error: `${name} must be a number from 0 to 1` }).min(0, `${name} must be a number from 0 to 1`).max(1, `${name} must be a number from 0 to 1`);

export const UpdateProjectRequest = z
  .object({
    name: ProjectName.optional(),
    description: ProjectDescription.nullable().optional(),
    classes: ProjectClassList.optional(),
    annotation_types: z.array(AnnotationType).min(1).optional(),
    gt_rate: ShareOfOne('gt_rate').optional(),
    gt_pass_threshold: ShareOfOne('gt_pass_threshold').optional(),
  })
  .strict();

export const DeleteProjectResponse = z.object({ success: z.literal(true), message: z.string() });
