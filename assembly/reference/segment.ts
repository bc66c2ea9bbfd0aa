// Plain TypeScript reference for the assisted-segmentation kernels (assembly/kernels/segment.ts).
// Same algorithms, same operation order and f64 arithmetic, so the wasm kernels agree exactly
// (apart from cbrt in the colour conversion, which may differ in the last bit).
//
// Layouts: images are row-major (pixel (x, y) at y * w + x); `rgb` is interleaved with `channels`
// bytes per pixel; `lab` is interleaved L, a, b (f32); superpixel labels are i32 per pixel.

/** Histogram bins per pixel: 8 levels each of L, a and b. */
export const BINS = 512;
/** Most neighbours a superpixel keeps in its adjacency list (SLIC gives about 6). */
export const MAX_DEGREE = 32;

const SRGB_LUT = new Float64Array(256);
for (let i = 0; i < 256; i++) {
  const c = i / 255;
  SRGB_LUT[i] = c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
}

function labF(t: number): number {
  return t > 0.008856451679035631 ? Math.cbrt(t) : t * 7.787037037037037 + 0.13793103448275862;
}

/** Quantised colour of a Lab pixel: 8 levels of L in [0, 100], of a and b in [-80, 80] (clamped). */
export function labBin(L: number, a: number, b: number): number {
  let qL = Math.floor(L * 0.08);
  let qa = Math.floor((a + 80) * 0.05);
  let qb = Math.floor((b + 80) * 0.05);
  qL = qL < 0 ? 0 : qL > 7 ? 7 : qL;
  qa = qa < 0 ? 0 : qa > 7 ? 7 : qa;
  qb = qb < 0 ? 0 : qb > 7 ? 7 : qb;
  return (qL << 6) | (qa << 3) | qb;
}

/** sRGB (D65) to CIELAB, and each pixel's histogram bin. */
export function rgbToLabRef(rgb: Uint8Array, n: number, channels: number, lab: Float32Array, bins: Uint16Array): void {
  for (let i = 0; i < n; i++) {
    const r = SRGB_LUT[rgb[i * channels]!]!, g = SRGB_LUT[rgb[i * channels + 1]!]!, b = SRGB_LUT[rgb[i * channels + 2]!]!;
    const x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
    const y = 0.2126729 * r + 0.7151522 * g + 0.072175 * b;
    const z = (0.0193339 * r + 0.119192 * g + 0.9503041 * b) / 1.08883;
    const fx = labF(x), fy = labF(y), fz = labF(z);
    const L = Math.fround(116 * fy - 16), A = Math.fround(500 * (fx - fy)), B = Math.fround(200 * (fy - fz));
    lab[i * 3] = L;
    lab[i * 3 + 1] = A;
    lab[i * 3 + 2] = B;
    bins[i] = labBin(L, A, B);
  }
}

/**
 * SLIC superpixels (Achanta et al. 2012) on a Lab image: centres on a grid of `step` pixels,
 * `iters` rounds of assignment in a 2*step window with distance dLab^2 + (m/step)^2 dxy^2, then
 * connectivity enforcement (4-connected components, those under step^2/4 pixels merged into a
 * neighbour). Writes final labels 0..count-1 and returns count.
 */
export function slicRef(lab: Float32Array, w: number, h: number, step: number, compactness: number, iters: number, labels: Int32Array): number {
  const n = w * h;
  const nx = Math.max(1, Math.floor((w + step - 1) / step)), ny = Math.max(1, Math.floor((h + step - 1) / step));
  const k = nx * ny;
  const c = new Float64Array(k * 5); // L a b x y
  for (let j = 0; j < ny; j++) {
    for (let i = 0; i < nx; i++) {
      const x = Math.min(w - 1, Math.floor(i * step + step / 2)), y = Math.min(h - 1, Math.floor(j * step + step / 2));
      const p = y * w + x, o = (j * nx + i) * 5;
      c[o] = lab[p * 3]!;
      c[o + 1] = lab[p * 3 + 1]!;
      c[o + 2] = lab[p * 3 + 2]!;
      c[o + 3] = x;
      c[o + 4] = y;
    }
  }
  const dist = new Float64Array(n);
  const sums = new Float64Array(k * 6);
  const wxy = (compactness / step) * (compactness / step);
  for (let it = 0; it < iters; it++) {
    dist.fill(Infinity);
    for (let q = 0; q < k; q++) {
      const o = q * 5;
      const cL = c[o]!, ca = c[o + 1]!, cb = c[o + 2]!, cx = c[o + 3]!, cy = c[o + 4]!;
      const x0 = Math.max(0, Math.floor(cx - step)), x1 = Math.min(w, Math.floor(cx + step) + 1);
      const y0 = Math.max(0, Math.floor(cy - step)), y1 = Math.min(h, Math.floor(cy + step) + 1);
      for (let y = y0; y < y1; y++) {
        const dy = y - cy;
        for (let x = x0; x < x1; x++) {
          const p = y * w + x;
          const dL = lab[p * 3]! - cL, da = lab[p * 3 + 1]! - ca, db = lab[p * 3 + 2]! - cb, dx = x - cx;
          const d = dL * dL + da * da + db * db + (dx * dx + dy * dy) * wxy;
          if (d < dist[p]!) {
            dist[p] = d;
            labels[p] = q;
          }
        }
      }
    }
    sums.fill(0);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const p = y * w + x, o = labels[p]! * 6;
        sums[o] += lab[p * 3]!;
        sums[o + 1] += lab[p * 3 + 1]!;
        sums[o + 2] += lab[p * 3 + 2]!;
        sums[o + 3] += x;
        sums[o + 4] += y;
        sums[o + 5] += 1;
      }
    }
    for (let q = 0; q < k; q++) {
      const s = sums[q * 6 + 5]!;
      if (s > 0) for (let j = 0; j < 5; j++) c[q * 5 + j] = sums[q * 6 + j]! / s;
    }
  }
  return enforceConnectivityRef(labels, w, h, Math.max(1, Math.floor((step * step) / 4)));
}

/** Relabels 4-connected components in scan order; a component under minSize takes the label of the component touching its first pixel from the left or above. */
export function enforceConnectivityRef(labels: Int32Array, w: number, h: number, minSize: number): number {
  const n = w * h;
  const out = new Int32Array(n).fill(-1);
  const queue = new Int32Array(n);
  let next = 0;
  for (let s = 0; s < n; s++) {
    if (out[s] !== -1) continue;
    const old = labels[s]!;
    const sx = s % w, sy = (s - sx) / w;
    let adj = -1;
    if (sx > 0) adj = out[s - 1]!;
    else if (sy > 0) adj = out[s - w]!;
    let head = 0, tail = 0;
    queue[tail++] = s;
    out[s] = next;
    while (head < tail) {
      const p = queue[head++]!;
      const x = p % w;
      if (x > 0 && out[p - 1] === -1 && labels[p - 1] === old) { out[p - 1] = next; queue[tail++] = p - 1; }
      if (x < w - 1 && out[p + 1] === -1 && labels[p + 1] === old) { out[p + 1] = next; queue[tail++] = p + 1; }
      if (p >= w && out[p - w] === -1 && labels[p - w] === old) { out[p - w] = next; queue[tail++] = p - w; }
      if (p + w < n && out[p + w] === -1 && labels[p + w] === old) { out[p + w] = next; queue[tail++] = p + w; }
    }
    if (tail < minSize && adj >= 0) {
      for (let i = 0; i < tail; i++) out[queue[i]!] = adj;
    } else {
      next++;
    }
  }
  labels.set(out);
  return next;
}

export interface SuperpixelStats {
  count: number;
  /** pixels per superpixel */
  size: Int32Array;
  /** mean L, a, b, x, y per superpixel (5 per superpixel) */
  mean: Float64Array;
  /** colour histogram, BINS counts per superpixel */
  hist: Int32Array;
  /** neighbours, MAX_DEGREE slots per superpixel, `degree` used */
  nbr: Int32Array;
  degree: Int32Array;
  /** per neighbour slot: shared boundary length in pixel edges, and summed |dLab| across it */
  edgeLen: Float64Array;
  edgeGrad: Float64Array;
}

export function allocStats(count: number): SuperpixelStats {
  return {
    count,
    size: new Int32Array(count),
    mean: new Float64Array(count * 5),
    hist: new Int32Array(count * BINS),
    nbr: new Int32Array(count * MAX_DEGREE),
    degree: new Int32Array(count),
    edgeLen: new Float64Array(count * MAX_DEGREE),
    edgeGrad: new Float64Array(count * MAX_DEGREE),
  };
}

function addEdge(s: SuperpixelStats, a: number, b: number, grad: number): void {
  const o = a * MAX_DEGREE, d = s.degree[a]!;
  for (let i = 0; i < d; i++) {
    if (s.nbr[o + i] === b) {
      s.edgeLen[o + i] += 1;
      s.edgeGrad[o + i] += grad;
      return;
    }
  }
  if (d < MAX_DEGREE) {
    s.nbr[o + d] = b;
    s.edgeLen[o + d] = 1;
    s.edgeGrad[o + d] = grad;
    s.degree[a] = d + 1;
  }
}

/** Sizes, means, histograms and the adjacency graph with boundary length and contrast (both directions). */
export function superpixelStatsRef(lab: Float32Array, bins: Uint16Array, labels: Int32Array, w: number, h: number, s: SuperpixelStats): void {
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = y * w + x, q = labels[p]!, o = q * 5;
      s.size[q] += 1;
      s.mean[o] += lab[p * 3]!;
      s.mean[o + 1] += lab[p * 3 + 1]!;
      s.mean[o + 2] += lab[p * 3 + 2]!;
      s.mean[o + 3] += x;
      s.mean[o + 4] += y;
      s.hist[q * BINS + bins[p]!] += 1;
      if (x + 1 < w && labels[p + 1] !== q) {
        const r = labels[p + 1]!;
        const g = Math.sqrt(sq(lab[p * 3]! - lab[p * 3 + 3]!) + sq(lab[p * 3 + 1]! - lab[p * 3 + 4]!) + sq(lab[p * 3 + 2]! - lab[p * 3 + 5]!));
        addEdge(s, q, r, g);
        addEdge(s, r, q, g);
      }
      if (y + 1 < h && labels[p + w] !== q) {
        const r = labels[p + w]!, u = (p + w) * 3;
        const g = Math.sqrt(sq(lab[p * 3]! - lab[u]!) + sq(lab[p * 3 + 1]! - lab[u + 1]!) + sq(lab[p * 3 + 2]! - lab[u + 2]!));
        addEdge(s, q, r, g);
        addEdge(s, r, q, g);
      }
    }
  }
  for (let q = 0; q < s.count; q++) {
    const z = s.size[q]!;
    if (z > 0) for (let j = 0; j < 5; j++) s.mean[q * 5 + j] /= z;
  }
}

function sq(v: number): number {
  return v * v;
}

/**
 * Minimum s-t cut (Dinic's max-flow) on n nodes: source capacity src[i], sink capacity snk[i],
 * and m undirected-pair arcs a[e] -> b[e] with capacity cab[e] and b -> a with cba[e].
 * Writes side[i] = 1 for nodes still reachable from the source in the residual graph, 0 otherwise;
 * returns the flow.
 */
export function minCutRef(n: number, src: Float64Array, snk: Float64Array, m: number, ea: Int32Array, eb: Int32Array, cab: Float64Array, cba: Float64Array, side: Uint8Array): number {
  const S = n, T = n + 1, N = n + 2;
  const arcs = 2 * (m + 2 * n);
  const head = new Int32Array(N).fill(-1);
  const nxt = new Int32Array(arcs), to = new Int32Array(arcs);
  const cap = new Float64Array(arcs);
  let na = 0;
  const add = (u: number, v: number, c1: number, c2: number) => {
    to[na] = v; cap[na] = c1; nxt[na] = head[u]!; head[u] = na++;
    to[na] = u; cap[na] = c2; nxt[na] = head[v]!; head[v] = na++;
  };
  for (let i = 0; i < n; i++) {
    if (src[i]! > 0) add(S, i, src[i]!, 0);
    if (snk[i]! > 0) add(i, T, snk[i]!, 0);
  }
  for (let e = 0; e < m; e++) add(ea[e]!, eb[e]!, cab[e]!, cba[e]!);
  const level = new Int32Array(N);
  const iter = new Int32Array(N);
  const queue = new Int32Array(N);
  const stackNode = new Int32Array(N), stackArc = new Int32Array(N);
  const EPS = 1e-9;
  let flow = 0;
  for (;;) {
    level.fill(-1);
    level[S] = 0;
    let qh = 0, qt = 0;
    queue[qt++] = S;
    while (qh < qt) {
      const u = queue[qh++]!;
      for (let a = head[u]!; a !== -1; a = nxt[a]!) {
        if (cap[a]! > EPS && level[to[a]!] === -1) {
          level[to[a]!] = level[u]! + 1;
          queue[qt++] = to[a]!;
        }
      }
    }
    if (level[T] === -1) break;
    for (let i = 0; i < N; i++) iter[i] = head[i]!;
    // Iterative DFS for blocking flow: a path of arcs from S; augment when it reaches T.
    for (;;) {
      let depth = 0;
      let u = S;
      let found = false;
      while (true) {
        if (u === T) { found = true; break; }
        let a = iter[u]!;
        while (a !== -1 && !(cap[a]! > EPS && level[to[a]!] === level[u]! + 1)) a = nxt[a]!;
        iter[u] = a;
        if (a === -1) {
          if (depth === 0) break;
          level[u] = -1; // dead end
          depth--;
          u = stackNode[depth]!;
          iter[u] = nxt[iter[u]!]!;
          continue;
        }
        stackNode[depth] = u;
        stackArc[depth] = a;
        depth++;
        u = to[a]!;
      }
      if (!found) break;
      let f = Infinity;
      for (let i = 0; i < depth; i++) f = Math.min(f, cap[stackArc[i]!]!);
      for (let i = 0; i < depth; i++) {
        const a = stackArc[i]!;
        cap[a] -= f;
        cap[a ^ 1] += f;
      }
      flow += f;
    }
  }
  // Source side: reachable from S in the residual graph.
  side.fill(0);
  const seen = new Uint8Array(N);
  let qh = 0, qt = 0;
  queue[qt++] = S;
  seen[S] = 1;
  while (qh < qt) {
    const u = queue[qh++]!;
    for (let a = head[u]!; a !== -1; a = nxt[a]!) {
      const v = to[a]!;
      if (cap[a]! > EPS && !seen[v]) {
        seen[v] = 1;
        queue[qt++] = v;
      }
    }
  }
  for (let i = 0; i < n; i++) side[i] = seen[i]!;
  return flow;
}

/**
 * Pixel-accurate boundary: pixels of superpixels flagged in `band` are decided by the box sum
 * (radius r) of the per-bin log-likelihood ratio `llr` (log P_fg - log P_bg) of their colours,
 * plus `bias` towards their superpixel's label; other pixels take their superpixel's label.
 * Writes a row-major 0/1 mask.
 */
export function refineRef(labels: Int32Array, bins: Uint16Array, w: number, h: number, spFg: Uint8Array, band: Uint8Array, llr: Float64Array, r: number, bias: number, out: Uint8Array): void {
  // Superpixel labels everywhere; the band's bounding box (grown by r) gets the box sums.
  let bx0 = w, by0 = h, bx1 = -1, by1 = -1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = y * w + x, q = labels[p]!;
      out[p] = spFg[q]!;
      if (band[q]) {
        if (x < bx0) bx0 = x;
        if (x > bx1) bx1 = x;
        if (y < by0) by0 = y;
        if (y > by1) by1 = y;
      }
    }
  }
  if (bx1 < 0) return;
  const ox = Math.max(0, bx0 - r), oy = Math.max(0, by0 - r), ex = Math.min(w, bx1 + r + 1), ey = Math.min(h, by1 + r + 1);
  const cw = ex - ox, ch = ey - oy, W1 = cw + 1;
  // Integral image of the per-pixel ratio over the box, (cw + 1) x (ch + 1).
  const integ = new Float64Array(W1 * (ch + 1));
  for (let y = 0; y < ch; y++) {
    let row = 0;
    for (let x = 0; x < cw; x++) {
      row += llr[bins[(y + oy) * w + x + ox]!]!;
      integ[(y + 1) * W1 + x + 1] = integ[y * W1 + x + 1]! + row;
    }
  }
  for (let y = by0; y <= by1; y++) {
    const y0 = Math.max(oy, y - r) - oy, y1 = Math.min(ey, y + r + 1) - oy;
    for (let x = bx0; x <= bx1; x++) {
      const p = y * w + x, q = labels[p]!;
      if (!band[q]) continue;
      const x0 = Math.max(ox, x - r) - ox, x1 = Math.min(ex, x + r + 1) - ox;
      const sum = integ[y1 * W1 + x1]! - integ[y0 * W1 + x1]! - integ[y1 * W1 + x0]! + integ[y0 * W1 + x0]!;
      const area = (x1 - x0) * (y1 - y0);
      const score = sum / area + (spFg[q] ? bias : -bias);
      out[p] = score > 0 ? 1 : 0;
    }
  }
}
