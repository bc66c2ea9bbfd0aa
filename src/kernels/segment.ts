// Typed wrapper around the assisted-segmentation kernels (assembly/kernels/segment.ts) of the
// same wasm module as ./kernels. Same ownership rules: every call copies its inputs into wasm
// buffers it allocates, copies outputs into JS-owned arrays and frees everything, even on throw.
// Environment-agnostic: give it an instance (or bytes) loaded the usual way.
import { BINS, MAX_DEGREE, allocStats, type SuperpixelStats } from '../../assembly/reference/segment';
import { createKernels, kernelImports, type Kernels } from './kernels';

interface SegmentExports {
  memory: WebAssembly.Memory;
  alloc(size: number): number;
  free(ptr: number): void;
  segRgbToLab(rgb: number, n: number, channels: number, lab: number, bins: number): void;
  segSlic(lab: number, w: number, h: number, step: number, compactness: number, iters: number, labels: number): number;
  segStats(lab: number, bins: number, labels: number, w: number, h: number, count: number, size: number, mean: number, hist: number, nbr: number, degree: number, edgeLen: number, edgeGrad: number): void;
  segMinCut(n: number, src: number, snk: number, m: number, ea: number, eb: number, cab: number, cba: number, side: number): number;
  segRefine(labels: number, bins: number, w: number, h: number, spFg: number, band: number, llr: number, r: number, bias: number, out: number): void;
}

type Typed = Uint8Array | Uint16Array | Int32Array | Float32Array | Float64Array;

export class SegmentKernels {
  private readonly ex: SegmentExports;
  /** Arrays kept in wasm memory between calls (see pin()); freed when the array is collected. */
  private readonly pinned = new WeakMap<Typed, number>();
  private readonly registry = new FinalizationRegistry<number>((ptr) => this.ex.free(ptr));

  constructor(instance: WebAssembly.Instance) {
    this.ex = instance.exports as unknown as SegmentExports;
    if (typeof this.ex.segSlic !== 'function') throw new Error('The wasm module has no segmentation kernels: rebuild it with `npm run build:wasm`');
  }

  /**
   * Keeps a copy of `a` in wasm memory so later calls taking it skip the copy (a superpixel
   * label map is passed on every click). The array must not change afterwards.
   */
  pin(a: Typed): void {
    if (this.pinned.has(a)) return;
    const p = this.ex.alloc(Math.max(a.byteLength, 8));
    new Uint8Array(this.ex.memory.buffer, p, a.byteLength).set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
    this.pinned.set(a, p);
    this.registry.register(a, p);
  }

  /** Runs fn with scratch buffers; `put` copies an array in (or uses its pinned copy), `out` reserves bytes; all freed after. */
  private scoped<T>(fn: (put: (a: Typed) => number, out: (bytes: number) => number) => T): T {
    const ptrs: number[] = [];
    const out = (bytes: number) => {
      const p = this.ex.alloc(Math.max(bytes, 8));
      ptrs.push(p);
      return p;
    };
    const put = (a: Typed) => {
      const pinned = this.pinned.get(a);
      if (pinned !== undefined) return pinned;
      const p = out(a.byteLength);
      new Uint8Array(this.ex.memory.buffer, p, a.byteLength).set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
      return p;
    };
    try {
      return fn(put, out);
    } finally {
      for (const p of ptrs) this.ex.free(p);
    }
  }

  private read<T extends Typed>(target: T, ptr: number): T {
    new Uint8Array(target.buffer, target.byteOffset, target.byteLength).set(new Uint8Array(this.ex.memory.buffer, ptr, target.byteLength));
    return target;
  }

  rgbToLab(rgb: Uint8Array, n: number, channels: number, lab: Float32Array, bins: Uint16Array): void {
    this.scoped((put, out) => {
      const pl = out(n * 12), pb = out(n * 2);
      this.ex.segRgbToLab(put(rgb.subarray(0, n * channels)), n, channels, pl, pb);
      this.read(lab, pl);
      this.read(bins, pb);
    });
  }

  slic(lab: Float32Array, w: number, h: number, step: number, compactness: number, iters: number, labels: Int32Array): number {
    return this.scoped((put, out) => {
      const pl = out(w * h * 4);
      const count = this.ex.segSlic(put(lab), w, h, step, compactness, iters, pl);
      this.read(labels, pl);
      return count;
    });
  }

  superpixelStats(lab: Float32Array, bins: Uint16Array, labels: Int32Array, w: number, h: number, count: number): SuperpixelStats {
    const s = allocStats(count);
    this.scoped((put, out) => {
      const p = [out(count * 4), out(count * 40), out(count * BINS * 4), out(count * MAX_DEGREE * 4), out(count * 4), out(count * MAX_DEGREE * 8), out(count * MAX_DEGREE * 8)] as const;
      this.ex.segStats(put(lab), put(bins), put(labels), w, h, count, ...p);
      this.read(s.size, p[0]);
      this.read(s.mean, p[1]);
      this.read(s.hist, p[2]);
      this.read(s.nbr, p[3]);
      this.read(s.degree, p[4]);
      this.read(s.edgeLen, p[5]);
      this.read(s.edgeGrad, p[6]);
    });
    return s;
  }

  minCut(n: number, src: Float64Array, snk: Float64Array, m: number, ea: Int32Array, eb: Int32Array, cab: Float64Array, cba: Float64Array, side: Uint8Array): number {
    return this.scoped((put, out) => {
      const ps = out(n);
      const flow = this.ex.segMinCut(n, put(src), put(snk), m, put(ea), put(eb), put(cab), put(cba), ps);
      this.read(side, ps);
      return flow;
    });
  }

  refine(labels: Int32Array, bins: Uint16Array, w: number, h: number, spFg: Uint8Array, band: Uint8Array, llr: Float64Array, r: number, bias: number, mask: Uint8Array): void {
    this.scoped((put, out) => {
      const po = out(w * h);
      this.ex.segRefine(put(labels), put(bins), w, h, put(spFg), put(band), put(llr), r, bias, po);
      this.read(mask, po);
    });
  }
}

/** The RLE/polygon kernels and the segmentation kernels over one instance. */
export function instantiateSegmentKernelsSync(source: BufferSource | WebAssembly.Module): { kernels: Kernels; segment: SegmentKernels } {
  const holder: { memory?: WebAssembly.Memory } = {};
  const module = source instanceof WebAssembly.Module ? source : new WebAssembly.Module(source);
  const instance = new WebAssembly.Instance(module, kernelImports(() => holder.memory));
  holder.memory = instance.exports.memory as WebAssembly.Memory;
  return { kernels: createKernels(instance), segment: new SegmentKernels(instance) };
}
