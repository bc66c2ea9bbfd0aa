// Polygons with holes -> COCO RLE counts, by scanning columns rather than rows: the mask is
// column-major, so each column's spans are directly runs of the RLE and no bitmap is needed.
//
// Pixel (x, y) is foreground when its centre (x + 0.5, y + 0.5) is inside a polygon. Boundary
// rule (half-open, so polygons sharing an edge never both own a pixel): an edge from (ax, ay) to
// (bx, by) with ax < bx counts for the column when ax <= X < bx, and a centre counts the
// crossings at or above it (yc <= Y), with yc = ay + (X - ax) * (by - ay) / (bx - ax).
// Fill rule per polygon (all its rings together): 0 = even-odd, 1 = nonzero. Polygons are united.
import { ERR_INPUT, allocI32 } from './mem';
import { runEmit, runsBegin, runsEnd } from './runs';

const EDGE: usize = 48; // ax, ay, bx, by (f64), dir, poly, first column, end column (i32)

/** Smallest i in [0, limit] with i + 0.5 >= a (limit when there is none). Exact in f64. */
function firstIndex(a: f64, limit: i32): i32 {
  if (!(a > 0.5)) return 0;
  if (a > <f64>limit + 0.5) return limit;
  let c = <i32>Math.ceil(a - 0.5);
  while (c > 0 && <f64>(c - 1) + 0.5 >= a) c--;
  while (c < limit && <f64>c + 0.5 < a) c++;
  return c;
}

/**
 * nRings rings; ring i has load<i32>(ringSizes)[i] vertices (x, y as f64 pairs in `coords`,
 * rings one after another, implicitly closed) and belongs to polygon ringPoly[i] < nPolys.
 * Counts go to the result vector; returns their number (or ERR_INPUT).
 */
export function polygonsToRle(
  ringSizes: usize, ringPoly: usize, nRings: i32, nPolys: i32, coords: usize, h: i32, w: i32, rule: i32,
): i32 {
  if (h < 0 || w < 0 || nRings < 0 || nPolys < 0) return ERR_INPUT;
  let nVerts = 0;
  for (let r = 0; r < nRings; r++) {
    const k = load<i32>(ringSizes + (<usize>r << 2));
    const p = load<i32>(ringPoly + (<usize>r << 2));
    if (k < 0 || p < 0 || p >= nPolys) return ERR_INPUT;
    nVerts += k;
  }

  // Edges that cross at least one column centre, oriented left to right.
  const edges = heap.alloc(<usize>max(nVerts, 1) * EDGE);
  let nEdges = 0;
  let base = 0;
  for (let r = 0; r < nRings; r++) {
    const k = load<i32>(ringSizes + (<usize>r << 2));
    const poly = load<i32>(ringPoly + (<usize>r << 2));
    for (let i = 0; i < k; i++) {
      const a = coords + (<usize>(base + i) << 4);
      const b = coords + (<usize>(base + (i + 1 == k ? 0 : i + 1)) << 4);
      let ax = load<f64>(a), ay = load<f64>(a, 8), bx = load<f64>(b), by = load<f64>(b, 8);
      if (ax == bx) continue; // vertical edges never cross a column centre
      let dir = 1;
      if (ax > bx) {
        let t = ax; ax = bx; bx = t;
        t = ay; ay = by; by = t;
        dir = -1;
      }
      const cs = firstIndex(ax, w), ce = firstIndex(bx, w);
      if (cs >= ce) continue;
      const e = edges + <usize>nEdges * EDGE;
      store<f64>(e, ax);
      store<f64>(e, ay, 8);
      store<f64>(e, bx, 16);
      store<f64>(e, by, 24);
      store<i32>(e, dir, 32);
      store<i32>(e, poly, 36);
      store<i32>(e, cs, 40);
      store<i32>(e, ce, 44);
      nEdges++;
    }
    base += k;
  }

  // Counting sort of edges by first column.
  const bucket = allocI32(w + 1, 0);
  for (let i = 0; i < nEdges; i++) {
    const p = bucket + (<usize>load<i32>(edges + <usize>i * EDGE, 40) << 2);
    store<i32>(p, load<i32>(p) + 1);
  }
  let acc = 0;
  for (let x = 0; x <= w; x++) {
    const p = bucket + (<usize>x << 2);
    const c = load<i32>(p);
    store<i32>(p, acc);
    acc += c;
  }
  const order = allocI32(nEdges, 0);
  for (let i = 0; i < nEdges; i++) {
    const p = bucket + (<usize>load<i32>(edges + <usize>i * EDGE, 40) << 2);
    const slot = load<i32>(p);
    store<i32>(order + (<usize>slot << 2), i);
    store<i32>(p, slot + 1);
  }

  const active = allocI32(nEdges, 0);
  const activeY = heap.alloc(<usize>max(nEdges, 1) << 3);
  const state = allocI32(nPolys, 0);
  runsBegin();
  const hh = <u64>h;
  let nActive = 0;
  let next = 0; // next edge in `order` to activate
  let x = 0;
  while (x < w) {
    if (nActive == 0) {
      if (next >= nEdges) break;
      x = load<i32>(edges + <usize>load<i32>(order + (<usize>next << 2)) * EDGE, 40); // skip empty columns
    }
    while (next < nEdges) {
      const e = load<i32>(order + (<usize>next << 2));
      if (load<i32>(edges + <usize>e * EDGE, 40) > x) break;
      store<i32>(active + (<usize>nActive << 2), e);
      nActive++;
      next++;
    }
    const X = <f64>x + 0.5;
    let m = 0;
    for (let i = 0; i < nActive; i++) {
      const e = load<i32>(active + (<usize>i << 2));
      const ep = edges + <usize>e * EDGE;
      if (load<i32>(ep, 44) <= x) continue; // edge ended
      const ax = load<f64>(ep), ay = load<f64>(ep, 8), bx = load<f64>(ep, 16), by = load<f64>(ep, 24);
      const yc = ay + (X - ax) * (by - ay) / (bx - ax);
      // Insertion sort by crossing: the order barely changes between columns.
      let j = m;
      while (j > 0 && load<f64>(activeY + (<usize>(j - 1) << 3)) > yc) {
        store<f64>(activeY + (<usize>j << 3), load<f64>(activeY + (<usize>(j - 1) << 3)));
        store<i32>(active + (<usize>j << 2), load<i32>(active + (<usize>(j - 1) << 2)));
        j--;
      }
      store<f64>(activeY + (<usize>j << 3), yc);
      store<i32>(active + (<usize>j << 2), e);
      m++;
    }
    nActive = m;

    let inside = 0;
    let spanStart: f64 = 0;
    const colBase = <u64>x * hh;
    for (let i = 0; i < nActive; i++) {
      const ep = edges + <usize>load<i32>(active + (<usize>i << 2)) * EDGE;
      const sp = state + (<usize>load<i32>(ep, 36) << 2);
      const before = load<i32>(sp);
      const after = rule == 0 ? before ^ 1 : before + load<i32>(ep, 32);
      store<i32>(sp, after);
      if ((before != 0) == (after != 0)) continue;
      const yc = load<f64>(activeY + (<usize>i << 3));
      if (after != 0) {
        if (inside == 0) spanStart = yc;
        inside++;
      } else {
        inside--;
        if (inside == 0) {
          const y0 = firstIndex(spanStart, h), y1 = firstIndex(yc, h);
          if (y0 < y1) runEmit(colBase + <u64>y0, colBase + <u64>y1);
        }
      }
    }
    x++;
  }
  const count = runsEnd(<u64>h * <u64>w);

  heap.free(edges);
  heap.free(bucket);
  heap.free(order);
  heap.free(active);
  heap.free(activeY);
  heap.free(state);
  return count;
}
