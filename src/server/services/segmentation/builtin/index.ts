// The built-in backend: classical interactive segmentation on the wasm kernels (see algorithm.ts),
// falling back to the TypeScript references when the wasm module is not built.
import type { Embedding, LoadedImage, Points, Prediction, Segmenter } from '../types';
import { buildStructure, segment, type SegmentOps, type Structure } from './algorithm';
import { referenceOps } from './reference-ops';
import { focusFor, focusRegion, sampleMask, superpixelFlags, type Focus, type Rect } from './focus';
import { refineBoundary, type CropMask } from './refine';
import { foregroundBox, type PixelBox } from '../maskBox';

export interface BuiltinEmbedding extends Embedding {
  structure: Structure;
  /** the working copy's RGB and the original-size RGB (when larger), for edge refinement */
  work?: Uint8Array;
  full?: Uint8Array;
  /** the focus crop of the last small-object prediction, reused while clicks stay inside it */
  focus?: Focus;
  /** original size */
  width: number;
  height: number;
}

/** Longest side of the working copy: superpixels and the cut run here, the mask maps back to full size. */
export const BUILTIN_MAX_SIDE = 1024;

export class BuiltinSegmenter implements Segmenter<BuiltinEmbedding> {
  readonly name = 'builtin' as const;
  readonly maxSide = BUILTIN_MAX_SIDE;
  readonly wantsFullRes = true;
  private ops: SegmentOps | null = null;
  private loading: Promise<void> | null = null;

  /**
   * `structureOf` builds the per-image structure elsewhere (the server passes the offload pool's
   * thread, so a 12 MP process-image never holds the request thread); without it, it is built here.
   */
  constructor(
    private readonly loadOps: () => Promise<SegmentOps> = async () => referenceOps,
    private readonly structureOf?: (rgb: Uint8Array, w: number, h: number) => Promise<Structure>,
  ) {}

  warmup(): Promise<void> {
    this.loading ??= this.loadOps().then(
      (ops) => {
        this.ops = ops;
      },
      () => {
        this.ops = referenceOps; // the references compute the same masks, only slower
      },
    );
    return this.loading;
  }

  status() {
    return { loaded: this.ops !== null, loading: this.ops === null && this.loading !== null };
  }

  private async opsReady(): Promise<SegmentOps> {
    await this.warmup();
    return this.ops!;
  }

  async embed(image: LoadedImage): Promise<BuiltinEmbedding> {
    const ops = await this.opsReady();
    let structure: Structure;
    if (this.structureOf) {
      structure = await this.structureOf(image.rgb, image.w, image.h);
      // refine() reads both on every click: kept in this thread's wasm memory, as buildStructure does.
      ops.pin?.(structure.labels);
      ops.pin?.(structure.bins);
    } else structure = buildStructure(ops, image.rgb, image.w, image.h, 3);
    const full = image.full;
    return {
      structure,
      width: image.width,
      height: image.height,
      ...(full ? { work: image.rgb, full } : {}),
      bytes: structure.bytes + (full ? full.byteLength + image.rgb.byteLength : 0),
    };
  }

  async predict(e: BuiltinEmbedding, points: Points, previous?: unknown): Promise<Prediction> {
    const ops = await this.opsReady();
    const st = e.structure;
    const prev = isState(previous) && previous.mask.length === st.w * st.h ? previous : null;
    const focused = this.predictFocused(ops, e, points, prev);
    if (focused) return focused;
    const sx = st.w / e.width, sy = st.h / e.height;
    const toWork = (p: [number, number]) => [p[0] * sx, p[1] * sy] as [number, number];
    const out = segment(ops, st, {
      positive: points.positive.map(toWork),
      negative: points.negative.map(toWork),
      ...(prev ? { previous: prev.spFg ?? superpixelFlags(st, prev.mask), previousMask: prev.mask, previousBox: prev.box } : {}),
      ...(points.box ? { box: [points.box[0] * sx, points.box[1] * sy, (points.box[0] + points.box[2]) * sx, (points.box[1] + points.box[3]) * sy] as const } : {}),
    });
    const fine = e.full && e.work ? refineBoundary(out.mask, st.w, st.h, e.work, e.full, e.width, e.height, out.box) : null;
    const state: BuiltinState = { spFg: out.spFg, mask: out.mask, box: out.box };
    return { mask: { data: out.mask, gw: st.w, gh: st.h }, fine, score: out.score, state };
  }

  /**
   * The cut on a crop around a small object (see focus.ts), or null when there is nothing to zoom
   * on yet (a first click) or the object is not small. The source is the original-size copy when
   * there is one, else the working copy.
   */
  private predictFocused(ops: SegmentOps, e: BuiltinEmbedding, points: Points, prev: BuiltinState | null): Prediction | null {
    const st = e.structure;
    const [src, sw, sh] = e.full ? [e.full, e.width, e.height] : [st.rgb, st.w, st.h];
    const ss = sw / e.width; // source pixels per original pixel
    const whole: Rect = [0, 0, sw, sh];
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    const add = (x: number, y: number) => {
      x0 = Math.min(x0, x);
      y0 = Math.min(y0, y);
      x1 = Math.max(x1, x + 1);
      y1 = Math.max(y1, y + 1);
    };
    const box = prev ? prev.box : null;
    if (box) {
      add((box.x0 * sw) / st.w, (box.y0 * sh) / st.h);
      add(((box.x1 + 1) * sw) / st.w - 1, ((box.y1 + 1) * sh) / st.h - 1);
    }
    if (points.box) {
      add(points.box[0] * ss, points.box[1] * ss);
      add((points.box[0] + points.box[2]) * ss - 1, (points.box[1] + points.box[3]) * ss - 1);
    }
    if (!Number.isFinite(x0)) return null;
    // Positive clicks widen the focus; a negative click outside it says nothing about the object there.
    for (const [x, y] of points.positive) add(x * ss, y * ss);
    const region = focusRegion([x0, y0, x1, y1], sw, sh);
    if (!region) return null;
    const f = focusFor(ops, e.focus, region, src, sw);
    if (f !== e.focus) {
      // The crop's structure lives with the embedding: the cache's bound counts it.
      e.bytes += f.st.bytes - (e.focus?.st.bytes ?? 0);
      e.focus = f;
    }
    const toCrop = (p: [number, number]) => [(p[0] * ss - f.rect[0]) * f.scale, (p[1] * ss - f.rect[1]) * f.scale] as [number, number];
    const cw = f.st.w, ch = f.st.h;
    let previousMask: Uint8Array | undefined;
    if (prev?.focus?.at === f) previousMask = prev.focus.mask; // the crop's own mask, not its blocky working copy
    else if (prev) {
      previousMask = new Uint8Array(cw * ch);
      sampleMask(prev.mask, st.w, st.h, whole, previousMask, cw, ch, f.rect);
    }
    const out = segment(ops, f.st, {
      positive: points.positive.map(toCrop),
      negative: points.negative.map(toCrop).filter(([x, y]) => x >= 0 && y >= 0 && x < cw && y < ch),
      ...(previousMask ? { previous: superpixelFlags(f.st, previousMask), previousMask } : {}),
      ...(points.box ? { box: [...toCrop([points.box[0], points.box[1]]), ...toCrop([points.box[0] + points.box[2], points.box[1] + points.box[3]])] as const } : {}),
    });
    const mask = new Uint8Array(st.w * st.h);
    sampleMask(out.mask, cw, ch, f.rect, mask, st.w, st.h, whole);
    const maskBox = foregroundBox(mask, st.w, st.h);
    let fine: CropMask | null = null;
    if (e.full) {
      const [rx0, ry0, rx1, ry1] = f.rect, rw = rx1 - rx0, rh = ry1 - ry0;
      if (f.scale < 1) {
        // The crop is coarser than the original: its edge is refined at full resolution as the whole-image path does.
        const region = new Uint8Array(rw * rh * 3);
        for (let y = 0; y < rh; y++) region.set(e.full.subarray(((ry0 + y) * e.width + rx0) * 3, ((ry0 + y) * e.width + rx1) * 3), y * rw * 3);
        const r = refineBoundary(out.mask, cw, ch, f.st.rgb, region, rw, rh);
        fine = r ? { ...r, x0: r.x0 + rx0, y0: r.y0 + ry0 } : null;
      } else {
        fine = { data: new Uint8Array(rw * rh), x0: rx0, y0: ry0, w: rw, h: rh };
        sampleMask(out.mask, cw, ch, f.rect, fine.data, rw, rh, f.rect);
      }
    }
    return { mask: { data: mask, gw: st.w, gh: st.h }, fine, score: out.score, state: { mask, box: maskBox, focus: { at: f, mask: out.mask } } satisfies BuiltinState };
  }
}

/** What a prediction hands to the next one: the superpixel labels and the working-resolution mask. */
interface BuiltinState {
  /** the working structure's superpixel labels, when the cut ran on it (not on a focus crop) */
  spFg?: Uint8Array;
  mask: Uint8Array;
  /** the mask's foreground box (null: empty) */
  box: PixelBox | null;
  /** the mask on the focus crop it was cut on */
  focus?: { at: Focus; mask: Uint8Array };
}

function isState(v: unknown): v is BuiltinState {
  return typeof v === 'object' && v !== null && (v as BuiltinState).mask instanceof Uint8Array && 'box' in v;
}
