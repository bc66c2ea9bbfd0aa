// Full-resolution boundary refinement for the built-in backend. The cut runs on a working copy
// (long side 1024), so the mask scaled to a 12 MP image is blocky and a few pixels off. Here only a
// band around its edge is decided again at full resolution: each working cell within BAND cells of
// a cell of the other label is a band cell, and each full-resolution pixel of a band cell takes the
// label whose local colour model it is nearer to. A band cell's models are the mean working colours
// of the cells within MODEL_RADIUS that are outside the band (so surely inside or outside), of
// each label. Everything else keeps the scaled mask. The work is proportional to the edge length.

import { foregroundBox, type PixelBox } from '../maskBox';

/** A full-resolution mask of the box [x0, x0 + w) x [y0, y0 + h) (row-major 0/1); background elsewhere. */
export interface CropMask {
  data: Uint8Array;
  x0: number;
  y0: number;
  w: number;
  h: number;
}

/** Cells of band on each side of the working mask's edge. */
export const BAND = 2;
/** Radius (cells) searched for a band cell's inside and outside colours. */
const MODEL_RADIUS = 4;

/**
 * The working mask `mask` (gw x gh) scaled to width x height by nearest neighbour (as
 * result.ts's gridToRle maps it), with the band around its edge re-labelled from `full` (RGB,
 * width x height). `work` is the working copy's RGB (gw x gh). `box` is the mask's foreground box
 * when known. Null when the mask is empty.
 */
export function refineBoundary(
  mask: Uint8Array,
  gw: number,
  gh: number,
  work: Uint8Array,
  full: Uint8Array,
  width: number,
  height: number,
  box: PixelBox | null = foregroundBox(mask, gw, gh),
): CropMask | null {
  if (!box) return null;
  const { x0: gx0, x1: gx1, y0: gy0, y1: gy1 } = box;
  // The box the result can cover: the foreground box grown by the band.
  const bx0 = Math.max(0, gx0 - BAND), bx1 = Math.min(gw - 1, gx1 + BAND);
  const by0 = Math.max(0, gy0 - BAND), by1 = Math.min(gh - 1, gy1 + BAND);
  const bw = bx1 - bx0 + 1, bh = by1 - by0 + 1;
  // band[c]: 1 when the cell is within BAND of the other label (cells outside the grid do not count).
  // Computed with the row and column passes of a max filter on "differs from a neighbour".
  const edge = new Uint8Array(bw * bh);
  for (let y = by0; y <= by1; y++) {
    for (let x = bx0; x <= bx1; x++) {
      const v = mask[y * gw + x];
      if ((x > 0 && mask[y * gw + x - 1] !== v) || (x < gw - 1 && mask[y * gw + x + 1] !== v) || (y > 0 && mask[(y - 1) * gw + x] !== v) || (y < gh - 1 && mask[(y + 1) * gw + x] !== v)) {
        edge[(y - by0) * bw + (x - bx0)] = 1;
      }
    }
  }
  const r = BAND - 1; // edge cells are at distance 1 already
  const tmp = new Uint8Array(bw * bh), band = new Uint8Array(bw * bh);
  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++) {
      if (!edge[y * bw + x]) continue;
      for (let d = Math.max(0, x - r); d <= Math.min(bw - 1, x + r); d++) tmp[y * bw + d] = 1;
    }
  }
  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++) {
      if (!tmp[y * bw + x]) continue;
      for (let d = Math.max(0, y - r); d <= Math.min(bh - 1, y + r); d++) band[d * bw + x] = 1;
    }
  }

  // The full-resolution box and each full-resolution column's / row's cell.
  const firstOf = (g: number, n: number, j: number) => Math.ceil((j * n) / g - 0.5); // first pixel with floor((i + .5) g / n) >= j
  const X0 = Math.max(0, firstOf(gw, width, bx0)), X1 = Math.min(width, firstOf(gw, width, bx1 + 1));
  const Y0 = Math.max(0, firstOf(gh, height, by0)), Y1 = Math.min(height, firstOf(gh, height, by1 + 1));
  const w = X1 - X0, h = Y1 - Y0;
  const out = new Uint8Array(w * h);
  // Each cell's first column in the crop, and each cell row's band cells with their models: the mean
  // colours inside (0-2) and outside (3-5), -1e9 when that side has no sure cell nearby.
  const cellX = new Int32Array(bw + 1);
  for (let c = 0; c <= bw; c++) cellX[c] = Math.min(width, firstOf(gw, width, bx0 + c)) - X0;
  const rowStart = new Int32Array(bh + 1);
  let count = 0;
  for (let y = 0; y < bh; y++) {
    rowStart[y] = count;
    for (let x = 0; x < bw; x++) count += band[y * bw + x]!;
  }
  rowStart[bh] = count;
  const bandX = new Int32Array(count), models = new Float32Array(count * 6);
  // The window sums slide along each row: a band cell next to the previous one drops the column
  // that left the window and adds the one that entered (18 cells instead of 81).
  const sum = new Float64Array(6), num = new Float64Array(2);
  const addColumn = (mx: number, cy: number, sign: number) => {
    if (mx < 0 || mx >= gw) return;
    const inCols = mx >= bx0 && mx <= bx1;
    for (let my = Math.max(0, cy - MODEL_RADIUS); my <= Math.min(gh - 1, cy + MODEL_RADIUS); my++) {
      if (inCols && my >= by0 && my <= by1 && band[(my - by0) * bw + (mx - bx0)]) continue;
      const fg = mask[my * gw + mx], l = fg ? 0 : 3, p = (my * gw + mx) * 3;
      sum[l] += sign * work[p]!;
      sum[l + 1] += sign * work[p + 1]!;
      sum[l + 2] += sign * work[p + 2]!;
      num[fg ? 0 : 1] += sign;
    }
  };
  for (let y = 0, k = 0; y < bh; y++) {
    const cy = y + by0;
    let last = -2;
    for (let x = 0; x < bw; x++) {
      if (!band[y * bw + x]) continue;
      const cx = x + bx0;
      bandX[k] = cx;
      if (x === last + 1) {
        addColumn(cx - MODEL_RADIUS - 1, cy, -1);
        addColumn(cx + MODEL_RADIUS, cy, 1);
      } else {
        sum.fill(0);
        num.fill(0);
        for (let mx = cx - MODEL_RADIUS; mx <= cx + MODEL_RADIUS; mx++) addColumn(mx, cy, 1);
      }
      last = x;
      for (let l = 0; l < 2; l++) for (let c = 0; c < 3; c++) models[k * 6 + l * 3 + c] = num[l] ? sum[l * 3 + c]! / num[l]! : -1e9;
      k++;
    }
  }
  let prevCy = -1;
  for (let Y = Y0; Y < Y1; Y++) {
    const cy = Math.min(gh - 1, Math.floor(((Y + 0.5) * gh) / height));
    const mrow = cy * gw, orow = (Y - Y0) * w;
    // Outside the band the row repeats the previous one of the same cell row, or the cells' labels.
    if (cy === prevCy) out.copyWithin(orow, orow - w, orow);
    else {
      for (let c = 0; c < bw; ) {
        if (!mask[mrow + bx0 + c]) {
          c++;
          continue;
        }
        let e = c + 1;
        while (e < bw && mask[mrow + bx0 + e]) e++;
        out.fill(1, orow + cellX[c]!, orow + cellX[e]!); // a run of foreground cells at once
        c = e;
      }
    }
    prevCy = cy;
    for (let k = rowStart[cy - by0]!, end = rowStart[cy - by0 + 1]!; k < end; k++) {
      const cx = bandX[k]!, o = k * 6;
      const from = cellX[cx - bx0]!, to = cellX[cx - bx0 + 1]!;
      if (models[o]! < -1e8 || models[o + 3]! < -1e8) {
        out.fill(mask[mrow + cx]!, orow + from, orow + to); // one side has no sure colour nearby: keep the scaled mask
        continue;
      }
      const fr = models[o]!, fg = models[o + 1]!, fb = models[o + 2]!, br = models[o + 3]!, bg = models[o + 4]!, bb = models[o + 5]!;
      for (let i = from, p = (Y * width + X0 + from) * 3; i < to; i++, p += 3) {
        const r0 = full[p]!, g0 = full[p + 1]!, b0 = full[p + 2]!;
        const df = (r0 - fr) ** 2 + (g0 - fg) ** 2 + (b0 - fb) ** 2;
        const db = (r0 - br) ** 2 + (g0 - bg) ** 2 + (b0 - bb) ** 2;
        out[orow + i] = df < db ? 1 : 0;
      }
    }
  }
  return { data: out, x0: X0, y0: Y0, w, h };
}
