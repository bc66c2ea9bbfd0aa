// Tessellation and packing (no GL): what the render worker uploads.
import { describe, expect, it } from 'vitest';
import { Editor, SceneTracker } from '../engine';
import { FILL_STRIDE, LINE_STRIDE, MAX_MITER, boxGeometry, keypointGeometry, polygonGeometry, polylineGeometry } from './geometry';
import { packScene, parseColor, splitDiff } from './pack';

/** Sum of triangle areas of an indexed fill. */
function fillArea(g: { fill: Float32Array; fillIdx: Uint32Array }): number {
  let a = 0;
  const x = (v: number) => g.fill[v * FILL_STRIDE]!, y = (v: number) => g.fill[v * FILL_STRIDE + 1]!;
  for (let i = 0; i < g.fillIdx.length; i += 3) {
    const [p, q, r] = [g.fillIdx[i]!, g.fillIdx[i + 1]!, g.fillIdx[i + 2]!];
    a += Math.abs((x(q) - x(p)) * (y(r) - y(p)) - (x(r) - x(p)) * (y(q) - y(p))) / 2;
  }
  return a;
}

/** Triangles of a line strip (two per segment or marker). */
const lineTris = (g: { lineIdx: Uint32Array }) => g.lineIdx.length / 3;

describe('geometry', () => {
  it('a box fills its area, outlines 4 segments as one mitred strip, and has 8 handles', () => {
    const g = boxGeometry(10, 20, 30, 40, 0xff0000, 7);
    expect(fillArea(g)).toBeCloseTo(1200);
    expect(g.line.length / LINE_STRIDE).toBe(4 * 2); // two vertices per corner, shared by both sides
    expect(lineTris(g)).toBe(4 * 2);
    // a right-angle corner: the mitre reaches sqrt(2) half widths along the diagonal
    expect(Math.hypot(g.line[2]!, g.line[3]!)).toBeCloseTo(Math.SQRT2);
    expect(Math.max(...g.lineIdx)).toBe(7);
    expect(g.handles.length).toBe(16);
    expect(g.fill[3]).toBe(7); // slot
  });

  it('clips the mitre of a sharp corner', () => {
    const g = polygonGeometry([0, 0, 100, 0, 0, 1], [3], 0, 0);
    for (let v = 0; v < g.line.length / LINE_STRIDE; v++) {
      const ox = g.line[v * LINE_STRIDE + 2]!, oy = g.line[v * LINE_STRIDE + 3]!;
      expect(Math.max(Math.abs(ox), Math.abs(oy))).toBeLessThanOrEqual(MAX_MITER + 1e-6); // never read as a marker (> 2)
    }
  });

  it('a polygon with a hole fills outer minus hole and outlines both rings', () => {
    const g = polygonGeometry([0, 0, 100, 0, 100, 100, 0, 100, 25, 25, 75, 25, 75, 75, 25, 75], [4, 4], 0x00ff00, 0);
    expect(fillArea(g)).toBeCloseTo(10000 - 2500);
    expect(lineTris(g)).toBe(8 * 2);
  });

  it('a polyline is open (n-1 segments) and has no fill; a keypoint is one marker', () => {
    const l = polylineGeometry([0, 0, 10, 0, 10, 10], 3, 0, 0);
    expect(l.fill.length).toBe(0);
    expect(lineTris(l)).toBe(2 * 2);
    expect(l.line.length / LINE_STRIDE).toBe(3 * 2);
    const k = keypointGeometry(5, 5, 0, 0);
    expect(k.line.length / LINE_STRIDE).toBe(4);
    expect([...k.lineIdx]).toEqual([0, 1, 2, 2, 1, 3]);
    expect(Math.abs(k.line[2]!)).toBeGreaterThan(2); // marker flag read by the shader
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
