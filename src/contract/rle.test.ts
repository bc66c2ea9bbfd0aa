import { describe, expect, it } from 'vitest';
import { encodeMask, RunBuilder } from './rle';

function randomMask(n: number, seed: number): Uint8Array {
  let s = seed;
  const out = new Uint8Array(n);
  let v = 0;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    if (s % 7 === 0) v ^= 1;
    out[i] = v;
  }
  return out;
}

describe('RunBuilder', () => {
  it('builds the counts encodeMask makes, pixel by pixel or in uneven runs, with the area', () => {
    for (const seed of [1, 2, 3, 4]) {
      const mask = randomMask(997, seed);
      const one = new RunBuilder();
      for (const v of mask) one.append(v, 1);
      expect(one.finish()).toEqual(encodeMask(mask, 997, 1));
      expect(one.area).toBe(mask.reduce((a, b) => a + b, 0));
      // The same pixels as uneven pieces of their runs, with empty runs between (skipped, equal neighbours merge).
      const chunked = new RunBuilder();
      for (let i = 0, k = 0; i < mask.length; k++) {
        let n = 1;
        while (n < 1 + (k % 3) && i + n < mask.length && mask[i + n] === mask[i]) n++;
        chunked.append(mask[i]!, n);
        chunked.append(1 - mask[i]!, 0);
        i += n;
      }
      expect(chunked.finish()).toEqual(encodeMask(mask, 997, 1));
    }
  });

  it('starts with a background run even when the first pixel is foreground', () => {
    const b = new RunBuilder();
    b.append(1, 3);
    b.append(0, 2);
    expect(b.finish()).toEqual([0, 3, 2]);
  });
});
