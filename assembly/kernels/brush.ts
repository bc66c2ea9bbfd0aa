// Mask edits for the editor's brush, eraser and mask commands, on COCO RLE counts, never on a
// full-image bitmap:
// - maskPaint: a stroke (a polyline swept by a disc) painted into, or erased from, a mask. Only
//   the columns the stroke reaches are rebuilt, one column at a time in an h-byte buffer (the
//   mask is column-major, so a column is what a row is elsewhere); the other runs are copied.
// - maskFillHoles, maskRemoveIslands: decode the foreground's bounding box only, flood it, and
//   write the box back into the image's runs.
// Pixel (x, y) is under the stroke when its centre (x + 0.5, y + 0.5) is within `radius` of the
// polyline (inclusive). Foreground is 8-connected and background 4-connected, as in contours.ts:
// a hole is background not 4-connected to the image's outside.
import { ERR_SUM, allocI32, nextDiff } from './mem';
import { rleBBox, rleDecodeCrop } from './rle';
import { runEmit, runsBegin, runsEnd } from './runs';

/** Foreground runs [s, e) of the counts as i32 pairs (count in `outCount`), or ERR_SUM. */
function readRuns(counts: usize, m: i32, n: u64, out: usize): i32 {
  let pos: u64 = 0;
  let k = 0;
  for (let i = 0; i < m; i++) {
    const c = <u64>load<u32>(counts + (<usize>i << 2));
    if (pos + c > n) return ERR_SUM;
    if (i & 1 && c > 0) {
      store<i32>(out + (<usize>k << 3), <i32>pos);
      store<i32>(out + (<usize>k << 3), <i32>(pos + c), 4);
      k++;
    }
    pos += c;
  }
  return pos == n ? k : ERR_SUM;
}

// The stroke's y interval in one column, [gLo, gHi] (empty when gLo > gHi), widened by each piece.
let gLo: f64 = 0;
let gHi: f64 = 0;

function widen(lo: f64, hi: f64): void {
  if (lo > hi) return;
  if (lo < gLo) gLo = lo;
  if (hi > gHi) gHi = hi;
}

/** The disc of radius r at (cx, cy) on the vertical line x = X. */
function discAt(cx: f64, cy: f64, r: f64, X: f64): void {
  const d = X - cx;
  if (d * d > r * r) return;
  const dy = Math.sqrt(r * r - d * d);
  widen(cy - dy, cy + dy);
}

/**
 * The capsule around segment a-b (the disc swept along it) on the line x = X: convex, so its
 * trace is one interval, the span of its three pieces (two end discs, the band between them).
 */
function capsuleAt(ax: f64, ay: f64, bx: f64, by: f64, r: f64, X: f64): void {
  discAt(ax, ay, r, X);
  if (ax == bx && ay == by) return;
  discAt(bx, by, r, X);
  const dx = bx - ax, dy = by - ay;
  const len2 = dx * dx + dy * dy;
  const rl = r * Math.sqrt(len2);
  const u = X - ax;
  // Band: |u * dy - v * dx| <= r * len and 0 <= u * dx + v * dy <= len2, with v = Y - ay.
  let lo: f64 = -Infinity, hi: f64 = Infinity;
  if (dx == 0) {
    if (Math.abs(u * dy) > rl) return;
  } else {
    const v1 = (u * dy - rl) / dx, v2 = (u * dy + rl) / dx;
    lo = min(v1, v2);
    hi = max(v1, v2);
  }
  if (dy == 0) {
    const t = u * dx;
    if (t < 0 || t > len2) return;
  } else {
    const w1 = -u * dx / dy, w2 = (len2 - u * dx) / dy;
    lo = max(lo, min(w1, w2));
    hi = min(hi, max(w1, w2));
  }
  widen(ay + lo, ay + hi);
}

/**
 * Paints (erase = 0) or erases (erase = 1) the stroke through nPts points (x, y as f64 pairs at
 * `pts`) with radius `radius` into an h x w mask. Counts go to the result vector; returns their
 * number, or ERR_SUM when the counts do not sum to h * w.
 */
export function maskPaint(counts: usize, m: i32, h: i32, w: i32, pts: usize, nPts: i32, radius: f64, erase: i32): i32 {
  const n = <u64>h * <u64>w;
  const runs = heap.alloc(<usize>max(m >> 1, 1) << 3);
  const nRuns = readRuns(counts, m, n, runs);
  if (nRuns < 0) {
    heap.free(runs);
    return nRuns;
  }
  let minX = Infinity, maxX = -Infinity;
  for (let i = 0; i < nPts; i++) {
    const x = load<f64>(pts + (<usize>i << 4));
    minX = min(minX, x);
    maxX = max(maxX, x);
  }
  // Columns whose centre line the stroke can reach.
  let cx0 = 0, cx1 = -1;
  if (nPts > 0 && h > 0 && radius >= 0) {
    // (clamped as f64 first: a point far outside must not overflow the i32 conversion)
    cx0 = <i32>min(<f64>w, max(<f64>0, Math.ceil(minX - radius - 0.5)));
    cx1 = <i32>max(<f64>-1, min(<f64>(w - 1), Math.floor(maxX + radius - 0.5)));
  }
  if (cx1 < cx0) cx0 = cx1 = w; // nothing to rebuild: copy every run
  const hh = <u64>h;
  const bandS = <u64>cx0 * hh, bandE = cx1 < w ? (<u64>cx1 + 1) * hh : bandS;
  runsBegin();
  let ri = 0;
  for (; ri < nRuns; ri++) {
    const s = <u64>load<i32>(runs + (<usize>ri << 3)), e = <u64>load<i32>(runs + (<usize>ri << 3), 4);
    if (s >= bandS) break;
    runEmit(s, min(e, bandS));
    if (e > bandS) break;
  }
  if (bandE > bandS) {
    const col = heap.alloc(<usize>h);
    for (let x = cx0; x <= cx1; x++) {
      const base = <u64>x * hh, end = base + hh;
      memory.fill(col, 0, <usize>h);
      // The column's old foreground; a run reaching into the next column stays current.
      while (ri < nRuns) {
        const s = <u64>load<i32>(runs + (<usize>ri << 3)), e = <u64>load<i32>(runs + (<usize>ri << 3), 4);
        if (s >= end) break;
        const a = max(s, base), b = min(e, end);
        if (b > a) memory.fill(col + <usize>(a - base), 1, <usize>(b - a));
        if (e > end) break;
        ri++;
      }
      const X = <f64>x + 0.5;
      // One interval per segment, filled as it comes (they may not overlap each other).
      for (let i = 0; i < max(nPts - 1, 1); i++) {
        const a = pts + (<usize>i << 4);
        const b = nPts > 1 ? a + 16 : a;
        const ax = load<f64>(a), bx = load<f64>(b);
        if (X < min(ax, bx) - radius || X > max(ax, bx) + radius) continue;
        gLo = Infinity;
        gHi = -Infinity;
        capsuleAt(ax, load<f64>(a, 8), bx, load<f64>(b, 8), radius, X);
        if (gLo > gHi) continue;
        // Pixels whose centre y + 0.5 lies in [gLo, gHi].
        const y0 = <i32>min(<f64>h, max(<f64>0, Math.ceil(gLo - 0.5)));
        const y1 = <i32>max(<f64>0, min(<f64>h, Math.floor(gHi - 0.5) + 1));
        if (y1 > y0) memory.fill(col + <usize>y0, erase ? 0 : 1, <usize>(y1 - y0));
      }
      emitColumn(col, <usize>h, base);
    }
    heap.free(col);
  }
  for (; ri < nRuns; ri++) {
    const s = <u64>load<i32>(runs + (<usize>ri << 3)), e = <u64>load<i32>(runs + (<usize>ri << 3), 4);
    if (e <= bandE) continue;
    runEmit(max(s, bandE), e);
  }
  heap.free(runs);
  return runsEnd(n);
}

/** Emits the foreground runs of `len` bytes at `col` (0 / nonzero), the first at linear index `base`. */
function emitColumn(col: usize, len: usize, base: u64): void {
  let j: usize = 0;
  while (j < len) {
    const s = nextDiff(col, j, len, 0);
    if (s >= len) break;
    j = nextDiff(col, s, len, 1);
    runEmit(base + <u64>s, base + <u64>j);
  }
}

/** Writes a 0/nonzero crop at (x0, y0), cw x ch, back as the runs of an h x w mask. */
function cropToRuns(crop: usize, x0: i32, y0: i32, cw: i32, ch: i32, h: i32, w: i32): i32 {
  runsBegin();
  for (let c = 0; c < cw; c++) {
    const colPtr = crop + <usize>c * <usize>ch;
    emitColumn(colPtr, <usize>ch, <u64>(x0 + c) * <u64>h + <u64>y0);
  }
  return runsEnd(<u64>h * <u64>w);
}

/**
 * Flood from pixel `seed` over the pixels equal to `from` (4- or 8-connected), setting them to
 * `to`. The pixels reached are left at queue[0..count); returns count.
 */
function flood(buf: usize, cw: i32, ch: i32, seed: i32, from: u8, to: u8, eight: bool, queue: usize): i32 {
  store<u8>(buf + <usize>seed, to);
  store<i32>(queue, seed);
  let head = 0, tail = 1;
  while (head < tail) {
    const p = load<i32>(queue + (<usize>head << 2));
    head++;
    const x = p / ch, y = p - x * ch;
    for (let dx = -1; dx <= 1; dx++) {
      for (let dy = -1; dy <= 1; dy++) {
        if ((dx == 0 && dy == 0) || (!eight && dx != 0 && dy != 0)) continue;
        const nx = x + dx, ny = y + dy;
        if (nx < 0 || ny < 0 || nx >= cw || ny >= ch) continue;
        const q = nx * ch + ny;
        if (load<u8>(buf + <usize>q) != from) continue;
        store<u8>(buf + <usize>q, to);
        store<i32>(queue + (<usize>tail << 2), q);
        tail++;
      }
    }
  }
  return tail;
}

// The foreground's bounding box of the last decodeBox call, and its crop (0/1).
let bx0 = 0, by0 = 0, bw = 0, bh = 0;

function decodeBox(counts: usize, m: i32, h: i32, w: i32): usize {
  const box = heap.alloc(16);
  rleBBox(counts, m, h, box);
  bx0 = load<i32>(box);
  by0 = load<i32>(box, 4);
  bw = load<i32>(box, 8);
  bh = load<i32>(box, 12);
  heap.free(box);
  if (<i64>bx0 + <i64>bw > <i64>w || <i64>by0 + <i64>bh > <i64>h) return 0;
  const crop = heap.alloc(<usize>max(bw * bh, 1));
  if (rleDecodeCrop(counts, m, h, w, bx0, by0, bw, bh, crop) != 0) {
    heap.free(crop);
    return 0;
  }
  return crop;
}

/** Fills the holes of an h x w mask (background cut off from the image's outside). Counts to the result vector; returns their number or ERR_SUM. */
export function maskFillHoles(counts: usize, m: i32, h: i32, w: i32): i32 {
  const crop = decodeBox(counts, m, h, w);
  if (crop == 0) return ERR_SUM;
  const n = bw * bh;
  const queue = allocI32(n, 0);
  // Background on the box's border touches the outside; mark what it reaches 2.
  for (let x = 0; x < bw; x++) {
    for (let y = 0; y < bh; y += x == 0 || x == bw - 1 ? 1 : max(bh - 1, 1)) {
      const p = x * bh + y;
      if (load<u8>(crop + <usize>p) == 0) flood(crop, bw, bh, p, 0, 2, false, queue);
    }
  }
  // Left 0: holes, now foreground; 2: outside, background again.
  for (let p = 0; p < n; p++) {
    const v = load<u8>(crop + <usize>p);
    store<u8>(crop + <usize>p, v == 2 ? 0 : 1);
  }
  const count = cropToRuns(crop, bx0, by0, bw, bh, h, w);
  heap.free(queue);
  heap.free(crop);
  return count;
}

/** Removes the foreground parts (8-connected) of fewer than minArea pixels. Counts to the result vector; returns their number or ERR_SUM. */
export function maskRemoveIslands(counts: usize, m: i32, h: i32, w: i32, minArea: i32): i32 {
  const crop = decodeBox(counts, m, h, w);
  if (crop == 0) return ERR_SUM;
  const n = bw * bh;
  const queue = allocI32(n, 0);
  for (let p = 0; p < n; p++) {
    if (load<u8>(crop + <usize>p) != 1) continue;
    const size = flood(crop, bw, bh, p, 1, 2, true, queue);
    if (size < minArea) {
      for (let i = 0; i < size; i++) store<u8>(crop + <usize>load<i32>(queue + (<usize>i << 2)), 0);
    }
  }
  const count = cropToRuns(crop, bx0, by0, bw, bh, h, w);
  heap.free(queue);
  heap.free(crop);
  return count;
}
