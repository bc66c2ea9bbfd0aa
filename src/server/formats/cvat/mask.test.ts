import { describe, expect, it } from 'vitest';
import { MAX_IMPORT_MASK_RUNS } from '../../../contract/imports';
import { decodeRle } from '../../../contract/rle';
import { cvatMaskToCoco } from './mask';

/** What the conversion must give, pixel by pixel: CVAT's box filled as a bitmap, then read column-major over the image. */
function reference(counts: number[], left: number, top: number, width: number, height: number, iw: number, ih: number): number[] {
  const box: number[] = [];
  counts.forEach((c, i) => {
    for (let k = 0; k < c; k++) box.push(i % 2);
  });
  const out: number[] = [];
  for (let x = 0; x < iw; x++) {
    for (let y = 0; y < ih; y++) {
      const bx = x - left;
      const by = y - top;
      out.push(bx >= 0 && bx < width && by >= 0 && by < height ? box[by * width + bx]! : 0);
    }
  }
  return out;
}

/** A small deterministic random generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

describe('CVAT mask -> COCO RLE', () => {
  it('gives the same pixels as a bitmap would, with runs across rows and boxes cut at every border', () => {
    const rnd = random(7);
    for (let trial = 0; trial < 300; trial++) {
      const iw = 1 + Math.floor(rnd() * 9);
      const ih = 1 + Math.floor(rnd() * 9);
      const width = 1 + Math.floor(rnd() * 8);
      const height = 1 + Math.floor(rnd() * 8);
      const left = Math.floor(rnd() * 14) - 4;
      const top = Math.floor(rnd() * 14) - 4;
      const counts: number[] = [];
      let left_ = width * height;
      while (left_ > 0) {
        const c = Math.min(left_, Math.floor(rnd() * (width * 2)));
        counts.push(c);
        left_ -= c;
      }
      if (counts.length % 2 === 0 && rnd() < 0.5) counts.push(0);
      const expected = reference(counts, left, top, width, height, iw, ih);
      const got = cvatMaskToCoco(counts, left, top, width, height, iw, ih);
      const where = JSON.stringify({ counts, left, top, width, height, iw, ih });
      expect([...decodeRle({ size: [ih, iw], counts: got.counts })], where).toEqual(expected);
      const inBox = counts.reduce((a, c, i) => a + (i % 2 ? c : 0), 0);
      expect(got.clipped, where).toBe(expected.reduce((a, v) => a + v, 0) !== inBox);
      expect(got.counts.slice(1).every((c) => c > 0), `${where}: runs after the first are never empty`).toBe(true);
    }
  });

  it('turns a whole 20000 x 20000 mask into two runs', () => {
    expect(cvatMaskToCoco([0, 400_000_000], 0, 0, 20_000, 20_000, 20_000, 20_000)).toEqual({ counts: [0, 400_000_000], clipped: false });
    // The same box 10 000 pixels to the right: half of it is cut off.
    expect(cvatMaskToCoco([0, 400_000_000], 10_000, 0, 20_000, 20_000, 20_000, 20_000)).toEqual({ counts: [200_000_000, 200_000_000], clipped: true });
  });

  it('refuses a box or an image over the pixel limit, and counts that do not cover the box', () => {
    expect(() => cvatMaskToCoco([0, 1e10], 0, 0, 100_000, 100_000, 100, 100)).toThrow("the mask's box is 100000x100000 pixels, more than the 400,000,000 pixels an image may have");
    expect(() => cvatMaskToCoco([0, 4], 0, 0, 2, 2, 1_000_000, 1_000_000)).toThrow('the image is declared as 1000000x1000000 pixels, more than the 400,000,000 pixels an image may have');
    expect(() => cvatMaskToCoco([1, 1], 0, 0, 2, 2, 2, 2)).toThrow('rle counts sum to 2, expected width*height = 4');
  });

  it('refuses a mask that would be written as more than MAX_IMPORT_MASK_RUNS runs (a few rows of stripes become millions of runs)', () => {
    // 3000 x 3000, every other row set: 3 000 counts in, 1 500 runs in each of 3 000 columns out.
    const counts = [0];
    for (let row = 0; row < 3000; row++) counts.push(row % 2 === 0 ? 3000 : 0, row % 2 === 0 ? 0 : 3000);
    counts.push(0);
    expect(3000 * 1500).toBeGreaterThan(MAX_IMPORT_MASK_RUNS);
    expect(() => cvatMaskToCoco(counts, 0, 0, 3000, 3000, 3000, 3000)).toThrow(`the mask has more than 1,000,000 runs once written column by column`);
    expect(() => cvatMaskToCoco(new Array<number>(MAX_IMPORT_MASK_RUNS + 1).fill(0), 0, 0, 0, 0, 10, 10)).toThrow('the mask has 1,000,001 runs; at most 1,000,000 are read');
  });
});
