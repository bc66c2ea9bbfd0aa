// Assisted-segmentation kernels (the built-in segmenter, src/server/services/segmentation/builtin):
// sRGB -> CIELAB with colour bins, SLIC superpixels with connectivity enforcement, superpixel
// statistics (sizes, means, colour histograms, adjacency with boundary length and contrast),
// minimum s-t cut (Dinic's max-flow) and pixel-accurate boundary refinement.
//
// Each mirrors its TypeScript reference in assembly/reference/segment.ts operation for operation
// in f64, so the results agree exactly (colour conversion up to cbrt's last bit). Buffers are
// passed by pointer; layouts are documented there. Scratch memory comes from heap.alloc and is
// freed before returning.

const BINS: i32 = 512;
const MAX_DEGREE: i32 = 32;

function lf32(p: usize, i: i32): f64 {
  return <f64>load<f32>(p + (<usize>i << 2));
}
function lf64(p: usize, i: i32): f64 {
  return load<f64>(p + (<usize>i << 3));
}
function sf64(p: usize, i: i32, v: f64): void {
  store<f64>(p + (<usize>i << 3), v);
}
function li32(p: usize, i: i32): i32 {
  return load<i32>(p + (<usize>i << 2));
}
function si32(p: usize, i: i32, v: i32): void {
  store<i32>(p + (<usize>i << 2), v);
}
function lu8(p: usize, i: i32): i32 {
  return <i32>load<u8>(p + <usize>i);
}
function su8(p: usize, i: i32, v: i32): void {
  store<u8>(p + <usize>i, <u8>v);
}
function lu16(p: usize, i: i32): i32 {
  return <i32>load<u16>(p + (<usize>i << 1));
}

function allocF64(n: i32, v: f64): usize {
  const p = heap.alloc(<usize>max(n, 1) << 3);
  for (let i = 0; i < n; i++) sf64(p, i, v);
  return p;
}

function allocI32Fill(n: i32, v: i32): usize {
  const p = heap.alloc(<usize>max(n, 1) << 2);
  for (let i = 0; i < n; i++) si32(p, i, v);
  return p;
}

let srgbLut: usize = 0;

function lut(): usize {
  if (srgbLut == 0) {
    srgbLut = heap.alloc(256 << 3);
    for (let i = 0; i < 256; i++) {
      const c = <f64>i / 255;
      sf64(srgbLut, i, c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4));
    }
  }
  return srgbLut;
}

function labF(t: f64): f64 {
  return t > 0.008856451679035631 ? Math.cbrt(t) : t * 7.787037037037037 + 0.13793103448275862;
}

function clamp7(v: f64): i32 {
  const q = <i32>Math.floor(v);
  return q < 0 ? 0 : q > 7 ? 7 : q;
}

/** rgb: n pixels of `channels` bytes; lab: 3n f32 (interleaved); bins: n u16. */
export function segRgbToLab(rgb: usize, n: i32, channels: i32, lab: usize, bins: usize): void {
  const t = lut();
  for (let i = 0; i < n; i++) {
    const o = i * channels;
    const r = lf64(t, lu8(rgb, o)), g = lf64(t, lu8(rgb, o + 1)), b = lf64(t, lu8(rgb, o + 2));
    const x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
    const y = 0.2126729 * r + 0.7151522 * g + 0.072175 * b;
    const z = (0.0193339 * r + 0.119192 * g + 0.9503041 * b) / 1.08883;
    const fx = labF(x), fy = labF(y), fz = labF(z);
    const L = <f32>(116 * fy - 16), A = <f32>(500 * (fx - fy)), B = <f32>(200 * (fy - fz));
    store<f32>(lab + (<usize>(i * 3) << 2), L);
    store<f32>(lab + (<usize>(i * 3 + 1) << 2), A);
    store<f32>(lab + (<usize>(i * 3 + 2) << 2), B);
    const bin = (clamp7(<f64>L * 0.08) << 6) | (clamp7((<f64>A + 80) * 0.05) << 3) | clamp7((<f64>B + 80) * 0.05);
    store<u16>(bins + (<usize>i << 1), <u16>bin);
  }
}

/** SLIC; labels: n i32 out. Returns the number of superpixels after connectivity enforcement. */
export function segSlic(lab: usize, w: i32, h: i32, step: i32, compactness: f64, iters: i32, labels: usize): i32 {
  const n = w * h;
  const nx = max(1, (w + step - 1) / step), ny = max(1, (h + step - 1) / step);
  const k = nx * ny;
  const fstep = <f64>step;
  const c = allocF64(k * 5, 0);
  for (let j = 0; j < ny; j++) {
    for (let i = 0; i < nx; i++) {
      const x = min(w - 1, <i32>Math.floor(<f64>i * fstep + fstep / 2)), y = min(h - 1, <i32>Math.floor(<f64>j * fstep + fstep / 2));
      const p = y * w + x, o = (j * nx + i) * 5;
      sf64(c, o, lf32(lab, p * 3));
      sf64(c, o + 1, lf32(lab, p * 3 + 1));
      sf64(c, o + 2, lf32(lab, p * 3 + 2));
      sf64(c, o + 3, <f64>x);
      sf64(c, o + 4, <f64>y);
    }
  }
  const dist = allocF64(n, Infinity);
  const sums = allocF64(k * 6, 0);
  const wxy = (compactness / fstep) * (compactness / fstep);
  for (let it = 0; it < iters; it++) {
    for (let p = 0; p < n; p++) sf64(dist, p, Infinity);
    for (let q = 0; q < k; q++) {
      const o = q * 5;
      const cL = lf64(c, o), ca = lf64(c, o + 1), cb = lf64(c, o + 2), cx = lf64(c, o + 3), cy = lf64(c, o + 4);
      const x0 = max(0, <i32>Math.floor(cx - fstep)), x1 = min(w, <i32>Math.floor(cx + fstep) + 1);
      const y0 = max(0, <i32>Math.floor(cy - fstep)), y1 = min(h, <i32>Math.floor(cy + fstep) + 1);
      for (let y = y0; y < y1; y++) {
        const dy = <f64>y - cy;
        for (let x = x0; x < x1; x++) {
          const p = y * w + x;
          const dL = lf32(lab, p * 3) - cL, da = lf32(lab, p * 3 + 1) - ca, db = lf32(lab, p * 3 + 2) - cb, dx = <f64>x - cx;
          const d = dL * dL + da * da + db * db + (dx * dx + dy * dy) * wxy;
          if (d < lf64(dist, p)) {
            sf64(dist, p, d);
            si32(labels, p, q);
          }
        }
      }
    }
    for (let i = 0; i < k * 6; i++) sf64(sums, i, 0);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const p = y * w + x, o = li32(labels, p) * 6;
        sf64(sums, o, lf64(sums, o) + lf32(lab, p * 3));
        sf64(sums, o + 1, lf64(sums, o + 1) + lf32(lab, p * 3 + 1));
        sf64(sums, o + 2, lf64(sums, o + 2) + lf32(lab, p * 3 + 2));
        sf64(sums, o + 3, lf64(sums, o + 3) + <f64>x);
        sf64(sums, o + 4, lf64(sums, o + 4) + <f64>y);
        sf64(sums, o + 5, lf64(sums, o + 5) + 1);
      }
    }
    for (let q = 0; q < k; q++) {
      const s = lf64(sums, q * 6 + 5);
      if (s > 0) for (let j = 0; j < 5; j++) sf64(c, q * 5 + j, lf64(sums, q * 6 + j) / s);
    }
  }
  heap.free(c);
  heap.free(dist);
  heap.free(sums);
  return enforceConnectivity(labels, w, h, max(1, <i32>Math.floor(<f64>(step * step) / 4)));
}

function enforceConnectivity(labels: usize, w: i32, h: i32, minSize: i32): i32 {
  const n = w * h;
  const out = allocI32Fill(n, -1);
  const queue = heap.alloc(<usize>max(n, 1) << 2);
  let next = 0;
  for (let s = 0; s < n; s++) {
    if (li32(out, s) != -1) continue;
    const old = li32(labels, s);
    const sx = s % w, sy = s / w;
    let adj = -1;
    if (sx > 0) adj = li32(out, s - 1);
    else if (sy > 0) adj = li32(out, s - w);
    let head = 0, tail = 0;
    si32(queue, tail++, s);
    si32(out, s, next);
    while (head < tail) {
      const p = li32(queue, head++);
      const x = p % w;
      if (x > 0 && li32(out, p - 1) == -1 && li32(labels, p - 1) == old) { si32(out, p - 1, next); si32(queue, tail++, p - 1); }
      if (x < w - 1 && li32(out, p + 1) == -1 && li32(labels, p + 1) == old) { si32(out, p + 1, next); si32(queue, tail++, p + 1); }
      if (p >= w && li32(out, p - w) == -1 && li32(labels, p - w) == old) { si32(out, p - w, next); si32(queue, tail++, p - w); }
      if (p + w < n && li32(out, p + w) == -1 && li32(labels, p + w) == old) { si32(out, p + w, next); si32(queue, tail++, p + w); }
    }
    if (tail < minSize && adj >= 0) {
      for (let i = 0; i < tail; i++) si32(out, li32(queue, i), adj);
    } else {
      next++;
    }
  }
  memory.copy(labels, out, <usize>n << 2);
  heap.free(out);
  heap.free(queue);
  return next;
}

function addEdge(nbr: usize, degree: usize, edgeLen: usize, edgeGrad: usize, a: i32, b: i32, grad: f64): void {
  const o = a * MAX_DEGREE, d = li32(degree, a);
  for (let i = 0; i < d; i++) {
    if (li32(nbr, o + i) == b) {
      sf64(edgeLen, o + i, lf64(edgeLen, o + i) + 1);
      sf64(edgeGrad, o + i, lf64(edgeGrad, o + i) + grad);
      return;
    }
  }
  if (d < MAX_DEGREE) {
    si32(nbr, o + d, b);
    sf64(edgeLen, o + d, 1);
    sf64(edgeGrad, o + d, grad);
    si32(degree, a, d + 1);
  }
}

function sq(v: f64): f64 {
  return v * v;
}

/**
 * Outputs (zeroed here): size (count i32), mean (5 count f64), hist (BINS count i32),
 * nbr (MAX_DEGREE count i32), degree (count i32), edgeLen and edgeGrad (MAX_DEGREE count f64).
 */
export function segStats(
  lab: usize, bins: usize, labels: usize, w: i32, h: i32, count: i32,
  size: usize, mean: usize, hist: usize, nbr: usize, degree: usize, edgeLen: usize, edgeGrad: usize,
): void {
  memory.fill(size, 0, <usize>count << 2);
  memory.fill(mean, 0, <usize>(count * 5) << 3);
  memory.fill(hist, 0, <usize>(count * BINS) << 2);
  memory.fill(nbr, 0, <usize>(count * MAX_DEGREE) << 2);
  memory.fill(degree, 0, <usize>count << 2);
  memory.fill(edgeLen, 0, <usize>(count * MAX_DEGREE) << 3);
  memory.fill(edgeGrad, 0, <usize>(count * MAX_DEGREE) << 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = y * w + x, q = li32(labels, p), o = q * 5;
      si32(size, q, li32(size, q) + 1);
      sf64(mean, o, lf64(mean, o) + lf32(lab, p * 3));
      sf64(mean, o + 1, lf64(mean, o + 1) + lf32(lab, p * 3 + 1));
      sf64(mean, o + 2, lf64(mean, o + 2) + lf32(lab, p * 3 + 2));
      sf64(mean, o + 3, lf64(mean, o + 3) + <f64>x);
      sf64(mean, o + 4, lf64(mean, o + 4) + <f64>y);
      const hb = q * BINS + lu16(bins, p);
      si32(hist, hb, li32(hist, hb) + 1);
      if (x + 1 < w && li32(labels, p + 1) != q) {
        const r = li32(labels, p + 1);
        const g = Math.sqrt(sq(lf32(lab, p * 3) - lf32(lab, p * 3 + 3)) + sq(lf32(lab, p * 3 + 1) - lf32(lab, p * 3 + 4)) + sq(lf32(lab, p * 3 + 2) - lf32(lab, p * 3 + 5)));
        addEdge(nbr, degree, edgeLen, edgeGrad, q, r, g);
        addEdge(nbr, degree, edgeLen, edgeGrad, r, q, g);
      }
      if (y + 1 < h && li32(labels, p + w) != q) {
        const r = li32(labels, p + w), u = (p + w) * 3;
        const g = Math.sqrt(sq(lf32(lab, p * 3) - lf32(lab, u)) + sq(lf32(lab, p * 3 + 1) - lf32(lab, u + 1)) + sq(lf32(lab, p * 3 + 2) - lf32(lab, u + 2)));
        addEdge(nbr, degree, edgeLen, edgeGrad, q, r, g);
        addEdge(nbr, degree, edgeLen, edgeGrad, r, q, g);
      }
    }
  }
  for (let q = 0; q < count; q++) {
    const z = li32(size, q);
    if (z > 0) for (let j = 0; j < 5; j++) sf64(mean, q * 5 + j, lf64(mean, q * 5 + j) / <f64>z);
  }
}

/**
 * Minimum s-t cut by Dinic's max-flow. src/snk: n f64 terminal capacities; m arcs ea[e] -> eb[e]
 * with capacity cab[e] and back cba[e]. side: n bytes out, 1 = reachable from the source.
 */
export function segMinCut(n: i32, src: usize, snk: usize, m: i32, ea: usize, eb: usize, cab: usize, cba: usize, side: usize): f64 {
  const S = n, T = n + 1, N = n + 2;
  const arcs = 2 * (m + 2 * n);
  const head = allocI32Fill(N, -1);
  const nxt = allocI32Fill(arcs, 0), to = allocI32Fill(arcs, 0);
  const cap = allocF64(arcs, 0);
  let na = 0;
  for (let i = 0; i < n + m; i++) {
    // Terminal arcs first (as the reference adds them), then the pair arcs.
    let u: i32, v: i32, c1: f64, c2: f64;
    if (i < n) {
      if (lf64(src, i) > 0) {
        u = S; v = i; c1 = lf64(src, i); c2 = 0;
        si32(to, na, v); sf64(cap, na, c1); si32(nxt, na, li32(head, u)); si32(head, u, na); na++;
        si32(to, na, u); sf64(cap, na, c2); si32(nxt, na, li32(head, v)); si32(head, v, na); na++;
      }
      if (lf64(snk, i) > 0) {
        u = i; v = T; c1 = lf64(snk, i); c2 = 0;
        si32(to, na, v); sf64(cap, na, c1); si32(nxt, na, li32(head, u)); si32(head, u, na); na++;
        si32(to, na, u); sf64(cap, na, c2); si32(nxt, na, li32(head, v)); si32(head, v, na); na++;
      }
      continue;
    }
    const e = i - n;
    u = li32(ea, e); v = li32(eb, e); c1 = lf64(cab, e); c2 = lf64(cba, e);
    si32(to, na, v); sf64(cap, na, c1); si32(nxt, na, li32(head, u)); si32(head, u, na); na++;
    si32(to, na, u); sf64(cap, na, c2); si32(nxt, na, li32(head, v)); si32(head, v, na); na++;
  }
  const level = allocI32Fill(N, -1);
  const iter = allocI32Fill(N, 0);
  const queue = allocI32Fill(N, 0);
  const stackNode = allocI32Fill(N, 0), stackArc = allocI32Fill(N, 0);
  const EPS: f64 = 1e-9;
  let flow: f64 = 0;
  while (true) {
    for (let i = 0; i < N; i++) si32(level, i, -1);
    si32(level, S, 0);
    let qh = 0, qt = 0;
    si32(queue, qt++, S);
    while (qh < qt) {
      const u = li32(queue, qh++);
      for (let a = li32(head, u); a != -1; a = li32(nxt, a)) {
        const v = li32(to, a);
        if (lf64(cap, a) > EPS && li32(level, v) == -1) {
          si32(level, v, li32(level, u) + 1);
          si32(queue, qt++, v);
        }
      }
    }
    if (li32(level, T) == -1) break;
    for (let i = 0; i < N; i++) si32(iter, i, li32(head, i));
    while (true) {
      let depth = 0;
      let u = S;
      let found = false;
      while (true) {
        if (u == T) { found = true; break; }
        let a = li32(iter, u);
        while (a != -1 && !(lf64(cap, a) > EPS && li32(level, li32(to, a)) == li32(level, u) + 1)) a = li32(nxt, a);
        si32(iter, u, a);
        if (a == -1) {
          if (depth == 0) break;
          si32(level, u, -1);
          depth--;
          u = li32(stackNode, depth);
          si32(iter, u, li32(nxt, li32(iter, u)));
          continue;
        }
        si32(stackNode, depth, u);
        si32(stackArc, depth, a);
        depth++;
        u = li32(to, a);
      }
      if (!found) break;
      let f: f64 = Infinity;
      for (let i = 0; i < depth; i++) f = Math.min(f, lf64(cap, li32(stackArc, i)));
      for (let i = 0; i < depth; i++) {
        const a = li32(stackArc, i);
        sf64(cap, a, lf64(cap, a) - f);
        sf64(cap, a ^ 1, lf64(cap, a ^ 1) + f);
      }
      flow += f;
    }
  }
  const seen = heap.alloc(<usize>N);
  memory.fill(seen, 0, <usize>N);
  let qh = 0, qt = 0;
  si32(queue, qt++, S);
  su8(seen, S, 1);
  while (qh < qt) {
    const u = li32(queue, qh++);
    for (let a = li32(head, u); a != -1; a = li32(nxt, a)) {
      const v = li32(to, a);
      if (lf64(cap, a) > EPS && lu8(seen, v) == 0) {
        su8(seen, v, 1);
        si32(queue, qt++, v);
      }
    }
  }
  for (let i = 0; i < n; i++) su8(side, i, lu8(seen, i));
  heap.free(seen);
  heap.free(head);
  heap.free(nxt);
  heap.free(to);
  heap.free(cap);
  heap.free(level);
  heap.free(iter);
  heap.free(queue);
  heap.free(stackNode);
  heap.free(stackArc);
  return flow;
}

/** Boundary refinement: see refineRef. out: w*h bytes (row-major 0/1). */
export function segRefine(labels: usize, bins: usize, w: i32, h: i32, spFg: usize, band: usize, llr: usize, r: i32, bias: f64, out: usize): void {
  let bx0 = w, by0 = h, bx1 = -1, by1 = -1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = y * w + x, q = li32(labels, p);
      su8(out, p, lu8(spFg, q));
      if (lu8(band, q) != 0) {
        if (x < bx0) bx0 = x;
        if (x > bx1) bx1 = x;
        if (y < by0) by0 = y;
        if (y > by1) by1 = y;
      }
    }
  }
  if (bx1 < 0) return;
  const ox = max(0, bx0 - r), oy = max(0, by0 - r), ex = min(w, bx1 + r + 1), ey = min(h, by1 + r + 1);
  const cw = ex - ox, ch = ey - oy, W1 = cw + 1;
  const integ = allocF64(W1 * (ch + 1), 0);
  for (let y = 0; y < ch; y++) {
    let row: f64 = 0;
    for (let x = 0; x < cw; x++) {
      row += lf64(llr, lu16(bins, (y + oy) * w + x + ox));
      sf64(integ, (y + 1) * W1 + x + 1, lf64(integ, y * W1 + x + 1) + row);
    }
  }
  for (let y = by0; y <= by1; y++) {
    const y0 = max(oy, y - r) - oy, y1 = min(ey, y + r + 1) - oy;
    for (let x = bx0; x <= bx1; x++) {
      const p = y * w + x, q = li32(labels, p);
      if (lu8(band, q) == 0) continue;
      const x0 = max(ox, x - r) - ox, x1 = min(ex, x + r + 1) - ox;
      const sum = lf64(integ, y1 * W1 + x1) - lf64(integ, y0 * W1 + x1) - lf64(integ, y1 * W1 + x0) + lf64(integ, y0 * W1 + x0);
      const area = <f64>((x1 - x0) * (y1 - y0));
      const score = sum / area + (lu8(spFg, q) != 0 ? bias : -bias);
      su8(out, p, score > 0 ? 1 : 0);
    }
  }
  heap.free(integ);
}
