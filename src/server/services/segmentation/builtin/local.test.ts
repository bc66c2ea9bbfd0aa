// A correction click changes the mask where it was put and in its own direction only
// (keepLocalChanges), and small objects are cut again on a zoomed crop (focus.ts).
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { kernelsWasmPath } from '../../../../kernels/node';
import { instantiateSegmentKernelsSync } from '../../../../kernels/segment';
import { keepLocalChanges } from './algorithm';
import { focusRegion, resampleRgb, sampleMask } from './focus';
import { BuiltinSegmenter } from './index';

const W = 40, H = 20;

/** A mask from rows of '#' (foreground) and '.' */
function grid(rows: string[]): Uint8Array {
  const out = new Uint8Array(W * H);
  rows.forEach((row, y) => [...row].forEach((c, x) => (out[y * W + x] = c === '#' ? 1 : 0)));
  return out;
}

function rect(m: Uint8Array, x0: number, y0: number, x1: number, y1: number, v: number): Uint8Array {
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) m[y * W + x] = v;
  return m;
}

const count = (m: Uint8Array) => m.reduce((a, b) => a + b, 0);

describe('keepLocalChanges', () => {
  it('a new positive click adds what is connected to it, and neither removes nor adds elsewhere', () => {
    const previous = rect(new Uint8Array(W * H), 2, 2, 10, 10, 1);
    // The cut grew the mask at the click (x 10-14), flipped a far region on, and dropped a corner.
    const mask = rect(rect(rect(previous.slice(), 10, 4, 15, 8, 1), 30, 12, 36, 18, 1), 2, 2, 4, 4, 0);
    keepLocalChanges(mask, previous, W, H, [[4, 4, 1], [12.5, 6.5, 1]]);
    const expected = rect(previous.slice(), 10, 4, 15, 8, 1);
    expect([...mask]).toEqual([...expected]);
  });

  it('a new negative click removes near itself, within three times its depth in the previous mask', () => {
    // A long thin bar (3 px high): the click sits 2 px deep, so it may remove within about 6 px.
    const previous = rect(new Uint8Array(W * H), 0, 8, 40, 11, 1);
    const mask = new Uint8Array(W * H); // the cut dropped the whole bar
    keepLocalChanges(mask, previous, W, H, [[20.5, 9.5, 2]]);
    const kept = count(mask);
    expect(kept).toBeGreaterThan(count(previous) - 3 * 15);
    expect(mask[9 * W + 20]).toBe(0);
    expect(mask[9 * W + 0]).toBe(1);
    expect(mask[9 * W + 39]).toBe(1);
  });

  it('a change stays on its side of the clicks: nearer a click of its kind than one of the other', () => {
    const previous = grid([]);
    const mask = rect(new Uint8Array(W * H), 0, 5, 40, 15, 1);
    // Positive click at x 5, an old negative click at x 25: the gain stops half way, at x 15.
    keepLocalChanges(mask, previous, W, H, [[5.5, 10.5, 1], [25.5, 10.5, 2]]);
    for (let x = 0; x < W; x++) expect(mask[10 * W + x], `x ${x}`).toBe(x + 0.5 <= 15.5 ? 1 : 0);
  });

  it('changes nothing when no click is new', () => {
    const previous = rect(new Uint8Array(W * H), 5, 5, 15, 15, 1);
    const mask = rect(new Uint8Array(W * H), 0, 0, 30, 20, 1);
    const before = mask.slice();
    keepLocalChanges(mask, previous, W, H, [[10, 10, 1]]);
    expect([...mask]).toEqual([...before]);
  });
});

describe('focus', () => {
  it('zooms only on objects that are small next to the image, with a margin around them', () => {
    expect(focusRegion([100, 100, 140, 130], 640, 480)).toEqual([84, 88, 156, 142]);
    expect(focusRegion([0, 0, 400, 300], 640, 480)).toBeNull();
  });

  it('maps a mask to a crop and back without moving it', () => {
    const m = rect(new Uint8Array(W * H), 12, 4, 20, 12, 1);
    const region: [number, number, number, number] = [10, 2, 26, 14];
    const crop = new Uint8Array(64 * 48);
    sampleMask(m, W, H, [0, 0, W, H], crop, 64, 48, region);
    expect(count(crop)).toBe(8 * 4 * 8 * 4); // 4x enlarged
    const back = new Uint8Array(W * H);
    sampleMask(crop, 64, 48, region, back, W, H, [0, 0, W, H]);
    expect([...back]).toEqual([...m]);
  });

  it('resamples a crop of an image (bilinear, pixel centres)', () => {
    const src = new Uint8Array(4 * 1 * 3);
    for (let x = 0; x < 4; x++) src.fill(x * 60, x * 3, x * 3 + 3);
    expect([...resampleRgb(src, 4, [1, 0, 3, 1], 2, 1)]).toEqual([60, 60, 60, 120, 120, 120]);
    expect([...resampleRgb(src, 4, [1, 0, 3, 1], 4, 1)].filter((_, i) => i % 3 === 0)).toEqual([60, 75, 105, 120]);
  });

  it('segments a small object on the crop: corrections refine it to the pixel instead of flipping superpixels', async () => {
    // 640x480 noise-free scene with a 24 x 16 px red object on a grey background.
    const w = 640, h = 480, rgb = new Uint8Array(w * h * 3).fill(128);
    const truth = new Uint8Array(w * h);
    for (let y = 300; y < 316; y++) {
      for (let x = 400; x < 424; x++) {
        truth[y * w + x] = 1;
        rgb.set([200, 40, 40], (y * w + x) * 3);
      }
    }
    const seg = new BuiltinSegmenter(async () => instantiateSegmentKernelsSync(fs.readFileSync(kernelsWasmPath)).segment);
    const e = await seg.embed({ width: w, height: h, w, h, rgb });
    const embedded = e.bytes;
    const first = await seg.predict(e, { positive: [[412, 308]], negative: [] });
    const second = await seg.predict(e, { positive: [[412, 308]], negative: [[380, 290]] }, first.state);
    expect(e.focus, 'the second prediction ran on a crop').toBeDefined();
    expect(e.bytes, "the crop's structure counts in the embedding's size (the cache's bound)").toBe(embedded + e.focus!.st.bytes);
    const data = second.mask.data;
    let inter = 0, union = 0;
    for (let q = 0; q < data.length; q++) {
      inter += data[q]! & truth[q]!;
      union += data[q]! | truth[q]!;
    }
    expect(inter / union).toBeGreaterThan(0.9);
  });

  it('on a large image, a zoomed small object keeps a full-resolution edge', async () => {
    // 2400 x 1800 with the working copy at 1024: a 360 x 240 px ellipse, sharp-edged.
    const W2 = 2400, H2 = 1800, full = new Uint8Array(W2 * H2 * 3).fill(90);
    const truth = new Uint8Array(W2 * H2);
    for (let y = 0; y < H2; y++) {
      for (let x = 0; x < W2; x++) {
        if (((x - 1500) / 180) ** 2 + ((y - 700) / 120) ** 2 <= 1) {
          truth[y * W2 + x] = 1;
          full.set([230, 200, 60], (y * W2 + x) * 3);
        }
      }
    }
    const w = 1024, h = 768, work = new Uint8Array(w * h * 3);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) work.set(full.subarray((Math.floor((y * H2) / h) * W2 + Math.floor((x * W2) / w)) * 3, (Math.floor((y * H2) / h) * W2 + Math.floor((x * W2) / w)) * 3 + 3), (y * w + x) * 3);
    const seg = new BuiltinSegmenter(async () => instantiateSegmentKernelsSync(fs.readFileSync(kernelsWasmPath)).segment);
    const e = await seg.embed({ width: W2, height: H2, w, h, rgb: work, full });
    const first = await seg.predict(e, { positive: [[1500, 700]], negative: [] });
    const second = await seg.predict(e, { positive: [[1500, 700]], negative: [[1000, 300]] }, first.state);
    expect(e.focus?.scale, 'a crop coarser than the original').toBeLessThan(1);
    const f = second.fine!;
    let inter = 0, union = 0;
    for (let y = 0; y < H2; y++) {
      for (let x = 0; x < W2; x++) {
        const inside = x >= f.x0 && y >= f.y0 && x < f.x0 + f.w && y < f.y0 + f.h;
        const m = inside ? f.data[(y - f.y0) * f.w + (x - f.x0)]! : 0;
        inter += m & truth[y * W2 + x]!;
        union += m | truth[y * W2 + x]!;
      }
    }
    // Scaled up from the crop by nearest neighbour this is ~0.995; refined at full size, exact.
    expect(inter / union).toBeGreaterThan(0.998);
  });
});
