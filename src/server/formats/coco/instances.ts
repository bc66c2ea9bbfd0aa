// COCO objects made of several Vellum shapes. An import keeps one COCO annotation's pieces as
// separate shapes that share an `instance` key (a person's keypoints, each with its `part`, and
// its box or outline; an object of several polygon rings). The export joins the shapes of one
// class and instance back into one COCO annotation:
// - segmentation: every ring of its polygons without holes, or its mask (RLE), or its box's
//   rectangle with Vellum's box mark (./rules.ts);
// - bbox: its box when it has one, else the extent of its rings, mask or labelled points;
// - keypoints: one [x, y, v] triple per name of the category's keypoints list (v 2, or 1 when the
//   point has the attribute visible = false, 0 for a part the instance lacks). The category's list
//   is every part name met in the export, in first-seen order, so the triples are written at the
//   end (see CocoWriter): here they stay sparse, as [part, x, y, v];
// - attributes: the named attributes of its first shape.
// Shapes without an instance, polygons with holes and skeletons (one annotation each already) are
// exported one by one.
import { numericCounts, rleArea, rleBBox } from '../../../contract/rle';
import { boxRing, isNum, isPath, pathBox, ringArea, type Pt } from '../shapes';
import { storedBox, storedMask } from '../write-common';
import { attributesObject, BOX_MARK, cocoArea, compressedRle, crowdOf, POINT_PART, visibilityOf } from './rules';

export type SparsePoint = [part: string, x: number, y: number, v: 1 | 2];

export interface JoinedAnnotation {
  className: string;
  bbox: [number, number, number, number];
  area: number;
  iscrowd: 0 | 1;
  segmentation: number[][] | { size: [number, number]; counts: string };
  points: SparsePoint[];
  attributes?: Record<string, unknown>;
  /** Vellum's box mark (./rules.ts BOX_MARK), when the segmentation is the group's box. */
  vellum_shape?: 'box';
}

const isPart = (a: Record<string, unknown>) => a.keypoint !== undefined && typeof a.part === 'string';
const hasHoles = (a: Record<string, unknown>) => Array.isArray((a.polygon as { holes?: unknown[] } | undefined)?.holes) && ((a.polygon as { holes: unknown[] }).holes.length > 0);

/**
 * Splits one image's annotations into those exported on their own and the groups joined into one
 * COCO annotation (two or more shapes of one class and instance, or any labelled point).
 */
export function groupInstances(annotations: readonly Record<string, unknown>[]): { singles: Record<string, unknown>[]; groups: Record<string, unknown>[][] } {
  const singles: Record<string, unknown>[] = [];
  const byKey = new Map<string, Record<string, unknown>[]>();
  for (const a of annotations) {
    if (typeof a.instance !== 'string' || a.polyline !== undefined || hasHoles(a) || Array.isArray(a.points)) {
      singles.push(a);
      continue;
    }
    const key = `${String(a.name)}\u0000${a.instance}`;
    const list = byKey.get(key);
    if (list) list.push(a);
    else byKey.set(key, [a]);
  }
  const groups: Record<string, unknown>[][] = [];
  for (const list of byKey.values()) {
    if (list.length > 1 || isPart(list[0]!)) groups.push(list);
    else singles.push(list[0]!);
  }
  return { singles, groups };
}

/** [x, y, w, h] around the points, or null for none. */
function extent(points: readonly Pt[]): [number, number, number, number] | null {
  if (points.length === 0) return null;
  const b = pathBox(points);
  return [b.x, b.y, b.w, b.h];
}

/** One group as a COCO annotation (keypoints still sparse). */
export function joinInstance(group: readonly Record<string, unknown>[]): JoinedAnnotation {
  const rings: Pt[][] = [];
  const points: SparsePoint[] = [];
  let box: [number, number, number, number] | null = null;
  let mask: { size: [number, number]; counts: number[] } | null = null;
  let crowd = false;
  for (const a of group) {
    if (crowdOf(a)) crowd = true;
    const polygon = a.polygon as { path?: unknown } | undefined;
    if (polygon && isPath(polygon.path)) rings.push(polygon.path);
    else if (a.segmentation !== undefined) {
      const m = storedMask(a);
      if (m && !mask) mask = { size: m.size, counts: [...numericCounts(m)] };
    } else if (a.keypoint !== undefined) {
      const k = a.keypoint as { x?: unknown; y?: unknown };
      if (!isNum(k.x) || !isNum(k.y)) continue;
      points.push([typeof a.part === 'string' ? a.part : POINT_PART, k.x, k.y, visibilityOf(a.attributes)]);
    } else {
      const b = storedBox(a);
      if (b && !box) box = [b.x, b.y, b.w, b.h];
    }
  }
  let segmentation: JoinedAnnotation['segmentation'] = [];
  let area = 0;
  let bbox = box;
  let mark: { vellum_shape?: 'box' } = {};
  if (rings.length) {
    segmentation = rings.map((r) => r.flatMap(([x, y]) => [x, y]));
    area = rings.reduce((s, r) => s + ringArea(r), 0);
    bbox ??= extent(rings.flat());
  } else if (mask) {
    segmentation = compressedRle(mask.size, mask.counts);
    area = rleArea(mask);
    const b = rleBBox(mask);
    bbox ??= [b.x, b.y, b.width, b.height];
  } else if (box) {
    const [x, y, w, h] = box;
    segmentation = [boxRing(x, y, w, h)];
    area = w * h;
    mark = BOX_MARK;
  }
  bbox ??= extent(points.map(([, x, y]) => [x, y] as Pt)) ?? [0, 0, 0, 0];
  const attributes = attributesObject(group[0]!);
  return { className: String(group[0]!.name ?? ''), bbox, area: cocoArea(area), iscrowd: crowd ? 1 : 0, segmentation, points, ...(attributes ? { attributes } : {}), ...mark };
}

/** Full [x, y, v] triples for `names` from sparse points (0, 0, 0 for a part the instance lacks). */
export function keypointTriples(points: readonly SparsePoint[], names: readonly string[]): { keypoints: number[]; num_keypoints: number } {
  const at = new Map(points.map((p) => [p[0], p]));
  const keypoints: number[] = [];
  for (const name of names) {
    const p = at.get(name);
    keypoints.push(...(p ? [p[1], p[2], p[3]] : [0, 0, 0]));
  }
  return { keypoints, num_keypoints: points.length };
}
