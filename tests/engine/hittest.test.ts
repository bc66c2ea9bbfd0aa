import { describe, expect, it } from 'vitest';
import { Editor, hitRadius, type EditorAnnotation } from '../../src/engine';
import { countsToString, encodeMask } from '../../src/engine/model/rle';
import { box, keypoint, polygon, polyline, TestEditor } from './helpers';

function editor(list: EditorAnnotation[], scale = 1): Editor {
  const e = new Editor();
  e.load(list);
  e.setCamera({ x: 0, y: 0, scale });
  return e;
}

describe('hit-testing', () => {
  it('uses a 6 screen px radius, never below 0.5 image px', () => {
    expect(hitRadius(1)).toBe(6);
    expect(hitRadius(2)).toBe(3);
    expect(hitRadius(0.5)).toBe(12);
    expect(hitRadius(10)).toBeCloseTo(0.6);
    expect(hitRadius(20)).toBe(0.5);
  });

  it('hits inside a polygon but not inside its holes', () => {
    const e = editor([polygon('p', [[0, 0], [100, 0], [100, 100], [0, 100]], [[[30, 30], [70, 30], [70, 70], [30, 70]]])]);
    expect(e.hitTest(15, 50)).toBe('p');
    expect(e.hitTest(50, 50)).toBeNull();
    expect(e.hitTest(50, 33)).toBe('p'); // near the hole's edge counts as the shape's border
    expect(e.hitTest(50, 40)).toBeNull();
    expect(e.hitTest(150, 50)).toBeNull();
  });

  it('hits a concave polygon only inside its outline', () => {
    // A "U": the notch between the arms is outside.
    const e = editor([polygon('u', [[0, 0], [30, 0], [30, 70], [70, 70], [70, 0], [100, 0], [100, 100], [0, 100]])]);
    expect(e.hitTest(50, 20)).toBeNull();
    expect(e.hitTest(15, 20)).toBe('u');
  });

  it('hits a polyline within the tolerance of a segment, scaled by zoom', () => {
    const e = editor([polyline('l', [[0, 0], [100, 0], [100, 100]])]);
    expect(e.hitTest(50, 5)).toBe('l');
    expect(e.hitTest(50, 7)).toBeNull();
    expect(e.hitTest(95, 50)).toBe('l');
    expect(e.hitTest(50, 50)).toBeNull(); // not closed: the inside of the bend is empty
    e.setCamera({ x: 0, y: 0, scale: 4 }); // radius 1.5 image px
    expect(e.hitTest(50, 1.4)).toBe('l');
    expect(e.hitTest(50, 2)).toBeNull();
  });

  it('hits keypoints within 8 screen px (a larger area than their 9 px dot), at any zoom', () => {
    const e = editor([keypoint('k', 10, 10), box('b', 40, 0, 20, 20)]);
    expect(e.hitTest(15, 15)).toBe('k'); // 7.07 px away
    expect(e.hitTest(17.9, 10)).toBe('k'); // 7.9 px away
    expect(e.hitTest(16, 16)).toBeNull(); // 8.49 px away
    expect(e.hitTest(33, 10)).toBeNull(); // a box is still hit within 6 px only (7 px off its edge)
    e.setCamera({ x: 0, y: 0, scale: 4 }); // 8 screen px = 2 image px
    expect(e.hitTest(11.9, 10)).toBe('k');
    expect(e.hitTest(12.2, 10)).toBeNull();
  });

  it('a click 7 px beside a keypoint selects it with the select tool', () => {
    const t = new TestEditor();
    t.editor.load([keypoint('k', 100, 100)]);
    t.click(105, 105); // 7.07 px
    expect([...t.editor.getView().selected]).toEqual(['k']);
  });

  it('hits masks only on foreground pixels', () => {
    const h = 20, w = 20;
    const mask = new Uint8Array(h * w);
    for (let x = 5; x < 10; x++) for (let y = 2; y < 6; y++) mask[x * h + y] = 1;
    const seg: EditorAnnotation = { id: 's', type: 'segmentation', class: 'c', rle: { size: [h, w], counts: countsToString(encodeMask(mask, h, w)) }, x: 5, y: 2, width: 5, height: 4 };
    const e = editor([seg]);
    expect(e.hitTest(7.5, 3.5)).toBe('s');
    expect(e.hitTest(5, 2)).toBe('s');
    expect(e.hitTest(4.9, 3)).toBeNull();
    expect(e.hitTest(7, 6.1)).toBeNull();
  });

  it('returns the topmost (newest) first and skips hidden shapes', () => {
    const e = editor([box('under', 0, 0, 100, 100), box('middle', 20, 20, 100, 100), box('top', 40, 40, 100, 100)]);
    expect(e.hitTestAll(50, 50)).toEqual(['top', 'middle', 'under']);
    e.hide(['top']);
    expect(e.hitTestAll(50, 50)).toEqual(['middle', 'under']);
    expect(e.hitTest(50, 50)).toBe('middle');
    e.execute('create', { annotation: box('newest', 45, 45, 10, 10) });
    expect(e.hitTest(50, 50)).toBe('newest');
  });

  it('follows edits: a moved shape is hit where it is now, a deleted one nowhere', () => {
    const e = editor([box('a', 0, 0, 10, 10), box('b', 100, 100, 10, 10)]);
    e.execute('move', { ids: ['a'], dx: 500, dy: 0 });
    expect(e.hitTest(5, 5, 0)).toBeNull();
    expect(e.hitTest(505, 5, 0)).toBe('a');
    e.execute('delete', { ids: ['b'] });
    expect(e.hitTest(105, 105, 0)).toBeNull();
    e.undo();
    expect(e.hitTest(105, 105, 0)).toBe('b');
  });
});

describe('viewport query', () => {
  it('returns visible shapes intersecting a rectangle in paint order', () => {
    const e = editor([box('a', 0, 0, 50, 50), box('b', 40, 40, 50, 50), box('c', 500, 500, 5, 5), box('d', 45, 0, 10, 10)]);
    e.hide(['d']);
    expect(e.queryIntersecting({ minX: 30, minY: 30, maxX: 60, maxY: 60 })).toEqual(['a', 'b']);
  });
});
