// gridToRle walks only the grid's foreground box; it must give the RLE, area and bbox of the grid
// scaled to the image by nearest neighbour, whatever the grid's size against the image's.
import { beforeAll, describe, expect, it } from 'vitest';
import { buildKernels } from '../../../../assembly/build.mjs';
import { loadKernelsNode, type Kernels } from '../../../kernels/node';
import { cropToRle, gridToRle, maskResult } from './result';
import { decodeRle, encodeMask } from '../../../contract/rle';

let k: Kernels;
beforeAll(async () => {
  await buildKernels({ quiet: true });
  k = await loadKernelsNode();
});

function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

/** The grid scaled to width x height (pixel (X, Y) takes cell (floor((X + .5) gw / w), floor((Y + .5) gh / h))), column-major. */
function scaled(data: Uint8Array, gw: number, gh: number, width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height);
  for (let X = 0; X < width; X++) {
    const gx = Math.min(gw - 1, Math.floor(((X + 0.5) * gw) / width));
    for (let Y = 0; Y < height; Y++) out[X * height + Y] = data[Math.min(gh - 1, Math.floor(((Y + 0.5) * gh) / height)) * gw + gx]!;
  }
  return out;
}

function rleOf(col: Uint8Array): number[] {
  const counts: number[] = [];
  let cur = 0, len = 0;
  for (const v of col) {
    if (v === cur) len++;
    else {
      counts.push(len);
      cur = v;
      len = 1;
    }
  }
  counts.push(len);
  return counts;
}

describe('gridToRle', () => {
  it('matches the scaled grid pixel for pixel (coarser, finer and equal grids; empty and full masks)', () => {
    for (let seed = 1; seed <= 150; seed++) {
      const r = rng(seed);
      const gw = 1 + Math.floor(r() * 40), gh = 1 + Math.floor(r() * 40);
      const width = 1 + Math.floor(r() * 90), height = 1 + Math.floor(r() * 90);
      const data = new Uint8Array(gw * gh);
      const kind = seed % 5;
      if (kind === 1) data.fill(1);
      else if (kind !== 0) {
        const x0 = Math.floor(r() * gw), y0 = Math.floor(r() * gh), x1 = x0 + Math.floor(r() * (gw - x0)), y1 = y0 + Math.floor(r() * (gh - y0));
        for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) data[y * gw + x] = r() < 0.8 ? 1 : 0;
      }
      const col = scaled(data, gw, gh, width, height);
      const got = gridToRle({ data, gw, gh }, width, height);
      const label = `seed ${seed}: grid ${gw} x ${gh}, image ${width} x ${height}`;
      expect(got.counts, label).toEqual(rleOf(col));
      expect(got.area, label).toBe(col.reduce((a, v) => a + v, 0));
      const b = k.bbox({ size: [height, width], counts: k.countsToString(got.counts) });
      expect(got.bbox, label).toEqual(got.area ? [b.x, b.y, b.width, b.height] : [0, 0, 0, 0]);
    }
  });

  it('maskResult reports that bbox and area with the compressed counts', () => {
    const data = new Uint8Array(8 * 6);
    for (let y = 2; y < 5; y++) for (let x = 3; x < 7; x++) data[y * 8 + x] = 1;
    const res = maskResult(k, { data, gw: 8, gh: 6 }, 80, 60);
    expect(res.area).toBe(40 * 30);
    expect(res.bbox).toEqual([30, 20, 40, 30]);
    expect(k.area({ size: [60, 80], counts: res.counts })).toBe(res.area);
  });
});

describe('cropToRle', () => {
  it('encodes a crop as the whole mask would be, foreground running across column ends included', () => {
    const width = 6, height = 5;
    // A crop of full height, so foreground at the bottom of one column meets the top of the next.
    const crop = { x0: 1, y0: 0, w: 3, h: 5, data: new Uint8Array([1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1]) };
    const full = new Uint8Array(width * height);
    for (let i = 0; i < crop.w; i++) for (let j = 0; j < crop.h; j++) full[(crop.x0 + i) * height + crop.y0 + j] = crop.data[j * crop.w + i]!;
    const out = cropToRle(crop, width, height);
    expect(out.counts).toEqual(encodeMask(full, height, width));
    expect(decodeRle({ size: [height, width], counts: out.counts })).toEqual(full);
    expect(out.area).toBe(full.reduce((a, b) => a + b, 0));
  });

  it('encodes a wide random crop (several column blocks) inside a larger image, with its area and bbox', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const width = 300, height = 90;
    const crop = { x0: 17, y0: 9, w: 150, h: 70, data: new Uint8Array(150 * 70) };
    // Blobs of runs: long enough to merge across rows and columns, with a few single pixels.
    for (let p = 0; p < crop.data.length; p++) crop.data[p] = (Math.floor(p / 150) * 7 + (p % 150)) % 23 < 9 || rand() < 0.02 ? 1 : 0;
    const full = new Uint8Array(width * height);
    for (let i = 0; i < crop.w; i++) for (let j = 0; j < crop.h; j++) full[(crop.x0 + i) * height + crop.y0 + j] = crop.data[j * crop.w + i]!;
    const out = cropToRle(crop, width, height);
    expect(out.counts).toEqual(encodeMask(full, height, width));
    expect(out.area).toBe(full.reduce((a, b) => a + b, 0));
    let minX = width, minY = height, maxX = -1, maxY = -1;
    for (let x = 0; x < width; x++) {
      for (let y = 0; y < height; y++) {
        if (!full[x * height + y]) continue;
        minX = Math.min(minX, x);
        maxX = Math.max(maxX, x);
        minY = Math.min(minY, y);
        maxY = Math.max(maxY, y);
      }
    }
    expect(out.bbox).toEqual([minX, minY, maxX - minX + 1, maxY - minY + 1]);
  });
});
