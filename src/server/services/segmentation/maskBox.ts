// The foreground's bounding box of a row-major binary mask, read row by row (sequential memory):
// hole filling floods only this box, and the RLE walks only its rows.

/** Inclusive box of the non-zero cells of `data` (w x h, row-major); null when there are none. */
export function foregroundBox(data: ArrayLike<number>, w: number, h: number): { x0: number; x1: number; y0: number; y1: number } | null {
  let x0 = w, x1 = -1, y0 = -1, y1 = -1;
  for (let y = 0, row = 0; y < h; y++, row += w) {
    let first = -1;
    for (let x = 0; x < w; x++) {
      if (data[row + x]) {
        first = x;
        break;
      }
    }
    if (first < 0) continue;
    if (y0 < 0) y0 = y;
    y1 = y;
    if (first < x0) x0 = first;
    for (let x = w - 1; x > x1; x--) {
      if (data[row + x]) {
        x1 = x;
        break;
      }
    }
  }
  return y0 < 0 ? null : { x0, x1, y0, y1 };
}
