// Coarse to fine: after the superpixel cut, the pixels of the superpixels on either side of its
// boundary are cut again as a 4-connected pixel graph (GrabCut's energy, restricted to that band):
// per-pixel colour log-likelihood ratios, contrast-sensitive smoothness from the RGB
// differences, and the pixels just outside the band tied to their superpixel's label. Superpixel
// borders miss thin parts and soft edges; the pixel cut follows the actual edge.
import type { SegmentOps, Structure } from './algorithm';

let scratchNode = new Int32Array(0);

export interface PixelCutParams {
  /** smoothness per pixel edge at zero contrast (nats) */
  lambda: number;
  /** pull of a pixel towards its superpixel's label (nats) */
  bias: number;
  /** only pixels within this many pixels (Chebyshev) of the superpixel mask's edge are cut again */
  reach: number;
}

/**
 * Writes the mask: superpixel labels outside the band, the pixel cut inside it. `llr` is per
 * colour bin log P_fg - log P_bg; `hard` marks pixels fixed by clicks (1 fg, 2 bg), may be null.
 */
export function pixelCut(ops: SegmentOps, st: Structure, spFg: Uint8Array, band: Uint8Array, llr: Float64Array, p: PixelCutParams, out: Uint8Array, hard: Map<number, number>): void {
  const { w, h, labels, bins, rgb } = st;
  const N = w * h;
  if (scratchNode.length < N) scratchNode = new Int32Array(N);
  const node = scratchNode;
  for (let q = 0; q < N; q++) out[q] = spFg[labels[q]!]!;
  const near = nearEdge(out, w, h, p.reach);
  let count = 0;
  for (let q = 0; q < N; q++) node[q] = band[labels[q]!] && near[q] ? count++ : -1;
  if (count === 0) return;
  const src = new Float64Array(count), snk = new Float64Array(count);
  // At most two edges per node (right and down).
  const ea = new Int32Array(2 * count), eb = new Int32Array(2 * count), cap = new Float64Array(2 * count);
  let m = 0;
  const beta = st.beta;
  const weight = (a: number, b: number) => {
    const dr = rgb[a * 3]! - rgb[b * 3]!, dg = rgb[a * 3 + 1]! - rgb[b * 3 + 1]!, db = rgb[a * 3 + 2]! - rgb[b * 3 + 2]!;
    return p.lambda * Math.exp(-beta * (dr * dr + dg * dg + db * db));
  };
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const q = y * w + x, i = node[q]!;
      if (i < 0) continue;
      const u = llr[bins[q]!]! + (spFg[labels[q]!] ? p.bias : -p.bias);
      if (u > 0) src[i] += u;
      else snk[i] -= u;
      // Band neighbours get an edge (right and down only, once); fixed ones pull this pixel towards their label.
      for (let d = 0; d < 4; d++) {
        const r = d === 0 ? (x + 1 < w ? q + 1 : -1) : d === 1 ? (y + 1 < h ? q + w : -1) : d === 2 ? (x > 0 ? q - 1 : -1) : y > 0 ? q - w : -1;
        if (r < 0) continue;
        const j = node[r]!;
        if (j >= 0) {
          if (d < 2) {
            ea[m] = i;
            eb[m] = j;
            cap[m++] = weight(q, r);
          }
        } else if (out[r]) src[i] += weight(q, r);
        else snk[i] += weight(q, r);
      }
    }
  }
  for (const [q, v] of hard) {
    const i = node[q]!;
    if (i < 0) continue;
    if (v === 1) src[i] = 1e12;
    else snk[i] = 1e12;
  }
  const side = new Uint8Array(count);
  const c = cap.subarray(0, m);
  ops.minCut(count, src, snk, m, ea.subarray(0, m), eb.subarray(0, m), c, c, side);
  for (let q = 0; q < N; q++) {
    const i = node[q]!;
    if (i >= 0) out[q] = side[i]!;
  }
}

/** 1 where a pixel of the other label lies within `r` (Chebyshev): separable max filter of the edge pixels. */
function nearEdge(mask: Uint8Array, w: number, h: number, r: number): Uint8Array {
  const edge = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const q = y * w + x, v = mask[q];
      if ((x + 1 < w && mask[q + 1] !== v) || (y + 1 < h && mask[q + w] !== v)) {
        edge[q] = 1;
        if (x + 1 < w && mask[q + 1] !== v) edge[q + 1] = 1;
        if (y + 1 < h && mask[q + w] !== v) edge[q + w] = 1;
      }
    }
  }
  const tmp = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    let last = -1e9;
    for (let x = 0; x < w; x++) {
      if (edge[y * w + x]) last = x;
      if (x - last <= r) tmp[y * w + x] = 1;
    }
    last = 1e9;
    for (let x = w - 1; x >= 0; x--) {
      if (edge[y * w + x]) last = x;
      if (last - x <= r) tmp[y * w + x] = 1;
    }
  }
  const out = new Uint8Array(w * h);
  for (let x = 0; x < w; x++) {
    let last = -1e9;
    for (let y = 0; y < h; y++) {
      if (tmp[y * w + x]) last = y;
      if (y - last <= r) out[y * w + x] = 1;
    }
    last = 1e9;
    for (let y = h - 1; y >= 0; y--) {
      if (tmp[y * w + x]) last = y;
      if (last - y <= r) out[y * w + x] = 1;
    }
  }
  return out;
}

let scratchStack = new Int32Array(0);

/**
 * Keeps the foreground pixels 4-connected to a positive click (or, with none, those connected
 * to the largest-area superpixel foreground: `fallback` pixels). Islands the pixel cut leaves in
 * the band go.
 */
export function keepPixelsConnected(mask: Uint8Array, w: number, h: number, seeds: number[]): void {
  const n = w * h;
  if (scratchStack.length < n) scratchStack = new Int32Array(n);
  const stack = scratchStack;
  let top = 0;
  for (const p of seeds) {
    if (mask[p] === 1) {
      mask[p] = 2;
      stack[top++] = p;
    }
  }
  if (top === 0) return;
  while (top > 0) {
    const p = stack[--top]!;
    const x = p % w;
    if (x > 0 && mask[p - 1] === 1) { mask[p - 1] = 2; stack[top++] = p - 1; }
    if (x < w - 1 && mask[p + 1] === 1) { mask[p + 1] = 2; stack[top++] = p + 1; }
    if (p >= w && mask[p - w] === 1) { mask[p - w] = 2; stack[top++] = p - w; }
    if (p + w < n && mask[p + w] === 1) { mask[p + w] = 2; stack[top++] = p + w; }
  }
  for (let p = 0; p < n; p++) mask[p] = mask[p] === 2 ? 1 : 0;
}
