// Typed wrapper around the AssemblyScript kernels module (assembly/kernels, built to
// assembly/build/kernels.wasm). Environment-agnostic: index.ts loads it in a browser or worker,
// node.ts in Node; both end in createKernels().
//
// Memory ownership
// - The module has its own linear memory and a TLSF heap (alloc/free exports). Every call here
//   copies its inputs into freshly allocated wasm buffers, runs the kernel, copies the outputs
//   into new JS-owned typed arrays, and frees what it allocated, even when it throws. So, apart
//   from the one exception below, nothing returned aliases wasm memory and nothing needs freeing.
// - Exception: decodeView() returns a Uint8Array that is a view INTO wasm memory (a decode
//   buffer the instance keeps and reuses). It is valid only until the next call on the same
//   instance (which may overwrite it or grow memory, detaching it). Use it to upload a texture or
//   copy it somewhere, immediately. Use decode() when in doubt.
// - Kernels run synchronously on the calling thread; one instance is not re-entrant, which is
//   fine because JS on one thread cannot interleave calls. Use one instance per worker.
// - Wasm memory grows on demand (up to 4 GiB) and never shrinks; a 20k x 20k decode needs
//   400 MB there, so run big masks in a worker you can terminate.

/** COCO RLE: counts numeric (pycocotools' list) or pycocotools' compressed string. */
export interface RleLike {
  /** [height, width] */
  readonly size: readonly [number, number] | readonly number[];
  readonly counts: string | ArrayLike<number>;
}

export type Point = readonly [number, number];

/** A polygon as the stored annotation has it: outer path plus holes, rings implicitly closed. */
export interface Polygon {
  path: [number, number][];
  holes: [number, number][][];
}

export interface PolygonInput {
  readonly path: ArrayLike<Point>;
  readonly holes?: ArrayLike<ArrayLike<Point>>;
}

export interface BBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * 'evenodd': a pixel is in a polygon when a ray from its centre crosses the polygon's rings
 * (outer and holes together) an odd number of times, so holes work whatever their orientation.
 * 'nonzero': when the winding number is not zero; holes must then wind opposite to the outer
 * ring (maskToPolygons produces exactly that). Several polygons are always united.
 */
export type FillRule = 'evenodd' | 'nonzero';

/**
 * The tolerance (pixels) of mask-to-polygon conversions a user gets by default: the export's
 * polygons and the editor's "save as polygons". On seg-dev's masks it keeps a mean IoU of 0.99
 * with the mask at about a fifteenth of the staircase's vertices (docs/performance/client.md, "Masks to
 * polygons").
 */
export const MASK_POLYGON_TOLERANCE = 1;

export interface MaskToPolygonsOptions {
  /**
   * Simplification tolerance in pixels. 0 (the default) keeps every corner of the pixel
   * boundary, and rasterising the result gives back the exact mask. Above 0, the boundary is
   * replaced by the midpoints of its pixel edges (vertices on half pixels; real corners, such as
   * a rectangle's, stay exact) and simplified with Douglas-Peucker; holes that collapse to fewer
   * than 3 vertices are dropped, outer rings keep at least 3. Use MASK_POLYGON_TOLERANCE unless
   * the caller needs the exact staircase.
   */
  tolerance?: number;
}

export interface RasterOptions {
  fillRule?: FillRule;
}

interface Exports {
  memory: WebAssembly.Memory;
  alloc(size: number): number;
  free(ptr: number): void;
  resultPtr(): number;
  resultLen(): number;
  releaseResult(): void;
  rleDecode(counts: number, m: number, n: number, out: number, fg: number): number;
  rleDecodeCrop(counts: number, m: number, h: number, w: number, x0: number, y0: number, cw: number, ch: number, out: number): number;
  rleEncode(mask: number, n: number): number;
  rleToString(counts: number, m: number, out: number): number;
  rleFromString(str: number, len: number, out: number): number;
  rleArea(counts: number, m: number): number;
  rleBBox(counts: number, m: number, h: number, out: number): void;
  maskToPolygons(mask: number, h: number, w: number, tol: number, offX: number, offY: number): number;
  polygonsToRle(ringSizes: number, ringPoly: number, nRings: number, nPolys: number, coords: number, h: number, w: number, rule: number): number;
  maskPaint(counts: number, m: number, h: number, w: number, pts: number, nPts: number, radius: number, erase: number): number;
  maskFillHoles(counts: number, m: number, h: number, w: number): number;
  maskRemoveIslands(counts: number, m: number, h: number, w: number, minArea: number): number;
}

const ERRORS: Record<number, string> = {
  [-1]: 'RLE counts do not sum to height * width',
  [-2]: 'Invalid character in RLE string (expected chars 48..111)',
  [-3]: 'Truncated RLE string',
  [-4]: 'RLE count out of range',
  [-5]: 'Malformed kernel input',
};

function check(code: number): number {
  if (code < 0) throw new Error(ERRORS[code] ?? `Kernel error ${code}`);
  return code;
}

function checkSize(size: RleLike['size']): [number, number] {
  const h = size[0], w = size[1];
  if (h === undefined || w === undefined || !Number.isInteger(h) || !Number.isInteger(w) || h < 0 || w < 0) {
    throw new Error(`Invalid mask size ${JSON.stringify(size)}`);
  }
  // Pixel indices are i32 inside the kernels (and wasm32 memory tops out at 4 GiB anyway).
  if (h * w > 0x7fffffff) throw new Error(`Mask of ${h} x ${w} pixels is too large`);
  return [h, w];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Reads an AssemblyScript string (UTF-16, byte length stored just before it) for abort messages. */
function readAsString(memory: WebAssembly.Memory, ptr: number): string {
  if (!ptr) return '';
  const len = new Uint32Array(memory.buffer, ptr - 4, 1)[0]! >>> 1;
  return String.fromCharCode(...new Uint16Array(memory.buffer, ptr, len));
}

/** Imports the module expects (AssemblyScript's abort, reached only on a trap such as out of memory). */
export function kernelImports(getMemory: () => WebAssembly.Memory | undefined): WebAssembly.Imports {
  return {
    env: {
      abort(msg: number, file: number, line: number, col: number) {
        const memory = getMemory();
        const text = memory ? `${readAsString(memory, msg)} (${readAsString(memory, file)}:${line}:${col})` : 'abort';
        throw new Error(`wasm kernel aborted: ${text}`);
      },
    },
  };
}

export class Kernels {
  private readonly ex: Exports;
  private viewPtr = 0;
  private viewCap = 0;

  constructor(instance: WebAssembly.Instance) {
    this.ex = instance.exports as unknown as Exports;
  }

  // Views are created per use: any call may grow memory, which detaches older views.
  private u8(ptr: number, len: number): Uint8Array {
    return new Uint8Array(this.ex.memory.buffer, ptr, len);
  }

  private u32(ptr: number, len: number): Uint32Array {
    return new Uint32Array(this.ex.memory.buffer, ptr, len);
  }

  private i32(ptr: number, len: number): Int32Array {
    return new Int32Array(this.ex.memory.buffer, ptr, len);
  }

  /** Runs fn with scratch allocations that are freed afterwards, whatever happens. */
  private scoped<T>(fn: (alloc: (bytes: number) => number) => T): T {
    const ptrs: number[] = [];
    const alloc = (bytes: number) => {
      const p = this.ex.alloc(Math.max(bytes, 1));
      ptrs.push(p);
      return p;
    };
    try {
      return fn(alloc);
    } finally {
      for (const p of ptrs) this.ex.free(p);
      this.ex.releaseResult();
    }
  }

  /** Counts into wasm memory, from a numeric list or by parsing the string in wasm. Returns [ptr, m]. */
  private putCounts(counts: RleLike['counts'], alloc: (bytes: number) => number): [number, number] {
    if (typeof counts === 'string') {
      const len = counts.length;
      const str = alloc(len);
      const { read } = encoder.encodeInto(counts, this.u8(str, len));
      if (read !== len) throw new Error(ERRORS[-2]);
      const ptr = alloc(len * 4);
      const m = check(this.ex.rleFromString(str, len, ptr));
      return [ptr, m];
    }
    const m = counts.length;
    const ptr = alloc(m * 4);
    const view = this.u32(ptr, m);
    // (a Uint32Array holds valid counts by construction)
    if (counts instanceof Uint32Array) view.set(counts);
    else {
      // Checked and copied in one pass: c >>> 0 === c exactly when c is an integer in 0..2^32-1.
      for (let i = 0; i < m; i++) {
        const c = counts[i]!;
        if (c >>> 0 !== c) throw new Error(`Invalid RLE count ${c} at ${i}`);
        view[i] = c;
      }
    }
    return [ptr, m];
  }

  private resultCopyU32(): Uint32Array {
    return this.u32(this.ex.resultPtr(), this.ex.resultLen()).slice();
  }

  /** Decodes to a new column-major Uint8Array (pixel (x, y) at x * height + y): 0 or `value` (default 1). */
  decode(rle: RleLike, value = 1): Uint8Array {
    const view = this.decodeView(rle, value);
    return view.slice();
  }

  /** Decodes into `out` (column-major, length height * width) and returns it. */
  decodeInto(rle: RleLike, out: Uint8Array, value = 1): Uint8Array {
    const view = this.decodeView(rle, value);
    if (out.length !== view.length) throw new Error(`Output has ${out.length} bytes, expected ${view.length}`);
    out.set(view);
    return out;
  }

  /**
   * Decodes into a buffer inside wasm memory and returns a view of it: no copy, but only valid
   * until the next call on this instance (see the ownership notes at the top of this file).
   */
  decodeView(rle: RleLike, value = 1): Uint8Array {
    const [h, w] = checkSize(rle.size);
    const n = h * w;
    if (!(value >= 1 && value <= 255)) throw new Error('Foreground value must be 1..255');
    return this.scoped((alloc) => {
      const [counts, m] = this.putCounts(rle.counts, alloc);
      if (n > this.viewCap) {
        if (this.viewPtr) this.ex.free(this.viewPtr);
        this.viewPtr = this.ex.alloc(Math.max(n, 1));
        this.viewCap = n;
      }
      check(this.ex.rleDecode(counts, m, n, this.viewPtr, value));
      return this.u8(this.viewPtr, n);
    });
  }

  /**
   * Decodes only a window of the mask (default: the foreground's bounding box) into a new
   * column-major Uint8Array of 0 / 1 (pixel (x, y) of the window at x * height + y). A small
   * mask on a 20k x 20k image never needs a full-size bitmap. An empty mask gives a 0 x 0 window.
   */
  decodeCrop(rle: RleLike, window?: BBox): BBox & { data: Uint8Array } {
    const [h, w] = checkSize(rle.size);
    return this.scoped((alloc) => {
      const [counts, m] = this.putCounts(rle.counts, alloc);
      let x0: number, y0: number, cw: number, ch: number;
      if (window) {
        ({ x: x0, y: y0, width: cw, height: ch } = window);
        if (![x0, y0, cw, ch].every(Number.isInteger) || x0 < 0 || y0 < 0 || cw < 0 || ch < 0 || x0 + cw > w || y0 + ch > h) {
          throw new Error(`Window ${JSON.stringify(window)} is not inside the ${h} x ${w} mask`);
        }
      } else {
        const box = alloc(16);
        this.ex.rleBBox(counts, m, h, box);
        [x0, y0, cw, ch] = this.i32(box, 4) as unknown as [number, number, number, number];
        // Counts that overrun the image would give a box outside it; fail before allocating.
        if (x0 + cw > w || y0 + ch > h) throw new Error(ERRORS[-1]);
      }
      if (!cw || !ch) {
        check(this.ex.rleDecodeCrop(counts, m, h, w, 0, 0, 0, 0, alloc(1))); // still validates the counts
        return { x: x0, y: y0, width: cw, height: ch, data: new Uint8Array(0) };
      }
      const out = alloc(cw * ch);
      check(this.ex.rleDecodeCrop(counts, m, h, w, x0, y0, cw, ch, out));
      return { x: x0, y: y0, width: cw, height: ch, data: this.u8(out, cw * ch).slice() };
    });
  }

  /** pycocotools rleEncode of a column-major mask (nonzero = foreground). */
  encode(mask: Uint8Array, height: number, width: number): Uint32Array {
    const [h, w] = checkSize([height, width]);
    const n = h * w;
    if (mask.length !== n) throw new Error(`Mask has ${mask.length} pixels, expected ${n}`);
    return this.scoped((alloc) => {
      const ptr = alloc(n);
      this.u8(ptr, n).set(mask);
      this.ex.rleEncode(ptr, n);
      return this.resultCopyU32();
    });
  }

  /** Encodes straight to pycocotools' compressed string. */
  encodeToString(mask: Uint8Array, height: number, width: number): string {
    return this.countsToString(this.encode(mask, height, width));
  }

  /** pycocotools rleToString. */
  countsToString(counts: ArrayLike<number>): string {
    return this.scoped((alloc) => {
      const [ptr, m] = this.putCounts(counts, alloc);
      const out = alloc(m * 7);
      const len = this.ex.rleToString(ptr, m, out);
      return decoder.decode(this.u8(out, len));
    });
  }

  /** pycocotools rleFrString; throws on characters outside 48..111, truncation or negative counts. */
  stringToCounts(s: string): Uint32Array {
    return this.scoped((alloc) => {
      const [ptr, m] = this.putCounts(s, alloc);
      return this.u32(ptr, m).slice();
    });
  }

  /** Foreground pixel count, from the runs (no decode). */
  area(rle: RleLike): number {
    return this.scoped((alloc) => {
      const [ptr, m] = this.putCounts(rle.counts, alloc);
      return this.ex.rleArea(ptr, m);
    });
  }

  /** Pixel bounding box of the foreground (pycocotools toBbox), from the runs; zeros when empty. */
  bbox(rle: RleLike): BBox {
    const [h] = checkSize(rle.size);
    return this.scoped((alloc) => {
      const [ptr, m] = this.putCounts(rle.counts, alloc);
      const out = alloc(16);
      this.ex.rleBBox(ptr, m, h, out);
      const [x, y, width, height] = this.i32(out, 4);
      return { x: x!, y: y!, width: width!, height: height! };
    });
  }

  /**
   * Traces the mask's boundaries into polygons with holes. Vertices are in image coordinates
   * (pixel (x, y) covers [x, x+1] x [y, y+1]): pixel corners at tolerance 0, edge midpoints
   * (multiples of 0.5) above it (see MaskToPolygonsOptions); outer rings have positive shoelace
   * area in these y-down coordinates (clockwise on screen), holes negative. Foreground is
   * 8-connected: diagonal neighbours make one polygon touching itself at a corner.
   * Accepts a column-major mask with its size, or an RLE.
   */
  maskToPolygons(mask: Uint8Array, height: number, width: number, options?: MaskToPolygonsOptions): Polygon[];
  maskToPolygons(rle: RleLike, options?: MaskToPolygonsOptions): Polygon[];
  maskToPolygons(input: Uint8Array | RleLike, a?: number | MaskToPolygonsOptions, b?: number, c?: MaskToPolygonsOptions): Polygon[] {
    return parsePolygons(this.tracePacked(input, a, b, c));
  }

  /**
   * maskToPolygons without building one JS array per vertex (for workers that triangulate or
   * transfer the result): a Float64Array laid out as polygonCount, then per polygon ringCount,
   * then per ring (outer first, then holes) vertexCount, x0, y0, x1, y1, ...
   */
  maskToPolygonsPacked(mask: Uint8Array, height: number, width: number, options?: MaskToPolygonsOptions): Float64Array;
  maskToPolygonsPacked(rle: RleLike, options?: MaskToPolygonsOptions): Float64Array;
  maskToPolygonsPacked(input: Uint8Array | RleLike, a?: number | MaskToPolygonsOptions, b?: number, c?: MaskToPolygonsOptions): Float64Array {
    return this.tracePacked(input, a, b, c);
  }

  /** Runs the tracing kernel and copies its packed result out (JS-owned), in pixels. */
  private tracePacked(input: Uint8Array | RleLike, a?: number | MaskToPolygonsOptions, b?: number, c?: MaskToPolygonsOptions): Float64Array {
    const isMask = input instanceof Uint8Array;
    const [h, w] = checkSize(isMask ? [a as number, b as number] : input.size);
    // The kernel writes half-pixel units (2x) as i32.
    if (h > 0x3fffffff || w > 0x3fffffff) throw new Error(`Mask of ${h} x ${w} pixels is too large to trace`);
    const tolerance = (isMask ? c : (a as MaskToPolygonsOptions | undefined))?.tolerance ?? 0;
    if (!(tolerance >= 0) || !Number.isFinite(tolerance)) throw new Error('tolerance must be a finite number >= 0');
    return this.scoped((alloc) => {
      let len: number;
      if (isMask) {
        const n = h * w;
        if (input.length !== n) throw new Error(`Mask has ${input.length} pixels, expected ${n}`);
        const mask = alloc(n);
        this.u8(mask, n).set(input);
        len = check(this.ex.maskToPolygons(mask, h, w, tolerance, 0, 0));
      } else {
        // Decode only the bounding box: a small mask on a 20k x 20k image stays small here.
        const [counts, m] = this.putCounts(input.counts, alloc);
        const box = alloc(16);
        this.ex.rleBBox(counts, m, h, box);
        const [x0, y0, bw, bh] = this.i32(box, 4) as unknown as [number, number, number, number];
        // Counts that overrun the image would give a box outside it; fail before allocating.
        if (x0 + bw > w || y0 + bh > h) throw new Error(ERRORS[-1]);
        const crop = alloc(bw * bh);
        check(this.ex.rleDecodeCrop(counts, m, h, w, x0, y0, bw, bh, crop));
        len = check(this.ex.maskToPolygons(crop, bh, bw, tolerance, x0, y0));
      }
      // Copied (and halved) before scoped() releases the result vector.
      return unpackHalfPixels(this.i32(this.ex.resultPtr(), len));
    });
  }

  /**
   * Rasterises polygons (each with holes) to RLE counts: pixel (x, y) is set when its centre
   * (x + 0.5, y + 0.5) is inside, by `fillRule` (default 'evenodd'); polygons are united.
   * Boundary rule is half-open, so two polygons sharing an edge never both own a pixel.
   */
  polygonsToRle(polygons: readonly PolygonInput[], height: number, width: number, options?: RasterOptions): Uint32Array {
    const [h, w] = checkSize([height, width]);
    const rule = (options?.fillRule ?? 'evenodd') === 'nonzero' ? 1 : 0;
    const rings: ArrayLike<Point>[] = [];
    const ringPoly: number[] = [];
    polygons.forEach((p, i) => {
      rings.push(p.path);
      ringPoly.push(i);
      const holes = p.holes ?? [];
      for (let k = 0; k < holes.length; k++) {
        rings.push(holes[k]!);
        ringPoly.push(i);
      }
    });
    let nVerts = 0;
    for (const r of rings) nVerts += r.length;
    return this.scoped((alloc) => {
      const sizesPtr = alloc(rings.length * 4);
      const polyPtr = alloc(rings.length * 4);
      const coordsPtr = alloc(nVerts * 16);
      this.i32(sizesPtr, rings.length).set(rings.map((r) => r.length));
      this.i32(polyPtr, rings.length).set(ringPoly);
      const coords = new Float64Array(this.ex.memory.buffer, coordsPtr, nVerts * 2);
      let k = 0;
      for (const r of rings) {
        for (let i = 0; i < r.length; i++) {
          const pt = r[i]!;
          const x = pt[0], y = pt[1];
          if (!Number.isFinite(x) || !Number.isFinite(y)) throw new Error(`Invalid polygon vertex ${JSON.stringify(pt)}`);
          coords[k++] = x;
          coords[k++] = y;
        }
      }
      check(this.ex.polygonsToRle(sizesPtr, polyPtr, rings.length, polygons.length, coordsPtr, h, w, rule));
      return this.resultCopyU32();
    });
  }

  /**
   * Paints a stroke into a mask, or erases it ('erase'): the pixels whose centre lies within
   * `radius` image pixels of the polyline through `points` (one point: a disc). Works on the runs
   * and one column at a time, never on a full-image bitmap. Returns the new counts.
   */
  paintStroke(rle: RleLike, points: ArrayLike<Point>, radius: number, mode: 'paint' | 'erase' = 'paint'): Uint32Array {
    const [h, w] = checkSize(rle.size);
    if (!(radius >= 0) || !Number.isFinite(radius)) throw new Error('radius must be a finite number >= 0');
    return this.scoped((alloc) => {
      const [counts, m] = this.putCounts(rle.counts, alloc);
      const ptsPtr = alloc(points.length * 16);
      const xy = new Float64Array(this.ex.memory.buffer, ptsPtr, points.length * 2);
      for (let i = 0; i < points.length; i++) {
        const [x, y] = points[i]!;
        if (!Number.isFinite(x) || !Number.isFinite(y)) throw new Error(`Invalid stroke point ${JSON.stringify(points[i])}`);
        xy[2 * i] = x;
        xy[2 * i + 1] = y;
      }
      check(this.ex.maskPaint(counts, m, h, w, ptsPtr, points.length, radius, mode === 'erase' ? 1 : 0));
      return this.resultCopyU32();
    });
  }

  /** Fills a mask's holes (background 4-connected to nothing outside the mask); decodes only its bounding box. */
  fillHoles(rle: RleLike): Uint32Array {
    const [h, w] = checkSize(rle.size);
    return this.scoped((alloc) => {
      const [counts, m] = this.putCounts(rle.counts, alloc);
      check(this.ex.maskFillHoles(counts, m, h, w));
      return this.resultCopyU32();
    });
  }

  /** Removes the mask's parts (8-connected) of fewer than `minArea` pixels; decodes only its bounding box. */
  removeIslands(rle: RleLike, minArea: number): Uint32Array {
    const [h, w] = checkSize(rle.size);
    if (!Number.isInteger(minArea) || minArea < 0) throw new Error('minArea must be an integer >= 0');
    return this.scoped((alloc) => {
      const [counts, m] = this.putCounts(rle.counts, alloc);
      check(this.ex.maskRemoveIslands(counts, m, h, w, Math.min(minArea, 0x7fffffff)));
      return this.resultCopyU32();
    });
  }

  /** polygonsToRle, decoded to a column-major mask of 0 / `value`. */
  polygonsToMask(polygons: readonly PolygonInput[], height: number, width: number, options?: RasterOptions & { value?: number }): Uint8Array {
    const counts = this.polygonsToRle(polygons, height, width, options);
    return this.decode({ size: [height, width], counts }, options?.value ?? 1);
  }

  /** Bytes of wasm memory currently reserved (it grows on demand and never shrinks). */
  get memoryBytes(): number {
    return this.ex.memory.buffer.byteLength;
  }
}

/** The kernel's packed polygons with coordinates in half pixels -> the same layout in pixels. */
function unpackHalfPixels(buf: Int32Array): Float64Array {
  const out = new Float64Array(buf);
  let p = 0;
  const nPoly = buf[p++]!;
  for (let i = 0; i < nPoly; i++) {
    const nRings = buf[p++]!;
    for (let r = 0; r < nRings; r++) {
      const end = p + 1 + 2 * buf[p]!;
      for (p++; p < end; p++) out[p] = buf[p]! / 2;
    }
  }
  return out;
}

function parsePolygons(buf: Float64Array): Polygon[] {
  const polygons: Polygon[] = [];
  let p = 0;
  const nPoly = buf[p++]!;
  for (let i = 0; i < nPoly; i++) {
    const nRings = buf[p++]!;
    const rings: [number, number][][] = [];
    for (let r = 0; r < nRings; r++) {
      const nv = buf[p++]!;
      const ring: [number, number][] = new Array(nv);
      for (let v = 0; v < nv; v++, p += 2) ring[v] = [buf[p]!, buf[p + 1]!];
      rings.push(ring);
    }
    polygons.push({ path: rings[0]!, holes: rings.slice(1) });
  }
  return polygons;
}

/** Wraps an instantiated kernels module. */
export function createKernels(instance: WebAssembly.Instance): Kernels {
  return new Kernels(instance);
}

/** Instantiates the module from its bytes or a compiled WebAssembly.Module. */
export async function instantiateKernels(source: BufferSource | WebAssembly.Module): Promise<Kernels> {
  const holder: { memory?: WebAssembly.Memory } = {};
  const imports = kernelImports(() => holder.memory);
  const instance =
    source instanceof WebAssembly.Module
      ? await WebAssembly.instantiate(source, imports)
      : (await WebAssembly.instantiate(source, imports)).instance;
  holder.memory = instance.exports.memory as WebAssembly.Memory;
  return createKernels(instance);
}

/** Synchronous variant (fine for this ~9 KB module in Node or a worker; browsers forbid sync compile of big modules on the main thread). */
export function instantiateKernelsSync(source: BufferSource | WebAssembly.Module): Kernels {
  const holder: { memory?: WebAssembly.Memory } = {};
  const module = source instanceof WebAssembly.Module ? source : new WebAssembly.Module(source);
  const instance = new WebAssembly.Instance(module, kernelImports(() => holder.memory));
  holder.memory = instance.exports.memory as WebAssembly.Memory;
  return createKernels(instance);
}
