// Segmentation kernels (assembly/kernels/segment.ts) against their TypeScript references
// (assembly/reference/segment.ts), plus known answers: Lab of reference colours, SLIC labels that
// are connected and cover the image, min-cuts checked against brute force.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { kernelsWasmPath } from '../src/kernels/node';
import { instantiateSegmentKernelsSync, type SegmentKernels } from '../src/kernels/segment';
import { allocStats, minCutRef, refineRef, rgbToLabRef, slicRef, superpixelStatsRef, BINS } from './reference/segment';
import { buildStructure, segment } from '../src/server/services/segmentation/builtin/algorithm';
import { referenceOps } from '../src/server/services/segmentation/builtin/reference-ops';
import { syntheticImage } from '../tests/fixtures/segmentation';
import { kernels, rng } from './test/helpers';

let seg: SegmentKernels;
beforeAll(async () => {
  await kernels(); // builds the module from the current sources
  seg = instantiateSegmentKernelsSync(readFileSync(kernelsWasmPath)).segment;
});

function labOf(rgb: Uint8Array, n: number, channels = 3) {
  const lab = new Float32Array(n * 3), bins = new Uint16Array(n);
  seg.rgbToLab(rgb, n, channels, lab, bins);
  return { lab, bins };
}

describe('rgbToLab', () => {
  it('matches known CIELAB values (D65)', () => {
    const { lab } = labOf(Uint8Array.from([255, 255, 255, 0, 0, 0, 255, 0, 0, 0, 0, 255]), 4);
    const near = (i: number, L: number, a: number, b: number) => {
      expect(lab[i * 3]).toBeCloseTo(L, 1);
      expect(lab[i * 3 + 1]).toBeCloseTo(a, 1);
      expect(lab[i * 3 + 2]).toBeCloseTo(b, 1);
    };
    near(0, 100, 0, 0);
    near(1, 0, 0, 0);
    near(2, 53.24, 80.09, 67.2);
    near(3, 32.3, 79.19, -107.86);
  });

  it('agrees with the reference on random pixels, with 3 and 4 channels', () => {
    const r = rng(5);
    for (const channels of [3, 4]) {
      const n = 5000;
      const rgb = Uint8Array.from({ length: n * channels }, () => Math.floor(r() * 256));
      const got = labOf(rgb, n, channels);
      const lab = new Float32Array(n * 3), bins = new Uint16Array(n);
      rgbToLabRef(rgb, n, channels, lab, bins);
      let maxDiff = 0, binDiff = 0;
      for (let i = 0; i < n * 3; i++) maxDiff = Math.max(maxDiff, Math.abs(lab[i]! - got.lab[i]!));
      for (let i = 0; i < n; i++) binDiff += bins[i] !== got.bins[i] ? 1 : 0;
      expect(maxDiff).toBeLessThan(1e-4);
      expect(binDiff).toBe(0);
    }
  });
});

describe('slic and superpixel statistics', () => {
  const img = syntheticImage(11, 160, 120);
  const n = 160 * 120;

  it('gives the reference labels: connected superpixels covering the image', () => {
    const { lab } = labOf(img.rgb, n);
    const got = new Int32Array(n), want = new Int32Array(n);
    const count = seg.slic(lab, 160, 120, 10, 12, 4, got);
    expect(slicRef(lab, 160, 120, 10, 12, 4, want)).toBe(count);
    expect(Array.from(got)).toEqual(Array.from(want));
    expect(count).toBeGreaterThan(100);
    expect(count).toBeLessThan(400);
    // Every label 0..count-1 used, each one 4-connected.
    const seen = new Uint8Array(count);
    for (const l of got) seen[l] = 1;
    expect(seen.every((v) => v === 1)).toBe(true);
    const comps = new Int32Array(count);
    const visited = new Uint8Array(n);
    for (let s = 0; s < n; s++) {
      if (visited[s]) continue;
      comps[got[s]!]! += 1;
      const stack = [s];
      visited[s] = 1;
      while (stack.length) {
        const p = stack.pop()!, x = p % 160;
        for (const q of [x > 0 ? p - 1 : -1, x < 159 ? p + 1 : -1, p - 160, p + 160]) {
          if (q >= 0 && q < n && !visited[q] && got[q] === got[p]) {
            visited[q] = 1;
            stack.push(q);
          }
        }
      }
    }
    expect(comps.every((c) => c === 1)).toBe(true);
  });

  it('gives the reference statistics', () => {
    const { lab, bins } = labOf(img.rgb, n);
    const labels = new Int32Array(n);
    const count = seg.slic(lab, 160, 120, 10, 12, 4, labels);
    const got = seg.superpixelStats(lab, bins, labels, 160, 120, count);
    const want = allocStats(count);
    superpixelStatsRef(lab, bins, labels, 160, 120, want);
    for (const key of ['size', 'mean', 'hist', 'nbr', 'degree', 'edgeLen', 'edgeGrad'] as const) {
      expect(Array.from(got[key]), key).toEqual(Array.from(want[key]));
    }
    let total = 0;
    for (let i = 0; i < count; i++) total += got.size[i]!;
    expect(total).toBe(n);
    // Adjacency is symmetric.
    for (let i = 0; i < count; i++) {
      for (let k = 0; k < got.degree[i]!; k++) {
        const j = got.nbr[i * 32 + k]!;
        const back = Array.from(got.nbr.subarray(j * 32, j * 32 + got.degree[j]!));
        expect(back).toContain(i);
      }
    }
  });
});

describe('minCut', () => {
  function randomGraph(r: () => number, n: number, m: number) {
    const src = Float64Array.from({ length: n }, () => (r() < 0.4 ? r() * 10 : 0));
    const snk = Float64Array.from({ length: n }, () => (r() < 0.4 ? r() * 10 : 0));
    const ea = new Int32Array(m), eb = new Int32Array(m), cab = new Float64Array(m), cba = new Float64Array(m);
    for (let e = 0; e < m; e++) {
      ea[e] = Math.floor(r() * n);
      eb[e] = (ea[e]! + 1 + Math.floor(r() * (n - 1))) % n;
      cab[e] = r() * 5;
      cba[e] = r() < 0.5 ? cab[e]! : r() * 5;
    }
    return { src, snk, ea, eb, cab, cba };
  }
  function cutCost(g: ReturnType<typeof randomGraph>, side: Uint8Array): number {
    let c = 0;
    for (let i = 0; i < side.length; i++) c += side[i] ? g.snk[i]! : g.src[i]!;
    for (let e = 0; e < g.ea.length; e++) {
      const a = side[g.ea[e]!]!, b = side[g.eb[e]!]!;
      if (a && !b) c += g.cab[e]!;
      if (!a && b) c += g.cba[e]!;
    }
    return c;
  }

  it('finds the minimum cut (brute force on small graphs) and agrees with the reference', () => {
    const r = rng(9);
    for (let t = 0; t < 40; t++) {
      const n = 2 + Math.floor(r() * 9), m = Math.floor(r() * n * 2);
      const g = randomGraph(r, n, m);
      const side = new Uint8Array(n), sideRef = new Uint8Array(n);
      const flow = seg.minCut(n, g.src, g.snk, m, g.ea, g.eb, g.cab, g.cba, side);
      const flowRef = minCutRef(n, g.src, g.snk, m, g.ea, g.eb, g.cab, g.cba, sideRef);
      // Another max-flow algorithm: the same cut, the same flow up to rounding.
      expect(flow).toBeCloseTo(flowRef, 9);
      expect(Array.from(side)).toEqual(Array.from(sideRef));
      let best = Infinity;
      for (let mask = 0; mask < 1 << n; mask++) {
        const s = Uint8Array.from({ length: n }, (_, i) => (mask >> i) & 1);
        best = Math.min(best, cutCost(g, s));
      }
      expect(cutCost(g, side)).toBeCloseTo(best, 6);
      expect(flow).toBeCloseTo(best, 6);
    }
  });

  it('agrees with the reference on a large graph, hard seeds respected', () => {
    const r = rng(21);
    const n = 3000, m = 9000;
    const g = randomGraph(r, n, m);
    g.src[0] = 1e12;
    g.snk[1] = 1e12;
    const side = new Uint8Array(n), sideRef = new Uint8Array(n);
    const flow = seg.minCut(n, g.src, g.snk, m, g.ea, g.eb, g.cab, g.cba, side);
    expect(minCutRef(n, g.src, g.snk, m, g.ea, g.eb, g.cab, g.cba, sideRef)).toBeCloseTo(flow, 6);
    expect(Array.from(side)).toEqual(Array.from(sideRef));
    expect(side[0]).toBe(1);
    expect(side[1]).toBe(0);
    expect(cutCost(g, side)).toBeCloseTo(flow, 3);
  });
  it('agrees with the reference on an image-like grid (4-connected, contrast weights, shared terminal capacity, clicks)', () => {
    const r = rng(5);
    const w = 160, h = 120, n = w * h;
    // A blob brighter than its surroundings, with noise: unaries from the brightness, edges weak across its border.
    const v = Float64Array.from({ length: n }, (_, p) => ((p % w) - 80) ** 2 + (Math.floor(p / w) - 60) ** 2 < 40 ** 2 ? 0.7 + 0.3 * r() : 0.3 * r() + 0.15);
    const src = Float64Array.from(v, (x) => Math.max(0, x - 0.5) * 4 + r() * 0.2), snk = Float64Array.from(v, (x) => Math.max(0, 0.5 - x) * 4 + r() * 0.2);
    src[60 * w + 80] = 1e12;
    snk[5 * w + 5] = 1e12;
    const ea: number[] = [], eb: number[] = [], c: number[] = [];
    for (let p = 0; p < n; p++) {
      for (const q of [p % w < w - 1 ? p + 1 : -1, p + w < n ? p + w : -1]) {
        if (q < 0) continue;
        ea.push(p);
        eb.push(q);
        c.push(2 * Math.exp(-20 * (v[p]! - v[q]!) ** 2));
      }
    }
    const m = ea.length, cap = Float64Array.from(c);
    const side = new Uint8Array(n), sideRef = new Uint8Array(n);
    const flow = seg.minCut(n, src, snk, m, Int32Array.from(ea), Int32Array.from(eb), cap, cap, side);
    const flowRef = minCutRef(n, src, snk, m, Int32Array.from(ea), Int32Array.from(eb), cap, cap, sideRef);
    expect(flow).toBeCloseTo(flowRef, 6);
    expect(Array.from(side)).toEqual(Array.from(sideRef));
    const inside = side.reduce((a, b) => a + b, 0);
    expect(inside).toBeGreaterThan(0.8 * Math.PI * 40 * 40);
    expect(inside).toBeLessThan(1.2 * Math.PI * 40 * 40);
  });

  it('handles no nodes, and nodes with equal source and sink capacity', () => {
    expect(seg.minCut(0, new Float64Array(0), new Float64Array(0), 0, new Int32Array(0), new Int32Array(0), new Float64Array(0), new Float64Array(0), new Uint8Array(0))).toBe(0);
    // Node 0's terminals cancel (flow 3); node 1 feeds it through their arc, so both stay on the source side.
    const side = new Uint8Array(2), sideRef = new Uint8Array(2);
    const args = [2, Float64Array.of(3, 1), Float64Array.of(3, 0), 1, Int32Array.of(0), Int32Array.of(1), Float64Array.of(1), Float64Array.of(1)] as const;
    expect(seg.minCut(...args, side)).toBeCloseTo(3, 9);
    expect(minCutRef(...args, sideRef)).toBeCloseTo(3, 9);
    expect(Array.from(side)).toEqual([1, 1]);
    expect(Array.from(sideRef)).toEqual([1, 1]);
  });
});

describe('refine', () => {
  it('agrees with the reference and keeps superpixels outside the band', () => {
    const r = rng(3);
    const w = 50, h = 40, n = w * h;
    const labels = Int32Array.from({ length: n }, (_, p) => Math.floor((p % w) / 10) + 5 * Math.floor(Math.floor(p / w) / 10));
    const bins = Uint16Array.from({ length: n }, () => Math.floor(r() * BINS));
    const spFg = Uint8Array.from({ length: 20 }, () => (r() < 0.5 ? 1 : 0));
    const band = Uint8Array.from({ length: 20 }, () => (r() < 0.5 ? 1 : 0));
    const llr = Float64Array.from({ length: BINS }, () => r() * 4 - 2);
    const got = new Uint8Array(n), want = new Uint8Array(n);
    seg.refine(labels, bins, w, h, spFg, band, llr, 2, 0.3, got);
    refineRef(labels, bins, w, h, spFg, band, llr, 2, 0.3, want);
    expect(Array.from(got)).toEqual(Array.from(want));
    for (let p = 0; p < n; p++) if (!band[labels[p]!]) expect(got[p]).toBe(spFg[labels[p]!]);
  });
});

describe('the built-in segmenter on wasm and on the references', () => {
  it('gives the same mask', () => {
    const img = syntheticImage(2, 200, 150);
    const a = buildStructure(seg, img.rgb, 200, 150, 3);
    const b = buildStructure(referenceOps, img.rgb, 200, 150, 3);
    expect(Array.from(a.labels)).toEqual(Array.from(b.labels));
    const input = { positive: [img.centre] as [number, number][], negative: [[3, 3]] as [number, number][] };
    const ma = segment(seg, a, input), mb = segment(referenceOps, b, input);
    expect(Array.from(ma.mask)).toEqual(Array.from(mb.mask));
    expect(ma.score).toBe(mb.score);
  });
});
