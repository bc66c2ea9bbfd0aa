// The built-in backend: classical interactive segmentation on the wasm kernels (see algorithm.ts),
// falling back to the TypeScript references when the wasm module is not built.
import type { Embedding, LoadedImage, Points, Prediction, Segmenter } from '../types';
import { buildStructure, segment, type SegmentOps, type Structure } from './algorithm';
import { referenceOps } from './reference-ops';
import { refineBoundary } from './refine';

export interface BuiltinEmbedding extends Embedding {
  structure: Structure;
  /** the working copy's RGB and the original-size RGB (when larger), for edge refinement */
  work?: Uint8Array;
  full?: Uint8Array;
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

  constructor(private readonly loadOps: () => Promise<SegmentOps> = async () => referenceOps) {}

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
    const structure = buildStructure(ops, image.rgb, image.w, image.h, 3);
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
    const sx = st.w / e.width, sy = st.h / e.height;
    const toWork = (p: [number, number]) => [p[0] * sx, p[1] * sy] as [number, number];
    const out = segment(ops, st, {
      positive: points.positive.map(toWork),
      negative: points.negative.map(toWork),
      previous: previous instanceof Uint8Array ? previous : undefined,
      ...(points.box ? { box: [points.box[0] * sx, points.box[1] * sy, (points.box[0] + points.box[2]) * sx, (points.box[1] + points.box[3]) * sy] as const } : {}),
    });
    const fine = e.full && e.work ? refineBoundary(out.mask, st.w, st.h, e.work, e.full, e.width, e.height) : null;
    return { mask: { data: out.mask, gw: st.w, gh: st.h }, fine, score: out.score, state: out.spFg };
  }
}
