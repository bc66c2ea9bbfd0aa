// Plain TypeScript reference for mask -> polygons (assembly/kernels/contours.ts). Written to be
// obviously right rather than fast, and deliberately by a different route than the kernel:
// it builds the directed boundary-edge graph explicitly, classifies loops by signed area, and
// finds each hole's polygon by point-in-polygon tests instead of union-find. Conventions (which
// the kernel must match exactly): see src/kernels/kernels.ts maskToPolygons.
export type Pt = [number, number];
export interface RefPolygon {
  path: Pt[];
  holes: Pt[][];
}

// Directions: 0 right (+x), 1 down (+y), 2 left (-x), 3 up (-y).
const DX = [1, 0, -1, 0];
const DY = [0, 1, 0, -1];

export function shoelace(ring: readonly (readonly [number, number])[]): number {
  let s = 0;
  for (let i = 0; i < ring.length; i++) {
    const [x0, y0] = ring[i]!;
    const [x1, y1] = ring[(i + 1) % ring.length]!;
    s += x0 * y1 - x1 * y0;
  }
  return s / 2;
}

function insideRing(ring: readonly Pt[], px: number, py: number): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]!;
    const [xj, yj] = ring[j]!;
    if (yi > py !== yj > py && px < ((xj - xi) * (py - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

// Relative to the segment start (exact for integer vertices), as the kernel does.
function segDist2(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax, dy = by - ay, rx = px - ax, ry = py - ay;
  const len2 = dx * dx + dy * dy;
  let t = 0;
  if (len2 > 0) {
    t = (rx * dx + ry * dy) / len2;
    if (t < 0) t = 0;
    else if (t > 1) t = 1;
  }
  const ex = rx - t * dx, ey = ry - t * dy;
  return ex * ex + ey * ey;
}

/**
 * The ring through the midpoints of a corner ring's unit edges, collinear points left out: half a
 * pixel before and after each corner (one point when the edge between two corners is 1 long).
 * A real corner stays: both its edges at least 2 long and turning the same way as one of its
 * neighbours (a staircase's turns alternate).
 */
export function midpointRingRef(corners: readonly Pt[]): Pt[] {
  const n = corners.length;
  const at = (i: number) => corners[(i + n) % n]!;
  const turn = (i: number) => {
    const [px, py] = at(i - 1), [qx, qy] = at(i), [rx, ry] = at(i + 1);
    return Math.sign((qx - px) * (ry - qy) - (qy - py) * (rx - qx));
  };
  const length = (a: Pt, b: Pt) => Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]);
  const out: Pt[] = [];
  for (let i = 0; i < n; i++) {
    const [px, py] = at(i - 1), [qx, qy] = at(i), [rx, ry] = at(i + 1);
    if (length(at(i - 1), at(i)) >= 2 && length(at(i), at(i + 1)) >= 2 && (turn(i) === turn(i - 1) || turn(i) === turn(i + 1))) {
      out.push([qx, qy]);
      continue;
    }
    const before: Pt = [qx - Math.sign(qx - px) / 2, qy - Math.sign(qy - py) / 2];
    const after: Pt = [qx + Math.sign(rx - qx) / 2, qy + Math.sign(ry - qy) / 2];
    const last = out[out.length - 1];
    if (!last || last[0] !== before[0] || last[1] !== before[1]) out.push(before);
    out.push(after);
  }
  const [first, last] = [out[0], out[out.length - 1]];
  if (out.length > 1 && first![0] === last![0] && first![1] === last![1]) out.pop();
  return out;
}

/**
 * Douglas-Peucker on a closed ring: anchors are vertex 0 and the vertex farthest from it. With
 * `outer`, the farthest vertex of each half is kept whatever the tolerance (never a collapse).
 */
export function simplifyRingRef(ring: Pt[], tolerance: number, outer = false): Pt[] {
  const n = ring.length;
  if (tolerance <= 0 || n <= 3) return ring.slice();
  const tol2 = tolerance * tolerance;
  const at = (i: number) => ring[i % n]!;
  let b = 0, best = -1;
  for (let i = 1; i < n; i++) {
    const d2 = (ring[i]![0] - ring[0]![0]) ** 2 + (ring[i]![1] - ring[0]![1]) ** 2;
    if (d2 > best) {
      best = d2;
      b = i;
    }
  }
  const keep = new Array<boolean>(n).fill(false);
  keep[0] = keep[b] = true;
  const dp = (i: number, j: number, forced = false): void => {
    if (j - i < 2) return;
    const [ax, ay] = at(i), [bx, by] = at(j);
    let k = -1, kd = -1;
    for (let q = i + 1; q < j; q++) {
      const d2 = segDist2(ring[q]![0], ring[q]![1], ax, ay, bx, by);
      if (d2 > kd) {
        kd = d2;
        k = q;
      }
    }
    if (kd > tol2 || (forced && kd > 0)) {
      keep[k] = true;
      dp(i, k);
      dp(k, j);
    }
  };
  dp(0, b, outer);
  dp(b, n, outer);
  return ring.filter((_, i) => keep[i]);
}

/** Column-major mask (nonzero = foreground) -> polygons with holes. */
export function maskToPolygonsRef(mask: ArrayLike<number>, h: number, w: number, tolerance = 0): RefPolygon[] {
  const fg = (x: number, y: number) => x >= 0 && y >= 0 && x < w && y < h && mask[x * h + y] !== 0;
  // Outgoing boundary edges per vertex: fg pixel on the right of the direction of travel.
  const key = (x: number, y: number) => x * (h + 1) + y;
  const out = new Map<number, number[]>();
  const addEdge = (x: number, y: number, d: number) => {
    const k = key(x, y);
    const list = out.get(k);
    if (list) list.push(d);
    else out.set(k, [d]);
  };
  for (let x = 0; x < w; x++) {
    for (let y = 0; y < h; y++) {
      if (!fg(x, y)) continue;
      if (!fg(x, y - 1)) addEdge(x, y, 0);
      if (!fg(x + 1, y)) addEdge(x + 1, y, 1);
      if (!fg(x, y + 1)) addEdge(x + 1, y + 1, 2);
      if (!fg(x - 1, y)) addEdge(x, y + 1, 3);
    }
  }
  // Successor rule: prefer a left turn (joins diagonal pixels: 8-connected foreground), then
  // straight, then right. A vertex has two outgoing edges only at a diagonal (saddle) pattern.
  const nextDir = (x: number, y: number, d: number): number => {
    const list = out.get(key(x, y))!;
    for (const nd of [(d + 3) & 3, d, (d + 1) & 3]) if (list.includes(nd)) return nd;
    throw new Error('broken boundary');
  };

  interface Loop { corners: Pt[]; area: number; probe: Pt }
  const loops: Loop[] = [];
  const used = new Set<string>();
  for (let x = 0; x < w; x++) {
    for (let y = 0; y < h; y++) {
      if (!fg(x, y) || fg(x, y - 1) || used.has(`${x},${y},0`)) continue;
      // Walk every edge of the loop, recording every vertex and the direction it is left in.
      const verts: Pt[] = [];
      const dirs: number[] = [];
      let vx = x, vy = y, d = 0;
      do {
        used.add(`${vx},${vy},${d}`);
        verts.push([vx, vy]);
        dirs.push(d);
        vx += DX[d]!;
        vy += DY[d]!;
        d = nextDir(vx, vy, d);
      } while (!(vx === x && vy === y && d === 0));
      // Keep corners only: vertices where the incoming and outgoing directions differ.
      const corners = verts.filter((_, i) => dirs[i] !== dirs[(i + verts.length - 1) % verts.length]);
      // The background pixel just above the start pixel lies on the loop's outer side for a
      // hole (inside the hole), so it is the probe for finding the enclosing polygon.
      loops.push({ corners, area: shoelace(corners), probe: [x + 0.5, y - 0.5] });
    }
  }

  const outers = loops.filter((l) => l.area > 0);
  const holesOf = new Map<Loop, Loop[]>(outers.map((o) => [o, []]));
  for (const l of loops) {
    if (l.area > 0) continue;
    // The enclosing polygon is the smallest outer ring that contains the hole.
    let parent: Loop | undefined;
    for (const o of outers) {
      if (insideRing(o.corners, l.probe[0], l.probe[1]) && (!parent || o.area < parent.area)) parent = o;
    }
    if (!parent) throw new Error('hole without a polygon');
    holesOf.get(parent)!.push(l);
  }

  // Above tolerance 0 the staircase's edge midpoints are simplified, not its corners.
  // A ring whose orientation the simplification flipped (folded over a pinch) keeps every point.
  const simplified = (corners: Pt[], outer: boolean) => {
    const ring = tolerance > 0 ? midpointRingRef(corners) : corners;
    const kept = simplifyRingRef(ring, tolerance, outer);
    return kept.length >= 3 && shoelace(kept) > 0 !== outer ? ring : kept;
  };
  const result: RefPolygon[] = [];
  for (const o of outers) {
    const path = simplified(o.corners, true);
    if (path.length < 3) continue;
    const holes = holesOf.get(o)!.map((hl) => simplified(hl.corners, false)).filter((r) => r.length >= 3);
    result.push({ path, holes });
  }
  return result;
}
