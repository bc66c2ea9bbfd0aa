// Lossless conversion between the stored annotation (src/contract/annotations.ts) and the
// editor-side annotation. stored -> editor -> stored gives back the same object, with one
// normalisation: for polygon, polyline, keypoint and skeleton the bounding box is derived from the
// geometry on save (so it can never go stale after an edit). Box and segmentation keep theirs.
import { z } from 'zod';
import { StoredAnnotation, StoredAnnotations } from '../../contract/annotations';
import { isPlainStoredAnnotation } from '../../contract/annotation-check';
import { annotationBounds } from './geometry';
import type { EditorAnnotation, JsonValue, Point } from './types';

const KNOWN_KEYS = new Set(['id', 'name', 'bounding_box', 'polygon', 'polyline', 'keypoint', 'segmentation', 'points', 'attributes']);

const clonePath = (path: readonly (readonly [number, number])[]): Point[] => path.map(([x, y]) => [x, y] as const);

export function storedToEditor(s: StoredAnnotation): EditorAnnotation {
  const base: { id: string; class: string; attributes?: JsonValue[]; extra?: Record<string, unknown> } = { id: s.id, class: s.name };
  if (s.attributes !== undefined) base.attributes = structuredClone(s.attributes) as JsonValue[];
  const extraKeys = Object.keys(s).filter((k) => !KNOWN_KEYS.has(k));
  if (extraKeys.length > 0) {
    // Prototype-less, so an extra key named __proto__ is kept as data, not taken as the prototype.
    const extra: Record<string, unknown> = Object.create(null);
    for (const k of extraKeys) extra[k] = structuredClone((s as Record<string, unknown>)[k]);
    base.extra = extra;
  }
  const bb = s.bounding_box;
  if (s.polygon) {
    return s.polygon.holes !== undefined
      ? { ...base, type: 'polygon', points: clonePath(s.polygon.path), holes: s.polygon.holes.map(clonePath) }
      : { ...base, type: 'polygon', points: clonePath(s.polygon.path) };
  }
  if (s.polyline) return { ...base, type: 'polyline', points: clonePath(s.polyline.path) };
  if (s.keypoint) return { ...base, type: 'keypoint', x: s.keypoint.x, y: s.keypoint.y };
  if (s.points) return { ...base, type: 'skeleton', keypoints: s.points.map((p) => ({ x: p.x, y: p.y, v: p.v })) };
  if (s.segmentation) {
    const counts = typeof s.segmentation.counts === 'string' ? s.segmentation.counts : [...s.segmentation.counts];
    return {
      ...base,
      type: 'segmentation',
      rle: { size: [s.segmentation.size[0], s.segmentation.size[1]], counts },
      x: bb.x, y: bb.y, width: bb.w, height: bb.h,
    };
  }
  return { ...base, type: 'box', x: bb.x, y: bb.y, width: bb.w, height: bb.h };
}

export function editorToStored(a: EditorAnnotation): StoredAnnotation {
  const b = annotationBounds(a);
  const out: Record<string, unknown> = {
    id: a.id,
    name: a.class,
    bounding_box: a.type === 'box' || a.type === 'segmentation'
      ? { x: a.x, y: a.y, w: a.width, h: a.height }
      : { x: b.minX, y: b.minY, w: b.maxX - b.minX, h: b.maxY - b.minY },
  };
  switch (a.type) {
    case 'polygon':
      out.polygon = a.holes !== undefined
        ? { path: clonePath(a.points), holes: a.holes.map(clonePath) }
        : { path: clonePath(a.points) };
      break;
    case 'polyline':
      out.polyline = { path: clonePath(a.points) };
      break;
    case 'keypoint':
      out.keypoint = { x: a.x, y: a.y };
      break;
    case 'segmentation':
      out.segmentation = {
        size: [a.rle.size[0], a.rle.size[1]],
        counts: typeof a.rle.counts === 'string' ? a.rle.counts : [...a.rle.counts],
      };
      break;
    case 'skeleton':
      out.points = a.keypoints.map((p) => ({ x: p.x, y: p.y, v: p.v }));
      break;
    case 'box':
      break;
  }
  if (a.attributes !== undefined) out.attributes = structuredClone(a.attributes);
  if (a.extra) {
    for (const [k, v] of Object.entries(a.extra)) {
      // defineProperty: a plain assignment of '__proto__' would set the prototype and drop the key.
      if (!KNOWN_KEYS.has(k)) Object.defineProperty(out, k, { value: structuredClone(v), enumerable: true, writable: true, configurable: true });
    }
  }
  return out as StoredAnnotation;
}

/** Validates untrusted JSON (e.g. a load-data answer) and converts it; throws a ZodError on bad input. */
export function parseStoredAnnotations(json: unknown): EditorAnnotation[] {
  return StoredAnnotations.parse(json).map(storedToEditor);
}

/**
 * One element of a stored list, validated and converted (what Editor.loadStoredAsync does per
 * annotation, so a 100k list is checked in slices). A ZodError's issue paths start with `index`,
 * as parseStoredAnnotations' would; duplicate ids are the caller's to check.
 */
export function parseStoredAnnotationAt(json: unknown, index: number): EditorAnnotation {
  const fast = plainStoredToEditor(json);
  if (fast) return fast;
  const r = StoredAnnotation.safeParse(json);
  if (!r.success) throw new z.ZodError(r.error.issues.map((i) => ({ ...i, path: [index, ...i.path] })));
  return storedToEditor(r.data);
}

/** The ZodError parseStoredAnnotations gives for a repeated id at `index`. */
export function duplicateIdError(id: string, index: number): z.ZodError {
  return new z.ZodError([{ code: 'custom', path: [index, 'id'], message: `Duplicate annotation id ${id}`, input: id }]);
}

/** Validates one editor annotation by its stored form (min points, finite numbers, RLE sums). */
export function validateEditorAnnotation(a: EditorAnnotation): string | null {
  const r = StoredAnnotation.safeParse(editorToStored(a));
  return r.success ? null : r.error.issues.map((i) => i.message).join('; ');
}

// ---- the common case without zod
// Plain boxes, polygons, polylines and keypoints are checked by the contract's fast path
// (src/contract/annotation-check.ts) and converted here without copying their paths; anything
// else goes through zod and storedToEditor. The engine never changes a path in place (commands
// build new rings), so the caller's JSON shares these arrays with the document and must not
// change them either: at 100k shapes the copies were most of a load's surviving garbage.

/**
 * The editor annotation for a stored one that is a valid plain box, polygon, polyline or
 * keypoint; null for anything else (then zod decides). Never accepts what the schema rejects.
 */
export function plainStoredToEditor(json: unknown): EditorAnnotation | null {
  if (!isPlainStoredAnnotation(json)) return null;
  const { id, name, bounding_box: bb, polygon, polyline, keypoint } = json;
  if (polygon !== undefined) {
    const points = polygon.path as Point[];
    return polygon.holes === undefined ? { id, class: name, type: 'polygon', points } : { id, class: name, type: 'polygon', points, holes: polygon.holes as Point[][] };
  }
  if (polyline !== undefined) return { id, class: name, type: 'polyline', points: polyline.path as Point[] };
  if (keypoint !== undefined) return { id, class: name, type: 'keypoint', x: keypoint.x, y: keypoint.y };
  return { id, class: name, type: 'box', x: bb.x, y: bb.y, width: bb.w, height: bb.h };
}
