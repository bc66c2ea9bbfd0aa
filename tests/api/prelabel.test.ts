// Pre-label jobs (issue 34 §2) with an HTTP model served by a local test server: validation (400
// validation_failed for each bad field, model_not_runnable), another organization's model (404),
// a folder with its sub-folders to done (class_map, min_score, skip_annotated, predictions saved
// pending through the normal save path with history, the images list's pending count and filter),
// create_missing_classes, cancel (409 once ended), and the resume after a worker died between a
// save and its mark (the state a crash leaves: the predictions are not doubled and the model is
// not asked again). Roles and other organizations for the three routes: permissions.table.ts.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, startServer, type TestServer } from './harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';
import { joinAs } from './team-harness';

let server: TestServer;
let model: http.Server;
let owner: Member;
let projectId: string;
let httpModelId: string;
const ids: Record<string, string> = {};
/** Calls the model received, by image width (each test image has its own width). */
const calls: number[] = [];
/** While set, the model holds its answers until the test releases them (the cancel test). */
let holdCalls = false;
const releaseHeld: (() => void)[] = [];

// The model answers by the image's width: every image gets these four predictions.
function answer(width: number) {
  return {
    predictions: [
      { class: 'car', score: 0.9, box: [1, 1, 10, 8] },
      { class: 'car', score: 0.3, box: [2, 2, 4, 4] },
      { class: 'dog', score: 0.8, box: [5, 5, width, 8] },
      { class: 'person', score: 0.7, polygon: [1, 1, 8, 1, 8, 9] },
    ],
  };
}

const WIDTHS: Record<string, [string, number]> = {
  'a.png': ['/street', 40],
  'b.png': ['/street/north', 41],
  'c.png': ['/other', 42],
  'd.png': ['/street', 43],
};

const prelabel = (body: Record<string, unknown>, token = owner.token, project = projectId) => api(server.url, 'POST', `/api/v1/projects/${project}/prelabel`, { token, body });
const jobOf = (id: string) => api(server.url, 'GET', `/api/v1/prelabel/${id}`, { token: owner.token });

async function finished(jobId: string) {
  for (let i = 0; i < 600; i++) {
    const res = await jobOf(jobId);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    if (!['queued', 'running'].includes(res.body.status)) return res.body;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`job ${jobId} did not end`);
}

const annotationsOf = async (name: string) => {
  const res = await api(server.url, 'GET', `/api/v1/annotations/load-data/${ids[name]}?project_id=${projectId}`, { token: owner.token });
  expect(res.status).toBe(200);
  return res.body.annotations as { id: string; name: string; source?: { model_id: string; score: number; pending: boolean } }[];
};

beforeAll(async () => {
  model = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { width } = JSON.parse(body) as { width: number };
      calls.push(width);
      const send = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer(width)));
      if (holdCalls) releaseHeld.push(send);
      else send();
    });
  });
  await new Promise<void>((r) => model.listen(0, '127.0.0.1', r));
  server = await startServer({ MODELS_ALLOW_PRIVATE_URLS: 'true' });
  owner = await onboardedUser(server);
  projectId = (await createProject(server, owner, 'Pre-label')).id;
  const classes = ['car', 'animal'].map((name) => ({ name, type: 'box', color: '#ff0000' }));
  expect((await api(server.url, 'PATCH', `/api/v1/projects/${projectId}`, { token: owner.token, body: { classes } })).status).toBe(200);
  for (const folder of ['street', 'other']) expect((await api(server.url, 'POST', '/api/folders/create', { token: owner.token, body: { project_id: projectId, name: folder } })).status).toBe(200);
  expect((await api(server.url, 'POST', '/api/folders/create', { token: owner.token, body: { project_id: projectId, name: 'north', parent_folder_path: '/street' } })).status).toBe(200);
  for (const [name, [folder, width]] of Object.entries(WIDTHS)) ids[name] = (await uploadImage(server, owner, projectId, name, await png(width, 30), { folder })).id;
  // d.png is annotated by hand already.
  const saved = await api(server.url, 'POST', '/api/v1/annotations/save-data', { token: owner.token, body: { image_id: ids['d.png'], project_id: projectId, image_filename: 'd.png', annotations: [{ id: 'm1', name: 'car', bounding_box: { x: 1, y: 1, w: 2, h: 2 } }] } });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  const { port } = model.address() as AddressInfo;
  const registered = await api(server.url, 'POST', '/api/v1/models', { token: owner.token, body: { organization_id: owner.org.id, name: 'Local', source: 'http', url: `http://127.0.0.1:${port}/predict`, kind: 'detect', classes: ['car', 'dog', 'person'] } });
  expect(registered.status, JSON.stringify(registered.body)).toBe(201);
  httpModelId = registered.body.model.id;
}, 120_000);

afterAll(async () => {
  for (const send of releaseHeld) send();
  await server?.stop();
  await new Promise((r) => model?.close(r));
});

describe('POST /projects/{id}/prelabel validation', () => {
  it.each([
    ['no model_id', { folder_path: '/street' }],
    ['no scope', { model_id: 'builtin-coco-centernet' }],
    ['two scopes', { model_id: 'builtin-coco-centernet', folder_path: '/street', all: true }],
    ['all: false', { model_id: 'builtin-coco-centernet', all: false }],
    ['image_ids not UUIDs', { model_id: 'builtin-coco-centernet', image_ids: ['x'] }],
    ['empty image_ids', { model_id: 'builtin-coco-centernet', image_ids: [] }],
    ['min_score above 1', { model_id: 'builtin-coco-centernet', all: true, min_score: 1.5 }],
    ['min_score below 0', { model_id: 'builtin-coco-centernet', all: true, min_score: -0.1 }],
    ['max_per_image 0', { model_id: 'builtin-coco-centernet', all: true, max_per_image: 0 }],
    ['max_per_image over 1000', { model_id: 'builtin-coco-centernet', all: true, max_per_image: 1001 }],
    ['max_per_image not whole', { model_id: 'builtin-coco-centernet', all: true, max_per_image: 2.5 }],
    ['a class_map value empty', { model_id: 'builtin-coco-centernet', all: true, class_map: { dog: '' } }],
    ['create_missing_classes not boolean', { model_id: 'builtin-coco-centernet', all: true, create_missing_classes: 'yes' }],
    ['skip_annotated not boolean', { model_id: 'builtin-coco-centernet', all: true, skip_annotated: 'no' }],
    ['an unknown field', { model_id: 'builtin-coco-centernet', all: true, threshold: 0.2 }],
    ['a class_map key the model lacks', { model_id: 'builtin-coco-centernet', all: true, class_map: { unicorn: 'car' } }],
  ])('refuses %s with 400 validation_failed', async (_what, body) => {
    const res = await prelabel(body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.code).toBe('validation_failed');
  });

  it('refuses an ONNX model not yet activated (400 model_not_runnable), an unknown model, another organization\'s model and image (404)', async () => {
    const onnx = await api(server.url, 'POST', '/api/v1/models', { token: owner.token, body: { organization_id: owner.org.id, name: 'Yolo', source: 'onnx', filename: 'y.onnx', size: 100 } });
    expect(onnx.status).toBe(201);
    const refused = await prelabel({ model_id: onnx.body.model.id, all: true });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('model_not_runnable');
    expect((await prelabel({ model_id: 'builtin-nothing', all: true })).status).toBe(404);
    const other = await onboardedUser(server);
    const theirs = await api(server.url, 'POST', '/api/v1/models', { token: other.token, body: { organization_id: other.org.id, name: 'Theirs', source: 'http', url: 'http://127.0.0.1:9/p', kind: 'detect', classes: ['car'] } });
    expect(theirs.status).toBe(201);
    expect((await prelabel({ model_id: theirs.body.model.id, all: true })).status).toBe(404);
    // Their project with our model, and our job read by them: 404.
    const theirProject = await createProject(server, other);
    expect((await prelabel({ model_id: httpModelId, all: true }, other.token, theirProject.id)).status).toBe(404);
    const ours = await prelabel({ model_id: httpModelId, image_ids: [ids['c.png']!], skip_annotated: true, min_score: 0.95 });
    expect(ours.status).toBe(202);
    expect((await api(server.url, 'GET', `/api/v1/prelabel/${ours.body.job_id}`, { token: other.token })).status).toBe(404);
    expect((await api(server.url, 'POST', `/api/v1/prelabel/${ours.body.job_id}/cancel`, { token: other.token })).status).toBe(404);
    await finished(ours.body.job_id);
  });
});

describe('a pre-label job', () => {
  it('labels a folder with its sub-folders: class_map, min_score, skip_annotated, pending predictions on the list', async () => {
    const started = await prelabel({ model_id: httpModelId, folder_path: '/street', class_map: { dog: 'animal' }, min_score: 0.5 });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const job = await finished(started.body.job_id);
    expect(job.status).toBe('done');
    expect(job.progress).toEqual({ done: 3, total: 3 });
    expect(job.report.images).toBe(2);
    expect(job.report.predictions).toBe(4);
    const reasons = Object.fromEntries((job.report.skipped as { image_id: string; reason: string }[]).map((s) => [s.image_id, s.reason]));
    expect(reasons[ids['d.png']!]).toBe('already annotated (1 annotations)');
    expect(reasons[ids['a.png']!]).toContain('person (1)');
    // Each entry names the image by its filename too, next to its id.
    expect(job.report.skipped).toContainEqual({ image_id: ids['d.png'], filename: 'd.png', reason: 'already annotated (1 annotations)' });
    expect(job.report.skipped_total).toBe(3);

    const a = await annotationsOf('a.png');
    expect(a.map((x) => [x.name, x.source])).toEqual([
      ['car', { model_id: httpModelId, score: 0.9, pending: true }],
      ['animal', { model_id: httpModelId, score: 0.8, pending: true }],
    ]);
    expect(await annotationsOf('d.png')).toHaveLength(1);
    expect(await annotationsOf('c.png')).toHaveLength(0);
    // Saved through the normal path: one version in the image's history, by the job's creator.
    const history = await api(server.url, 'GET', `/api/v1/annotations/history/${ids['a.png']}`, { token: owner.token });
    expect(history.status).toBe(200);
    expect(JSON.stringify(history.body)).toContain(owner.userId);

    const list = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?limit=50&has_pending_predictions=true`, { token: owner.token });
    expect(Object.fromEntries((list.body.images as { filename: string; pending_predictions: number }[]).map((i) => [i.filename, i.pending_predictions]))).toEqual({ 'a.png': 2, 'b.png': 2 });
  });

  it('creates the classes the project lacks when asked (create_missing_classes)', async () => {
    const started = await prelabel({ model_id: httpModelId, image_ids: [ids['c.png']!], create_missing_classes: true });
    expect(started.status).toBe(202);
    const job = await finished(started.body.job_id);
    expect(job).toMatchObject({ status: 'done', report: { images: 1, predictions: 3, skipped: [] } });
    expect((await annotationsOf('c.png')).map((x) => x.name).sort()).toEqual(['car', 'dog', 'person']);
    const project = await api(server.url, 'GET', `/api/v1/projects/${projectId}`, { token: owner.token });
    const classes = (project.body.project?.classes ?? project.body.classes) as { name: string; tools?: string[] }[];
    expect(classes.map((c) => c.name)).toEqual(['car', 'animal', 'dog', 'person']);
  });

  it('a reviewer may pre-label but not create the missing classes: 403 classes_edit_required, saying why; an admin may', async () => {
    const reviewer = await joinAs(server, owner.token, owner.org.id, 'reviewer');
    const refused = await prelabel({ model_id: httpModelId, image_ids: [ids['c.png']!], create_missing_classes: true }, reviewer.token);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('classes_edit_required');
    expect(refused.body.error).toMatch(/may pre-label images but not add classes/);
    const allowed = await prelabel({ model_id: httpModelId, image_ids: [ids['c.png']!], min_score: 0.95 }, reviewer.token);
    expect(allowed.status).toBe(202);
    const admin = await joinAs(server, owner.token, owner.org.id, 'admin');
    const byAdmin = await prelabel({ model_id: httpModelId, image_ids: [ids['c.png']!], min_score: 0.95, create_missing_classes: true }, admin.token);
    expect(byAdmin.status).toBe(202);
    await finished(allowed.body.job_id);
    await finished(byAdmin.body.job_id);
  });

  it('stops at a cancel; a second cancel is 409 prelabel_finished', async () => {
    holdCalls = true;
    const started = await prelabel({ model_id: httpModelId, all: true, skip_annotated: false });
    expect(started.status).toBe(202);
    const jobId = started.body.job_id as string;
    for (let i = 0; i < 300 && releaseHeld.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(releaseHeld.length).toBe(1);
    const cancelled = await api(server.url, 'POST', `/api/v1/prelabel/${jobId}/cancel`, { token: owner.token });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    holdCalls = false;
    for (const send of releaseHeld.splice(0)) send();
    const job = await finished(jobId);
    expect(job.status).toBe('cancelled');
    expect(job.progress.done).toBeLessThanOrEqual(1);
    expect(job.progress.total).toBe(4);
    const again = await api(server.url, 'POST', `/api/v1/prelabel/${jobId}/cancel`, { token: owner.token });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('prelabel_finished');
  });

  it('resumes after a worker died between a save and its mark without doubling the predictions', async () => {
    const started = await prelabel({ model_id: httpModelId, image_ids: [ids['a.png']!, ids['b.png']!], skip_annotated: false });
    const first = await finished(started.body.job_id);
    expect(first).toMatchObject({ status: 'done', report: { images: 2 } });
    expect(first.report.predictions).toBeGreaterThan(0);
    const before = (await annotationsOf('b.png')).length;
    const callsBefore = calls.length;
    // What a worker killed after b's save and before its mark leaves: b 'todo', the job running,
    // and the organization's queue row held by a worker whose lease ran out.
    const db = server.built.ctx.db;
    const jobId = started.body.job_id as string;
    await db.execute(sql`UPDATE prelabel_job_images SET state = 'todo', predictions = 0 WHERE job_id = ${jobId} AND image_id = ${ids['b.png']}`);
    await db.execute(sql`UPDATE prelabel_jobs SET status = 'running' WHERE id = ${jobId}`);
    await db.execute(sql`UPDATE jobs SET status = 'running', locked_by = 'dead-worker', locked_until = now() - interval '1 second' WHERE kind = 'prelabel' AND organization_id = ${owner.org.id}`);
    const resumed = await finished(jobId);
    expect(resumed).toMatchObject({ status: 'done', progress: { done: 2, total: 2 }, report: { images: 2, predictions: first.report.predictions } });
    expect(await annotationsOf('b.png')).toHaveLength(before);
    expect(calls.length, 'the model was not asked again').toBe(callsBefore);
  });
});
