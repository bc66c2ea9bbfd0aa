// The built-in interactive segmenter (no weights, no GPU). The 'embedding' of an image is its
// structure at a working resolution: CIELAB colours, per-pixel colour bins, SLIC superpixels with
// sizes, means, colour histograms and their adjacency graph. A mask is a graph cut over the
// superpixels (Lazy Snapping / GrabCut style): hard seeds at the clicks, colour models of both
// sides re-estimated over a few rounds, contrast-sensitive boundary costs, a prior against
// foreground far from the positive clicks; then the boundary is refined pixel by pixel.
//
// The heavy loops are kernels (assembly/kernels/segment.ts, with TypeScript references in
// assembly/reference/segment.ts); this file only orchestrates them through `SegmentOps`, so the
// same code runs on the wasm kernels or on the references.
import { BINS, MAX_DEGREE, type SuperpixelStats } from '../../../../../assembly/reference/segment';
import { foregroundBox } from '../maskBox';

export interface SegmentOps {
  rgbToLab(rgb: Uint8Array, n: number, channels: number, lab: Float32Array, bins: Uint16Array): void;
  slic(lab: Float32Array, w: number, h: number, step: number, compactness: number, iters: number, labels: Int32Array): number;
  superpixelStats(lab: Float32Array, bins: Uint16Array, labels: Int32Array, w: number, h: number, count: number): SuperpixelStats;
  minCut(n: number, src: Float64Array, snk: Float64Array, m: number, ea: Int32Array, eb: Int32Array, cab: Float64Array, cba: Float64Array, side: Uint8Array): number;
  refine(labels: Int32Array, bins: Uint16Array, w: number, h: number, spFg: Uint8Array, band: Uint8Array, llr: Float64Array, r: number, bias: number, out: Uint8Array): void;
  /** Optional: keep an array that will not change where the kernels can reuse it on every call. */
  pin?(a: Int32Array | Uint16Array): void;
}

export interface Structure {
  /** working resolution */
  w: number;
  h: number;
  labels: Int32Array;
  bins: Uint16Array;
  stats: SuperpixelStats;
  /** the histograms' nonzero bins, CSR: superpixel i owns entries start[i]..start[i+1] */
  sparse: { start: Int32Array; bin: Uint16Array; count: Float64Array };
  /** undirected edges (a < b) with their smoothness weight */
  edges: { m: number; a: Int32Array; b: Int32Array; weight: Float64Array };
  bytes: number;
}

export const PARAMS = {
  /** superpixel grid step in working pixels */
  step: 14,
  compactness: 12,
  slicIters: 5,
  /** smoothness weight per boundary pixel edge (in nats per pixel of unary cost) */
  lambda: 2.5,
  /** foreground cost per pixel per unit of distance from the nearest positive click (distance / image size) */
  distance: 3,
  /** foreground cost per pixel near a negative click (Gaussian falloff, sigma as a fraction of the image size) */
  negative: 4,
  negativeSigma: 0.05,
  rounds: 3,
  refineRadius: 2,
  refineBias: 0.4,
};

/** Builds the structure of a working-resolution image (interleaved, `channels` bytes per pixel). */
export function buildStructure(ops: SegmentOps, rgb: Uint8Array, w: number, h: number, channels: number): Structure {
  const n = w * h;
  const lab = new Float32Array(n * 3);
  const bins = new Uint16Array(n);
  ops.rgbToLab(rgb, n, channels, lab, bins);
  const labels = new Int32Array(n);
  const step = Math.max(4, Math.min(PARAMS.step, Math.floor(Math.sqrt(n / 16))));
  const count = ops.slic(lab, w, h, step, PARAMS.compactness, PARAMS.slicIters, labels);
  const stats = ops.superpixelStats(lab, bins, labels, w, h, count);
  const edges = smoothnessEdges(stats);
  const sparse = sparseHistograms(stats);
  ops.pin?.(labels); // refine() reads both on every click
  ops.pin?.(bins);
  // The dense histograms are only needed to build the sparse ones (4k superpixels x 512 bins = 8 MB).
  stats.hist = new Int32Array(0);
  // Label map and bins count twice: the pinned copies in wasm memory too.
  const bytes = 2 * (labels.byteLength + bins.byteLength) + stats.nbr.byteLength * 5 + stats.mean.byteLength + edges.m * 24 + sparse.count.byteLength * 2;
  return { w, h, labels, bins, stats, sparse, edges, bytes };
}

/** Nonzero histogram entries per superpixel: the per-click loops then cost O(distinct colours), not O(BINS). */
function sparseHistograms(s: SuperpixelStats): Structure['sparse'] {
  let nnz = 0;
  for (let i = 0; i < s.hist.length; i++) if (s.hist[i]) nnz++;
  const start = new Int32Array(s.count + 1), bin = new Uint16Array(nnz), count = new Float64Array(nnz);
  let k = 0;
  for (let i = 0; i < s.count; i++) {
    start[i] = k;
    for (let b = 0; b < BINS; b++) {
      const v = s.hist[i * BINS + b]!;
      if (v) {
        bin[k] = b;
        count[k++] = v;
      }
    }
  }
  start[s.count] = k;
  return { start, bin, count };
}

/** Each adjacent pair once, weighted by shared boundary length and how alike their mean colours are. */
function smoothnessEdges(s: SuperpixelStats) {
  const a: number[] = [], b: number[] = [], len: number[] = [], d2: number[] = [];
  let sum = 0;
  for (let i = 0; i < s.count; i++) {
    for (let k = 0; k < s.degree[i]!; k++) {
      const j = s.nbr[i * MAX_DEGREE + k]!;
      if (j <= i) continue;
      let d = 0;
      for (let c = 0; c < 3; c++) d += (s.mean[i * 5 + c]! - s.mean[j * 5 + c]!) ** 2;
      // Mean contrast across the shared boundary counts too (edges inside a texture are frequent
      // but do not line up with superpixel borders as consistently as object edges do).
      const g = s.edgeGrad[i * MAX_DEGREE + k]! / s.edgeLen[i * MAX_DEGREE + k]!;
      d = 0.5 * d + 0.5 * g * g;
      a.push(i);
      b.push(j);
      len.push(s.edgeLen[i * MAX_DEGREE + k]!);
      d2.push(d);
      sum += d;
    }
  }
  const m = a.length;
  const beta = m > 0 && sum > 0 ? m / (2 * sum) : 0;
  const weight = new Float64Array(m);
  for (let e = 0; e < m; e++) weight[e] = PARAMS.lambda * len[e]! * Math.exp(-beta * d2[e]!);
  return { m, a: Int32Array.from(a), b: Int32Array.from(b), weight };
}

export interface SegmentInput {
  /** working-resolution coordinates */
  positive: readonly (readonly [number, number])[];
  negative: readonly (readonly [number, number])[];
  /** superpixel foreground flags of the previous mask, to start the colour models from */
  previous?: Uint8Array;
}

export interface SegmentOutput {
  /** row-major 0/1 at working resolution */
  mask: Uint8Array;
  spFg: Uint8Array;
  score: number;
}

const HARD = 1e12;

/** Smoothed, normalised colour model from weighted superpixel histograms: -log P per bin. */
function model(sp: Structure['sparse'], n: number, weight: Float64Array): Float64Array {
  const h = new Float64Array(BINS);
  for (let i = 0; i < n; i++) {
    const wi = weight[i]!;
    if (wi <= 0) continue;
    for (let k = sp.start[i]!, end = sp.start[i + 1]!; k < end; k++) h[sp.bin[k]!] += wi * sp.count[k]!;
  }
  // [1 2 1] blur along each of L, a, b: texture colours a few clicks never sampled still count.
  let cur = h;
  for (const stride of [64, 8, 1]) {
    const nxt = new Float64Array(BINS);
    for (let b = 0; b < BINS; b++) {
      const q = Math.floor(b / stride) % 8;
      let v = 2 * cur[b]!, wsum = 2;
      if (q > 0) { v += cur[b - stride]!; wsum += 1; }
      if (q < 7) { v += cur[b + stride]!; wsum += 1; }
      nxt[b] = v / wsum;
    }
    cur = nxt;
  }
  let total = 0;
  for (let b = 0; b < BINS; b++) total += cur[b]!;
  const eps = Math.max(total, 1) * 1e-4;
  const nll = new Float64Array(BINS);
  const norm = total + eps * BINS;
  for (let b = 0; b < BINS; b++) nll[b] = -Math.log((cur[b]! + eps) / norm);
  return nll;
}

function meanNll(sp: Structure['sparse'], n: number, nll: Float64Array, out: Float64Array): void {
  for (let i = 0; i < n; i++) {
    let v = 0;
    for (let k = sp.start[i]!, end = sp.start[i + 1]!; k < end; k++) v += sp.count[k]! * nll[sp.bin[k]!]!;
    out[i] = v; // total over the superpixel's pixels
  }
}

function labelAt(st: Structure, x: number, y: number): number {
  const xi = Math.min(st.w - 1, Math.max(0, Math.floor(x))), yi = Math.min(st.h - 1, Math.max(0, Math.floor(y)));
  return st.labels[yi * st.w + xi]!;
}

export function segment(ops: SegmentOps, st: Structure, input: SegmentInput): SegmentOutput {
  const s = st.stats, n = s.count;
  const seed = new Uint8Array(n); // 1 fg, 2 bg; the later click wins
  const clicks: [number, number, number][] = [
    ...input.positive.map((p) => [p[0], p[1], 1] as [number, number, number]),
    ...input.negative.map((p) => [p[0], p[1], 2] as [number, number, number]),
  ];
  for (const [x, y, v] of clicks) seed[labelAt(st, x, y)] = v;
  const mask = new Uint8Array(st.w * st.h);
  if (input.positive.length === 0) return { mask, spFg: new Uint8Array(n), score: 0 };

  const size = Math.sqrt(st.w * st.h);
  const dPos = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const cx = s.mean[i * 5 + 3]!, cy = s.mean[i * 5 + 4]!;
    let best = Infinity;
    for (const [px, py] of input.positive) best = Math.min(best, Math.hypot(cx - px, cy - py));
    dPos[i] = best / size;
  }
  // Nearness to the negative clicks: a negative click speaks for its surroundings too.
  const nearNeg = new Float64Array(n);
  if (input.negative.length) {
    const k = 1 / (2 * PARAMS.negativeSigma * PARAMS.negativeSigma);
    for (let i = 0; i < n; i++) {
      const cx = s.mean[i * 5 + 3]!, cy = s.mean[i * 5 + 4]!;
      let best = 0;
      for (const [px, py] of input.negative) best = Math.max(best, Math.exp(-k * ((cx - px) ** 2 + (cy - py) ** 2) / (size * size)));
      nearNeg[i] = best;
    }
  }

  // Starting models: foreground from the positive superpixels and their neighbours (or the
  // previous mask), background from everything weighted by distance from the positive clicks.
  const wF = new Float64Array(n), wB = new Float64Array(n);
  if (input.previous && input.previous.length === n) {
    for (let i = 0; i < n; i++) wF[i] = input.previous[i]!;
  }
  for (let i = 0; i < n; i++) {
    if (seed[i] !== 1) continue;
    wF[i] = 1;
    for (let k = 0; k < s.degree[i]!; k++) {
      const j = s.nbr[i * MAX_DEGREE + k]!;
      if (seed[j] !== 2) wF[j] = Math.max(wF[j]!, 0.5);
    }
  }
  for (let i = 0; i < n; i++) wB[i] = seed[i] === 2 ? 4 : seed[i] === 1 ? 0 : Math.min(1, dPos[i]! / 0.25) * (1 - wF[i]!);

  const src = new Float64Array(n), snk = new Float64Array(n);
  const uF = new Float64Array(n), uB = new Float64Array(n);
  const spFg = new Uint8Array(n);
  const e = st.edges;
  let nllF: Float64Array = new Float64Array(BINS), nllB: Float64Array = new Float64Array(BINS);
  for (let round = 0; round < PARAMS.rounds; round++) {
    nllF = model(st.sparse, n, wF);
    nllB = model(st.sparse, n, wB);
    meanNll(st.sparse, n, nllF, uF);
    meanNll(st.sparse, n, nllB, uB);
    for (let i = 0; i < n; i++) {
      const costF = uF[i]! + s.size[i]! * (PARAMS.distance * dPos[i]! + PARAMS.negative * nearNeg[i]!);
      const costB = uB[i]!;
      const lo = Math.min(costF, costB);
      // source side = foreground: cutting S->i labels i background (pays costB), i->T pays costF.
      src[i] = seed[i] === 1 ? HARD : seed[i] === 2 ? 0 : costB - lo;
      snk[i] = seed[i] === 2 ? HARD : seed[i] === 1 ? 0 : costF - lo;
    }
    ops.minCut(n, src, snk, e.m, e.a, e.b, e.weight, e.weight, spFg);
    keepConnectedToClicks(s, spFg, seed);
    for (let i = 0; i < n; i++) {
      wF[i] = spFg[i]!;
      wB[i] = seed[i] === 2 ? 4 : 1 - spFg[i]!;
    }
  }

  // Pixel-accurate boundary inside the superpixels that touch the other side.
  const band = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < s.degree[i]!; k++) {
      if (spFg[s.nbr[i * MAX_DEGREE + k]!] !== spFg[i]) {
        band[i] = 1;
        break;
      }
    }
  }
  const llr = new Float64Array(BINS);
  for (let b = 0; b < BINS; b++) llr[b] = Math.max(-5, Math.min(5, nllB[b]! - nllF[b]!));
  ops.refine(st.labels, st.bins, st.w, st.h, spFg, band, llr, PARAMS.refineRadius, PARAMS.refineBias, mask);
  // The clicked pixels themselves always follow their click.
  for (const [x, y, v] of clicks) mask[Math.min(st.h - 1, Math.floor(y)) * st.w + Math.min(st.w - 1, Math.floor(x))] = v === 1 ? 1 : 0;
  fillHoles(mask, st.w, st.h, input.negative);

  // Confidence: how clearly the chosen foreground's colours prefer the foreground model.
  let agree = 0, total = 0;
  for (let i = 0; i < n; i++) {
    if (!spFg[i]) continue;
    const margin = (uB[i]! - uF[i]!) / Math.max(1, s.size[i]!);
    agree += s.size[i]! / (1 + Math.exp(-margin));
    total += s.size[i]!;
  }
  return { mask, spFg, score: total > 0 ? agree / total : 0 };
}

/**
 * Objects are solid unless told otherwise: background enclosed by the mask becomes foreground,
 * except enclosed regions holding a negative click (a real hole the user pointed at).
 *
 * Only the mask's bounding box (plus a one-pixel frame) is flooded: everything outside it is
 * background connected to the image border anyway. The flood marks reached background as 2 in
 * the mask itself, so no second buffer is cleared per click.
 */
let scratchStack = new Int32Array(0);

export function fillHoles(mask: Uint8Array, w: number, h: number, negative: readonly (readonly [number, number])[]): void {
  const box = foregroundBox(mask, w, h);
  if (!box) return;
  const { x0, x1, y0, y1 } = box;
  const wx0 = Math.max(0, x0 - 1), wx1 = Math.min(w - 1, x1 + 1), wy0 = Math.max(0, y0 - 1), wy1 = Math.min(h - 1, y1 + 1);
  const area = (wx1 - wx0 + 1) * (wy1 - wy0 + 1);
  if (scratchStack.length < area) scratchStack = new Int32Array(Math.max(area, 1 << 16));
  const stack = scratchStack;
  let top = 0;
  // Seeds: background on the window's frame (outside the mask's box, or on the image border) and under negative clicks.
  for (let x = wx0; x <= wx1; x++) {
    for (const p of [wy0 * w + x, wy1 * w + x]) {
      if (mask[p] === 0) {
        mask[p] = 2;
        stack[top++] = p;
      }
    }
  }
  for (let y = wy0; y <= wy1; y++) {
    for (const p of [y * w + wx0, y * w + wx1]) {
      if (mask[p] === 0) {
        mask[p] = 2;
        stack[top++] = p;
      }
    }
  }
  for (const [nx, ny] of negative) {
    const x = Math.min(w - 1, Math.max(0, Math.floor(nx))), y = Math.min(h - 1, Math.max(0, Math.floor(ny)));
    const p = y * w + x;
    if (x >= wx0 && x <= wx1 && y >= wy0 && y <= wy1 && mask[p] === 0) {
      mask[p] = 2;
      stack[top++] = p;
    }
  }
  while (top > 0) {
    const p = stack[--top]!;
    const y = (p / w) | 0, x = p - y * w;
    if (x > wx0 && mask[p - 1] === 0) {
      mask[p - 1] = 2;
      stack[top++] = p - 1;
    }
    if (x < wx1 && mask[p + 1] === 0) {
      mask[p + 1] = 2;
      stack[top++] = p + 1;
    }
    if (y > wy0 && mask[p - w] === 0) {
      mask[p - w] = 2;
      stack[top++] = p - w;
    }
    if (y < wy1 && mask[p + w] === 0) {
      mask[p + w] = 2;
      stack[top++] = p + w;
    }
  }
  // Unreached background is a hole: foreground. Reached background goes back to 0.
  for (let y = wy0; y <= wy1; y++) {
    for (let p = y * w + wx0, end = y * w + wx1; p <= end; p++) {
      const v = mask[p]!;
      if (v === 0) mask[p] = 1;
      else if (v === 2) mask[p] = 0;
    }
  }
}

/** Drops foreground superpixels not connected (through foreground) to a positive click. */
function keepConnectedToClicks(s: SuperpixelStats, fg: Uint8Array, seed: Uint8Array): void {
  const n = s.count;
  const keep = new Uint8Array(n);
  const queue: number[] = [];
  for (let i = 0; i < n; i++) if (seed[i] === 1 && fg[i]) { keep[i] = 1; queue.push(i); }
  while (queue.length) {
    const i = queue.pop()!;
    for (let k = 0; k < s.degree[i]!; k++) {
      const j = s.nbr[i * MAX_DEGREE + k]!;
      if (fg[j] && !keep[j]) { keep[j] = 1; queue.push(j); }
    }
  }
  fg.set(keep);
}
