// Masks through flips, rotations and scaling, against a pixel-by-pixel reference on decoded bitmaps.
import { describe, expect, it } from 'vitest';
import { countsToString, decodeRle, encodeMask } from '../../../contract/rle';
import { geoFrame, mapRle, scaleFrame, transformAnnotations } from './labels';
import type { GeoStep } from './vocabulary';

function rand(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** The reference: every output pixel takes the source pixel the frame names. */
function reference(mask: Uint8Array, h: number, frame: ReturnType<typeof geoFrame>) {
  const out = new Uint8Array(frame.outW * frame.outH);
  for (let nx = 0; nx < frame.outW; nx++)
    for (let ny = 0; ny < frame.outH; ny++) {
      const s = frame.sourcePixel(nx, ny);
      if (s) out[nx * frame.outH + ny] = mask[s[0] * h + s[1]]!;
    }
  return encodeMask(out, frame.outH, frame.outW);
}

const STEPS: GeoStep[] = ['flip_h', 'flip_v', 'rotate_90', 'rotate_180', 'rotate_270'];

describe('mapRle', () => {
  it('matches the pixel reference for random, full, empty and boxy masks, numeric and compressed', () => {
    const r = rand(7);
    for (let t = 0; t < 200; t++) {
      const w = 1 + Math.floor(r() * 24);
      const h = 1 + Math.floor(r() * 24);
      const mask = new Uint8Array(w * h);
      const kind = t % 4;
      for (let i = 0; i < mask.length; i++) mask[i] = kind === 0 ? (r() < 0.35 ? 1 : 0) : kind === 1 ? 1 : 0;
      if (kind === 3) for (let x = Math.floor(w / 3); x < w; x++) for (let y = 0; y < Math.ceil(h / 2); y++) mask[x * h + y] = 1;
      const counts = encodeMask(mask, h, w);
      for (const step of STEPS) {
        const frame = geoFrame(step, w, h);
        const want = reference(mask, h, frame);
        expect(mapRle({ size: [h, w], counts }, frame)).toEqual({ size: [frame.outH, frame.outW], counts: want });
        expect(mapRle({ size: [h, w], counts: countsToString(counts) }, frame).counts).toBe(countsToString(want));
      }
    }
  });

  it('scales a mask by nearest pixel', () => {
    const mask = new Uint8Array(4 * 3);
    mask[1 * 3 + 1] = 1; // pixel (1, 1) of a 4 x 3 image
    const out = mapRle({ size: [3, 4], counts: encodeMask(mask, 3, 4) }, scaleFrame(4, 3, 8, 6));
    const px = decodeRle(out);
    const set: [number, number][] = [];
    for (let x = 0; x < 8; x++) for (let y = 0; y < 6; y++) if (px[x * 6 + y]) set.push([x, y]);
    expect(set).toEqual([[2, 2], [2, 3], [3, 2], [3, 3]]);
  });

  it('four quarter turns give back the same annotations', () => {
    const anns = [
      { id: 'p', name: 'c', bounding_box: { x: 1, y: 2, w: 5, h: 6 }, polygon: { path: [[1, 2], [6, 2], [6, 8]], holes: [[[2, 3], [4, 3], [4, 5]]] } },
      { id: 'k', name: 'c', bounding_box: { x: 3.5, y: 1.25, w: 0, h: 0 }, keypoint: { x: 3.5, y: 1.25 }, extra: { kept: true } },
    ];
    expect(transformAnnotations(anns, ['rotate_90', 'rotate_90', 'rotate_90', 'rotate_90'], 10, 7)).toEqual(anns);
    expect(transformAnnotations(anns, ['flip_h', 'flip_v'], 10, 7)).toEqual(transformAnnotations(anns, ['rotate_180'], 10, 7));
  });
});
