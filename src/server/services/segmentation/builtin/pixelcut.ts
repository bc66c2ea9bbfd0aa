// Coarse to fine: after the superpixel cut, the pixels of the superpixels on either side of its
// boundary are cut again as a 4-connected pixel graph (GrabCut's energy, restricted to that band):
// per-pixel colour log-likelihood ratios, contrast-sensitive smoothness from the RGB
// differences, and the pixels just outside the band tied to their superpixel's label. Superpixel
// borders miss thin parts and soft edges; the pixel cut follows the actual edge.
import type { SegmentOps, Structure } from './algorithm';
import type { PixelBox } from '../maskBox';
import { floodSpans } from './flood';

let scratchNode = new Int32Array(0);
let scratchPixel = new Int32Array(0);

export interface PixelCutParams {
  /** smoothness per pixel edge at zero contrast (nats) */
  lambda: number;
  /** pull of a pixel towards its superpixel's label (nats) */
  bias: number;
  /** only pixels within this many pixels (Chebyshev) of the superpixel mask's edge are cut again */
  reach: number;
}

/**
 * Writes the mask into `out` (all zero on entry): superpixel labels outside the band, the pixel
 * cut inside it. `llr` is per colour bin log P_fg - log P_bg; `hard` marks pixels fixed by clicks (1 fg, 2 bg), may be null.
 */
export function pixelCut(ops: SegmentOps, st: Structure, spFg: Uint8Array, band: Uint8Array, llr: Float64Array, p: PixelCutParams, out: Uint8Array, hard: Map<number, number>): void {
  const { w, h, labels, bins, rgb } = st;
  const N = w * h;
  if (scratchNode.length < N) scratchNode = new Int32Array(N);
  const node = scratchNode;
  // The superpixel mask, a run at a time; only the box of the band superpixels is visited from here on.
  const { runs, spBox } = st;
  let x0 = w, y0 = h, x1 = -1, y1 = -1;
  for (let l = 0; l < spFg.length; l++) {
    if (spFg[l]) for (let k = runs.start[l]!, end = runs.start[l + 1]!; k < end; k++) out.fill(1, runs.at[k]!, runs.at[k]! + runs.len[k]!);
    if (!band[l]) continue;
    const b = l * 4;
    if (spBox[b]! < x0) x0 = spBox[b]!;
    if (spBox[b + 1]! < y0) y0 = spBox[b + 1]!;
    if (spBox[b + 2]! > x1) x1 = spBox[b + 2]!;
    if (spBox[b + 3]! > y1) y1 = spBox[b + 3]!;
  }
  if (x1 < 0) return;
  const bw = x1 - x0 + 1;
  const near = nearEdge(out, w, x0, y0, x1, y1, p.reach);
  let count = 0;
  if (scratchPixel.length < N) scratchPixel = new Int32Array(N);
  const pixel = scratchPixel; // each node's pixel, in node order (row by row)
  for (let y = y0; y <= y1; y++) {
    for (let x = x0, q = y * w + x0; x <= x1; x++, q++) {
      if (band[labels[q]!] && near[(y - y0) * bw + x - x0]) {
        pixel[count] = q;
        node[q] = count++;
      } else node[q] = -1;
    }
  }
  if (count === 0) return;
  const src = new Float64Array(count), snk = new Float64Array(count);
  // At most two edges per node (right and down).
  const ea = new Int32Array(2 * count), eb = new Int32Array(2 * count), cap = new Float64Array(2 * count);
  let m = 0;
  const contrast = contrastTable(st.beta), lambda = p.lambda;
  // Pixel i's tie to neighbour r: an edge to r's node j (made once, from the left or upper pixel),
  // or, when r is not cut again, a pull towards r's label.
  const tie = (i: number, q: number, r: number, j: number, makesEdge: boolean) => {
    if (j >= 0 && !makesEdge) return;
    const c = lambda * contrast[rgbDistance2(rgb, q, r)]!;
    if (j >= 0) {
      ea[m] = i;
      eb[m] = j;
      cap[m++] = c;
    } else if (out[r]) src[i] += c;
    else snk[i] += c;
  };
  for (let i = 0; i < count; i++) {
    const q = pixel[i]!, x = q % w, y = (q - x) / w;
    const u = llr[bins[q]!]! + (spFg[labels[q]!] ? p.bias : -p.bias);
    if (u > 0) src[i] += u;
    else snk[i] -= u;
    if (x + 1 < w) tie(i, q, q + 1, x < x1 ? node[q + 1]! : -1, true);
    if (y + 1 < h) tie(i, q, q + w, y < y1 ? node[q + w]! : -1, true);
    if (x > 0) tie(i, q, q - 1, x > x0 ? node[q - 1]! : -1, false);
    if (y > 0) tie(i, q, q - w, y > y0 ? node[q - w]! : -1, false);
  }
  for (const [q, v] of hard) {
    const qx = q % w, qy = (q - qx) / w;
    if (qx < x0 || qx > x1 || qy < y0 || qy > y1) continue;
    const i = node[q]!;
    if (i < 0) continue;
    if (v === 1) src[i] = 1e12;
    else snk[i] = 1e12;
  }
  const side = new Uint8Array(count);
  const c = cap.subarray(0, m);
  ops.minCut(count, src, snk, m, ea.subarray(0, m), eb.subarray(0, m), c, c, side);
  for (let i = 0; i < count; i++) out[pixel[i]!] = side[i]!;
}

/** Squared RGB distance between pixels a and b of an interleaved RGB image. */
function rgbDistance2(rgb: Uint8Array, a: number, b: number): number {
  const dr = rgb[a * 3]! - rgb[b * 3]!, dg = rgb[a * 3 + 1]! - rgb[b * 3 + 1]!, db = rgb[a * 3 + 2]! - rgb[b * 3 + 2]!;
  return dr * dr + dg * dg + db * db;
}

/** exp(-beta d) for every squared RGB distance d (0..3 x 255^2), for the last few betas (one per image or focus crop). */
const contrastTables = new Map<number, Float64Array>();

function contrastTable(beta: number): Float64Array {
  let t = contrastTables.get(beta);
  if (!t) {
    t = new Float64Array(3 * 255 * 255 + 1);
    for (let d = 0; d < t.length; d++) t[d] = Math.exp(-beta * d);
    if (contrastTables.size >= 4) contrastTables.delete(contrastTables.keys().next().value!);
    contrastTables.set(beta, t);
  }
  return t;
}

/** Over the box: 1 where a pixel of the other label lies within `r` (Chebyshev), by a separable max filter of the edge pixels. */
function nearEdge(mask: Uint8Array, w: number, x0: number, y0: number, x1: number, y1: number, r: number): Uint8Array {
  const bw = x1 - x0 + 1, bh = y1 - y0 + 1;
  const edge = new Uint8Array(bw * bh);
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const q = y * w + x, v = mask[q], e = (y - y0) * bw + x - x0;
      if (x < x1 && mask[q + 1] !== v) {
        edge[e] = 1;
        edge[e + 1] = 1;
      }
      if (y < y1 && mask[q + w] !== v) {
        edge[e] = 1;
        edge[e + bw] = 1;
      }
    }
  }
  const tmp = new Uint8Array(bw * bh);
  for (let y = 0; y < bh; y++) {
    let last = -1e9;
    for (let x = 0; x < bw; x++) {
      if (edge[y * bw + x]) last = x;
      if (x - last <= r) tmp[y * bw + x] = 1;
    }
    last = 1e9;
    for (let x = bw - 1; x >= 0; x--) {
      if (edge[y * bw + x]) last = x;
      if (last - x <= r) tmp[y * bw + x] = 1;
    }
  }
  // The vertical pass row by row (memory order): per column, how many of rows y - r..y + r are set.
  const out = new Uint8Array(bw * bh), inWindow = new Int32Array(bw);
  for (let y = 0; y < Math.min(r, bh); y++) for (let x = 0, row = y * bw; x < bw; x++) inWindow[x] += tmp[row + x]!;
  for (let y = 0; y < bh; y++) {
    if (y + r < bh) for (let x = 0, row = (y + r) * bw; x < bw; x++) inWindow[x] += tmp[row + x]!;
    if (y - r - 1 >= 0) for (let x = 0, row = (y - r - 1) * bw; x < bw; x++) inWindow[x] -= tmp[row + x]!;
    for (let x = 0, row = y * bw; x < bw; x++) out[row + x] = inWindow[x]! > 0 ? 1 : 0;
  }
  return out;
}

/**
 * Keeps the foreground pixels 4-connected to one of `seeds` (pixel indices), or to a foreground
 * pixel `isSeed` accepts; nothing changes when no seed is foreground. With a `frame`, all the
 * foreground must lie inside it: only the frame is read.
 */
export function keepPixelsConnected(mask: Uint8Array, w: number, h: number, seeds: number[], isSeed?: (p: number) => boolean, frame?: PixelBox): void {
  const { x0, x1, y0, y1 } = frame ?? { x0: 0, x1: w - 1, y0: 0, y1: h - 1 };
  const from: number[] = seeds.filter((p) => mask[p] === 1);
  if (isSeed) {
    // One seed per run of foreground is enough: the flood takes the whole run.
    for (let y = y0; y <= y1; y++) {
      let seeded = false;
      for (let p = y * w + x0, end = y * w + x1; p <= end; p++) {
        if (mask[p] !== 1) seeded = false;
        else if (!seeded && isSeed(p)) {
          from.push(p);
          seeded = true;
        }
      }
    }
  }
  if (from.length === 0) return;
  floodSpans(mask, w, x0, x1, y0, y1, 1, 2, from);
  for (let y = y0; y <= y1; y++) for (let p = y * w + x0, end = y * w + x1; p <= end; p++) mask[p] = mask[p] === 2 ? 1 : 0;
}
