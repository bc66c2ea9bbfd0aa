// COCO export: named attributes become the annotation's `attributes` object; a name like
// `__proto__` (which the Vellum importer stores) must be written like any other (issue 30, finding 12).
import { describe, expect, it } from 'vitest';
import { joinInstance } from './instances';
import { attributesObject as namedAttributes } from './rules';

describe('COCO attributes', () => {
  it('writes an attribute named __proto__ as an own key, with a text or an object value', () => {
    const attrs = namedAttributes({ attributes: [{ name: '__proto__', value: 'x' }, { name: 'colour', value: 'red' }] });
    expect(JSON.parse(JSON.stringify({ attributes: attrs }))).toEqual(JSON.parse('{"attributes":{"__proto__":"x","colour":"red"}}'));
    const nested = namedAttributes({ attributes: [{ name: '__proto__', value: { polluted: true } }] });
    expect(JSON.stringify(nested)).toBe('{"__proto__":{"polluted":true}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps __proto__ on a joined instance (shapes sharing an instance)', () => {
    const group = [
      { id: 'p1', name: 'person', instance: 'i1', bounding_box: { x: 0, y: 0, w: 4, h: 4 }, attributes: [{ name: '__proto__', value: 7 }, { name: 'pose', value: 'up' }] },
      { id: 'p2', name: 'person', instance: 'i1', part: 'nose', bounding_box: { x: 1, y: 1, w: 0, h: 0 }, keypoint: { x: 1, y: 1 } },
    ];
    const joined = joinInstance(group);
    expect(JSON.stringify(joined.attributes)).toBe('{"__proto__":7,"pose":"up"}');
  });

  it("marks a joined instance whose geometry is its box, so an import reads it back as a box", () => {
    const box = { id: 'b', name: 'person', instance: 'i2', bounding_box: { x: 1, y: 2, w: 3, h: 4 } };
    const point = { id: 'k', name: 'person', instance: 'i2', part: 'nose', bounding_box: { x: 2, y: 3, w: 0, h: 0 }, keypoint: { x: 2, y: 3 } };
    const joined = joinInstance([box, point]);
    expect(joined.segmentation).toEqual([[1, 2, 4, 2, 4, 6, 1, 6]]);
    expect(joined.vellum_shape).toBe('box');
    const ring = { id: 'p', name: 'person', instance: 'i3', bounding_box: { x: 1, y: 2, w: 3, h: 4 }, polygon: { path: [[1, 2], [4, 2], [4, 6], [1, 6]] } };
    expect(joinInstance([ring, { ...point, instance: 'i3' }]).vellum_shape, 'a rectangle polygon is not marked').toBeUndefined();
  });
});
