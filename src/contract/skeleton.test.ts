import { describe, expect, it } from 'vitest';
import { findAnnotationProblem } from './annotation-check';
import { decodeBlock, encodeBlock } from './annotation-columns';
import { storedKind, StoredAnnotation } from './annotations';
import { findSkeletonProblem, skeletonBox, withDerivedBoxes } from './skeleton';

const person = { name: 'person', kind: 'skeleton', skeleton: { points: ['nose', 'left_eye', 'right_eye'], edges: [[0, 1], [0, 2]] as [number, number][] } };
const car = { name: 'car' };
const classes = new Map<string, typeof person | typeof car>([['person', person], ['car', car]]);
const points = [{ x: 10, y: 20, v: 2 }, { x: 0, y: 0, v: 0 }, { x: 30, y: 5, v: 1 }];
const skeleton = (id: string, p: unknown = points) => ({ id, name: 'person', points: p });

describe('keypoint skeletons in the stored format (issue 33 §4)', () => {
  it('derive the box of the labelled points when it is left out, and keep a box that was sent', () => {
    const list: Record<string, unknown>[] = [skeleton('a'), { ...skeleton('b'), bounding_box: { x: 1, y: 1, w: 1, h: 1 } }, skeleton('c', [{ x: 0, y: 0, v: 0 }])];
    withDerivedBoxes(list);
    expect(list.map((a) => a.bounding_box)).toEqual([{ x: 10, y: 5, w: 20, h: 15 }, { x: 1, y: 1, w: 1, h: 1 }, { x: 0, y: 0, w: 0, h: 0 }]);
    expect(findAnnotationProblem(list, new Set(['person']))).toBeNull();
    expect(storedKind(StoredAnnotation.parse(list[0]))).toBe('skeleton');
    expect(skeletonBox(points)).toEqual({ x: 10, y: 5, w: 20, h: 15 });
  });

  it('refuse a bad v, a point not labelled away from 0,0, a point that is not {x, y, v}, and a second shape', () => {
    const bb = { x: 0, y: 0, w: 1, h: 1 };
    const cases: [unknown, RegExp][] = [
      [{ ...skeleton('a', [{ x: 1, y: 1, v: 3 }]), bounding_box: bb }, /points\[0\]\.v: A point's v must be 0 \(not labelled\), 1 \(occluded\) or 2 \(visible\)/],
      [{ ...skeleton('a', [{ x: 4, y: 1, v: 0 }]), bounding_box: bb }, /points\[0\]: A point that is not labelled \(v 0\) has x and y 0/],
      [{ ...skeleton('a', [[1, 2]]), bounding_box: bb }, /points\[0\]/],
      [{ ...skeleton('a', []), bounding_box: bb }, /A skeleton needs at least 1 point/],
      [{ ...skeleton('a'), bounding_box: bb, keypoint: { x: 1, y: 1 } }, /holds one shape, found keypoint and points/],
    ];
    for (const [a, re] of cases) expect(findAnnotationProblem([a])?.message, JSON.stringify(a)).toMatch(re);
    // Points that are not all numbers get no box: the schema names the points, not a missing box.
    const odd = [skeleton('a', [{ x: '1', y: 2, v: 2 }])];
    withDerivedBoxes(odd);
    expect(findAnnotationProblem(odd)?.message).toMatch(/bounding_box|points/);
  });

  it('hold a skeleton class to one annotation of its named points, in number, and keep points off other classes', () => {
    expect(findSkeletonProblem([skeleton('a')], classes)).toBeNull();
    const short = findSkeletonProblem([skeleton('a'), skeleton('b', points.slice(0, 2))], classes);
    expect(short).toEqual({ index: 1, message: expect.stringMatching(/^Annotation 1 \(id "b"\): class "person" is a skeleton of 3 points \(nose, left_eye, right_eye\): "points" holds 2/) });
    // An older client drawing the skeleton's points one by one as keypoints is told what to send.
    const old = findSkeletonProblem([{ id: 'k', name: 'person', bounding_box: { x: 1, y: 1, w: 0, h: 0 }, keypoint: { x: 1, y: 1 } }], classes);
    expect(old?.message).toMatch(/class "person" is a skeleton: send one annotation per instance with "points"/);
    expect(findSkeletonProblem([{ id: 'c', name: 'car', points }], classes)?.message).toMatch(/class "car" is not a skeleton class/);
  });

  it('travel in the load-data columns and come back exactly, v included', () => {
    const list = [
      { id: 'a', name: 'person', bounding_box: { x: 10, y: 5, w: 20, h: 15 }, points },
      { id: 'b', name: 'car', bounding_box: { x: 1, y: 2, w: 3, h: 4 } },
      { id: 'c', name: 'person', bounding_box: { x: 1.5, y: 0, w: 0, h: 0 }, points: [{ x: 1.5, y: 0, v: 2 }], attributes: [{ name: 'crowd', value: false }] },
    ];
    const block = JSON.parse(JSON.stringify(encodeBlock(list)));
    expect(block.k).toEqual([4, 0, 4]);
    expect(block.v).toEqual([2, 0, 1, 2]);
    expect(decodeBlock(block)).toEqual(list);
    // A point with another key or a v outside 0-2 travels whole, as it was.
    const odd = [{ id: 'd', name: 'person', bounding_box: { x: 0, y: 0, w: 0, h: 0 }, points: [{ x: 0, y: 0, v: 0, note: 1 }] }];
    expect(encodeBlock(odd).k).toEqual([9]);
    expect(decodeBlock(JSON.parse(JSON.stringify(encodeBlock(odd))))).toEqual(odd);
    expect(encodeBlock([list[1]!]).v).toBeUndefined();
  });
});
