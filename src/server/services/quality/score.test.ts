import { describe, expect, it } from 'vitest';
import type { StoredAnnotation } from '../../../contract/annotations';
import { countsToString } from '../../../contract/rle';
import { score } from './score';
import { iou, oks } from '../../../contract/similarity';

const box = (id: string, name: string, x: number, y: number, w: number, h: number, extra: Partial<StoredAnnotation> = {}): StoredAnnotation => ({ id, name, bounding_box: { x, y, w, h }, ...extra });
const square = (id: string, name: string, x: number, y: number, s: number): StoredAnnotation =>
  box(id, name, x, y, s, s, { polygon: { path: [[x, y], [x + s, y], [x + s, y + s], [x, y + s]] } });

describe('score: boxes, polygons and masks by IoU >= 0.5 per class', () => {
  it('a perfect copy scores F1 1 and mean IoU 1', () => {
    const gt = [box('a', 'car', 0, 0, 10, 10), box('b', 'car', 20, 20, 5, 5), square('c', 'dog', 50, 50, 8)];
    const s = score(gt, gt.map((x) => ({ ...x, id: `copy-${x.id}` })));
    expect(s).toMatchObject({ reference: 3, scored: 3, matched: 3, f1: 1, mean_iou: 1, precision: 1, recall: 1, mean_oks: null, attributes: null });
    expect(s.by_class).toEqual({
      car: { reference: 2, scored: 2, matched: 2, f1: 1, mean_iou: 1, mean_oks: null },
      dog: { reference: 1, scored: 1, matched: 1, f1: 1, mean_iou: 1, mean_oks: null },
    });
  });

  it('a box shifted by 2 of 10 matches at IoU 80/120; shifted by 5 (IoU 1/3) it does not', () => {
    const near = score([box('a', 'car', 0, 0, 10, 10)], [box('b', 'car', 2, 0, 10, 10)]);
    expect(near.matched).toBe(1);
    expect(near.f1).toBe(1);
    expect(near.mean_iou).toBeCloseTo(2 / 3, 12);
    const far = score([box('a', 'car', 0, 0, 10, 10)], [box('b', 'car', 5, 0, 10, 10)]);
    expect(far).toMatchObject({ matched: 0, f1: 0, mean_iou: null, precision: 0, recall: 0 });
  });

  it('a missing shape lowers recall, an extra one precision: F1 2/3 either way', () => {
    const gt = [box('a', 'car', 0, 0, 10, 10), box('b', 'car', 30, 30, 10, 10)];
    const missing = score(gt, [box('x', 'car', 0, 0, 10, 10)]);
    expect(missing).toMatchObject({ matched: 1, precision: 1, recall: 0.5 });
    expect(missing.f1).toBeCloseTo(2 / 3, 12);
    const extra = score([gt[0]!], [box('x', 'car', 0, 0, 10, 10), box('y', 'car', 60, 60, 4, 4)]);
    expect(extra).toMatchObject({ matched: 1, precision: 0.5, recall: 1 });
    expect(extra.f1).toBeCloseTo(2 / 3, 12);
  });

  it('a shape of another class never matches; two empty lists agree (F1 1)', () => {
    expect(score([box('a', 'car', 0, 0, 10, 10)], [box('b', 'truck', 0, 0, 10, 10)])).toMatchObject({ matched: 0, f1: 0 });
    expect(score([], [])).toMatchObject({ f1: 1, precision: 1, recall: 1, matched: 0 });
  });

  it('matching is greedy, highest IoU first: the closer prediction takes the ground truth', () => {
    const gt = [box('g1', 'car', 0, 0, 10, 10)];
    const s = score(gt, [box('p1', 'car', 2, 0, 10, 10), box('p2', 'car', 1, 0, 10, 10)]);
    expect(s.matches).toEqual([{ class: 'car', a: 'g1', b: 'p2', similarity: 90 / 110, measure: 'iou' }]);
  });

  it('polygons intersect as polygons, holes cut out; a box against a polygon of its class', () => {
    const holed = box('h', 'dog', 0, 0, 10, 10, { polygon: { path: [[0, 0], [10, 0], [10, 10], [0, 10]], holes: [[[0, 0], [5, 0], [5, 10], [0, 10]]] } });
    expect(iou(holed, square('s', 'dog', 0, 0, 10))).toBeCloseTo(0.5, 12);
    const triangle = box('t', 'dog', 0, 0, 10, 10, { polygon: { path: [[0, 0], [10, 0], [0, 10]] } });
    expect(iou(triangle, box('b', 'dog', 0, 0, 10, 10))).toBeCloseTo(0.5, 12);
  });

  it('masks compare pixel by pixel (column-major runs)', () => {
    // 4 x 4 masks: the first two columns, and columns 1..2; intersection 4 px, union 12.
    const a = box('m1', 'road', 0, 0, 2, 4, { segmentation: { size: [4, 4], counts: [0, 8, 8] } });
    const b = box('m2', 'road', 1, 0, 2, 4, { segmentation: { size: [4, 4], counts: countsToString([4, 8, 4]) } });
    expect(iou(a, b)).toBeCloseTo(4 / 12, 12);
    expect(iou(a, { ...a, id: 'same' })).toBe(1);
    expect(score([a], [b]).matched).toBe(0);
  });
});

// COCO's person keypoint sigmas, written out again here so the test does not read the module's table.
const SIGMAS = [0.026, 0.025, 0.025, 0.035, 0.035, 0.079, 0.079, 0.072, 0.072, 0.062, 0.062, 0.107, 0.107, 0.087, 0.087, 0.089, 0.089];
const PERSON = ['nose', 'left_eye', 'right_eye', 'left_ear', 'right_ear', 'left_shoulder', 'right_shoulder', 'left_elbow', 'right_elbow', 'left_wrist', 'right_wrist', 'left_hip', 'right_hip', 'left_knee', 'right_knee', 'left_ankle', 'right_ankle'];

describe('score: keypoints and skeletons by OKS', () => {
  const person = (id: string, dx: number, drop: number[] = []): StoredAnnotation =>
    box(id, 'person', 0, 0, 100, 100, { points: SIGMAS.map((_, i) => (drop.includes(i) ? { x: 0, y: 0, v: 0 as const } : { x: 10 + i * 5 + dx, y: 10 + i * 4, v: 2 as const })) });
  const expected = (d: number, dropped: number[] = []) =>
    SIGMAS.reduce((s, sigma, i) => s + (dropped.includes(i) ? 0 : Math.exp(-(d * d) / (2 * 100 * 100 * (2 * sigma) ** 2))), 0) / SIGMAS.length;

  it('a person skeleton shifted by 3 px scores COCO OKS with its sigmas; a point left unlabelled counts 0', () => {
    expect(oks(person('g', 0), person('p', 3), PERSON)).toBeCloseTo(expected(3), 12);
    expect(oks(person('g', 0), person('p', 3, [0, 16]), PERSON)).toBeCloseTo(expected(3, [0, 16]), 12);
    const s = score([person('g', 0)], [person('p', 3)], { pointNames: () => PERSON });
    expect(s).toMatchObject({ matched: 1, f1: 1, mean_iou: null });
    expect(s.mean_oks).toBeCloseTo(expected(3), 12);
  });

  it('a skeleton far away does not match (OKS < 0.5); another skeleton uses the default sigma 0.07', () => {
    expect(score([person('g', 0)], [person('p', 40)], { pointNames: () => PERSON }).matched).toBe(0);
    const hand = (id: string, dx: number): StoredAnnotation => box(id, 'hand', 0, 0, 10, 10, { points: [{ x: 1 + dx, y: 1, v: 2 }, { x: 5 + dx, y: 5, v: 2 }] });
    expect(oks(hand('g', 0), hand('p', 1), ['wrist', 'thumb'])).toBeCloseTo(Math.exp(-1 / (2 * 100 * 0.14 ** 2)), 12);
  });

  it('a lone keypoint uses a 32 x 32 px scale', () => {
    const kp = (id: string, x: number): StoredAnnotation => box(id, 'eye', x, 5, 0, 0, { keypoint: { x, y: 5 } });
    expect(oks(kp('g', 5), kp('p', 7))).toBeCloseTo(Math.exp(-4 / (2 * 1024 * 0.14 ** 2)), 12);
    expect(score([kp('g', 5)], [kp('p', 7), box('b', 'eye', 5, 5, 0, 0)]).matched).toBe(1);
  });
});

describe('score: attributes', () => {
  it('the share of the ground truth attribute entries the matched shape holds equal', () => {
    const gt = [
      box('a', 'car', 0, 0, 10, 10, { attributes: [{ name: 'colour', value: 'red' }, { name: 'occluded', value: true }] }),
      box('b', 'car', 50, 50, 10, 10, { attributes: [{ name: 'colour', value: 'blue' }] }),
      box('c', 'car', 90, 90, 10, 10, { attributes: [{ name: 'colour', value: 'green' }] }),
    ];
    const pred = [
      box('x', 'car', 0, 0, 10, 10, { attributes: [{ name: 'occluded', value: false }, { name: 'colour', value: 'red' }] }),
      box('y', 'car', 50, 50, 10, 10, { attributes: [{ name: 'colour', value: 'blue' }] }),
    ];
    // Matched a and b: 3 entries, 2 equal; c is unmatched, so its attribute is not counted.
    expect(score(gt, pred).attributes).toBeCloseTo(2 / 3, 12);
    expect(score([box('a', 'car', 0, 0, 10, 10)], [box('x', 'car', 0, 0, 10, 10)]).attributes).toBeNull();
  });
});
