import { describe, expect, it } from 'vitest';
import { StoredSegmentation } from '../../src/contract/annotations';
import {
  countsToString,
  decodeRle,
  encodeMask,
  rleArea,
  rleBBox,
  rleLookup,
  stringToCounts,
  translateRle,
} from '../../src/engine/model/rle';

/** Deterministic pseudo-random generator so failures reproduce. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

function randomMask(h: number, w: number, seed: number): Uint8Array {
  const r = rng(seed);
  const m = new Uint8Array(h * w);
  // Blobs rather than noise, so runs have realistic lengths.
  for (let k = 0; k < 4; k++) {
    const cx = r() * w, cy = r() * h, rad = 1 + r() * Math.min(h, w) * 0.4;
    for (let x = 0; x < w; x++) for (let y = 0; y < h; y++) if ((x - cx) ** 2 + (y - cy) ** 2 < rad * rad) m[x * h + y] = 1;
  }
  return m;
}

describe('RLE codec', () => {
  it('decodes a hand-computed mask column-major, counts starting with background', () => {
    // 3 rows x 4 columns. Columns (top to bottom): [0,1,1] [1,0,0] [0,0,0] [1,1,1]
    // Linear column-major: 0 1 1 | 1 0 0 | 0 0 0 | 1 1 1  -> runs 1 bg, 3 fg, 5 bg, 3 fg
    const mask = decodeRle({ size: [3, 4], counts: [1, 3, 5, 3] });
    expect(Array.from(mask)).toEqual([0, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1]);
    expect(encodeMask(mask, 3, 4)).toEqual([1, 3, 5, 3]);
  });

  it('starts with a zero-length background run when pixel 0 is foreground', () => {
    const mask = Uint8Array.from([1, 1, 0, 0]);
    expect(encodeMask(mask, 2, 2)).toEqual([0, 2, 2]);
    expect(Array.from(decodeRle({ size: [2, 2], counts: [0, 2, 2] }))).toEqual([1, 1, 0, 0]);
  });

  it('rejects counts that do not cover height*width', () => {
    expect(() => decodeRle({ size: [2, 2], counts: [1, 2] })).toThrow(/expected 4/);
  });

  it('round-trips random masks through encode/decode and the compressed string', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const h = 5 + (seed % 7) * 9, w = 3 + (seed % 5) * 11;
      const mask = randomMask(h, w, seed);
      const counts = encodeMask(mask, h, w);
      expect(counts.reduce((a, b) => a + b, 0)).toBe(h * w);
      expect(decodeRle({ size: [h, w], counts })).toEqual(mask);
      const s = countsToString(counts);
      expect(s).toMatch(/^[0-o]*$/);
      expect(stringToCounts(s)).toEqual(counts);
      expect(decodeRle({ size: [h, w], counts: s })).toEqual(mask);
    }
  });

  it('matches hand-computed pycocotools compressed strings', () => {
    // [0, 40, 60]: 0 -> '0'; 40 = 8 + 1*32 -> (8|0x20)+48='X', 1+48='1';
    // 60 = 28 + 1*32 -> (28|0x20)+48='l', then 1 -> '1' (28 has the sign bit 0x10, so 1 more char).
    expect(countsToString([0, 40, 60])).toBe('0X1l1');
    expect(stringToCounts('0X1l1')).toEqual([0, 40, 60]);
    // From the 4th count on, values are deltas to counts[i-2]: 2 - 5 = -3 -> 29 ('M').
    expect(countsToString([5, 5, 5, 2])).toBe('555M');
    expect(stringToCounts('555M')).toEqual([5, 5, 5, 2]);
  });

  it('decodes a real pycocotools string (50 x 70 mask) and re-encodes it identically', () => {
    // Output of pycocotools.mask.encode, quoted in armengot/COCOtoolsFORK's README.
    const s = '0g05b08J4M2N2NA^O1`0OCO=0E090H080IO68DH;>@C>a0_O_O`0j0OWOF<:CM72I24NL43JM92FN;1ENKO72L0LO91J0MO92INO0NO122OO0M031O000NO31OO11MO40N011MO41MO21L06OL021L06OL021L06OL021L060J040L060J040L060J040L060J040L060J040L060J040L060KO31L060KO31L06OL021L06OL021L06OL021MO41MO21MO40N100NO310O00M0310O00NO1220NO92IONO91KOMO72M0<1EO:2GN63KM34OLM73JF<;=1G_O_Ob0=AC`07EH=1IO71H090F0:1DO>1_O1b0>2N2N3L6H]O';
    const counts = stringToCounts(s);
    expect(counts.every((c) => c >= 0)).toBe(true);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(50 * 70);
    expect(countsToString(counts)).toBe(s);
    expect(counts[0]).toBe(0); // pixel (0,0) is foreground in that mask
    const mask = decodeRle({ size: [50, 70], counts: s });
    expect(mask[0]).toBe(1);
    expect(encodeMask(mask, 50, 70)).toEqual(counts);
    // The contract's check accepts it, and rejects it for another size.
    expect(StoredSegmentation.safeParse({ size: [50, 70], counts: s }).success).toBe(true);
    expect(StoredSegmentation.safeParse({ size: [70, 70], counts: s }).success).toBe(false);
  });

  it('rejects malformed compressed strings', () => {
    expect(() => stringToCounts('0X')).toThrow(/Truncated/);
    expect(() => stringToCounts('0~')).toThrow(/Invalid/);
  });

  it('computes area and bbox like a brute-force scan', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const h = 17, w = 23;
      const mask = randomMask(h, w, seed);
      const rle = { size: [h, w] as [number, number], counts: encodeMask(mask, h, w) };
      let area = 0, xmin = Infinity, ymin = Infinity, xmax = -1, ymax = -1;
      for (let x = 0; x < w; x++) for (let y = 0; y < h; y++) if (mask[x * h + y]) {
        area++;
        xmin = Math.min(xmin, x); xmax = Math.max(xmax, x); ymin = Math.min(ymin, y); ymax = Math.max(ymax, y);
      }
      expect(rleArea(rle)).toBe(area);
      expect(rleBBox(rle)).toEqual(area ? { x: xmin, y: ymin, width: xmax - xmin + 1, height: ymax - ymin + 1 } : { x: 0, y: 0, width: 0, height: 0 });
    }
  });

  it('answers point queries without decoding, matching the decoded mask', () => {
    const h = 31, w = 29;
    const mask = randomMask(h, w, 7);
    const rle = { size: [h, w] as [number, number], counts: countsToString(encodeMask(mask, h, w)) };
    const look = rleLookup(rle);
    for (let x = 0; x < w; x++) for (let y = 0; y < h; y++) expect(look.contains(x + 0.5, y + 0.5)).toBe(mask[x * h + y] === 1);
    expect(look.contains(-1, 3)).toBe(false);
    expect(look.contains(w, 3)).toBe(false);
  });

  it('translates masks by whole pixels with clipping, like shifting the bitmap', () => {
    const h = 20, w = 25;
    for (const [dx, dy] of [[3, 2], [-4, 5], [0, -7], [10, -10], [-30, 0], [2.6, -1.4]] as const) {
      const mask = randomMask(h, w, 11);
      const numeric = { size: [h, w] as [number, number], counts: encodeMask(mask, h, w) };
      const expected = new Uint8Array(h * w);
      const rx = Math.round(dx), ry = Math.round(dy);
      for (let x = 0; x < w; x++) for (let y = 0; y < h; y++) {
        const nx = x + rx, ny = y + ry;
        if (mask[x * h + y] && nx >= 0 && nx < w && ny >= 0 && ny < h) expected[nx * h + ny] = 1;
      }
      const moved = translateRle(numeric, dx, dy);
      expect(moved.counts).toEqual(encodeMask(expected, h, w));
      // The compressed form stays compressed.
      const movedStr = translateRle({ ...numeric, counts: countsToString(numeric.counts) }, dx, dy);
      expect(typeof movedStr.counts).toBe('string');
      expect(decodeRle(movedStr)).toEqual(expected);
    }
  });
});
