// Object detection as an offload thread runs it (src/server/offload: task `detectObjects`): TF.js on
// its WebAssembly backend (CPU, no native download: the .wasm files come from node_modules), one
// loaded graph per model per thread, kept for the thread's next image. Never imported by the request
// thread: TF.js and the weights stay off the event loop and out of its heap.
import fs from 'node:fs';
import path from 'node:path';
import type { GraphModel } from '@tensorflow/tfjs-converter';
import type { Detection, DetectOptions, DetectorSpec } from './detector-spec';

type Tf = typeof import('@tensorflow/tfjs-core');
type Tensor = import('@tensorflow/tfjs-core').Tensor;

let runtime: Promise<{ tf: Tf; loadGraphModel: typeof import('@tensorflow/tfjs-converter').loadGraphModel }> | null = null;
const loaded = new Map<string, Promise<GraphModel>>();

function tfjs() {
  runtime ??= (async () => {
    const tf = await import('@tensorflow/tfjs-core');
    await import('@tensorflow/tfjs-backend-wasm');
    const { loadGraphModel } = await import('@tensorflow/tfjs-converter');
    if (!(await tf.setBackend('wasm'))) throw new Error('TF.js WebAssembly backend did not start');
    await tf.ready();
    return { tf, loadGraphModel };
  })();
  return runtime;
}

interface WeightsGroup {
  paths: string[];
  weights: unknown[];
}

/** The graph model from its JSON and the weight files beside it, read from disk (TF.js's own loaders would fetch). */
async function loadModel(spec: DetectorSpec): Promise<GraphModel> {
  const { tf, loadGraphModel } = await tfjs();
  const dir = path.dirname(spec.modelJson);
  const json = JSON.parse(await fs.promises.readFile(spec.modelJson, 'utf8')) as { modelTopology: object; weightsManifest: WeightsGroup[] };
  const groups = json.weightsManifest;
  const parts = await Promise.all(groups.flatMap((g) => g.paths.map((p) => fs.promises.readFile(path.join(dir, path.basename(p))))));
  const weights = Buffer.concat(parts);
  const weightData = weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength) as ArrayBuffer;
  const weightSpecs = groups.flatMap((g) => g.weights) as Parameters<typeof tf.io.fromMemory>[1];
  return loadGraphModel(tf.io.fromMemory({ modelTopology: json.modelTopology, weightSpecs, weightData }));
}

/** The model of `spec`, loaded once per thread. */
function modelFor(spec: DetectorSpec): Promise<GraphModel> {
  let m = loaded.get(spec.id);
  if (!m) {
    m = loadModel(spec);
    m.catch(() => loaded.delete(spec.id));
    loaded.set(spec.id, m);
  }
  return m;
}

/** Whether this thread has the model loaded (the bench checks a second image does not load it again). */
export function detectorLoaded(id: string): boolean {
  return loaded.has(id);
}

const iou = (a: Detection['box'], b: Detection['box']) => {
  const x1 = Math.max(a[0], b[0]);
  const y1 = Math.max(a[1], b[1]);
  const x2 = Math.min(a[0] + a[2], b[0] + b[2]);
  const y2 = Math.min(a[1] + a[3], b[1] + b[3]);
  const inter = Math.max(0, x2 - x1) * Math.max(0, y2 - y1);
  const union = a[2] * a[3] + b[2] * b[3] - inter;
  return union > 0 ? inter / union : 0;
};

/** Greedy non-maximum suppression per class, best score first, at most `max` kept. */
export function suppress<T extends Detection>(candidates: T[], opts: DetectOptions): T[] {
  const kept: T[] = [];
  for (const d of [...candidates].sort((a, b) => b.score - a.score)) {
    if (kept.length >= opts.maxDetections) break;
    if (kept.every((k) => k.classIndex !== d.classIndex || iou(k.box, d.box) <= opts.iouThreshold)) kept.push(d);
  }
  return kept;
}

/** CenterNet's `detections` output: up to 100 rows of [x1, y1, x2, y2, score, class] in input pixels. */
function centerNetCandidates(rows: number[][], scaleX: number, scaleY: number, minScore: number): Detection[] {
  const out: Detection[] = [];
  for (const [x1, y1, x2, y2, score, cls] of rows as [number, number, number, number, number, number][]) {
    if (!(score >= minScore) || x2 <= x1 || y2 <= y1) continue;
    out.push({ classIndex: Math.round(cls), score, box: [x1 * scaleX, y1 * scaleY, (x2 - x1) * scaleX, (y2 - y1) * scaleY] });
  }
  return out;
}

/** NanoDet's heads: per grid cell, 80 class scores and 4 x 11 distance bins (left, top, right, bottom), whose softmax expectation times the stride is the distance. */
function nanoDetCandidates(outputs: { shape: number[]; data: Float32Array }[], inputSize: number, scaleX: number, scaleY: number, minScore: number): Detection[] {
  const out: Detection[] = [];
  for (const scores of outputs.filter((o) => o.shape[2] === 80)) {
    const cells = scores.shape[1]!;
    const reg = outputs.find((o) => o.shape[1] === cells && o.shape[2] !== 80);
    if (!reg) continue;
    const bins = reg.shape[2]! / 4;
    const grid = Math.round(Math.sqrt(cells));
    const stride = inputSize / grid;
    for (let i = 0; i < cells; i++) {
      for (let c = 0; c < 80; c++) {
        const score = scores.data[i * 80 + c]!;
        if (!(score >= minScore)) continue;
        const d = [0, 1, 2, 3].map((side) => {
          const at = i * reg.shape[2]! + side * bins;
          let max = -Infinity;
          for (let b = 0; b < bins; b++) max = Math.max(max, reg.data[at + b]!);
          let sum = 0;
          let mean = 0;
          for (let b = 0; b < bins; b++) {
            const e = Math.exp(reg.data[at + b]! - max);
            sum += e;
            mean += e * b;
          }
          return (mean / sum) * stride;
        });
        const cx = ((i % grid) + 0.5) * stride;
        const cy = (Math.floor(i / grid) + 0.5) * stride;
        const x1 = Math.max(0, cx - d[0]!);
        const y1 = Math.max(0, cy - d[1]!);
        const x2 = Math.min(inputSize, cx + d[2]!);
        const y2 = Math.min(inputSize, cy + d[3]!);
        if (x2 > x1 && y2 > y1) out.push({ classIndex: c, score, box: [x1 * scaleX, y1 * scaleY, (x2 - x1) * scaleX, (y2 - y1) * scaleY] });
      }
    }
  }
  return out;
}

/**
 * Runs the detector on one image. `rgb` is the image already resized to the model's input square
 * (inputSize x inputSize x 3, by sharp on the request side); boxes come back in the image's own
 * pixels (`width` x `height`).
 */
export async function detectObjects(spec: DetectorSpec, rgb: Uint8Array, width: number, height: number, opts: DetectOptions): Promise<Detection[]> {
  const { tf } = await tfjs();
  const model = await modelFor(spec);
  const size = spec.inputSize;
  if (rgb.length !== size * size * 3) throw new Error(`detectObjects: expected ${size}x${size} RGB pixels, got ${rgb.length} bytes`);
  const scaleX = width / size;
  const scaleY = height / size;
  if (spec.decoder === 'centernet') {
    const input = tf.tidy(() => tf.cast(tf.tensor4d(rgb, [1, size, size, 3], 'int32'), 'float32'));
    const out = model.execute(input, ['tower_0/detections']) as Tensor;
    const rows = ((await out.array()) as number[][][])[0]!;
    tf.dispose([input, out]);
    return suppress(centerNetCandidates(rows, scaleX, scaleY, opts.minScore), opts);
  }
  const input = tf.tidy(() => tf.transpose(tf.div(tf.cast(tf.tensor4d(rgb, [1, size, size, 3], 'int32'), 'float32'), 255), [0, 3, 1, 2]));
  const outs = model.execute(input) as Tensor[];
  const read = await Promise.all(outs.map(async (t) => ({ shape: t.shape, data: (await t.data()) as Float32Array })));
  tf.dispose([input, ...outs]);
  return suppress(nanoDetCandidates(read, size, scaleX, scaleY, opts.minScore), opts);
}
