// SAM2 over ONNX (onnxruntime-node, CPU). Loaded only when SEGMENTER=sam2 / SAM2_MODEL_DIR is
// set (services/segmentation/index.ts imports this file dynamically), so the app runs without the
// onnxruntime-node package.
//
// SAM2_MODEL_DIR holds two files (docs/segmentation.md), as exported by the common SAM2
// ONNX exporters (e.g. ibaiGorordo/ONNX-SAM2-Segment-Anything, vietanhdev/samexporter):
//   sam2_encoder.onnx (or encoder.onnx)
//     in:  image            float32 [1, 3, 1024, 1024]  RGB, ImageNet mean/std normalised
//     out: image_embed      float32 [1, 256, 64, 64]
//          high_res_feats_0 float32 [1, 32, 256, 256]
//          high_res_feats_1 float32 [1, 64, 128, 128]
//   sam2_decoder.onnx (or decoder.onnx)
//     in:  image_embed, high_res_feats_0, high_res_feats_1 (the encoder's outputs, by name),
//          point_coords     float32 [1, N, 2]  in the 1024 x 1024 input's pixels
//          point_labels     float32 [1, N]     1 positive, 0 negative
//          mask_input       float32 [1, 1, 256, 256]  previous low-res logits (zeros if none)
//          has_mask_input   float32 [1]
//          orig_im_size     (optional) [2] height, width; float32 or int64 as the model declares
//     out: masks            float32 [1, K, H', W'] logits over the whole image (any H', W')
//          iou_predictions  float32 [1, K]     the best of the K masks is used
//          low_res_masks    (optional) [1, K, 256, 256], fed back as mask_input next time
// The image is resized to 1024 x 1024 without keeping its aspect ratio (as those exporters' own
// pipelines do), so mask grids and point coordinates map to the image by plain scaling.
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import type { Embedding, LoadedImage, Points, Prediction, Segmenter } from './types';

type Ort = typeof import('onnxruntime-node');
type Session = import('onnxruntime-node').InferenceSession;
type Tensor = import('onnxruntime-node').Tensor;

export const SAM2_INPUT = 1024;
const MEAN = [0.485, 0.456, 0.406];
const STD = [0.229, 0.224, 0.225];
export const ENCODER_FILES = ['sam2_encoder.onnx', 'encoder.onnx'];
export const DECODER_FILES = ['sam2_decoder.onnx', 'decoder.onnx'];

export interface Sam2Embedding extends Embedding {
  width: number;
  height: number;
  /** encoder outputs by name */
  features: Record<string, Tensor>;
}

function find(dir: string, names: string[]): string {
  for (const n of names) {
    const p = path.join(dir, n);
    if (fs.existsSync(p)) return p;
  }
  throw new Error(`SAM2_MODEL_DIR (${dir}) has none of ${names.join(', ')}`);
}

/** RGB (any size) -> the encoder's normalised CHW tensor data. */
export async function sam2Input(image: LoadedImage): Promise<Float32Array> {
  const { data } = await sharp(Buffer.from(image.rgb.buffer, image.rgb.byteOffset, image.rgb.byteLength), { raw: { width: image.w, height: image.h, channels: 3 } })
    .resize(SAM2_INPUT, SAM2_INPUT, { fit: 'fill' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const n = SAM2_INPUT * SAM2_INPUT;
  const out = new Float32Array(3 * n);
  for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) out[c * n + i] = (data[i * 3 + c]! / 255 - MEAN[c]!) / STD[c]!;
  return out;
}

export class Sam2Segmenter implements Segmenter<Sam2Embedding> {
  readonly name = 'sam2' as const;
  /** The encoder sees 1024 x 1024; a 2048 copy keeps the resize to it sharp. */
  readonly maxSide = 2048;
  private ort: Ort | null = null;
  private encoder: Session | null = null;
  private decoder: Session | null = null;
  private loading: Promise<void> | null = null;
  private error: string | undefined;

  constructor(private readonly dir: string) {}

  warmup(): Promise<void> {
    this.loading ??= (async () => {
      try {
        this.ort = await import('onnxruntime-node');
        const opts = { executionProviders: ['cpu'], graphOptimizationLevel: 'all' as const };
        this.encoder = await this.ort.InferenceSession.create(find(this.dir, ENCODER_FILES), opts);
        this.decoder = await this.ort.InferenceSession.create(find(this.dir, DECODER_FILES), opts);
        for (const name of ['point_coords', 'point_labels']) {
          if (!this.decoder.inputNames.includes(name)) throw new Error(`The SAM2 decoder has no input "${name}" (inputs: ${this.decoder.inputNames.join(', ')})`);
        }
        if (!this.decoder.outputNames.includes('masks')) throw new Error(`The SAM2 decoder has no output "masks" (outputs: ${this.decoder.outputNames.join(', ')})`);
      } catch (err) {
        this.error = (err as Error).message;
        this.loading = null;
        this.encoder = this.decoder = null;
      }
    })();
    return this.loading;
  }

  status() {
    return { loaded: this.decoder !== null, loading: this.loading !== null && this.decoder === null, error: this.error };
  }

  async embed(image: LoadedImage): Promise<Sam2Embedding> {
    await this.warmup();
    if (!this.encoder || !this.ort) throw new Error(this.error ?? 'SAM2 is not loaded');
    const input = new this.ort.Tensor('float32', await sam2Input(image), [1, 3, SAM2_INPUT, SAM2_INPUT]);
    const out = await this.encoder.run({ [this.encoder.inputNames[0]!]: input });
    let bytes = 0;
    for (const t of Object.values(out)) bytes += (t.data as Float32Array).byteLength ?? 0;
    return { width: image.width, height: image.height, features: out, bytes };
  }

  async predict(e: Sam2Embedding, points: Points, previous?: unknown): Promise<Prediction> {
    if (!this.decoder || !this.ort) throw new Error(this.error ?? 'SAM2 is not loaded');
    const ort = this.ort, dec = this.decoder;
    const all: (readonly [[number, number], number])[] = [...points.positive.map((p) => [p, 1] as const), ...points.negative.map((p) => [p, 0] as const)];
    // SAM's prompt encoder takes a box as its two corners labelled 2 (top-left) and 3 (bottom-right).
    if (points.box) {
      const [x, y, w, h] = points.box;
      all.push([[x, y], 2], [[x + w, y + h], 3]);
    }
    const coords = new Float32Array(all.length * 2), labels = new Float32Array(all.length);
    all.forEach(([[x, y], l], i) => {
      coords[i * 2] = (x * SAM2_INPUT) / e.width;
      coords[i * 2 + 1] = (y * SAM2_INPUT) / e.height;
      labels[i] = l;
    });
    const prev = previous instanceof Float32Array && previous.length === 256 * 256 ? previous : null;
    const feeds: Record<string, Tensor> = {};
    for (const name of dec.inputNames) {
      if (e.features[name]) feeds[name] = e.features[name]!;
    }
    feeds.point_coords = new ort.Tensor('float32', coords, [1, all.length, 2]);
    feeds.point_labels = new ort.Tensor('float32', labels, [1, all.length]);
    if (dec.inputNames.includes('mask_input')) feeds.mask_input = new ort.Tensor('float32', prev ?? new Float32Array(256 * 256), [1, 1, 256, 256]);
    if (dec.inputNames.includes('has_mask_input')) feeds.has_mask_input = new ort.Tensor('float32', new Float32Array([prev ? 1 : 0]), [1]);
    if (dec.inputNames.includes('orig_im_size')) {
      const meta = dec.inputMetadata?.find((m) => m.name === 'orig_im_size');
      const int64 = meta && meta.isTensor && meta.type === 'int64';
      feeds.orig_im_size = int64 ? new ort.Tensor('int64', BigInt64Array.from([BigInt(e.height), BigInt(e.width)]), [2]) : new ort.Tensor('float32', Float32Array.from([e.height, e.width]), [2]);
    }
    const out = await dec.run(feeds);
    const masks = out.masks!;
    const [, k = 1, gh = 0, gw = 0] = masks.dims as number[];
    const ious = out.iou_predictions ? (out.iou_predictions.data as Float32Array) : new Float32Array(k).fill(1);
    let best = 0;
    for (let i = 1; i < k; i++) if (ious[i]! > ious[best]!) best = i;
    const logits = (masks.data as Float32Array).subarray(best * gh * gw, (best + 1) * gh * gw);
    const data = new Uint8Array(gh * gw);
    for (let i = 0; i < data.length; i++) data[i] = logits[i]! > 0 ? 1 : 0;
    let state: Float32Array | undefined;
    const low = out.low_res_masks;
    if (low && (low.dims as number[]).slice(-2).join() === '256,256') state = (low.data as Float32Array).slice(best * 65536, (best + 1) * 65536);
    else if (gh === 256 && gw === 256) state = logits.slice();
    return { mask: { data, gw, gh }, logits: { data: logits, gw, gh }, score: Math.max(0, Math.min(1, ious[best] ?? 0)), state };
  }

  async close(): Promise<void> {
    await this.encoder?.release();
    await this.decoder?.release();
  }
}
