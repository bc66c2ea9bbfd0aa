import { describe, expect, it } from 'vitest';
import { StoredAnnotation, StoredAnnotations, storedKind } from '../../src/contract/annotations';
import { editorToStored, parseStoredAnnotations, storedToEditor } from '../../src/engine/model/convert';
import type { EditorAnnotation } from '../../src/engine';

const stored: Record<string, unknown>[] = [
  { id: 'b1', name: 'car', bounding_box: { x: 10.5, y: 20, w: 30, h: 40 }, attributes: [{ name: 'occluded', value: true }] },
  {
    id: 'p1', name: 'building', bounding_box: { x: 0, y: 0, w: 100, h: 80 },
    polygon: { path: [[0, 0], [100, 0], [100, 80], [0, 80]], holes: [[[10, 10], [20, 10], [20, 20]]] },
    attributes: [],
  },
  { id: 'p2', name: 'roof', bounding_box: { x: 1, y: 2, w: 3, h: 4 }, polygon: { path: [[1, 2], [4, 2], [4, 6]] } },
  { id: 'l1', name: 'lane', bounding_box: { x: 5, y: 5, w: 10, h: 0 }, polyline: { path: [[5, 5], [15, 5]] }, attributes: ['solid'] },
  { id: 'k1', name: 'eye', bounding_box: { x: 7, y: 8, w: 0, h: 0 }, keypoint: { x: 7, y: 8 }, attributes: [] },
  { id: 's1', name: 'cat', bounding_box: { x: 0, y: 1, w: 1, h: 2 }, segmentation: { size: [3, 4], counts: [1, 3, 8] }, attributes: [] },
  { id: 's2', name: 'dog', bounding_box: { x: 0, y: 0, w: 2, h: 2 }, segmentation: { size: [2, 2], counts: '04' }, sam2_area: 4, attributes: [] },
];

describe('stored <-> editor conversion', () => {
  it('round-trips every kind losslessly (stored -> editor -> stored)', () => {
    for (const s of stored) {
      const parsed = StoredAnnotation.parse(s);
      expect(editorToStored(storedToEditor(parsed))).toEqual(s);
    }
  });

  it('maps each kind to the editor form of spec section 3', () => {
    const editor = parseStoredAnnotations(stored);
    expect(editor.map((a) => a.type)).toEqual(['box', 'polygon', 'polygon', 'polyline', 'keypoint', 'segmentation', 'segmentation']);
    expect(editor[0]).toEqual({ id: 'b1', type: 'box', class: 'car', x: 10.5, y: 20, width: 30, height: 40, attributes: [{ name: 'occluded', value: true }] });
    expect(editor[5]).toMatchObject({ type: 'segmentation', rle: { size: [3, 4], counts: [1, 3, 8] }, x: 0, y: 1, width: 1, height: 2 });
    // Unknown keys survive in `extra`.
    expect(editor[6]!.extra).toEqual({ sam2_area: 4 });
    expect(storedKind(StoredAnnotation.parse(stored[0]))).toBe('box');
  });

  it('round-trips editor -> stored -> editor for every kind', () => {
    const editor: EditorAnnotation[] = [
      { id: 'a', type: 'box', class: 'c', x: 1, y: 2, width: 10, height: 12, attributes: [] },
      { id: 'b', type: 'polygon', class: 'c', points: [[0, 0], [5, 0], [5, 5]], holes: [], attributes: [] },
      { id: 'c', type: 'polyline', class: 'c', points: [[0, 0], [5, 5], [9, 1]] },
      { id: 'd', type: 'keypoint', class: 'c', x: 3.25, y: 4.5 },
      { id: 'e', type: 'segmentation', class: 'c', rle: { size: [2, 3], counts: [2, 2, 2] }, x: 1, y: 0, width: 1, height: 2, attributes: [{ k: [1, null] }] },
    ];
    for (const a of editor) expect(storedToEditor(StoredAnnotation.parse(editorToStored(a)))).toEqual(a);
  });

  it('derives the bounding box of paths from their geometry', () => {
    const s = editorToStored({ id: 'x', type: 'polygon', class: 'c', points: [[5, 7], [15, 2], [9, 20]] });
    expect(s.bounding_box).toEqual({ x: 5, y: 2, w: 10, h: 18 });
  });

  it('does not alias the input (editing the editor form leaves the stored object alone)', () => {
    const s = StoredAnnotation.parse(stored[1]);
    const e = storedToEditor(s) as unknown as { points: number[][] };
    e.points[0]![0] = 999;
    expect(s.polygon!.path[0]![0]).toBe(0);
  });
});

describe('contract validation', () => {
  const bb = { x: 0, y: 0, w: 1, h: 1 };
  const bad: [string, unknown][] = [
    ['polygon with 2 points', { id: 'a', name: 'c', bounding_box: bb, polygon: { path: [[0, 0], [1, 1]] } }],
    ['hole with 2 points', { id: 'a', name: 'c', bounding_box: bb, polygon: { path: [[0, 0], [1, 1], [0, 1]], holes: [[[0, 0], [1, 1]]] } }],
    ['polyline with 1 point', { id: 'a', name: 'c', bounding_box: bb, polyline: { path: [[0, 0]] } }],
    ['NaN coordinate', { id: 'a', name: 'c', bounding_box: { x: NaN, y: 0, w: 1, h: 1 } }],
    ['Infinity in a path', { id: 'a', name: 'c', bounding_box: bb, polyline: { path: [[0, 0], [Infinity, 1]] } }],
    ['RLE counts not summing to h*w', { id: 'a', name: 'c', bounding_box: bb, segmentation: { size: [2, 2], counts: [1, 2] } }],
    ['compressed counts not summing to h*w', { id: 'a', name: 'c', bounding_box: bb, segmentation: { size: [2, 2], counts: '05' } }],
    ['truncated compressed counts', { id: 'a', name: 'c', bounding_box: bb, segmentation: { size: [2, 2], counts: '0X' } }],
    ['bad compressed characters', { id: 'a', name: 'c', bounding_box: bb, segmentation: { size: [2, 2], counts: '0~' } }],
    ['two shape keys', { id: 'a', name: 'c', bounding_box: bb, keypoint: { x: 0, y: 0 }, polyline: { path: [[0, 0], [1, 1]] } }],
    ['negative width', { id: 'a', name: 'c', bounding_box: { x: 0, y: 0, w: -1, h: 1 } }],
    ['missing id', { name: 'c', bounding_box: bb }],
  ];
  for (const [what, value] of bad) {
    it(`rejects ${what}`, () => {
      expect(StoredAnnotation.safeParse(value).success).toBe(false);
    });
  }

  it('accepts all the examples and rejects duplicate ids in a list', () => {
    expect(StoredAnnotations.safeParse(stored).success).toBe(true);
    expect(StoredAnnotations.safeParse([stored[0], stored[0]]).success).toBe(false);
  });
});
