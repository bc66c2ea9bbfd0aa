// The mixture colour model on the segmenter's Lab bins: it finds the clusters a histogram holds,
// and, unlike the histogram, gives colours next to a cluster more weight than colours far from all.
import { describe, expect, it } from 'vitest';
import { BINS, labBin as bin } from '../../../../../assembly/reference/segment';
import { fitGmm, groupNll, LAB_BINS } from './gmm';

describe('colour mixture model', () => {
  it('recovers two colour clusters and their shares', () => {
    const h = new Float64Array(BINS);
    h[bin(30, -40, 40)] = 300; // dark green
    h[bin(80, 50, 10)] = 100; // light red
    const g = fitGmm(LAB_BINS, h, 2, 8)!;
    expect(g).not.toBeNull();
    const order = g.mu[0]! < g.mu[3]! ? [0, 1] : [1, 0];
    const [dark, light] = order as [number, number];
    expect(g.mu[dark * 3]!).toBeCloseTo(31.25, 0);
    expect(g.mu[light * 3]!).toBeCloseTo(81.25, 0);
    expect(g.mu[light * 3 + 1]!).toBeCloseTo(50, 0);
    expect(g.pi[dark]!).toBeCloseTo(0.75, 2);
  });

  it('scores unseen colours near a cluster above colours far from every cluster', () => {
    const h = new Float64Array(BINS);
    h[bin(50, 10, 10)] = 500;
    h[bin(62, 10, 10)] = 200;
    const g = fitGmm(LAB_BINS, h, 3, 8)!;
    const nll = groupNll(g, LAB_BINS, new Float64Array(BINS));
    const seen = nll[bin(50, 10, 10)]!;
    const near = nll[bin(50, 30, 10)]!; // one bin over in a, never seen
    const far = nll[bin(90, -70, -70)]!;
    expect(seen).toBeLessThan(near);
    expect(near).toBeLessThan(far);
    expect(far - near).toBeGreaterThan(5);
  });

  it('has no model without weight', () => {
    expect(fitGmm(LAB_BINS, new Float64Array(BINS), 5, 8)).toBeNull();
  });
});
