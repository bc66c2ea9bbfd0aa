// Gaussian mixture colour models in CIELAB (GrabCut's model), fitted to grouped data: each data
// point is a group of pixels (here a histogram bin) given by its weight, mean colour and colour
// covariance. A mixture of a few components generalises where a histogram does not: a colour that
// one side holds little of still counts for it when it lies near that side's main colours.
import { BINS } from '../../../../../assembly/reference/segment';

/** K components: weight, mean (3), inverse covariance (9) and log normaliser per component. */
export interface Gmm {
  k: number;
  pi: Float64Array;
  mu: Float64Array;
  inv: Float64Array;
  /** -0.5 log det(2 pi Sigma) */
  norm: Float64Array;
}

/** Grouped colour data: n groups, mean Lab (3 per group) and covariance (xx xy xz yy yz zz, 6 per group). */
export interface ColourGroups {
  n: number;
  mean: Float64Array;
  cov: Float64Array;
}

/**
 * The segmenter's 512 colour bins as groups: each bin's centre and the spread of a uniform fill
 * (the bins of segRgbToLab: L in steps of 12.5, a and b in steps of 20 from -80).
 */
export const LAB_BINS: ColourGroups = (() => {
  const mean = new Float64Array(BINS * 3), cov = new Float64Array(BINS * 6);
  for (let b = 0; b < BINS; b++) {
    mean[b * 3] = ((b >> 6) + 0.5) * 12.5;
    mean[b * 3 + 1] = (((b >> 3) & 7) + 0.5) * 20 - 80;
    mean[b * 3 + 2] = ((b & 7) + 0.5) * 20 - 80;
    cov[b * 6] = 12.5 ** 2 / 12;
    cov[b * 6 + 3] = 20 ** 2 / 12;
    cov[b * 6 + 5] = 20 ** 2 / 12;
  }
  return { n: BINS, mean, cov };
})();

const LOG_2PI = Math.log(2 * Math.PI);
/** Variance added to every component: keeps a component over a flat patch from collapsing. */
const FLOOR = 4;
/** k-means iterations before EM */
const LLOYD = 5;

/**
 * Fits a K-component full-covariance mixture to the groups weighted by `weight` (pixels), by EM
 * from a k-means start (or from `start`, the previous round's model). Null when there is no weight.
 */
export function fitGmm(g: ColourGroups, weight: Float64Array, k: number, iterations: number, start: Gmm | null = null): Gmm | null {
  const used: number[] = [];
  let total = 0;
  for (let i = 0; i < g.n; i++) if (weight[i]! > 0) { used.push(i); total += weight[i]!; }
  if (total <= 0) return null;
  let model = start && start.k === Math.min(k, used.length) ? start : initial(g, weight, used, Math.min(k, used.length));
  const kk = model.k;
  const resp = new Float64Array(kk);
  for (let it = 0; it < iterations; it++) {
    const acc = new Float64Array(kk * 10); // weight, sum x (3), sum xx^T (6)
    for (const i of used) {
      shares(model, g, i, resp);
      const wi = weight[i]!;
      const m0 = g.mean[i * 3]!, m1 = g.mean[i * 3 + 1]!, m2 = g.mean[i * 3 + 2]!;
      const c = i * 6;
      for (let j = 0; j < kk; j++) {
        const r = resp[j]! * wi;
        if (r === 0) continue;
        const o = j * 10;
        acc[o] += r;
        acc[o + 1] += r * m0; acc[o + 2] += r * m1; acc[o + 3] += r * m2;
        acc[o + 4] += r * (m0 * m0 + g.cov[c]!); acc[o + 5] += r * (m0 * m1 + g.cov[c + 1]!); acc[o + 6] += r * (m0 * m2 + g.cov[c + 2]!);
        acc[o + 7] += r * (m1 * m1 + g.cov[c + 3]!); acc[o + 8] += r * (m1 * m2 + g.cov[c + 4]!); acc[o + 9] += r * (m2 * m2 + g.cov[c + 5]!);
      }
    }
    const pi = new Float64Array(kk), mu = new Float64Array(kk * 3), cov = new Float64Array(kk * 6);
    for (let j = 0; j < kk; j++) {
      const o = j * 10, wj = acc[o]!;
      if (wj <= total * 1e-6) {
        // An emptied component keeps its place with no weight.
        pi[j] = 0;
        mu.set(model.mu.subarray(j * 3, j * 3 + 3), j * 3);
        cov.set([100, 0, 0, 100, 0, 100], j * 6);
        continue;
      }
      pi[j] = wj / total;
      const a = acc[o + 1]! / wj, b = acc[o + 2]! / wj, c = acc[o + 3]! / wj;
      mu[j * 3] = a; mu[j * 3 + 1] = b; mu[j * 3 + 2] = c;
      cov[j * 6] = acc[o + 4]! / wj - a * a + FLOOR;
      cov[j * 6 + 1] = acc[o + 5]! / wj - a * b;
      cov[j * 6 + 2] = acc[o + 6]! / wj - a * c;
      cov[j * 6 + 3] = acc[o + 7]! / wj - b * b + FLOOR;
      cov[j * 6 + 4] = acc[o + 8]! / wj - b * c;
      cov[j * 6 + 5] = acc[o + 9]! / wj - c * c + FLOOR;
    }
    model = build(kk, pi, mu, cov);
  }
  return model;
}

/**
 * Expected -log density of each group's pixels under the mixture (into `out`; only the groups in
 * `only` when given): each component's Gaussian log density at the group's mean less half the trace
 * of its inverse covariance times the group's covariance, combined by log-sum-exp.
 */
export function groupNll(model: Gmm, g: ColourGroups, out: Float64Array, only?: ArrayLike<number>): Float64Array {
  const lp = new Float64Array(model.k);
  if (only) for (let k = 0; k < only.length; k++) out[only[k]!] = -shares(model, g, only[k]!, lp);
  else for (let i = 0; i < g.n; i++) out[i] = -shares(model, g, i, lp);
  return out;
}

/** Group i's share in each component (into `out`); returns its expected log density under the mixture. */
function shares(model: Gmm, g: ColourGroups, i: number, out: Float64Array): number {
  let mx = -Infinity;
  for (let j = 0; j < model.k; j++) {
    out[j] = model.pi[j]! > 0 ? Math.log(model.pi[j]!) + logDensity(model, j, g, i) : -Infinity;
    if (out[j]! > mx) mx = out[j]!;
  }
  let s = 0;
  for (let j = 0; j < model.k; j++) s += (out[j] = Math.exp(out[j]! - mx));
  for (let j = 0; j < model.k; j++) out[j] = out[j]! / s;
  return mx + Math.log(s);
}

function logDensity(model: Gmm, j: number, g: ColourGroups, i: number): number {
  const d0 = g.mean[i * 3]! - model.mu[j * 3]!, d1 = g.mean[i * 3 + 1]! - model.mu[j * 3 + 1]!, d2 = g.mean[i * 3 + 2]! - model.mu[j * 3 + 2]!;
  const v = model.inv, o = j * 9, c = i * 6, cv = g.cov;
  const q = v[o]! * d0 * d0 + v[o + 4]! * d1 * d1 + v[o + 8]! * d2 * d2 + 2 * (v[o + 1]! * d0 * d1 + v[o + 2]! * d0 * d2 + v[o + 5]! * d1 * d2);
  // tr(inv * C), C symmetric
  const tr = v[o]! * cv[c]! + v[o + 4]! * cv[c + 3]! + v[o + 8]! * cv[c + 5]! + 2 * (v[o + 1]! * cv[c + 1]! + v[o + 2]! * cv[c + 2]! + v[o + 5]! * cv[c + 4]!);
  return model.norm[j]! - 0.5 * (q + tr);
}

function initial(g: ColourGroups, weight: Float64Array, used: number[], k: number): Gmm {
  // k-means++ seeding made deterministic (the heaviest group, then the group farthest from those
  // chosen, weighted by the square root of its weight), then Lloyd iterations, as GrabCut starts its mixtures.
  let first = used[0]!;
  for (const i of used) if (weight[i]! > weight[first]!) first = i;
  const chosen = [first];
  const d2min = new Float64Array(g.n).fill(Infinity);
  while (chosen.length < k) {
    const last = chosen[chosen.length - 1]!;
    let best = -1, bestScore = -1;
    for (const i of used) {
      let d = 0;
      for (let c = 0; c < 3; c++) d += (g.mean[i * 3 + c]! - g.mean[last * 3 + c]!) ** 2;
      if (d < d2min[i]!) d2min[i] = d;
      const score = d2min[i]! * Math.sqrt(weight[i]!);
      if (score > bestScore) { bestScore = score; best = i; }
    }
    chosen.push(best);
  }
  const mu = new Float64Array(k * 3);
  for (let j = 0; j < k; j++) for (let c = 0; c < 3; c++) mu[j * 3 + c] = g.mean[chosen[j]! * 3 + c]!;
  const assign = new Int32Array(g.n);
  for (let it = 0; it <= LLOYD; it++) {
    const acc = new Float64Array(k * 4);
    for (const i of used) {
      let bj = 0, bd = Infinity;
      for (let j = 0; j < k; j++) {
        let d = 0;
        for (let c = 0; c < 3; c++) d += (g.mean[i * 3 + c]! - mu[j * 3 + c]!) ** 2;
        if (d < bd) { bd = d; bj = j; }
      }
      assign[i] = bj;
      const w = weight[i]!;
      acc[bj * 4] += w;
      for (let c = 0; c < 3; c++) acc[bj * 4 + 1 + c] += w * g.mean[i * 3 + c]!;
    }
    if (it === LLOYD) break;
    for (let j = 0; j < k; j++) if (acc[j * 4]! > 0) for (let c = 0; c < 3; c++) mu[j * 3 + c] = acc[j * 4 + 1 + c]! / acc[j * 4]!;
  }
  // Each cluster's weight, mean and covariance (its groups' spread plus their own).
  const pi = new Float64Array(k), cov = new Float64Array(k * 6), wsum = new Float64Array(k);
  let total = 0;
  for (const i of used) {
    const j = assign[i]!, w = weight[i]!;
    wsum[j] += w;
    total += w;
    const d0 = g.mean[i * 3]! - mu[j * 3]!, d1 = g.mean[i * 3 + 1]! - mu[j * 3 + 1]!, d2 = g.mean[i * 3 + 2]! - mu[j * 3 + 2]!;
    const o = j * 6, c = i * 6;
    cov[o] += w * (d0 * d0 + g.cov[c]!); cov[o + 1] += w * (d0 * d1 + g.cov[c + 1]!); cov[o + 2] += w * (d0 * d2 + g.cov[c + 2]!);
    cov[o + 3] += w * (d1 * d1 + g.cov[c + 3]!); cov[o + 4] += w * (d1 * d2 + g.cov[c + 4]!); cov[o + 5] += w * (d2 * d2 + g.cov[c + 5]!);
  }
  for (let j = 0; j < k; j++) {
    pi[j] = total > 0 ? wsum[j]! / total : 0;
    if (wsum[j]! > 0) for (let c = 0; c < 6; c++) cov[j * 6 + c] = cov[j * 6 + c]! / wsum[j]!;
    else cov.set([100, 0, 0, 100, 0, 100], j * 6);
    cov[j * 6] += FLOOR;
    cov[j * 6 + 3] += FLOOR;
    cov[j * 6 + 5] += FLOOR;
  }
  return build(k, pi, mu, cov);
}

function build(k: number, pi: Float64Array, mu: Float64Array, cov: Float64Array): Gmm {
  const inv = new Float64Array(k * 9), norm = new Float64Array(k);
  for (let j = 0; j < k; j++) {
    const c = j * 6;
    const a = cov[c]!, b = cov[c + 1]!, cc = cov[c + 2]!, d = cov[c + 3]!, e = cov[c + 4]!, f = cov[c + 5]!;
    const A = d * f - e * e, B = cc * e - b * f, C = b * e - cc * d;
    let det = a * A + b * B + cc * C;
    if (!(det > 1e-6)) det = 1e-6;
    const o = j * 9;
    inv[o] = A / det; inv[o + 1] = B / det; inv[o + 2] = C / det;
    inv[o + 3] = B / det; inv[o + 4] = (a * f - cc * cc) / det; inv[o + 5] = (b * cc - a * e) / det;
    inv[o + 6] = C / det; inv[o + 7] = inv[o + 5]!; inv[o + 8] = (a * d - b * b) / det;
    norm[j] = -0.5 * (3 * LOG_2PI + Math.log(det));
  }
  return { k, pi, mu, inv, norm };
}
