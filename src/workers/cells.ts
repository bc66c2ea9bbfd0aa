// Spatial cells of the renderer's shapes and their GPU buffers per level of detail. Shapes live
// in cells of CELL x CELL image px (by the centre of a shape's bounds); a cell's buffers are built
// from the cached per-shape arrays when it is first drawn at a level, where shapes small on screen
// become dots or compact polygons (see renderer.ts for why).
import type { Buffer, Elements, Regl } from 'regl';
import { COMPACT_STRIDE, FILL_STRIDE, LINE_STRIDE, compactPolygon, type ShapeGeometry } from './geometry';
import type { MaskPlace } from './masks';
import { releaseSlot, type Impostor } from './impostors';

/** Side of a spatial cell in image px. */
export const CELL = 1024;
/**
 * Dots and compact polygons are kept in the cell's buffers by sub-cell (SUB x SUB per cell, by the
 * centre of a shape's bounds), so a cell at the edge of the view draws only its sub-cells in view:
 * zoomed in to where shapes are ~10 px, about half of what the visible cells held was off screen.
 */
export const SUB = 4;
/** Shapes smaller than this on screen (CSS px) are drawn as one dot (a point sprite over their bounds). */
export const LOD_PX = 8;
/** Polygons smaller than this on screen (CSS px) are drawn compact (see compactPolygon). */
export const COMPACT_PX = 24;
/** Simplification tolerance of compact polygons, in screen px at their level. */
const COMPACT_TOLERANCE_PX = 1;
/** Level buffers a cell keeps (least recently drawn dropped first). */
const MAX_LEVELS = 6;
/** Dot vertex: centre x, y, half width, half height (image px), colour, slot. */
export const DOT_STRIDE = 6;
export interface MaskEntry {
  place: MaskPlace | null;
  rect: [number, number, number, number];
}

export interface Shape {
  id: string;
  z: number;
  type: number;
  color: number;
  slot: number;
  geom: ShapeGeometry;
  /** Ring lengths of a polygon (its vertices are geom.handles), else null. */
  rings: Uint32Array | null;
  mask: MaskEntry | null;
  /** Bounds in image px: minX, minY, maxX, maxY. */
  bounds: [number, number, number, number];
  chunk: Chunk | null;
  /** Class name (its label). */
  label: string;
  /** A model's pending prediction (issue 34): outlines dashed, a keypoint hollow. */
  dashed?: boolean;
  /** A mask's runs, and where its label goes once asked (labels.ts: on its largest part; null when empty). */
  maskLabel?: { counts: ArrayLike<number> | string; height: number; at?: [number, number] | null };
}

/** GPU buffers of one cell at one level of detail (counts are indices). */
export interface ChunkLevel {
  fill: Buffer;
  fillIdx: Elements;
  line: Buffer;
  lineIdx: Elements;
  /** Compact polygons (unindexed triangles), or null. */
  compact: Buffer | null;
  /** Shapes drawn as dots (points), or null. */
  dots: Buffer | null;
  fillCount: number;
  lineCount: number;
  bytes: number;
  /** Frame number of the last draw (for dropping the least recently drawn level). */
  used: number;
  /** Per sub-cell: the bounds of its dots and compact polygons (4 numbers each), and where they start (in vertices; SUB * SUB + 1 entries). */
  subBounds: Float32Array;
  dotStart: Uint32Array;
  compactStart: Uint32Array;
  /** The fill and outline draws' props, made once (a frame allocates nothing per cell). */
  fillDraw: { buf: Buffer; idx: Elements; count: number };
  lineDraw: { buf: Buffer; idx: Elements; count: number; marker: number; halo: number[] };
  /** Its dots and compact polygons drawn once into an atlas slot (impostors.ts), or null. */
  impostor?: Impostor | null;
}

export function destroyLevel(l: ChunkLevel): void {
  l.fill.destroy();
  l.fillIdx.destroy();
  l.line.destroy();
  l.lineIdx.destroy();
  l.compact?.destroy();
  l.dots?.destroy();
  if (l.impostor) releaseSlot(l.impostor.slot);
}


export interface Chunk {
  key: number;
  /** Top-left corner of the cell in image px. */
  x0: number;
  y0: number;
  shapes: Set<Shape>;
  /** Union of the shapes' bounds (recomputed when the cell changes). */
  bounds: [number, number, number, number];
  /** Smallest max(width, height) of a shape that can be drawn as a dot or compact; Infinity if none. */
  minExtent: number;
  /** Buffers by level (FULL or a power-of-two zoom exponent), built on first draw. */
  levels: Map<number, ChunkLevel>;
  dirty: boolean;
  /** Bumped when a shape's selection, hover or hidden state changes (its impostors are drawn again). */
  gen: number;
}

/** The level key of a cell's full geometry (zoom exponents stay far below it). */
export const FULL = 1000;

/** FULL, or the zoom exponent when some shape of the cell is small enough for a lighter form. */
export function wantedLevel(c: Chunk, exp: number): number {
  return c.minExtent * 2 ** exp < COMPACT_PX ? exp : FULL;
}


/**
 * The cell's buffers at a level: FULL, or zoom exponent e (scale within a quarter octave of 2^e)
 * where a shape whose extent * 2^e is under LOD_PX (so under ~1.2 LOD_PX on screen) becomes one
 * dot, a polygon under COMPACT_PX is compact, and the rest keep their full geometry. Half-octave
 * levels: a zoom gesture rebuilds a cell at most every few steps. Paint order within the cell
 * is kept within each pass (fills, then dots, then compact polygons, then outlines). `halo`: the
 * outlines' halo colour (their draw's props are made here once).
 */
export function buildLevel(regl: Regl, c: Chunk, level: number, frame: number, halo: number[]): ChunkLevel {
  const scale = level === FULL ? 0 : 2 ** level;
  const dotBelow = scale ? LOD_PX / scale : 0, compactBelow = scale ? COMPACT_PX / scale : 0;
  const list = [...c.shapes].sort((a, b) => a.z - b.z);
  // per shape: 0 full, 1 dot, 2 compact (its triangles in `compactOf`)
  const tier = new Uint8Array(list.length);
  const compactOf: Float32Array[] = [];
  let nf = 0, nfi = 0, nl = 0, nli = 0, nc = 0, nd = 0;
  for (let i = 0; i < list.length; i++) {
    const s = list[i]!;
    const ext = Math.max(s.bounds[2] - s.bounds[0], s.bounds[3] - s.bounds[1]);
    if (scale && dottable(s) && ext < dotBelow) {
      tier[i] = 1;
      nd += DOT_STRIDE;
      continue;
    }
    if (scale && s.rings && ext < compactBelow) {
      const tris = compactPolygon(s.geom.handles, s.rings, COMPACT_TOLERANCE_PX / scale, s.color, s.slot);
      if (tris) {
        tier[i] = 2;
        compactOf[i] = tris;
        nc += tris.length;
        continue;
      }
    }
    nf += s.geom.fill.length;
    nfi += s.geom.fillIdx.length;
    nl += s.geom.line.length;
    nli += s.geom.lineIdx.length;
  }
  const fill = new Float32Array(nf), fillIdx = new Uint32Array(nfi), line = new Float32Array(nl), lineIdx = new Uint32Array(nli);
  const compact = nc ? new Float32Array(nc) : null;
  const dots = nd ? new Float32Array(nd) : null;
  // dots and compact polygons by sub-cell, in paint order within each
  const SUBS = SUB * SUB, span = CELL / SUB;
  const bySub: number[][] = Array.from({ length: SUBS }, () => []);
  for (let i = 0; i < list.length; i++) {
    if (!tier[i]) continue;
    const b = list[i]!.bounds;
    const sx = Math.min(SUB - 1, Math.max(0, Math.floor(((b[0] + b[2]) / 2 - c.x0) / span)));
    const sy = Math.min(SUB - 1, Math.max(0, Math.floor(((b[1] + b[3]) / 2 - c.y0) / span)));
    bySub[sy * SUB + sx]!.push(i);
  }
  const subBounds = new Float32Array(SUBS * 4), dotStart = new Uint32Array(SUBS + 1), compactStart = new Uint32Array(SUBS + 1);
  nd = nc = 0;
  for (let k = 0; k < SUBS; k++) {
    dotStart[k] = nd / DOT_STRIDE;
    compactStart[k] = nc / COMPACT_STRIDE;
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const i of bySub[k]!) {
      const s = list[i]!;
      const b = s.bounds;
      x0 = Math.min(x0, b[0]); y0 = Math.min(y0, b[1]); x1 = Math.max(x1, b[2]); y1 = Math.max(y1, b[3]);
      const tris = compactOf[i];
      if (tris) {
        compact!.set(tris, nc);
        nc += tris.length;
      } else nd = putDot(dots!, nd, s);
    }
    subBounds.set([x0, y0, x1, y1], k * 4);
  }
  dotStart[SUBS] = nd / DOT_STRIDE;
  compactStart[SUBS] = nc / COMPACT_STRIDE;
  nf = nfi = nl = nli = 0;
  for (let i = 0; i < list.length; i++) {
    const s = list[i]!;
    if (tier[i]) continue;
    const g = s.geom;
    const fv = nf / FILL_STRIDE, lv = nl / LINE_STRIDE;
    fill.set(g.fill, nf);
    nf += g.fill.length;
    for (let k = 0; k < g.fillIdx.length; k++) fillIdx[nfi++] = g.fillIdx[k]! + fv;
    line.set(g.line, nl);
    nl += g.line.length;
    for (let k = 0; k < g.lineIdx.length; k++) lineIdx[nli++] = g.lineIdx[k]! + lv;
  }
  const fillBuf = regl.buffer(fill), fillElements = regl.elements({ data: fillIdx, type: 'uint32', primitive: 'triangles' });
  const lineBuf = regl.buffer(line), lineElements = regl.elements({ data: lineIdx, type: 'uint32', primitive: 'triangles' });
  const l: ChunkLevel = {
    fill: fillBuf,
    fillIdx: fillElements,
    line: lineBuf,
    lineIdx: lineElements,
    fillDraw: { buf: fillBuf, idx: fillElements, count: fillIdx.length },
    lineDraw: { buf: lineBuf, idx: lineElements, count: lineIdx.length, marker: 3, halo },
    compact: compact ? regl.buffer(compact) : null,
    dots: dots ? regl.buffer(dots) : null,
    fillCount: fillIdx.length,
    lineCount: lineIdx.length,
    bytes: fill.byteLength + fillIdx.byteLength + line.byteLength + lineIdx.byteLength + (compact?.byteLength ?? 0) + (dots?.byteLength ?? 0),
    used: frame,
    subBounds,
    dotStart,
    compactStart,
  };
  if (c.levels.size >= MAX_LEVELS) {
    let oldest: number | null = null;
    for (const [k, v] of c.levels) if (oldest === null || v.used < c.levels.get(oldest)!.used) oldest = k;
    destroyLevel(c.levels.get(oldest!)!);
    c.levels.delete(oldest!);
  }
  c.levels.set(level, l);
  return l;
}


/** After a change: bounds and the smallest extent that can be a dot; drops the cached buffers. */
export function refreshChunk(c: Chunk): void {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity, minExt = Infinity;
  for (const s of c.shapes) {
    const b = s.bounds;
    if (b[0] < x0) x0 = b[0];
    if (b[1] < y0) y0 = b[1];
    if (b[2] > x1) x1 = b[2];
    if (b[3] > y1) y1 = b[3];
    if (dottable(s)) minExt = Math.min(minExt, Math.max(b[2] - b[0], b[3] - b[1]));
  }
  c.bounds = [x0, y0, x1, y1];
  c.minExtent = minExt;
  for (const l of c.levels.values()) destroyLevel(l);
  c.levels.clear();
  c.dirty = false;
}


/** Bounds of a shape in image px from its packed rect (boxes, masks, keypoints) or its vertices. */
export function boundsOf(type: number, x: number, y: number, w: number, h: number, pts: Float32Array): [number, number, number, number] {
  if (type !== 1 && type !== 2 && type !== 5) return type === 3 ? [x, y, x, y] : [x, y, x + w, y + h];
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (let i = 0; i + 1 < pts.length; i += 2) {
    const px = pts[i]!, py = pts[i + 1]!;
    if (px < x0) x0 = px;
    if (px > x1) x1 = px;
    if (py < y0) y0 = py;
    if (py > y1) y1 = py;
  }
  return x0 <= x1 ? [x0, y0, x1, y1] : [0, 0, 0, 0];
}

/**
 * Adds the draws of one level buffer's sub-cells in view: runs of consecutive sub-cells merged,
 * the whole buffer when the cell is inside the view.
 */
export function pushRanges(out: { buf: Buffer; offset: number; count: number }[], buf: Buffer, start: Uint32Array, bounds: Float32Array, inside: boolean, vx0: number, vy0: number, vx1: number, vy1: number): void {
  const n = start.length - 1;
  if (inside) {
    if (start[n]! > 0) out.push({ buf, offset: 0, count: start[n]! });
    return;
  }
  let from = -1;
  for (let k = 0; k <= n; k++) {
    const visible = k < n && start[k + 1]! > start[k]! && !(bounds[4 * k]! > vx1 || bounds[4 * k + 2]! < vx0 || bounds[4 * k + 1]! > vy1 || bounds[4 * k + 3]! < vy0);
    if (visible && from < 0) from = k;
    else if (!visible && from >= 0) {
      out.push({ buf, offset: start[from]!, count: start[k]! - start[from]! });
      from = -1;
    }
  }
}

/** The cell's built level nearest to `want` (FULL counts as the finest), or null if it has none. */
export function nearestLevel(c: Chunk, want: number): ChunkLevel | null {
  const rank = (k: number) => (k === FULL ? 64 : k);
  let best: ChunkLevel | null = null, bestD = Infinity;
  for (const [k, l] of c.levels) {
    const d = Math.abs(rank(k) - rank(want));
    if (d < bestD) {
      best = l;
      bestD = d;
    }
  }
  return best;
}

/**
 * Boxes, polygons, polylines and skeletons of two points or more (issue 33) can stand in as a dot
 * when tiny; keypoints, one-point skeletons and masks cannot (their dots keep their size).
 */
const dottable = (s: Shape) => s.type === 0 || s.type === 1 || s.type === 2 || (s.type === 5 && (s.bounds[2] > s.bounds[0] || s.bounds[3] > s.bounds[1]));

/** Writes a tiny shape's stand-in: a dot over its bounds (the shader draws it nearly opaque: it stands for the outline too). */
function putDot(out: Float32Array, at: number, s: Shape): number {
  const [x0, y0, x1, y1] = s.bounds;
  out[at++] = (x0 + x1) / 2;
  out[at++] = (y0 + y1) / 2;
  out[at++] = (x1 - x0) / 2;
  out[at++] = (y1 - y0) / 2;
  out[at++] = s.color;
  out[at++] = s.slot;
  return at;
}
