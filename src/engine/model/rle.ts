// Run-level helpers of the editor on COCO RLE (hit-test lookup, translate); the codec itself (encode,
// decode, compressed strings, area, bbox) lives in src/contract/rle.ts and is re-exported here.
import type { Rle } from './types';
import { countsToString, foregroundRuns, numericCounts } from '../../contract/rle';

export * from '../../contract/rle';

/**
 * Lazily built lookup for hit-testing: run boundaries as prefix sums, so "is pixel set" is a
 * binary search, O(log runs) time and O(runs) memory, instead of a full decode.
 */
export class RleLookup {
  private readonly ends: Float64Array;
  readonly height: number;
  readonly width: number;

  constructor(rle: Rle) {
    const counts = numericCounts(rle);
    this.height = rle.size[0];
    this.width = rle.size[1];
    this.ends = new Float64Array(counts.length);
    let pos = 0;
    for (let i = 0; i < counts.length; i++) {
      pos += counts[i]!;
      this.ends[i] = pos;
    }
  }

  /** True when the pixel containing image point (x, y) is foreground. */
  contains(x: number, y: number): boolean {
    const px = Math.floor(x), py = Math.floor(y);
    if (px < 0 || py < 0 || px >= this.width || py >= this.height) return false;
    const idx = px * this.height + py;
    // First run whose end is > idx.
    let lo = 0, hi = this.ends.length - 1;
    if (hi < 0 || idx >= this.ends[hi]!) return false;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.ends[mid]! > idx) hi = mid;
      else lo = mid + 1;
    }
    return lo % 2 === 1;
  }
}

const lookups = new WeakMap<Rle, RleLookup>();

/** Cached per RLE object: annotations are immutable, so identity is a safe cache key. */
export function rleLookup(rle: Rle): RleLookup {
  let l = lookups.get(rle);
  if (!l) {
    l = new RleLookup(rle);
    lookups.set(rle, l);
  }
  return l;
}

/**
 * Shifts a mask by whole pixels (dx, dy are rounded), clipping at the image border. The counts
 * keep their form (numeric or compressed string). Works on runs, never on a full bitmap.
 */
export function translateRle(rle: Rle, dx: number, dy: number): Rle {
  dx = Math.round(dx);
  dy = Math.round(dy);
  if (dx === 0 && dy === 0) return rle;
  const [h, w] = rle.size;
  const runs = foregroundRuns(numericCounts(rle));
  // Shifted foreground segments, [start, end) in the output's linear index, in increasing order.
  const segs: number[] = [];
  const push = (s: number, e: number) => {
    if (segs.length > 0 && segs[segs.length - 1] === s) segs[segs.length - 1] = e;
    else segs.push(s, e);
  };
  for (let i = 0; i < runs.length; i += 2) {
    const s = runs[i]!, e = runs[i + 1]!;
    const c0 = Math.floor(s / h), c1 = Math.floor((e - 1) / h);
    const nc0 = Math.max(c0, -dx), nc1 = Math.min(c1, w - 1 - dx);
    for (let c = nc0; c <= nc1; c++) {
      const ys = c === c0 ? s - c0 * h : 0;
      const ye = c === c1 ? e - c1 * h : h;
      const a = Math.max(0, ys + dy), b = Math.min(h, ye + dy);
      if (a < b) push((c + dx) * h + a, (c + dx) * h + b);
    }
  }
  const counts: number[] = [];
  let pos = 0;
  for (let i = 0; i < segs.length; i += 2) {
    counts.push(segs[i]! - pos, segs[i + 1]! - segs[i]!);
    pos = segs[i + 1]!;
  }
  // pycocotools ends on the last non-empty run, so no trailing zero-length background.
  if (counts.length === 0 || h * w - pos > 0) counts.push(h * w - pos);
  return { size: [h, w], counts: typeof rle.counts === 'string' ? countsToString(counts) : counts };
}
