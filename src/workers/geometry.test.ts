// Tessellation and packing (no GL): what the render worker uploads.
import { describe, expect, it } from 'vitest';
import { Editor, SceneTracker } from '../engine';
import { FILL_STRIDE, LINE_STRIDE, boxGeometry, keypointGeometry, polygonGeometry, polylineGeometry, quadIndices } from './geometry';
import { packScene, parseColor, splitDiff } from './pack';

/** Sum of triangle areas of a fill array. */
function fillArea(fill: Float32Array): number {
  let a = 0;
  for (let i = 0; i < fill.length; i += 3 * FILL_STRIDE) {
    const [x0, y0, x1, y1, x2, y2] = [fill[i]!, fill[i + 1]!, fill[i + 4]!, fill[i + 5]!, fill[i + 8]!, fill[i + 9]!];
    a += Math.abs((x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)) / 2;
  }
  return a;
}

describe('geometry', () => {
  it('a box fills its area, outlines 4 segments, and has 8 handles', () => {
    const g = boxGeometry(10, 20, 30, 40, 0xff0000, 7);
    expect(fillArea(g.fill)).toBeCloseTo(1200);
    expect(g.line.length / LINE_STRIDE).toBe(4 * 4);
    expect(g.handles.length).toBe(16);
    expect(g.fill[3]).toBe(7); // slot
  });

  it('a polygon with a hole fills outer minus hole and outlines both rings', () => {
    const g = polygonGeometry([0, 0, 100, 0, 100, 100, 0, 100, 25, 25, 75, 25, 75, 75, 25, 75], [4, 4], 0x00ff00, 0);
    expect(fillArea(g.fill)).toBeCloseTo(10000 - 2500);
    expect(g.line.length / LINE_STRIDE).toBe(8 * 4);
  });

  it('a polyline is open (n-1 segments) and has no fill; a keypoint is one marker', () => {
    const l = polylineGeometry([0, 0, 10, 0, 10, 10], 3, 0, 0);
    expect(l.fill.length).toBe(0);
    expect(l.line.length / LINE_STRIDE).toBe(2 * 4);
    const k = keypointGeometry(5, 5, 0, 0);
    expect(k.line.length / LINE_STRIDE).toBe(4);
    expect(Math.abs(k.line[2]!)).toBeGreaterThan(2); // marker flag read by the shader
  });

  it('shares one index pattern for all quads', () => {
    expect([...quadIndices(2)]).toEqual([0, 1, 2, 2, 1, 3, 4, 5, 6, 6, 5, 7]);
  });
});

describe('packing scene diffs', () => {
  it('packs a SceneTracker diff into flat arrays, and a later diff holds only what changed', () => {
    const editor = new Editor({ idGenerator: () => 'x' });
    editor.load([
      { id: 'a', type: 'box', class: 'car', x: 1, y: 2, width: 30, height: 40 },
      { id: 'b', type: 'polygon', class: 'tree', points: [[0, 0], [10, 0], [10, 10]], holes: [[[2, 2], [4, 2], [3, 4]]] },
      { id: 'c', type: 'keypoint', class: 'car', x: 5, y: 6 },
    ]);
    const tracker = new SceneTracker(editor);
    const d = tracker.pull();
    const p = packScene(d, d.upserts, (cls) => parseColor(cls === 'car' ? '#FFADAD' : '#CAFFBF'));
    expect(p.reset).toBe(true);
    expect(p.ids).toEqual(['a', 'b', 'c']);
    expect([...p.types]).toEqual([0, 1, 3]);
    expect(p.colors[0]).toBe(0xffadad);
    expect([...p.rect.subarray(0, 4)]).toEqual([1, 2, 30, 40]);
    expect([...p.ringCounts]).toEqual([0, 2, 0]);
    expect([...p.ringLens]).toEqual([3, 3]);
    expect(p.coords.length).toBe(12);
    editor.select(['a']);
    editor.nudgeSelected(1, 0);
    const d2 = tracker.pull();
    expect(d2.upserts.map((u) => u.id)).toEqual(['a']);
    expect(splitDiff({ reset: false, upserts: d.upserts, removed: ['z'] }, 2).map((s) => [s.items.length, s.removed.length])).toEqual([[2, 1], [1, 0]]);
  });
});
