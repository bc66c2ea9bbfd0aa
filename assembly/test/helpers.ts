// Shared test helpers: the kernels instance (rebuilt first when the sources changed) and
// deterministic mask generators.
import { buildKernels } from '../build.mjs';
import { loadKernelsNodeSync, type Kernels } from '../../src/kernels/node';

let instance: Kernels | undefined;

/** A fresh kernels instance per test file, built from the current sources. */
export async function kernels(): Promise<Kernels> {
  if (!instance) {
    await buildKernels({ quiet: true });
    instance = loadKernelsNodeSync();
  }
  return instance;
}

/** Deterministic PRNG (LCG), so a failing case reproduces from its seed. */
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** Column-major mask from a picture: rows of '#' (foreground) and '.' (background). */
export function picture(rows: string[]): { mask: Uint8Array; h: number; w: number } {
  const h = rows.length, w = h ? rows[0]!.length : 0;
  const mask = new Uint8Array(h * w);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if (rows[y]![x] === '#') mask[x * h + y] = 1;
  return { mask, h, w };
}

export function noiseMask(h: number, w: number, density: number, seed: number): Uint8Array {
  const r = rng(seed);
  const m = new Uint8Array(h * w);
  for (let i = 0; i < m.length; i++) m[i] = r() < density ? 1 : 0;
  return m;
}

/** Discs and rings (so holes and nested islands appear), plus a little noise. */
export function blobMask(h: number, w: number, seed: number, blobs = 4, noise = 0.01): Uint8Array {
  const r = rng(seed);
  const m = new Uint8Array(h * w);
  for (let k = 0; k < blobs; k++) {
    const cx = r() * w, cy = r() * h, rad = 1 + r() * Math.min(h, w) * 0.4;
    const inner = r() < 0.5 ? rad * (0.3 + 0.4 * r()) : -1;
    for (let x = 0; x < w; x++) {
      for (let y = 0; y < h; y++) {
        const d2 = (x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2;
        if (d2 < rad * rad && d2 >= inner * Math.abs(inner)) m[x * h + y] ^= 1;
      }
    }
  }
  for (let i = 0; i < m.length; i++) if (r() < noise) m[i] ^= 1;
  return m;
}

/** Edge cases every kernel must handle: [name, mask, h, w]. */
export function edgeCaseMasks(): [string, Uint8Array, number, number][] {
  const cases: [string, Uint8Array, number, number][] = [];
  const add = (name: string, mask: Uint8Array, h: number, w: number) => cases.push([name, mask, h, w]);
  add('0 x 0', new Uint8Array(0), 0, 0);
  add('0 x 5', new Uint8Array(0), 0, 5);
  add('5 x 0', new Uint8Array(0), 5, 0);
  add('1 x 1 empty', Uint8Array.of(0), 1, 1);
  add('1 x 1 full', Uint8Array.of(1), 1, 1);
  add('empty 7 x 5', new Uint8Array(35), 7, 5);
  add('full 7 x 5', new Uint8Array(35).fill(1), 7, 5);
  add('full 33 x 17 (crosses SIMD blocks)', new Uint8Array(33 * 17).fill(1), 33, 17);
  for (const [x, y] of [[0, 0], [4, 6], [2, 3], [4, 0], [0, 6]] as const) {
    const m = new Uint8Array(35);
    m[x * 7 + y] = 1;
    add(`one pixel at ${x},${y} of 7 x 5`, m, 7, 5);
  }
  add('1 x 40 noise', noiseMask(1, 40, 0.5, 3), 1, 40);
  add('40 x 1 noise', noiseMask(40, 1, 0.5, 4), 40, 1);
  add('1 x 40 full', new Uint8Array(40).fill(1), 1, 40);
  add('40 x 1 full', new Uint8Array(40).fill(1), 40, 1);
  add('odd 13 x 29 blobs', blobMask(13, 29, 5), 13, 29);
  const ring = picture(['.....', '.###.', '.#.#.', '.###.', '.....']);
  add('ring with a hole', ring.mask, ring.h, ring.w);
  const comps = picture(['##..#', '##...', '...##', '#..##', '#....']);
  add('several components', comps.mask, comps.h, comps.w);
  const diag = picture(['#...', '.#..', '..#.', '...#']);
  add('diagonal chain', diag.mask, diag.h, diag.w);
  const checker = picture(['#.#.#', '.#.#.', '#.#.#', '.#.#.']);
  add('checkerboard', checker.mask, checker.h, checker.w);
  const nested = picture([
    '#########',
    '#.......#',
    '#.#####.#',
    '#.#...#.#',
    '#.#.#.#.#',
    '#.#...#.#',
    '#.#####.#',
    '#.......#',
    '#########',
  ]);
  add('nested rings and islands', nested.mask, nested.h, nested.w);
  const pinchedHole = picture(['#####', '#.#.#', '##.##', '#.#.#', '#####']);
  add('holes touching at corners', pinchedHole.mask, pinchedHole.h, pinchedHole.w);
  return cases;
}

/** Index of the first differing byte, or -1 (vitest's deep equality is far too slow for megapixel masks). */
export function firstDiff(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  if (Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length))) return -1;
  let i = 0;
  while (a[i] === b[i]) i++;
  return i;
}
