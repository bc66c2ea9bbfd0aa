// What pycocotools needs of a COCO instances file (COCO(), annToRLE, annToMask, loadRes,
// COCOeval), checked the same way by every test that writes one: the export's, the split's and
// the formats' round trips.
import { expect } from 'vitest';

export interface CocoFileLike {
  images: { id: number; width: number; height: number }[];
  annotations: Record<string, unknown>[];
  categories: { id: number }[];
}

/**
 * Every annotation has the numeric keys pycocotools indexes, points at an image and a category of
 * the file, has a finite 4-number bbox, iscrowd 0 or 1, and a segmentation that is either a
 * compressed RLE of its image's [height, width] or a non-empty list of polygons of 3+ points
 * (pycocotools reads a 4-number list as a bbox, and frPyObjects indexes segm[0]).
 */
export function expectPycocotoolsReadable(coco: CocoFileLike): void {
  const images = new Map(coco.images.map((i) => [i.id, i]));
  const categoryIds = new Set(coco.categories.map((c) => c.id));
  for (const a of coco.annotations) {
    for (const key of ['id', 'image_id', 'category_id', 'area']) expect(typeof a[key], key).toBe('number');
    const image = images.get(a.image_id as number);
    expect(image, `image ${String(a.image_id)} of annotation ${String(a.id)}`).toBeDefined();
    expect(categoryIds.has(a.category_id as number), `category ${String(a.category_id)}`).toBe(true);
    expect([0, 1]).toContain(a.iscrowd);
    const bbox = a.bbox as number[];
    expect(bbox).toHaveLength(4);
    expect(bbox.every(Number.isFinite)).toBe(true);
    const seg = a.segmentation;
    if (Array.isArray(seg)) {
      expect(seg.length).toBeGreaterThan(0);
      for (const poly of seg as number[][]) {
        expect(poly.length).toBeGreaterThanOrEqual(6);
        expect(poly.length % 2).toBe(0);
        expect(poly.every(Number.isFinite)).toBe(true);
      }
    } else {
      expect(seg).toEqual({ size: [image!.height, image!.width], counts: expect.any(String) });
    }
  }
}
