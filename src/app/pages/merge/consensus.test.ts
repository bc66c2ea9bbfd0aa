import { describe, expect, it } from 'vitest';
import type { StoredAnnotation } from '../../../contract/annotations';
import { agreementText, consensusShape, defaultChoices, groupShapes, mergedAnnotations, submittedText, waitingCount, type GroupChoice, type Layer } from './consensus';

const box = (id: string, x: number, y: number, w: number, h: number, name = 'car'): StoredAnnotation => ({ id, name, bounding_box: { x, y, w, h } });
const square = (id: string, x: number, y: number, s: number): StoredAnnotation => ({
  id,
  name: 'roof',
  bounding_box: { x, y, w: s, h: s },
  polygon: { path: [[x, y], [x + s, y], [x + s, y + s], [x, y + s]] },
});
const layer = (name: string, annotations: StoredAnnotation[]): Layer => ({ user: { id: name, name }, annotations });

describe('groupShapes and mergedAnnotations', () => {
  it('perfect agreement: one group per object, each drawn by every layer, merged to the same shapes', () => {
    const groups = groupShapes([layer('ann', [box('a1', 0, 0, 10, 10), box('a2', 50, 50, 20, 20, 'bus')]), layer('bob', [box('b2', 50, 50, 20, 20, 'bus'), box('b1', 0, 0, 10, 10)])]);
    expect(groups.map((g) => [g.className, g.members.map((m) => m?.id), g.support, g.majority])).toEqual([
      ['car', ['a1', 'b1'], 2, true],
      ['bus', ['a2', 'b2'], 2, true],
    ]);
    expect(mergedAnnotations(groups, defaultChoices(groups))).toEqual([box('a1', 0, 0, 10, 10), box('a2', 50, 50, 20, 20, 'bus')]);
  });

  it('one shifted box: still the same object, and the consensus is the mean of the matched boxes', () => {
    // IoU of [0,0,100,100] and [20,0,100,100] = 80*100 / (2*10000 - 8000) = 0.667.
    const groups = groupShapes([layer('ann', [box('a', 0, 0, 100, 100)]), layer('bob', [box('b', 20, 0, 100, 100)])]);
    expect(groups).toHaveLength(1);
    expect(groups[0]!.consensus.bounding_box).toEqual({ x: 10, y: 0, w: 100, h: 100 });
    expect(mergedAnnotations(groups, defaultChoices(groups))).toEqual([box('a', 10, 0, 100, 100)]);
  });

  it('a box shifted past IoU 0.5, or of another class, is another object', () => {
    // IoU of [0,0,100,100] and [60,0,100,100] = 40*100 / 16000 = 0.25.
    expect(groupShapes([layer('ann', [box('a', 0, 0, 100, 100)]), layer('bob', [box('b', 60, 0, 100, 100)])])).toHaveLength(2);
    expect(groupShapes([layer('ann', [box('a', 0, 0, 100, 100)]), layer('bob', [box('b', 0, 0, 100, 100, 'bus')])])).toHaveLength(2);
  });

  it('one missing shape: a minority group is left out by default and kept when its layer is chosen', () => {
    const layers = [layer('ann', [box('a1', 0, 0, 10, 10), box('a2', 100, 100, 10, 10)]), layer('bob', [box('b1', 0, 0, 10, 10)]), layer('cy', [box('c1', 1, 0, 10, 10)])];
    const groups = groupShapes(layers);
    expect(groups.map((g) => [g.members.map((m) => m?.id ?? null), g.majority])).toEqual([
      [['a1', 'b1', 'c1'], true],
      [['a2', null, null], false],
    ]);
    const choices = defaultChoices(groups);
    expect(mergedAnnotations(groups, choices).map((a) => a.id)).toEqual(['a1']);
    choices.set(groups[1]!.key, 0);
    choices.set(groups[0]!.key, 2);
    expect(mergedAnnotations(groups, choices)).toEqual([box('c1', 1, 0, 10, 10), box('a2', 100, 100, 10, 10)]);
    // With two layers, one of two is no majority either.
    const two = groupShapes(layers.slice(0, 2));
    expect(two.map((g) => g.majority)).toEqual([true, false]);
  });

  it('never puts two shapes of one layer in a group, and keeps the merged ids unique', () => {
    const groups = groupShapes([layer('ann', [box('x', 0, 0, 10, 10), box('y', 1, 0, 10, 10)]), layer('bob', [box('x', 0, 0, 10, 10)])]);
    expect(groups.map((g) => g.members.map((m) => m?.id ?? null))).toEqual([
      ['x', 'x'],
      ['y', null],
    ]);
    const choices = new Map<string, GroupChoice>(groups.map((g) => [g.key, 0]));
    choices.set(groups[0]!.key, 1);
    expect(mergedAnnotations(groups, choices).map((a) => a.id)).toEqual(['x', 'y']);
    const both = groupShapes([layer('ann', [box('x', 0, 0, 10, 10)]), layer('bob', [box('x', 50, 50, 10, 10)])]);
    expect(mergedAnnotations(both, new Map(both.map((g, i) => [g.key, i]))).map((a) => a.id)).toEqual(['x', 'x-2']);
  });
});

describe('consensusShape', () => {
  it('keeps the polygon closest to the others', () => {
    const far = square('far', 30, 0, 100);
    const mid = square('mid', 10, 0, 100);
    const near = square('near', 0, 0, 100);
    expect(consensusShape([near, far, mid]).id).toBe('mid');
  });
});

describe('what the merge view says', () => {
  it('the agreement in percent, or how many submissions are awaited', () => {
    expect(agreementText({ f1: 0.5, mean_iou: 0.8267 }, 0)).toBe('Agreement: F1 50% · mean IoU 83%');
    const drafts = [{ submitted_at: '2026-11-30T01:00:00Z' }, { submitted_at: null }];
    expect(waitingCount(3, drafts)).toBe(2);
    expect(agreementText(null, waitingCount(3, drafts))).toBe('Agreement: waiting for 2 more');
    expect(waitingCount(2, [{ submitted_at: 'a' }, { submitted_at: 'b' }])).toBe(0);
  });

  it('when a layer was submitted (in the browser\'s locale: 12 or 24 hours)', () => {
    expect(submittedText(null)).toBe('Not submitted yet');
    const now = new Date(2026, 10, 30, 15, 0);
    expect(submittedText(new Date(2026, 10, 30, 12, 4).toISOString(), now)).toMatch(/^Submitted 12:04( PM)?$/);
    expect(submittedText(new Date(2026, 10, 28, 9, 30).toISOString(), now)).toMatch(/^Submitted (28 Nov|Nov 28), 09:30( AM)?$/);
  });
});
