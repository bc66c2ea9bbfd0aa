// The structure's superpixel runs stand in for a pass over the label map on every click (the
// superpixel mask is written a run at a time), so they must cover the map exactly.
import { describe, expect, it } from 'vitest';
import { syntheticImage } from '../../../../../tests/fixtures/segmentation';
import { buildStructure } from './algorithm';
import { referenceOps } from './reference-ops';

describe('superpixel runs', () => {
  it('cover every pixel once, with its own superpixel, inside that superpixel’s box', () => {
    const w = 157, h = 93; // odd sizes: runs end at the row's end
    const { rgb } = syntheticImage(3, w, h);
    const st = buildStructure(referenceOps, rgb, w, h, 3);
    const { start, at, len } = st.runs;
    expect(start.length).toBe(st.stats.count + 1);
    const seen = new Uint8Array(w * h);
    for (let i = 0; i < st.stats.count; i++) {
      let pixels = 0;
      for (let k = start[i]!; k < start[i + 1]!; k++) {
        const x = at[k]! % w, y = Math.floor(at[k]! / w);
        expect(x + len[k]!).toBeLessThanOrEqual(w);
        const [bx0, by0, bx1, by1] = st.spBox.subarray(i * 4, i * 4 + 4);
        expect(x >= bx0! && y >= by0! && x + len[k]! - 1 <= bx1! && y <= by1!, `run ${k} inside box ${i}`).toBe(true);
        for (let q = at[k]!; q < at[k]! + len[k]!; q++) {
          expect(st.labels[q]).toBe(i);
          seen[q]++;
          pixels++;
        }
      }
      expect(pixels).toBe(st.stats.size[i]);
    }
    expect(seen.every((v) => v === 1)).toBe(true);
  });
});
