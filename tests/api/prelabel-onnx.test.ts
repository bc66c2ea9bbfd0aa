// A pre-label job with the organization's own ONNX model (issue 34): Ultralytics-layout YOLO graphs
// built in the test (tests/fixtures/onnx.ts) whose outputs are constants, so what the job saves is
// known exactly: the letterbox undone (a 640 x 320 image in a 320 square: scale 0.5, 80 px of
// padding above and below), the best class per anchor, the min score, non-maximum suppression,
// YOLOv8 and YOLOv5 layouts, and a segment model's masks (coefficients x prototypes cropped to the
// box) stored as RLE. The model runs on the job's offload thread (onnxruntime-node), never in a request.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';
import { yoloTestModel } from '../fixtures/onnx';
import { rleArea, rleBBox, type Rle } from '../../src/contract/rle';

let server: TestServer;
let owner: Member;
let projectId: string;
let imageId: string;

const SIZE = 320;

async function activeModel(bytes: Uint8Array, name: string): Promise<string> {
  const res = await api(server.url, 'POST', '/api/v1/models', { token: owner.token, body: { organization_id: owner.org.id, name, source: 'onnx', filename: 'yolo.onnx', size: bytes.length } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect((await fetch(res.body.upload_url, { method: 'PUT', headers: { 'content-type': res.body.content_type }, body: Buffer.from(bytes) })).status).toBe(200);
  const act = await api(server.url, 'POST', `/api/v1/models/${res.body.model.id}/activate`, { token: owner.token });
  expect(act.status, JSON.stringify(act.body)).toBe(200);
  return res.body.model.id;
}

async function runJob(modelId: string, extra: Record<string, unknown> = {}) {
  const started = await api(server.url, 'POST', `/api/v1/projects/${projectId}/prelabel`, { token: owner.token, body: { model_id: modelId, image_ids: [imageId], skip_annotated: false, ...extra } });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  for (let i = 0; i < 600; i++) {
    const res = await api(server.url, 'GET', `/api/v1/prelabel/${started.body.job_id}`, { token: owner.token });
    if (!['queued', 'running'].includes(res.body.status)) return { job: res.body, prefix: `pl-${started.body.job_id}-` };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the job did not end');
}

async function predictionsOf(prefix: string) {
  const res = await api(server.url, 'GET', `/api/v1/annotations/load-data/${imageId}?project_id=${projectId}`, { token: owner.token });
  expect(res.status).toBe(200);
  return (res.body.annotations as { id: string; name: string; bounding_box: object; segmentation?: Rle; source: object }[]).filter((a) => a.id.startsWith(prefix));
}

/** Anchors as [cx, cy, w, h, ...class scores, ...mask coefficients] in input pixels, in the v8 layout [1, 4 + classes + masks, anchors] or v5's [1, anchors, 5 + classes + masks] (objectness 1). */
function output0(anchors: number[][], layout: 'yolov8' | 'yolov5'): Float32Array {
  if (layout === 'yolov5') return Float32Array.from(anchors.flatMap(([cx, cy, w, h, ...rest]) => [cx!, cy!, w!, h!, 1, ...rest]));
  const per = anchors[0]!.length;
  const out = new Float32Array(per * anchors.length);
  anchors.forEach((row, a) => row.forEach((v, k) => (out[k * anchors.length + a] = v)));
  return out;
}

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
  projectId = (await createProject(server, owner, 'Own model')).id;
  const classes = [
    { name: 'car', type: 'box', color: '#ff0000' },
    { name: 'animal', type: 'box', color: '#00ff00' },
    { name: 'cell', tools: ['box', 'mask'], color: '#0000ff' },
  ];
  expect((await api(server.url, 'PATCH', `/api/v1/projects/${projectId}`, { token: owner.token, body: { classes } })).status).toBe(200);
  imageId = (await uploadImage(server, owner, projectId, 'wide.png', await png(640, 320))).id;
}, 120_000);

describe('an uploaded YOLO detect model', () => {
  // Input pixels; the image is scaled by 0.5 and sits 80 px down the square.
  const anchors = [
    [100, 160, 40, 80, 0.9, 0.1], // car: image box (160, 80) 80 x 160
    [102, 160, 40, 80, 0.8, 0.0], // the same car, lower: suppressed
    [250, 120, 60, 40, 0.2, 0.7], // dog: image box (440, 40) 120 x 80
    [50, 200, 20, 20, 0.3, 0.0], // under min_score 0.4
  ];
  it.each(['yolov8', 'yolov5'] as const)('%s layout: the boxes in the image pixels, best class, NMS, min score, class_map', async (layout) => {
    const modelId = await activeModel(yoloTestModel({ names: ['car', 'dog'], layout, size: SIZE, anchors: 4, output0: output0(anchors, layout) }), `detect ${layout}`);
    const { job, prefix } = await runJob(modelId, { class_map: { dog: 'animal' } });
    expect(job, JSON.stringify(job)).toMatchObject({ status: 'done', progress: { done: 1, total: 1 }, report: { images: 1, predictions: 2, skipped: [] } });
    const saved = await predictionsOf(prefix);
    expect(saved.map((a) => ({ name: a.name, box: a.bounding_box, source: a.source }))).toEqual([
      { name: 'car', box: { x: 160, y: 80, w: 80, h: 160 }, source: { model_id: modelId, score: 0.9, pending: true } },
      { name: 'animal', box: { x: 440, y: 40, w: 120, h: 80 }, source: { model_id: modelId, score: 0.7, pending: true } },
    ]);
  });
});

describe('an uploaded YOLO segment model', () => {
  it('each mask is its coefficients times the prototypes inside its box, stored as RLE; an empty mask is left out', async () => {
    const P = 80; // prototypes: 80 x 80 over the 320 input (4 input pixels each)
    const protos = new Float32Array(32 * P * P);
    for (let y = 0; y < P; y++) {
      for (let x = 0; x < P; x++) {
        protos[y * P + x] = x < 40 ? 10 : -10; // channel 0: the left half of the input
        protos[P * P + y * P + x] = 10; // channel 1: everywhere
      }
    }
    const coefs = (k: number | null) => Array.from({ length: 32 }, (_, i) => (i === k ? 1 : 0));
    const anchors = [
      [160, 160, 80, 80, 0.9, ...coefs(0)], // box input x 120..200: its mask stops at input x 160 (image x 320)
      [260, 160, 40, 40, 0.8, ...coefs(1)], // the whole box: image (480, 120) 80 x 80
      [60, 160, 40, 40, 0.85, ...coefs(null)], // no mask at all: left out
    ];
    const modelId = await activeModel(yoloTestModel({ names: ['cell'], kind: 'segment', size: SIZE, anchors: 3, protoSize: P, output0: output0(anchors, 'yolov8'), output1: protos }), 'segment');
    const { job, prefix } = await runJob(modelId);
    expect(job, JSON.stringify(job)).toMatchObject({ status: 'done', report: { images: 1, predictions: 2 } });
    const saved = await predictionsOf(prefix);
    expect(saved.map((a) => [a.name, (a.source as { score: number }).score])).toEqual([
      ['cell', 0.9],
      ['cell', 0.8],
    ]);
    const [half, whole] = saved.map((a) => a.segmentation!);
    expect(half!.size).toEqual([320, 640]);
    expect(rleBBox(half!)).toEqual({ x: 240, y: 80, width: 80, height: 160 });
    expect(rleArea(half!)).toBe(80 * 160);
    expect(saved[0]!.bounding_box).toEqual({ x: 240, y: 80, w: 80, h: 160 });
    expect(rleBBox(whole!)).toEqual({ x: 480, y: 120, width: 80, height: 80 });
    expect(rleArea(whole!)).toBe(80 * 80);
  });
});

describe('refusals', () => {
  it('a model not yet activated is 400 model_not_runnable', async () => {
    const res = await api(server.url, 'POST', '/api/v1/models', { token: owner.token, body: { organization_id: owner.org.id, name: 'later', source: 'onnx', filename: 'later.onnx', size: 100 } });
    expect(res.status).toBe(201);
    const refused = await api(server.url, 'POST', `/api/v1/projects/${projectId}/prelabel`, { token: owner.token, body: { model_id: res.body.model.id, all: true } });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('model_not_runnable');
    expect(refused.body.error).toMatch(/activate/);
  });
});
