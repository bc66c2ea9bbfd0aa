// The loader and the JS <-> wasm boundary: loading in Node and through fetch (the browser and
// worker path), who owns which memory, and that calls (also failing ones) free what they allocate.
import { readFileSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildKernels } from '../../assembly/build.mjs';
import { kernelImports, loadKernels, type Kernels } from './index';
import { kernelsWasmPath, loadKernelsNode, loadKernelsNodeSync } from './node';

let k: Kernels;
beforeAll(async () => {
  await buildKernels({ quiet: true });
  k = await loadKernelsNode();
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('loading', () => {
  it('resolves the module next to the sources and caches the default instance in Node', async () => {
    expect(kernelsWasmPath.replace(/\\/g, '/')).toMatch(/assembly\/build\/kernels\.wasm$/);
    expect(await loadKernelsNode()).toBe(k);
    expect(loadKernelsNodeSync()).not.toBe(k); // sync loads are fresh instances
  });

  it('loads through fetch, streaming when served as application/wasm', async () => {
    const base64 = readFileSync(kernelsWasmPath).toString('base64');
    for (const type of ['application/wasm', 'application/octet-stream']) {
      const kernels = await loadKernels(`data:${type};base64,${base64}`);
      expect(Array.from(kernels.encode(Uint8Array.of(0, 1, 1), 3, 1))).toEqual([1, 2]);
    }
  });

  it('reports HTTP errors and a missing build clearly', async () => {
    vi.stubGlobal('fetch', async () => new Response('nope', { status: 404 }));
    await expect(loadKernels('https://example.invalid/kernels.wasm')).rejects.toThrow(/HTTP 404/);
    await expect(loadKernelsNode('/nonexistent/kernels.wasm')).rejects.toThrow(/build:wasm/);
    expect(() => loadKernelsNodeSync('/nonexistent/kernels.wasm')).toThrow(/build:wasm/);
  });

  it('turns an AssemblyScript abort into an Error with its message', () => {
    const memory = new WebAssembly.Memory({ initial: 1 });
    const put = (ptr: number, s: string) => {
      new Uint32Array(memory.buffer, ptr - 4, 1)[0] = s.length * 2;
      new Uint16Array(memory.buffer, ptr, s.length).set(Array.from(s, (ch) => ch.charCodeAt(0)));
    };
    put(64, 'out of memory');
    put(256, 'rt/tlsf.ts');
    const abort = (kernelImports(() => memory).env as { abort: (...a: number[]) => void }).abort;
    expect(() => abort(64, 256, 12, 3)).toThrow('wasm kernel aborted: out of memory (rt/tlsf.ts:12:3)');
  });
});

describe('memory ownership', () => {
  it('decode() returns JS-owned arrays; decodeView() aliases wasm memory until the next call', () => {
    const a = { size: [2, 2] as [number, number], counts: [0, 4] };
    const b = { size: [2, 2] as [number, number], counts: [4] };
    const copy = k.decode(a);
    const view = k.decodeView(a);
    expect(view.buffer).not.toBe(copy.buffer);
    expect(Array.from(view)).toEqual([1, 1, 1, 1]);
    k.decodeView(b); // reuses the same wasm buffer, as documented
    expect(Array.from(view)).toEqual([0, 0, 0, 0]);
    expect(Array.from(copy)).toEqual([1, 1, 1, 1]);
    const into = new Uint8Array(4);
    expect(k.decodeInto(a, into)).toBe(into);
    expect(Array.from(into)).toEqual([1, 1, 1, 1]);
    expect(() => k.decodeInto(a, new Uint8Array(3))).toThrow(/bytes/);
  });

  it('traces a small mask on a 20000 x 20000 image without a full-size bitmap', () => {
    const kernels = loadKernelsNodeSync();
    const h = 20_000, w = 20_000;
    // A 3 x 2 block at x 15000..15002, y 7000..7001, as RLE counts.
    const counts: number[] = [];
    let pos = 0;
    for (let x = 15_000; x < 15_003; x++) {
      counts.push(x * h + 7000 - pos, 2);
      pos = x * h + 7002;
    }
    counts.push(h * w - pos);
    const rle = { size: [h, w] as [number, number], counts };
    expect(kernels.maskToPolygons(rle)).toEqual([{ path: [[15000, 7000], [15003, 7000], [15003, 7002], [15000, 7002]], holes: [] }]);
    expect(kernels.area(rle)).toBe(6);
    expect(kernels.memoryBytes).toBeLessThan(8 << 20); // a full decode would need 400 MB
    expect(() => kernels.maskToPolygons({ size: [h, w], counts: [h * w - 1, 5] })).toThrow(/sum/);
  });

  it('packs polygons as Float64 in pixels, half pixels included, with the offset of an RLE window', () => {
    // One pixel at (15000, 7000) of a 20k x 20k image: simplified, its edge-midpoint diamond.
    const h = 20_000, w = 20_000;
    const rle = { size: [h, w] as [number, number], counts: [15_000 * h + 7000, 1, h * w - 15_000 * h - 7001] };
    const packed = k.maskToPolygonsPacked(rle, { tolerance: 1 });
    expect(packed).toBeInstanceOf(Float64Array);
    expect(Array.from(packed)).toEqual([1, 1, 4, 15000, 7000.5, 15000.5, 7000, 15001, 7000.5, 15000.5, 7001]);
    expect(k.maskToPolygons(rle, { tolerance: 1 })).toEqual([{ path: [[15000, 7000.5], [15000.5, 7000], [15001, 7000.5], [15000.5, 7001]], holes: [] }]);
    expect(Array.from(k.maskToPolygonsPacked(rle))).toEqual([1, 1, 4, 15000, 7000, 15001, 7000, 15001, 7001, 15000, 7001]);
  });

  it('frees everything it allocates, also when a call throws', () => {
    const kernels = loadKernelsNodeSync();
    const h = 256, w = 256;
    const mask = new Uint8Array(h * w);
    for (let x = 20; x < 200; x++) mask.fill(1, x * h + 30, x * h + 220);
    for (let x = 80; x < 120; x++) mask.fill(0, x * h + 90, x * h + 120);
    const round = () => {
      const counts = kernels.encode(mask, h, w);
      const s = kernels.countsToString(counts);
      kernels.decode({ size: [h, w], counts: s });
      kernels.decodeView({ size: [h, w], counts });
      const polys = kernels.maskToPolygons({ size: [h, w], counts: s }, { tolerance: 0.5 });
      kernels.polygonsToRle(polys, h, w);
      kernels.area({ size: [h, w], counts: s });
      kernels.bbox({ size: [h, w], counts });
      expect(() => kernels.decode({ size: [h, w], counts: [1, 2] })).toThrow();
      expect(() => kernels.stringToCounts(s + 'h')).toThrow();
    };
    for (let i = 0; i < 5; i++) round();
    const before = kernels.memoryBytes;
    // Each round moves ~1 MB through the heap: a leak would have to grow memory.
    for (let i = 0; i < 100; i++) round();
    expect(kernels.memoryBytes).toBe(before);
  });
});

describe('decodeCrop', () => {
  /** The window of a full column-major decode, copied out (the reference). */
  function window(full: Uint8Array, h: number, x: number, y: number, cw: number, ch: number): Uint8Array {
    const out = new Uint8Array(cw * ch);
    for (let c = 0; c < cw; c++) out.set(full.subarray((x + c) * h + y, (x + c) * h + y + ch), c * ch);
    return out;
  }

  it('decodes the foreground bounding box, or a given window, like slicing a full decode', () => {
    let seed = 3;
    const rand = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
    for (const [h, w] of [[1, 1], [7, 5], [64, 33], [100, 257]] as const) {
      const mask = new Uint8Array(h * w);
      for (let i = 0; i < 8; i++) {
        const x0 = Math.floor(rand() * w), y0 = Math.floor(rand() * h);
        for (let x = x0; x < Math.min(w, x0 + 1 + rand() * 9); x++) for (let y = y0; y < Math.min(h, y0 + 1 + rand() * 9); y++) mask[x * h + y] = 1;
      }
      const counts = k.encode(mask, h, w);
      const full = k.decode({ size: [h, w], counts });
      const b = k.bbox({ size: [h, w], counts });
      const crop = k.decodeCrop({ size: [h, w], counts: k.countsToString(counts) });
      expect([crop.x, crop.y, crop.width, crop.height]).toEqual([b.x, b.y, b.width, b.height]);
      expect(crop.data).toEqual(window(full, h, b.x, b.y, b.width, b.height));
      const win = { x: Math.floor(w / 3), y: Math.floor(h / 4), width: Math.ceil(w / 2), height: Math.ceil(h / 2) };
      expect(k.decodeCrop({ size: [h, w], counts }, win).data).toEqual(window(full, h, win.x, win.y, win.width, win.height));
    }
  });

  it('gives an empty window for an empty mask and refuses windows outside the mask or bad counts', () => {
    const empty = k.decodeCrop({ size: [4, 3], counts: [12] });
    expect([empty.width, empty.height, empty.data.length]).toEqual([0, 0, 0]);
    expect(() => k.decodeCrop({ size: [4, 3], counts: [12] }, { x: 2, y: 0, width: 2, height: 4 })).toThrow(/not inside/);
    expect(() => k.decodeCrop({ size: [4, 3], counts: [5, 3] })).toThrow(/sum/);
    const full = k.decodeCrop({ size: [4, 3], counts: [0, 12] });
    expect([full.x, full.y, full.width, full.height, full.data.every((v) => v === 1)]).toEqual([0, 0, 3, 4, true]);
  });
});

describe('decode of short runs', () => {
  it('writes every run exactly, near the end of the buffer too (short runs use wide stores)', () => {
    let seed = 11;
    const rand = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
    for (let trial = 0; trial < 40; trial++) {
      const counts: number[] = [];
      const expected: number[] = [];
      const m = 1 + Math.floor(rand() * 60);
      for (let i = 0; i < m; i++) {
        const c = Math.floor(rand() * (trial % 2 ? 20 : 80));
        counts.push(c);
        for (let j = 0; j < c; j++) expected.push(i & 1 ? 7 : 0);
      }
      const n = expected.length;
      if (n === 0) continue;
      expect(Array.from(k.decode({ size: [n, 1], counts }, 7))).toEqual(expected);
    }
  });
});
