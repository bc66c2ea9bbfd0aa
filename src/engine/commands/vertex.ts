// Shared helpers for the vertex commands: polygon ring 0 is the outer path, ring k>0 is hole k-1.
import type { EditorAnnotation, Point, PolygonAnnotation, PolylineAnnotation, Ring } from '../model/types';

export type PathAnnotation = PolygonAnnotation | PolylineAnnotation;

export function isPath(a: EditorAnnotation | undefined): a is PathAnnotation {
  return a?.type === 'polygon' || a?.type === 'polyline';
}

export function getRing(a: PathAnnotation, ring: number): Ring | undefined {
  if (ring === 0) return a.points;
  return a.type === 'polygon' ? a.holes?.[ring - 1] : undefined;
}

/** Returns a copy with `ring` replaced; `null` removes a hole. */
export function withRing(a: PathAnnotation, ring: number, points: readonly Point[] | null): PathAnnotation {
  if (ring === 0) {
    if (!points) throw new Error('Cannot remove the outer path');
    return { ...a, points };
  }
  if (a.type !== 'polygon' || !a.holes) throw new Error('No such ring');
  const holes = a.holes.slice();
  if (points) holes[ring - 1] = points;
  else holes.splice(ring - 1, 1);
  return { ...a, holes };
}
