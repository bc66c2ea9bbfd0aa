// How alike two shapes are (issue 36 §2 and §3): the IoU of shapes with an area and COCO's OKS of
// keypoints and skeletons, which ground-truth scoring (src/server/services/quality) and the
// reviewer's consensus merge (the SPA's merge view) share, so both sides measure agreement alike.
// The rules are in docs/analytics.md ("Ground truth and scores"). Pure: polygon-clipping and the
// RLE codec only.
import polygonClipping, { type MultiPolygon, type Polygon } from 'polygon-clipping';
import { foregroundRuns, numericCounts, rleArea } from './rle';
import { POINT_MISSING, storedKind, type StoredAnnotation, type StoredBoundingBox } from './annotations';

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

/** Which shapes can be compared with which: areas by IoU, lines by their boxes' IoU, points by OKS. */
export type Family = 'area' | 'line' | 'point';

export function familyOf(a: StoredAnnotation): Family {
  const kind = storedKind(a);
  if (kind === 'keypoint' || kind === 'skeleton') return 'point';
  return kind === 'polyline' ? 'line' : 'area';
}

/** COCO's person keypoints, in COCO's order, and their per-point sigmas (cocoeval). */
export const COCO_PERSON_POINTS = [
  'nose', 'left_eye', 'right_eye', 'left_ear', 'right_ear', 'left_shoulder', 'right_shoulder', 'left_elbow', 'right_elbow',
  'left_wrist', 'right_wrist', 'left_hip', 'right_hip', 'left_knee', 'right_knee', 'left_ankle', 'right_ankle',
] as const;
export const COCO_PERSON_SIGMAS = [0.26, 0.25, 0.25, 0.35, 0.35, 0.79, 0.79, 0.72, 0.72, 0.62, 0.62, 1.07, 1.07, 0.87, 0.87, 0.89, 0.89].map((s) => s / 10);
/** The sigma of a point of any other skeleton, and of a lone keypoint: about the mean of COCO's 17. */
export const DEFAULT_SIGMA = 0.07;
/** The object scale s² of OKS when the ground truth's box has no area (a lone keypoint): a 32 x 32 px object. */
export const DEFAULT_OKS_AREA = 32 * 32;

/** The sigmas of a skeleton class's points: COCO's when its points are COCO's person points, else the default. */
export function sigmasFor(pointNames: readonly string[] | null | undefined, count: number): number[] {
  const coco = pointNames
    ? pointNames.length === COCO_PERSON_POINTS.length && pointNames.every((n, i) => n === COCO_PERSON_POINTS[i])
    : count === COCO_PERSON_POINTS.length;
  return coco ? COCO_PERSON_SIGMAS : new Array<number>(count).fill(DEFAULT_SIGMA);
}

const pointsOf = (a: StoredAnnotation) => a.points ?? (a.keypoint ? [{ ...a.keypoint, v: 2 as const }] : []);

/**
 * COCO's object keypoint similarity of a prediction to its ground truth: over the ground truth's
 * labelled points, the mean of exp(-d² / (2 s² k²)), k = 2 sigma, s² the ground truth box's area
 * (DEFAULT_OKS_AREA when it has none); a point the prediction left unlabelled counts 0. Null when
 * the ground truth labels no point.
 */
export function oks(gt: StoredAnnotation, pred: StoredAnnotation, pointNames?: readonly string[] | null): number | null {
  const g = pointsOf(gt);
  const p = pointsOf(pred);
  const sigmas = sigmasFor(pointNames, g.length);
  const boxArea = gt.bounding_box.w * gt.bounding_box.h;
  const s2 = boxArea > 0 ? boxArea : DEFAULT_OKS_AREA;
  let sum = 0;
  let labelled = 0;
  g.forEach((gp, i) => {
    if (gp.v === POINT_MISSING) return;
    labelled++;
    const pp = p[i];
    if (!pp || pp.v === POINT_MISSING) return;
    const k = 2 * (sigmas[i] ?? DEFAULT_SIGMA);
    const d2 = (gp.x - pp.x) ** 2 + (gp.y - pp.y) ** 2;
    sum += Math.exp(-d2 / (2 * s2 * k * k));
  });
  return labelled > 0 ? sum / labelled : null;
}
