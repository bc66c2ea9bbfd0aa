// Tessellation of one shape into flat vertex arrays (no GL here, so it is unit-testable).
// Fill vertices: [x, y, color, slot] per vertex, triangles (earcut, holes supported).
// Line vertices: [x, y, ox, oy, side, color, slot], four per quad (drawn with one shared index
// pattern 0 1 2 2 1 3): a segment is a quad extruded in screen space by the shader (offset *
// half width in CSS px), so outlines keep their width at every zoom; the dark halo is the outer
// band of the same quad (one pass). Markers (keypoints, handles) are quads with |offset| = 3.
import earcut from 'earcut';

export const FILL_STRIDE = 4;
export const LINE_STRIDE = 7;
/** Vertices per line quad (segments and markers). */
export const QUAD_VERTS = 4;

/** Indices for `quads` quads of four vertices: 0 1 2, 2 1 3 per quad. */
export function quadIndices(quads: number): Uint32Array {
  const out = new Uint32Array(quads * 6);
  for (let q = 0; q < quads; q++) {
    const v = q * 4, o = q * 6;
    out[o] = v; out[o + 1] = v + 1; out[o + 2] = v + 2; out[o + 3] = v + 2; out[o + 4] = v + 1; out[o + 5] = v + 3;
  }
  return out;
}

/** Marker corners carry offsets of magnitude 3 (the shader reads >2 as "marker": radius u_marker + half width). */
export const KEYPOINT_SCALE = 3;

export interface ShapeGeometry {
  fill: Float32Array;
  line: Float32Array;
  /** Vertex positions for selection handles (x, y pairs). */
  handles: Float32Array;
}

/** Builds the outline quads for one ring (closed or open). */
function pushRing(out: number[], xs: ArrayLike<number>, start: number, count: number, closed: boolean, color: number, slot: number): void {
  const segs = closed ? count : count - 1;
  for (let s = 0; s < segs; s++) {
    const i = start + s, j = start + ((s + 1) % count);
    const x0 = xs[2 * i]!, y0 = xs[2 * i + 1]!, x1 = xs[2 * j]!, y1 = xs[2 * j + 1]!;
    let tx = x1 - x0, ty = y1 - y0;
    const len = Math.hypot(tx, ty);
    if (len === 0) continue;
    tx /= len; ty /= len;
    const nx = -ty, ny = tx;
    // corners: start-left, start-right, end-left, end-right (square caps: extended by one half width)
    const a0 = -nx - tx, a1 = -ny - ty; // start, side -1
    const b0 = nx - tx, b1 = ny - ty; // start, side +1
    const c0 = -nx + tx, c1 = -ny + ty; // end, side -1
    const d0 = nx + tx, d1 = ny + ty; // end, side +1
    out.push(x0, y0, a0, a1, -1, color, slot, x0, y0, b0, b1, 1, color, slot, x1, y1, c0, c1, -1, color, slot, x1, y1, d0, d1, 1, color, slot);
  }
}

function pushMarker(out: number[], x: number, y: number, k: number, color: number, slot: number): void {
  out.push(x, y, -k, -k, 0, color, slot, x, y, k, -k, 0, color, slot, x, y, -k, k, 0, color, slot, x, y, k, k, 0, color, slot);
}

export function boxGeometry(x: number, y: number, w: number, h: number, color: number, slot: number): ShapeGeometry {
  const x1 = x + w, y1 = y + h;
  const fill = new Float32Array([
    x, y, color, slot, x1, y, color, slot, x, y1, color, slot,
    x, y1, color, slot, x1, y, color, slot, x1, y1, color, slot,
  ]);
  const line: number[] = [];
  const ring = [x, y, x1, y, x1, y1, x, y1];
  pushRing(line, ring, 0, 4, true, color, slot);
  const mx = x + w / 2, my = y + h / 2;
  return { fill, line: new Float32Array(line), handles: new Float32Array([x, y, mx, y, x1, y, x1, my, x1, y1, mx, y1, x, y1, x, my]) };
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
  const fill = new Float32Array(tri.length * FILL_STRIDE);
  for (let k = 0; k < tri.length; k++) {
    const v = tri[k]!;
    fill[4 * k] = flat[2 * v]!; fill[4 * k + 1] = flat[2 * v + 1]!; fill[4 * k + 2] = color; fill[4 * k + 3] = slot;
  }
  const line: number[] = [];
  let start = 0;
  for (let r = 0; r < ringLens.length; r++) {
    const n = ringLens[r]!;
    if (n >= 2) pushRing(line, flat, start, n, true, color, slot);
    start += n;
  }
  return { fill, line: new Float32Array(line), handles: Float32Array.from(flat) };
}

export function polylineGeometry(coords: ArrayLike<number>, count: number, color: number, slot: number, closed = false): ShapeGeometry {
  const line: number[] = [];
  if (count >= 2) pushRing(line, coords, 0, count, closed, color, slot);
  return { fill: new Float32Array(0), line: new Float32Array(line), handles: Float32Array.from({ length: count * 2 }, (_, i) => coords[i]!) };
}

export function keypointGeometry(x: number, y: number, color: number, slot: number): ShapeGeometry {
  const line: number[] = [];
  pushMarker(line, x, y, KEYPOINT_SCALE, color, slot);
  return { fill: new Float32Array(0), line: new Float32Array(line), handles: new Float32Array([x, y]) };
}

/** Square handle markers (offset +-1, scaled by the half width uniform) at the given points. */
export function handleGeometry(points: ArrayLike<number>, color: number, out: number[] = []): number[] {
  for (let i = 0; i + 1 < points.length; i += 2) pushMarker(out, points[i]!, points[i + 1]!, KEYPOINT_SCALE, color, -1);
  return out;
}

export { pushRing, pushMarker };
