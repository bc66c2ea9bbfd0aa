// The reviewer's consensus merge (issue 36 §3), pure: the annotators' draft layers are matched
// shape to shape (same class and family, similarity >= 0.5, at most one shape per layer in a
// group), each group gets a consensus shape (the mean of its boxes; for any other shape, the member
// most similar to the others), and the reviewer's choice per group (consensus, one layer's shape,
// or nothing) builds the merged list. The similarity is the one ground-truth scoring uses
// (src/contract/similarity.ts): IoU for areas and lines, OKS for keypoints and skeletons.
import { storedKind, type StoredAnnotation } from '../../../contract/annotations';
import type { Agreement, Draft } from '../../../contract/consensus';
import { familyOf, iou, oks } from '../../../contract/similarity';

/** The similarity (IoU, or OKS for points) two shapes need to be the same object (as the agreement score's matching). */
export const MATCH_SIMILARITY = 0.5;

/** A skeleton class's point names (COCO's person points take COCO's sigmas in OKS); null for any other class. */
export type PointNames = (className: string) => readonly string[] | null;

export interface Layer {
  user: { id: string; name: string };
  annotations: readonly StoredAnnotation[];
}

/** One object as the layers drew it: at most one shape per layer (index = the layer's). */
export interface ShapeGroup {
  key: string;
  className: string;
  members: (StoredAnnotation | null)[];
  /** How many layers drew it. */
  support: number;
  /** More than half of the layers drew it. */
  majority: boolean;
  /** The mean of the boxes (boxes only), else the member most similar to the others. */
  consensus: StoredAnnotation;
}

/** Per group: 'consensus', the index of the layer whose shape is kept, or 'drop'. */
export type GroupChoice = 'consensus' | 'drop' | number;

/**
 * How alike two keypoints or skeletons of one class are: COCO's OKS taken both ways and averaged,
 * as no layer is the reference (OKS scales by the reference's box and counts its labelled points).
 */
export function pointSimilarity(a: StoredAnnotation, b: StoredAnnotation, pointNames: readonly string[] | null = null): number {
  return ((oks(a, b, pointNames) ?? 0) + (oks(b, a, pointNames) ?? 0)) / 2;
}

/** 0 unless same class and family; then OKS for points (keypoints, skeletons), IoU for areas and lines. */
export function similarity(a: StoredAnnotation, b: StoredAnnotation, pointNames?: PointNames): number {
  if (a.name !== b.name || familyOf(a) !== familyOf(b)) return 0;
  return familyOf(a) === 'point' ? pointSimilarity(a, b, pointNames?.(a.name) ?? null) : iou(a, b);
}

/** The mean box of boxes; any other kind: the member most similar to the rest on average (the first on a tie). */
export function consensusShape(shapes: readonly StoredAnnotation[], pointNames?: PointNames): StoredAnnotation {
  const first = shapes[0]!;
  if (shapes.length === 1) return first;
  if (shapes.every((s) => storedKind(s) === 'box')) {
    const mean = (f: (s: StoredAnnotation) => number) => shapes.reduce((sum, s) => sum + f(s), 0) / shapes.length;
    const x = mean((s) => s.bounding_box.x);
    const y = mean((s) => s.bounding_box.y);
    const right = mean((s) => s.bounding_box.x + s.bounding_box.w);
    const bottom = mean((s) => s.bounding_box.y + s.bounding_box.h);
    return { ...first, bounding_box: { x, y, w: right - x, h: bottom - y } };
  }
  let best = first;
  let bestScore = -1;
  for (const s of shapes) {
    const others = shapes.filter((o) => o !== s);
    const score = others.reduce((sum, o) => sum + similarity(s, o, pointNames), 0) / others.length;
    if (score > bestScore) [best, bestScore] = [s, score];
  }
  return best;
}

/**
 * Groups the layers' shapes: every pair of shapes from two different layers whose similarity
 * reaches MATCH_SIMILARITY, highest first, joins their groups unless that would put two shapes of one
 * layer in a group. Groups come in the order of their first shape (layer by layer, list order).
 */
export function groupShapes(layers: readonly Layer[], pointNames?: PointNames): ShapeGroup[] {
  const all = layers.flatMap((l, layer) => l.annotations.map((a) => ({ a, layer })));
  const groupOf = all.map((_, i) => i);
  const layersOf = new Map<number, Set<number>>(all.map((s, i) => [i, new Set([s.layer])]));
  const pairs: { i: number; j: number; sim: number }[] = [];
  for (let i = 0; i < all.length; i++) {
    for (let j = i + 1; j < all.length; j++) {
      if (all[i]!.layer === all[j]!.layer) continue;
      const sim = similarity(all[i]!.a, all[j]!.a, pointNames);
      if (sim >= MATCH_SIMILARITY) pairs.push({ i, j, sim });
    }
  }
  pairs.sort((p, q) => q.sim - p.sim || p.i - q.i || p.j - q.j);
  for (const { i, j } of pairs) {
    const gi = groupOf[i]!;
    const gj = groupOf[j]!;
    if (gi === gj) continue;
    const li = layersOf.get(gi)!;
    const lj = layersOf.get(gj)!;
    if ([...lj].some((l) => li.has(l))) continue;
    for (let k = 0; k < groupOf.length; k++) if (groupOf[k] === gj) groupOf[k] = gi;
    for (const l of lj) li.add(l);
    layersOf.delete(gj);
  }
  const order: number[] = [];
  const membersOf = new Map<number, (StoredAnnotation | null)[]>();
  all.forEach((s, i) => {
    const g = groupOf[i]!;
    if (!membersOf.has(g)) {
      membersOf.set(g, layers.map(() => null));
      order.push(g);
    }
    membersOf.get(g)![s.layer] = s.a;
  });
  return order.map((g) => {
    const members = membersOf.get(g)!;
    const present = members.filter((m): m is StoredAnnotation => m !== null);
    return {
      key: `${present[0]!.id}@${members.indexOf(present[0]!)}`,
      className: present[0]!.name,
      members,
      support: present.length,
      majority: present.length * 2 > layers.length,
      consensus: consensusShape(present, pointNames),
    };
  });
}

/** What the reviewer starts from: the consensus of every group most layers drew, nothing of the others. */
export function defaultChoices(groups: readonly ShapeGroup[]): Map<string, GroupChoice> {
  return new Map(groups.map((g) => [g.key, g.majority ? 'consensus' : 'drop']));
}

/** The merged annotations for the choices (a group without a choice takes its default); ids kept unique. */
export function mergedAnnotations(groups: readonly ShapeGroup[], choices: ReadonlyMap<string, GroupChoice>): StoredAnnotation[] {
  const out: StoredAnnotation[] = [];
  const ids = new Set<string>();
  for (const g of groups) {
    const choice = choices.get(g.key) ?? (g.majority ? 'consensus' : 'drop');
    const shape = choice === 'drop' ? null : choice === 'consensus' ? g.consensus : g.members[choice] ?? null;
    if (!shape) continue;
    let id = shape.id;
    for (let n = 2; ids.has(id); n++) id = `${shape.id}-${n}`;
    ids.add(id);
    out.push(id === shape.id ? shape : { ...shape, id });
  }
  return out;
}

const percent = (x: number) => `${Math.round(x * 100)}%`;

/** How many of the image's `overlap` annotators have not submitted yet (0 once all have). */
export function waitingCount(overlap: number, drafts: readonly Pick<Draft, 'submitted_at'>[]): number {
  return Math.max(0, overlap - drafts.filter((d) => d.submitted_at).length);
}

/** The agreement as the merge view's header says it: F1 and mean IoU in percent, or how many are still awaited. */
export function agreementText(agreement: Agreement | null, waiting: number): string {
  if (agreement) return `Agreement: F1 ${percent(agreement.f1)} · mean IoU ${percent(agreement.mean_iou)}`;
  return `Agreement: waiting for ${Math.max(1, waiting)} more`;
}

/** A layer's submission time: 'Submitted 12:04' today, else with its day; 'Not submitted yet'. */
export function submittedText(iso: string | null, now = new Date()): string {
  if (!iso) return 'Not submitted yet';
  const at = new Date(iso);
  const time = at.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  return at.toDateString() === now.toDateString() ? `Submitted ${time}` : `Submitted ${at.toLocaleDateString(undefined, { day: 'numeric', month: 'short' })}, ${time}`;
}
