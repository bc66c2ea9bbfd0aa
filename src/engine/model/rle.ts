// COCO run-length encoding, plain TypeScript reference (a wasm kernel will be tested against it).
// Layout as pycocotools: column-major (pixel (x, y) is index x*height + y), counts alternate
// background/foreground runs and always start with background (possibly a 0-length run).
// Run-level helpers (hit-test, bbox, translate) never decode to a full bitmap, because a mask
// over a 20k x 20k image would be 400 MB.
import type { Rect, Rle } from './types';

/** pycocotools rleToString: LEB128-like, 5 data bits + continuation bit per char, chars 48..111, deltas from counts[i-2] for i > 2. */
export function countsToString(counts: readonly number[]): string {
  let s = '';
  for (let i = 0; i < counts.length; i++) {
    let x = counts[i]!;
    if (i > 2) x -= counts[i - 2]!;
    let more = true;
    while (more) {
      // Arithmetic on numbers rather than 32-bit ops so large deltas stay exact.
      let c = ((x % 32) + 32) % 32;
      x = Math.floor(x / 32);
      more = c & 0x10 ? x !== -1 : x !== 0;
      if (more) c |= 0x20;
      s += String.fromCharCode(c + 48);
    }
  }
  return s;
}

/** pycocotools rleFrString. Throws on characters outside 48..111 or a truncated value. */
export function stringToCounts(s: string): number[] {
  const counts: number[] = [];
  let p = 0;
  while (p < s.length) {
    let x = 0;
    let k = 0;
    let more = true;
    while (more) {
      if (p >= s.length) throw new Error('Truncated RLE string');
      const c = s.charCodeAt(p) - 48;
      if (c < 0 || c > 63) throw new Error(`Invalid RLE character ${JSON.stringify(s[p])}`);
      x += (c & 0x1f) * 2 ** (5 * k);
      more = (c & 0x20) !== 0;
      p++;
      k++;
      if (!more && c & 0x10) x -= 2 ** (5 * k); // sign-extend
    }
    if (counts.length > 2) x += counts[counts.length - 2]!;
    counts.push(x);
  }
  return counts;
}

export function numericCounts(rle: Rle): readonly number[] {
  return typeof rle.counts === 'string' ? stringToCounts(rle.counts) : rle.counts;
}

/** Encodes a column-major 0/1 mask. */
export function encodeMask(mask: ArrayLike<number>, height: number, width: number): number[] {
  const n = height * width;
  if (mask.length !== n) throw new Error(`Mask has ${mask.length} pixels, expected ${n}`);
  const counts: number[] = [];
  let current = 0;
  let run = 0;
  for (let i = 0; i < n; i++) {
    const v = mask[i] ? 1 : 0;
    if (v !== current) {
      counts.push(run);
      run = 0;
      current = v;
    }
    run++;
  }
  counts.push(run);
  return counts;
}

/** Decodes to a column-major Uint8Array of 0/1. Only for masks that fit in memory. */
export function decodeRle(rle: Rle): Uint8Array {
  const [h, w] = rle.size;
  const out = new Uint8Array(h * w);
  const counts = numericCounts(rle);
  let pos = 0;
  for (let i = 0; i < counts.length; i++) {
    const c = counts[i]!;
    if (i % 2 === 1) out.fill(1, pos, Math.min(pos + c, out.length));
    pos += c;
  }
  if (pos !== h * w) throw new Error(`RLE counts sum to ${pos}, expected ${h * w}`);
  return out;
}

export function rleArea(rle: Rle): number {
  const counts = numericCounts(rle);
  let a = 0;
  for (let i = 1; i < counts.length; i += 2) a += counts[i]!;
  return a;
}

/** Foreground runs as [start, end) pixel indices. */
function foregroundRuns(counts: readonly number[]): number[] {
  const runs: number[] = [];
  let pos = 0;
  for (let i = 0; i < counts.length; i++) {
    const c = counts[i]!;
    if (i % 2 === 1 && c > 0) runs.push(pos, pos + c);
    pos += c;
  }
  return runs;
}

/** Pixel bounding box of the foreground (pycocotools toBbox); zeros when empty. */
export function rleBBox(rle: Rle): Rect {
  const h = rle.size[0];
  const runs = foregroundRuns(numericCounts(rle));
  if (runs.length === 0 || h === 0) return { x: 0, y: 0, width: 0, height: 0 };
  let xmin = Infinity, xmax = -Infinity, ymin = Infinity, ymax = -Infinity;
  for (let i = 0; i < runs.length; i += 2) {
    const s = runs[i]!, e = runs[i + 1]! - 1;
    const c0 = Math.floor(s / h), c1 = Math.floor(e / h);
    const y0 = s - c0 * h, y1 = e - c1 * h;
    xmin = Math.min(xmin, c0);
    xmax = Math.max(xmax, c1);
    if (c1 > c0) {
      ymin = 0;
      ymax = h - 1;
    } else {
      ymin = Math.min(ymin, y0);
      ymax = Math.max(ymax, y1);
    }
  }
  return { x: xmin, y: ymin, width: xmax - xmin + 1, height: ymax - ymin + 1 };
}

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
