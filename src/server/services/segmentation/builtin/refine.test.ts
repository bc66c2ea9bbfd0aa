// refineBoundary on its own: the band is re-decided from full-resolution colours, everything else
// is the scaled mask; a mask touching the image's border, an object too thin to have sure inside
// cells (kept as scaled) and an empty mask.
import { describe, expect, it } from 'vitest';
import { refineBoundary } from './refine';

const width = 400, height = 300, gw = 100, gh = 75; // 4x

/** Full-size RGB of `inside` (red) on blue, the working copy by 4x4 means and the scaled-down mask. */
function scene(inside: (x: number, y: number) => boolean) {
  const full = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) full.set(inside(x, y) ? [220, 40, 40] : [30, 60, 200], (y * width + x) * 3);
  const work = new Uint8Array(gw * gh * 3), mask = new Uint8Array(gw * gh);
  for (let cy = 0; cy < gh; cy++) {
    for (let cx = 0; cx < gw; cx++) {
      const s = [0, 0, 0];
      let n = 0;
      for (let y = cy * 4; y < cy * 4 + 4; y++) for (let x = cx * 4; x < cx * 4 + 4; x++) {
        for (let c = 0; c < 3; c++) s[c]! += full[(y * width + x) * 3 + c]!;
        if (inside(x, y)) n++;
      }
      for (let c = 0; c < 3; c++) work[(cy * gw + cx) * 3 + c] = s[c]! / 16;
      mask[cy * gw + cx] = n >= 8 ? 1 : 0;
    }
  }
  return { full, work, mask };
}

function errors(inside: (x: number, y: number) => boolean, crop: NonNullable<ReturnType<typeof refineBoundary>>) {
  let wrong = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const inCrop = x >= crop.x0 && x < crop.x0 + crop.w && y >= crop.y0 && y < crop.y0 + crop.h;
      const v = inCrop ? crop.data[(y - crop.y0) * crop.w + (x - crop.x0)] : 0;
      if (v !== (inside(x, y) ? 1 : 0)) wrong++;
    }
  }
  return wrong;
}

describe('refineBoundary', () => {
  it('gives the exact full-size edge of a disc cut by the image border', () => {
    const inside = (x: number, y: number) => (x - 30.3) ** 2 + (y - 150.7) ** 2 < 101.3 ** 2;
    const { full, work, mask } = scene(inside);
    const crop = refineBoundary(mask, gw, gh, work, full, width, height)!;
    expect(crop.x0).toBe(0);
    expect(errors(inside, crop)).toBe(0);
  });

  it('keeps the scaled mask where one side has no sure colour nearby (a thin bar), and is null for an empty mask', () => {
    const inside = (x: number, y: number) => x >= 200 && x < 210 && y >= 50 && y < 250;
    const { full, work, mask } = scene(inside);
    const crop = refineBoundary(mask, gw, gh, work, full, width, height)!;
    for (let y = 60; y < 240; y++) for (let x = crop.x0; x < crop.x0 + crop.w; x++) expect(crop.data[(y - crop.y0) * crop.w + (x - crop.x0)]).toBe(mask[Math.floor(y / 4) * gw + Math.floor(x / 4)]);
    expect(refineBoundary(new Uint8Array(gw * gh), gw, gh, work, full, width, height)).toBeNull();
  });
});
