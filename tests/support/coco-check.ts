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

/**
 * What pycocotools' annToMask gives for a polygon segmentation: each polygon rasterised by its C
 * rleFrPoly (maskApi.c, ported line by line: the boundary upsampled 5x, then the points where the
 * boundary crosses a column, each toggling the pixels below it in column-major order; a point met
 * twice toggles twice), then the polygons' masks united (merge). Column-major, like COCO RLE.
 */
export function pycocotoolsPolygonMask(segmentation: number[][], h: number, w: number): Uint8Array {
  const out = new Uint8Array(h * w);
  for (const xy of segmentation) {
    const mask = frPoly(xy, h, w);
    for (let i = 0; i < out.length; i++) out[i] ||= mask[i]!;
  }
  return out;
}

function frPoly(xy: number[], h: number, w: number): Uint8Array {
  const scale = 5;
  const k = xy.length / 2;
  const x: number[] = [];
  const y: number[] = [];
  for (let j = 0; j < k; j++) x.push(Math.trunc(scale * xy[j * 2]! + 0.5));
  x.push(x[0]!);
  for (let j = 0; j < k; j++) y.push(Math.trunc(scale * xy[j * 2 + 1]! + 0.5));
  y.push(y[0]!);
  const u: number[] = [];
  const v: number[] = [];
  for (let j = 0; j < k; j++) {
    let xs = x[j]!, xe = x[j + 1]!, ys = y[j]!, ye = y[j + 1]!;
    const dx = Math.abs(xe - xs), dy = Math.abs(ys - ye);
    const flip = (dx >= dy && xs > xe) || (dx < dy && ys > ye);
    if (flip) [xs, xe, ys, ye] = [xe, xs, ye, ys];
    const s = dx >= dy ? (ye - ys) / dx : (xe - xs) / dy;
    if (dx >= dy) {
      for (let d = 0; d <= dx; d++) {
        const t = flip ? dx - d : d;
        u.push(t + xs);
        v.push(Math.trunc(ys + s * t + 0.5));
      }
    } else {
      for (let d = 0; d <= dy; d++) {
        const t = flip ? dy - d : d;
        v.push(t + ys);
        u.push(Math.trunc(xs + s * t + 0.5));
      }
    }
  }
  const a: number[] = [];
  for (let j = 1; j < u.length; j++) {
    if (u[j] === u[j - 1]) continue;
    let xd = u[j]! < u[j - 1]! ? u[j]! : u[j]! - 1;
    xd = (xd + 0.5) / scale - 0.5;
    if (Math.floor(xd) !== xd || xd < 0 || xd > w - 1) continue;
    let yd = v[j]! < v[j - 1]! ? v[j]! : v[j - 1]!;
    yd = (yd + 0.5) / scale - 0.5;
    yd = Math.ceil(yd < 0 ? 0 : yd > h ? h : yd);
    a.push(xd * h + yd);
  }
  a.push(h * w);
  a.sort((p, q) => p - q);
  // Runs between the sorted toggles; a zero-length run joins its neighbours (as rleFrPoly does).
  let p = 0;
  for (let j = 0; j < a.length; j++) {
    const t = a[j]!;
    a[j]! -= p;
    p = t;
  }
  const runs: number[] = [a[0]!];
  for (let j = 1; j < a.length; ) {
    if (a[j]! > 0) runs.push(a[j++]!);
    else if (++j < a.length) runs[runs.length - 1]! += a[j++]!;
  }
  const mask = new Uint8Array(h * w);
  let at = 0;
  runs.forEach((n, i) => {
    if (i % 2 === 1) mask.fill(1, at, at + n);
    at += n;
  });
  return mask;
}

/** Intersection over union of two masks of the same size (1 when both are empty). */
export function maskIoU(a: Uint8Array, b: Uint8Array): number {
  let inter = 0, union = 0;
  for (let i = 0; i < a.length; i++) {
    if (a[i] && b[i]) inter++;
    if (a[i] || b[i]) union++;
  }
  return union === 0 ? 1 : inter / union;
}
