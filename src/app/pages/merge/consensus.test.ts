import { describe, expect, it } from 'vitest';
import type { StoredAnnotation } from '../../../contract/annotations';
import { agreementText, consensusShape, defaultChoices, groupShapes, mergedAnnotations, pointSimilarity, similarity, submittedText, waitingCount, type GroupChoice, type Layer } from './consensus';

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

describe('keypoints and skeletons: grouped by OKS (both ways, averaged)', () => {
  // A lone keypoint: OKS = exp(-d² / (2 · 32² · 0.14²)) = exp(-d² / 40.14), 0.5 at d = 5.27 px.
  const kp = (id: string, x: number, y = 50): StoredAnnotation => ({ id, name: 'eye', bounding_box: { x, y, w: 0, h: 0 }, keypoint: { x, y } });
  // A 3-point skeleton in a 100 x 100 box: OKS per point exp(-d² / (2 · 10000 · 0.14²)) = exp(-d² / 392).
  const pose = (id: string, dx: number, v: 0 | 1 | 2 = 2): StoredAnnotation => ({
    id,
    name: 'hand',
    bounding_box: { x: dx, y: 0, w: 100, h: 100 },
    points: [{ x: dx, y: 0, v: 2 }, { x: dx + 50, y: 50, v: 2 }, v === 0 ? { x: 0, y: 0, v: 0 } : { x: dx + 100, y: 100, v }],
  });

  it('keypoints 3 px apart are one object (OKS 0.80), 8 px apart two (OKS 0.20)', () => {
    expect(pointSimilarity(kp('a', 0), kp('b', 3))).toBeCloseTo(Math.exp(-9 / (2 * 1024 * 0.14 ** 2)), 12);
    const near = groupShapes([layer('ann', [kp('a', 0)]), layer('bob', [kp('b', 3)])]);
    expect(near.map((g) => g.members.map((m) => m?.id))).toEqual([['a', 'b']]);
    expect(groupShapes([layer('ann', [kp('a', 0)]), layer('bob', [kp('b', 8)])])).toHaveLength(2);
    // Another class, or a box of the same class where the keypoint is, never joins.
    expect(groupShapes([layer('ann', [kp('a', 0)]), layer('bob', [{ ...kp('b', 0), name: 'nose' }])])).toHaveLength(2);
    expect(groupShapes([layer('ann', [kp('a', 0)]), layer('bob', [box('b', 0, 50, 0, 0, 'eye')])])).toHaveLength(2);
  });

  it('skeletons: 5 px shifted match (OKS 0.94), 30 px do not (0.10); each layer\'s pose goes with its own match', () => {
    expect(pointSimilarity(pose('a', 0), pose('b', 5))).toBeCloseTo(Math.exp(-25 / 392), 12);
    expect(pointSimilarity(pose('a', 0), pose('b', 30))).toBeCloseTo(Math.exp(-900 / 392), 12);
    const groups = groupShapes([layer('ann', [pose('a1', 0), pose('a2', 300)]), layer('bob', [pose('b2', 303), pose('b1', 4)]), layer('cy', [pose('c1', 30)])]);
    expect(groups.map((g) => g.members.map((m) => m?.id ?? null))).toEqual([
      ['a1', 'b1', null],
      ['a2', 'b2', null],
      [null, null, 'c1'],
    ]);
    expect(groups.map((g) => g.majority)).toEqual([true, true, false]);
  });

  it('an unlabelled point lowers the OKS the same both ways; the consensus is the pose most like the others', () => {
    // One of three points unlabelled in b: a's OKS over its 3 points counts it 0; b's over its 2 points does not.
    expect(pointSimilarity(pose('a', 0), pose('b', 0, 0))).toBeCloseTo((2 / 3 + 1) / 2, 12);
    const groups = groupShapes([layer('ann', [pose('a', 0)]), layer('bob', [pose('b', 4)]), layer('cy', [pose('c', 10)])]);
    expect(groups).toHaveLength(1);
    expect(groups[0]!.consensus.id).toBe('b');
  });

  it('COCO\'s person points take COCO\'s sigmas when the class names them', () => {
    const names = ['nose', 'left_eye', 'right_eye', 'left_ear', 'right_ear', 'left_shoulder', 'right_shoulder', 'left_elbow', 'right_elbow', 'left_wrist', 'right_wrist', 'left_hip', 'right_hip', 'left_knee', 'right_knee', 'left_ankle', 'right_ankle'];
    // Only the nose moves, by 4 px, in a 100 x 100 box: 16 points agree fully.
    const person = (id: string, dx: number): StoredAnnotation => ({ id, name: 'person', bounding_box: { x: 0, y: 0, w: 100, h: 100 }, points: names.map((_, i) => ({ x: 5 * i + (i === 0 ? dx : 0), y: 50, v: 2 as const })) });
    const nose = (sigma: number) => (16 + Math.exp(-16 / (2 * 10_000 * (2 * sigma) ** 2))) / 17;
    // Seventeen points of other names use the default sigma (with no names at all, 17 points are taken as COCO's, as the scorer does).
    expect(similarity(person('a', 0), person('b', 4), () => names.map((n) => `${n}_x`))).toBeCloseTo(nose(0.07), 12);
    expect(similarity(person('a', 0), person('b', 4))).toBeCloseTo(nose(0.026), 12);
    expect(similarity(person('a', 0), person('b', 4), (c) => (c === 'person' ? names : null))).toBeCloseTo(nose(0.026), 12);
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
