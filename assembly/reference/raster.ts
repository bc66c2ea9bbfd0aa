// Plain TypeScript reference for polygons -> mask (assembly/kernels/raster.ts): tests every pixel
// centre against every edge, no sweep. Same geometric rule as the kernel: an edge oriented so
// ax < bx counts for the centre (X, Y) when ax <= X < bx and its crossing yc <= Y; the centre is
// inside a polygon by parity ('evenodd') or non-zero signed count ('nonzero'); polygons united.
export type RefFillRule = 'evenodd' | 'nonzero';
type P = readonly [number, number];
export interface RefPolygonInput {
  readonly path: readonly P[];
  readonly holes?: readonly (readonly P[])[];
}

/** Column-major 0/1 mask (pixel (x, y) at x * h + y). */
export function polygonsToMaskRef(polygons: readonly RefPolygonInput[], h: number, w: number, fillRule: RefFillRule = 'evenodd'): Uint8Array {
  const mask = new Uint8Array(h * w);
  for (const poly of polygons) {
    const edges: [number, number, number, number, number][] = [];
    for (const ring of [poly.path, ...(poly.holes ?? [])]) {
      for (let i = 0; i < ring.length; i++) {
        let [ax, ay] = ring[i]!;
        let [bx, by] = ring[(i + 1) % ring.length]!;
        if (ax === bx) continue;
        let dir = 1;
        if (ax > bx) {
          [ax, bx, ay, by] = [bx, ax, by, ay];
          dir = -1;
        }
        edges.push([ax, ay, bx, by, dir]);
      }
    }
    for (let x = 0; x < w; x++) {
      const X = x + 0.5;
      for (let y = 0; y < h; y++) {
        const Y = y + 0.5;
        let parity = 0, winding = 0;
        for (const [ax, ay, bx, by, dir] of edges) {
          if (!(ax <= X && X < bx)) continue;
          const yc = ay + ((X - ax) * (by - ay)) / (bx - ax);
          if (yc <= Y) {
            parity ^= 1;
            winding += dir;
          }
        }
        if (fillRule === 'evenodd' ? parity : winding !== 0) mask[x * h + y] = 1;
      }
    }
  }
  return mask;
}
