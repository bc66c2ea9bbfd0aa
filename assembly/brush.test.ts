// Mask edits (assembly/kernels/brush.ts: brush strokes, hole filling, island removal) against the
// per-pixel TypeScript reference (assembly/reference/brush.ts).
import { beforeAll, describe, expect, it } from 'vitest';
import type { Kernels } from '../src/kernels/node';
import { fillHolesRef, paintStrokeRef, removeIslandsRef } from './reference/brush';
import { decodeRle, encodeMask } from './reference/rle';
import { blobMask, edgeCaseMasks, firstDiff, kernels, noiseMask, picture, rng } from './test/helpers';

let k: Kernels;
beforeAll(async () => {
  k = await kernels();
});

type Pt = [number, number];

function decoded(counts: Uint32Array, h: number, w: number): Uint8Array {
  return decodeRle({ size: [h, w], counts: Array.from(counts) });
}

function randomStroke(r: () => number, h: number, w: number): Pt[] {
  const n = 1 + Math.floor(r() * 6);
  // Points may lie outside the image: the stroke is clipped.
  return Array.from({ length: n }, () => [r() * (w + 10) - 5, r() * (h + 10) - 5] as Pt);
}

describe('maskPaint', () => {
  it('a disc of radius 2 at a pixel centre covers the 13 pixels within 2 of it', () => {
    const counts = k.paintStroke({ size: [9, 9], counts: [81] }, [[4.5, 4.5]], 2);
    expect(k.area({ size: [9, 9], counts })).toBe(13);
  });

  it('a horizontal stroke paints a band with round ends, and erasing it gives the empty mask back', () => {
    const empty = { size: [20, 40] as [number, number], counts: [800] };
    const painted = k.paintStroke(empty, [[10, 10], [30, 10]], 3);
    const mask = decoded(painted, 20, 40);
    expect(Array.from(painted)).toEqual(encodeMask(paintStrokeRef(new Uint8Array(800), 20, 40, [[10, 10], [30, 10]], 3, false), 20, 40));
    // column 20 (centre 20.5) holds the band's 6 pixels: centres 7.5 .. 12.5 are within 3 of y = 10
    expect(Array.from(mask.subarray(20 * 20, 21 * 20)).reduce((a, b) => a + b, 0)).toBe(6);
    const erased = k.paintStroke({ size: [20, 40], counts: painted }, [[10, 10], [30, 10]], 3, 'erase');
    expect(Array.from(erased)).toEqual([800]);
  });

  it('leaves the columns the stroke does not reach untouched, and a stroke outside the image changes nothing', () => {
    const h = 30, w = 50;
    const mask = blobMask(h, w, 7);
    const rle = { size: [h, w] as [number, number], counts: encodeMask(mask, h, w) };
    const out = decoded(k.paintStroke(rle, [[25.2, 3.1], [26.7, 20.4]], 1.5, 'erase'), h, w);
    for (let x = 0; x < w; x++) {
      if (x >= 23 && x <= 28) continue;
      expect(firstDiff(out.subarray(x * h, (x + 1) * h), mask.subarray(x * h, (x + 1) * h))).toBe(-1);
    }
    expect(Array.from(k.paintStroke(rle, [[-20, -20], [-10, -30]], 4))).toEqual(rle.counts);
    expect(Array.from(k.paintStroke(rle, [], 4))).toEqual(rle.counts);
  });

  it('agrees with the reference on the edge-case masks', () => {
    const r = rng(11);
    for (const [name, mask, h, w] of edgeCaseMasks()) {
      for (const erase of [false, true]) {
        const pts = randomStroke(r, h, w);
        const radius = r() * 4;
        const got = k.paintStroke({ size: [h, w], counts: encodeMask(mask, h, w) }, pts, radius, erase ? 'erase' : 'paint');
        expect(Array.from(got), `${name} ${erase ? 'erase' : 'paint'} ${JSON.stringify(pts)} r=${radius}`).toEqual(encodeMask(paintStrokeRef(mask, h, w, pts, radius, erase), h, w));
      }
    }
  });

  it('agrees with the reference on random masks and strokes, counts numeric or compressed', () => {
    const r = rng(42);
    for (let trial = 0; trial < 60; trial++) {
      const h = 1 + Math.floor(r() * 40), w = 1 + Math.floor(r() * 40);
      const mask = trial % 2 ? blobMask(h, w, trial) : noiseMask(h, w, r(), trial);
      const counts = encodeMask(mask, h, w);
      const pts = randomStroke(r, h, w);
      const radius = r() * 8;
      const erase = r() < 0.5;
      const input = trial % 3 === 0 ? k.countsToString(counts) : counts;
      const got = k.paintStroke({ size: [h, w], counts: input }, pts, radius, erase ? 'erase' : 'paint');
      const want = paintStrokeRef(mask, h, w, pts, radius, erase);
      expect(firstDiff(decoded(got, h, w), want), `trial ${trial}`).toBe(-1);
      expect(Array.from(got)).toEqual(encodeMask(want, h, w));
    }
  });

  it('refuses counts that do not sum to the image, and a bad radius or point', () => {
    expect(() => k.paintStroke({ size: [4, 4], counts: [3, 4] }, [[1, 1]], 1)).toThrow(/sum/);
    expect(() => k.paintStroke({ size: [4, 4], counts: [16] }, [[1, 1]], Number.NaN)).toThrow(/radius/);
    expect(() => k.paintStroke({ size: [4, 4], counts: [16] }, [[1, Number.POSITIVE_INFINITY]], 1)).toThrow(/point/);
  });
});

describe('maskFillHoles and maskRemoveIslands', () => {
  it('fills a ring\'s hole but not a gap open to the outside', () => {
    const { mask, h, w } = picture(['.......', '.#####.', '.#..#..', '.#####.', '.......']);
    const filled = decoded(k.fillHoles({ size: [h, w], counts: encodeMask(mask, h, w) }), h, w);
    const expected = picture(['.......', '.#####.', '.####..', '.#####.', '.......']).mask;
    expect(firstDiff(filled, expected)).toBe(-1);
  });

  it('a diagonal gap does not let the outside in (background is 4-connected)', () => {
    const { mask, h, w } = picture(['.###.', '#...#', '#...#', '.###.']);
    expect(k.area({ size: [h, w], counts: k.fillHoles({ size: [h, w], counts: encodeMask(mask, h, w) }) })).toBe(h * w - 4);
  });

  it('removes parts smaller than N pixels, keeping diagonal neighbours together', () => {
    const { mask, h, w } = picture(['##...#', '##....', '...#..', '....#.', '#.....']);
    const rle = { size: [h, w] as [number, number], counts: encodeMask(mask, h, w) };
    // parts: the 2x2 square (4), the diagonal pair (2), two single pixels
    expect(k.area({ size: [h, w], counts: k.removeIslands(rle, 2) })).toBe(6);
    expect(k.area({ size: [h, w], counts: k.removeIslands(rle, 3) })).toBe(4);
    expect(k.area({ size: [h, w], counts: k.removeIslands(rle, 5) })).toBe(0);
    expect(Array.from(k.removeIslands(rle, 0))).toEqual(rle.counts);
  });

  it('agree with the reference on the edge cases and random masks', () => {
    const cases = edgeCaseMasks();
    for (let s = 0; s < 30; s++) {
      const h = 2 + (s * 7) % 37, w = 2 + (s * 11) % 41;
      cases.push([`random ${s}`, s % 2 ? blobMask(h, w, s, 5, 0.05) : noiseMask(h, w, 0.3 + (s % 5) * 0.1, s), h, w]);
    }
    for (const [name, mask, h, w] of cases) {
      const rle = { size: [h, w] as [number, number], counts: encodeMask(mask, h, w) };
      expect(Array.from(k.fillHoles(rle)), `fill ${name}`).toEqual(encodeMask(fillHolesRef(mask, h, w), h, w));
      for (const min of [1, 2, 5, 40]) {
        expect(Array.from(k.removeIslands(rle, min)), `islands ${name} ${min}`).toEqual(encodeMask(removeIslandsRef(mask, h, w, min), h, w));
      }
    }
  });

  it('a 4096 x 4096 mask with one small part is edited without a full-image buffer', () => {
    const h = 4096, w = 4096;
    const ring = k.paintStroke({ size: [h, w], counts: [h * w] }, [[2000, 2000], [2040, 2000], [2040, 2040], [2000, 2040], [2000, 2000]], 3);
    const before = k.memoryBytes;
    const filled = k.fillHoles({ size: [h, w], counts: ring });
    expect(k.area({ size: [h, w], counts: filled })).toBeGreaterThan(k.area({ size: [h, w], counts: ring }) + 30 * 30);
    const painted = k.paintStroke({ size: [h, w], counts: filled }, [[100, 100], [4000, 4000]], 10);
    expect(k.area({ size: [h, w], counts: painted })).toBeGreaterThan(k.area({ size: [h, w], counts: filled }));
    // 16 MB would be one byte per pixel: the memory grew by far less (if at all)
    expect(k.memoryBytes - before).toBeLessThan(4 << 20);
  });
});
