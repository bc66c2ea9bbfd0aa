// RLE kernels (assembly/kernels/rle.ts) against the engine's TypeScript codec, plus known
// answers for pycocotools' compressed string worked out by hand from maskApi.c.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Kernels } from '../src/kernels/node';
import * as ref from './reference/rle';
import { blobMask, edgeCaseMasks, firstDiff, kernels, noiseMask, rng } from './test/helpers';

let k: Kernels;
beforeAll(async () => {
  k = await kernels();
});

function maskFromPixels(h: number, w: number, pixels: [number, number][]): Uint8Array {
  const m = new Uint8Array(h * w);
  for (const [x, y] of pixels) m[x * h + y] = 1;
  return m;
}

describe('pycocotools known answers', () => {
  it('4 x 6 mask starting with foreground: counts and string', () => {
    // Pixels (x, y) = (0,0), (0,1), (5,2). Column-major indices x * 4 + y: 0, 1, 22 of 24.
    // Runs: bg 0 (pixel 0 is foreground), fg 2 (0..1), bg 20 (2..21), fg 1 (22), bg 1 (23).
    const mask = maskFromPixels(4, 6, [[0, 0], [0, 1], [5, 2]]);
    const counts = [0, 2, 20, 1, 1];
    // rleToString, i = index, x = value to write (counts[i] - counts[i-2] for i > 2); per char:
    // c = x & 0x1f; x >>= 5 (arithmetic); more = (c & 0x10) ? x != -1 : x != 0;
    // if (more) c |= 0x20; emit c + 48.
    // i=0: x=0   -> c=0, x=0, more=0                  -> '0' (48)
    // i=1: x=2   -> c=2, x=0, more=0                  -> '2' (50)
    // i=2: x=20  -> c=20 (0b10100, sign bit 0x10 set), x=0, more = (0 != -1) = 1, c=52 -> 'd' (100)
    //             c=0, x=0, more=0                     -> '0'
    // i=3: x=1-2=-1 -> c=-1&31=31 (0x10 set), x=-1>>5=-1, more = (-1 != -1) = 0 -> 'O' (79)
    // i=4: x=1-20=-19 -> c=-19&31=13 (0x10 clear), x=-19>>5=-1, more = (-1 != 0) = 1, c=45 -> ']' (93)
    //             c=-1&31=31 (0x10 set), x=-1, more=0  -> 'O'
    const expected = '02d0O]O';
    expect(Array.from(k.encode(mask, 4, 6))).toEqual(counts);
    expect(ref.encodeMask(mask, 4, 6)).toEqual(counts);
    expect(k.countsToString(counts)).toBe(expected);
    expect(ref.countsToString(counts)).toBe(expected);
    expect(k.encodeToString(mask, 4, 6)).toBe(expected);
    expect(Array.from(k.stringToCounts(expected))).toEqual(counts);
    expect(k.decode({ size: [4, 6], counts: expected })).toEqual(mask);
    expect(k.area({ size: [4, 6], counts: expected })).toBe(3);
    expect(k.bbox({ size: [4, 6], counts: expected })).toEqual({ x: 0, y: 0, width: 6, height: 3 });
  });

  it('64 x 64 mask with multi-char values', () => {
    // Pixels 1000..3999 (column-major) set: counts [1000, 3000, 96], sum 4096.
    const mask = new Uint8Array(4096).fill(1, 1000, 4000);
    const counts = [1000, 3000, 96];
    // i=0: x=1000 = 31*32 + 8 -> c=8, x=31, more=1, c=40 -> 'X' (88)
    //             c=31 (0x10 set), x=0, more = (0 != -1) = 1, c=63 -> 'o' (111)
    //             c=0, x=0, more=0 -> '0'
    // i=1: x=3000 = 93*32 + 24 -> c=24 (0x10 set), x=93, more=1, c=56 -> 'h' (104)
    //             c=93&31=29 (0x10 set), x=2, more=1, c=61 -> 'm' (109)
    //             c=2, x=0, more=0 -> '2'
    // i=2: x=96 = 3*32 + 0 -> c=0, x=3, more=1, c=32 -> 'P' (80); c=3, x=0 -> '3'
    const expected = 'Xo0hm2P3';
    expect(Array.from(k.encode(mask, 64, 64))).toEqual(counts);
    expect(k.countsToString(counts)).toBe(expected);
    expect(ref.countsToString(counts)).toBe(expected);
    expect(Array.from(k.stringToCounts(expected))).toEqual(counts);
    // First pixel 1000 = column 15, row 40; last 3999 = column 62, row 31; the run wraps
    // columns, so pycocotools' toBbox spans the full height.
    expect(k.bbox({ size: [64, 64], counts })).toEqual({ x: 15, y: 0, width: 48, height: 64 });
    expect(k.area({ size: [64, 64], counts: expected })).toBe(3000);
  });

  it('3 x 4 mask from the engine tests', () => {
    // Columns [0,1,1] [1,0,0] [0,0,0] [1,1,1] -> counts 1, 3, 5, 3; delta at i=3 is 3-3=0.
    expect(k.countsToString([1, 3, 5, 3])).toBe('1350');
  });

  it('all-background and empty masks', () => {
    expect(Array.from(k.encode(new Uint8Array(12), 3, 4))).toEqual([12]);
    expect(k.countsToString([12])).toBe('<'); // 12 + 48 = 60
    expect(Array.from(k.encode(new Uint8Array(0), 0, 0))).toEqual([0]); // pycocotools gives [0] too
    expect(k.bbox({ size: [3, 4], counts: [12] })).toEqual({ x: 0, y: 0, width: 0, height: 0 });
  });
});

describe('wasm RLE agrees with the TypeScript reference', () => {
  const check = (mask: Uint8Array, h: number, w: number) => {
    const counts = ref.encodeMask(mask, h, w);
    const wc = k.encode(mask, h, w);
    expect(Array.from(wc)).toEqual(counts);
    const s = ref.countsToString(counts);
    const decoded = ref.decodeRle({ size: [h, w], counts });
    expect(k.countsToString(wc)).toBe(s);
    expect(Array.from(k.stringToCounts(s))).toEqual(ref.stringToCounts(s));
    const rle = { size: [h, w] as [number, number], counts };
    expect(firstDiff(k.decode(rle), decoded)).toBe(-1);
    expect(firstDiff(k.decode({ size: [h, w], counts: s }), decoded)).toBe(-1);
    expect(k.area(rle)).toBe(ref.rleArea(rle));
    expect(k.area({ size: [h, w], counts: s })).toBe(ref.rleArea(rle));
    expect(k.bbox(rle)).toEqual(ref.rleBBox(rle));
    expect(k.bbox({ size: [h, w], counts: s })).toEqual(ref.rleBBox(rle));
  };

  for (const [name, mask, h, w] of edgeCaseMasks()) {
    it(name, () => check(mask, h, w));
  }

  it('random noise and blob masks of odd sizes', () => {
    const r = rng(42);
    for (let t = 0; t < 60; t++) {
      const h = 1 + Math.floor(r() * 70), w = 1 + Math.floor(r() * 70);
      const mask = t % 2 ? noiseMask(h, w, r(), t) : blobMask(h, w, t);
      check(mask, h, w);
    }
  });

  it('treats any nonzero byte as foreground', () => {
    const mask = Uint8Array.from([0, 7, 255, 1, 0, 0, 2, 0, 0]);
    expect(Array.from(k.encode(mask, 3, 3))).toEqual(ref.encodeMask(mask, 3, 3));
    expect(Array.from(k.encode(mask, 3, 3))).toEqual([1, 3, 2, 1, 2]);
  });

  it('long runs and huge deltas (a 1000 x 3000 mask, values past 2^21)', () => {
    const h = 1000, w = 3000;
    const mask = new Uint8Array(h * w);
    mask.fill(1, 5, 2_500_000);
    mask[2_999_999] = 1;
    check(mask, h, w);
  });

  it('decodes with a custom foreground value (for R8 textures)', () => {
    expect(Array.from(k.decode({ size: [2, 2], counts: [1, 2, 1] }, 255))).toEqual([0, 255, 255, 0]);
  });
});

describe('decode paths agree with the reference byte for byte', () => {
  // rleDecode writes masks of long runs run by run (16-byte stores that may spill into the next
  // run, loops of stores, memory.fill from 1,024 bytes) and masks of short runs (average under
  // 128) by zeroing 16 KB blocks ahead and writing the foreground only (masked 16-byte stores),
  // so fragmented masks, noise and runs across block ends are covered. Each case goes
  // through decodeView, whose buffer still holds the previous, different mask, so a byte the
  // decode forgets shows up.
  const expectDecodes = (counts: number[], h: number, w: number) => {
    const want = ref.decodeRle({ size: [h, w], counts });
    const want255 = want.map((v) => v * 255);
    for (const [value, expected] of [[1, want], [255, want255]] as const) {
      k.decodeView({ size: [h, w], counts: [0, h * w] }, 77); // leave the reused buffer all 77
      expect(firstDiff(k.decodeView({ size: [h, w], counts }, value), expected)).toBe(-1);
      expect(firstDiff(k.decode({ size: [h, w], counts: Uint32Array.from(counts) }, value), expected)).toBe(-1);
    }
  };
  /** Counts with run lengths drawn from 0..max (zero-length runs included, as pycocotools allows). */
  const randomCounts = (r: () => number, n: number, max: number): number[] => {
    const counts: number[] = [];
    let left = n;
    while (left > 0) {
      const c = Math.min(left, Math.floor(r() * (max + 1)));
      counts.push(c);
      left -= c;
    }
    return counts;
  };

  it('random noise of every density (the sparse path, and the run-by-run path for sparse noise)', () => {
    const r = rng(7);
    for (let t = 0; t < 40; t++) {
      const h = 1 + Math.floor(r() * 300), w = 1 + Math.floor(r() * 40);
      expectDecodes(ref.encodeMask(noiseMask(h, w, (t + 0.5) / 40, t), h, w), h, w);
    }
  });

  it('random run lengths from 0 to 16, 64, 2,000 and 20,000 bytes', () => {
    const r = rng(8);
    for (const max of [16, 64, 2000, 20_000]) {
      for (let t = 0; t < 6; t++) {
        const h = 64 + Math.floor(r() * 500), w = 1 + Math.floor(r() * 200);
        expectDecodes(randomCounts(r, h * w, max), h, w);
      }
    }
  });

  it('fragmented masks: many small squares on a large background', () => {
    const r = rng(9);
    const h = 700, w = 650;
    const mask = new Uint8Array(h * w);
    for (let s = 0; s < 3000; s++) {
      const x0 = Math.floor(r() * (w - 8)), y0 = Math.floor(r() * (h - 8)), side = 1 + Math.floor(r() * 7);
      for (let x = x0; x < x0 + side; x++) mask.fill(1, x * h + y0, x * h + y0 + side);
    }
    expectDecodes(ref.encodeMask(mask, h, w), h, w);
  });

  it('full and empty masks of every small size and a large one, runs that end at the last byte', () => {
    for (let h = 1; h <= 20; h++) {
      for (const w of [1, 2, 3, 17]) {
        expectDecodes([h * w], h, w);
        expectDecodes([0, h * w], h, w);
        expectDecodes([h * w - 1, 1], h, w);
        expectDecodes([0, h * w - 1, 1], h, w);
      }
    }
    expectDecodes([1024 * 1024], 1024, 1024);
    expectDecodes([0, 1024 * 1024], 1024, 1024);
    expectDecodes([0, 0, 5, 0, 0, 1024 * 1024 - 6, 1], 1024, 1024);
  });
});

describe('invalid input', () => {
  it('rejects counts that do not sum to height * width', () => {
    expect(() => k.decode({ size: [2, 2], counts: [1, 2] })).toThrow(/sum/);
    expect(() => k.decode({ size: [2, 2], counts: [1, 2, 5] })).toThrow(/sum/);
    expect(() => ref.decodeRle({ size: [2, 2], counts: [1, 2] })).toThrow();
  });

  it('rejects malformed strings like the reference', () => {
    for (const bad of ['1 3', 'p', '1\u00e93', 'h']) {
      expect(() => k.stringToCounts(bad), bad).toThrow();
      expect(() => ref.stringToCounts(bad), bad).toThrow();
    }
    expect(() => k.stringToCounts('h')).toThrow(/Truncated/);
    expect(() => k.stringToCounts('p')).toThrow(/character/);
  });

  it('rejects a string whose deltas go negative (pycocotools would wrap to huge uints)', () => {
    // '5' = 5, '1' = 1, '1' = 1, then 'O' = delta -1 from counts[1]=1 -> 0 fine; 'N' = -2 -> -1.
    expect(Array.from(k.stringToCounts('511O'))).toEqual([5, 1, 1, 0]);
    expect(() => k.stringToCounts('511N')).toThrow(/range/);
  });

  it('rejects bad numeric counts and sizes', () => {
    expect(() => k.decode({ size: [2, 2], counts: [1, -1, 4] })).toThrow(/count/);
    expect(() => k.decode({ size: [2, 2], counts: [1.5, 2.5] })).toThrow(/count/);
    expect(() => k.decode({ size: [2, -2], counts: [0] })).toThrow(/size/);
    expect(() => k.encode(new Uint8Array(3), 2, 2)).toThrow(/pixels/);
  });
});
