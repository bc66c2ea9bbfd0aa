// Mask -> polygons kernel (assembly/kernels/contours.ts) against the TypeScript reference
// (assembly/reference/contours.ts), plus properties a user relies on: exact round trip through
// the rasteriser, orientation, holes under the right polygon.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Kernels } from '../src/kernels/node';
import { MASK_POLYGON_TOLERANCE } from '../src/kernels/node';
import { maskToPolygonsRef, shoelace } from './reference/contours';
import { polygonsToMaskRef } from './reference/raster';
import { encodeMask } from './reference/rle';
import { blobMask, edgeCaseMasks, firstDiff, kernels, noiseMask, picture, rng } from './test/helpers';

let k: Kernels;
beforeAll(async () => {
  k = await kernels();
});

describe('known shapes', () => {
  it('one pixel is a unit square, clockwise on screen (positive shoelace, y down)', () => {
    const { mask, h, w } = picture(['...', '.#.', '...']);
    expect(k.maskToPolygons(mask, h, w)).toEqual([{ path: [[1, 1], [2, 1], [2, 2], [1, 2]], holes: [] }]);
  });

  it('a ring becomes one polygon with one hole of opposite orientation', () => {
    const { mask, h, w } = picture(['#####', '#...#', '#...#', '#####']);
    const polys = k.maskToPolygons(mask, h, w);
    expect(polys).toEqual([
      { path: [[0, 0], [5, 0], [5, 4], [0, 4]], holes: [[[1, 3], [4, 3], [4, 1], [1, 1]]] },
    ]);
    expect(shoelace(polys[0]!.path)).toBe(20);
    expect(shoelace(polys[0]!.holes[0]!)).toBe(-6);
  });

  it('diagonal neighbours are one polygon (8-connected foreground)', () => {
    const { mask, h, w } = picture(['#.', '.#']);
    const polys = k.maskToPolygons(mask, h, w);
    expect(polys).toHaveLength(1);
    expect(polys[0]!.path).toEqual([[0, 0], [1, 0], [1, 1], [2, 1], [2, 2], [1, 2], [1, 1], [0, 1]]);
  });

  it('an island inside a hole is its own polygon; the hole belongs to the outer one', () => {
    const { mask, h, w } = picture(['#####', '#...#', '#.#.#', '#...#', '#####']);
    const polys = k.maskToPolygons(mask, h, w);
    expect(polys).toHaveLength(2);
    expect(polys[0]!.holes).toHaveLength(1);
    expect(polys[1]).toEqual({ path: [[2, 2], [3, 2], [3, 3], [2, 3]], holes: [] });
  });

  it('above tolerance 0 simplifies the edge midpoints, not the corners', () => {
    // A staircase (digitised diagonal): its corners zigzag, its edge midpoints lie on one line.
    const rows = Array.from({ length: 20 }, (_, y) => '#'.repeat(y + 1).padEnd(20, '.'));
    const { mask, h, w } = picture(rows);
    const exact = k.maskToPolygons(mask, h, w);
    // (0,0), then (k,k-1), (k,k) for k = 1..20, then (0,20).
    expect(exact[0]!.path.length).toBe(2 + 2 * 20);
    // The diagonal's midpoints (k+0.5, k) and (k+1, k+0.5) are collinear: one edge from (0.5, 0)
    // to (20, 19.5). The corner (0, 0) ends a 1-pixel step, so it is cut by half a pixel; (0, 20)
    // joins two long straight sides, so it stays. (19.5, 20) is 0.35 px from the chord
    // (20, 19.5) - (0, 20): it goes at 0.5 and stays at 0.3.
    expect(k.maskToPolygons(mask, h, w, { tolerance: 0.5 })).toEqual([{ path: [[0, 0.5], [0.5, 0], [20, 19.5], [0, 20]], holes: [] }]);
    expect(k.maskToPolygons(mask, h, w, { tolerance: 0.3 })[0]!.path).toEqual([[0, 0.5], [0.5, 0], [20, 19.5], [19.5, 20], [0, 20]]);
    // A hole smaller than the tolerance collapses and is dropped; the polygon stays.
    const ring = picture(['#####', '##.##', '#####']);
    expect(k.maskToPolygons(ring.mask, ring.h, ring.w, { tolerance: 1 })).toEqual([{ path: [[0, 0], [5, 0], [5, 3], [0, 3]], holes: [] }]);
    expect(k.maskToPolygons(ring.mask, ring.h, ring.w, { tolerance: 0 })[0]!.holes).toHaveLength(1);
    // An outer ring never collapses: a single pixel keeps the diamond through its edge midpoints,
    // whose rasterisation is the pixel again.
    const one = picture(['...', '.#.', '...']);
    const diamond = [{ path: [[1, 1.5], [1.5, 1], [2, 1.5], [1.5, 2]], holes: [] }];
    expect(k.maskToPolygons(one.mask, one.h, one.w, { tolerance: 1 })).toEqual(diamond);
    expect(k.maskToPolygons(one.mask, one.h, one.w, { tolerance: 50 })).toEqual(diamond);
  });

  it('keeps the exact corners of rectangles (two straight sides of 2+ pixels turning alike)', () => {
    const rect = picture(['.....', '.###.', '.###.', '.###.', '.###.', '.....']); // 3 x 4 at (1, 1)
    const square = picture(['....', '.##.', '.##.', '....']);
    for (const tolerance of [0.5, 1, 2, 10]) {
      expect(k.maskToPolygons(rect.mask, rect.h, rect.w, { tolerance })).toEqual([{ path: [[1, 1], [4, 1], [4, 5], [1, 5]], holes: [] }]);
      expect(k.maskToPolygons(square.mask, square.h, square.w, { tolerance })).toEqual([{ path: [[1, 1], [3, 1], [3, 3], [1, 3]], holes: [] }]);
    }
    // A staircase of 2-pixel steps turns left, right, left...: its corners are not kept.
    const stairs = picture(['##....', '####..', '######']);
    expect(k.maskToPolygons(stairs.mask, stairs.h, stairs.w, { tolerance: 1 })).toEqual([{ path: [[0, 0], [1.5, 0], [6, 2.5], [0, 3]], holes: [] }]);
  });

  it('reads an RLE directly (numeric counts or string)', () => {
    const { mask, h, w } = picture(['.##', '##.', '...']);
    const counts = encodeMask(mask, h, w);
    const expected = k.maskToPolygons(mask, h, w);
    expect(k.maskToPolygons({ size: [h, w], counts })).toEqual(expected);
    expect(k.maskToPolygons({ size: [h, w], counts: k.countsToString(counts) })).toEqual(expected);
  });
});

describe('wasm agrees with the reference, and tolerance 0 round-trips exactly', () => {
  const check = (mask: Uint8Array, h: number, w: number) => {
    const counts = encodeMask(mask, h, w);
    for (const tolerance of [0, 0.5, 1, 2.5]) {
      const got = k.maskToPolygons(mask, h, w, { tolerance });
      expect(got).toEqual(maskToPolygonsRef(mask, h, w, tolerance));
      // From RLE the kernel traces only the bounding box, then offsets: same result.
      expect(k.maskToPolygons({ size: [h, w], counts }, { tolerance })).toEqual(got);
      for (const p of got) {
        expect(shoelace(p.path)).toBeGreaterThan(0);
        for (const hole of p.holes) expect(shoelace(hole)).toBeLessThan(0);
      }
      if (tolerance === 0) {
        for (const fillRule of ['evenodd', 'nonzero'] as const) {
          expect(Array.from(k.polygonsToRle(got, h, w, { fillRule }))).toEqual(counts);
        }
        expect(firstDiff(polygonsToMaskRef(got, h, w).map((v, i) => (v === (mask[i] ? 1 : 0) ? 1 : 0)), new Uint8Array(h * w).fill(1))).toBe(-1);
      }
    }
  };

  for (const [name, mask, h, w] of edgeCaseMasks()) {
    it(name, () => check(mask, h, w));
  }

  it('random noise masks (many components, holes, pinches)', () => {
    const r = rng(7);
    for (let t = 0; t < 40; t++) {
      const h = 1 + Math.floor(r() * 30), w = 1 + Math.floor(r() * 30);
      check(noiseMask(h, w, 0.2 + 0.6 * r(), 100 + t), h, w);
    }
  });

  it('random blob masks with rings and islands', () => {
    const r = rng(8);
    for (let t = 0; t < 25; t++) {
      const h = 5 + Math.floor(r() * 60), w = 5 + Math.floor(r() * 60);
      check(blobMask(h, w, 200 + t, 6, 0.02), h, w);
    }
  });

  it('leaves the caller\'s mask untouched (the kernel works on a copy)', () => {
    const mask = Uint8Array.from([0, 5, 5, 0]);
    k.maskToPolygons(mask, 2, 2);
    expect(Array.from(mask)).toEqual([0, 5, 5, 0]);
  });
});

// What the export and the editor's "save as polygons" promise at MASK_POLYGON_TOLERANCE: close
// to the mask (IoU of the rasterised polygons) with far fewer vertices than the staircase.
describe('simplified polygons stay close to the mask', () => {
  const vertexCount = (polys: { path: unknown[]; holes: unknown[][] }[]) => polys.reduce((s, p) => s + p.path.length + p.holes.reduce((a, r) => a + r.length, 0), 0);
  const iou = (a: Uint8Array, b: Uint8Array) => {
    let inter = 0, union = 0;
    for (let i = 0; i < a.length; i++) {
      inter += a[i]! && b[i]! ? 1 : 0;
      union += a[i]! || b[i]! ? 1 : 0;
    }
    return inter / union;
  };
  /** Column-major mask of the pixels whose centre is within [r0, r1) of (cx, cy). */
  const annulus = (h: number, w: number, cx: number, cy: number, r0: number, r1: number) => {
    const m = new Uint8Array(h * w);
    for (let x = 0; x < w; x++) {
      for (let y = 0; y < h; y++) {
        const d = Math.hypot(x + 0.5 - cx, y + 0.5 - cy);
        m[x * h + y] = d >= r0 && d < r1 ? 1 : 0;
      }
    }
    return m;
  };
  const measure = (mask: Uint8Array, h: number, w: number) => {
    const exact = k.maskToPolygons(mask, h, w);
    const simple = k.maskToPolygons(mask, h, w, { tolerance: MASK_POLYGON_TOLERANCE });
    return { exact, simple, iou: iou(k.polygonsToMask(simple, h, w), mask), ratio: vertexCount(simple) / vertexCount(exact) };
  };

  it('the default tolerance is 1 pixel', () => {
    expect(MASK_POLYGON_TOLERANCE).toBe(1);
  });

  it('a disk: IoU over 0.99 with under a fifth of the vertices; tolerance 0 stays exact', () => {
    const h = 120, w = 140, mask = annulus(h, w, 70.3, 60.1, 0, 45);
    const { exact, simple, iou: x, ratio } = measure(mask, h, w);
    expect(Array.from(k.polygonsToMask(exact, h, w))).toEqual(Array.from(mask));
    expect(simple).toHaveLength(1);
    expect(x).toBeGreaterThan(0.99);
    expect(ratio).toBeLessThan(0.2);
    expect(simple[0]!.path.length).toBeGreaterThanOrEqual(16); // still round, not a polygon of a few sides
  });

  it('a ring keeps its hole, with the same orientation rules', () => {
    const h = 100, w = 100, mask = annulus(h, w, 50, 50, 20, 40);
    const { simple, iou: x, ratio } = measure(mask, h, w);
    expect(simple).toHaveLength(1);
    expect(simple[0]!.holes).toHaveLength(1);
    expect(shoelace(simple[0]!.path)).toBeGreaterThan(0);
    expect(shoelace(simple[0]!.holes[0]!)).toBeLessThan(0);
    expect(x).toBeGreaterThan(0.97);
    expect(ratio).toBeLessThan(0.25);
  });

  it('a thin slanted line stays one polygon of a few vertices; 1-pixel-wide lines lose the most', () => {
    // Edges may move up to the tolerance, so a line as thin as the tolerance loses a third of its
    // pixels (simplifying the corners instead loses as much); a 3-pixel line keeps most of them.
    for (const [width, minIou] of [[1, 0.6], [3, 0.85]] as const) {
      const h = 40, w = 100, mask = new Uint8Array(h * w);
      for (let x = 5; x < 95; x++) for (let d = 0; d < width; d++) mask[x * h + Math.floor(5 + x * 0.15) + d] = 1;
      const { simple, iou: x } = measure(mask, h, w);
      expect(simple).toHaveLength(1);
      expect(x).toBeGreaterThan(minIou);
      expect(vertexCount(simple)).toBeLessThanOrEqual(6);
    }
  });

  it('a one-pixel mask stays one polygon that rasterises to that pixel', () => {
    const h = 7, w = 9, mask = new Uint8Array(h * w);
    mask[4 * h + 3] = 1;
    const { simple, iou: x } = measure(mask, h, w);
    expect(simple).toHaveLength(1);
    expect(x).toBe(1);
  });
});
