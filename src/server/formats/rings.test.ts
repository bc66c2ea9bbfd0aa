// Holes and parts joined into one ring by zero-width bridges, and split back: what the COCO and
// YOLO writers join (keyholeRing, joinParts), their readers split (splitBridged) into the same
// polygons, and every even-odd rasteriser draws the same pixels either way.
import { describe, expect, it } from 'vitest';
import { encodeMask } from '../../contract/rle';
import { loadKernelsNode } from '../../kernels/node';
import { pycocotoolsPolygonMask } from '../../../tests/support/coco-check';
import { joinParts, keyholeRing, splitBridged } from './rings';
import { ringArea, type Pt } from './shapes';

const square = (x: number, y: number, s: number): Pt[] => [[x, y], [x + s, y], [x + s, y + s], [x, y + s]];
const count = (m: Uint8Array) => m.reduce((n, v) => n + v, 0);
/** The same set of vertices, from any start and in either direction. */
function expectSameRing(actual: readonly Pt[], want: readonly Pt[]) {
  const key = (r: readonly Pt[]) => r.map(([x, y]) => `${x},${y}`).sort();
  expect(key(actual)).toEqual(key(want));
}

describe('keyholeRing', () => {
  it('bridges from the leftmost hole vertex to the nearest edge on its left, holes running against the outer ring', () => {
    const outer: Pt[] = [[0, 0], [10, 0], [10, 10], [0, 10]];
    const hole: Pt[] = [[4, 4], [4, 6], [6, 6], [6, 4]];
    const { ring, joined } = keyholeRing(outer, [hole]);
    expect(joined).toBe(1);
    // The bridge meets the left edge (from (0,10) to (0,0)) at (0,4); the hole runs against the outer ring.
    const expected = [[0, 0], [10, 0], [10, 10], [0, 10], [0, 4], [4, 4], [4, 6], [6, 6], [6, 4], [4, 4], [0, 4]];
    expect(ring).toEqual(expected);
    // A hole given in the outer ring's direction is turned round: the same ring.
    expect(keyholeRing(outer, [[...hole].reverse()]).ring).toEqual(expected);
    expect(ringArea(ring)).toBe(100 - 4);
    expect(count(pycocotoolsPolygonMask([ring.flat()], 12, 12))).toBe(100 - 4);
  });
});

/** keyholeRing as first written: every edge of the ring built so far scanned for every hole (quadratic), kept to compare with. */
function keyholeRingByScan(outer: readonly Pt[], holes: readonly (readonly Pt[])[]): Pt[] {
  let ring: Pt[] = outer.map(([x, y]) => [x, y]);
  const outerSign = Math.sign(ringSign(ring));
  const prepared = holes
    .filter((h) => h.length >= 3)
    .map((h) => {
      const pts: Pt[] = h.map(([x, y]) => [x, y]);
      if (Math.sign(ringSign(pts)) === outerSign) pts.reverse();
      let m = 0;
      for (let i = 1; i < pts.length; i++) if (pts[i]![0] < pts[m]![0] || (pts[i]![0] === pts[m]![0] && pts[i]![1] < pts[m]![1])) m = i;
      return { loop: [...pts.slice(m), ...pts.slice(0, m), pts[m]!], x: pts[m]![0] };
    })
    .sort((a, b) => a.x - b.x);
  for (const { loop } of prepared) {
    const [mx, my] = loop[0]!;
    let best = -Infinity;
    let at = -1;
    for (let i = 0; i < ring.length; i++) {
      const [ax, ay] = ring[i]!;
      const [bx, by] = ring[(i + 1) % ring.length]!;
      if (ay > my === by > my) continue;
      const x = ax + ((my - ay) * (bx - ax)) / (by - ay);
      if (x <= mx && x > best) [best, at] = [x, i];
    }
    if (at >= 0) ring = [...ring.slice(0, at + 1), [best, my], ...loop, [best, my], ...ring.slice(at + 1)];
  }
  return ring.filter((p, i) => {
    const q = ring[(i + ring.length - 1) % ring.length]!;
    return p[0] !== q[0] || p[1] !== q[1];
  });
}
const ringSign = (r: readonly Pt[]) => r.reduce((s, [x, y], i) => s + x * r[(i + 1) % r.length]![1] - r[(i + 1) % r.length]![0] * y, 0);

/** A deterministic pseudo-random sequence in [0, 1). */
function random(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
}

/** Whether two segments cross at a point inside both (touching at ends or lying along each other does not count). */
function properlyCross(a: Pt, b: Pt, c: Pt, d: Pt): boolean {
  const side = (p: Pt, q: Pt, r: Pt) => Math.sign((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]));
  const [s1, s2, s3, s4] = [side(a, b, c), side(a, b, d), side(c, d, a), side(c, d, b)];
  return s1 * s2 < 0 && s3 * s4 < 0;
}

/** A grid of `n` x `n` holes of jagged outline (8 vertices each) inside a square, rows and columns staggered so rays meet holes, not only the outer ring. */
function holeGrid(n: number, next: () => number): { outer: Pt[]; holes: Pt[][] } {
  const cell = 10;
  const outer = square(0, 0, n * cell + 10);
  const holes: Pt[][] = [];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const [x, y] = [8 + i * cell + Math.floor(next() * 3), 8 + j * cell + Math.floor(next() * 3)];
      holes.push([[x, y], [x + 2, y - 1], [x + 4, y], [x + 5, y + 2], [x + 4, y + 4], [x + 2, y + 5], [x, y + 4], [x - 1, y + 2]]);
    }
  }
  return { outer, holes };
}

describe('keyholeRing with many holes', () => {
  it('gives the ring a scan of every edge for every hole gives, on holes placed at random (touching rays, shared rows, holes left of holes)', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const next = random(seed);
      const { outer, holes } = holeGrid(2 + (seed % 5), next);
      const some = holes.filter(() => next() < 0.8).map((h) => (next() < 0.5 ? [...h].reverse() : h));
      const { ring, joined } = keyholeRing(outer, some);
      expect(joined).toBe(some.length);
      expect(ring).toEqual(keyholeRingByScan(outer, some));
    }
  });

  it('joins 400 holes without a bridge crossing an edge, the area the outer ring minus the holes, and splits back into them', () => {
    const { outer, holes } = holeGrid(20, random(7));
    const { ring, joined } = keyholeRing(outer, holes);
    expect(joined).toBe(400);
    const holeArea = holes.reduce((s, h) => s + ringArea(h), 0);
    expect(ringArea(ring)).toBeCloseTo(ringArea(outer) - holeArea, 6);
    const crossings: string[] = [];
    for (let i = 0; i < ring.length; i++) {
      for (let k = i + 2; k < ring.length; k++) {
        if (properlyCross(ring[i]!, ring[(i + 1) % ring.length]!, ring[k]!, ring[(k + 1) % ring.length]!)) crossings.push(`${i}x${k}`);
      }
    }
    expect(crossings).toEqual([]);
    const back = splitBridged(ring);
    expect(back).toHaveLength(1);
    expect(back[0]!.holes).toHaveLength(400);
    expect(back[0]!.holes.reduce((s, h) => s + ringArea(h), 0)).toBeCloseTo(holeArea, 6);
  });
});

describe('joinParts', () => {
  it("links each part to the next at their nearest vertices and walks every bridge there and back (Ultralytics' merge_multi_segment)", () => {
    const ring = joinParts([square(0, 0, 4), square(10, 0, 4), square(20, 0, 4)]);
    expect(ring).toHaveLength(4 * 3 + 4);
    // Two bridges, each walked once each way: (4,0) <-> (10,0) and (14,0) <-> (20,0).
    const edges = ring.map((p, i) => `${p}>${ring[(i + 1) % ring.length]}`);
    for (const [a, b] of [['4,0', '10,0'], ['14,0', '20,0']]) {
      expect(edges).toContain(`${a}>${b}`);
      expect(edges).toContain(`${b}>${a}`);
    }
    expect(ringArea(ring)).toBe(48);
    expect(count(pycocotoolsPolygonMask([ring.flat()], 8, 30))).toBe(48);
    expect(joinParts([square(0, 0, 4)])).toEqual(square(0, 0, 4));
  });
});

describe('splitBridged', () => {
  it('gives back a ring without bridges exactly as it was', () => {
    const ring: Pt[] = [[0, 0], [4, 0], [4, 3], [0, 3]];
    expect(splitBridged(ring)).toEqual([{ path: ring, holes: [] }]);
  });

  it('restores the outer ring and its holes from a keyholed ring', () => {
    const outer = square(0, 0, 20);
    const holes = [square(3, 3, 4), square(12, 10, 5)];
    const parts = splitBridged(keyholeRing(outer, holes).ring);
    expect(parts).toHaveLength(1);
    expectSameRing(parts[0]!.path, outer);
    expect(parts[0]!.holes).toHaveLength(2);
    parts[0]!.holes.forEach((h) => expectSameRing(h, holes[[4, 5].indexOf(Math.sqrt(ringArea(h)))]!));
  });

  it('restores several parts with their holes, and an island inside a hole as a part of its own', () => {
    const a = keyholeRing(square(0, 0, 20), [square(5, 5, 10)]).ring;
    const island = square(8, 8, 4);
    const b = keyholeRing(square(30, 0, 10), [square(33, 3, 3)]).ring;
    const parts = splitBridged(joinParts([a, island, b]));
    expect(parts.map((p) => [ringArea(p.path), p.holes.map(ringArea)]).sort((x, y) => Number(x[0]) - Number(y[0]))).toEqual([
      [16, []],
      [100, [9]],
      [400, [100]],
    ]);
  });

  it('draws the same pixels as the mask it was traced from (kernels, pixel centres, even-odd)', async () => {
    const kernels = await loadKernelsNode();
    const H = 40, W = 60;
    const mask = new Uint8Array(W * H);
    for (let x = 2; x < 50; x++) for (let y = 2; y < 35; y++) {
      const inHole = (x >= 10 && x < 20 && y >= 8 && y < 18) || (x - 35) ** 2 + (y - 20) ** 2 < 36;
      if (!inHole) mask[x * H + y] = 1;
    }
    for (let x = 53; x < 58; x++) for (let y = 5; y < 30; y++) mask[x * H + y] = 1;
    const polygons = kernels.maskToPolygons({ size: [H, W], counts: encodeMask(mask, H, W) }, { tolerance: 0 });
    const ring = joinParts(polygons.map((p) => keyholeRing(p.path, p.holes).ring));
    const back = splitBridged(ring);
    expect(back).toHaveLength(2);
    expect(Array.from(kernels.polygonsToMask(back, H, W))).toEqual(Array.from(mask));
  });
});

