import { describe, expect, it } from 'vitest';
import { countsToString, encodeMask } from '../contract/rle';
import { largestPartTop } from './mask-label';

/** COCO counts (column-major) of a w x h mask where `on(x, y)` is set. */
function rle(w: number, h: number, on: (x: number, y: number) => boolean): number[] {
  const m = new Uint8Array(w * h);
  for (let x = 0; x < w; x++) for (let y = 0; y < h; y++) m[x * h + y] = on(x, y) ? 1 : 0;
  return encodeMask(m, h, w);
}

describe('a mask label on its largest part (issue 33 §3)', () => {
  it('sits at the top of the largest part, not at the corner of the box of every part', () => {
    // A 3 x 3 island near the top-left and a 10 x 8 body lower right: the box's corner is the island's.
    const counts = rle(40, 30, (x, y) => (x >= 1 && x < 4 && y >= 1 && y < 4) || (x >= 20 && x < 30 && y >= 12 && y < 20));
    expect(largestPartTop(counts, 30)).toEqual([20, 12]);
    expect(largestPartTop(countsToString(counts), 30)).toEqual([20, 12]);
  });

  it('joins runs that touch across columns, also when a run continues into the next column', () => {
    // An L: a tall column 0 (rows 0-9) and a bottom row to x 6 (7 + 9 px) beats a 12 px square
    // elsewhere only when its columns are joined.
    const l = (x: number, y: number) => (x === 0 && y < 10) || (y === 9 && x < 7);
    const square = (x: number, y: number) => x >= 12 && x < 15 && y >= 2 && y < 6;
    expect(largestPartTop(rle(16, 10, (x, y) => l(x, y) || square(x, y)), 10)).toEqual([0, 0]);
    // Diagonal neighbours are not joined (4-connectivity): two parts of one pixel, the leftmost wins the tie.
    expect(largestPartTop(rle(4, 4, (x, y) => (x === 1 && y === 2) || (x === 2 && y === 1)), 4)).toEqual([1, 2]);
    expect(largestPartTop(rle(4, 4, (x, y) => (x === 1 && (y === 2 || y === 3)) || (x === 2 && y === 3)), 4)).toEqual([1, 2]);
    // A run from the bottom of column 0 into the top of column 1 is two runs, not touching.
    expect(largestPartTop(rle(2, 4, (x, y) => (x === 0 && y === 3) || (x === 1 && y <= 1)), 4)).toEqual([1, 0]);
    expect(largestPartTop([12], 4)).toBeNull();
  });
});
