// Spatial cells of the renderer's shapes and their geometry per level of detail. Shapes live
// in cells of CELL x CELL image px (by the centre of a shape's bounds); a cell's geometry at a
// level is built from the cached per-shape arrays when it is first drawn at that level, where
// shapes small on screen become dots or compact polygons (see renderer.ts for why), into ranges
// of the level's buffers that all cells share (LevelBuffers, level-buffers.ts).
import type { Regl } from 'regl';
import { COMPACT_STRIDE, FILL_STRIDE, LINE_STRIDE, compactPolygon, type ShapeGeometry } from './geometry';
import type { MaskPlace } from './masks';
import { releaseSlot, type Impostor } from './impostors';
import { Pool, type Range, type RunList } from './level-buffers';

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

/** The shared buffers of one level of detail (level-buffers.ts): every cell's geometry at that level is a range of them. */
export class LevelBuffers {
  readonly fillV: Pool;
  readonly fillI: Pool;
  readonly lineV: Pool;
  readonly lineI: Pool;
  readonly compact: Pool;
  readonly dots: Pool;
  /** Cell levels holding ranges here (the buffers go with the last). */
  users = 0;
  /** Ranges handed out since the level was last laid out in one run (compaction.ts): cells built apart, or moved by an edit. */
  moves = 0;
  /** Laid out by a compaction (compaction.ts) at least once. */
  compacted = false;

  constructor(regl: Regl) {
    this.fillV = new Pool(regl, FILL_STRIDE);
    this.fillI = new Pool(regl, 0);
    this.lineV = new Pool(regl, LINE_STRIDE);
    this.lineI = new Pool(regl, 0);
    this.compact = new Pool(regl, COMPACT_STRIDE);
    // a blank dot is off every view (the dot shader culls it)
    this.dots = new Pool(regl, DOT_STRIDE, [-1e9, -1e9, 0, 0, 0, -1]);
  }

  get bytes(): number {
    return this.fillV.bytes + this.fillI.bytes + this.lineV.bytes + this.lineI.bytes + this.compact.bytes + this.dots.bytes;
  }

  destroy(): void {
    for (const p of [this.fillV, this.fillI, this.lineV, this.lineI, this.compact, this.dots]) p.destroy();
  }
}

/** Destroys the levels' buffers that no cell holds a range of any more. */
export function dropUnusedStores(stores: Map<number, LevelBuffers>): void {
  for (const [k, st] of stores) {
    if (st.users) continue;
    st.destroy();
    stores.delete(k);
  }
}

/** One cell at one level of detail: its ranges of the level's buffers (counts are indices or vertices). */
export interface ChunkLevel {
  store: LevelBuffers;
  fillV: Range | null;
  fillI: Range | null;
  lineV: Range | null;
  lineI: Range | null;
  /** Compact polygons (unindexed triangles), or null. */
  compact: Range | null;
  /** Shapes drawn as dots (points), or null. */
  dots: Range | null;
  fillCount: number;
  lineCount: number;
  bytes: number;
  /** Frame number of the last draw (for dropping the least recently drawn level). */
  used: number;
  /** Its cell changed since it was built: rebuilt into its ranges (an edit) before it is drawn again. */
  stale: boolean;
  /** Per sub-cell: the bounds of its dots and compact polygons (4 numbers each), and where they start (in vertices from the range's start; SUB * SUB + 1 entries). */
  subBounds: Float32Array;
  dotStart: Uint32Array;
  compactStart: Uint32Array;
  /** Its dots and compact polygons drawn once into an atlas slot (impostors.ts), or null. */
  impostor?: Impostor | null;
}

export function destroyLevel(l: ChunkLevel): void {
  const st = l.store;
  for (const [pool, r] of [[st.fillV, l.fillV], [st.fillI, l.fillI], [st.lineV, l.lineV], [st.lineI, l.lineI], [st.compact, l.compact], [st.dots, l.dots]] as const) if (r) pool.release(r);
  st.users--;
  dropImpostor(l);
}

function dropImpostor(l: ChunkLevel): void {
  if (l.impostor) releaseSlot(l.impostor.slot);
  l.impostor = null;
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
  /** Ranges by level (FULL or a power-of-two zoom exponent), built on first draw. */
  levels: Map<number, ChunkLevel>;
  dirty: boolean;
  /** Bumped when a shape's selection, hover or hidden state changes (its impostors are drawn again). */
  gen: number;
}

/** The level key of a cell's full geometry (zoom exponents stay far below it). */
export const FULL = 1000;

/** FULL, or the zoom exponent when some shape of the cell is small enough for a lighter form. */
export function wantedLevel(c: Pick<Chunk, 'minExtent'>, exp: number): number {
  return c.minExtent * 2 ** exp < COMPACT_PX ? exp : FULL;
}

/** The half-octave zoom exponent a frame at this scale draws its cells' levels for. */
export const levelExp = (scale: number): number => Math.round(Math.log2(scale) * 2) / 2;

/** How a level draws each shape of a cell, in paint order: 0 full, 1 dot, 2 compact (its triangles in `compactOf`). */
export interface Tiers {
  list: Shape[];
  tier: Uint8Array;
  compactOf: Float32Array[];
  nf: number;
  nfi: number;
  nl: number;
  nli: number;
  nc: number;
  nd: number;
}

export function tiersOf(c: Chunk, level: number): Tiers {
  const scale = level === FULL ? 0 : 2 ** level;
  const dotBelow = scale ? LOD_PX / scale : 0, compactBelow = scale ? COMPACT_PX / scale : 0;
  const list = [...c.shapes].sort((a, b) => a.z - b.z);
  const t: Tiers = { list, tier: new Uint8Array(list.length), compactOf: [], nf: 0, nfi: 0, nl: 0, nli: 0, nc: 0, nd: 0 };
  for (let i = 0; i < list.length; i++) {
    const s = list[i]!;
    const ext = Math.max(s.bounds[2] - s.bounds[0], s.bounds[3] - s.bounds[1]);
    if (scale && dottable(s) && ext < dotBelow) {
      t.tier[i] = 1;
      t.nd += DOT_STRIDE;
      continue;
    }
    if (scale && s.rings && ext < compactBelow) {
      const tris = compactPolygon(s.geom.handles, s.rings, COMPACT_TOLERANCE_PX / scale, s.color, s.slot);
      if (tris) {
        t.tier[i] = 2;
        t.compactOf[i] = tris;
        t.nc += tris.length;
        continue;
      }
    }
    t.nf += s.geom.fill.length;
    t.nfi += s.geom.fillIdx.length;
    t.nl += s.geom.line.length;
    t.nli += s.geom.lineIdx.length;
  }
  return t;
}

/** Dots and compact polygons by sub-cell, in paint order within each, with each sub-cell's bounds and start. */
function subCells(c: Chunk, t: Tiers, dots: Float32Array | null, compact: Float32Array | null): Pick<ChunkLevel, 'subBounds' | 'dotStart' | 'compactStart'> {
  const SUBS = SUB * SUB, span = CELL / SUB;
  const bySub: number[][] = Array.from({ length: SUBS }, () => []);
  for (let i = 0; i < t.list.length; i++) {
    if (!t.tier[i]) continue;
    const b = t.list[i]!.bounds;
    const sx = Math.min(SUB - 1, Math.max(0, Math.floor(((b[0] + b[2]) / 2 - c.x0) / span)));
    const sy = Math.min(SUB - 1, Math.max(0, Math.floor(((b[1] + b[3]) / 2 - c.y0) / span)));
    bySub[sy * SUB + sx]!.push(i);
  }
  const subBounds = new Float32Array(SUBS * 4), dotStart = new Uint32Array(SUBS + 1), compactStart = new Uint32Array(SUBS + 1);
  let nd = 0, nc = 0;
  for (let k = 0; k < SUBS; k++) {
    dotStart[k] = nd / DOT_STRIDE;
    compactStart[k] = nc / COMPACT_STRIDE;
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const i of bySub[k]!) {
      const s = t.list[i]!;
      const b = s.bounds;
      x0 = Math.min(x0, b[0]); y0 = Math.min(y0, b[1]); x1 = Math.max(x1, b[2]); y1 = Math.max(y1, b[3]);
      const tris = t.compactOf[i];
      if (tris) {
        compact!.set(tris, nc);
        nc += tris.length;
      } else nd = putDot(dots!, nd, s);
    }
    subBounds.set([x0, y0, x1, y1], k * 4);
  }
  dotStart[SUBS] = nd / DOT_STRIDE;
  compactStart[SUBS] = nc / COMPACT_STRIDE;
  return { subBounds, dotStart, compactStart };
}

/** Fits `n` elements of `pool` in `r` (or a new range: counted in the store's `moves`), or frees it when there are none. */
function fit(store: LevelBuffers, pool: Pool, r: Range | null, n: number): Range | null {
  if (n) {
    const out = pool.refit(r, n);
    if (out !== r) store.moves++;
    return out;
  }
  if (r) pool.release(r);
  return null;
}

/**
 * The cell's ranges at a level: FULL, or zoom exponent e (scale within a quarter octave of 2^e)
 * where a shape whose extent * 2^e is under LOD_PX (so under ~1.2 LOD_PX on screen) becomes one
 * dot, a polygon under COMPACT_PX is compact, and the rest keep their full geometry. Half-octave
 * levels: a zoom gesture rebuilds a cell at most every few steps. Paint order within the cell
 * is kept within each pass (fills, then dots, then compact polygons, then outlines). A stale
 * level of the cell (an edit) is rewritten in its ranges where the new geometry fits
 * (bufferSubData), so an edit makes no buffer and no new draw.
 */
export function buildLevel(stores: (level: number) => LevelBuffers, c: Chunk, level: number, frame: number, t = tiersOf(c, level)): ChunkLevel {
  const old = c.levels.get(level);
  const l = old ?? newLevel(stores(level), frame);
  dropImpostor(l);
  writeLevel(l, c, t);
  l.used = frame;
  if (!old) {
    if (c.levels.size >= MAX_LEVELS) {
      let oldest: number | null = null;
      for (const [k, v] of c.levels) if (oldest === null || v.used < c.levels.get(oldest)!.used) oldest = k;
      destroyLevel(c.levels.get(oldest!)!);
      c.levels.delete(oldest!);
    }
    c.levels.set(level, l);
  }
  return l;
}

/** An empty cell level holding ranges of `store` (counted as one of its users). */
export function newLevel(store: LevelBuffers, frame: number): ChunkLevel {
  store.users++;
  return { store, fillV: null, fillI: null, lineV: null, lineI: null, compact: null, dots: null, fillCount: 0, lineCount: 0, bytes: 0, used: frame, stale: false, subBounds: new Float32Array(0), dotStart: new Uint32Array(0), compactStart: new Uint32Array(0) };
}

/** Writes the cell's geometry of tiers `t` into the level's ranges (refitted: in place where it fits, else a new range: a move). */
export function writeLevel(l: ChunkLevel, c: Chunk, t: Tiers): void {
  const store = l.store;
  l.fillV = fit(store, store.fillV, l.fillV, t.nf / FILL_STRIDE);
  l.fillI = fit(store, store.fillI, l.fillI, t.nfi);
  l.lineV = fit(store, store.lineV, l.lineV, t.nl / LINE_STRIDE);
  l.lineI = fit(store, store.lineI, l.lineI, t.nli);
  l.compact = fit(store, store.compact, l.compact, t.nc / COMPACT_STRIDE);
  l.dots = fit(store, store.dots, l.dots, t.nd / DOT_STRIDE);
  const compact = t.nc ? new Float32Array(t.nc) : null, dots = t.nd ? new Float32Array(t.nd) : null;
  Object.assign(l, subCells(c, t, dots, compact));
  if (compact) l.compact!.page.write(l.compact!, compact);
  if (dots) l.dots!.page.write(l.dots!, dots);
  writeFull(l, t);
  l.fillCount = t.nfi;
  l.lineCount = t.nli;
  l.bytes = 4 * (t.nf + t.nfi + t.nl + t.nli + t.nc + t.nd);
  l.stale = false;
}

/**
 * Builds several cells' levels (those a frame needs), their room reserved first in each level's
 * buffers so the ranges lie one after another: the cells drawn in the first frame at a level are
 * then one draw per pass.
 */
export function buildLevels(stores: (level: number) => LevelBuffers, cells: readonly Chunk[], levels: readonly number[], frame: number): ChunkLevel[] {
  const tiers = cells.map((c, k) => tiersOf(c, levels[k]!));
  const need = new Map<number, number[]>();
  tiers.forEach((t, k) => {
    const n = need.get(levels[k]!) ?? [0, 0, 0, 0, 0, 0];
    [t.nf / FILL_STRIDE, t.nfi, t.nl / LINE_STRIDE, t.nli, t.nc / COMPACT_STRIDE, t.nd / DOT_STRIDE].forEach((x, i) => (n[i]! += x));
    need.set(levels[k]!, n);
  });
  for (const [level, n] of need) {
    const st = stores(level);
    [st.fillV, st.fillI, st.lineV, st.lineI, st.compact, st.dots].forEach((pool, i) => pool.reserve(n[i]!));
  }
  return cells.map((c, k) => buildLevel(stores, c, levels[k]!, frame, tiers[k]));
}

/**
 * The cells in view (`box`: image px) and the level each draws this frame, into `out.cells` and
 * `out.levels`: the level wanted at zoom exponent `exp`; else the nearest built one while the
 * wanted one is built between frames (the cell goes into `pending`); else (none, or the wanted one
 * stale: an edit) the wanted one built now, all such cells together (buildLevels). Returns the
 * cells culled.
 */
export function levelsInView(chunks: Iterable<Chunk>, box: readonly number[], exp: number, frame: number, stores: (level: number) => LevelBuffers, pending: Map<Chunk, number>, out: { cells: Chunk[]; levels: ChunkLevel[]; build: Chunk[]; wants: number[] }): number {
  const { cells, levels, build, wants } = out;
  const [vx0, vy0, vx1, vy1] = box as [number, number, number, number];
  cells.length = levels.length = build.length = wants.length = 0;
  let culled = 0;
  for (const c of chunks) {
    const b = c.bounds;
    if (b[0] > vx1 || b[2] < vx0 || b[1] > vy1 || b[3] < vy0) {
      culled++;
      continue;
    }
    const want = wantedLevel(c, exp);
    const have = c.levels.get(want);
    const l = have && !have.stale ? have : have ? null : nearestLevel(c, want);
    cells.push(c);
    if (!l) {
      build.push(c);
      wants.push(want);
      levels.push(null!); // its place in the cells' order, filled below
      continue;
    }
    if (l !== have) pending.set(c, want);
    l.used = frame;
    levels.push(l);
  }
  if (build.length) {
    const built = buildLevels(stores, build, wants, frame);
    for (let k = 0, b = 0; k < levels.length; k++) if (!levels[k]) levels[k] = built[b++]!;
  }
  return culled;
}

/** The full-geometry shapes' fill and outline vertices, and their indices (from the ranges' first vertex), into the level's ranges. */
function writeFull(l: ChunkLevel, t: Tiers): void {
  const fill = new Float32Array(t.nf), fillIdx = new Uint32Array(t.nfi), line = new Float32Array(t.nl), lineIdx = new Uint32Array(t.nli);
  let nf = 0, nfi = 0, nl = 0, nli = 0;
  const fBase = l.fillV?.start ?? 0, lBase = l.lineV?.start ?? 0;
  for (let i = 0; i < t.list.length; i++) {
    if (t.tier[i]) continue;
    const g = t.list[i]!.geom;
    const fv = fBase + nf / FILL_STRIDE, lv = lBase + nl / LINE_STRIDE;
    fill.set(g.fill, nf);
    nf += g.fill.length;
    for (let k = 0; k < g.fillIdx.length; k++) fillIdx[nfi++] = g.fillIdx[k]! + fv;
    line.set(g.line, nl);
    nl += g.line.length;
    for (let k = 0; k < g.lineIdx.length; k++) lineIdx[nli++] = g.lineIdx[k]! + lv;
  }
  if (l.fillV) l.fillV.page.write(l.fillV, fill);
  if (l.fillI) l.fillI.page.write(l.fillI, fillIdx);
  if (l.lineV) l.lineV.page.write(l.lineV, line);
  if (l.lineI) l.lineI.page.write(l.lineI, lineIdx);
}


/**
 * After a change: bounds and the smallest extent that can be a dot. The level drawn last is kept,
 * stale (rebuilt into its ranges when next drawn: an edit rewrites its cell's part of the level's
 * buffers); the others are dropped.
 */
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
  let last: number | null = null;
  for (const [k, l] of c.levels) if (last === null || l.used > c.levels.get(last)!.used) last = k;
  for (const [k, l] of c.levels) {
    if (k === last) l.stale = true;
    else {
      destroyLevel(l);
      c.levels.delete(k);
    }
  }
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
 * Adds the draws of a cell level's dots or compact polygons (`r`, sub-cells starting at `start`
 * from its first vertex) in view: runs of consecutive sub-cells, the whole range when the cell is
 * inside the view (runs of adjacent cells are joined later: RunList.joined).
 */
export function pushRanges(out: RunList, r: Range, start: Uint32Array, bounds: Float32Array, inside: boolean, vx0: number, vy0: number, vx1: number, vy1: number): void {
  const n = start.length - 1;
  if (inside) {
    out.add(r.page, r.page, r.start, r.cap);
    return;
  }
  let from = -1;
  for (let k = 0; k <= n; k++) {
    const visible = k < n && start[k + 1]! > start[k]! && !(bounds[4 * k]! > vx1 || bounds[4 * k + 2]! < vx0 || bounds[4 * k + 1]! > vy1 || bounds[4 * k + 3]! < vy0);
    if (visible && from < 0) from = k;
    else if (!visible && from >= 0) {
      out.add(r.page, r.page, r.start + start[from]!, start[k]! - start[from]!);
      from = -1;
    }
  }
}

/** The cell's built level nearest to `want` (FULL counts as the finest), or null if it has none (a stale one shows the cell before its change: never). */
export function nearestLevel(c: Chunk, want: number): ChunkLevel | null {
  const rank = (k: number) => (k === FULL ? 64 : k);
  let best: ChunkLevel | null = null, bestD = Infinity;
  for (const [k, l] of c.levels) {
    if (l.stale) continue;
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
