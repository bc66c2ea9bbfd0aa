// Mask -> polygons with holes.
//
// Boundaries follow pixel edges ("crack following"), so vertices sit on integer pixel corners
// and rasterising the result at pixel centres gives back exactly the input mask (tolerance 0).
// With a tolerance, the staircase is first replaced by the midpoints of its unit edges (a
// diagonal staircase's midpoints lie on one straight line, its corners do not; real corners, such
// as a rectangle's, stay where they are), then simplified
// with Douglas-Peucker: on seg-dev's masks this gives fewer vertices and a higher IoU than
// simplifying the corners (bench/mask-simplify.bench.ts). Output coordinates are in half pixels. Foreground is
// 8-connected (diagonal pixels form one polygon that touches itself at a corner, as OpenCV's
// findContours does), background 4-connected. Every boundary loop is walked with the foreground
// on its right in image coordinates (y down): outer rings have positive shoelace area
// (sum of x_i * y_{i+1} - x_{i+1} * y_i), holes negative.
//
// Holes find their polygon through connected components: vertical runs of each column are
// joined with union-find, the root being the run that comes first in column-major scan order,
// whose top edge is always on the component's outer boundary.
import {
  ERR_INPUT, allocI32, newResult, nextDiff, vecData, vecFree, vecGet, vecLen, vecNew, vecPush, vecPush2, vecSetLen,
} from './mem';
import { normalizeMask } from './rle';

const TOP_SEEN: u8 = 2; // flag bit in the working mask: this pixel's top edge is already traced

let gMask: usize = 0;
let gH: i32 = 0;
let gW: i32 = 0;

function fgAt(x: i32, y: i32): i32 {
  if (<u32>x >= <u32>gW || <u32>y >= <u32>gH) return 0;
  return load<u8>(gMask + <usize>(x * gH + y)) & 1;
}

function find(parent: usize, a: i32): i32 {
  while (true) {
    const p = load<i32>(parent + (<usize>a << 2));
    if (p == a) return a;
    const gp = load<i32>(parent + (<usize>p << 2));
    store<i32>(parent + (<usize>a << 2), gp); // path halving
    a = gp;
  }
}

function union(parent: usize, a: i32, b: i32): void {
  const ra = find(parent, a), rb = find(parent, b);
  // The smaller index wins, so a component's root is its first run in scan order.
  if (ra < rb) store<i32>(parent + (<usize>rb << 2), ra);
  else if (rb < ra) store<i32>(parent + (<usize>ra << 2), rb);
}

/**
 * Walks the loop through the top edge of pixel (sx, sy), appending its corners to `verts`.
 * Direction d: 0 right (+x), 1 down (+y), 2 left (-x), 3 up (-y). At each vertex the two
 * pixels ahead decide: ahead-left foreground -> turn left (this joins diagonal neighbours, i.e.
 * 8-connectivity), else ahead-right foreground -> straight, else turn right.
 * Returns the index (in i32 units) where the corners start; the first one is dropped when the
 * loop passes straight through the start vertex.
 */
function trace(verts: usize, sx: i32, sy: i32): i32 {
  let start = vecLen(verts);
  vecPush2(verts, sx, sy);
  let vx = sx, vy = sy, d = 0;
  while (true) {
    if (d == 0) {
      const p = gMask + <usize>(vx * gH + vy);
      store<u8>(p, load<u8>(p) | TOP_SEEN);
    }
    let lx: i32, ly: i32, rx: i32, ry: i32; // ahead-left and ahead-right pixel
    if (d == 0) {
      vx += 1;
      lx = vx; ly = vy - 1; rx = vx; ry = vy;
    } else if (d == 1) {
      vy += 1;
      lx = vx; ly = vy; rx = vx - 1; ry = vy;
    } else if (d == 2) {
      vx -= 1;
      lx = vx - 1; ly = vy; rx = vx - 1; ry = vy - 1;
    } else {
      vy -= 1;
      lx = vx - 1; ly = vy - 1; rx = vx; ry = vy - 1;
    }
    let nd: i32;
    if (fgAt(lx, ly)) nd = (d + 3) & 3;
    else if (fgAt(rx, ry)) nd = d;
    else nd = (d + 1) & 3;
    if (vx == sx && vy == sy && nd == 0) {
      if (d == 0) start += 2;
      break;
    }
    if (nd != d) vecPush2(verts, vx, vy);
    d = nd;
  }
  return start;
}

// Everything relative to the segment start: differences of integer coordinates are exact, so
// the result (and the simplification) does not change when the mask is traced as a window.
function segDist2(px: f64, py: f64, ax: f64, ay: f64, bx: f64, by: f64): f64 {
  const dx = bx - ax, dy = by - ay, rx = px - ax, ry = py - ay;
  const len2 = dx * dx + dy * dy;
  let t: f64 = 0;
  if (len2 > 0) {
    t = (rx * dx + ry * dy) / len2;
    if (t < 0) t = 0;
    else if (t > 1) t = 1;
  }
  const ex = rx - t * dx, ey = ry - t * dy;
  return ex * ex + ey * ey;
}

/** Which way the corner ring at `v` (n i32 pairs) turns at corner i: 1 or -1 (0: straight). */
function turnAt(v: usize, n: i32, i: i32): i32 {
  const p = v + (<usize>(i == 0 ? n - 1 : i - 1) << 3), q = v + (<usize>i << 3), r = v + (<usize>(i + 1 == n ? 0 : i + 1) << 3);
  return sign((load<i32>(q) - load<i32>(p)) * (load<i32>(r, 4) - load<i32>(q, 4)) - (load<i32>(q, 4) - load<i32>(p, 4)) * (load<i32>(r) - load<i32>(q)));
}

/** Length of the axis-aligned edge between two corners. */
function edgeLen(a: usize, b: usize): i32 {
  return abs(load<i32>(b) - load<i32>(a)) + abs(load<i32>(b, 4) - load<i32>(a, 4));
}

/**
 * The ring through the midpoints of the unit edges of the corner ring at `v` (n i32 pairs,
 * axis-aligned steps), doubled so that they stay integers: around each corner the points half a
 * pixel before and after it (one point when an edge is one pixel long). A real corner stays
 * itself: both its edges at least 2 pixels long and turning like a neighbouring corner (a
 * rectangle's corners; a staircase's turns alternate, whatever its step). Written to `out` (room
 * for 2n pairs); returns the point count.
 */
function midpointRing(v: usize, n: i32, out: usize): i32 {
  let count = 0;
  for (let i = 0; i < n; i++) {
    const ip = i == 0 ? n - 1 : i - 1, ir = i + 1 == n ? 0 : i + 1;
    const p = v + (<usize>ip << 3), q = v + (<usize>i << 3), r = v + (<usize>ir << 3);
    const qx = load<i32>(q) << 1, qy = load<i32>(q, 4) << 1;
    if (edgeLen(p, q) >= 2 && edgeLen(q, r) >= 2) {
      const t = turnAt(v, n, i);
      if (t == turnAt(v, n, ip) || t == turnAt(v, n, ir)) {
        store<i32>(out + (<usize>count << 3), qx);
        store<i32>(out + (<usize>count << 3), qy, 4);
        count++;
        continue;
      }
    }
    const ax = qx - sign(load<i32>(q) - load<i32>(p)), ay = qy - sign(load<i32>(q, 4) - load<i32>(p, 4));
    const bx = qx + sign(load<i32>(r) - load<i32>(q)), by = qy + sign(load<i32>(r, 4) - load<i32>(q, 4));
    const last = out + (<usize>(count - 1) << 3);
    if (count == 0 || load<i32>(last) != ax || load<i32>(last, 4) != ay) {
      store<i32>(out + (<usize>count << 3), ax);
      store<i32>(out + (<usize>count << 3), ay, 4);
      count++;
    }
    store<i32>(out + (<usize>count << 3), bx);
    store<i32>(out + (<usize>count << 3), by, 4);
    count++;
  }
  if (count > 1 && load<i32>(out) == load<i32>(out + (<usize>(count - 1) << 3)) && load<i32>(out, 4) == load<i32>(out + (<usize>(count - 1) << 3), 4)) count--;
  return count;
}

function sign(d: i32): i32 {
  return d > 0 ? 1 : d < 0 ? -1 : 0;
}

/**
 * Douglas-Peucker on a closed ring of n points at `v` (i32 pairs): anchors are point 0 and
 * the point farthest from it; each half keeps the farthest point while its distance to the
 * chord exceeds the tolerance. With `outer`, the farthest point of each half is kept whatever
 * the tolerance, so an outer ring never collapses (a one-pixel mask stays a polygon); holes may.
 * Kept points are appended to `out`; returns how many.
 */
function simplifyRing(v: usize, n: i32, tol: f64, outer: bool, keep: usize, stack: usize, out: usize): i32 {
  if (tol <= 0 || n <= 3) {
    for (let i = 0; i < n; i++) vecPush2(out, load<i32>(v + (<usize>i << 3)), load<i32>(v + (<usize>i << 3), 4));
    return n;
  }
  const tol2 = tol * tol;
  memory.fill(keep, 0, <usize>n);
  const x0 = <f64>load<i32>(v), y0 = <f64>load<i32>(v, 4);
  let b = 0;
  let best: f64 = -1;
  for (let i = 1; i < n; i++) {
    const dx = <f64>load<i32>(v + (<usize>i << 3)) - x0, dy = <f64>load<i32>(v + (<usize>i << 3), 4) - y0;
    const d2 = dx * dx + dy * dy;
    if (d2 > best) {
      best = d2;
      b = i;
    }
  }
  store<u8>(keep, 1);
  store<u8>(keep + <usize>b, 1);
  // Stack entries: i, j, and whether the split is forced (the outer ring's first two halves).
  const force = outer ? 1 : 0;
  vecSetLen(stack, 0);
  vecPush2(stack, 0, b);
  vecPush(stack, force);
  vecPush2(stack, b, n); // index n is point 0 again
  vecPush(stack, force);
  while (vecLen(stack) > 0) {
    const len = vecLen(stack);
    const i = vecGet(stack, len - 3), j = vecGet(stack, len - 2), forced = vecGet(stack, len - 1);
    vecSetLen(stack, len - 3);
    if (j - i < 2) continue;
    const jj = j == n ? 0 : j;
    const ax = <f64>load<i32>(v + (<usize>i << 3)), ay = <f64>load<i32>(v + (<usize>i << 3), 4);
    const bx = <f64>load<i32>(v + (<usize>jj << 3)), by = <f64>load<i32>(v + (<usize>jj << 3), 4);
    let k = -1;
    let kd: f64 = -1;
    for (let q = i + 1; q < j; q++) {
      const d2 = segDist2(<f64>load<i32>(v + (<usize>q << 3)), <f64>load<i32>(v + (<usize>q << 3), 4), ax, ay, bx, by);
      if (d2 > kd) {
        kd = d2;
        k = q;
      }
    }
    if (kd > tol2 || (forced && kd > 0)) {
      store<u8>(keep + <usize>k, 1);
      vecPush2(stack, i, k);
      vecPush(stack, 0);
      vecPush2(stack, k, j);
      vecPush(stack, 0);
    }
  }
  const at = vecLen(out);
  let count = 0;
  for (let i = 0; i < n; i++) {
    if (load<u8>(keep + <usize>i)) {
      vecPush2(out, load<i32>(v + (<usize>i << 3)), load<i32>(v + (<usize>i << 3), 4));
      count++;
    }
  }
  // Douglas-Peucker may fold a pinched ring over itself at a large tolerance. A ring whose
  // orientation flipped keeps every point instead (outer rings positive, holes negative).
  if (count >= 3 && (ringArea2(vecData(out) + (<usize>at << 2), count) > 0) != outer) {
    vecSetLen(out, at);
    for (let i = 0; i < n; i++) vecPush2(out, load<i32>(v + (<usize>i << 3)), load<i32>(v + (<usize>i << 3), 4));
    return n;
  }
  return count;
}

/** Twice the shoelace area of the ring of n i32 pairs at `v`. */
function ringArea2(v: usize, n: i32): f64 {
  let s: f64 = 0;
  for (let i = 0; i < n; i++) {
    const j = i + 1 == n ? 0 : i + 1;
    s += <f64>load<i32>(v + (<usize>i << 3)) * <f64>load<i32>(v + (<usize>j << 3), 4) - <f64>load<i32>(v + (<usize>j << 3)) * <f64>load<i32>(v + (<usize>i << 3), 4);
  }
  return s;
}

/**
 * Traces all boundaries of the column-major mask at `mask` (h * w bytes, nonzero = foreground;
 * the buffer is overwritten with flags) and, with a tolerance `tol` > 0 (pixels), simplifies
 * their edge-midpoint rings; 0 keeps every corner of the staircase. (offX, offY) is added to
 * every output vertex, for masks that are a window of a larger image. Holes that simplify to
 * fewer than 3 points are dropped; outer rings keep at least 3.
 * Result vector (i32): polygonCount, then per polygon: ringCount, then per ring (outer first,
 * then holes): pointCount, x0, y0, x1, y1, ... in HALF pixels (2x the image coordinates).
 * Polygons in column-major order of their first pixel, holes likewise. Returns the result length.
 */
export function maskToPolygons(mask: usize, h: i32, w: i32, tol: f64, offX: i32, offY: i32): i32 {
  if (h < 0 || w < 0) return ERR_INPUT;
  gMask = mask;
  gH = h;
  gW = w;
  const n = <usize>h * <usize>w;
  normalizeMask(mask, n);

  // Vertical runs per column: runs[2r] = y0, runs[2r + 1] = y1 (exclusive).
  const runs = vecNew(1024);
  const colStart = allocI32(w + 1, 0);
  for (let x = 0; x < w; x++) {
    store<i32>(colStart + (<usize>x << 2), vecLen(runs) >> 1);
    const base = <usize>x * <usize>h, end = base + <usize>h;
    let j = base;
    while (true) {
      j = nextDiff(mask, j, end, 0);
      if (j >= end) break;
      const k = nextDiff(mask, j, end, 1);
      vecPush2(runs, <i32>(j - base), <i32>(k - base));
      j = k;
    }
  }
  const nRuns = vecLen(runs) >> 1;
  store<i32>(colStart + (<usize>w << 2), nRuns);
  const rp = vecData(runs);

  // Union-find over runs; runs in neighbouring columns touch (8-connected) when
  // a.y0 <= b.y1 and b.y0 <= a.y1 (y1 exclusive).
  const parent = allocI32(nRuns, 0);
  for (let r = 0; r < nRuns; r++) store<i32>(parent + (<usize>r << 2), r);
  for (let x = 1; x < w; x++) {
    const pa = load<i32>(colStart + (<usize>(x - 1) << 2)), pb = load<i32>(colStart + (<usize>x << 2));
    const cb = load<i32>(colStart + (<usize>(x + 1) << 2));
    let j = pa;
    for (let r = pb; r < cb; r++) {
      const b0 = load<i32>(rp + (<usize>r << 3)), b1 = load<i32>(rp + (<usize>r << 3), 4);
      while (j < pb && load<i32>(rp + (<usize>j << 3), 4) < b0) j++;
      for (let k = j; k < pb && load<i32>(rp + (<usize>k << 3)) <= b1; k++) union(parent, k, r);
    }
  }

  // Trace every loop from its first unseen top edge (run tops, in scan order).
  const outerOf = allocI32(nRuns, -1); // component root run -> loop index of its outer ring
  const verts = vecNew(4096);
  const loops = vecNew(256); // per loop: vertex start (i32 index), corner count, outer loop index or -1
  let maxCorners = 0;
  for (let x = 0; x < w; x++) {
    const r0 = load<i32>(colStart + (<usize>x << 2)), r1 = load<i32>(colStart + (<usize>(x + 1) << 2));
    for (let r = r0; r < r1; r++) {
      const y = load<i32>(rp + (<usize>r << 3));
      if (load<u8>(mask + <usize>(x * h + y)) & TOP_SEEN) continue;
      const start = trace(verts, x, y);
      const corners = (vecLen(verts) - start) >> 1;
      if (corners > maxCorners) maxCorners = corners;
      const root = find(parent, r);
      const op = outerOf + (<usize>root << 2);
      const owner = load<i32>(op);
      const loopIdx = vecLen(loops) / 3;
      if (owner < 0) store<i32>(op, loopIdx);
      vecPush(loops, start);
      vecPush(loops, corners);
      vecPush(loops, owner); // -1 for an outer ring
    }
  }
  const nLoops = vecLen(loops) / 3;

  // Simplify every loop into `simp`; per loop remember where its kept corners are.
  const simp = vecNew(4096);
  const simpStart = allocI32(nLoops, 0);
  const simpCount = allocI32(nLoops, 0);
  const keep = heap.alloc(<usize>max(maxCorners, 1) << 1);
  const ringBuf = heap.alloc(<usize>max(maxCorners, 1) << 4); // up to 2 points per corner, 8 bytes each
  const stack = vecNew(96);
  for (let l = 0; l < nLoops; l++) {
    const start = vecGet(loops, l * 3), corners = vecGet(loops, l * 3 + 1);
    const at = vecLen(simp);
    // vecData(verts) is stable here: nothing is pushed to verts any more.
    const cornersAt = vecData(verts) + (<usize>start << 2);
    let n = corners;
    if (tol > 0) {
      n = midpointRing(cornersAt, corners, ringBuf);
    } else {
      for (let i = 0; i < corners * 2; i++) store<i32>(ringBuf + (<usize>i << 2), load<i32>(cornersAt + (<usize>i << 2)) << 1);
    }
    const count = simplifyRing(ringBuf, n, tol * 2, vecGet(loops, l * 3 + 2) < 0, keep, stack, simp);
    store<i32>(simpStart + (<usize>l << 2), at);
    store<i32>(simpCount + (<usize>l << 2), count);
  }

  // Group holes under their outer ring (counting sort keeps discovery order).
  const holeCount = allocI32(nLoops + 1, 0);
  for (let l = 0; l < nLoops; l++) {
    const owner = vecGet(loops, l * 3 + 2);
    if (owner >= 0 && load<i32>(simpCount + (<usize>l << 2)) >= 3) {
      const p = holeCount + (<usize>owner << 2);
      store<i32>(p, load<i32>(p) + 1);
    }
  }
  const holeStart = allocI32(nLoops + 1, 0);
  let acc = 0;
  for (let l = 0; l < nLoops; l++) {
    store<i32>(holeStart + (<usize>l << 2), acc);
    acc += load<i32>(holeCount + (<usize>l << 2));
  }
  const holeList = allocI32(acc, 0);
  const fillAt = allocI32(nLoops, 0);
  for (let l = 0; l < nLoops; l++) {
    const owner = vecGet(loops, l * 3 + 2);
    if (owner >= 0 && load<i32>(simpCount + (<usize>l << 2)) >= 3) {
      const f = fillAt + (<usize>owner << 2);
      const slot = load<i32>(holeStart + (<usize>owner << 2)) + load<i32>(f);
      store<i32>(holeList + (<usize>slot << 2), l);
      store<i32>(f, load<i32>(f) + 1);
    }
  }

  const res = newResult(1024);
  vecPush(res, 0); // polygon count, patched below
  let nPoly = 0;
  const sp = vecData(simp);
  for (let l = 0; l < nLoops; l++) {
    if (vecGet(loops, l * 3 + 2) >= 0) continue;
    const count = load<i32>(simpCount + (<usize>l << 2));
    if (count < 3) continue;
    nPoly++;
    const nh = load<i32>(holeCount + (<usize>l << 2));
    vecPush(res, 1 + nh);
    for (let k = -1; k < nh; k++) {
      const ring = k < 0 ? l : load<i32>(holeList + (<usize>(load<i32>(holeStart + (<usize>l << 2)) + k) << 2));
      const c = load<i32>(simpCount + (<usize>ring << 2));
      const s = load<i32>(simpStart + (<usize>ring << 2));
      vecPush(res, c);
      for (let q = 0; q < c * 2; q += 2) {
        vecPush(res, load<i32>(sp + (<usize>(s + q) << 2)) + (offX << 1));
        vecPush(res, load<i32>(sp + (<usize>(s + q + 1) << 2)) + (offY << 1));
      }
    }
  }
  store<i32>(vecData(res), nPoly);

  vecFree(runs);
  heap.free(colStart);
  heap.free(parent);
  heap.free(outerOf);
  vecFree(verts);
  vecFree(loops);
  vecFree(simp);
  heap.free(simpStart);
  heap.free(simpCount);
  heap.free(keep);
  heap.free(ringBuf);
  vecFree(stack);
  heap.free(holeCount);
  heap.free(holeStart);
  heap.free(holeList);
  heap.free(fillAt);
  return vecLen(res);
}
