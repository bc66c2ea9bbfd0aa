// How alike two shapes of one class are (issue 36 §2): IoU for shapes with an area, OKS for
// keypoints and skeletons. The rules are in docs/analytics.md ("Ground truth and scores").
import { POINT_MISSING, storedKind, type StoredAnnotation } from '../../../contract/annotations';
import { iou } from '../../../contract/similarity';

/** IoU of shapes with an area: shared with the SPA's consensus merge (src/contract/similarity.ts). */
export { iou };

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
