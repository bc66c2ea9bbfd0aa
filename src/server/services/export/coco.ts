// Stored annotations -> COCO "instances" records (one image at a time; the caller streams them).
//
// Decisions (see README.txt inside each COCO zip and the export service header):
// - box: bbox [x,y,w,h], area w*h, segmentation the box as a polygon (pycocotools' annToRLE /
//   frPyObjects crash on an empty segmentation list), iscrowd 0.
// - polygon without holes: segmentation [[x1,y1,x2,y2,...]], area by the shoelace formula,
//   bbox from the vertices, iscrowd 0.
// - polygon with holes: rasterised (pixel centres, even-odd) to COCO RLE with the compressed
//   string counts pycocotools writes; area and bbox from the mask, iscrowd 0.
// - mask (segmentation): re-emitted as compressed RLE; area and bbox from the runs, iscrowd 0.
//   pycocotools accepts RLE with iscrowd 0 everywhere (COCO(), annToRLE, annToMask, loadRes,
//   COCOeval); iscrowd 1 would make COCOeval treat the object as an ignore region.
// - keypoint: `keypoints: [x, y, 2]`, `num_keypoints: 1`, bbox [x, y, 0, 0], area 0, and as
//   segmentation the point as a degenerate triangle [[x,y,x,y,x,y]] (its category carries
//   keypoints ['point'] and skeleton []).
// - polyline: COCO has no open paths: left out and counted for README.txt.
import type { Kernels } from '../../../kernels/node';
import { countsToString, numericCounts, rleArea, rleBBox } from '../../../contract/rle';

type Pt = [number, number];
export type CocoKind = 'box' | 'polygon' | 'keypoint' | 'mask';

export interface CocoAnnotationBody {
  bbox: [number, number, number, number];
  area: number;
  iscrowd: 0;
  segmentation: number[][] | { size: [number, number]; counts: string };
  keypoints?: [number, number, 2];
  num_keypoints?: 1;
}

export type Converted = { kind: CocoKind; body: CocoAnnotationBody } | { kind: 'polyline' } | { kind: 'invalid'; reason: string };

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isPath = (v: unknown): v is Pt[] => Array.isArray(v) && v.every((p) => Array.isArray(p) && p.length >= 2 && isNum(p[0]) && isNum(p[1]));
const round = (v: number) => Math.round(v * 1000) / 1000;

export function shoelace(path: readonly Pt[]): number {
  let s = 0;
  for (let i = 0; i < path.length; i++) {
    const [x1, y1] = path[i]!;
    const [x2, y2] = path[(i + 1) % path.length]!;
    s += x1 * y2 - x2 * y1;
  }
  return Math.abs(s) / 2;
}

function pathBBox(path: readonly Pt[]): [number, number, number, number] {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const [x, y] of path) {
    if (x < x0) x0 = x;
    if (y < y0) y0 = y;
    if (x > x1) x1 = x;
    if (y > y1) y1 = y;
  }
  return [round(x0), round(y0), round(x1 - x0), round(y1 - y0)];
}

export interface ImageSize {
  width: number;
  height: number;
}

/**
 * One stored annotation in COCO form. `size` is the image size (needed to rasterise polygons with
 * holes); `kernels` are loaded by the caller when the export is COCO.
 */
export function toCoco(a: Record<string, unknown>, size: ImageSize | null, kernels: Kernels): Converted {
  if (a.polyline !== undefined) return { kind: 'polyline' };
  if (a.keypoint !== undefined) {
    const k = a.keypoint as { x?: unknown; y?: unknown };
    if (!isNum(k.x) || !isNum(k.y)) return { kind: 'invalid', reason: 'keypoint without coordinates' };
    // Not `segmentation: []`: like the box's polygon, this keeps pycocotools' annToRLE /
    // frPyObjects (COCOeval 'segm', annToMask) from crashing on an empty list. Three vertices,
    // not two: frPyObjects reads a 4-number list as a bbox. It rasterises to an empty mask (area 0).
    const point = [k.x, k.y, k.x, k.y, k.x, k.y];
    return { kind: 'keypoint', body: { bbox: [k.x, k.y, 0, 0], area: 0, iscrowd: 0, segmentation: [point], keypoints: [k.x, k.y, 2], num_keypoints: 1 } };
  }
  if (a.segmentation !== undefined) {
    const seg = a.segmentation as { size?: unknown; counts?: unknown };
    if (!Array.isArray(seg.size) || seg.size.length !== 2 || !(typeof seg.counts === 'string' || Array.isArray(seg.counts))) {
      return { kind: 'invalid', reason: 'mask without size or counts' };
    }
    const rle = { size: [Number(seg.size[0]), Number(seg.size[1])] as [number, number], counts: seg.counts as string | number[] };
    const counts = numericCounts(rle);
    const b = rleBBox({ size: rle.size, counts });
    return {
      kind: 'mask',
      body: { bbox: [b.x, b.y, b.width, b.height], area: rleArea({ size: rle.size, counts }), iscrowd: 0, segmentation: { size: rle.size, counts: countsToString(counts) } },
    };
  }
  if (a.polygon !== undefined) {
    const p = a.polygon as { path?: unknown; holes?: unknown };
    if (!isPath(p.path) || p.path.length < 3) return { kind: 'invalid', reason: 'polygon with fewer than 3 points' };
    const holes = Array.isArray(p.holes) ? p.holes.filter((h): h is Pt[] => isPath(h) && h.length >= 3) : [];
    if (holes.length === 0) {
      return { kind: 'polygon', body: { bbox: pathBBox(p.path), area: round(shoelace(p.path)), iscrowd: 0, segmentation: [p.path.flatMap(([x, y]) => [x, y])] } };
    }
    // The mask needs the image size; without one recorded, the extent of the shape stands in.
    const bb = pathBBox(p.path);
    const w = size?.width ?? Math.max(1, Math.ceil(bb[0] + bb[2]));
    const h = size?.height ?? Math.max(1, Math.ceil(bb[1] + bb[3]));
    const counts = Array.from(kernels.polygonsToRle([{ path: p.path, holes }], h, w));
    const rb = rleBBox({ size: [h, w], counts });
    return {
      kind: 'polygon',
      body: { bbox: [rb.x, rb.y, rb.width, rb.height], area: rleArea({ size: [h, w], counts }), iscrowd: 0, segmentation: { size: [h, w], counts: countsToString(counts) } },
    };
  }
  const box = a.bounding_box as { x?: unknown; y?: unknown; w?: unknown; h?: unknown } | undefined;
  if (!box || !isNum(box.x) || !isNum(box.y) || !isNum(box.w) || !isNum(box.h)) return { kind: 'invalid', reason: 'box without coordinates' };
  const { x, y, w, h } = box as { x: number; y: number; w: number; h: number };
  return { kind: 'box', body: { bbox: [x, y, w, h], area: round(w * h), iscrowd: 0, segmentation: [[x, y, x + w, y, x + w, y + h, x, y + h]] } };
}
