// A backend's grid mask -> the mask result of spec section 3: COCO RLE at the original size
// (pycocotools' compressed string), polygons with holes, bbox and area. The grid maps onto the
// image by nearest neighbour: pixel (X, Y) takes grid cell (floor((X + .5) gw / w), floor((Y + .5) gh / h)),
// and polygon vertices are scaled the same way, so the polygons rasterise back to the RLE.
import { MASK_POLYGON_TOLERANCE, type Kernels } from '../../../kernels/node';
import { foregroundBox } from './maskBox';
import type { CropMask } from './builtin/refine';
import type { GridMask } from './types';
import { RunBuilder } from '../../../contract/rle';
import { ringArea } from '../../formats/shapes';

export interface MaskResult {
  counts: string;
  area: number;
  bbox: [number, number, number, number];
  polygons: { path: [number, number][]; holes: [number, number][][]; area: number }[];
}

/** First full-resolution index mapping to each grid index (length g + 1, last = n). */
function firstIndex(n: number, g: number): Int32Array {
  const first = new Int32Array(g + 1).fill(n);
  for (let i = n - 1; i >= 0; i--) first[Math.min(g - 1, Math.floor(((i + 0.5) * g) / n))] = i;
  // Grid cells no pixel maps to (grid finer than the image) start where the next one starts.
  for (let j = g - 1; j >= 0; j--) if (first[j]! > first[j + 1]!) first[j] = first[j + 1]!;
  return first;
}

/** Column-major RLE of the grid scaled to width x height, with its area and bbox [x, y, w, h] (zeros when empty). */
export function gridToRle(mask: GridMask, width: number, height: number): { counts: number[]; area: number; bbox: [number, number, number, number] } {
  const { data, gw, gh } = mask;
  // The grid's foreground box, read row by row (sequential): columns outside it are one
  // background run, and inside it only its rows are walked (column by column, the slow direction).
  const box = foregroundBox(data, gw, gh);
  if (!box) return { counts: [width * height], area: 0, bbox: [0, 0, 0, 0] };
  const { x0: gx0, x1: gx1, y0: gy0, y1: gy1 } = box;
  const firstY = firstIndex(height, gh);
  const runs = new RunBuilder();
  let minX = width, maxX = -1, minY = height, maxY = -1;
  let segs: number[] = [];
  let prevGx = -1, colTop = -1, colBottom = -1;
  for (let X = 0; X < width; X++) {
    const gx = Math.min(gw - 1, Math.floor(((X + 0.5) * gw) / width));
    if (gx !== prevGx) {
      segs = [];
      colTop = colBottom = -1;
      if (gx < gx0 || gx > gx1) segs.push(0, height);
      else {
        if (firstY[gy0]! > 0) segs.push(0, firstY[gy0]!);
        let gy = gy0;
        while (gy <= gy1) {
          const v = data[gy * gw + gx] ? 1 : 0;
          let e = gy + 1;
          while (e <= gy1 && (data[e * gw + gx] ? 1 : 0) === v) e++;
          const n = firstY[e]! - firstY[gy]!;
          if (n > 0) {
            if (v && colTop < 0) colTop = firstY[gy]!;
            if (v) colBottom = firstY[e]! - 1;
            if (segs.length && segs[segs.length - 2] === v) segs[segs.length - 1]! += n;
            else segs.push(v, n);
          }
          gy = e;
        }
        const rest = height - firstY[gy1 + 1]!;
        if (rest > 0) {
          if (segs.length && segs[segs.length - 2] === 0) segs[segs.length - 1]! += rest;
          else segs.push(0, rest);
        }
      }
      prevGx = gx;
    }
    if (colTop >= 0) {
      if (X < minX) minX = X;
      maxX = X;
      if (colTop < minY) minY = colTop;
      if (colBottom > maxY) maxY = colBottom;
    }
    for (let i = 0; i < segs.length; i += 2) runs.append(segs[i]!, segs[i + 1]!);
  }
  const counts = runs.finish();
  return { counts, area: runs.area, bbox: maxX < 0 ? [0, 0, 0, 0] : [minX, minY, maxX - minX + 1, maxY - minY + 1] };
}

/**
 * Column-major RLE, area and bbox of a full-resolution crop (background outside it). The crop is
 * row-major: each row's foreground intervals are found with native scans (indexOf), and where they
 * differ from the row above, the columns in between note that their value changes at that row.
 * Runs are then appended column by column, so the work follows the mask's edge, not its area.
 */
export function cropToRle(crop: CropMask, width: number, height: number): { counts: number[]; area: number; bbox: [number, number, number, number] } {
  const { data, x0, y0, w, h } = crop;
  const runs = new RunBuilder();
  runs.append(0, x0 * height);
  // changes[c]: the rows where column c turns foreground, then background, and so on.
  const changes: number[][] = Array.from({ length: w }, () => []);
  let above: number[] = [], here: number[] = [];
  const edges: number[] = [];
  for (let j = 0; j <= h; j++) {
    here.length = 0;
    if (j < h) {
      const row = data.subarray(j * w, (j + 1) * w);
      for (let x = row.indexOf(1); x >= 0 && x < w; ) {
        const end = nextZero(row, x);
        here.push(x, end);
        x = end < w ? row.indexOf(1, end) : -1;
      }
    }
    // The columns covered by exactly one of the two rows' intervals change here (both lists are sorted).
    edges.length = 0;
    let a = 0, b = 0;
    while (a < above.length || b < here.length) edges.push(b >= here.length || (a < above.length && above[a]! <= here[b]!) ? above[a++]! : here[b++]!);
    for (let k = 0; k + 1 < edges.length; k += 2) for (let c = edges[k]!; c < edges[k + 1]!; c++) changes[c]!.push(j);
    [above, here] = [here, above];
  }
  let minX = width, maxX = -1, minY = height, maxY = -1;
  for (let c = 0; c < w; c++) {
    const ch = changes[c]!;
    runs.append(0, y0);
    let at = 0;
    for (let k = 0; k < ch.length; k++) {
      runs.append(k & 1, ch[k]! - at);
      at = ch[k]!;
    }
    runs.append(0, h - at);
    runs.append(0, height - y0 - h);
    if (ch.length) {
      minY = Math.min(minY, y0 + ch[0]!);
      maxY = Math.max(maxY, y0 + ch[ch.length - 1]! - 1);
      minX = Math.min(minX, x0 + c);
      maxX = x0 + c;
    }
  }
  runs.append(0, (width - x0 - w) * height);
  const counts = runs.finish();
  return { counts, area: runs.area, bbox: maxX < 0 ? [0, 0, 0, 0] : [minX, minY, maxX - minX + 1, maxY - minY + 1] };
}

/** The first index from `from` on holding 0, or the row's length (crops hold 0/1). */
function nextZero(row: Uint8Array, from: number): number {
  const i = row.indexOf(0, from);
  return i < 0 ? row.length : i;
}

/** The mask result of a grid mask, or of a full-resolution crop (`fine`) when the backend refined it. */
export function maskResult(k: Kernels, mask: GridMask, width: number, height: number, tolerance = MASK_POLYGON_TOLERANCE, fine?: CropMask | null): MaskResult {
  const { counts, area, bbox } = fine ? cropToRle(fine, width, height) : gridToRle(mask, width, height);
  const str = k.countsToString(counts);
  const { data, gw, gh } = fine ? { data: fine.data, gw: fine.w, gh: fine.h } : mask;
  const sx = fine ? 1 : width / gw, sy = fine ? 1 : height / gh;
  const ox = fine?.x0 ?? 0, oy = fine?.y0 ?? 0;
  const round = (v: number) => Math.round(v * 100) / 100;
  // The row-major grid read column-major is the transposed image: trace that (no copy), then
  // swap x and y back and reverse each ring to keep the kernel's orientation (outer rings positive).
  const scale = (ring: [number, number][]) => ring.map(([ty, tx]) => [round(tx * sx + ox), round(ty * sy + oy)] as [number, number]).reverse();
  const polygons = k
    .maskToPolygons(data, gw, gh, { tolerance })
    .map((p) => {
      const path = scale(p.path), holes = p.holes.map(scale);
      return { path, holes, area: ringArea(path) - holes.reduce((s, h) => s + ringArea(h), 0) };
    })
    .sort((a, b) => b.area - a.area);
  return { counts: str, area, bbox, polygons };
}

/**
 * get-mask's `logits`: a grid of at most `side` cells on the image's long side (same aspect ratio),
 * row-major, rounded to 0.1. With backend logits, their mean per cell; otherwise the log-odds of
 * each cell's foreground fraction in the mask (clamped to about +-4.2). Grids over 512 cells on
 * the long side are sampled every `step` cells.
 */
export function logitGrid(
  mask: GridMask,
  logits: { data: Float32Array; gw: number; gh: number } | undefined,
  width: number,
  height: number,
  side: number,
): { size: [number, number]; data: number[] } {
  const long = Math.max(width, height);
  const ow = Math.max(1, Math.round((width / long) * side)), oh = Math.max(1, Math.round((height / long) * side));
  const src = logits ?? mask;
  const { gw, gh } = src;
  const sum = new Float64Array(ow * oh), n = new Float64Array(ow * oh);
  // A backend grid at the image's size (SAM2 can answer 12 MP of logits) is sampled, not all read.
  const step = Math.max(1, Math.floor(Math.max(gw, gh) / (side * 8)));
  for (let y = 0; y < gh; y += step) {
    const oy = Math.min(oh - 1, Math.floor(((y + 0.5) * oh) / gh));
    for (let x = 0; x < gw; x += step) {
      const o = oy * ow + Math.min(ow - 1, Math.floor(((x + 0.5) * ow) / gw));
      sum[o]! += src.data[y * gw + x]!;
      n[o]! += 1;
    }
  }
  const eps = 1 / 64;
  const data = Array.from(sum, (s, i) => {
    const m = n[i]! > 0 ? s / n[i]! : logits ? -20 : 0;
    const v = logits ? m : Math.log((m + eps) / (1 - m + eps));
    return Math.round(Math.max(-20, Math.min(20, v)) * 10) / 10 || 0;
  });
  return { size: [oh, ow], data };
}
