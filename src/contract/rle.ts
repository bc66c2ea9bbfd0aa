// COCO run-length encoding: the one home of the codec, used by the engine, the server (export,
// image-edit labels, segmentation results), annotation validation and as the reference the
// AssemblyScript kernels are tested against. Layout as pycocotools: column-major (pixel (x, y) is
// index x*height + y), counts alternate background/foreground runs and always start with
// background (possibly a 0-length run). Area and bbox work on runs, never on a full bitmap,
// because a mask over a 20k x 20k image would be 400 MB.

/** COCO RLE: counts numeric or pycocotools' compressed string. */
export interface Rle {
  /** [height, width] */
  readonly size: readonly [number, number];
  readonly counts: readonly number[] | string;
}

/** A box in whole pixels. */
export interface PixelBox {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

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
export function foregroundRuns(counts: readonly number[]): number[] {
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
export function rleBBox(rle: Rle): PixelBox {
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
 * Builds counts run by run, for encoders that walk a mask their own way (a scaled grid, a crop):
 * runs of the same value merge, the first run is background, and the foreground area is kept.
 */
export class RunBuilder {
  private readonly counts: number[] = [];
  private value = 0;
  private length = 0;
  area = 0;

  append(value: number, n: number): void {
    if (n <= 0) return;
    const v = value ? 1 : 0;
    if (v) this.area += n;
    if (v === this.value) this.length += n;
    else {
      this.counts.push(this.length);
      this.value = v;
      this.length = n;
    }
  }

  finish(): number[] {
    this.counts.push(this.length);
    return this.counts;
  }
}
