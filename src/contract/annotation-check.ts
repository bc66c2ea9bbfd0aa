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
import {
  MAX_ANNOTATION_DEPTH,
  MAX_ANNOTATION_ID_LENGTH,
  MAX_ANNOTATION_KEY_LENGTH,
  MAX_ATTRIBUTE_ENTRIES,
  MAX_CLASS_NAME_LENGTH,
  MAX_EXTRA_BYTES,
  MAX_EXTRA_KEYS,
  POLYGON_MIN_POINTS,
  POLYLINE_MIN_POINTS,
  SHAPE_KEYS,
  StoredAnnotation,
} from './annotations';
import { isStorableText, printableText } from './text';

const PLAIN_KEYS = new Set(['id', 'name', 'bounding_box', 'polygon', 'polyline', 'keypoint']);
/** The keys that are not "extra" (MAX_EXTRA_KEYS). */
const KNOWN_KEYS = new Set<string>(['id', 'name', 'bounding_box', 'attributes', ...SHAPE_KEYS]);

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

/** True when no key of `o` is longer than MAX_ANNOTATION_KEY_LENGTH. */
function shortKeys(o: Record<string, unknown>): boolean {
  for (const k in o) if (k.length > MAX_ANNOTATION_KEY_LENGTH) return false;
  return true;
}

function isPlainShape(polygon: unknown, polyline: unknown, keypoint: unknown): boolean {
  if ((polygon !== undefined ? 1 : 0) + (polyline !== undefined ? 1 : 0) + (keypoint !== undefined ? 1 : 0) > 1) return false;
  if (polygon !== undefined) {
    if (!isRecord(polygon) || !shortKeys(polygon) || !isPlainPath(polygon.path, POLYGON_MIN_POINTS)) return false;
    const { holes } = polygon;
    return holes === undefined || (Array.isArray(holes) && holes.every((h) => isPlainPath(h, POLYGON_MIN_POINTS)));
  }
  if (polyline !== undefined) {
    if (!isRecord(polyline) || !shortKeys(polyline)) return false;
    return isPlainPath(polyline.path, POLYLINE_MIN_POINTS);
  }
  if (keypoint !== undefined) {
    if (!isRecord(keypoint) || !shortKeys(keypoint)) return false;
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
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ANNOTATION_ID_LENGTH || !isStorableText(id)) return false;
  if (typeof name !== 'string' || name.length > MAX_CLASS_NAME_LENGTH || !isStorableText(name) || !isRecord(bb) || !shortKeys(bb)) return false;
  const { x, y, w, h } = bb;
  if (!isCoord(x) || !isCoord(y) || !isCoord(w) || !isCoord(h) || w < 0 || h < 0) return false;
  return isPlainShape(json.polygon, json.polyline, json.keypoint);
}

export interface AnnotationIssue {
  /** Where in the annotation, e.g. ['polygon', 'path']. */
  path: PropertyKey[];
  message: string;
}

const over = (what: string, limit: string, found: string) => `${what} must be at most ${limit} (found ${found})`;

/**
 * The first client-chosen key or value over its limit (MAX_* in ./annotations.ts): the id's and the
 * class name's length, every object key's length, an attribute entry's name, the number of extra
 * keys and attribute entries, how deep values nest and the JSON size of attributes and extras.
 * Walks without recursion, so it runs before the schema, which would overflow its stack on deep values.
 */
export function annotationLimitIssue(json: unknown): AnnotationIssue | null {
  if (!isRecord(json)) return null;
  const { id, name, attributes } = json;
  if (typeof id === 'string' && id.length > MAX_ANNOTATION_ID_LENGTH) return { path: ['id'], message: over('The id', `${MAX_ANNOTATION_ID_LENGTH} characters`, `${id.length}`) };
  if (typeof name === 'string' && name.length > MAX_CLASS_NAME_LENGTH) return { path: ['name'], message: over('The class name', `${MAX_CLASS_NAME_LENGTH} characters`, `${name.length}`) };
  const extras = Object.keys(json).filter((k) => !KNOWN_KEYS.has(k));
  if (extras.length > MAX_EXTRA_KEYS) {
    return { path: [], message: `An annotation may hold at most ${MAX_EXTRA_KEYS} keys besides id, name, bounding_box, its shape and attributes (found ${extras.length})` };
  }
  if (Array.isArray(attributes)) {
    if (attributes.length > MAX_ATTRIBUTE_ENTRIES) return { path: ['attributes'], message: over('The attributes', `${MAX_ATTRIBUTE_ENTRIES} entries`, `${attributes.length}`) };
    for (const [i, e] of attributes.entries()) {
      if (isRecord(e) && typeof e.name === 'string' && e.name.length > MAX_ANNOTATION_KEY_LENGTH) {
        return { path: ['attributes', i, 'name'], message: over('An attribute name', `${MAX_ANNOTATION_KEY_LENGTH} characters`, `${e.name.length}`) };
      }
    }
  }
  const nested = nestingIssue(json);
  if (nested) return nested;
  let bytes = attributes === undefined ? 0 : JSON.stringify(attributes).length;
  for (const k of extras) bytes += k.length + (JSON.stringify(json[k])?.length ?? 0);
  if (bytes > MAX_EXTRA_BYTES) return { path: [], message: over('Attributes and extra keys', `${MAX_EXTRA_BYTES / 1024} KB of JSON`, `${Math.ceil(bytes / 1024)} KB`) };
  return null;
}

/** The first object key over MAX_ANNOTATION_KEY_LENGTH, or value nested deeper than MAX_ANNOTATION_DEPTH, anywhere in `json`. */
function nestingIssue(json: Record<string, unknown>): AnnotationIssue | null {
  const stack: { v: object; path: PropertyKey[] }[] = [{ v: json, path: [] }];
  while (stack.length > 0) {
    const { v, path } = stack.pop()!;
    if (path.length >= MAX_ANNOTATION_DEPTH) return { path, message: `Values may be nested at most ${MAX_ANNOTATION_DEPTH} levels deep` };
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (typeof x === 'object' && x !== null) stack.push({ v: x, path: [...path, i] });
      }
      continue;
    }
    for (const [k, x] of Object.entries(v)) {
      if (k.length > MAX_ANNOTATION_KEY_LENGTH) return { path, message: over('Object keys', `${MAX_ANNOTATION_KEY_LENGTH} characters`, `one of ${k.length}`) };
      if (typeof x === 'object' && x !== null) stack.push({ v: x, path: [...path, k] });
    }
  }
  return null;
}

/** The first problem of one stored annotation, or null when it is valid. */
export function storedAnnotationIssue(json: unknown): AnnotationIssue | null {
  if (isPlainStoredAnnotation(json)) return null;
  const limit = annotationLimitIssue(json);
  if (limit) return limit;
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
