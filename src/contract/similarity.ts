// How much two shapes with an area overlap (issue 36 §2 and §3): the IoU that ground-truth scoring
// (src/server/services/quality) and the reviewer's consensus merge (the SPA's merge view) share,
// so both sides measure agreement alike. Pure: polygon-clipping and the RLE codec only.
import polygonClipping, { type MultiPolygon, type Polygon } from 'polygon-clipping';
import { foregroundRuns, numericCounts, rleArea } from './rle';
import type { StoredAnnotation, StoredBoundingBox } from './annotations';

const boxRing = (b: StoredBoundingBox): [number, number][] => [[b.x, b.y], [b.x + b.w, b.y], [b.x + b.w, b.y + b.h], [b.x, b.y + b.h], [b.x, b.y]];

function geometryOf(a: StoredAnnotation): Polygon {
  if (a.polygon) return [a.polygon.path.map(([x, y]) => [x, y] as [number, number]), ...(a.polygon.holes ?? []).map((h) => h.map(([x, y]) => [x, y] as [number, number]))];
  return [boxRing(a.bounding_box)];
}

/** Area of a closed ring (shoelace), whatever its direction. */
function ringArea(path: readonly (readonly [number, number])[]): number {
  let s = 0;
  for (let i = 0; i < path.length; i++) {
    const [x1, y1] = path[i]!;
    const [x2, y2] = path[(i + 1) % path.length]!;
    s += x1 * y2 - x2 * y1;
  }
  return Math.abs(s / 2);
}

function multiArea(mp: MultiPolygon): number {
  let area = 0;
  for (const poly of mp) poly.forEach((ring, i) => (area += i === 0 ? ringArea(ring) : -ringArea(ring)));
  return area;
}

/** IoU of two axis-aligned boxes; 0 when neither has an area. */
export function boxIou(a: StoredBoundingBox, b: StoredBoundingBox): number {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  const inter = w > 0 && h > 0 ? w * h : 0;
  const union = a.w * a.h + b.w * b.h - inter;
  return union > 0 ? inter / union : 0;
}

/** IoU of two RLE masks of one size, from their runs (column-major, as COCO's). */
function maskIou(a: NonNullable<StoredAnnotation['segmentation']>, b: NonNullable<StoredAnnotation['segmentation']>): number {
  if (a.size[0] !== b.size[0] || a.size[1] !== b.size[1]) return 0;
  const ra = foregroundRuns(numericCounts(a));
  const rb = foregroundRuns(numericCounts(b));
  let inter = 0;
  for (let i = 0, j = 0; i < ra.length && j < rb.length; ) {
    const lo = Math.max(ra[i]!, rb[j]!);
    const hi = Math.min(ra[i + 1]!, rb[j + 1]!);
    if (hi > lo) inter += hi - lo;
    if (ra[i + 1]! < rb[j + 1]!) i += 2;
    else j += 2;
  }
  const union = rleArea(a) + rleArea(b) - inter;
  return union > 0 ? inter / union : 0;
}

/**
 * IoU of two shapes with an area. Boxes and polygons (holes cut out) are intersected as polygons;
 * two masks pixel by pixel; a mask against a box or polygon, and a polyline against anything, on
 * their bounding boxes.
 */
export function iou(a: StoredAnnotation, b: StoredAnnotation): number {
  if (a.segmentation && b.segmentation) return maskIou(a.segmentation, b.segmentation);
  if (a.segmentation || b.segmentation || a.polyline || b.polyline) return boxIou(a.bounding_box, b.bounding_box);
  const ga = geometryOf(a);
  const gb = geometryOf(b);
  const inter = multiArea(polygonClipping.intersection(ga, gb));
  const union = multiArea([ga]) + multiArea([gb]) - inter;
  return union > 0 ? inter / union : 0;
}
