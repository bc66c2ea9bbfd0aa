// The renderer's masks: RLE crops decoded by the wasm kernel in slices (12 ms at a time, so many
// masks never block camera updates), packed into the shared atlases (masks.ts), and one vertex
// buffer of their quads in z order, drawn as one draw per run of masks in the same atlas.
// A mask edited in place (a brush stroke sends one on every pointer move) keeps its texel block
// while its box stays inside the block's rectangle, and only the columns whose runs changed are
// decoded and uploaded; a mask that grows out of it gets a block with room to grow (GROW_SLACK).
import type { Buffer, Regl } from 'regl';
import { loadKernels, type Kernels } from '../kernels';
import type { MaskEntry, Shape } from './cells';
import { MaskAtlases, type Atlas } from './masks';
import { MASK_STRIDE } from './programs';
import type { PackedScene } from './protocol';

type MaskRle = { size: [number, number]; counts: number[] | Uint32Array | string };
type Crop = { rect: [number, number, number, number]; data: Uint8Array };
/** A decoded mask keeps its RLE (`src`, shared, never copied) to tell what the next edit changed. */
type DecodedEntry = MaskEntry & { src?: MaskRle };
/** A mask waiting for its decode carries its RLE, and the entry it replaces when it is an edit. */
type PendingEntry = DecodedEntry & { rle?: PackedScene['masks'][number]; prev?: DecodedEntry };

/** Room a growing mask's new rectangle leaves on each side: this share of its larger side, at least 16 px. */
export const GROW_SLACK = 0.25;

/**
 * The columns [c0, c1] of an h-pixel-high mask where counts `a` and `b` differ, from the runs
 * they share at both ends (no decode); null when the masks are the same.
 */
export function changedColumns(a: ArrayLike<number>, b: ArrayLike<number>, h: number): [number, number] | null {
  const m = Math.min(a.length, b.length);
  let i = 0, start = 0;
  while (i < m && a[i] === b[i]) start += a[i++]!;
  if (i === a.length && i === b.length) return null;
  if (i < m) start += Math.min(a[i]!, b[i]!);
  let n = 0;
  for (let k = 0; k < a.length; k++) n += a[k]!;
  let j = 0, end = n;
  // The last runs are of one kind only when both lists have the same parity.
  if ((a.length - b.length) % 2 === 0) {
    while (j < m - i && a[a.length - 1 - j] === b[b.length - 1 - j]) end -= a[a.length - 1 - j++]!;
    if (j < m) end -= Math.min(a[a.length - 1 - j]!, b[b.length - 1 - j]!);
  }
  if (end <= start || h <= 0) return [Math.floor(Math.min(start, end) / Math.max(h, 1)), Math.floor(Math.max(start, end) / Math.max(h, 1))];
  return [Math.floor(start / h), Math.floor((end - 1) / h)];
}

function numeric(k: Kernels, counts: MaskRle['counts']): ArrayLike<number> {
  return typeof counts === 'string' ? k.stringToCounts(counts) : counts;
}

/** The mask's bounding box decoded by the kernel (no full-image bitmap). */
export function cropMask(k: Kernels, rle: MaskRle): Crop {
  const c = k.decodeCrop(rle);
  if (!c.width || !c.height) return { rect: [0, 0, 0, 0], data: new Uint8Array(1) };
  return { rect: [c.x, c.y, c.width, c.height], data: c.data };
}

export class MaskLayer {
  private masks: Shape[] = [];
  private masksSorted = true;
  /** The masks' quads (z order), rebuilt when a mask is added, removed or decoded. */
  private masksDirty = false;
  private readonly atlases: MaskAtlases;
  /** The quads' vertex buffer (the mask program reads it). */
  readonly buf: Buffer;
  /** Runs of consecutive masks (z order) in one atlas: one draw each. */
  private runs: { atlas: Atlas; offset: number; count: number }[] = [];
  private readonly queue: Shape[] = [];
  /** Masks dropped by an edit that may add them back at once (their block is reused then). */
  private readonly dropped = new Map<Shape, DecodedEntry>();
  /** Texels uploaded for masks (a measure of what an edit costs the GPU). */
  uploadedTexels = 0;
  private kernels: Kernels | null = null;
  private kernelsLoading: Promise<Kernels> | null = null;
  /** Total time spent decoding masks into textures, and loading the kernels (ms). */
  decodeMs = 0;
  kernelsLoadMs = 0;

  constructor(
    regl: Regl,
    maxTextureSize: number,
    glMaxTexture: number,
    private readonly kernelsUrl: string | undefined,
    /** The renderer's live shapes: a mask whose shape left (or was replaced) is skipped. */
    private readonly shapes: ReadonlyMap<string, Shape>,
    private readonly requestFrame: () => void,
  ) {
    this.atlases = new MaskAtlases(regl, Math.min(2048, maxTextureSize), glMaxTexture);
    this.buf = regl.buffer({ usage: 'dynamic', type: 'float', length: 0 });
  }

  /** Gives `s` the mask `rle`, decoded later (decode()). */
  add(s: Shape, rle: PackedScene['masks'][number]): void {
    const entry: PendingEntry = { place: null, rect: [0, 0, 0, 0], rle };
    const prev = this.dropped.get(s);
    if (prev) {
      this.dropped.delete(s);
      entry.prev = prev;
    }
    s.mask = entry;
    this.masks.push(s);
    this.masksSorted = false;
    this.queue.push(s);
  }

  drop(s: Shape): void {
    const entry = s.mask as PendingEntry | null;
    if (entry?.prev?.place) this.atlases.remove(entry.prev.place); // dropped again before its decode
    if (entry?.place) this.dropped.set(s, entry);
    s.mask = null;
    this.masksDirty = true; // the list drops maskless shapes when it is rebuilt
  }

  /** Frees the blocks of dropped masks no edit took back. */
  private freeDropped(): void {
    for (const e of this.dropped.values()) if (e.place) this.atlases.remove(e.place);
    this.dropped.clear();
  }

  /** Lets a caller that already has the kernels (a benchmark, a test) skip loading them. */
  useKernels(k: Kernels): void {
    this.kernels = k;
  }

  clear(): void {
    this.freeDropped();
    for (const s of new Set(this.masks)) {
      const e = s.mask as PendingEntry | null;
      if (e?.place) this.atlases.remove(e.place);
      if (e?.prev?.place) this.atlases.remove(e.prev.place);
    }
    this.masks = [];
    this.masksDirty = true;
    this.queue.length = 0;
  }

  get count(): number {
    return this.masks.length;
  }

  /** Masks wait in the decode queue. */
  get pendingDecodes(): boolean {
    return this.queue.length > 0;
  }

  /** Masks wait for their decode (or for the kernels). */
  get pending(): boolean {
    return this.queue.length > 0 || Boolean(this.kernelsLoading && !this.kernels && this.masks.length);
  }

  bytes(): number {
    return this.atlases.bytes();
  }

  /** Decodes the waiting masks, a slice at a time (loading the kernels first). */
  decode(): void {
    if (!this.kernels) {
      const tk = performance.now();
      this.kernelsLoading ??= loadKernels(this.kernelsUrl).then((k) => {
        this.kernels = k;
        this.kernelsLoadMs = performance.now() - tk;
        this.decode();
        return k;
      }, (err: unknown) => {
        console.error('Error rendering masks (kernels):', err);
        this.kernelsLoading = null;
        throw err;
      });
      return;
    }
    // Decode in slices so a scene of many masks does not block camera updates.
    const t0 = performance.now();
    while (this.queue.length && performance.now() - t0 < 12) {
      const s = this.queue.shift()!;
      const entry = s.mask as PendingEntry | null;
      if (!entry?.rle || !this.shapes.has(s.id)) {
        if (entry?.prev?.place) this.atlases.remove(entry.prev.place);
        continue;
      }
      try {
        this.decodeEntry(this.kernels, entry, entry.rle);
        this.masksDirty = true;
      } catch (err) {
        console.error('Error rendering mask:', err);
      }
    }
    this.decodeMs += performance.now() - t0;
    this.requestFrame();
    if (this.queue.length) setTimeout(() => this.decode(), 0);
  }

  /** Decodes one mask: in its old block when an edit left its box inside it, else into a new one. */
  private decodeEntry(k: Kernels, entry: PendingEntry, rle: PackedScene['masks'][number]): void {
    const prev = entry.prev;
    delete entry.prev;
    delete entry.rle;
    entry.src = rle;
    const p = prev?.place;
    const [px, py, pw, ph] = prev?.rect ?? [0, 0, 0, 0];
    // (a subsampled block, a mask larger than the GPU allows, is always decoded again)
    if (prev && p && !p.gone && prev.src && p.tw === ph && p.th === pw && pw > 0) {
      const box = k.bbox(rle);
      if (box.width && box.x >= px && box.y >= py && box.x + box.width <= px + pw && box.y + box.height <= py + ph) {
        entry.place = p;
        entry.rect = prev.rect;
        const cols = changedColumns(numeric(k, prev.src.counts), numeric(k, rle.counts), rle.size[0]);
        if (!cols) return;
        const c0 = Math.max(cols[0], px), c1 = Math.min(cols[1], px + pw - 1);
        if (c1 < c0) return;
        const { data } = k.decodeCrop(rle, { x: c0, y: py, width: c1 - c0 + 1, height: ph });
        this.atlases.update(p, c0 - px, c1 - c0 + 1, data);
        this.uploadedTexels += data.length;
        return;
      }
      if (box.width) {
        // Growing (a stroke past the edge): a rectangle with room around the new box.
        const [h, w] = rle.size;
        const x0 = Math.min(box.x, px), y0 = Math.min(box.y, py);
        const x1 = Math.max(box.x + box.width, px + pw), y1 = Math.max(box.y + box.height, py + ph);
        const slack = Math.max(16, Math.round(GROW_SLACK * Math.max(x1 - x0, y1 - y0)));
        const rect: Crop['rect'] = [Math.max(0, x0 - slack), Math.max(0, y0 - slack), 0, 0];
        rect[2] = Math.min(w, x1 + slack) - rect[0];
        rect[3] = Math.min(h, y1 + slack) - rect[1];
        const { data } = k.decodeCrop(rle, { x: rect[0], y: rect[1], width: rect[2], height: rect[3] });
        this.atlases.remove(p);
        entry.place = this.atlases.add(rect[3], rect[2], data);
        entry.rect = rect;
        this.uploadedTexels += data.length;
        return;
      }
    }
    if (p) this.atlases.remove(p);
    const { rect, data } = cropMask(k, rle);
    entry.place = this.atlases.add(rect[3], rect[2], data);
    entry.rect = rect;
    this.uploadedTexels += data.length;
  }

  /** The draws of the masks (rebuilding their quads first when they changed). */
  draws(): { tex: Atlas['tex']; offset: number; count: number }[] {
    this.freeDropped();
    if (this.masksDirty || !this.masksSorted) this.rebuild();
    return this.runs.map((r) => ({ tex: r.atlas.tex, offset: r.offset, count: r.count }));
  }

  /** One vertex buffer of every decoded mask's quad, in z order; runs split where the atlas changes. */
  private rebuild(): void {
    if (this.masksDirty) {
      const seen = new Set<Shape>();
      this.masks = this.masks.filter((s) => s.mask && this.shapes.get(s.id) === s && !seen.has(s) && Boolean(seen.add(s)));
    }
    if (!this.masksSorted) this.masks.sort((a, b) => a.z - b.z);
    this.masksSorted = true;
    this.masksDirty = false;
    const v = new Float32Array(this.masks.length * 6 * MASK_STRIDE);
    const runs: { atlas: Atlas; offset: number; count: number }[] = [];
    let n = 0;
    for (const s of this.masks) {
      const p = s.mask?.place;
      if (!p) continue;
      const [x, y, w, h] = s.mask!.rect;
      const a = p.atlas;
      // image (x, y) -> texel (u: row, v: column): the rect's top-left texel and the step per image px
      const u0 = p.u / a.w, v0 = p.v / a.h, du = h ? p.tw / a.w / h : 0, dv = w ? p.th / a.h / w : 0;
      // two triangles over the rect; corners (-1 / 1) let the shader grow it for the halo (+-2: dashed)
      const grow = s.dashed ? 2 : 1;
      const corners = [0, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 1];
      for (let k = 0; k < 6; k++) {
        const o = (n + k) * MASK_STRIDE, cx = corners[2 * k]!, cy = corners[2 * k + 1]!;
        v.set([x + cx * w, y + cy * h, (cx * 2 - 1) * grow, (cy * 2 - 1) * grow, x, y, x + w, y + h, u0, v0, du, dv, s.color, s.slot], o);
      }
      const last = runs[runs.length - 1];
      if (last && last.atlas === a) last.count += 6;
      else runs.push({ atlas: a, offset: n, count: 6 });
      n += 6;
    }
    this.buf(v.subarray(0, n * MASK_STRIDE));
    this.runs = runs;
  }

  dispose(): void {
    this.atlases.dispose();
  }
}
