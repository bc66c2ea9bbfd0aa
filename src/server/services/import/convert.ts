// An imported annotation (a reader's terms) -> the stored annotation, for one image of a known
// size. What every format shares lives here: normalised coordinates to pixels, boxes clipped to
// the image (counted, so the report can say how many), the minimum points of polygons and
// polylines, a mask's size against the image's, bounding boxes from the geometry, and attributes
// as `{name, value}` entries of the stored attributes list.
import crypto from 'node:crypto';
import { POLYGON_MIN_POINTS, POLYLINE_MIN_POINTS } from '../../../contract/annotations';
import { numericCounts, rleBBox } from '../../../contract/rle';
import { skeletonBox } from '../../../contract/skeleton';
import { clipBox, pathBox } from '../../formats/shapes';
import type { ImportedAnnotation, Point } from '../../formats/reader';

export interface ImageSize {
  width: number;
  height: number;
}

export type Converted = { ok: true; stored: Record<string, unknown>; clipped: boolean } | { ok: false; reason: string };

/** Known stored keys an imported `extra` may not overwrite. */
const RESERVED = new Set(['id', 'name', 'bounding_box', 'polygon', 'polyline', 'keypoint', 'segmentation', 'points', 'attributes']);

/** SHA-256 in hex: the one-shot crypto.hash (Node 20.12+) where there is one, about 3x faster per id than a Hash object. */
const sha256Hex: (text: string) => string =
  typeof crypto.hash === 'function' ? (text) => crypto.hash('sha256', text, 'hex') : (text) => crypto.createHash('sha256').update(text).digest('hex');

/**
 * A stable id for the `index`-th annotation of `file` in import `importId` (UUID-shaped): an import
 * that is resumed after a crash writes the same ids again, so it replaces rather than duplicates.
 */
export function importedId(importId: string, file: string, index: number): string {
  const h = sha256Hex(`${importId}\u0000${file}\u0000${index}`);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** importedId of positions 0 to count - 1 of `file`, in order (an offload task: `importedIds`). */
export function importedIds(importId: string, file: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => importedId(importId, file, i));
}

const finite = (path: readonly Point[]) => path.every(([x, y]) => Number.isFinite(x) && Number.isFinite(y));

/**
 * `a` as a stored annotation with `id` and the project's spelling of its class. `normalized`:
 * coordinates are fractions of the image's width and height (YOLO).
 */
export function toStored(a: ImportedAnnotation, id: string, className: string, size: ImageSize, normalized: boolean): Converted {
  const sx = normalized ? size.width : 1;
  const sy = normalized ? size.height : 1;
  const scale = (path: readonly Point[]): Point[] => path.map(([x, y]) => [x * sx, y * sy]);
  const out: Record<string, unknown> = { id, name: className };
  let clipped = false;
  const s = a.shape;
  switch (s.type) {
    case 'box': {
      const b = { x: s.x * sx, y: s.y * sy, w: s.w * sx, h: s.h * sy };
      if (![b.x, b.y, b.w, b.h].every(Number.isFinite) || b.w < 0 || b.h < 0) return { ok: false, reason: 'box with a negative or missing size' };
      const c = clipBox(b, size);
      if (!c) return { ok: false, reason: `box [${[b.x, b.y, b.w, b.h].map((v) => +v.toFixed(2)).join(', ')}] lies outside the ${size.width}x${size.height} image` };
      out.bounding_box = c.box;
      clipped = c.clipped;
      break;
    }
    case 'polygon': {
      if (s.path.length < POLYGON_MIN_POINTS) return { ok: false, reason: `polygon with ${s.path.length} point${s.path.length === 1 ? '' : 's'} (at least ${POLYGON_MIN_POINTS} are needed)` };
      const path = scale(s.path);
      if (!finite(path)) return { ok: false, reason: 'polygon with coordinates that are not numbers' };
      const holes = (s.holes ?? []).filter((h) => h.length >= POLYGON_MIN_POINTS).map(scale);
      out.bounding_box = pathBox(path);
      out.polygon = holes.length ? { path, holes } : { path };
      break;
    }
    case 'polyline': {
      if (s.path.length < POLYLINE_MIN_POINTS) return { ok: false, reason: `polyline with ${s.path.length} point${s.path.length === 1 ? '' : 's'} (at least ${POLYLINE_MIN_POINTS} are needed)` };
      const path = scale(s.path);
      if (!finite(path)) return { ok: false, reason: 'polyline with coordinates that are not numbers' };
      out.bounding_box = pathBox(path);
      out.polyline = { path };
      break;
    }
    case 'keypoint': {
      const x = s.x * sx;
      const y = s.y * sy;
      if (!Number.isFinite(x) || !Number.isFinite(y)) return { ok: false, reason: 'keypoint with coordinates that are not numbers' };
      out.bounding_box = { x, y, w: 0, h: 0 };
      out.keypoint = { x, y };
      break;
    }
    case 'skeleton': {
      // v 0 (not labelled) has x and y 0, as the schema wants; other v values than 0 and 1 are visible.
      const points = s.points.map((p) => (p.v > 0 && Number.isFinite(p.x) && Number.isFinite(p.y) ? { x: p.x * sx, y: p.y * sy, v: p.v === 1 ? 1 : 2 } : { x: 0, y: 0, v: 0 }));
      const box = s.box ? { x: s.box.x * sx, y: s.box.y * sy, w: s.box.w * sx, h: s.box.h * sy } : skeletonBox(points);
      if (![box.x, box.y, box.w, box.h].every(Number.isFinite) || box.w < 0 || box.h < 0) return { ok: false, reason: 'skeleton with a negative or missing box' };
      out.bounding_box = box;
      out.points = points;
      break;
    }
    case 'mask': {
      const [h, w] = s.size;
      if (h !== size.height || w !== size.width) return { ok: false, reason: `mask of ${w}x${h} pixels on a ${size.width}x${size.height} image` };
      let counts: readonly number[];
      try {
        counts = numericCounts({ size: s.size, counts: s.counts });
      } catch {
        return { ok: false, reason: 'mask with malformed RLE counts' };
      }
      const b = rleBBox({ size: s.size, counts });
      if (b.width === 0 || b.height === 0) return { ok: false, reason: 'empty mask' };
      out.bounding_box = { x: b.x, y: b.y, w: b.width, h: b.height };
      out.segmentation = { size: [h, w], counts: s.counts };
      break;
    }
  }
  if (a.attributes?.length) out.attributes = a.attributes.map(({ name, value }) => ({ name, value }));
  if (a.extra) for (const [k, v] of Object.entries(a.extra)) if (!RESERVED.has(k)) out[k] = v;
  return { ok: true, stored: out, clipped };
}

/**
 * The path of a key the HTTP API refuses in any JSON body (Fastify answers 400 invalid_json for
 * `__proto__`, and for `constructor` holding `prototype`), or null. An imported stored annotation
 * (Vellum) is held to the same rule; `__proto__` as an attribute's *name* is a value, kept as the
 * API keeps it. Walks without recursion.
 */
export function refusedKeyPath(value: unknown): string | null {
  const stack: { v: unknown; path: string }[] = [{ v: value, path: '' }];
  while (stack.length > 0) {
    const { v, path } = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    for (const [k, child] of Object.entries(v)) {
      const at = Array.isArray(v) ? `${path}[${k}]` : path ? `${path}.${k}` : k;
      if (!Array.isArray(v) && (k === '__proto__' || (k === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype')))) return at;
      stack.push({ v: child, path: at });
    }
  }
  return null;
}
