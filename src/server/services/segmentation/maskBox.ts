// The foreground's bounding box of a row-major binary mask, read row by row (sequential memory):
// hole filling floods only this box, and the RLE walks only its rows.

/** An inclusive box of cells: x0..x1, y0..y1. */
export interface PixelBox {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/** Inclusive box of the non-zero cells of `data` (w x h, row-major), looking only `within` when given; null when there are none. */
export function foregroundBox(data: ArrayLike<number>, w: number, h: number, within?: PixelBox): PixelBox | null {
  const { x0: wx0, x1: wx1, y0: wy0, y1: wy1 } = within ?? { x0: 0, x1: w - 1, y0: 0, y1: h - 1 };
  let x0 = wx1 + 1, x1 = wx0 - 1, y0 = -1, y1 = -1;
  for (let y = wy0, row = wy0 * w; y <= wy1; y++, row += w) {
    let first = -1;
    for (let x = wx0; x <= wx1; x++) {
      if (data[row + x]) {
        first = x;
        break;
      }
    }
    if (first < 0) continue;
    if (y0 < 0) y0 = y;
    y1 = y;
    if (first < x0) x0 = first;
    for (let x = wx1; x > x1; x--) {
      if (data[row + x]) {
        x1 = x;
        break;
      }
    }
  }
  return y0 < 0 ? null : { x0, x1, y0, y1 };
}
