// Tessellation of one shape into flat vertex arrays plus indices (no GL here, so it is
// unit-testable).
// Fill vertices: [x, y, color, slot] per vertex, indexed triangles (earcut, holes supported).
// Line vertices: [x, y, ox, oy, side, color, slot]: a ring is one strip of two vertices per
// point, offset by the mitred normal (ox, oy; at most 2 long) that the shader scales by the
// half width in CSS px, so outlines keep their width at every zoom and joints are not drawn
// twice; the dark halo is the outer band of the same strip (one pass). Markers (keypoints,
// handles) are quads of four vertices with |offset| = 3. The side says what a vertex is for:
// +-1 outline, +-2 polyline (drawn at least 2 px wide), 0 square marker, 3 round keypoint dot,
// 4 an occluded skeleton point (a round dot with a dark centre). A dashed outline (a model's
// pending prediction, issue 34) carries its distance along the ring in the side instead:
// +-(DASH_SIDE + image px from the ring's start), the closing point repeated at the perimeter.
import earcut from 'earcut';
import type { PackedScene } from './protocol';

export const FILL_STRIDE = 4;
export const LINE_STRIDE = 7;
/** Compact polygon vertices: [x, y, color, slot, d0, d1, d2] (see compactPolygon). */
export const COMPACT_STRIDE = 7;
/** Distance (image px) standing for "no outline edge on this side of the triangle". */
export const NO_EDGE = 1e6;
/** Longest mitre (in half widths); sharper corners are clipped. */
export const MAX_MITER = 2;

/** Marker corners carry offsets of magnitude 3 (the shader reads >2 as "marker": radius u_marker + half width). */
export const KEYPOINT_SCALE = 3;
/** Side values (see above). */
export const SIDE_POLYLINE = 2;
export const SIDE_KEYPOINT = 3;
/** |side| at or past this: a dashed outline vertex, |side| - DASH_SIDE its distance along the ring (image px). */
export const DASH_SIDE = 8;

export interface ShapeGeometry {
  fill: Float32Array;
  /** Triangles over `fill` (vertex numbers local to this shape). */
  fillIdx: Uint32Array;
  line: Float32Array;
  /** Triangles over `line` (vertex numbers local to this shape). */
  lineIdx: Uint32Array;
  /** Vertex positions for selection handles (x, y pairs). */
  handles: Float32Array;
}

/** Growable vertex + index lists for lines (vertex numbers count from the start of `v`). */
export interface LineOut {
  v: number[];
  i: number[];
}

export const lineOut = (): LineOut => ({ v: [], i: [] });

/** Builds the outline strip of one ring (closed or open; open ends get square caps); `side` 2 marks a polyline; `dashed` encodes the distance along it. */
function pushRing(out: LineOut, xs: ArrayLike<number>, start: number, count: number, closed: boolean, color: number, slot: number, side = 1, dashed = false): void {
  // drop repeated points (zero-length segments have no direction)
  const px: number[] = [], py: number[] = [];
  for (let k = 0; k < count; k++) {
    const x = xs[2 * (start + k)]!, y = xs[2 * (start + k) + 1]!;
    if (px.length && px[px.length - 1] === x && py[py.length - 1] === y) continue;
    px.push(x);
    py.push(y);
  }
  if (closed && px.length > 1 && px[0] === px[px.length - 1] && py[0] === py[py.length - 1]) {
    px.pop();
    py.pop();
  }
  const n = px.length;
  if (n < 2) return;
  const isClosed = closed && n >= 3;
  const segs = isClosed ? n : n - 1;
  // unit normals of the segments
  const nx = new Array<number>(segs), ny = new Array<number>(segs);
  for (let s = 0; s < segs; s++) {
    const j = (s + 1) % n;
    const tx = px[j]! - px[s]!, ty = py[j]! - py[s]!;
    const len = Math.hypot(tx, ty);
    nx[s] = -ty / len;
    ny[s] = tx / len;
  }
  const offsets: number[] = [];
  for (let k = 0; k < n; k++) {
    let ox: number, oy: number;
    const prev = isClosed ? (k + segs - 1) % segs : k - 1;
    const next = isClosed ? k % segs : k < segs ? k : -1;
    if (prev < 0 || next < 0) {
      // open end: the normal plus the tangent outwards (a square cap of one half width)
      const s = prev < 0 ? next : prev;
      const tx = ny[s]!, ty = -nx[s]!; // tangent along the segment
      const sign = prev < 0 ? -1 : 1;
      ox = nx[s]! + sign * tx;
      oy = ny[s]! + sign * ty;
    } else {
      // mitre: the bisector of the two normals, long enough to keep the width, clipped
      const mx = nx[prev]! + nx[next]!, my = ny[prev]! + ny[next]!;
      const ml = Math.hypot(mx, my);
      if (ml < 1e-6) {
        ox = nx[next]!;
        oy = ny[next]!;
      } else {
        const ux = mx / ml, uy = my / ml;
        const cos = ux * nx[next]! + uy * ny[next]!;
        const len = Math.min(MAX_MITER, 1 / Math.max(cos, 1e-6));
        ox = ux * len;
        oy = uy * len;
        const k2 = Math.max(Math.abs(ox), Math.abs(oy));
        if (k2 > MAX_MITER) {
          ox *= MAX_MITER / k2;
          oy *= MAX_MITER / k2;
        }
      }
    }
    offsets.push(ox, oy);
  }
  pushStrip(out, px, py, offsets, segs, dashed ? null : side, color, slot);
}

/**
 * The strip's vertices (two a point, offset either way) and triangles. `side` null: dashed, each
 * vertex's side its distance along the ring past DASH_SIDE, and a closed ring's first point
 * repeated at its end (at the perimeter) so the distance grows along the closing segment too.
 */
function pushStrip(out: LineOut, px: number[], py: number[], offsets: number[], segs: number, side: number | null, color: number, slot: number): void {
  const n = px.length, base = out.v.length / LINE_STRIDE;
  const points = side === null && segs === n ? n + 1 : n;
  let along = 0;
  for (let j = 0; j < points; j++) {
    const k = j % n;
    if (j > 0) along += Math.hypot(px[k]! - px[j - 1]!, py[k]! - py[j - 1]!);
    const sd = side ?? DASH_SIDE + along, ox = offsets[2 * k]!, oy = offsets[2 * k + 1]!;
    out.v.push(px[k]!, py[k]!, -ox, -oy, -sd, color, slot, px[k]!, py[k]!, ox, oy, sd, color, slot);
  }
  for (let s = 0; s < segs; s++) {
    const a = base + 2 * s, b = base + 2 * (points > n ? s + 1 : (s + 1) % n);
    out.i.push(a, a + 1, b, b, a + 1, b + 1);
  }
}

function pushMarker(out: LineOut, x: number, y: number, k: number, color: number, slot: number, side = 0): void {
  const v = out.v.length / LINE_STRIDE;
  out.v.push(x, y, -k, -k, side, color, slot, x, y, k, -k, side, color, slot, x, y, -k, k, side, color, slot, x, y, k, k, side, color, slot);
  out.i.push(v, v + 1, v + 2, v + 2, v + 1, v + 3);
}

const lineArrays = (o: LineOut) => ({ line: new Float32Array(o.v), lineIdx: new Uint32Array(o.i) });

/** `dashed`: a dashed outline (a model's pending prediction). */
/**
 * Shape `i` of a packed scene diff (its type, rect, rings and coordinates from `at`, which it
 * moves past them), and a polygon's ring lengths.
 */
export function packedGeometry(p: PackedScene, i: number, at: { ring: number; coord: number }, sk: { v: ArrayLike<number>; edges: ArrayLike<number> } | undefined, slot: number, dash: boolean): { geom: ShapeGeometry; ringLens: Uint32Array | null } {
  const type = p.types[i]!, color = p.colors[i]!, rings = p.ringCounts[i]!;
  const rx = p.rect[4 * i]!, ry = p.rect[4 * i + 1]!, rw = p.rect[4 * i + 2]!, rh = p.rect[4 * i + 3]!;
  if (type === 1 || type === 2 || type === 5) {
    let pts = 0;
    for (let r = 0; r < (type === 5 ? 1 : rings); r++) pts += p.ringLens[at.ring + r]!;
    const coords = p.coords.subarray(at.coord, at.coord + pts * 2);
    const ringLens = type === 1 ? p.ringLens.slice(at.ring, at.ring + rings) : null;
    at.ring += rings;
    at.coord += pts * 2;
    if (type === 5) return { geom: skeletonGeometry(coords, sk?.v ?? [], sk?.edges ?? [], color, slot, dash), ringLens };
    return { geom: ringLens ? polygonGeometry(coords, ringLens, color, slot, dash) : polylineGeometry(coords, pts, color, slot, false, dash), ringLens };
  }
  if (type === 3) return { geom: keypointGeometry(rx, ry, color, slot, dash), ringLens: null };
  if (type === 0) return { geom: boxGeometry(rx, ry, rw, rh, color, slot, dash), ringLens: null };
  return { geom: { fill: new Float32Array(0), fillIdx: new Uint32Array(0), line: new Float32Array(0), lineIdx: new Uint32Array(0), handles: new Float32Array([rx, ry, rx + rw, ry, rx + rw, ry + rh, rx, ry + rh]) }, ringLens: null };
}

export function boxGeometry(x: number, y: number, w: number, h: number, color: number, slot: number, dashed = false): ShapeGeometry {
  const x1 = x + w, y1 = y + h;
  const fill = new Float32Array([x, y, color, slot, x1, y, color, slot, x, y1, color, slot, x1, y1, color, slot]);
  const line = lineOut();
  pushRing(line, [x, y, x1, y, x1, y1, x, y1], 0, 4, true, color, slot, 1, dashed);
  const mx = x + w / 2, my = y + h / 2;
  return { fill, fillIdx: new Uint32Array([0, 1, 2, 2, 1, 3]), ...lineArrays(line), handles: new Float32Array([x, y, mx, y, x1, y, x1, my, x1, y1, mx, y1, x, y1, x, my]) };
}

/** Polygon with holes: rings[0] is the outer path; coords are x, y pairs of all rings in order. */
export function polygonGeometry(coords: ArrayLike<number>, ringLens: ArrayLike<number>, color: number, slot: number, dashed = false): ShapeGeometry {
  const flat = Array.from(coords);
  const holes: number[] = [];
  let acc = 0;
  for (let r = 0; r < ringLens.length; r++) {
    if (r > 0) holes.push(acc);
    acc += ringLens[r]!;
  }
  const tri = acc >= 3 ? earcut(flat, holes.length ? holes : undefined, 2) : [];
  const nv = tri.length ? acc : 0;
  const fill = new Float32Array(nv * FILL_STRIDE);
  for (let v = 0; v < nv; v++) {
    fill[4 * v] = flat[2 * v]!; fill[4 * v + 1] = flat[2 * v + 1]!; fill[4 * v + 2] = color; fill[4 * v + 3] = slot;
  }
  const line = lineOut();
  let start = 0;
  for (let r = 0; r < ringLens.length; r++) {
    const n = ringLens[r]!;
    if (n >= 2) pushRing(line, flat, start, n, true, color, slot, 1, dashed);
    start += n;
  }
  return { fill, fillIdx: Uint32Array.from(tri), ...lineArrays(line), handles: Float32Array.from(flat) };
}

/**
 * Douglas-Peucker over one closed ring (x, y pairs at [start, start + count)); returns the kept
 * vertex numbers (relative to start) in ring order, at least 3 when the ring has 3 distinct points.
 */
export function simplifyRing(xs: ArrayLike<number>, start: number, count: number, tolerance: number): number[] {
  const X = (k: number) => xs[2 * (start + k)]!, Y = (k: number) => xs[2 * (start + k) + 1]!;
  if (count <= 3) return Array.from({ length: count }, (_, k) => k);
  // split the ring at vertex 0 and the vertex farthest from it, then simplify both halves
  let far = 0, farD = -1;
  for (let k = 1; k < count; k++) {
    const d = (X(k) - X(0)) ** 2 + (Y(k) - Y(0)) ** 2;
    if (d > farD) { farD = d; far = k; }
  }
  const keep = new Uint8Array(count);
  keep[0] = keep[far] = 1;
  const tol2 = tolerance * tolerance;
  const stack: number[] = [0, far, far, count];
  while (stack.length) {
    const j = stack.pop()!, i = stack.pop()!;
    if (j - i < 2) continue;
    const ax = X(i), ay = Y(i), bx = X(j % count), by = Y(j % count);
    const dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy;
    let best = -1, at = -1;
    for (let k = i + 1; k < j; k++) {
      const px = X(k) - ax, py = Y(k) - ay;
      // distance to the segment (to its end points past them)
      const t = len2 > 0 ? Math.max(0, Math.min(1, (px * dx + py * dy) / len2)) : 0;
      const d = (px - t * dx) ** 2 + (py - t * dy) ** 2;
      if (d > best) { best = d; at = k; }
    }
    if (best > tol2) {
      keep[at] = 1;
      stack.push(i, at, at, j);
    }
  }
  let kept: number[] = [];
  for (let k = 0; k < count; k++) if (keep[k]) kept.push(k);
  if (kept.length < 3) {
    // a sliver: keep the vertex farthest from the chord so the ring keeps an area
    let best = -1, at = -1;
    for (let k = 1; k < count; k++) {
      if (k === far) continue;
      const d = Math.abs((X(k) - X(0)) * (Y(far) - Y(0)) - (Y(k) - Y(0)) * (X(far) - X(0)));
      if (d > best) { best = d; at = k; }
    }
    kept = [0, far, at].sort((a, b) => a - b);
  }
  return kept;
}

function ringExtent(xs: ArrayLike<number>, start: number, count: number): number {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (let k = start; k < start + count; k++) {
    const x = xs[2 * k]!, y = xs[2 * k + 1]!;
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  }
  return Math.max(x1 - x0, y1 - y0);
}

/**
 * A polygon for small on-screen sizes (level of detail): its rings simplified to `tolerance`
 * image px, triangulated, and written as unshared triangles whose vertices carry their distances
 * to the triangle's three edge lines where that edge is part of a ring (NO_EDGE elsewhere). The
 * shader draws the outline inside the fill from the smallest distance, so the shape costs its
 * fill triangles only (a full outline is two triangles per segment, drawn over ~4 px across).
 * Returns null when the outer ring has no area.
 */
export function compactPolygon(coords: ArrayLike<number>, ringLens: ArrayLike<number>, tolerance: number, color: number, slot: number): Float32Array | null {
  const flat: number[] = [];
  const ringOf: number[] = []; // per kept vertex: its ring number
  const holes: number[] = [];
  let start = 0;
  for (let r = 0; r < ringLens.length; r++) {
    const n = ringLens[r]!;
    // a hole less than two tolerances across is not visible at this size
    const kept = n >= 3 && (r === 0 || ringExtent(coords, start, n) >= 2 * tolerance) ? simplifyRing(coords, start, n, tolerance) : [];
    if (kept.length >= 3) {
      if (r > 0) holes.push(flat.length / 2);
      for (const k of kept) {
        flat.push(coords[2 * (start + k)]!, coords[2 * (start + k) + 1]!);
        ringOf.push(r);
      }
    } else if (r === 0) return null;
    start += n;
  }
  const tri = earcut(flat, holes.length ? holes : undefined, 2);
  if (!tri.length) return null;
  const nv = flat.length / 2;
  // ring edges: consecutive kept vertices of one ring, and its last back to its first
  const ringStart: number[] = [], ringEnd: number[] = [];
  for (let v = 0; v < nv; v++) {
    const r = ringOf[v]!;
    if (ringStart[r] === undefined) ringStart[r] = v;
    ringEnd[r] = v;
  }
  const isEdge = (a: number, b: number) => {
    if (ringOf[a] !== ringOf[b]) return false;
    const r = ringOf[a]!, s = ringStart[r]!, e = ringEnd[r]!;
    const lo = Math.min(a, b), hi = Math.max(a, b);
    return hi - lo === 1 || (lo === s && hi === e);
  };
  const out = new Float32Array((tri.length / 3) * 3 * COMPACT_STRIDE);
  const x = [0, 0, 0], y = [0, 0, 0], h = [0, 0, 0], v = [0, 0, 0];
  let o = 0;
  for (let t = 0; t < tri.length; t += 3) {
    for (let c = 0; c < 3; c++) {
      v[c] = tri[t + c]!;
      x[c] = flat[2 * v[c]!]!;
      y[c] = flat[2 * v[c]! + 1]!;
    }
    const area2 = Math.abs((x[1]! - x[0]!) * (y[2]! - y[0]!) - (x[2]! - x[0]!) * (y[1]! - y[0]!));
    // edge e joins corners e and e + 1: the corner opposite it is at its height (if it is a ring
    // edge), the two on it at 0
    for (let e = 0; e < 3; e++) {
      const b = e === 2 ? 0 : e + 1;
      const len = Math.hypot(x[b]! - x[e]!, y[b]! - y[e]!);
      h[e] = !isEdge(v[e]!, v[b]!) ? -1 : len > 0 ? area2 / len : 0;
    }
    for (let c = 0; c < 3; c++) {
      out[o++] = x[c]!;
      out[o++] = y[c]!;
      out[o++] = color;
      out[o++] = slot;
      for (let e = 0; e < 3; e++) out[o++] = h[e]! < 0 ? NO_EDGE : c === (e + 2) % 3 ? h[e]! : 0;
    }
  }
  return out;
}

export function polylineGeometry(coords: ArrayLike<number>, count: number, color: number, slot: number, closed = false, dashed = false): ShapeGeometry {
  const line = lineOut();
  if (count >= 2) pushRing(line, coords, 0, count, closed, color, slot, SIDE_POLYLINE, dashed);
  return { fill: new Float32Array(0), fillIdx: new Uint32Array(0), ...lineArrays(line), handles: Float32Array.from({ length: count * 2 }, (_, i) => coords[i]!) };
}

/** `hollow`: a ring with a dark centre (a model's pending prediction), not a filled dot. */
export function keypointGeometry(x: number, y: number, color: number, slot: number, hollow = false): ShapeGeometry {
  const line = lineOut();
  pushMarker(line, x, y, KEYPOINT_SCALE, color, slot, hollow ? SIDE_OCCLUDED : SIDE_KEYPOINT);
  return { fill: new Float32Array(0), fillIdx: new Uint32Array(0), ...lineArrays(line), handles: new Float32Array([x, y]) };
}

/** Side of an occluded skeleton point: a round dot with a dark centre (a ring), told apart from a visible one. */
export const SIDE_OCCLUDED = 4;

/**
 * A keypoint skeleton (issue 33): its class's edges as lines between labelled points (polyline
 * width; dashed for a pending prediction), then its labelled points as round dots on top, occluded ones hollow. Points not
 * labelled (v 0) and edges to them draw nothing. Handles: the labelled points.
 */
export function skeletonGeometry(coords: ArrayLike<number>, v: ArrayLike<number>, edges: ArrayLike<number>, color: number, slot: number, dashed = false): ShapeGeometry {
  const line = lineOut();
  const n = v.length;
  for (let e = 0; e + 1 < edges.length; e += 2) {
    const a = edges[e]!, b = edges[e + 1]!;
    if (a >= n || b >= n || !v[a] || !v[b]) continue;
    pushRing(line, [coords[2 * a]!, coords[2 * a + 1]!, coords[2 * b]!, coords[2 * b + 1]!], 0, 2, false, color, slot, SIDE_POLYLINE, dashed);
  }
  const handles: number[] = [];
  for (let i = 0; i < n; i++) {
    if (!v[i]) continue;
    const x = coords[2 * i]!, y = coords[2 * i + 1]!;
    pushMarker(line, x, y, KEYPOINT_SCALE, color, slot, v[i] === 1 ? SIDE_OCCLUDED : SIDE_KEYPOINT);
    handles.push(x, y);
  }
  return { fill: new Float32Array(0), fillIdx: new Uint32Array(0), ...lineArrays(line), handles: new Float32Array(handles) };
}

/** Square handle markers at the given points. */
export function handleGeometry(points: ArrayLike<number>, color: number, out: LineOut = lineOut()): LineOut {
  for (let i = 0; i + 1 < points.length; i += 2) pushMarker(out, points[i]!, points[i + 1]!, KEYPOINT_SCALE, color, -1);
  return out;
}

export { pushRing, pushMarker };
