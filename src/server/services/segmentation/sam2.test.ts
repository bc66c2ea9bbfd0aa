// The SAM2 backend's loading and pre/post-processing, on tiny ONNX graphs with SAM2's input and
// output names (tests/fixtures/onnx.ts): the image is scaled to the encoder's 1024 x 1024 input,
// points are mapped into it, the best mask maps back onto the original image as COCO RLE.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sam2TestModels } from '../../../../tests/fixtures/onnx';
import { iou } from '../../../../tests/fixtures/segmentation';
import { loadKernelsNode, type Kernels } from '../../../kernels/node';
import { buildKernels } from '../../../../assembly/build.mjs';
import { Sam2Segmenter } from './sam2';
import { maskResult } from './result';
import type { LoadedImage } from './types';

let dir: string;
let k: Kernels;
const W = 300, H = 200;

/** Dark image with a bright rectangle x 100..200, y 50..150 (exclusive ends). */
function scene(): { image: LoadedImage; truth: Uint8Array } {
  const rgb = new Uint8Array(W * H * 3).fill(20);
  const truth = new Uint8Array(W * H);
  for (let y = 50; y < 150; y++) for (let x = 100; x < 200; x++) {
    truth[y * W + x] = 1;
    rgb.fill(240, (y * W + x) * 3, (y * W + x) * 3 + 3);
  }
  return { image: { width: W, height: H, w: W, h: H, rgb }, truth };
}

beforeAll(async () => {
  await buildKernels({ quiet: true });
  k = await loadKernelsNode();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vellum-sam2-'));
  const { encoder, decoder } = sam2TestModels();
  fs.writeFileSync(path.join(dir, 'sam2_encoder.onnx'), encoder);
  fs.writeFileSync(path.join(dir, 'sam2_decoder.onnx'), decoder);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('Sam2Segmenter', () => {
  it('loads the encoder and decoder and segments by the decoder\'s best mask', async () => {
    const sam = new Sam2Segmenter(dir);
    await sam.warmup();
    expect(sam.status()).toMatchObject({ loaded: true });
    const { image, truth } = scene();
    const e = await sam.embed(image);
    expect(e.features.image_embed!.dims).toEqual([1, 1, 1024, 1024]);
    expect(e.bytes).toBe(2 * 1024 * 1024 * 4);
    const p = await sam.predict(e, { positive: [[120, 60]], negative: [] });
    // iou_predictions = mean of the points in the 1024 x 1024 input / 1024: (409.6 + 307.2) / 2 / 1024.
    expect(p.score).toBeCloseTo(0.35, 4);
    expect([p.mask.gw, p.mask.gh]).toEqual([1024, 1024]);
    const r = maskResult(k, p.mask, W, H);
    const col = k.decode({ size: [H, W], counts: r.counts });
    const rows = new Uint8Array(W * H);
    for (let x = 0; x < W; x++) for (let y = 0; y < H; y++) rows[y * W + x] = col[x * H + y]!;
    expect(iou(rows, truth)).toBeGreaterThan(0.97);
    expect(r.bbox[0]).toBeCloseTo(100, -0.5);
    expect(r.bbox[2]).toBeCloseTo(100, -0.5);
    await sam.close();
  });

  it('a negative-only decoder answer (labels all 0) gives an empty mask', async () => {
    const sam = new Sam2Segmenter(dir);
    const e = await sam.embed(scene().image);
    const p = await sam.predict(e, { positive: [], negative: [[10, 10]] });
    expect(p.mask.data.some((v) => v !== 0)).toBe(false);
  });

  it('reports a missing model directory instead of throwing at start', async () => {
    const sam = new Sam2Segmenter(path.join(dir, 'nowhere'));
    await sam.warmup();
    const st = sam.status();
    expect(st.loaded).toBe(false);
    expect(st.error).toMatch(/sam2_encoder\.onnx/);
  });
});
