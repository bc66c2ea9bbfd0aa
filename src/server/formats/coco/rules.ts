// The COCO rules the reader (./read.ts) and the writer (./write.ts, ./instances.ts) must agree on,
// so that a Vellum COCO export imports back as what was exported:
// - a box is written as its bbox plus its rectangle as the polygon segmentation, marked with the
//   extra key `vellum_shape: 'box'` (pycocotools ignores keys it does not know); a single ring that
//   is the bbox's rectangle reads back as a box only with that mark (../shapes.ts boxRing,
//   isBoxRing): another tool's rectangle polygon stays a polygon, and its boxes (bbox with an empty
//   or absent segmentation) are boxes. Vellum's exports before the mark (info contributor 'Vellum',
//   version '1.0') wrote every box unmarked: there such a ring is a box; the mark's exports say
//   version VELLUM_COCO_VERSION;
// - a lone point is written with its category's keypoints ['point'], bbox [x, y, 0, 0], area 0 and
//   a zero-area triangle as segmentation; such a category reads back as plain keypoints, and the
//   zero-area geometry of a keypoint annotation is dropped;
// - the shapes of one COCO annotation share the stored key `instance`, a skeleton's points carry
//   `part` (the keypoint's name); visibility v 1 is the attribute {name: 'visible', value: false};
// - iscrowd 1 is the stored key `iscrowd: 1`;
// - masks are pycocotools RLE: [height, width], column-major counts summing to height*width,
//   written compressed;
// - `attributes` is an object {name: value}; in Vellum a list of {name, value}.
import { countsToString, rleArea, stringToCounts } from '../../../contract/rle';

/** The keypoint name of a lone point: a category with keypoints ['point'] (or none) holds plain points. */
export const POINT_PART = 'point';
/** The attribute a point marked not visible (COCO v 1) carries, with the value false. */
export const VISIBLE = 'visible';

/** info.version of Vellum's COCO exports since the box mark; '1.0' files (LEGACY_VELLUM_COCO_VERSION) have unmarked boxes. */
export const VELLUM_COCO_VERSION = '1.1';
export const LEGACY_VELLUM_COCO_VERSION = '1.0';

/** Whether a COCO file's info says it is a Vellum export from before the box mark. */
export const isLegacyVellumInfo = (info: unknown): boolean =>
  typeof info === 'object' && info !== null && (info as { contributor?: unknown }).contributor === 'Vellum' && (info as { version?: unknown }).version === LEGACY_VELLUM_COCO_VERSION;

/** The key, and its value, that mark an annotation Vellum exported from a box (see above). */
export const BOX_MARK = { vellum_shape: 'box' } as const;

/** Whether a COCO annotation carries Vellum's box mark. */
export const hasBoxMark = (a: Record<string, unknown>): boolean => a.vellum_shape === BOX_MARK.vellum_shape;

/** Whether a category's keypoints list means lone points (Vellum's export of its keypoint annotations). */
export function isLonePointCategory(keypoints: readonly string[]): boolean {
  return keypoints.length <= 1 && (keypoints[0] ?? POINT_PART) === POINT_PART;
}

/**
 * A point's segmentation: a zero-area triangle. Not `[]`: pycocotools' annToRLE / frPyObjects
 * crash on an empty list; not two vertices: frPyObjects reads a 4-number list as a bbox.
 */
export function pointSegmentation(x: number, y: number): number[][] {
  return [[x, y, x, y, x, y]];
}

/** COCO's v of a stored point: 1 when it has the attribute visible = false, else 2. */
export function visibilityOf(attributes: unknown): 1 | 2 {
  return Array.isArray(attributes) && (attributes as { name?: unknown; value?: unknown }[]).some((e) => e?.name === VISIBLE && e.value === false) ? 1 : 2;
}

/** The attributes a point of visibility `v` is stored with. */
export function visibilityAttributes(v: number): { name: string; value: boolean }[] {
  return v === 1 ? [{ name: VISIBLE, value: false }] : [];
}

/** iscrowd of a stored shape: 1 only when it was imported as a crowd region. */
export const crowdOf = (a: Record<string, unknown>): 0 | 1 => (a.iscrowd === 1 ? 1 : 0);

/** An area as written: 3 decimals. */
export const cocoArea = (v: number) => Math.round(v * 1000) / 1000;

/** A mask's segmentation as written: compressed counts (pycocotools' string). */
export function compressedRle(size: [number, number], counts: readonly number[]): { size: [number, number]; counts: string } {
  return { size, counts: countsToString(counts) };
}

/** A COCO RLE segmentation checked; the reason when it cannot be read. Counts keep their form (string or numbers). */
export function parseRle(seg: Record<string, unknown>): { size: [number, number]; counts: number[] | string; area: number } | string {
  const size = seg.size;
  if (!Array.isArray(size) || size.length !== 2 || !size.every((v) => Number.isInteger(v) && (v as number) >= 0)) return 'RLE size must be [height, width]';
  const [h, w] = size as [number, number];
  let counts: number[];
  if (typeof seg.counts === 'string') {
    try {
      counts = stringToCounts(seg.counts);
    } catch (err) {
      return `compressed RLE counts are malformed (${(err as Error).message})`;
    }
  } else if (Array.isArray(seg.counts) && seg.counts.every((c) => Number.isInteger(c) && (c as number) >= 0)) {
    counts = seg.counts as number[];
  } else {
    return 'RLE counts must be a string or a list of whole numbers';
  }
  let sum = 0;
  for (const c of counts) sum += c;
  if (counts.some((c) => c < 0)) return 'RLE counts must not be negative';
  if (sum !== h * w) return `RLE counts sum to ${sum}, expected height*width = ${h * w}`;
  return { size: [h, w], counts: typeof seg.counts === 'string' ? seg.counts : counts, area: rleArea({ size: [h, w], counts }) };
}

/**
 * `{name: value}` of an annotation's named attributes ({name, value} entries), or undefined when it
 * has none; `visible` is COCO's v, not an attribute. A prototype-less object: a name like
 * `__proto__` is an own key, written like any other (on `{}` it would set the prototype and vanish
 * from the JSON).
 */
export function attributesObject(a: Record<string, unknown>): Record<string, unknown> | undefined {
  if (!Array.isArray(a.attributes)) return undefined;
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  let any = false;
  for (const e of a.attributes as unknown[]) {
    if (!e || typeof e !== 'object' || Array.isArray(e)) continue;
    const { name, value } = e as { name?: unknown; value?: unknown };
    if (typeof name !== 'string' || name === VISIBLE) continue;
    out[name] = value ?? null;
    any = true;
  }
  return any ? out : undefined;
}
