// Pure geometry over editor annotations: bounds, exact hit tests, translation.
import { rleBBox, rleLookup, translateRle } from './rle';
import type { EditorAnnotation, Point, Rect, Ring, SkeletonPoint } from './types';

export interface Bounds {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

export function ringBounds(ring: Ring): Bounds {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const [x, y] of ring) {
    if (x < minX) minX = x;
    if (y < minY) minY = y;
    if (x > maxX) maxX = x;
    if (y > maxY) maxY = y;
  }
  return { minX, minY, maxX, maxY };
}

export function annotationBounds(a: EditorAnnotation): Bounds {
  switch (a.type) {
    case 'box':
    case 'segmentation':
      return { minX: a.x, minY: a.y, maxX: a.x + a.width, maxY: a.y + a.height };
    case 'polygon':
    case 'polyline':
      return ringBounds(a.points);
    case 'keypoint':
      return { minX: a.x, minY: a.y, maxX: a.x, maxY: a.y };
    case 'skeleton':
      return skeletonBounds(a.keypoints);
  }
}

/** The bounds of a skeleton's labelled points (v 1 or 2); a point at 0,0 when none is labelled (as the stored box). */
export function skeletonBounds(points: readonly SkeletonPoint[]): Bounds {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const p of points) {
    if (p.v === 0) continue;
    if (p.x < minX) minX = p.x;
    if (p.y < minY) minY = p.y;
    if (p.x > maxX) maxX = p.x;
    if (p.y > maxY) maxY = p.y;
  }
  return minX === Infinity ? { minX: 0, minY: 0, maxX: 0, maxY: 0 } : { minX, minY, maxX, maxY };
}

/** The index of the skeleton's labelled point within `tol` of (x, y) (the nearest), or -1. */
export function skeletonPointAt(points: readonly SkeletonPoint[], x: number, y: number, tol: number): number {
  let best = -1;
  let bestD = tol * tol;
  points.forEach((p, i) => {
    if (p.v === 0) return;
    const d = (p.x - x) ** 2 + (p.y - y) ** 2;
    if (d <= bestD) {
      bestD = d;
      best = i;
    }
  });
  return best;
}

/** Even-odd point-in-ring test (ring implicitly closed). */
export function pointInRing(x: number, y: number, ring: Ring): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]!;
    const [xj, yj] = ring[j]!;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

export function distSqToSegment(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax, dy = by - ay;
  const len = dx * dx + dy * dy;
  let t = len === 0 ? 0 : ((px - ax) * dx + (py - ay) * dy) / len;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  const cx = ax + t * dx - px, cy = ay + t * dy - py;
  return cx * cx + cy * cy;
}

/** Smallest squared distance from p to the ring's edges; `closed` adds the last->first edge. */
export function distSqToPath(px: number, py: number, ring: Ring, closed: boolean): number {
  let best = Infinity;
  const n = ring.length;
  if (n === 1) return (ring[0]![0] - px) ** 2 + (ring[0]![1] - py) ** 2;
  const last = closed ? n : n - 1;
  for (let i = 0; i < last; i++) {
    const a = ring[i]!, b = ring[(i + 1) % n]!;
    const d = distSqToSegment(px, py, a[0], a[1], b[0], b[1]);
    if (d < best) best = d;
  }
  return best;
}

/**
 * A keypoint is hit this much further out than the shared radius (8 screen px where outlines get
 * 6): its dot is small, and a click beside it should still take it.
 */
export const KEYPOINT_HIT_SCALE = 4 / 3;

/**
 * Exact hit test in image coordinates; `tol` is the hit radius in image pixels (keypoints:
 * KEYPOINT_HIT_SCALE times it).
 * Polygons: inside the outer ring and not inside a hole, or within tol of any edge.
 */
/** A skeleton class's edges (index pairs into its points), or undefined when the class has no skeleton. */
export type SkeletonEdgesOf = (className: string) => readonly (readonly [number, number])[] | undefined;

export function hitAnnotation(a: EditorAnnotation, x: number, y: number, tol: number, edgesOf?: SkeletonEdgesOf): boolean {
  const tol2 = tol * tol;
  switch (a.type) {
    case 'box':
      return x >= a.x - tol && x <= a.x + a.width + tol && y >= a.y - tol && y <= a.y + a.height + tol;
    case 'keypoint':
      return (a.x - x) ** 2 + (a.y - y) ** 2 <= tol2 * KEYPOINT_HIT_SCALE * KEYPOINT_HIT_SCALE;
    case 'polyline':
      return distSqToPath(x, y, a.points, false) <= tol2;
    case 'polygon': {
      if (distSqToPath(x, y, a.points, true) <= tol2) return true;
      for (const hole of a.holes ?? []) if (distSqToPath(x, y, hole, true) <= tol2) return true;
      if (!pointInRing(x, y, a.points)) return false;
      for (const hole of a.holes ?? []) if (pointInRing(x, y, hole)) return false;
      return true;
    }
    case 'segmentation':
      return rleLookup(a.rle).contains(x, y);
    case 'skeleton': {
      // A point (as wide as a keypoint's), or an edge between two labelled points (issue 33): a
      // click in the empty space of its box goes to what is under it. Points drag one by one.
      if (skeletonPointAt(a.keypoints, x, y, tol * KEYPOINT_HIT_SCALE) >= 0) return true;
      const edgeTol2 = (tol * 1.5) ** 2;
      return (edgesOf?.(a.class) ?? []).some(([i, j]) => {
        const p = a.keypoints[i], q = a.keypoints[j];
        return !!p && !!q && p.v !== 0 && q.v !== 0 && distSqToSegment(x, y, p.x, p.y, q.x, q.y) <= edgeTol2;
      });
    }
  }
}

export function translateRing(ring: Ring, dx: number, dy: number): Point[] {
  return ring.map(([x, y]) => [x + dx, y + dy] as const);
}

/** Moves an annotation. Masks live on the pixel grid, so they move by dx, dy rounded. */
export function translateAnnotation(a: EditorAnnotation, dx: number, dy: number): EditorAnnotation {
  switch (a.type) {
    case 'box':
    case 'keypoint':
      return { ...a, x: a.x + dx, y: a.y + dy };
    case 'polyline':
      return { ...a, points: translateRing(a.points, dx, dy) };
    case 'polygon':
      return a.holes
        ? { ...a, points: translateRing(a.points, dx, dy), holes: a.holes.map((h) => translateRing(h, dx, dy)) }
        : { ...a, points: translateRing(a.points, dx, dy) };
    case 'skeleton':
      // Points that are not labelled stay at 0,0.
      return { ...a, keypoints: a.keypoints.map((p) => (p.v === 0 ? p : { x: p.x + dx, y: p.y + dy, v: p.v })) };
    case 'segmentation': {
      if (Math.round(dx) === 0 && Math.round(dy) === 0) return a;
      const rle = translateRle(a.rle, dx, dy);
      return { ...a, rle, ...rleBBox(rle) };
    }
  }
}

/** The rectangle spanned by two corners. */
export function rectFromCorners(x0: number, y0: number, x1: number, y1: number): Rect {
  return { x: Math.min(x0, x1), y: Math.min(y0, y1), width: Math.abs(x1 - x0), height: Math.abs(y1 - y0) };
}

export function boundsContains(outer: Bounds, inner: Bounds): boolean {
  return inner.minX >= outer.minX && inner.maxX <= outer.maxX && inner.minY >= outer.minY && inner.maxY <= outer.maxY;
}

export function ringsOf(a: EditorAnnotation): readonly Ring[] {
  if (a.type === 'polygon') return [a.points, ...(a.holes ?? [])];
  if (a.type === 'polyline') return [a.points];
  return [];
}
