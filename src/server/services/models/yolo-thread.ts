// An organization's own ONNX model (an Ultralytics YOLOv5 / v8 / 11 detect or segment export, read
// at activation by onnx-meta.ts) as an offload thread runs it (src/server/offload: task
// `detectYolo`): onnxruntime-node on the CPU, one session per model file per thread, kept for the
// thread's next image. The request side letterboxes the image (detect.ts `letterboxPixels`); this
// file turns the graph's outputs into detections in the image's own pixels: best class per anchor,
// per-class non-maximum suppression, and for segment models each kept detection's mask (its
// coefficients times the prototypes, cropped to its box, upsampled as Ultralytics does) as a COCO
// RLE. Never imported by the request thread.
import { countsToString, RunBuilder } from '../../../contract/rle';
import type { Detection, DetectOptions } from './detector-spec';
import { suppress } from './detect-thread';

type Ort = typeof import('onnxruntime-node');
type Session = import('onnxruntime-node').InferenceSession;

/** What a thread needs to run an uploaded YOLO model: plain data, so it crosses as a task argument. */
export interface YoloSpec {
  /** the model's id: the session's cache key */
  id: string;
  /** the checked ONNX file on this machine's disk (registry.ts `onnxModelFile`) */
  file: string;
  kind: 'detect' | 'segment';
  /** number of classes (the metadata's names) */
  classes: number;
  /** the square side of the graph's input */
  inputSize: number;
}

/** How the image sits in the model's input square: scaled by scaleX / scaleY, then shifted by the padding. */
export interface Letterbox {
  width: number;
  height: number;
  scaleX: number;
  scaleY: number;
  padX: number;
  padY: number;
}

/** A detection; a segment model's also carries its mask, COCO RLE over the whole image. */
export interface YoloDetection extends Detection {
  rle?: { size: [number, number]; counts: string };
}

interface Output {
  dims: readonly number[];
  data: Float32Array;
}

let ort: Promise<Ort> | null = null;
const sessions = new Map<string, Promise<Session>>();

function sessionFor(spec: YoloSpec): Promise<Session> {
  let s = sessions.get(spec.file);
  if (!s) {
    ort ??= import('onnxruntime-node');
    // One thread per session: the offload pool already runs several tasks side by side.
    s = ort.then((o) => o.InferenceSession.create(spec.file, { executionProviders: ['cpu'], graphOptimizationLevel: 'all', intraOpNumThreads: 1, interOpNumThreads: 1 }));
    s.catch(() => sessions.delete(spec.file));
    sessions.set(spec.file, s);
  }
  return s;
}

/** Whether this thread holds the model's session (the bench checks a second image does not load it again). */
export function yoloLoaded(file: string): boolean {
  return sessions.has(file);
}

/** One anchor's best class over the min score, its box mapped back through the letterbox, and its mask coefficients. */
type Candidate = Detection & { coefs: Float32Array | null };

/**
 * The candidates of output0, in either layout: v8 / 11 [1, 4 + classes + masks, anchors] (class
 * scores already sigmoid), v5 [1, anchors, 5 + classes + masks] (score = objectness x class).
 */
export function yoloCandidates(out0: Output, spec: Pick<YoloSpec, 'classes' | 'kind'>, lb: Letterbox, minScore: number): Candidate[] {
  const nc = spec.classes;
  const masks = spec.kind === 'segment' ? 32 : 0;
  const [, d1, d2] = out0.dims as [number, number, number];
  const v8 = d1 === 4 + nc + masks;
  if (!v8 && d2 !== 5 + nc + masks) throw new Error(`output0 [${out0.dims.join(', ')}] does not hold ${nc} classes${masks ? ' and 32 mask coefficients' : ''}`);
  const anchors = v8 ? d2 : d1;
  const at = v8 ? (a: number, k: number) => out0.data[k * anchors + a]! : (a: number, k: number) => out0.data[a * d2 + k]!;
  const first = v8 ? 4 : 5;
  const out: Candidate[] = [];
  for (let a = 0; a < anchors; a++) {
    const objectness = v8 ? 1 : at(a, 4);
    let best = -1;
    let score = -Infinity;
    for (let c = 0; c < nc; c++) {
      const s = at(a, first + c) * objectness;
      if (s > score) [best, score] = [c, s];
    }
    if (!(score >= minScore)) continue;
    const [cx, cy, w, h] = [at(a, 0), at(a, 1), at(a, 2), at(a, 3)];
    const x1 = Math.max(0, (cx - w / 2 - lb.padX) / lb.scaleX);
    const y1 = Math.max(0, (cy - h / 2 - lb.padY) / lb.scaleY);
    const x2 = Math.min(lb.width, (cx + w / 2 - lb.padX) / lb.scaleX);
    const y2 = Math.min(lb.height, (cy + h / 2 - lb.padY) / lb.scaleY);
    if (!(x2 > x1 && y2 > y1)) continue;
    let coefs: Float32Array | null = null;
    if (masks) {
      coefs = new Float32Array(masks);
      for (let k = 0; k < masks; k++) coefs[k] = at(a, first + nc + k);
    }
    out.push({ classIndex: best, score, box: [x1, y1, x2 - x1, y2 - y1], coefs });
  }
  return out;
}

/**
 * A detection's mask as COCO RLE over the image: the logits (coefficients x prototypes) at the
 * prototypes' resolution, sampled bilinearly at each image pixel's centre inside the box, on where
 * the logit is above 0 (sigmoid above 0.5). Walks only the box, column by column, never a bitmap of
 * the image. Null when nothing of it is on.
 */
export function yoloMask(coefs: Float32Array, protos: Output, box: Detection['box'], lb: Letterbox, inputSize: number): YoloDetection['rle'] | null {
  const [, m, ph, pw] = protos.dims as [number, number, number, number];
  const logits = new Float32Array(ph * pw);
  for (let k = 0; k < m; k++) {
    const c = coefs[k]!;
    if (c === 0) continue;
    const plane = protos.data.subarray(k * ph * pw, (k + 1) * ph * pw);
    for (let i = 0; i < plane.length; i++) logits[i] += c * plane[i]!;
  }
  const W = lb.width, H = lb.height;
  const x0 = Math.max(0, Math.floor(box[0])), x1 = Math.min(W, Math.ceil(box[0] + box[2]));
  const y0 = Math.max(0, Math.floor(box[1])), y1 = Math.min(H, Math.ceil(box[1] + box[3]));
  const sample = (px: number, py: number) => {
    const fx = Math.min(Math.max(px, 0), pw - 1), fy = Math.min(Math.max(py, 0), ph - 1);
    const ix = Math.floor(fx), iy = Math.floor(fy);
    const jx = Math.min(ix + 1, pw - 1), jy = Math.min(iy + 1, ph - 1);
    const tx = fx - ix, ty = fy - iy;
    const row = (y: number) => logits[y * pw + ix]! * (1 - tx) + logits[y * pw + jx]! * tx;
    return row(iy) * (1 - ty) + row(jy) * ty;
  };
  const runs = new RunBuilder();
  runs.append(0, x0 * H);
  for (let x = x0; x < x1; x++) {
    const px = ((((x + 0.5) * lb.scaleX + lb.padX) * pw) / inputSize) - 0.5;
    runs.append(0, y0);
    for (let y = y0; y < y1; y++) runs.append(sample(px, ((((y + 0.5) * lb.scaleY + lb.padY) * ph) / inputSize) - 0.5) > 0 ? 1 : 0, 1);
    runs.append(0, H - y1);
  }
  runs.append(0, (W - x1) * H);
  const counts = runs.finish();
  return runs.area > 0 ? { size: [H, W], counts: countsToString(counts) } : null;
}

/**
 * Runs the model on one image. `rgb` is the letterboxed input square (inputSize x inputSize x 3,
 * by sharp on the request side); detections come back in the image's own pixels, a segment
 * model's with their masks (a detection whose mask is empty is left out).
 */
export async function detectYolo(spec: YoloSpec, rgb: Uint8Array, lb: Letterbox, opts: DetectOptions): Promise<YoloDetection[]> {
  const o = await (ort ??= import('onnxruntime-node'));
  const session = await sessionFor(spec);
  const size = spec.inputSize;
  const n = size * size;
  if (rgb.length !== n * 3) throw new Error(`detectYolo: expected ${size}x${size} RGB pixels, got ${rgb.length} bytes`);
  const chw = new Float32Array(n * 3);
  for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) chw[c * n + i] = rgb[i * 3 + c]! / 255;
  const input = new o.Tensor('float32', chw, [1, 3, size, size]);
  const result = await session.run({ [session.inputNames[0]!]: input });
  const read = (name: string | undefined): Output | null => {
    const t = name === undefined ? undefined : result[name];
    return t ? { dims: t.dims, data: t.data as Float32Array } : null;
  };
  const out0 = read(session.outputNames[0]);
  if (!out0) throw new Error('the model answered no output');
  const kept = suppress(yoloCandidates(out0, spec, lb, opts.minScore), opts);
  if (spec.kind === 'detect') return kept.map(({ classIndex, score, box }) => ({ classIndex, score, box }));
  const protos = read(session.outputNames[1]);
  if (!protos || protos.dims.length !== 4) throw new Error('the segment model answered no mask prototypes');
  const out: YoloDetection[] = [];
  for (const d of kept) {
    const rle = yoloMask(d.coefs!, protos, d.box, lb, size);
    if (rle) out.push({ classIndex: d.classIndex, score: d.score, box: d.box, rle });
  }
  return out;
}
