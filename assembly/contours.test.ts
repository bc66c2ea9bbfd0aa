// Mask -> polygons kernel (assembly/kernels/contours.ts) against the TypeScript reference
// (assembly/reference/contours.ts), plus properties a user relies on: exact round trip through
// the rasteriser, orientation, holes under the right polygon.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Kernels } from '../src/kernels/node';
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

  it('Douglas-Peucker drops corners within the tolerance and keeps the shape', () => {
    // A staircase (digitised diagonal) collapses to a triangle once the tolerance passes the step.
    const rows = Array.from({ length: 20 }, (_, y) => '#'.repeat(y + 1).padEnd(20, '.'));
    const { mask, h, w } = picture(rows);
    const exact = k.maskToPolygons(mask, h, w);
    // (0,0), then (k,k-1), (k,k) for k = 1..20, then (0,20).
    expect(exact[0]!.path.length).toBe(2 + 2 * 20);
    // Anchors (0,0) and the farthest corner (20,20); the step corners are 1/sqrt(2) from that
    // diagonal, so within tolerance 1; (0,20) is 14.1 away from it and stays.
    const simple = k.maskToPolygons(mask, h, w, { tolerance: 1 });
    expect(simple).toEqual([{ path: [[0, 0], [20, 20], [0, 20]], holes: [] }]);
    // Just under 1/sqrt(2) the first step corner is out of tolerance, so more corners survive.
    expect(k.maskToPolygons(mask, h, w, { tolerance: 0.7 })[0]!.path.length).toBeGreaterThan(3);
    // A tolerance larger than a ring drops it: tiny holes vanish, the polygon stays.
    const ring = picture(['#####', '##.##', '#####']);
    expect(k.maskToPolygons(ring.mask, ring.h, ring.w, { tolerance: 1 })[0]!.holes).toEqual([]);
    expect(k.maskToPolygons(ring.mask, ring.h, ring.w, { tolerance: 0 })[0]!.holes).toHaveLength(1);
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
