// The geometry every dataset format shares, written once: a path's bounding box, a box clipped to
// the image, a ring's area, box recognition (a ring that is a box's rectangle: COCO's isBoxRing, YOLO's
// axisAlignedRectangle), and the VOC pixel rule. Readers (./<format>/read.ts), writers
// (./<format>/write.ts), the import's conversion and the segmentation result use these.
//
// Why here and not in src/contract: every user of these is on the server (the SPA and the engine
// compute no ring area or VOC box), so src/contract, shared with the browser, need not carry them.

export type Pt = [number, number];

export const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
export const isPath = (v: unknown): v is Pt[] => Array.isArray(v) && v.every((p) => Array.isArray(p) && p.length >= 2 && isNum(p[0]) && isNum(p[1]));

/** A box in Vellum's continuous pixels: pixel (i, j) covers [i, i+1] x [j, j+1]. */
export interface PixelBox {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The bounding box of a path's vertices. */
export function pathBox(path: readonly (readonly [number, number])[]): PixelBox {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const [x, y] of path) {
    x0 = Math.min(x0, x);
    y0 = Math.min(y0, y);
    x1 = Math.max(x1, x);
    y1 = Math.max(y1, y);
  }
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
}

/** The part of a box inside a width x height image, and whether it was cut; null when nothing is inside. */
export function clipBox(b: PixelBox, size: { width: number; height: number }): { box: PixelBox; clipped: boolean } | null {
  const x0 = Math.max(0, b.x);
  const y0 = Math.max(0, b.y);
  const x1 = Math.min(size.width, b.x + b.w);
  const y1 = Math.min(size.height, b.y + b.h);
  if (!(x1 > x0) || !(y1 > y0)) return null;
  const box = { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
  return { box, clipped: x0 !== b.x || y0 !== b.y || x1 !== b.x + b.w || y1 !== b.y + b.h };
}

/** Signed area of a closed ring (the shoelace formula): its sign is the ring's direction. */
export function signedRingArea(path: readonly (readonly [number, number])[]): number {
  let s = 0;
  for (let i = 0; i < path.length; i++) {
    const [x1, y1] = path[i]!;
    const [x2, y2] = path[(i + 1) % path.length]!;
    s += x1 * y2 - x2 * y1;
  }
  return s / 2;
}

/** Area of a closed ring, whatever its direction; 0 for a degenerate ring. */
export function ringArea(path: readonly (readonly [number, number])[]): number {
  return Math.abs(signedRingArea(path));
}

const near = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));

/**
 * Whether a flat ring [x1, y1, x2, y2, ...] is exactly the rectangle of `box` [x, y, w, h]: its 4
 * corners, any start, either direction. How COCO exports (Vellum's among them) write a box.
 */
export function isBoxRing(ring: readonly number[], box: readonly number[] | null): boolean {
  if (!box || ring.length !== 8) return false;
  const [x, y, w, h] = box as [number, number, number, number];
  const corners: Pt[] = [[x, y], [x + w, y], [x + w, y + h], [x, y + h]];
  const used = new Set<number>();
  for (let i = 0; i < 8; i += 2) {
    const c = corners.findIndex(([cx, cy], j) => !used.has(j) && near(cx, ring[i]!) && near(cy, ring[i + 1]!));
    if (c < 0) return false;
    used.add(c);
  }
  return true;
}

/**
 * The box a 4-corner axis-aligned rectangle is, else null: segment datasets write every object as
 * a polygon (Vellum's YOLO export writes boxes as their 4 corners when a project has polygons), and
 * a rectangle brought back as a polygon would lose its box tools and class type (YOLO's reader).
 */
export function axisAlignedRectangle(path: readonly (readonly [number, number])[]): PixelBox | null {
  if (path.length !== 4) return null;
  for (let i = 0; i < 4; i++) {
    const [x1, y1] = path[i]!;
    const [x2, y2] = path[(i + 1) % 4]!;
    if ((x1 === x2) === (y1 === y2)) return null; // each side is horizontal or vertical, never both or neither
  }
  const xs = path.map((p) => p[0]);
  const ys = path.map((p) => p[1]);
  const x = Math.min(...xs), y = Math.min(...ys);
  const w = Math.max(...xs) - x, h = Math.max(...ys) - y;
  return w > 0 && h > 0 ? { x, y, w, h } : null;
}

/** The flat ring of a box's 4 corners, clockwise from its top-left (COCO's polygon for a box). */
export function boxRing(x: number, y: number, w: number, h: number): number[] {
  return [x, y, x + w, y, x + w, y + h, x, y + h];
}

// The VOC pixel rule, one rule both ways: VOC counts pixels from 1 and its xmax / ymax are the
// last pixel inside the box. A Vellum box over pixels x .. x+w-1 is, in VOC,
//   xmin = x + 1, ymin = y + 1, xmax = x + w, ymax = y + h
// (the VOC devkit's convention, and Detectron2's loader, which subtracts 1 from xmin and ymin
// only). The same affine rule holds for fractional coordinates.

/** Vellum box (continuous pixels) -> VOC [xmin, ymin, xmax, ymax] (1-based, last pixel inclusive). */
export function boxToVoc(b: PixelBox): [number, number, number, number] {
  return [b.x + 1, b.y + 1, b.x + b.w, b.y + b.h];
}

/** VOC [xmin, ymin, xmax, ymax] -> Vellum box: the inverse of boxToVoc. */
export function vocToBox(xmin: number, ymin: number, xmax: number, ymax: number): PixelBox {
  return { x: xmin - 1, y: ymin - 1, w: xmax - xmin + 1, h: ymax - ymin + 1 };
}
