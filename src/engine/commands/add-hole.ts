import polygonClipping, { type Pair } from 'polygon-clipping';
import { pointInRing } from '../model/geometry';
import { MIN_POLYGON_POINTS, type Point, type Ring } from '../model/types';
import { defineCommand } from './types';

function segmentsCross(a: Point, b: Point, c: Point, d: Point): boolean {
  const o = (p: Point, q: Point, r: Point) => Math.sign((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]));
  return o(a, b, c) * o(a, b, d) < 0 && o(c, d, a) * o(c, d, b) < 0;
}

function ringsCross(r1: Ring, r2: Ring): boolean {
  for (let i = 0; i < r1.length; i++) {
    const a = r1[i]!, b = r1[(i + 1) % r1.length]!;
    for (let j = 0; j < r2.length; j++) {
      if (segmentsCross(a, b, r2[j]!, r2[(j + 1) % r2.length]!)) return true;
    }
  }
  return false;
}

/** A ring strictly inside `outer` and disjoint from every hole: it can be appended as-is. */
function fitsAsHole(ring: Ring, outer: Ring, holes: readonly Ring[]): boolean {
  if (!ring.every(([x, y]) => pointInRing(x, y, outer))) return false;
  if (ringsCross(ring, outer)) return false;
  for (const h of holes) {
    if (ringsCross(ring, h)) return false;
    if (ring.some(([x, y]) => pointInRing(x, y, h))) return false;
    if (h.some(([x, y]) => pointInRing(x, y, ring))) return false;
  }
  return true;
}

const toPairs = (r: Ring): Pair[] => r.map(([x, y]) => [x, y]);
/** polygon-clipping closes rings by repeating the first point; the editor form does not. */
const fromPairs = (r: Pair[]): Point[] => {
  const pts = r.map(([x, y]) => [x, y] as const);
  const f = pts[0], l = pts[pts.length - 1];
  if (pts.length > 1 && f && l && f[0] === l[0] && f[1] === l[1]) pts.pop();
  return pts;
};

/**
 * Cuts `ring` out of polygon `id`. A ring inside the polygon becomes a new hole (the outer path
 * is kept exactly); a ring that overlaps the border or other holes is subtracted with
 * polygon-clipping, as long as the result is still one polygon. Returns whether it applied.
 */
export const addHole = defineCommand<{ id: string; ring: Ring }, boolean>({
  name: 'add-hole',
  label: () => 'Cut hole',
  run(tx, { id, ring }) {
    const a = tx.get(id);
    if (!a || a.type !== 'polygon' || ring.length < MIN_POLYGON_POINTS) return false;
    if (!ring.every(([x, y]) => Number.isFinite(x) && Number.isFinite(y))) return false;
    const holes = a.holes ?? [];
    if (fitsAsHole(ring, a.points, holes)) {
      tx.set({ ...a, holes: [...holes, ring.map(([x, y]) => [x, y] as const)] });
      return true;
    }
    const result = polygonClipping.difference([toPairs(a.points), ...holes.map(toPairs)], [toPairs(ring)]);
    if (result.length !== 1) return false; // the cut would split or erase the polygon
    const [outer, ...inner] = result[0]!.map(fromPairs);
    if (!outer || outer.length < MIN_POLYGON_POINTS) return false;
    // Ignore degenerate slivers polygon-clipping may leave.
    const keep = inner.filter((h) => h.length >= MIN_POLYGON_POINTS);
    tx.set({ ...a, points: outer, holes: keep });
    return true;
  },
});

