// fillHoles floods only the mask's bounding box; it must give what a flood of the whole image
// from its border (and from negative clicks) gives: enclosed background becomes foreground unless
// a negative click sits in it.
import { describe, expect, it } from 'vitest';
import { fillHoles } from './algorithm';

function reference(mask: Uint8Array, w: number, h: number, negative: [number, number][]): Uint8Array {
  const out = mask.slice();
  const seen = new Uint8Array(w * h);
  const stack: number[] = [];
  const push = (x: number, y: number) => {
    if (x < 0 || y < 0 || x >= w || y >= h) return;
    const p = y * w + x;
    if (!mask[p] && !seen[p]) {
      seen[p] = 1;
      stack.push(p);
    }
  };
  for (let x = 0; x < w; x++) {
    push(x, 0);
    push(x, h - 1);
  }
  for (let y = 0; y < h; y++) {
    push(0, y);
    push(w - 1, y);
  }
  for (const [x, y] of negative) push(Math.floor(x), Math.floor(y));
  while (stack.length) {
    const p = stack.pop()!, x = p % w, y = (p - x) / w;
    push(x - 1, y);
    push(x + 1, y);
    push(x, y - 1);
    push(x, y + 1);
  }
  for (let p = 0; p < w * h; p++) if (!mask[p] && !seen[p]) out[p] = 1;
  return out;
}

function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

describe('fillHoles', () => {
  it('agrees with a whole-image flood on random rings, blobs and negative clicks', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const r = rng(seed);
      const w = 5 + Math.floor(r() * 60), h = 5 + Math.floor(r() * 60);
      const mask = new Uint8Array(w * h);
      // A few rings (with holes) and noise, some touching the border.
      for (let k = 0; k < 1 + Math.floor(r() * 4); k++) {
        const cx = r() * w, cy = r() * h, ro = 2 + r() * Math.min(w, h) * 0.5, ri = ro * r() * 0.8;
        for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
          const d = Math.hypot(x + 0.5 - cx, y + 0.5 - cy);
          if (d <= ro && d >= ri) mask[y * w + x] = 1;
        }
      }
      for (let i = 0; i < (w * h) / 20; i++) mask[Math.floor(r() * w * h)] = r() < 0.5 ? 1 : 0;
      const negative: [number, number][] = Array.from({ length: Math.floor(r() * 3) }, () => [r() * w, r() * h]);
      const want = reference(mask, w, h, negative);
      const got = mask.slice();
      fillHoles(got, w, h, negative);
      expect(got, `seed ${seed} (${w} x ${h})`).toEqual(want);
    }
  });

  it('fills a ring, keeps a hole with a negative click, and leaves an empty mask alone', () => {
    const w = 9, h = 7;
    const ring = new Uint8Array(w * h);
    for (let y = 1; y <= 5; y++) for (let x = 2; x <= 6; x++) if (y === 1 || y === 5 || x === 2 || x === 6) ring[y * w + x] = 1;
    const filled = ring.slice();
    fillHoles(filled, w, h, []);
    expect(filled[3 * w + 4]).toBe(1);
    expect(filled[0]).toBe(0);
    const kept = ring.slice();
    fillHoles(kept, w, h, [[4.5, 3.5]]);
    expect(kept).toEqual(ring);
    const empty = new Uint8Array(w * h);
    fillHoles(empty, w, h, [[1, 1]]);
    expect(empty.every((v) => v === 0)).toBe(true);
  });
});
