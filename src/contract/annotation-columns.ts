// load-data's compact encoding (`?encoding=columns`, issue 14: 100k shapes under 5 MB on the
// wire). The annotations travel as blocks of columns instead of one object per shape: ids, class
// names (an index into the block's names), bounding boxes as scaled integers, and the rings of
// polygons and polylines delta-coded (first point from the box's corner, each next from the one
// before), so the compressor meets small, similar numbers instead of long absolute coordinates:
// a 100k-shape document compresses to about 60% of the plain JSON's size.
//
// Lossless: a block picks the smallest scale (1, 10, 100 or 1000) at which its coordinates are
// integers, and only when decoding gives back the very same doubles (integer / scale is correctly
// rounded, as JSON.parse of the shortest decimal is). A shape that does not fit (another scale, an
// unknown key inside a shape, a mask) travels whole in `rest`. Decoded shapes are equal to the
// stored ones as JSON values (their keys come in the editor's order: id, name, bounding_box, shape,
// then the rest), `__proto__` included: it is an ordinary key on both sides.

export const COLUMNS_FORMAT = 'columns-1';

/** Kinds in a block's `k` column. */
const BOX = 0, POLYGON = 1, POLYLINE = 2, KEYPOINT = 3, SKELETON = 4, WHOLE = 9;

export interface ColumnBlock {
  /** Coordinates are integers divided by this. */
  s: number;
  ids: string[];
  /** The block's class names; `nx` holds each shape's index into them. */
  names: string[];
  nx: number[];
  /** Per shape: 0 box, 1 polygon, 2 polyline, 3 keypoint, 4 skeleton, 9 whole (the annotation is its `rest`). */
  k: number[];
  /** Per shape but WHOLE: x, y, w, h of the bounding box, scaled. */
  bb: number[];
  /** Per polygon: points of the path, then 0 (no holes key) or holes + 1, then each hole's points; per polyline and skeleton: points. */
  len: number[];
  /** Points of every ring, scaled and delta-coded from the box's corner, then from the point before; a keypoint is one point; a skeleton's points as a ring. */
  d: number[];
  /** Each skeleton point's `v` (0, 1 or 2), in order; left out of a block without skeletons. */
  v?: number[];
  /** Per shape: the keys not held above (attributes, metadata, ...) or 0 when there are none; the whole annotation for WHOLE. */
  rest: (Record<string, unknown> | 0)[];
}

type Annotation = Record<string, unknown>;
type Point = [number, number];

const SCALES = [1, 10, 100, 1000];
const HANDLED = new Set(['id', 'name', 'bounding_box', 'polygon', 'polyline', 'keypoint', 'points']);

const fits = (v: unknown, s: number): v is number => typeof v === 'number' && Math.abs(v) < 1e12 && Math.round(v * s) / s === v;

function isPoint(p: unknown): p is Point {
  return Array.isArray(p) && p.length === 2;
}

function onlyKeys(o: unknown, keys: readonly string[]): o is Record<string, unknown> {
  if (!o || typeof o !== 'object' || Array.isArray(o)) return false;
  for (const k of Object.keys(o)) if (!keys.includes(k)) return false;
  return true;
}

/** The numbers a shape puts in the columns, or null when it travels whole. */
function coordinatesOf(a: Annotation): number[] | null {
  if (typeof a.id !== 'string' || typeof a.name !== 'string') return null;
  const b = a.bounding_box;
  if (!onlyKeys(b, ['x', 'y', 'w', 'h']) || Object.keys(b).length !== 4) return null;
  const out = [b.x, b.y, b.w, b.h] as unknown[];
  const shapes = ['polygon', 'polyline', 'keypoint', 'segmentation', 'points'].filter((k) => a[k] !== undefined);
  if (shapes.length > 1 || shapes[0] === 'segmentation') return null;
  const rings: unknown[] = [];
  if (a.polygon !== undefined) {
    const p = a.polygon;
    if (!onlyKeys(p, ['path', 'holes']) || !Array.isArray(p.path)) return null;
    rings.push(p.path);
    if (p.holes !== undefined) {
      if (!Array.isArray(p.holes)) return null;
      rings.push(...(p.holes as unknown[]));
    }
  } else if (a.polyline !== undefined) {
    const p = a.polyline;
    if (!onlyKeys(p, ['path']) || !Array.isArray(p.path)) return null;
    rings.push(p.path);
  } else if (a.keypoint !== undefined) {
    const p = a.keypoint;
    if (!onlyKeys(p, ['x', 'y']) || Object.keys(p).length !== 2) return null;
    out.push(p.x, p.y);
  } else if (a.points !== undefined) {
    if (!Array.isArray(a.points)) return null;
    for (const p of a.points as unknown[]) {
      if (!onlyKeys(p, ['x', 'y', 'v']) || Object.keys(p).length !== 3 || (p.v !== 0 && p.v !== 1 && p.v !== 2)) return null;
      out.push(p.x, p.y);
    }
  }
  for (const ring of rings) {
    if (!Array.isArray(ring)) return null;
    for (const pt of ring) {
      if (!isPoint(pt)) return null;
      out.push(pt[0], pt[1]);
    }
  }
  return out.every((v) => typeof v === 'number' && Number.isFinite(v)) ? (out as number[]) : null;
}

/** Encodes one block of annotations (in order). */
export function encodeBlock(annotations: readonly Annotation[]): ColumnBlock {
  const coords = annotations.map(coordinatesOf);
  // The smallest scale that holds every shape the largest one holds; the others travel whole.
  const finest = SCALES[SCALES.length - 1]!;
  const held = coords.filter((c): c is number[] => c !== null && c.every((v) => fits(v, finest)));
  const s = SCALES.find((scale) => held.every((c) => c.every((v) => fits(v, scale)))) ?? finest;
  const block: ColumnBlock = { s, ids: [], names: [], nx: [], k: [], bb: [], len: [], d: [], rest: [] };
  const nameIndex = new Map<string, number>();
  const q = (v: number) => Math.round(v * s);
  annotations.forEach((a, i) => {
    const c = coords[i];
    if (!c || !c.every((v) => fits(v, s))) {
      block.ids.push('');
      block.nx.push(0);
      block.k.push(WHOLE);
      block.rest.push(a);
      return;
    }
    block.ids.push(a.id as string);
    const name = a.name as string;
    let nx = nameIndex.get(name);
    if (nx === undefined) {
      nx = block.names.length;
      nameIndex.set(name, nx);
      block.names.push(name);
    }
    block.nx.push(nx);
    const box = a.bounding_box as { x: number; y: number; w: number; h: number };
    const ox = q(box.x), oy = q(box.y);
    block.bb.push(ox, oy, q(box.w), q(box.h));
    let px = ox, py = oy;
    const ring = (path: Point[]) => {
      for (const [x, y] of path) {
        const ix = q(x), iy = q(y);
        block.d.push(ix - px, iy - py);
        px = ix;
        py = iy;
      }
    };
    if (a.polygon !== undefined) {
      const p = a.polygon as { path: Point[]; holes?: Point[][] };
      block.k.push(POLYGON);
      block.len.push(p.path.length, p.holes === undefined ? 0 : p.holes.length + 1, ...(p.holes ?? []).map((h) => h.length));
      ring(p.path);
      for (const h of p.holes ?? []) ring(h);
    } else if (a.polyline !== undefined) {
      const p = a.polyline as { path: Point[] };
      block.k.push(POLYLINE);
      block.len.push(p.path.length);
      ring(p.path);
    } else if (a.keypoint !== undefined) {
      const p = a.keypoint as { x: number; y: number };
      block.k.push(KEYPOINT);
      block.d.push(q(p.x) - ox, q(p.y) - oy);
    } else if (a.points !== undefined) {
      const points = a.points as { x: number; y: number; v: number }[];
      block.k.push(SKELETON);
      block.len.push(points.length);
      ring(points.map((p) => [p.x, p.y]));
      block.v ??= [];
      for (const p of points) block.v.push(p.v);
    } else {
      block.k.push(BOX);
    }
    let rest: Annotation | 0 = 0;
    for (const key of Object.keys(a)) {
      if (HANDLED.has(key)) continue;
      // Without a prototype, `__proto__` is a key like any other (issue 30), not the setter that drops it.
      if (rest === 0) rest = Object.create(null) as Annotation;
      rest[key] = a[key];
    }
    block.rest.push(rest);
  });
  return block;
}

/** Decodes one block back into annotations, in order. */
export function decodeBlock(block: ColumnBlock): Annotation[] {
  const { s } = block;
  const out: Annotation[] = [];
  let bi = 0, li = 0, di = 0, vi = 0;
  for (let i = 0; i < block.k.length; i++) {
    const kind = block.k[i]!;
    const rest = block.rest[i]!;
    if (kind === WHOLE) {
      out.push(rest as Annotation);
      continue;
    }
    const ox = block.bb[bi++]!, oy = block.bb[bi++]!, w = block.bb[bi++]!, h = block.bb[bi++]!;
    const a: Annotation = { id: block.ids[i], name: block.names[block.nx[i]!], bounding_box: { x: ox / s, y: oy / s, w: w / s, h: h / s } };
    let px = ox, py = oy;
    const ring = (n: number): Point[] => {
      const path: Point[] = new Array(n);
      for (let j = 0; j < n; j++) {
        px += block.d[di++]!;
        py += block.d[di++]!;
        path[j] = [px / s, py / s];
      }
      return path;
    };
    if (kind === POLYGON) {
      const n = block.len[li++]!;
      const holes = block.len[li++]!;
      const lengths = block.len.slice(li, li + Math.max(0, holes - 1));
      li += lengths.length;
      const polygon: { path: Point[]; holes?: Point[][] } = { path: ring(n) };
      if (holes > 0) polygon.holes = lengths.map((m) => ring(m));
      a.polygon = polygon;
    } else if (kind === POLYLINE) {
      a.polyline = { path: ring(block.len[li++]!) };
    } else if (kind === KEYPOINT) {
      a.keypoint = { x: (ox + block.d[di++]!) / s, y: (oy + block.d[di++]!) / s };
    } else if (kind === SKELETON) {
      a.points = ring(block.len[li++]!).map(([x, y]) => ({ x, y, v: block.v![vi++]! }));
    }
    // Defined, not assigned: an own `__proto__` key stays a key (Object.assign would set the prototype).
    if (rest !== 0) for (const key of Object.keys(rest)) Object.defineProperty(a, key, { value: rest[key], enumerable: true, writable: true, configurable: true });
    out.push(a);
  }
  return out;
}
