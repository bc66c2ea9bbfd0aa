// Scoring one list of annotations against another (issue 36 §2; consensus, §3, compares two
// drafts with the same function). The rules are in docs/analytics.md ("Ground truth and scores").
import type { StoredAnnotation } from '../../../contract/annotations';
import { familyOf, iou, oks } from '../../../contract/similarity';

/** The similarity (IoU, or OKS for points) two shapes need to match. */
export const MATCH_THRESHOLD = 0.5;

export interface Match {
  class: string;
  /** The ids of the matched shapes in the reference list (a) and in the scored one (b). */
  a: string;
  b: string;
  /** IoU for boxes, polygons, masks and polylines; OKS for keypoints and skeletons. */
  similarity: number;
  measure: 'iou' | 'oks';
}

export interface ClassScore {
  /** Shapes of the class in the reference list, in the scored list, and matched pairs. */
  reference: number;
  scored: number;
  matched: number;
  /** 2 matched / (reference + scored); 1 when both lists hold none. */
  f1: number;
  /** Mean IoU of the matches measured by IoU, mean OKS of those measured by OKS; null without any. */
  mean_iou: number | null;
  mean_oks: number | null;
}

export interface Score extends ClassScore {
  precision: number;
  recall: number;
  /** Of the reference's attribute entries on matched shapes, the share the scored shape holds equal; null when none. */
  attributes: number | null;
  by_class: Record<string, ClassScore>;
  matches: Match[];
}

export interface ScoreOptions {
  /** A skeleton class's point names (COCO's person points get COCO's sigmas). */
  pointNames?: (className: string) => readonly string[] | null | undefined;
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : null);
const f1Of = (matched: number, a: number, b: number) => (a + b === 0 ? 1 : (2 * matched) / (a + b));

/**
 * Greedy matching of one class: every pair of the same family whose similarity reaches
 * MATCH_THRESHOLD, highest first (ties in list order), each shape matched at most once.
 */
function matchClass(name: string, a: StoredAnnotation[], b: StoredAnnotation[], options: ScoreOptions): Match[] {
  const pairs: { i: number; j: number; sim: number; measure: Match['measure'] }[] = [];
  a.forEach((x, i) =>
    b.forEach((y, j) => {
      const family = familyOf(x);
      if (family !== familyOf(y)) return;
      const sim = family === 'point' ? oks(x, y, options.pointNames?.(name)) ?? 0 : iou(x, y);
      if (sim >= MATCH_THRESHOLD) pairs.push({ i, j, sim, measure: family === 'point' ? 'oks' : 'iou' });
    }),
  );
  pairs.sort((p, q) => q.sim - p.sim || p.i - q.i || p.j - q.j);
  const usedA = new Set<number>();
  const usedB = new Set<number>();
  const matches: Match[] = [];
  for (const p of pairs) {
    if (usedA.has(p.i) || usedB.has(p.j)) continue;
    usedA.add(p.i);
    usedB.add(p.j);
    matches.push({ class: name, a: a[p.i]!.id, b: b[p.j]!.id, similarity: p.sim, measure: p.measure });
  }
  return matches;
}

/** Attribute entries keyed by name ({name, value} entries) or by their JSON (free-form ones). */
function attributeMap(a: StoredAnnotation): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of a.attributes ?? []) {
    if (e && typeof e === 'object' && !Array.isArray(e) && typeof (e as { name?: unknown }).name === 'string') {
      out.set(`name:${(e as { name: string }).name}`, JSON.stringify((e as { value?: unknown }).value ?? null));
    } else out.set(`entry:${JSON.stringify(e)}`, '');
  }
  return out;
}

function classScore(reference: number, scored: number, matches: readonly Match[]): ClassScore {
  return {
    reference,
    scored,
    matched: matches.length,
    f1: f1Of(matches.length, reference, scored),
    mean_iou: mean(matches.filter((m) => m.measure === 'iou').map((m) => m.similarity)),
    mean_oks: mean(matches.filter((m) => m.measure === 'oks').map((m) => m.similarity)),
  };
}

const byClass = (list: readonly StoredAnnotation[]) => {
  const out = new Map<string, StoredAnnotation[]>();
  for (const x of list) out.set(x.name, [...(out.get(x.name) ?? []), x]);
  return out;
};

/** How well `b` reproduces the reference `a`: matches per class, F1, mean IoU and OKS, attributes. */
export function score(a: readonly StoredAnnotation[], b: readonly StoredAnnotation[], options: ScoreOptions = {}): Score {
  const ga = byClass(a);
  const gb = byClass(b);
  const names = [...new Set([...ga.keys(), ...gb.keys()])].sort();
  const matches: Match[] = [];
  const by_class: Record<string, ClassScore> = {};
  for (const name of names) {
    const ms = matchClass(name, ga.get(name) ?? [], gb.get(name) ?? [], options);
    matches.push(...ms);
    by_class[name] = classScore(ga.get(name)?.length ?? 0, gb.get(name)?.length ?? 0, ms);
  }
  const aById = new Map(a.map((x) => [x.id, x]));
  const bById = new Map(b.map((x) => [x.id, x]));
  let entries = 0;
  let equal = 0;
  for (const m of matches) {
    const want = attributeMap(aById.get(m.a)!);
    const got = attributeMap(bById.get(m.b)!);
    for (const [key, value] of want) {
      entries++;
      if (got.get(key) === value) equal++;
    }
  }
  const total = classScore(a.length, b.length, matches);
  return {
    ...total,
    precision: b.length ? matches.length / b.length : a.length ? 0 : 1,
    recall: a.length ? matches.length / a.length : b.length ? 0 : 1,
    attributes: entries ? equal / entries : null,
    by_class,
    matches,
  };
}
