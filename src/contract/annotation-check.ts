// The one validator of stored annotations (issue 16). The rules are the zod schema's
// (StoredAnnotation in ./annotations.ts); this file adds what every caller needs on top of it:
// - a fast path: at 100k shapes zod's safeParse (a validated copy of every object and point) was
//   most of a load's and a save's time. Plain boxes, polygons, polylines and keypoints (no
//   attributes, masks or unknown keys) are checked here by hand without copying; anything else,
//   valid or not, goes to zod, so what is accepted and every error message stay the schema's
//   (tests/engine/convert.test.ts compares the two on random mutations);
// - list rules: duplicate ids and, when the caller knows them, class names.
// Used by the server before it stores (services/annotations, the importer) and by the engine when
// it loads (engine/model/convert.ts).
import { POLYGON_MIN_POINTS, POLYLINE_MIN_POINTS, StoredAnnotation } from './annotations';
import { isStorableText, printableText } from './text';

const PLAIN_KEYS = new Set(['id', 'name', 'bounding_box', 'polygon', 'polyline', 'keypoint']);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCoord = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function isPlainPath(v: unknown, min: number): boolean {
  if (!Array.isArray(v) || v.length < min) return false;
  for (let i = 0; i < v.length; i++) {
    const p: unknown = v[i];
    if (!Array.isArray(p) || p.length !== 2 || !isCoord(p[0]) || !isCoord(p[1])) return false;
  }
  return true;
}

function isPlainShape(polygon: unknown, polyline: unknown, keypoint: unknown): boolean {
  if ((polygon !== undefined ? 1 : 0) + (polyline !== undefined ? 1 : 0) + (keypoint !== undefined ? 1 : 0) > 1) return false;
  if (polygon !== undefined) {
    if (!isRecord(polygon) || !isPlainPath(polygon.path, POLYGON_MIN_POINTS)) return false;
    const { holes } = polygon;
    return holes === undefined || (Array.isArray(holes) && holes.every((h) => isPlainPath(h, POLYGON_MIN_POINTS)));
  }
  if (polyline !== undefined) {
    if (!isRecord(polyline)) return false;
    return isPlainPath(polyline.path, POLYLINE_MIN_POINTS);
  }
  if (keypoint !== undefined) {
    if (!isRecord(keypoint)) return false;
    return isCoord(keypoint.x) && isCoord(keypoint.y);
  }
  return true;
}

/**
 * True for a valid plain box, polygon, polyline or keypoint (only the keys id, name, bounding_box
 * and one shape; unknown keys inside those objects are ignored, as the schema strips them), checked
 * without zod. False means "ask zod", not "invalid": it never accepts
 * what the schema rejects.
 */
export function isPlainStoredAnnotation(json: unknown): json is StoredAnnotation {
  if (!isRecord(json)) return false;
  for (const k in json) if (!PLAIN_KEYS.has(k)) return false;
  const { id, name, bounding_box: bb } = json;
  if (typeof id !== 'string' || id.length === 0 || !isStorableText(id)) return false;
  if (typeof name !== 'string' || !isStorableText(name) || !isRecord(bb)) return false;
  const { x, y, w, h } = bb;
  if (!isCoord(x) || !isCoord(y) || !isCoord(w) || !isCoord(h) || w < 0 || h < 0) return false;
  return isPlainShape(json.polygon, json.polyline, json.keypoint);
}

export interface AnnotationIssue {
  /** Where in the annotation, e.g. ['polygon', 'path']. */
  path: PropertyKey[];
  message: string;
}

/** The first problem of one stored annotation, or null when it is valid. */
export function storedAnnotationIssue(json: unknown): AnnotationIssue | null {
  if (isPlainStoredAnnotation(json)) return null;
  const r = StoredAnnotation.safeParse(json);
  if (r.success) return null;
  const issue = r.error.issues[0]!;
  return { path: issue.path, message: issue.message };
}

export type AnnotationProblemCode = 'invalid_annotation' | 'duplicate_annotation_id' | 'unknown_class';

export interface AnnotationProblem {
  /** Position of the bad annotation in the list. */
  index: number;
  code: AnnotationProblemCode;
  /** A sentence naming the annotation ("Annotation 3 (id "a")") and what is wrong. */
  message: string;
}

/** "polygon.path[2]" for a zod issue path. */
export function describePath(path: readonly PropertyKey[]): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '');
}

function label(index: number, raw: unknown): string {
  const id = isRecord(raw) && typeof raw.id === 'string' ? raw.id : null;
  return id === null ? `Annotation ${index}` : `Annotation ${index} (id "${printableText(id.slice(0, 100))}")`;
}

/**
 * The first problem of a list of stored annotations, in list order: an annotation the schema
 * refuses, an id used twice, or (when `classNames` is given) a class the project does not have.
 */
export function findAnnotationProblem(list: readonly unknown[], classNames?: ReadonlySet<string>): AnnotationProblem | null {
  const seen = new Map<string, number>();
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    const issue = storedAnnotationIssue(item);
    if (issue) {
      const where = describePath(issue.path);
      return { index: i, code: 'invalid_annotation', message: `${label(i, item)}: ${where ? `${where}: ` : ''}${issue.message}` };
    }
    const a = item as StoredAnnotation;
    const first = seen.get(a.id);
    if (first !== undefined) return { index: i, code: 'duplicate_annotation_id', message: `${label(i, item)}: duplicate annotation id (annotation ${first} has the same id)` };
    seen.set(a.id, i);
    if (classNames && !classNames.has(a.name)) return { index: i, code: 'unknown_class', message: `Unknown class "${printableText(a.name.slice(0, 200))}"` };
  }
  return null;
}
