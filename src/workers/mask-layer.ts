// The renderer's masks: RLE crops decoded by the wasm kernel in slices (12 ms at a time, so many
// masks never block camera updates), packed into the shared atlases (masks.ts), and one vertex
// buffer of their quads in z order, drawn as one draw per run of masks in the same atlas.
import type { Buffer, Regl } from 'regl';
import { loadKernels, type Kernels } from '../kernels';
import type { MaskEntry, Shape } from './cells';
import { MaskAtlases, type Atlas } from './masks';
import { MASK_STRIDE } from './programs';
import type { PackedScene } from './protocol';

type MaskRle = { size: [number, number]; counts: number[] | Uint32Array | string };
type Crop = { rect: [number, number, number, number]; data: Uint8Array };
/** A mask waiting for its decode carries its RLE. */
type PendingEntry = MaskEntry & { rle?: PackedScene['masks'][number] };

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
    s.mask = { place: null, rect: [0, 0, 0, 0] };
    (s.mask as PendingEntry).rle = rle;
    this.masks.push(s);
    this.masksSorted = false;
    this.queue.push(s);
  }

  drop(s: Shape): void {
    if (s.mask?.place) this.atlases.remove(s.mask.place);
    s.mask = null;
    this.masksDirty = true; // the list drops maskless shapes when it is rebuilt
  }

  clear(): void {
    for (const s of new Set(this.masks)) if (s.mask?.place) this.atlases.remove(s.mask.place);
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
      if (!entry?.rle || !this.shapes.has(s.id)) continue;
      try {
        const { rect, data } = cropMask(this.kernels, entry.rle);
        entry.place = this.atlases.add(rect[3], rect[2], data);
        entry.rect = rect;
        delete entry.rle;
        this.masksDirty = true;
      } catch (err) {
        console.error('Error rendering mask:', err);
      }
    }
    this.decodeMs += performance.now() - t0;
    this.requestFrame();
    if (this.queue.length) setTimeout(() => this.decode(), 0);
  }

  /** The draws of the masks (rebuilding their quads first when they changed). */
  draws(): { tex: Atlas['tex']; offset: number; count: number }[] {
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
      // two triangles over the rect; corners (-1 / 1) let the shader grow it for the halo
      const corners = [0, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 1];
      for (let k = 0; k < 6; k++) {
        const o = (n + k) * MASK_STRIDE, cx = corners[2 * k]!, cy = corners[2 * k + 1]!;
        v.set([x + cx * w, y + cy * h, cx * 2 - 1, cy * 2 - 1, x, y, x + w, y + h, u0, v0, du, dv, s.color, s.slot], o);
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
