// Tessellation of one shape into flat vertex arrays plus indices (no GL here, so it is
// unit-testable).
// Fill vertices: [x, y, color, slot] per vertex, indexed triangles (earcut, holes supported).
// Line vertices: [x, y, ox, oy, side, color, slot]: a ring is one strip of two vertices per
// point, offset by the mitred normal (ox, oy; at most 2 long) that the shader scales by the
// half width in CSS px, so outlines keep their width at every zoom and joints are not drawn
// twice; the dark halo is the outer band of the same strip (one pass). Markers (keypoints,
// handles) are quads of four vertices with |offset| = 3.
import earcut from 'earcut';

export const FILL_STRIDE = 4;
export const LINE_STRIDE = 7;
/** Vertices per marker quad. */
export const QUAD_VERTS = 4;
/** Longest mitre (in half widths); sharper corners are clipped. */
export const MAX_MITER = 2;

/** Marker corners carry offsets of magnitude 3 (the shader reads >2 as "marker": radius u_marker + half width). */
export const KEYPOINT_SCALE = 3;

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

/** Builds the outline strip of one ring (closed or open; open ends get square caps). */
function pushRing(out: LineOut, xs: ArrayLike<number>, start: number, count: number, closed: boolean, color: number, slot: number): void {
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
  const base = out.v.length / LINE_STRIDE;
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
    out.v.push(px[k]!, py[k]!, -ox, -oy, -1, color, slot, px[k]!, py[k]!, ox, oy, 1, color, slot);
  }
  for (let s = 0; s < segs; s++) {
    const a = base + 2 * s, b = base + 2 * ((s + 1) % n);
    out.i.push(a, a + 1, b, b, a + 1, b + 1);
  }
}

function pushMarker(out: LineOut, x: number, y: number, k: number, color: number, slot: number): void {
  const v = out.v.length / LINE_STRIDE;
  out.v.push(x, y, -k, -k, 0, color, slot, x, y, k, -k, 0, color, slot, x, y, -k, k, 0, color, slot, x, y, k, k, 0, color, slot);
  out.i.push(v, v + 1, v + 2, v + 2, v + 1, v + 3);
}

const lineArrays = (o: LineOut) => ({ line: new Float32Array(o.v), lineIdx: new Uint32Array(o.i) });

export function boxGeometry(x: number, y: number, w: number, h: number, color: number, slot: number): ShapeGeometry {
  const x1 = x + w, y1 = y + h;
  const fill = new Float32Array([x, y, color, slot, x1, y, color, slot, x, y1, color, slot, x1, y1, color, slot]);
  const line = lineOut();
  pushRing(line, [x, y, x1, y, x1, y1, x, y1], 0, 4, true, color, slot);
  const mx = x + w / 2, my = y + h / 2;
  return { fill, fillIdx: new Uint32Array([0, 1, 2, 2, 1, 3]), ...lineArrays(line), handles: new Float32Array([x, y, mx, y, x1, y, x1, my, x1, y1, mx, y1, x, y1, x, my]) };
}

/** Polygon with holes: rings[0] is the outer path; coords are x, y pairs of all rings in order. */
export function polygonGeometry(coords: ArrayLike<number>, ringLens: ArrayLike<number>, color: number, slot: number): ShapeGeometry {
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
    if (n >= 2) pushRing(line, flat, start, n, true, color, slot);
    start += n;
  }
  return { fill, fillIdx: Uint32Array.from(tri), ...lineArrays(line), handles: Float32Array.from(flat) };
}

export function polylineGeometry(coords: ArrayLike<number>, count: number, color: number, slot: number, closed = false): ShapeGeometry {
  const line = lineOut();
  if (count >= 2) pushRing(line, coords, 0, count, closed, color, slot);
  return { fill: new Float32Array(0), fillIdx: new Uint32Array(0), ...lineArrays(line), handles: Float32Array.from({ length: count * 2 }, (_, i) => coords[i]!) };
}

export function keypointGeometry(x: number, y: number, color: number, slot: number): ShapeGeometry {
  const line = lineOut();
  pushMarker(line, x, y, KEYPOINT_SCALE, color, slot);
  return { fill: new Float32Array(0), fillIdx: new Uint32Array(0), ...lineArrays(line), handles: new Float32Array([x, y]) };
}

/** Square handle markers at the given points. */
export function handleGeometry(points: ArrayLike<number>, color: number, out: LineOut = lineOut()): LineOut {
  for (let i = 0; i + 1 < points.length; i += 2) pushMarker(out, points[i]!, points[i + 1]!, KEYPOINT_SCALE, color, -1);
  return out;
}

export { pushRing, pushMarker };
