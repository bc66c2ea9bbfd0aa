// Keypoint skeletons (issue 33 §4): the rules of an instance that need its class or that fill in
// what a client may leave out. The instance's own shape is the schema's (`points` in
// ./annotations.ts): one {x, y, v} per named point of a skeleton class (`kind: 'skeleton'`,
// `skeleton: {points, edges}` in ./projects.ts), in the class's order, v as COCO's.
// The server runs both functions on every path that stores annotations, before the schema.
import { POINT_MISSING } from './annotations';
import { printableText } from './text';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCoord = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const quote = (s: string) => `"${printableText(s.slice(0, 100))}"`;

/** What a class must hold to be a skeleton class (the part of ProjectClass this file reads). */
export interface SkeletonClassLike {
  name: string;
  kind?: string;
  skeleton?: { points: readonly string[]; edges?: readonly (readonly [number, number])[] };
}

/** The class's named points when it is a skeleton class, else null. */
export function skeletonPointsOf(cls: SkeletonClassLike | undefined): readonly string[] | null {
  return cls?.kind === 'skeleton' && cls.skeleton && Array.isArray(cls.skeleton.points) ? cls.skeleton.points : null;
}

/** The bounding box of a skeleton's labelled points (v 1 or 2); {0, 0, 0, 0} when none is labelled. */
export function skeletonBox(points: readonly { x: number; y: number; v: number }[]): { x: number; y: number; w: number; h: number } {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const p of points) {
    if (p.v === POINT_MISSING) continue;
    if (p.x < minX) minX = p.x;
    if (p.y < minY) minY = p.y;
    if (p.x > maxX) maxX = p.x;
    if (p.y > maxY) maxY = p.y;
  }
  return minX === Infinity ? { x: 0, y: 0, w: 0, h: 0 } : { x: minX, y: minY, w: maxX - minX, h: maxY - minY };
}

/**
 * Gives each skeleton sent without `bounding_box` the box of its labelled points, in place (the
 * box is "derived when it is left out"). Points that are not all {x, y, v} with finite numbers are
 * left for the schema to name; only a missing box is filled, a box that was sent is kept.
 */
export function withDerivedBoxes(list: readonly unknown[]): void {
  for (const a of list) {
    if (!isRecord(a) || a.bounding_box !== undefined || !Array.isArray(a.points)) continue;
    const points = a.points as unknown[];
    if (!points.every((p) => isRecord(p) && isCoord(p.x) && isCoord(p.y) && isCoord(p.v))) continue;
    a.bounding_box = skeletonBox(points as { x: number; y: number; v: number }[]);
  }
}

export interface SkeletonProblem {
  index: number;
  message: string;
}

/**
 * The first annotation that does not fit its class as a skeleton: a skeleton class's annotation
 * without `points`, or with another number of points than the class names, or `points` on a
 * class that is not a skeleton. Older clients that draw a skeleton class's points one by one, or
 * send `points` in another order or shape, are told what to send (400 `invalid_skeleton`).
 * Run after the schema, so `points` is a list of {x, y, v} here.
 */
export function findSkeletonProblem(list: readonly unknown[], classes: ReadonlyMap<string, SkeletonClassLike>): SkeletonProblem | null {
  for (let index = 0; index < list.length; index++) {
    const a = list[index];
    if (!isRecord(a) || typeof a.name !== 'string') continue;
    const cls = classes.get(a.name);
    if (!cls) continue;
    const named = skeletonPointsOf(cls);
    const points = a.points;
    const which = `Annotation ${index}${typeof a.id === 'string' ? ` (id ${quote(a.id)})` : ''}`;
    if (named === null) {
      if (points !== undefined) return { index, message: `${which}: class ${quote(cls.name)} is not a skeleton class, so its annotations have no "points"` };
      continue;
    }
    const names = named.slice(0, 20).join(', ') + (named.length > 20 ? ', ...' : '');
    if (!Array.isArray(points)) {
      return { index, message: `${which}: class ${quote(cls.name)} is a skeleton: send one annotation per instance with "points", one {x, y, v} per named point in order (${printableText(names)})` };
    }
    if (points.length !== named.length) {
      return { index, message: `${which}: class ${quote(cls.name)} is a skeleton of ${named.length} points (${printableText(names)}): "points" holds ${points.length}, expected one {x, y, v} per named point in order, v 0 for a point not labelled` };
    }
  }
  return null;
}
