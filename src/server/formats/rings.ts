// Rings with holes and objects of several parts in formats whose polygons are one ring each (COCO
// polygons, YOLO segment lines), both ways, written once:
// - keyholeRing: a polygon's holes joined to its outer ring by zero-width "keyhole" bridges (the
//   COCO export of masks as polygons, YOLO segments);
// - joinParts: several rings of one object joined into one by zero-width bridges between their
//   nearest vertices, walked there and back, as Ultralytics' own converter joins a COCO object's
//   polygons into one label line (ultralytics/data/converter.py merge_multi_segment);
// - splitBridged: the reader's inverse: a ring cut at every edge that is walked there and back
//   again, its loops sorted into outer rings and the holes inside them.
// A bridge is walked once each way, so even-odd rasterisers (pycocotools' frPoly, OpenCV's
// fillPoly, the kernels' polygonsToMask) count its two copies twice and draw nothing for it.
import { pathBox, ringArea, signedRingArea, type Pt } from './shapes';

/** An edge of the outer ring or of a hole, as given: from node `a` to node `b`; `splits` are the bridges joined on it, in its direction. */
interface Edge {
  a: number;
  b: number;
  /** 0 the outer ring, k + 1 hole k. */
  owner: number;
  /** Each bridge's two feet: `enter` (the ring goes from here into the hole) and `leave` (back from the hole). */
  splits: { enter: number; leave: number }[];
}

/** Edges are looked up by horizontal strips; at most this many strip entries per edge on average (long edges span many strips). */
const STRIP_ENTRIES_PER_EDGE = 16;

/**
 * The edges in horizontal strips, so the edges a horizontal line crosses are found among the few in
 * its strip instead of among all of them. `strip(y)` is the list of edges whose y range meets the
 * strip holding y.
 */
function edgeStrips(edges: readonly Edge[], ys: readonly number[]): (y: number) => readonly number[] {
  let y0 = Infinity;
  let y1 = -Infinity;
  for (const y of ys) [y0, y1] = [Math.min(y0, y), Math.max(y1, y)];
  const span = (e: Edge, n: number, h: number): [number, number] => {
    const [ya, yb] = [ys[e.a]!, ys[e.b]!];
    return [Math.min(n - 1, Math.floor((Math.min(ya, yb) - y0) / h)), Math.min(n - 1, Math.floor((Math.max(ya, yb) - y0) / h))];
  };
  let n = Math.max(1, Math.min(4096, Math.ceil(edges.length / 4)));
  for (;;) {
    const h = (y1 - y0) / n || 1;
    let entries = 0;
    for (const e of edges) {
      const [lo, hi] = span(e, n, h);
      entries += hi - lo + 1;
    }
    if (n === 1 || entries <= STRIP_ENTRIES_PER_EDGE * edges.length) break;
    n = Math.ceil(n / 2);
  }
  const h = (y1 - y0) / n || 1;
  const strips: number[][] = Array.from({ length: n }, () => []);
  edges.forEach((e, i) => {
    const [lo, hi] = span(e, n, h);
    for (let k = lo; k <= hi; k++) strips[k]!.push(i);
  });
  return (y) => strips[Math.max(0, Math.min(n - 1, Math.floor((y - y0) / h)))]!;
}

/**
 * One ring with its holes joined in by zero-width "keyhole" bridges. Holes are joined leftmost
 * first, each from its leftmost vertex along a horizontal ray to the left, to the nearest edge of
 * the ring built so far (the holes joined before included), so no bridge crosses an edge. Each hole
 * runs against the outer ring, so the ring's shoelace area is the outer's minus the holes'.
 * `joined`: holes joined (a hole outside its ring, which a trace never gives, is left out).
 *
 * Near-linear in the vertices: the ring is a linked list (a hole goes in without copying the ring),
 * the ray meets only the edges of its horizontal strip, and an edge that bridges already split
 * keeps its pieces in order (a ray meets one of them). The ring built so far has the given edges
 * (split) and the bridges, which are horizontal and never met by a horizontal ray, so this is the
 * same ring as a scan of every edge for every hole, which took about 1 s for 400 holes.
 */
export function keyholeRing(outer: readonly (readonly [number, number])[], holes: readonly (readonly (readonly [number, number])[])[]): { ring: Pt[]; joined: number } {
  const xs: number[] = [];
  const ys: number[] = [];
  const next: number[] = [];
  const node = (x: number, y: number) => {
    xs.push(x);
    ys.push(y);
    return next.push(-1) - 1;
  };
  const edges: Edge[] = [];
  outer.forEach(([x, y]) => node(x, y));
  outer.forEach((_, i) => {
    next[i] = (i + 1) % outer.length;
    edges.push({ a: i, b: (i + 1) % outer.length, owner: 0, splits: [] });
  });
  const outerSign = Math.sign(signedRingArea(outer.map(([x, y]): Pt => [x, y])));
  // Each hole as a loop from its leftmost vertex back to it, against the outer ring: nodes made
  // now (so its edges are in the strips), linked into the ring when it is joined.
  const prepared = holes
    .filter((h) => h.length >= 3)
    .map((h, k) => {
      const pts: Pt[] = h.map(([x, y]) => [x, y]);
      if (Math.sign(signedRingArea(pts)) === outerSign) pts.reverse();
      let m = 0;
      for (let i = 1; i < pts.length; i++) if (pts[i]![0] < pts[m]![0] || (pts[i]![0] === pts[m]![0] && pts[i]![1] < pts[m]![1])) m = i;
      const loop = [...pts.slice(m), ...pts.slice(0, m), pts[m]!].map(([x, y]) => node(x, y));
      for (let i = 0; i + 1 < loop.length; i++) {
        next[loop[i]!] = loop[i + 1]!;
        edges.push({ a: loop[i]!, b: loop[i + 1]!, owner: k + 1, splits: [] });
      }
      return { loop, owner: k + 1, x: pts[m]![0] };
    })
    .sort((a, b) => a.x - b.x);
  const strip = edgeStrips(edges, ys);
  const inRing = new Set<number>([0]);
  /** Where the horizontal line at `y` crosses the edge from node p to node q, or null (half-open, so a vertex counts once). */
  const crossing = (p: number, q: number, y: number) => {
    if (ys[p]! > y === ys[q]! > y) return null;
    return xs[p]! + ((y - ys[p]!) * (xs[q]! - xs[p]!)) / (ys[q]! - ys[p]!);
  };
  let joined = 0;
  for (const { loop, owner } of prepared) {
    const start = loop[0]!;
    const [mx, my] = [xs[start]!, ys[start]!];
    let best = -Infinity;
    let hit: { edge: Edge; piece: number } | null = null;
    for (const i of strip(my)) {
      const edge = edges[i]!;
      if (!inRing.has(edge.owner) || crossing(edge.a, edge.b, my) === null) continue;
      // The piece of the edge between its bridges that the line crosses.
      for (let piece = 0; piece <= edge.splits.length; piece++) {
        const p = piece === 0 ? edge.a : edge.splits[piece - 1]!.leave;
        const q = piece === edge.splits.length ? edge.b : edge.splits[piece]!.enter;
        const x = crossing(p, q, my);
        if (x === null) continue;
        if (x <= mx && x > best) [best, hit] = [x, { edge, piece }];
        break;
      }
    }
    if (!hit) continue;
    const { edge, piece } = hit;
    const from = piece === 0 ? edge.a : edge.splits[piece - 1]!.leave;
    const [enter, leave] = [node(best, my), node(best, my)];
    next[leave] = next[from]!;
    next[from] = enter;
    next[enter] = start;
    next[loop[loop.length - 1]!] = leave;
    edge.splits.splice(piece, 0, { enter, leave });
    inRing.add(owner);
    joined += 1;
  }
  const ring: Pt[] = [];
  if (outer.length > 0) {
    let at = 0;
    do {
      ring.push([xs[at]!, ys[at]!]);
      at = next[at]!;
    } while (at !== 0);
  }
  return { ring: withoutRepeats(ring), joined };
}

/** No point twice in a row, the last against the first included (a ray through a vertex puts a bridge's end on it). */
function withoutRepeats(ring: Pt[]): Pt[] {
  return ring.filter((p, i) => {
    const q = ring[(i + ring.length - 1) % ring.length]!;
    return p[0] !== q[0] || p[1] !== q[1];
  });
}

/** Above this many vertex pairs the link between two parts is found in two linear passes instead of by comparing every pair. */
const EXACT_PAIRS_MAX = 1_000_000;

/** [index in a, index in b] of a short link between two rings: their nearest vertices, or a near pair for large rings. */
function link(a: readonly Pt[], b: readonly Pt[]): [number, number] {
  const d2 = (p: Pt, q: Pt) => (p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2;
  const nearest = (ring: readonly Pt[], p: Pt) => {
    let best = 0;
    for (let i = 1; i < ring.length; i++) if (d2(ring[i]!, p) < d2(ring[best]!, p)) best = i;
    return best;
  };
  if (a.length * b.length > EXACT_PAIRS_MAX) {
    const centre: Pt = [a.reduce((s, p) => s + p[0], 0) / a.length, a.reduce((s, p) => s + p[1], 0) / a.length];
    const j = nearest(b, centre);
    return [nearest(a, b[j]!), j];
  }
  let pair: [number, number] = [0, 0];
  let best = Infinity;
  for (let i = 0; i < a.length; i++) {
    for (let j = 0; j < b.length; j++) {
      const d = d2(a[i]!, b[j]!);
      if (d < best) {
        best = d;
        pair = [i, j];
      }
    }
  }
  return pair;
}

/**
 * Several rings of one object (its parts, each with its holes already keyholed) as one ring: part
 * i is linked to part i + 1 by a bridge between their nearest vertices, and the walk goes forward
 * through every part to the last, then back through the others (merge_multi_segment's two passes),
 * so each bridge is walked once each way. One ring is returned as it is.
 */
export function joinParts(parts: readonly (readonly Pt[])[]): Pt[] {
  const rings = parts.filter((p) => p.length > 0);
  if (rings.length <= 1) return rings[0] ? rings[0].map(([x, y]): Pt => [x, y]) : [];
  const links = rings.slice(1).map((r, i) => link(rings[i]!, r));
  // Each part starts at the vertex its bridge from the previous part arrives at; `out` is where the bridge to the next leaves.
  const walks = rings.map((r, i) => {
    const start = i === 0 ? 0 : links[i - 1]![1];
    const rotated = [...r.slice(start), ...r.slice(0, start)];
    const out = i < links.length ? (links[i]![0] - start + r.length) % r.length : -1;
    return { rotated, out };
  });
  const ring: Pt[] = [];
  const push = (p: Pt) => ring.push([p[0], p[1]]);
  walks.forEach(({ rotated, out }) => {
    const end = out < 0 ? rotated.length - 1 : out;
    for (let k = 0; k <= end; k++) push(rotated[k]!);
  });
  for (let i = walks.length - 1; i >= 0; i--) {
    const { rotated, out } = walks[i]!;
    if (out >= 0) for (let k = out; k < rotated.length; k++) push(rotated[k]!);
    if (i > 0) push(rotated[0]!); // back at the arrival vertex, to walk the bridge back
  }
  return withoutRepeats(ring);
}

const edgeKey = (a: Pt, b: Pt) => `${a[0]},${a[1]},${b[0]},${b[1]}`;

const same = (p: Pt | undefined, q: Pt | undefined) => p !== undefined && q !== undefined && p[0] === q[0] && p[1] === q[1];

/** Whether b lies on the straight edge from a to c, strictly between them. */
function between(a: Pt, b: Pt, c: Pt): boolean {
  return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]) === 0 && (b[0] - a[0]) * (c[0] - b[0]) + (b[1] - a[1]) * (c[1] - b[1]) > 0;
}

/**
 * The loops of a ring once every edge walked there and back (A -> B, later B -> A) is taken out,
 * in one walk: the vertices walked so far are a stack, and an edge that goes back along one of its
 * edges closes the loop walked since (popped off), so nested bridges (keyholes, joined parts) cost
 * one pass. A bridge's end that lies on a straight edge (a keyhole's foot) is dropped; loops
 * under 3 points or without area are dropped.
 */
function loopsOf(ring: readonly Pt[]): Pt[][] {
  const r = withoutRepeats(ring.map(([x, y]): Pt => [x, y]));
  const loops: Pt[][] = [];
  const ends = new Set<string>();
  const stack: Pt[] = [r[0]!];
  /** Edge 'ax,ay,bx,by' -> the stack position of its start. */
  const edgeAt = new Map<string, number>();
  for (let t = 1; t <= r.length && r.length >= 3; t++) {
    const next = r[t % r.length]!;
    const cur = stack[stack.length - 1]!;
    const k = edgeAt.get(edgeKey(next, cur));
    if (k !== undefined && k + 1 < stack.length && same(stack[k], next) && same(stack[k + 1], cur)) {
      loops.push(stack.slice(k + 1, stack.length - 1));
      stack.length = k + 1;
      ends.add(`${next[0]},${next[1]}`).add(`${cur[0]},${cur[1]}`);
      continue;
    }
    edgeAt.set(edgeKey(cur, next), stack.length - 1);
    stack.push(next);
  }
  if (same(stack[0], stack[stack.length - 1]) && stack.length > 1) loops.push(stack.slice(0, -1));
  return loops
    .map((loop) => loop.filter((p, i) => !ends.has(`${p[0]},${p[1]}`) || loop.length <= 3 || !between(loop[(i + loop.length - 1) % loop.length]!, p, loop[(i + 1) % loop.length]!)))
    .filter((l) => l.length >= 3 && ringArea(l) > 0);
}

/** -1 outside, 0 on the boundary, 1 inside (even-odd); `xy` is the ring flat, x0 y0 x1 y1 ... */
function where(px: number, py: number, xy: Float64Array): -1 | 0 | 1 {
  let inside = false;
  const n = xy.length;
  for (let i = 0, j = n - 2; i < n; j = i, i += 2) {
    const xi = xy[i]!, yi = xy[i + 1]!, xj = xy[j]!, yj = xy[j + 1]!;
    const cross = (xj - xi) * (py - yi) - (yj - yi) * (px - xi);
    if (cross === 0 && Math.min(xi, xj) <= px && px <= Math.max(xi, xj) && Math.min(yi, yj) <= py && py <= Math.max(yi, yj)) return 0;
    if (yi > py !== yj > py && px < ((xj - xi) * (py - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside ? 1 : -1;
}

/** Vertices of a loop whose verdict (inside or outside another loop) decides, by majority: a hole may share a vertex or two with its ring's boundary (those count for neither). */
const VOTES = 3;

/** Whether loop `b` lies inside the loop `a` (flat): the majority of the first VOTES of its vertices, spread along it, that are not on a's boundary. */
function inside(b: readonly Pt[], a: Float64Array): boolean {
  let votes = 0;
  let cast = 0;
  const step = Math.max(1, Math.floor(b.length / (VOTES * 3)));
  for (let i = 0; i < b.length && cast < VOTES; i += step) {
    const w = where(b[i]![0], b[i]![1], a);
    votes += w;
    if (w !== 0) cast += 1;
  }
  return votes > 0;
}

/**
 * A ring as the polygons it draws: cut at its zero-width bridges (keyholeRing's, joinParts', or
 * any other writer's: an edge walked there and back), each loop inside an even number of others
 * an outer ring, each inside an odd number a hole of the smallest loop around it. A ring without
 * bridges comes back exactly as it was, as one polygon without holes.
 */
export function splitBridged(ring: readonly Pt[]): { path: Pt[]; holes: Pt[][] }[] {
  const loops = loopsOf(ring);
  if (loops.length <= 1) return [{ path: ring.map(([x, y]): Pt => [x, y]), holes: [] }];
  const areas = loops.map(ringArea);
  const boxes = loops.map(pathBox);
  const within = (i: number, k: number) => {
    const [b, a] = [boxes[i]!, boxes[k]!];
    return b.x >= a.x && b.y >= a.y && b.x + b.w <= a.x + a.w && b.y + b.h <= a.y + a.h;
  };
  const flat = loops.map((l) => Float64Array.from(l.flat()));
  const around = loops.map((l, i) => loops.map((_, k) => k).filter((k) => k !== i && areas[k]! > areas[i]! && within(i, k) && inside(l, flat[k]!)));
  const polygons = new Map<number, { path: Pt[]; holes: Pt[][] }>();
  loops.forEach((l, i) => {
    if (around[i]!.length % 2 === 0) polygons.set(i, { path: l, holes: [] });
  });
  loops.forEach((l, i) => {
    if (around[i]!.length % 2 === 0) return;
    const owner = around[i]!.reduce((best, k) => (areas[k]! < areas[best]! ? k : best));
    polygons.get(owner)?.holes.push(l);
  });
  return [...polygons.values()];
}
