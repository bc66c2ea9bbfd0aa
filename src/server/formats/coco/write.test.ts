// COCO export: named attributes become the annotation's `attributes` object; a name like
// `__proto__` (which the Vellum importer stores) must be written like any other (issue 30, finding 12).
import { describe, expect, it } from 'vitest';
import { encodeMask } from '../../../contract/rle';
import { loadKernelsNode } from '../../../kernels/node';
import { maskIoU, pycocotoolsPolygonMask } from '../../../../tests/support/coco-check';
import { joinInstance } from './instances';
import { attributesObject as namedAttributes } from './rules';
import { maskAsPolygons } from './write';

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

// mask_format 'polygon' (issue 32 §3): a mask with holes as COCO polygons, decoded the way
// pycocotools decodes them (annToMask: each polygon by rleFrPoly, then their union).
describe('COCO masks as polygons keep their holes', () => {
  const H = 40;
  const W = 60;
  /** A disc with three round holes and a separate square with a square hole (column-major). */
  function holedMask(): Uint8Array {
    const px = new Uint8Array(W * H);
    const holes = [[18, 16, 3], [26, 24, 2.5], [20, 27, 2]] as const;
    for (let x = 0; x < W; x++) {
      for (let y = 0; y < H; y++) {
        const inDisc = (x - 22) ** 2 + (y - 20) ** 2 < 14 ** 2 && !holes.some(([hx, hy, r]) => (x - hx) ** 2 + (y - hy) ** 2 < r * r);
        const inSquare = x >= 42 && x < 56 && y >= 5 && y < 19 && !(x >= 47 && x < 51 && y >= 10 && y < 14);
        if (inDisc || inSquare) px[x * H + y] = 1;
      }
    }
    return px;
  }

  it('joins each hole by a keyhole bridge: pycocotools decodes the exact trace to the mask itself', async () => {
    const kernels = await loadKernelsNode();
    const px = holedMask();
    const mask = { segmentation: { size: [H, W], counts: encodeMask(px, H, W) } };
    const exact = maskAsPolygons(mask, kernels, 0);
    if (exact.kind !== 'mask') throw new Error(exact.reason);
    expect(exact.holes).toBe(true);
    const rings = exact.body.segmentation as number[][];
    expect(rings).toHaveLength(2); // one ring per connected part, holes inside them
    expect(maskIoU(pycocotoolsPolygonMask(rings, H, W), px)).toBe(1);
    expect(exact.body.area).toBe(px.reduce((n, v) => n + v, 0));
    // Filled (the outer rings alone), the holes' pixels would come back: the IoU test can fail.
    const outers = kernels.maskToPolygons(mask.segmentation, { tolerance: 0 }).map((p) => p.path.flat());
    expect(maskIoU(pycocotoolsPolygonMask(outers, H, W), px)).toBeLessThan(0.97);
  });

  it('with the default 1 px simplification the holes stay empty and the IoU stays high', async () => {
    const kernels = await loadKernelsNode();
    const px = holedMask();
    const simplified = maskAsPolygons({ segmentation: { size: [H, W], counts: encodeMask(px, H, W) } }, kernels);
    if (simplified.kind !== 'mask') throw new Error(simplified.reason);
    const decoded = pycocotoolsPolygonMask(simplified.body.segmentation as number[][], H, W);
    expect(maskIoU(decoded, px)).toBeGreaterThan(0.95);
    // The square's hole, well inside the 1 px tolerance of its corners: empty.
    for (let x = 48; x < 50; x++) for (let y = 11; y < 13; y++) expect(decoded[x * H + y]).toBe(0);
  });
});
