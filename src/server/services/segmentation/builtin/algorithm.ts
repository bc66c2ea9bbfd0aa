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
import { foregroundBox, type PixelBox } from '../maskBox';
import { floodSpans } from './flood';
import { fitGmm, type Gmm, groupNll, LAB_BINS } from './gmm';
import { keepPixelsConnected, pixelCut } from './pixelcut';
import { keepConnected, slotContrast, starParents } from './priors';

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
  /** the bins any pixel falls in (the colour models are only read there) */
  colours: Uint16Array;
  /** undirected edges (a < b) with their smoothness weight */
  edges: { m: number; a: Int32Array; b: Int32Array; weight: Float64Array };
  /** each superpixel's pixels as row runs, CSR: superpixel i owns runs start[i]..start[i+1], run k covers pixels at[k]..at[k] + len[k] - 1 */
  runs: { start: Int32Array; at: Int32Array; len: Int32Array };
  /** each superpixel's inclusive pixel box: x0, y0, x1, y1 at 4i */
  spBox: Int32Array;
  /** normalised contrast per neighbour slot (star-convexity paths) */
  contrast: Float64Array;
  /** superpixel grid step */
  step: number;
  /** RGB of the working copy and GrabCut's contrast scale 1 / (2 mean |dRGB|^2) over 4-neighbours, for the pixel cut */
  rgb: Uint8Array;
  beta: number;
  bytes: number;
}

/** 640x480: the size the parameters were tuned at */
const REF_PIXELS = 640 * 480;

export const PARAMS = {
  /** superpixel grid step in working pixels */
  step: 14,
  compactness: 12,
  slicIters: 5,
  /** smoothness weight per boundary pixel edge (in nats per pixel of unary cost) */
  lambda: 20,
  /** foreground cost per pixel per unit of distance from the nearest positive click (distance / image size) */
  distance: 1,
  /** foreground cost per pixel near a negative click (Gaussian falloff, sigma as a fraction of the image size) */
  negative: 4,
  negativeSigma: 0.05,
  /** background cost per pixel near a positive click (Gaussian falloff) */
  positive: 2,
  positiveSigma: 0.05,
  /** colour-model weight of a clicked superpixel (its neighbours half): new clicks' colours are not drowned by the rest of the mask */
  clickWeight: 5,
  /** first click: radius (fraction of the image size) and weight of the disc that starts the foreground colour model */
  initDisc: 0,
  initDiscWeight: 0.5,
  /** cost per pixel of changing the previous mask's label far from the new clicks (Gaussian nearness, sigma a fraction of the image size) */
  previous: 0.5,
  previousSigma: 0.1,
  /** geodesic star convexity around the positive clicks, hop cost 1 + gamma * contrast */
  star: true,
  gamma: 2,
  /** foreground cost per pixel per unit of that path cost (in image sizes of hops) */
  geodesic: 0.5,
  rounds: 3,
  /** pixel-level cut in the band around the superpixel boundary (else the box-filter refinement) */
  pixelCut: true,
  pixLambda: 10,
  pixBias: 0.5,
  pixReach: 6,
  /** only the changed regions that hold a new click keep their change (see keepLocalChanges) */
  localCorrection: true,
  /** a negative click removes at most this many times its depth in the previous mask */
  removalReach: 3,
  /** a box alone whose cut comes back empty answers the box (GrabCut's starting labels): a box always holds an object */
  boxFallback: true,
  /** colour models: Gaussian mixture components per side (GrabCut's 5); 0 models each side by its smoothed histogram */
  gmm: 5,
  /** EM steps for the first round's mixtures, and for the later rounds' (which start from the previous round's) */
  gmmIters: 8,
  gmmWarmIters: 3,
  /** a box alone keeps every foreground component at least this share of the largest one (an object in parts) */
  boxKeepShare: 0.3,
  /** smoothness multiplier on the edges between the box's outside and its inside */
  boxBorder: 4,
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
  // Above 640x480 superpixels grow with the image, so the per-click graphs stay the same size.
  const step = Math.max(4, Math.min(Math.round(PARAMS.step * Math.max(1, Math.sqrt(n / REF_PIXELS))), Math.floor(Math.sqrt(n / 16))));
  const count = ops.slic(lab, w, h, step, PARAMS.compactness, PARAMS.slicIters, labels);
  const stats = ops.superpixelStats(lab, bins, labels, w, h, count);
  const edges = smoothnessEdges(stats);
  const sparse = sparseHistograms(stats);
  const seen = new Uint8Array(BINS);
  for (let k = 0; k < sparse.bin.length; k++) seen[sparse.bin[k]!] = 1;
  const colours = Uint16Array.from({ length: BINS }, (_, b) => b).filter((b) => seen[b] === 1);
  const contrast = slotContrast(stats);
  const { rgb: rgb3, beta } = rgbAndBeta(rgb, w, h, channels);
  const { runs, spBox } = superpixelRuns(labels, w, h, count);
  ops.pin?.(labels); // refine() reads both on every click
  ops.pin?.(bins);
  // The dense histograms are only needed to build the sparse ones (4k superpixels x 512 bins = 8 MB).
  stats.hist = new Int32Array(0);
  // Label map and bins count twice: the pinned copies in wasm memory too.
  const bytes =
    2 * (labels.byteLength + bins.byteLength) + stats.nbr.byteLength * 5 + stats.mean.byteLength + edges.m * 24 + sparse.count.byteLength * 2 + contrast.byteLength + rgb3.byteLength +
    runs.at.byteLength * 2 + runs.start.byteLength + spBox.byteLength;
  return { w, h, labels, bins, stats, sparse, colours, edges, runs, spBox, contrast, step, rgb: rgb3, beta, bytes };
}

/** The label map as runs per superpixel, and each superpixel's box: a mask from superpixel flags is then a few fills, not a pass over every pixel. */
function superpixelRuns(labels: Int32Array, w: number, h: number, count: number): Pick<Structure, 'runs' | 'spBox'> {
  const per = new Int32Array(count + 1);
  for (let y = 0; y < h; y++) {
    for (let x = 0, q = y * w; x < w; x++, q++) if (x === 0 || labels[q] !== labels[q - 1]) per[labels[q]!]++;
  }
  const start = new Int32Array(count + 1);
  for (let i = 0; i < count; i++) start[i + 1] = start[i]! + per[i]!;
  const at = new Int32Array(start[count]!), len = new Int32Array(start[count]!);
  const spBox = new Int32Array(count * 4);
  for (let i = 0; i < count; i++) spBox.set([w, h, -1, -1], i * 4);
  const next = start.slice(0, count);
  for (let y = 0; y < h; y++) {
    for (let x = 0, q = y * w; x < w; ) {
      const l = labels[q]!;
      let e = x + 1;
      while (e < w && labels[q + e - x] === l) e++;
      const k = next[l]!++;
      at[k] = q;
      len[k] = e - x;
      const b = l * 4;
      if (x < spBox[b]!) spBox[b] = x;
      if (y < spBox[b + 1]!) spBox[b + 1] = y;
      if (e - 1 > spBox[b + 2]!) spBox[b + 2] = e - 1;
      spBox[b + 3] = y;
      q += e - x;
      x = e;
    }
  }
  return { runs: { start, at, len }, spBox };
}

function rgbAndBeta(rgb: Uint8Array, w: number, h: number, channels: number): { rgb: Uint8Array; beta: number } {
  const n = w * h;
  const out = channels === 3 ? rgb.slice(0, n * 3) : new Uint8Array(n * 3);
  if (channels !== 3) for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) out[i * 3 + c] = rgb[i * channels + c]!;
  let sum = 0, m = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const q = (y * w + x) * 3;
      if (x + 1 < w) {
        sum += (out[q]! - out[q + 3]!) ** 2 + (out[q + 1]! - out[q + 4]!) ** 2 + (out[q + 2]! - out[q + 5]!) ** 2;
        m++;
      }
      if (y + 1 < h) {
        const r = q + w * 3;
        sum += (out[q]! - out[r]!) ** 2 + (out[q + 1]! - out[r + 1]!) ** 2 + (out[q + 2]! - out[r + 2]!) ** 2;
        m++;
      }
    }
  }
  return { rgb: out, beta: sum > 0 ? m / (2 * sum) : 0 };
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
  /** the previous mask itself (working resolution, 0/1): a correction changes only the region it touches */
  previousMask?: Uint8Array;
  /** the previous mask's foreground box, when known (else it is read from the mask) */
  previousBox?: PixelBox | null;
  /** the object lies inside [x0, y0, x1, y1) (working coordinates) */
  box?: readonly [number, number, number, number];
}

export interface SegmentOutput {
  /** row-major 0/1 at working resolution */
  mask: Uint8Array;
  /** the mask's foreground box (null: empty) */
  box: PixelBox | null;
  spFg: Uint8Array;
  score: number;
}

const HARD = 1e12;

/**
 * Colour model of one side from weighted superpixel histograms: -log P per bin. A Gaussian mixture
 * fitted to the histogram (GrabCut's model; `start` is the previous round's, refined by a few EM
 * steps), or with `PARAMS.gmm` 0 the histogram itself, smoothed.
 */
function model(st: Structure, weight: Float64Array, start: Gmm | null): { nll: Float64Array; gmm: Gmm | null } {
  const sp = st.sparse, n = st.stats.count;
  const h = new Float64Array(BINS);
  for (let i = 0; i < n; i++) {
    const wi = weight[i]!;
    if (wi <= 0) continue;
    for (let k = sp.start[i]!, end = sp.start[i + 1]!; k < end; k++) h[sp.bin[k]!] += wi * sp.count[k]!;
  }
  const nll = new Float64Array(BINS);
  if (PARAMS.gmm > 0) {
    const gmm = fitGmm(LAB_BINS, h, PARAMS.gmm, start ? PARAMS.gmmWarmIters : PARAMS.gmmIters, start);
    if (!gmm) return { nll: nll.fill(Math.log(BINS)), gmm };
    // Only the image's own colours are ever read (up to 512 bins, often a third of them).
    const used = st.colours;
    groupNll(gmm, LAB_BINS, nll, used);
    // As a distribution over those bins, with a floor: no colour is impossible for either side.
    let sum = 0;
    for (const b of used) sum += nll[b] = Math.exp(-nll[b]!);
    const eps = sum * 1e-4, norm = sum + eps * used.length;
    for (const b of used) nll[b] = -Math.log((nll[b]! + eps) / norm);
    return { nll, gmm };
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
  const norm = total + eps * BINS;
  for (let b = 0; b < BINS; b++) nll[b] = -Math.log((cur[b]! + eps) / norm);
  return { nll, gmm: null };
}

function meanNll(sp: Structure['sparse'], n: number, nll: Float64Array, out: Float64Array): void {
  for (let i = 0; i < n; i++) {
    let v = 0;
    for (let k = sp.start[i]!, end = sp.start[i + 1]!; k < end; k++) v += sp.count[k]! * nll[sp.bin[k]!]!;
    out[i] = v; // total over the superpixel's pixels
  }
}

function pixelAt(st: Structure, x: number, y: number): number {
  return Math.min(st.h - 1, Math.max(0, Math.floor(y))) * st.w + Math.min(st.w - 1, Math.max(0, Math.floor(x)));
}

function labelAt(st: Structure, x: number, y: number): number {
  const xi = Math.min(st.w - 1, Math.max(0, Math.floor(x))), yi = Math.min(st.h - 1, Math.max(0, Math.floor(y)));
  return st.labels[yi * st.w + xi]!;
}

type Click = [number, number, number];

/** Per-superpixel spatial priors (per pixel of the superpixel): costs of foreground and of background. */
interface Priors {
  /** distance to the nearest positive click / image size */
  dPos: Float64Array;
  costF: Float64Array;
  costB: Float64Array;
}

function spatialPriors(st: Structure, input: SegmentInput, clicks: Click[]): Priors {
  const s = st.stats, n = s.count, size = Math.sqrt(st.w * st.h);
  const dPos = new Float64Array(n), costF = new Float64Array(n), costB = new Float64Array(n);
  const negK = 1 / (2 * PARAMS.negativeSigma * PARAMS.negativeSigma * size * size);
  const posK = 1 / (2 * PARAMS.positiveSigma * PARAMS.positiveSigma * size * size);
  const prev = input.previous && input.previous.length === n ? input.previous : null;
  // The clicks the previous mask disagrees with are the new ones: the mask keeps its labels away from them.
  const fresh = prev ? clicks.filter(([x, y, v]) => (prev[labelAt(st, x, y)] === 1) !== (v === 1)) : [];
  const prevK = 1 / (2 * PARAMS.previousSigma * PARAMS.previousSigma * size * size);
  for (let i = 0; i < n; i++) {
    const cx = s.mean[i * 5 + 3]!, cy = s.mean[i * 5 + 4]!;
    let best = Infinity;
    for (const [px, py] of input.positive) best = Math.min(best, Math.hypot(cx - px, cy - py));
    dPos[i] = input.positive.length ? best / size : 0;
    // Nearness to the negative clicks: a negative click speaks for its surroundings too.
    let near = 0;
    for (const [px, py] of input.negative) near = Math.max(near, Math.exp(-negK * ((cx - px) ** 2 + (cy - py) ** 2)));
    costF[i] = PARAMS.distance * dPos[i]! + PARAMS.negative * near;
    // Likewise a positive click speaks for its surroundings (GrabCut's probable-foreground disc).
    let nearP = 0;
    for (const [px, py] of input.positive) nearP = Math.max(nearP, Math.exp(-posK * ((cx - px) ** 2 + (cy - py) ** 2)));
    costB[i] += PARAMS.positive * nearP;
    if (prev) {
      let d2 = Infinity;
      for (const [px, py] of fresh) d2 = Math.min(d2, (cx - px) ** 2 + (cy - py) ** 2);
      const keep = PARAMS.previous * (1 - Math.exp(-prevK * d2));
      if (prev[i]) costB[i] += keep;
      else costF[i] += keep;
    }
  }
  return { dPos, costF, costB };
}

/** Superpixels whose centre lies inside the box grown by half a superpixel. */
function boxFlags(st: Structure, box: readonly [number, number, number, number], grow: number): Uint8Array {
  const s = st.stats, out = new Uint8Array(s.count);
  for (let i = 0; i < s.count; i++) {
    const cx = s.mean[i * 5 + 3]!, cy = s.mean[i * 5 + 4]!;
    out[i] = cx >= box[0] - grow && cx < box[2] + grow && cy >= box[1] - grow && cy < box[3] + grow ? 1 : 0;
  }
  return out;
}

/** The graph's edges, plus the star-convexity arcs child -> parent of infinite capacity. */
function cutEdges(st: Structure, parent: Int32Array | null) {
  const e = st.edges;
  let extra = 0;
  if (parent) for (let i = 0; i < parent.length; i++) if (parent[i]! >= 0) extra++;
  const m = e.m + extra;
  const a = new Int32Array(m), b = new Int32Array(m), cab = new Float64Array(m), cba = new Float64Array(m);
  a.set(e.a);
  b.set(e.b);
  cab.set(e.weight);
  cba.set(e.weight);
  let k = e.m;
  if (parent) {
    for (let i = 0; i < parent.length; i++) {
      if (parent[i]! < 0) continue;
      a[k] = i;
      b[k] = parent[i]!;
      cab[k++] = HARD;
    }
  }
  return { m, a, b, cab, cba };
}

/** Starting colour models: the box (inside / outside), the previous mask, the clicked superpixels and their neighbours. */
function initialWeights(st: Structure, input: SegmentInput, seed: Uint8Array, inBox: Uint8Array | null, dPos: Float64Array) {
  const s = st.stats, n = s.count;
  const wF = new Float64Array(n), wB = new Float64Array(n);
  if (input.previous && input.previous.length === n) {
    for (let i = 0; i < n; i++) wF[i] = input.previous[i]!;
  } else if (inBox) {
    for (let i = 0; i < n; i++) wF[i] = inBox[i]!;
  } else if (PARAMS.initDisc > 0) {
    // First click: the colours within a disc around it (GrabCut's probable foreground).
    for (let i = 0; i < n; i++) if (dPos[i]! < PARAMS.initDisc) wF[i] = PARAMS.initDiscWeight;
  }
  for (let i = 0; i < n; i++) {
    if (seed[i] !== 1) continue;
    wF[i] = 1;
    for (let k = 0; k < s.degree[i]!; k++) {
      const j = s.nbr[i * MAX_DEGREE + k]!;
      if (seed[j] !== 2) wF[j] = Math.max(wF[j]!, 0.5);
    }
  }
  emphasiseClicks(s, seed, inBox, wF, wB);
  const far = input.positive.length > 0 && !inBox;
  for (let i = 0; i < n; i++) {
    if (seed[i] === 2) wB[i] = 4;
    else if (seed[i] === 1) wB[i] = 0;
    else if (inBox && !input.previous) wB[i] = inBox[i] ? 0 : 1;
    else wB[i] = (far ? Math.min(1, dPos[i]! / 0.25) : 1) * (1 - wF[i]!);
  }
  return { wF, wB };
}

/** Clicked superpixels (and, at half, their neighbours) weigh clickWeight in their side's colour model. */
function emphasiseClicks(s: SuperpixelStats, seed: Uint8Array, inBox: Uint8Array | null, wF: Float64Array, wB: Float64Array): void {
  const cw = PARAMS.clickWeight;
  for (let i = 0; i < s.count; i++) {
    const v = seed[i]!;
    if (!v || (v === 2 && inBox && !inBox[i])) continue;
    const wt = v === 1 ? wF : wB;
    wt[i] = Math.max(wt[i]!, cw);
    for (let k = 0; k < s.degree[i]!; k++) {
      const j = s.nbr[i * MAX_DEGREE + k]!;
      if (!seed[j]) wt[j] = Math.max(wt[j]!, cw / 2);
    }
  }
}

// Long because it is one click's pipeline in order (seeds, the box and size priors, the superpixel
// cut, the pixel cut at its boundary, the islands), each step reading what the one before left.
export function segment(ops: SegmentOps, st: Structure, input: SegmentInput): SegmentOutput {
  const s = st.stats, n = s.count;
  const seed = new Uint8Array(n); // 1 fg, 2 bg; the later click wins
  const clicks: Click[] = [
    ...input.positive.map((p) => [p[0], p[1], 1] as Click),
    ...input.negative.map((p) => [p[0], p[1], 2] as Click),
  ];
  // The lists carry no click order, but the previous mask tells the newest clicks apart: it disagrees
  // with them. A superpixel holding clicks of both kinds takes its new clicks' kind; with no new
  // click to decide it is no seed, and the pixel cut settles it with each click pixel fixed.
  const mixed = new Uint8Array(n), fresh = new Uint8Array(n);
  const prevMask = input.previousMask && input.previousMask.length === st.w * st.h ? input.previousMask : null;
  for (const [x, y, v] of clicks) {
    const i = labelAt(st, x, y);
    if (seed[i] && seed[i] !== v) mixed[i] = 1;
    seed[i] = v;
    if (prevMask && (prevMask[pixelAt(st, x, y)] === 1) !== (v === 1)) fresh[i] |= v;
  }
  for (let i = 0; i < n; i++) {
    if (!mixed[i]) continue;
    seed[i] = fresh[i] === 1 || fresh[i] === 2 ? fresh[i]! : 0;
  }
  const mask = new Uint8Array(st.w * st.h);
  const box = input.box;
  if (input.positive.length === 0 && !box) return { mask, box: null, spFg: new Uint8Array(n), score: 0 };
  // Outside the box is background (a positive click there still wins).
  const inBox = box ? boxFlags(st, box, 0) : null;
  if (box) {
    const near = boxFlags(st, box, st.step / 2);
    for (let i = 0; i < n; i++) if (!near[i] && seed[i] !== 1) seed[i] = 2;
  }

  const pr = spatialPriors(st, input, clicks);
  const star = input.positive.length ? starParents(s, st.contrast, seed, PARAMS.gamma) : null;
  if (star && PARAMS.geodesic > 0) {
    // Edge-aware size prior: foreground cost grows with the contrast-weighted path length from the clicks.
    const scale = PARAMS.geodesic / Math.sqrt(n);
    for (let i = 0; i < n; i++) pr.costF[i] += Number.isFinite(star.dist[i]!) ? scale * star.dist[i]! : 0;
  }
  const { wF, wB } = initialWeights(st, input, seed, inBox, pr.dPos);
  const e = cutEdges(st, PARAMS.star && star ? star.parent : null);
  if (inBox && PARAMS.boxBorder !== 1) {
    // Cutting along the box through flat colour is what a mask that fills the box does: it costs more.
    for (let k = 0; k < st.edges.m; k++) {
      const a = st.edges.a[k]!, b = st.edges.b[k]!;
      if ((seed[a] === 2) !== (seed[b] === 2) && (inBox[a] === 0 || inBox[b] === 0)) {
        e.cab[k] = e.cab[k]! * PARAMS.boxBorder;
        e.cba[k] = e.cba[k]! * PARAMS.boxBorder;
      }
    }
  }
  const src = new Float64Array(n), snk = new Float64Array(n);
  const uF = new Float64Array(n), uB = new Float64Array(n);
  const spFg = new Uint8Array(n);
  let nllF: Float64Array = new Float64Array(BINS), nllB: Float64Array = new Float64Array(BINS);
  // A box with no click yet: the colour models can leave nothing inside it (the object's colours are
  // common outside too); the box itself is then the better answer, and clicks refine it.
  const boxAlone = PARAMS.boxFallback && inBox !== null && input.positive.length === 0 && !input.previous;
  let gF: Gmm | null = null, gB: Gmm | null = null;
  for (let round = 0; round < PARAMS.rounds; round++) {
    ({ nll: nllF, gmm: gF } = model(st, wF, gF));
    ({ nll: nllB, gmm: gB } = model(st, wB, gB));
    meanNll(st.sparse, n, nllF, uF);
    meanNll(st.sparse, n, nllB, uB);
    for (let i = 0; i < n; i++) {
      const costF = uF[i]! + s.size[i]! * pr.costF[i]!;
      const costB = uB[i]! + s.size[i]! * pr.costB[i]!;
      const lo = Math.min(costF, costB);
      // source side = foreground: cutting S->i labels i background (pays costB), i->T pays costF.
      src[i] = seed[i] === 1 ? HARD : seed[i] === 2 ? 0 : costB - lo;
      snk[i] = seed[i] === 2 ? HARD : seed[i] === 1 ? 0 : costF - lo;
    }
    ops.minCut(n, src, snk, e.m, e.a, e.b, e.cab, e.cba, spFg);
    keepConnected(s, spFg, seed, PARAMS.boxKeepShare);
    if (boxAlone && !spFg.some((v, i) => v === 1 && inBox![i] === 1)) {
      for (let i = 0; i < n; i++) if (inBox![i] && seed[i] !== 2) spFg[i] = 1;
    }
    for (let i = 0; i < n; i++) {
      wF[i] = spFg[i]!;
      wB[i] = seed[i] === 2 ? (inBox && !inBox[i] ? 1 : 4) : 1 - spFg[i]!;
    }
    emphasiseClicks(s, seed, inBox, wF, wB);
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
  // A clicked superpixel keeps its click's label to the pixel: the click is a hard constraint.
  // Except where clicks of both kinds share a superpixel: it straddles the boundary, and the pixel cut splits it.
  for (let i = 0; i < n; i++) if (!mixed[i] && (seed[i] === 1 || (seed[i] === 2 && (!inBox || inBox[i])))) band[i] = 0;
  for (let i = 0; i < n; i++) if (mixed[i]) band[i] = 1;
  const llr = new Float64Array(BINS);
  for (let b = 0; b < BINS; b++) llr[b] = Math.max(-5, Math.min(5, nllB[b]! - nllF[b]!));
  if (PARAMS.pixelCut) {
    const hard = new Map<number, number>();
    for (const [x, y, v] of clicks) hard.set(Math.min(st.h - 1, Math.floor(y)) * st.w + Math.min(st.w - 1, Math.floor(x)), v);
    // Narrower band above 640x480 (in pixels): the pixel cut is most of a click's time there.
    pixelCut(ops, st, spFg, band, llr, { lambda: PARAMS.pixLambda, bias: PARAMS.pixBias, reach: Math.max(3, Math.round(PARAMS.pixReach * Math.min(1, Math.sqrt(REF_PIXELS / (st.w * st.h))))) }, mask, hard);
  } else ops.refine(st.labels, st.bins, st.w, st.h, spFg, band, llr, PARAMS.refineRadius, PARAMS.refineBias, mask);
  if (box) clipToBox(mask, st.w, st.h, box, input.positive);
  // The clicked pixels themselves always follow their click.
  for (const [x, y, v] of clicks) mask[Math.min(st.h - 1, Math.floor(y)) * st.w + Math.min(st.w - 1, Math.floor(x))] = v === 1 ? 1 : 0;
  const local = PARAMS.localCorrection && prevMask ? prevMask : null;
  // Everything from here on only looks inside the box of the mask and the previous mask: the rest stays background.
  const frame = unionBox(foregroundBox(mask, st.w, st.h), local && (input.previousBox !== undefined ? input.previousBox : foregroundBox(local, st.w, st.h)));
  if (local && frame) keepLocalChanges(mask, local, st.w, st.h, clicks, frame);
  // Islands the pixel cut left: only what is connected to the clicks (or to the superpixel mask's cores) stays.
  // The superpixel mask is already connected to the positive clicks, so its cores are anchors too: a
  // positive click whose own pixels end up cut off from the mask must not take the mask with it.
  // What the previous mask kept was connected already: a correction does not cut it loose.
  const anchors: number[] = [];
  for (const [x, y, v] of clicks) if (v === 1) anchors.push(Math.min(st.h - 1, Math.floor(y)) * st.w + Math.min(st.w - 1, Math.floor(x)));
  const core = new Uint8Array(n);
  for (let i = 0; i < n; i++) core[i] = spFg[i] && !band[i] ? 1 : 0;
  let maskBox: PixelBox | null = null;
  if (frame) {
    keepPixelsConnected(mask, st.w, st.h, anchors, (q) => core[st.labels[q]!] === 1 || (local !== null && local[q] === 1), frame);
    // Filling holes keeps the box.
    maskBox = foregroundBox(mask, st.w, st.h, frame);
    fillHoles(mask, st.w, st.h, input.negative, maskBox);
  }

  // Confidence: how clearly the chosen foreground's colours prefer the foreground model.
  let agree = 0, total = 0;
  for (let i = 0; i < n; i++) {
    if (!spFg[i]) continue;
    const margin = (uB[i]! - uF[i]!) / Math.max(1, s.size[i]!);
    agree += s.size[i]! / (1 + Math.exp(-margin));
    total += s.size[i]!;
  }
  return { mask, box: maskBox, spFg, score: total > 0 ? agree / total : 0 };
}

/**
 * A correction click changes the region it touches, and only in its own direction: a new positive
 * click (one the previous mask disagreed with) adds the new foreground connected to it, a new
 * negative click removes the lost foreground connected to it, and every other pixel keeps the
 * previous mask. Without this the re-estimated colour models flip regions the annotator had
 * already accepted, so a click could make the mask worse away from where it was put.
 */
export function keepLocalChanges(mask: Uint8Array, previous: Uint8Array, w: number, h: number, clicks: readonly (readonly [number, number, number])[], frame?: PixelBox): void {
  const added: number[] = [], removed: number[] = [];
  for (const [x, y, v] of clicks) {
    const p = Math.min(h - 1, Math.max(0, Math.floor(y))) * w + Math.min(w - 1, Math.max(0, Math.floor(x)));
    if ((previous[p] === 1) !== (v === 1)) (v === 1 ? added : removed).push(p);
  }
  if (!added.length && !removed.length) return;
  // A removal stays within removalReach times the click's depth in the previous mask: on a thin part, a
  // negative click trims around itself instead of taking the rest of the part along.
  const reach = new Float64Array(removed.length * 3);
  removed.forEach((p, k) => {
    const cx = p % w, cy = (p - cx) / w;
    reach.set([cx + 0.5, cy + 0.5, PARAMS.removalReach * PARAMS.removalReach * Math.max(depth2(previous, w, h, cx, cy), 4)], k * 3);
  });
  const coords = (v: boolean) => Float64Array.from(clicks.filter((c) => (c[2] === 1) === v).flatMap((c) => [c[0], c[1]]));
  const pos = coords(true), neg = coords(false);
  // Whether a changed pixel may keep its change: a gain nearer a positive click than a negative one,
  // a loss nearer a negative click and within a removal's reach. Decided only for the pixels the
  // floods from the new clicks reach, so the cost follows the change kept, not the change made.
  const mayChange = (p: number): boolean => {
    const x = (p % w) + 0.5, y = Math.floor(p / w) + 0.5;
    const dPos = nearest2(pos, x, y), dNeg = nearest2(neg, x, y);
    if (mask[p]) return dPos <= dNeg;
    if (dNeg > dPos) return false;
    for (let k = 0; k < reach.length; k += 3) if ((x - reach[k]!) ** 2 + (y - reach[k + 1]!) ** 2 <= reach[k + 2]!) return true;
    return false;
  };
  const f = frame ?? { x0: 0, y0: 0, x1: w - 1, y1: h - 1 };
  // 1: reached by a flood (keeps its change), 2: looked at and refused.
  const state = new Uint8Array(mask.length);
  const stack: number[] = [];
  const visit = (p: number, v: number) => {
    if (state[p] || mask[p] !== v || previous[p] === v) return;
    if (!mayChange(p)) {
      state[p] = 2;
      return;
    }
    state[p] = 1;
    stack.push(p);
  };
  for (const [seeds, v] of [[added, 1], [removed, 0]] as const) {
    for (const p of seeds) visit(p, v);
    while (stack.length) {
      const p = stack.pop()!, x = p % w;
      if (x > 0) visit(p - 1, v);
      if (x < w - 1) visit(p + 1, v);
      if (p >= w) visit(p - w, v);
      if (p + w < mask.length) visit(p + w, v);
    }
  }
  for (let y = f.y0; y <= f.y1; y++) {
    for (let p = y * w + f.x0, end = y * w + f.x1; p <= end; p++) if (mask[p] !== previous[p] && state[p] !== 1) mask[p] = previous[p]!;
  }
}

/** The smallest box holding both (either may be null). */
function unionBox(a: PixelBox | null, b: PixelBox | null): PixelBox | null {
  if (!a || !b) return a ?? b;
  return { x0: Math.min(a.x0, b.x0), x1: Math.max(a.x1, b.x1), y0: Math.min(a.y0, b.y0), y1: Math.max(a.y1, b.y1) };
}

/** Squared distance from (x, y) to the nearest of the points (x, y pairs); Infinity when there are none. */
function nearest2(pts: Float64Array, x: number, y: number): number {
  let best = Infinity;
  for (let k = 0; k < pts.length; k += 2) {
    const d = (pts[k]! - x) ** 2 + (pts[k + 1]! - y) ** 2;
    if (d < best) best = d;
  }
  return best;
}

/** Squared distance from (cx, cy) to the nearest background pixel of `m` (the image's outside counts as background), searched in growing windows. */
function depth2(m: Uint8Array, w: number, h: number, cx: number, cy: number): number {
  let best = Infinity;
  for (let r = 2; ; r *= 2) {
    const x0 = cx - r, x1 = cx + r, y0 = cy - r, y1 = cy + r;
    if (x0 < 0) best = Math.min(best, (cx + 1) ** 2);
    if (y0 < 0) best = Math.min(best, (cy + 1) ** 2);
    if (x1 >= w) best = Math.min(best, (w - cx) ** 2);
    if (y1 >= h) best = Math.min(best, (h - cy) ** 2);
    for (let y = Math.max(0, y0); y <= Math.min(h - 1, y1); y++) {
      for (let x = Math.max(0, x0), row = y * w; x <= Math.min(w - 1, x1); x++) if (!m[row + x]) best = Math.min(best, (x - cx) ** 2 + (y - cy) ** 2);
    }
    // Anything outside this window is further than r.
    if (best <= r * r) return best;
  }
}

/** Pixels outside the box are background, unless a positive click lies outside it too (then the box is only a hint). */
function clipToBox(mask: Uint8Array, w: number, h: number, box: readonly [number, number, number, number], positive: SegmentInput['positive']): void {
  const x0 = Math.max(0, Math.floor(box[0])), y0 = Math.max(0, Math.floor(box[1]));
  const x1 = Math.min(w, Math.ceil(box[2])), y1 = Math.min(h, Math.ceil(box[3]));
  if (positive.some(([x, y]) => x < x0 || x >= x1 || y < y0 || y >= y1)) return;
  for (let y = 0; y < h; y++) {
    const inside = y >= y0 && y < y1;
    for (let x = 0; x < w; x++) if (!inside || x < x0 || x >= x1) mask[y * w + x] = 0;
  }
}

/**
 * Objects are solid unless told otherwise: background enclosed by the mask becomes foreground,
 * except enclosed regions holding a negative click (a real hole the user pointed at).
 *
 * Only the mask's bounding box (plus a one-pixel frame) is flooded: everything outside it is
 * background connected to the image border anyway. The flood marks reached background as 2 in
 * the mask itself, so no second buffer is cleared per click.
 */
export function fillHoles(mask: Uint8Array, w: number, h: number, negative: readonly (readonly [number, number])[], box = foregroundBox(mask, w, h)): void {
  if (!box) return;
  const { x0, x1, y0, y1 } = box;
  const wx0 = Math.max(0, x0 - 1), wx1 = Math.min(w - 1, x1 + 1), wy0 = Math.max(0, y0 - 1), wy1 = Math.min(h - 1, y1 + 1);
  // Seeds: background on the window's frame (outside the mask's box, or on the image border) and under negative clicks.
  const seeds: number[] = [];
  for (let x = wx0; x <= wx1; x++) seeds.push(wy0 * w + x, wy1 * w + x);
  for (let y = wy0; y <= wy1; y++) seeds.push(y * w + wx0, y * w + wx1);
  for (const [nx, ny] of negative) {
    const x = Math.min(w - 1, Math.max(0, Math.floor(nx))), y = Math.min(h - 1, Math.max(0, Math.floor(ny)));
    if (x >= wx0 && x <= wx1 && y >= wy0 && y <= wy1) seeds.push(y * w + x);
  }
  floodSpans(mask, w, wx0, wx1, wy0, wy1, 0, 2, seeds);
  // Unreached background is a hole: foreground. Reached background goes back to 0.
  for (let y = wy0; y <= wy1; y++) {
    for (let p = y * w + wx0, end = y * w + wx1; p <= end; p++) {
      const v = mask[p]!;
      if (v === 0) mask[p] = 1;
      else if (v === 2) mask[p] = 0;
    }
  }
}
