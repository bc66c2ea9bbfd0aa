// agreementOf (issue 36 §3) on hand-made drafts, with exact numbers: every pair of drafts scored
// once (F1 at IoU >= 0.5 per class, mean IoU of the matches), averaged over the pairs.
import { describe, expect, it } from 'vitest';
import type { StoredAnnotation } from '../../../contract/annotations';
import { agreementOf } from './drafts';

const box = (id: string, x: number, name = 'car'): StoredAnnotation => ({ id, name, bounding_box: { x, y: 0, w: 10, h: 10 } }) as StoredAnnotation;

describe('agreementOf', () => {
  it('is null with fewer than two drafts', () => {
    expect(agreementOf([])).toBeNull();
    expect(agreementOf([[box('a', 0)]])).toBeNull();
  });

  it('perfect: the same shapes under other ids agree fully', () => {
    expect(agreementOf([[box('a', 0), box('b', 30)], [box('x', 0), box('y', 30)]])).toEqual({ f1: 1, mean_iou: 1 });
  });

  it('shifted: a box moved by 2 px still matches (IoU 80/120); by 6 px it does not (IoU 40/160)', () => {
    const near = agreementOf([[box('a', 0)], [box('b', 2)]])!;
    expect(near.f1).toBe(1);
    expect(near.mean_iou).toBeCloseTo(2 / 3, 12);
    expect(agreementOf([[box('a', 0)], [box('b', 6)]])).toEqual({ f1: 0, mean_iou: 0 });
  });

  it('missing: one of two shapes left out lowers the F1 to 2 x 1 / 3, not the mean IoU; another class does not match', () => {
    const missing = agreementOf([[box('a', 0), box('b', 30)], [box('x', 0)]])!;
    expect(missing.f1).toBeCloseTo(2 / 3, 12);
    expect(missing.mean_iou).toBe(1);
    expect(agreementOf([[box('a', 0)], [box('x', 0, 'truck')]])).toEqual({ f1: 0, mean_iou: 0 });
  });

  it('two empty drafts agree; three drafts average their three pairs', () => {
    expect(agreementOf([[], []])).toEqual({ f1: 1, mean_iou: 1 });
    // A = B (pair 1, 1); C has a shifted and lacks b: with A and with B F1 2/3, IoU 2/3.
    const three = agreementOf([[box('a', 0), box('b', 30)], [box('a', 0), box('b', 30)], [box('c', 2)]])!;
    expect(three.f1).toBeCloseTo((1 + 2 / 3 + 2 / 3) / 3, 12);
    expect(three.mean_iou).toBeCloseTo((1 + 2 / 3 + 2 / 3) / 3, 12);
  });
});
