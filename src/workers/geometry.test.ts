// Tessellation and packing (no GL): what the render worker uploads.
import { describe, expect, it } from 'vitest';
import { Editor, SceneTracker } from '../engine';
import { COMPACT_STRIDE, FILL_STRIDE, LINE_STRIDE, MAX_MITER, NO_EDGE, SIDE_KEYPOINT, SIDE_OCCLUDED, SIDE_POLYLINE, boxGeometry, compactPolygon, keypointGeometry, polygonGeometry, polylineGeometry, simplifyRing, skeletonGeometry } from './geometry';
import { packScene, parseColor, splitDiff } from './pack';

/** Sum of triangle areas of an indexed fill. */
function fillArea(g: { fill: Float32Array; fillIdx: Uint32Array }): number {
  let a = 0;
  const x = (v: number) => g.fill[v * FILL_STRIDE]!, y = (v: number) => g.fill[v * FILL_STRIDE + 1]!;
  for (let i = 0; i < g.fillIdx.length; i += 3) {
    const [p, q, r] = [g.fillIdx[i]!, g.fillIdx[i + 1]!, g.fillIdx[i + 2]!];
    a += Math.abs((x(q) - x(p)) * (y(r) - y(p)) - (x(r) - x(p)) * (y(q) - y(p))) / 2;
  }
  return a;
}

/** Triangles of a line strip (two per segment or marker). */
const lineTris = (g: { lineIdx: Uint32Array }) => g.lineIdx.length / 3;

describe('geometry', () => {
  it('a box fills its area, outlines 4 segments as one mitred strip, and has 8 handles', () => {
    const g = boxGeometry(10, 20, 30, 40, 0xff0000, 7);
    expect(fillArea(g)).toBeCloseTo(1200);
    expect(g.line.length / LINE_STRIDE).toBe(4 * 2); // two vertices per corner, shared by both sides
    expect(lineTris(g)).toBe(4 * 2);
    // a right-angle corner: the mitre reaches sqrt(2) half widths along the diagonal
    expect(Math.hypot(g.line[2]!, g.line[3]!)).toBeCloseTo(Math.SQRT2);
    expect(Math.max(...g.lineIdx)).toBe(7);
    expect(g.handles.length).toBe(16);
    expect(g.fill[3]).toBe(7); // slot
  });

  it('clips the mitre of a sharp corner', () => {
    const g = polygonGeometry([0, 0, 100, 0, 0, 1], [3], 0, 0);
    for (let v = 0; v < g.line.length / LINE_STRIDE; v++) {
      const ox = g.line[v * LINE_STRIDE + 2]!, oy = g.line[v * LINE_STRIDE + 3]!;
      expect(Math.max(Math.abs(ox), Math.abs(oy))).toBeLessThanOrEqual(MAX_MITER + 1e-6); // never read as a marker (> 2)
    }
  });

  it('a polygon with a hole fills outer minus hole and outlines both rings', () => {
    const g = polygonGeometry([0, 0, 100, 0, 100, 100, 0, 100, 25, 25, 75, 25, 75, 75, 25, 75], [4, 4], 0x00ff00, 0);
    expect(fillArea(g)).toBeCloseTo(10000 - 2500);
    expect(lineTris(g)).toBe(8 * 2);
  });

  it('a polyline is open (n-1 segments) and has no fill; a keypoint is one marker', () => {
    const l = polylineGeometry([0, 0, 10, 0, 10, 10], 3, 0, 0);
    expect(l.fill.length).toBe(0);
    expect(lineTris(l)).toBe(2 * 2);
    expect(l.line.length / LINE_STRIDE).toBe(3 * 2);
    const k = keypointGeometry(5, 5, 0, 0);
    expect(k.line.length / LINE_STRIDE).toBe(4);
    expect([...k.lineIdx]).toEqual([0, 1, 2, 2, 1, 3]);
    expect(Math.abs(k.line[2]!)).toBeGreaterThan(2); // marker flag read by the shader
  });
});

/** Distance from (px, py) to the segment (ax, ay)-(bx, by). */
function segDist(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy;
  const t = l2 ? Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / l2)) : 0;
  return Math.hypot(px - ax - t * dx, py - ay - t * dy);
}

/** A jagged ring like the render benchmark's polygons (radius 0.55-1 of r per vertex). */
function jagged(n: number, r: number, seed: number, cx = 0, cy = 0): number[] {
  const out: number[] = [];
  for (let k = 0; k < n; k++) {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    const rr = r * (0.55 + 0.45 * (seed / 2 ** 32));
    out.push(cx + Math.cos((k / n) * Math.PI * 2) * rr, cy + Math.sin((k / n) * Math.PI * 2) * rr);
  }
  return out;
}

describe('compact polygons (level of detail)', () => {
  it('simplifies a ring within the tolerance, dropping collinear points and keeping corners', () => {
    // a square with points along its sides
    const sq = [0, 0, 5, 0, 10, 0, 10, 5, 10, 10, 5, 10, 0, 10, 0, 5];
    expect(simplifyRing(sq, 0, 8, 0.01)).toEqual([0, 2, 4, 6]);
    expect(simplifyRing(sq, 0, 8, 0)).toHaveLength(4); // collinear points are exactly on the chord
    for (const tol of [0.25, 1, 3]) {
      const ring = jagged(40, 20, 11);
      const kept = simplifyRing(ring, 0, 40, tol);
      expect(kept.length).toBeGreaterThanOrEqual(3);
      expect(kept.length).toBeLessThan(40);
      // every dropped vertex lies within the tolerance of the simplified ring
      for (let k = 0; k < 40; k++) {
        const d = Math.min(...kept.map((a, i) => {
          const b = kept[(i + 1) % kept.length]!;
          return segDist(ring[2 * k]!, ring[2 * k + 1]!, ring[2 * a]!, ring[2 * a + 1]!, ring[2 * b]!, ring[2 * b + 1]!);
        }));
        expect(d).toBeLessThanOrEqual(tol + 1e-9);
      }
    }
    // a sliver keeps an area (three points), a ring of a later offset reads its own points
    expect(simplifyRing([0, 0, 10, 0.01, 20, 0, 10, -0.01], 0, 4, 1)).toHaveLength(3);
    expect(simplifyRing([99, 99, ...sq], 1, 8, 0.01)).toEqual([0, 2, 4, 6]);
  });

  it('triangulates the simplified rings with holes, each corner carrying its distance to the ring edges', () => {
    const outer = [0, 0, 100, 0, 100, 100, 0, 100], hole = [40, 40, 60, 40, 60, 60, 40, 60];
    const tris = compactPolygon([...outer, ...hole], [4, 4], 0.5, 0x123456, 7)!;
    expect(tris.length % (3 * COMPACT_STRIDE)).toBe(0);
    let area = 0;
    for (let t = 0; t < tris.length; t += 3 * COMPACT_STRIDE) {
      const c = [0, 1, 2].map((i) => tris.subarray(t + i * COMPACT_STRIDE, t + (i + 1) * COMPACT_STRIDE));
      area += Math.abs((c[1]![0]! - c[0]![0]!) * (c[2]![1]! - c[0]![1]!) - (c[2]![0]! - c[0]![0]!) * (c[1]![1]! - c[0]![1]!)) / 2;
      expect(c.every((v) => v[2] === 0x123456 && v[3] === 7)).toBe(true);
      // at the centroid, the interpolated distance to each ring edge of the triangle equals the
      // true distance to that edge's line; sides that are not ring edges carry NO_EDGE
      const gx = (c[0]![0]! + c[1]![0]! + c[2]![0]!) / 3, gy = (c[0]![1]! + c[1]![1]! + c[2]![1]!) / 3;
      for (let e = 0; e < 3; e++) {
        const a = c[e]!, b = c[(e + 1) % 3]!;
        const ring = c.every((v) => v[4 + e] === NO_EDGE) ? null : [a, b];
        if (!ring) continue;
        const len = Math.hypot(b[0]! - a[0]!, b[1]! - a[1]!);
        const lineDist = Math.abs((b[0]! - a[0]!) * (gy - a[1]!) - (b[1]! - a[1]!) * (gx - a[0]!)) / len;
        expect((c[0]![4 + e]! + c[1]![4 + e]! + c[2]![4 + e]!) / 3).toBeCloseTo(lineDist, 4);
        expect(a[4 + e]).toBe(0);
        expect(b[4 + e]).toBe(0);
      }
    }
    expect(area).toBeCloseTo(100 * 100 - 20 * 20, 6);
  });

  it('uses fewer triangles than the full outline and fill, and drops rings with no area', () => {
    const ring = jagged(20, 24, 3);
    const full = polygonGeometry(ring, [20], 1, 1);
    const compact = compactPolygon(ring, [20], 2, 1, 1)!;
    const fullTris = full.fillIdx.length / 3 + full.lineIdx.length / 3;
    expect(compact.length / (3 * COMPACT_STRIDE)).toBeLessThan(fullTris / 3);
    expect(compactPolygon([0, 0, 5, 5, 10, 10], [3], 0.5, 1, 1)).toBeNull();
    // a hole smaller than the tolerance is dropped; the outer ring stays
    const withTinyHole = compactPolygon([0, 0, 100, 0, 100, 100, 0, 100, 50, 50, 50.1, 50, 50, 50.1], [4, 3], 1, 1, 1)!;
    expect(withTinyHole.length / (3 * COMPACT_STRIDE)).toBe(2);
  });
});

describe('packing scene diffs', () => {
  it('packs a SceneTracker diff into flat arrays, and a later diff holds only what changed', () => {
    const editor = new Editor({ idGenerator: () => 'x' });
    editor.load([
      { id: 'a', type: 'box', class: 'car', x: 1, y: 2, width: 30, height: 40 },
      { id: 'b', type: 'polygon', class: 'tree', points: [[0, 0], [10, 0], [10, 10]], holes: [[[2, 2], [4, 2], [3, 4]]] },
      { id: 'c', type: 'keypoint', class: 'car', x: 5, y: 6 },
    ]);
    const tracker = new SceneTracker(editor);
    const d = tracker.pull();
    const p = packScene(d, d.upserts, (cls) => parseColor(cls === 'car' ? '#FFADAD' : '#CAFFBF'));
    expect(p.reset).toBe(true);
    expect(p.ids).toEqual(['a', 'b', 'c']);
    expect([...p.types]).toEqual([0, 1, 3]);
    expect(p.colors[0]).toBe(0xffadad);
    expect([...p.rect.subarray(0, 4)]).toEqual([1, 2, 30, 40]);
    expect([...p.ringCounts]).toEqual([0, 2, 0]);
    expect([...p.ringLens]).toEqual([3, 3]);
    expect(p.coords.length).toBe(12);
    editor.select(['a']);
    editor.nudgeSelected(1, 0);
    const d2 = tracker.pull();
    expect(d2.upserts.map((u) => u.id)).toEqual(['a']);
    expect(splitDiff({ reset: false, upserts: d.upserts, removed: ['z'] }, 2).map((s) => [s.items.length, s.removed.length])).toEqual([[2, 1], [1, 0]]);
  });
});

describe('keypoint skeletons (issue 33)', () => {
  it('draw the edges between labelled points and a dot per labelled point, occluded ones hollow', () => {
    // nose (visible), left_eye (not labelled), right_eye (occluded), neck (visible); edges nose-left_eye, nose-right_eye, nose-neck.
    const g = skeletonGeometry([100, 100, 0, 0, 130, 95, 110, 160], [2, 0, 1, 2], [0, 1, 0, 2, 0, 3], 0xffadad, 7);
    const sides = new Map<number, number>();
    for (let v = 0; v < g.line.length / LINE_STRIDE; v++) {
      const side = Math.abs(g.line[v * LINE_STRIDE + 4]!);
      sides.set(side, (sides.get(side) ?? 0) + 1);
    }
    // Two edges (the one to the point not labelled is left out) of 2 x 2 vertices, three dots of 4.
    expect(sides.get(SIDE_POLYLINE)).toBe(8);
    expect(sides.get(SIDE_KEYPOINT)).toBe(8);
    expect(sides.get(SIDE_OCCLUDED)).toBe(4);
    expect([...g.handles]).toEqual([100, 100, 130, 95, 110, 160]);
  });

  it('are packed with their points as one ring, their v and their class edges', () => {
    const editor = new Editor({ idGenerator: () => 'x' });
    editor.skeletons.set(new Map([['person', { points: ['nose', 'neck'], edges: [[0, 1]] as [number, number][] }]]));
    editor.load([{ id: 's', type: 'skeleton', class: 'person', keypoints: [{ x: 5, y: 6, v: 2 }, { x: 7, y: 9, v: 1 }] }]);
    const d = new SceneTracker(editor).pull();
    const p = packScene(d, d.upserts, () => 0xffffff, (cls) => editor.skeletons.of(cls)?.edges);
    expect([...p.types]).toEqual([5]);
    expect([...p.ringLens]).toEqual([2]);
    expect([...p.coords]).toEqual([5, 6, 7, 9]);
    expect(p.skeletons).toEqual([{ index: 0, v: [2, 1], edges: [0, 1] }]);
  });
});
