// The shared geometry of the formats: each rule gives what both of its users (reader and writer,
// or two formats) rely on.
import { describe, expect, it } from 'vitest';
import { axisAlignedRectangle, boxRing, boxToVoc, clipBox, isBoxRing, pathBox, ringArea, vocToBox } from './shapes';

describe('shapes', () => {
  it('measures a ring in either direction, and a point written as a triangle as nothing', () => {
    const square: [number, number][] = [[0, 0], [4, 0], [4, 3], [0, 3]];
    expect(ringArea(square)).toBe(12);
    expect(ringArea([...square].reverse())).toBe(12);
    expect(ringArea([[5, 5], [5, 5], [5, 5]])).toBe(0);
    expect(pathBox([[3, 9], [-1, 2], [4, 4]])).toEqual({ x: -1, y: 2, w: 5, h: 7 });
  });

  it('recognises the box a writer wrote as a ring, from any corner and in either direction', () => {
    const ring = boxRing(2, 3, 10, 5);
    expect(isBoxRing(ring, [2, 3, 10, 5])).toBe(true);
    expect(isBoxRing([12, 8, 12, 3, 2, 3, 2, 8], [2, 3, 10, 5])).toBe(true);
    expect(isBoxRing(ring, [2, 3, 10, 6])).toBe(false);
    const corners: [number, number][] = [[12, 8], [2, 8], [2, 3], [12, 3]];
    expect(axisAlignedRectangle(corners)).toEqual({ x: 2, y: 3, w: 10, h: 5 });
    expect(axisAlignedRectangle([[0, 0], [4, 0], [5, 3], [0, 3]])).toBeNull();
  });

  it('keeps the VOC pixel rule both ways and clips boxes to the image', () => {
    expect(boxToVoc({ x: 0, y: 0, w: 40, h: 30 })).toEqual([1, 1, 40, 30]);
    expect(vocToBox(1, 1, 40, 30)).toEqual({ x: 0, y: 0, w: 40, h: 30 });
    const size = { width: 40, height: 30 };
    expect(clipBox({ x: -5, y: 10, w: 10, h: 30 }, size)).toEqual({ box: { x: 0, y: 10, w: 5, h: 20 }, clipped: true });
    expect(clipBox({ x: 1, y: 1, w: 2, h: 2 }, size)).toEqual({ box: { x: 1, y: 1, w: 2, h: 2 }, clipped: false });
    expect(clipBox({ x: 50, y: 0, w: 5, h: 5 }, size)).toBeNull();
  });
});
