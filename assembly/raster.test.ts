// Polygons -> mask kernel (assembly/kernels/raster.ts) against the per-pixel TypeScript
// reference (assembly/reference/raster.ts).
import { beforeAll, describe, expect, it } from 'vitest';
import type { Kernels, PolygonInput } from '../src/kernels/node';
import { polygonsToMaskRef, type RefPolygonInput } from './reference/raster';
import { encodeMask } from './reference/rle';
import { firstDiff, kernels, picture, rng } from './test/helpers';

let k: Kernels;
beforeAll(async () => {
  k = await kernels();
});

type Pt = [number, number];

function randomRing(r: () => number, cx: number, cy: number, rad: number, n: number, star: boolean): Pt[] {
  const ring: Pt[] = [];
  for (let i = 0; i < n; i++) {
    const a = star ? r() * 2 * Math.PI : (i / n) * 2 * Math.PI;
    const rr = rad * (0.3 + 0.7 * r());
    ring.push([cx + rr * Math.cos(a), cy + rr * Math.sin(a)]);
  }
  return ring;
}

describe('known answers', () => {
  it('a rectangle on pixel corners covers exactly its pixels', () => {
    const counts = k.polygonsToRle([{ path: [[1, 1], [3, 1], [3, 4], [1, 4]] }], 5, 4);
    const { mask } = picture(['....', '.##.', '.##.', '.##.', '....']);
    expect(Array.from(counts)).toEqual(encodeMask(mask, 5, 4));
  });

  it('samples pixel centres: a triangle', () => {
    // Triangle (0,0) (4,0) (0,4): centre (x+.5, y+.5) is strictly inside when x + y + 1 < 4.
    // Centres on the hypotenuse (x + y = 3) are on a bottom boundary: the column's crossings are
    // the top edge (yc = 0) and the hypotenuse (yc = Y), both <= Y, so parity 0: outside.
    const mask = k.polygonsToMask([{ path: [[0, 0], [4, 0], [0, 4]] }], 4, 4);
    const { mask: expected } = picture(['###.', '##..', '#...', '....']);
    expect(Array.from(mask)).toEqual(Array.from(expected));
  });

  it('two polygons sharing an edge never both own a pixel, and leave no gap', () => {
    const left = { path: [[0, 0], [2.5, 0], [2.5, 3], [0, 3]] as Pt[] };
    const right = { path: [[2.5, 0], [5, 0], [5, 3], [2.5, 3]] as Pt[] };
    const a = k.polygonsToMask([left], 3, 5), b = k.polygonsToMask([right], 3, 5);
    for (let i = 0; i < 15; i++) expect(a[i]! + b[i]!).toBe(1);
  });

  it('holes: even-odd ignores orientation, nonzero needs the opposite winding', () => {
    const outer: Pt[] = [[0, 0], [6, 0], [6, 6], [0, 6]];
    const holeCw: Pt[] = [[2, 2], [4, 2], [4, 4], [2, 4]]; // same winding as outer
    const holeCcw = [...holeCw].reverse();
    const filled = k.polygonsToRle([{ path: outer }], 6, 6);
    const ring = k.polygonsToRle([{ path: outer, holes: [holeCcw] }], 6, 6);
    expect(k.area({ size: [6, 6], counts: ring })).toBe(32);
    expect(Array.from(k.polygonsToRle([{ path: outer, holes: [holeCw] }], 6, 6))).toEqual(Array.from(ring));
    expect(Array.from(k.polygonsToRle([{ path: outer, holes: [holeCcw] }], 6, 6, { fillRule: 'nonzero' }))).toEqual(Array.from(ring));
    expect(Array.from(k.polygonsToRle([{ path: outer, holes: [holeCw] }], 6, 6, { fillRule: 'nonzero' }))).toEqual(Array.from(filled));
  });

  it('unites separate polygons, even when they overlap', () => {
    const a = { path: [[0, 0], [4, 0], [4, 4], [0, 4]] as Pt[] };
    const b = { path: [[2, 2], [6, 2], [6, 6], [2, 6]] as Pt[] };
    expect(k.area({ size: [6, 6], counts: k.polygonsToRle([a, b], 6, 6) })).toBe(16 + 16 - 4);
  });

  it('clips to the image and handles empty input', () => {
    expect(Array.from(k.polygonsToRle([], 3, 3))).toEqual([9]);
    expect(Array.from(k.polygonsToRle([{ path: [[-10, -10], [20, -10], [20, 20], [-10, 20]] }], 3, 3))).toEqual([0, 9]);
    expect(Array.from(k.polygonsToRle([{ path: [[10, 10], [20, 10], [20, 20]] }], 3, 3))).toEqual([9]);
    expect(Array.from(k.polygonsToRle([{ path: [[0, 0], [1, 1]] }], 3, 3))).toEqual([9]);
    expect(Array.from(k.polygonsToRle([{ path: [[0, 0], [3, 0], [3, 3]] }], 0, 0))).toEqual([0]);
    expect(() => k.polygonsToRle([{ path: [[0, NaN], [1, 1], [2, 0]] }], 3, 3)).toThrow(/vertex/);
  });
});

describe('wasm agrees with the per-pixel reference', () => {
  const check = (polys: RefPolygonInput[], h: number, w: number) => {
    for (const fillRule of ['evenodd', 'nonzero'] as const) {
      const expected = polygonsToMaskRef(polys, h, w, fillRule);
      const counts = k.polygonsToRle(polys as PolygonInput[], h, w, { fillRule });
      expect(Array.from(counts)).toEqual(encodeMask(expected, h, w));
      expect(firstDiff(k.polygonsToMask(polys as PolygonInput[], h, w, { fillRule }), expected)).toBe(-1);
    }
  };

  it('random self-intersecting polygons with holes, partly outside the image, odd sizes', () => {
    const r = rng(11);
    for (let t = 0; t < 80; t++) {
      const h = 1 + Math.floor(r() * 40), w = 1 + Math.floor(r() * 40);
      const polys: RefPolygonInput[] = [];
      const nPoly = 1 + Math.floor(r() * 3);
      for (let p = 0; p < nPoly; p++) {
        const cx = r() * w * 1.2 - 0.1 * w, cy = r() * h * 1.2 - 0.1 * h, rad = 1 + r() * Math.max(h, w) * 0.6;
        const path = randomRing(r, cx, cy, rad, 3 + Math.floor(r() * 12), t % 3 === 0);
        const holes = r() < 0.5 ? [randomRing(r, cx, cy, rad * 0.4, 3 + Math.floor(r() * 6), false)] : [];
        polys.push({ path, holes });
      }
      check(polys, h, w);
    }
  });

  it('vertices exactly on pixel centres and edges (boundary rule)', () => {
    const r = rng(12);
    for (let t = 0; t < 60; t++) {
      const h = 2 + Math.floor(r() * 12), w = 2 + Math.floor(r() * 12);
      // Coordinates on a half-pixel grid: every vertex is on a pixel corner, edge midpoint or centre.
      const ring: Pt[] = Array.from({ length: 3 + Math.floor(r() * 8) }, () => [Math.round(r() * w * 2) / 2, Math.round(r() * h * 2) / 2]);
      check([{ path: ring }], h, w);
    }
  });

  it('thin slivers and 1 x N / N x 1 images', () => {
    check([{ path: [[0, 0.49], [9, 0.51], [9, 0.6], [0, 0.52]] }], 1, 9);
    check([{ path: [[0.4, 0], [0.6, 9], [0.5, 9]] }], 9, 1);
    check([{ path: [[0, 0], [9, 1], [0, 1]] }], 1, 9);
  });
});
