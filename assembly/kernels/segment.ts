// Assisted-segmentation kernels (the built-in segmenter, src/server/services/segmentation/builtin):
// sRGB -> CIELAB with colour bins, SLIC superpixels with connectivity enforcement, superpixel
// statistics (sizes, means, colour histograms, adjacency with boundary length and contrast),
// minimum s-t cut (Boykov-Kolmogorov max-flow) and pixel-accurate boundary refinement.
//
// Each mirrors its TypeScript reference in assembly/reference/segment.ts operation for operation
// in f64, so the results agree exactly (colour conversion up to cbrt's last bit); the min cut
// instead runs a faster max-flow than its reference (Dinic's) and finds the same cut. Buffers are
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

// Boykov-Kolmogorov max-flow (as in Kolmogorov's maxflow 3.01): search trees grown from the source
// and the sink and reused between augmentations, which on image graphs (short paths, many of them)
// is several times faster than Dinic's phases. Node parent values besides arc ids:
const BK_NONE: i32 = -1; // free
const BK_TERMINAL: i32 = -2; // a root, tied to its terminal
const BK_ORPHAN: i32 = -3; // lost its parent during an augmentation
const BK_EPS: f64 = 1e-9; // residual capacities at or below this count as saturated, as in the reference

// The state of one segMinCut call, shared by its phases (build the arcs, seed the trees, grow,
// augment, adopt) as module globals: the kernels create no managed objects. Arc 2e runs
// ea[e] -> eb[e], arc 2e + 1 back (its sister is a ^ 1); arcs are grouped per tail node
// (bkOut[bkFirst[i] .. bkFirst[i + 1]]).
let bkN: i32 = 0;
let bkFirst: usize = 0;
let bkOut: usize = 0;
let bkHeadOf: usize = 0;
let bkRcap: usize = 0;
// Terminal residual: > 0 towards the source, < 0 towards the sink.
let bkTr: usize = 0;
let bkParent: usize = 0;
let bkTs: usize = 0;
let bkDist: usize = 0;
let bkIsSink: usize = 0;
let bkQueued: usize = 0;
// Active nodes: a ring of at most n (a node is queued once); orphans: a ring too.
let bkActive: usize = 0;
let bkOrphans: usize = 0;
let bkAHead: i32 = 0;
let bkALen: i32 = 0;
let bkOHead: i32 = 0;
let bkOLen: i32 = 0;
let bkTime: i32 = 0;

/** The residual graph's arcs: bkFirst, bkOut, bkHeadOf and bkRcap from the m input edges. */
function bkBuildArcs(n: i32, m: i32, ea: usize, eb: usize, cab: usize, cba: usize): void {
  const na = 2 * m;
  const first = allocI32Fill(n + 1, 0);
  for (let e = 0; e < m; e++) {
    si32(first, li32(ea, e) + 1, li32(first, li32(ea, e) + 1) + 1);
    si32(first, li32(eb, e) + 1, li32(first, li32(eb, e) + 1) + 1);
  }
  for (let i = 0; i < n; i++) si32(first, i + 1, li32(first, i + 1) + li32(first, i));
  const fill = allocI32Fill(n, 0), out = allocI32Fill(na, 0), headOf = allocI32Fill(na, 0);
  const rcap = allocF64(na, 0);
  for (let e = 0; e < m; e++) {
    const a = li32(ea, e), b = li32(eb, e);
    si32(out, li32(first, a) + li32(fill, a), 2 * e);
    si32(fill, a, li32(fill, a) + 1);
    si32(out, li32(first, b) + li32(fill, b), 2 * e + 1);
    si32(fill, b, li32(fill, b) + 1);
    si32(headOf, 2 * e, b);
    si32(headOf, 2 * e + 1, a);
    sf64(rcap, 2 * e, lf64(cab, e));
    sf64(rcap, 2 * e + 1, lf64(cba, e));
  }
  heap.free(fill);
  bkFirst = first;
  bkOut = out;
  bkHeadOf = headOf;
  bkRcap = rcap;
}

function bkPushActive(j: i32): void {
  si32(bkActive, (bkAHead + bkALen) % bkN, j);
  bkALen++;
  su8(bkQueued, j, 1);
}

function bkPushOrphan(k: i32): void {
  si32(bkParent, k, BK_ORPHAN);
  si32(bkOrphans, (bkOHead + bkOLen) % bkN, k);
  bkOLen++;
}

/**
 * The node state, with every node tied to a terminal as an active root. What a node's source
 * and sink capacities share flows at once: returns that flow.
 */
function bkSeedTrees(n: i32, src: usize, snk: usize): f64 {
  bkN = n;
  bkTr = allocF64(n, 0);
  bkParent = allocI32Fill(n, BK_NONE);
  bkTs = allocI32Fill(n, 0);
  bkDist = allocI32Fill(n, 0);
  bkIsSink = heap.alloc(<usize>max(n, 1));
  bkQueued = heap.alloc(<usize>max(n, 1));
  memory.fill(bkIsSink, 0, <usize>max(n, 1));
  memory.fill(bkQueued, 0, <usize>max(n, 1));
  bkActive = allocI32Fill(n, 0);
  bkOrphans = allocI32Fill(n, 0);
  bkAHead = 0;
  bkALen = 0;
  bkOHead = 0;
  bkOLen = 0;
  bkTime = 0;
  let flow: f64 = 0;
  for (let i = 0; i < n; i++) {
    const s = lf64(src, i), t = lf64(snk, i);
    flow += min(s, t);
    const r = s - t;
    sf64(bkTr, i, r);
    if (r > BK_EPS || r < -BK_EPS) {
      su8(bkIsSink, i, r < 0 ? 1 : 0);
      si32(bkParent, i, BK_TERMINAL);
      si32(bkDist, i, 1);
      bkPushActive(i);
    }
  }
  return flow;
}

/** The node to grow from: `current` (the one just augmented through) while it still has a parent, else the next active one; -1 when none is left. */
function bkNextActive(current: i32): i32 {
  let i = -1;
  if (current >= 0) {
    su8(bkQueued, current, 0);
    if (li32(bkParent, current) != BK_NONE) i = current;
  }
  while (i < 0 && bkALen > 0) {
    const k = li32(bkActive, bkAHead);
    bkAHead = (bkAHead + 1) % bkN;
    bkALen--;
    su8(bkQueued, k, 0);
    if (li32(bkParent, k) != BK_NONE) i = k;
  }
  return i;
}

/** Grows i's tree over its unsaturated arcs; the first arc to the other tree closes a path: returns it (from the source tree to the sink tree), or -1. */
function bkGrow(i: i32): i32 {
  const parent = bkParent, ts = bkTs, dist = bkDist, isSink = bkIsSink, rcap = bkRcap, headOf = bkHeadOf;
  const sinkSide = lu8(isSink, i);
  for (let k = li32(bkFirst, i), end = li32(bkFirst, i + 1); k < end; k++) {
    const a = li32(bkOut, k);
    if ((sinkSide ? lf64(rcap, a ^ 1) : lf64(rcap, a)) <= BK_EPS) continue;
    const j = li32(headOf, a);
    const pj = li32(parent, j);
    if (pj == BK_NONE) {
      su8(isSink, j, sinkSide);
      si32(parent, j, a ^ 1);
      si32(ts, j, li32(ts, i));
      si32(dist, j, li32(dist, i) + 1);
      if (!lu8(bkQueued, j)) bkPushActive(j);
    } else if (lu8(isSink, j) != sinkSide) {
      return sinkSide ? a ^ 1 : a;
    } else if (li32(ts, j) <= li32(ts, i) && li32(dist, j) > li32(dist, i)) {
      // a shorter way to the terminal
      si32(parent, j, a ^ 1);
      si32(ts, j, li32(ts, i));
      si32(dist, j, li32(dist, i) + 1);
    }
  }
  return -1;
}

/** Pushes the bottleneck along source root ... tail(mid) -> head(mid) ... sink root; saturated nodes become orphans. Returns the flow pushed. */
function bkAugment(mid: i32): f64 {
  const parent = bkParent, rcap = bkRcap, headOf = bkHeadOf, tr = bkTr;
  let b = lf64(rcap, mid);
  let k = li32(headOf, mid ^ 1);
  while (li32(parent, k) != BK_TERMINAL) {
    const pa = li32(parent, k);
    b = min(b, lf64(rcap, pa ^ 1));
    k = li32(headOf, pa);
  }
  b = min(b, lf64(tr, k));
  k = li32(headOf, mid);
  while (li32(parent, k) != BK_TERMINAL) {
    const pa = li32(parent, k);
    b = min(b, lf64(rcap, pa));
    k = li32(headOf, pa);
  }
  b = min(b, -lf64(tr, k));
  sf64(rcap, mid, lf64(rcap, mid) - b);
  sf64(rcap, mid ^ 1, lf64(rcap, mid ^ 1) + b);
  k = li32(headOf, mid ^ 1);
  while (true) {
    const pa = li32(parent, k);
    if (pa == BK_TERMINAL) {
      sf64(tr, k, lf64(tr, k) - b);
      if (lf64(tr, k) <= BK_EPS) bkPushOrphan(k);
      break;
    }
    sf64(rcap, pa, lf64(rcap, pa) + b);
    sf64(rcap, pa ^ 1, lf64(rcap, pa ^ 1) - b);
    if (lf64(rcap, pa ^ 1) <= BK_EPS) bkPushOrphan(k);
    k = li32(headOf, pa);
  }
  k = li32(headOf, mid);
  while (true) {
    const pa = li32(parent, k);
    if (pa == BK_TERMINAL) {
      sf64(tr, k, lf64(tr, k) + b);
      if (-lf64(tr, k) <= BK_EPS) bkPushOrphan(k);
      break;
    }
    sf64(rcap, pa ^ 1, lf64(rcap, pa ^ 1) + b);
    sf64(rcap, pa, lf64(rcap, pa) - b);
    if (lf64(rcap, pa) <= BK_EPS) bkPushOrphan(k);
    k = li32(headOf, pa);
  }
  return b;
}

/** j's distance to its terminal (i32.MAX_VALUE when its path meets an orphan), stamping the root it reaches with this round's time. */
function bkTerminalDistance(j: i32): i32 {
  let d: i32 = 0;
  let x = j;
  while (true) {
    if (li32(bkTs, x) == bkTime) return d + li32(bkDist, x);
    const px = li32(bkParent, x);
    d++;
    if (px == BK_TERMINAL) {
      si32(bkTs, x, bkTime);
      si32(bkDist, x, 1);
      return d;
    }
    if (px == BK_ORPHAN) return i32.MAX_VALUE;
    x = li32(bkHeadOf, px);
  }
}

/** Orphan o takes the neighbour of its tree still tied to the terminal (the nearest) as its parent; false when it has none. */
function bkAdopt(o: i32): bool {
  const oSink = lu8(bkIsSink, o);
  let best = -1, dmin: i32 = i32.MAX_VALUE;
  for (let q = li32(bkFirst, o), end = li32(bkFirst, o + 1); q < end; q++) {
    const a = li32(bkOut, q);
    if ((oSink ? lf64(bkRcap, a) : lf64(bkRcap, a ^ 1)) <= BK_EPS) continue;
    const j = li32(bkHeadOf, a);
    if (lu8(bkIsSink, j) != oSink || li32(bkParent, j) == BK_NONE) continue;
    let d = bkTerminalDistance(j);
    if (d == i32.MAX_VALUE) continue;
    if (d < dmin) {
      best = a;
      dmin = d;
    }
    // Mark the path so later orphans stop early.
    for (let x = j; li32(bkTs, x) != bkTime; x = li32(bkHeadOf, li32(bkParent, x))) {
      si32(bkTs, x, bkTime);
      si32(bkDist, x, d--);
    }
  }
  if (best < 0) return false;
  si32(bkParent, o, best);
  si32(bkTs, o, bkTime);
  si32(bkDist, o, dmin + 1);
  return true;
}

/** Orphan o leaves its tree: its tree neighbours that could reach it become active; its children become orphans. */
function bkFree(o: i32): void {
  const oSink = lu8(bkIsSink, o);
  for (let q = li32(bkFirst, o), end = li32(bkFirst, o + 1); q < end; q++) {
    const a = li32(bkOut, q);
    const j = li32(bkHeadOf, a);
    const pj = li32(bkParent, j);
    if (lu8(bkIsSink, j) != oSink || pj == BK_NONE) continue;
    if ((oSink ? lf64(bkRcap, a) : lf64(bkRcap, a ^ 1)) > BK_EPS && !lu8(bkQueued, j)) bkPushActive(j);
    if (pj != BK_TERMINAL && pj != BK_ORPHAN && li32(bkHeadOf, pj) == o) bkPushOrphan(j);
  }
  si32(bkParent, o, BK_NONE);
}

function bkAdoptOrphans(): void {
  while (bkOLen > 0) {
    const o = li32(bkOrphans, bkOHead);
    bkOHead = (bkOHead + 1) % bkN;
    bkOLen--;
    if (!bkAdopt(o)) bkFree(o);
  }
}

function bkFreeAll(): void {
  heap.free(bkFirst);
  heap.free(bkOut);
  heap.free(bkHeadOf);
  heap.free(bkRcap);
  heap.free(bkTr);
  heap.free(bkParent);
  heap.free(bkTs);
  heap.free(bkDist);
  heap.free(bkIsSink);
  heap.free(bkQueued);
  heap.free(bkActive);
  heap.free(bkOrphans);
}

/**
 * Minimum s-t cut. src/snk: n f64 terminal capacities; m arcs ea[e] -> eb[e] with capacity cab[e]
 * and back cba[e]. side: n bytes out, 1 = reachable from the source in the residual graph. The
 * cut (side) is the reference's (minCutRef, Dinic's) exactly; the flow equals it up to rounding.
 */
export function segMinCut(n: i32, src: usize, snk: usize, m: i32, ea: usize, eb: usize, cab: usize, cba: usize, side: usize): f64 {
  if (n <= 0) return 0;
  bkBuildArcs(n, m, ea, eb, cab, cba);
  let flow = bkSeedTrees(n, src, snk);
  let current = -1;
  while (true) {
    const i = bkNextActive(current);
    current = -1;
    if (i < 0) break;
    const mid = bkGrow(i);
    bkTime++;
    if (mid < 0) continue;
    su8(bkQueued, i, 1); // i stays the current node: not queued again meanwhile
    current = i;
    flow += bkAugment(mid);
    bkAdoptOrphans();
  }
  for (let i = 0; i < n; i++) su8(side, i, li32(bkParent, i) != BK_NONE && !lu8(bkIsSink, i) ? 1 : 0);
  bkFreeAll();
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
