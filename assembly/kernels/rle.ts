// COCO RLE codec, byte-compatible with pycocotools' maskApi.c (rleEncode, rleDecode,
// rleToString, rleFrString, rleArea, rleToBbox). Masks are column-major (pixel (x, y) at
// x * height + y) and counts alternate background/foreground, starting with background.
import { ERR_CHAR, ERR_RANGE, ERR_SUM, ERR_TRUNCATED, newResult, nextDiff, vecPush } from './mem';

// Lane i holds i, so the lanes of i8x16.gt_u(splat(c), IOTA) below c are set.
const IOTA: v128 = i8x16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);

// Runs from this length on are written with memory.fill; shorter ones with 16-byte stores
// (memory.fill has a fixed call cost in engines that a few stores undercut).
const FILL_CALL_MIN: usize = 1024;

// Below this average run length (n / m) the decode zeroes the buffer a block ahead and writes
// only the foreground runs (decodeSparse): fragmented masks ~0.65x, noise ~0.5x the time of
// run by run; masks of long runs (blobs) stay run by run, which writes each byte once.
const SPARSE_AVG_RUN: u64 = 128;

// decodeSparse zeroes this many bytes ahead at a time: the foreground written next lands in
// lines still in the first-level cache, and there are few memory.fill calls.
const SPARSE_BLOCK: u64 = 16384;

/** Writes exactly c >= 16 bytes of v at dst with 16-byte stores (the last one overlaps). */
function fillVec(dst: usize, v: v128, c: usize): void {
  const last = dst + c - 16;
  let p = dst;
  while (p + 48 < last) {
    v128.store(p, v);
    v128.store(p, v, 16);
    v128.store(p, v, 32);
    v128.store(p, v, 48);
    p += 64;
  }
  while (p < last) {
    v128.store(p, v);
    p += 16;
  }
  v128.store(last, v);
}

/**
 * Writes n = height * width bytes at `out`: 0 for background, `fg` for foreground.
 * Returns 0, or ERR_SUM when the counts do not sum to n (nothing past out + n is written).
 * Masks of long runs are written once, run by run; masks of short runs (fragments, noise) are
 * zeroed block by block and only their foreground runs are written (decodeSparse).
 */
export function rleDecode(counts: usize, m: i32, n: usize, out: usize, fg: u8): i32 {
  if (m > 0 && <u64>n < SPARSE_AVG_RUN * <u64>m) return decodeSparse(counts, m, n, out, fg);
  const vfg = i8x16.splat(<i8>fg);
  const vbg = i8x16.splat(0);
  let pos: u64 = 0;
  for (let i = 0; i < m; i++) {
    const c64 = <u64>load<u32>(counts + (<usize>i << 2));
    if (pos + c64 > <u64>n) return ERR_SUM;
    const c = <usize>c64;
    const dst = out + <usize>pos;
    const v = i & 1 ? vfg : vbg;
    if (c < 16) {
      // Runs are written in order and cover [0, n) exactly once, so a short run may be one
      // 16-byte store that spills into the next runs: they overwrite the spill.
      if (pos + 16 <= <u64>n) v128.store(dst, v);
      else for (let k: usize = 0; k < c; k++) store<u8>(dst + k, i & 1 ? fg : 0);
    } else if (c < FILL_CALL_MIN) fillVec(dst, v, c);
    else memory.fill(dst, i & 1 ? fg : 0, c);
    pos += c64;
  }
  return pos == <u64>n ? 0 : ERR_SUM;
}

/**
 * rleDecode for masks of short runs: zeroes the buffer one block ahead of the runs and writes
 * only the foreground runs. A foreground run of at most 16 bytes is one masked 16-byte store
 * whose zero tail falls on background or on later foreground runs, which are written after it.
 */
function decodeSparse(counts: usize, m: i32, n: usize, out: usize, fg: u8): i32 {
  const vfg = i8x16.splat(<i8>fg);
  let zeroed: u64 = 0; // [0, zeroed) is zero or decoded already
  let pos: u64 = 0;
  for (let i = 0; i < m; i += 2) {
    pos += <u64>load<u32>(counts + (<usize>i << 2));
    if (i + 1 >= m) break;
    const c64 = <u64>load<u32>(counts + (<usize>i << 2), 4);
    if (pos + c64 > <u64>n) return ERR_SUM;
    const need = pos + (c64 > 16 ? c64 : 16);
    if (need > zeroed) {
      const to = min<u64>(<u64>n, max<u64>(need, zeroed + SPARSE_BLOCK));
      memory.fill(out + <usize>zeroed, 0, <usize>(to - zeroed));
      zeroed = to;
    }
    const c = <usize>c64;
    const dst = out + <usize>pos;
    if (c <= 16 && pos + 16 <= <u64>n) v128.store(dst, v128.and(vfg, i8x16.gt_u(i8x16.splat(<i8>c), IOTA)));
    else if (c < 16) for (let k: usize = 0; k < c; k++) store<u8>(dst + k, fg);
    else if (c < FILL_CALL_MIN) fillVec(dst, vfg, c);
    else memory.fill(dst, fg, c);
    pos += c64;
  }
  if (pos != <u64>n) return ERR_SUM;
  if (zeroed < <u64>n) memory.fill(out + <usize>zeroed, 0, <usize>(<u64>n - zeroed));
  return 0;
}

/**
 * Decodes only the window x in [x0, x0 + cw), y in [y0, y0 + ch) into `out` (column-major,
 * cw * ch bytes, 0/1), so a small mask on a huge image never needs a full-size bitmap.
 * Returns 0 or ERR_SUM (the counts are validated against h * w like rleDecode).
 */
export function rleDecodeCrop(counts: usize, m: i32, h: i32, w: i32, x0: i32, y0: i32, cw: i32, ch: i32, out: usize): i32 {
  const hh = <u64>h;
  const n = hh * <u64>w;
  memory.fill(out, 0, <usize>cw * <usize>ch);
  let pos: u64 = 0;
  for (let i = 0; i < m; i++) {
    const c = <u64>load<u32>(counts + (<usize>i << 2));
    if (pos + c > n) return ERR_SUM;
    if (i & 1 && c > 0) {
      // Split the run at column boundaries and clip each piece to the window.
      const e = pos + c;
      let col = <i64>(pos / hh);
      const lastCol = <i64>((e - 1) / hh);
      if (col < <i64>x0) col = <i64>x0;
      const colEnd = min<i64>(lastCol, <i64>x0 + <i64>cw - 1);
      for (; col <= colEnd; col++) {
        const base = <u64>col * hh;
        let ya = <i64>(pos > base ? pos - base : 0);
        let yb = <i64>(e - base < hh ? e - base : hh);
        if (ya < <i64>y0) ya = <i64>y0;
        if (yb > <i64>y0 + <i64>ch) yb = <i64>y0 + <i64>ch;
        if (ya < yb) {
          memory.fill(out + <usize>((col - <i64>x0) * <i64>ch + (ya - <i64>y0)), 1, <usize>(yb - ya));
        }
      }
    }
    pos += c;
  }
  return pos == n ? 0 : ERR_SUM;
}

/** pycocotools rleEncode of a column-major mask (nonzero = foreground). Counts go to the result vector; returns their number. */
export function rleEncode(mask: usize, n: usize): i32 {
  const res = newResult(1024);
  let cur = 0;
  let runStart: usize = 0;
  let j: usize = 0;
  while (true) {
    j = nextDiff(mask, j, n, cur);
    if (j >= n) break;
    vecPush(res, <i32>(j - runStart));
    runStart = j;
    cur ^= 1;
  }
  vecPush(res, <i32>(n - runStart));
  return load<i32>(res, 4);
}

/**
 * pycocotools rleToString: each count (after the first three, as a delta from the count two
 * places back) is written 5 bits at a time, low bits first, as chars 48 + c where bit 0x20
 * means "more chars follow" and bit 0x10 of the last char is the sign. `out` needs 7 bytes per
 * count (a u32 delta takes at most 35 bits with its sign). Returns the string length.
 */
export function rleToString(counts: usize, m: i32, out: usize): i32 {
  let p = 0;
  for (let i = 0; i < m; i++) {
    let x = <i64>load<u32>(counts + (<usize>i << 2));
    if (i > 2) x -= <i64>load<u32>(counts + (<usize>(i - 2) << 2));
    let more = true;
    while (more) {
      let c = <i32>(x & 0x1f);
      x >>= 5; // arithmetic shift, as C's `long x >>= 5`
      more = c & 0x10 ? x != -1 : x != 0;
      if (more) c |= 0x20;
      store<u8>(out + <usize>p, <u8>(c + 48));
      p++;
    }
  }
  return p;
}

/**
 * pycocotools rleFrString: parses `len` ASCII bytes into u32 counts at `out` (room for `len`
 * counts is enough: every count takes at least one char). Returns the number of counts or a
 * negative error. Unlike the C code it rejects bad characters, truncation and negative counts.
 */
export function rleFromString(str: usize, len: i32, out: usize): i32 {
  let p = 0;
  let m = 0;
  while (p < len) {
    let x: i64 = 0;
    let k = 0;
    let more = true;
    while (more) {
      if (p >= len) return ERR_TRUNCATED;
      const c = <i32>load<u8>(str + <usize>p) - 48;
      if (c < 0 || c > 63) return ERR_CHAR;
      if (k >= 12) return ERR_RANGE; // 60 bits already: no valid count delta is that long
      x |= <i64>(c & 0x1f) << (5 * k);
      more = (c & 0x20) != 0;
      p++;
      k++;
      if (!more && (c & 0x10) != 0) x |= <i64>-1 << (5 * k); // sign-extend
    }
    if (m > 2) x += <i64>load<u32>(out + (<usize>(m - 2) << 2));
    if (x < 0 || x > 0xffffffff) return ERR_RANGE;
    store<u32>(out + (<usize>m << 2), <u32>x);
    m++;
  }
  return m;
}

/** Foreground pixel count: the sum of the odd-indexed counts (pycocotools rleArea). */
export function rleArea(counts: usize, m: i32): f64 {
  let a: u64 = 0;
  for (let i = 1; i < m; i += 2) a += <u64>load<u32>(counts + (<usize>i << 2));
  return <f64>a;
}

/**
 * Pixel bounding box of the foreground straight from the runs (pycocotools rleToBbox, skipping
 * empty runs): writes x, y, width, height as i32 at `out`; all zero when there is no foreground.
 */
export function rleBBox(counts: usize, m: i32, h: i32, out: usize): void {
  let pos: u64 = 0;
  let xmin: i64 = i64.MAX_VALUE, xmax: i64 = -1, ymin: i64 = i64.MAX_VALUE, ymax: i64 = -1;
  const hh = <u64>h;
  for (let i = 0; i < m; i++) {
    const c = <u64>load<u32>(counts + (<usize>i << 2));
    if (i & 1 && c > 0 && hh > 0) {
      const s = pos, e = pos + c - 1;
      const c0 = s / hh, c1 = e / hh;
      if (<i64>c0 < xmin) xmin = <i64>c0;
      if (<i64>c1 > xmax) xmax = <i64>c1;
      if (c1 > c0) {
        // The run wraps into the next column, so it covers the full height somewhere.
        ymin = 0;
        ymax = <i64>hh - 1;
      } else {
        const y0 = <i64>(s - c0 * hh), y1 = <i64>(e - c1 * hh);
        if (y0 < ymin) ymin = y0;
        if (y1 > ymax) ymax = y1;
      }
    }
    pos += c;
  }
  if (xmax < 0) {
    store<i32>(out, 0);
    store<i32>(out, 0, 4);
    store<i32>(out, 0, 8);
    store<i32>(out, 0, 12);
    return;
  }
  store<i32>(out, <i32>xmin);
  store<i32>(out, <i32>ymin, 4);
  store<i32>(out, <i32>(xmax - xmin + 1), 8);
  store<i32>(out, <i32>(ymax - ymin + 1), 12);
}

/** Sets every nonzero byte to 1 (SIMD), so kernels can use the other bits as flags. */
export function normalizeMask(mask: usize, n: usize): void {
  const zero = i8x16.splat(0);
  const one = i8x16.splat(1);
  let j: usize = 0;
  while (j + 16 <= n) {
    v128.store(mask + j, v128.and(i8x16.ne(v128.load(mask + j), zero), one));
    j += 16;
  }
  while (j < n) {
    store<u8>(mask + j, load<u8>(mask + j) != 0 ? 1 : 0);
    j++;
  }
}
