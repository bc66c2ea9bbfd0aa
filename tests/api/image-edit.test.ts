// Magic Image Edit (issue 8): POST /image-edit/edit, GET /image-edit/status/{id}, GET /image-edit/health.
// Jobs over several images (one bad), the built-in vocabulary and its seed, labels carried exactly
// under flips and rotations, tenant isolation, a restart in the middle of a job, and the remote
// provider against a local images-edit server (success, retries, timeout, refusals, garbage).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { decodeRle, encodeMask } from '../../src/contract/rle';
import { imageEditItems, jobs, organizationMembers } from '../../src/server/db/schema';
import { createImageEditService, FINISHED_JOB_RETENTION_DAYS } from '../../src/server/services/image-edit';
import { sweepOrphans } from '../../src/server/services/upload';
import { api, onboardedUser, startServer, tempDir, type TestServer } from './harness';
import { createProject, uploadImage, type Member } from '../fixtures/datasets';

const W = 60;
const H = 40;
const CLASSES = [
  { name: 'car', type: 'box', color: '#ff0000' },
  { name: 'roof', type: 'polygon', color: '#00ff00' },
  { name: 'lane', type: 'polyline', color: '#0000ff' },
  { name: 'eye', type: 'keypoint', color: '#ffff00' },
  { name: 'blob', type: 'polygon', color: '#00ffff' },
];

// An L-shaped mask (column-major as COCO) so every flip and rotation gives a different mask.
const maskPixels = new Uint8Array(W * H);
for (let x = 30; x < 40; x++) for (let y = 5; y < 8; y++) maskPixels[x * H + y] = 1;
for (let x = 30; x < 33; x++) for (let y = 8; y < 20; y++) maskPixels[x * H + y] = 1;

const ANNOTATIONS = [
  { id: 'box', name: 'car', bounding_box: { x: 4, y: 6, w: 12, h: 8 }, attributes: [{ key: 'color', value: 'red' }] },
  {
    id: 'ring',
    name: 'roof',
    bounding_box: { x: 20, y: 22, w: 20, h: 14 },
    polygon: { path: [[20, 22], [40, 22], [40, 36], [20, 36]], holes: [[[25, 26], [35, 26], [35, 32], [25, 32]]] },
  },
  { id: 'line', name: 'lane', bounding_box: { x: 2, y: 30, w: 14, h: 8 }, polyline: { path: [[2, 30], [9, 38], [16, 31]] } },
  { id: 'kp', name: 'eye', bounding_box: { x: 50.5, y: 10.25, w: 0, h: 0 }, keypoint: { x: 50.5, y: 10.25 } },
  { id: 'mask', name: 'blob', bounding_box: { x: 30, y: 5, w: 10, h: 15 }, segmentation: { size: [H, W], counts: encodeMask(maskPixels, H, W) }, sam2_area: 66 },
];

/** A W x H image: grey, with a red block exactly where the 'box' annotation is, so pixels and labels can be compared. */
async function markedPng(): Promise<Buffer> {
  const raw = Buffer.alloc(W * H * 3, 90);
  for (let y = 6; y < 14; y++) for (let x = 4; x < 16; x++) raw.set([230, 20, 20], (y * W + x) * 3);
  return sharp(raw, { raw: { width: W, height: H, channels: 3 } }).png().toBuffer();
}

// --- the transforms, written out independently of the server's code
type Step = 'flip_h' | 'flip_v' | 'rotate_90' | 'rotate_180' | 'rotate_270';
function pointMap(step: Step, w: number, h: number): { map: (x: number, y: number) => [number, number]; w: number; h: number } {
  switch (step) {
    case 'flip_h':
      return { map: (x, y) => [w - x, y], w, h };
    case 'flip_v':
      return { map: (x, y) => [x, h - y], w, h };
    case 'rotate_180':
      return { map: (x, y) => [w - x, h - y], w, h };
    case 'rotate_90':
      return { map: (x, y) => [h - y, x], w: h, h: w };
    case 'rotate_270':
      return { map: (x, y) => [y, w - x], w: h, h: w };
  }
}
function expectedAnnotations(steps: Step[]) {
  let anns: any[] = structuredClone(ANNOTATIONS);
  let w = W;
  let h = H;
  for (const step of steps) {
    const { map, w: nw, h: nh } = pointMap(step, w, h);
    const pts = (path: number[][]) => path.map(([x, y]) => map(x!, y!));
    anns = anns.map((a) => {
      const b = a.bounding_box;
      const [ax, ay] = map(b.x, b.y);
      const [bx, by] = map(b.x + b.w, b.y + b.h);
      const out: any = { ...a, bounding_box: { x: Math.min(ax, bx), y: Math.min(ay, by), w: Math.abs(bx - ax), h: Math.abs(by - ay) } };
      if (a.polygon) out.polygon = { path: pts(a.polygon.path), holes: a.polygon.holes.map(pts) };
      if (a.polyline) out.polyline = { path: pts(a.polyline.path) };
      if (a.keypoint) {
        const [x, y] = map(a.keypoint.x, a.keypoint.y);
        out.keypoint = { x, y };
      }
      if (a.segmentation) {
        // Pixel (x, y) covers [x, x+1) x [y, y+1): its image is the pixel whose centre the map sends it to.
        const src = decodeRle(a.segmentation);
        const dst = new Uint8Array(nw * nh);
        for (let x = 0; x < w; x++)
          for (let y = 0; y < h; y++) {
            if (!src[x * h + y]) continue;
            const [cx, cy] = map(x + 0.5, y + 0.5);
            dst[Math.floor(cx) * nh + Math.floor(cy)] = 1;
          }
        out.segmentation = { size: [nh, nw], counts: encodeMask(dst, nh, nw) };
      }
      return out;
    });
    w = nw;
    h = nh;
  }
  return { annotations: anns, w, h };
}

// --- helpers
let server: TestServer;
let owner: Member;
let other: Member;
let project: { id: string; gcs_path: string };
const sources: Record<string, { id: string; filename: string; gcs_path: string }> = {};

async function setClasses(s: TestServer, user: Member, projectId: string) {
  expect((await api(s.url, 'PATCH', `/api/v1/projects/${projectId}`, { token: user.token, body: { classes: CLASSES } })).status).toBe(200);
}
async function saveAnnotations(s: TestServer, user: Member, projectId: string, image: { id: string; filename: string }, annotations: unknown[]) {
  const res = await api(s.url, 'POST', '/api/v1/annotations/save-data', { token: user.token, body: { image_id: image.id, project_id: projectId, image_filename: image.filename, annotations } });
  expect(res.status).toBe(200);
}
function startEdit(s: TestServer, user: Member, body: Record<string, unknown>) {
  return api(s.url, 'POST', '/api/v1/image-edit/edit', { token: user.token, body });
}
async function waitFor(s: TestServer, user: Member, editId: string, done = (b: any) => b.status === 'completed' || b.status === 'failed', timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  const seen = new Set<string>();
  for (;;) {
    const res = await api(s.url, 'GET', `/api/v1/image-edit/status/${editId}`, { token: user.token });
    expect(res.status).toBe(200);
    seen.add(res.body.status);
    if (done(res.body)) return { ...res.body, seen };
    if (Date.now() > until) throw new Error(`edit ${editId} did not finish: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
async function loadData(s: TestServer, user: Member, imageId: string) {
  const res = await api(s.url, 'GET', `/api/v1/annotations/load-data/${imageId}`, { token: user.token });
  expect(res.status).toBe(200);
  return res.body.annotations as any[];
}
async function getImage(s: TestServer, user: Member, imageId: string) {
  const res = await api(s.url, 'GET', `/api/v1/images/${imageId}`, { token: user.token });
  expect(res.status).toBe(200);
  return (res.body.image ?? res.body) as any;
}
async function download(s: TestServer, user: Member, imageId: string): Promise<Buffer> {
  const res = await api(s.url, 'GET', `/api/v1/images/${imageId}/signed-url`, { token: user.token });
  expect(res.status).toBe(200);
  return Buffer.from(await (await fetch(res.body.signed_url)).arrayBuffer());
}
async function listFolder(s: TestServer, user: Member, projectId: string, folder: string) {
  const res = await api(s.url, 'GET', `/api/v1/projects/${projectId}/images?folder_path=${encodeURIComponent(folder)}&limit=200`, { token: user.token });
  expect(res.status).toBe(200);
  return res.body.images as any[];
}

beforeAll(async () => {
  server = await startServer();
  owner = await onboardedUser(server);
  other = await onboardedUser(server);
  project = await createProject(server, owner, 'Streets');
  await setClasses(server, owner, project.id);
  expect((await api(server.url, 'POST', '/api/folders/create', { token: owner.token, body: { project_id: project.id, name: 'edits' } })).status).toBe(200);
  const marked = await markedPng();
  for (const name of ['street_1.png', 'street_2.png', 'street_3.png', 'broken.png']) {
    sources[name] = (await uploadImage(server, owner, project.id, name, marked)) as any;
    await saveAnnotations(server, owner, project.id, sources[name]!, ANNOTATIONS);
  }
  // broken.png: its stored bytes are replaced by junk after registration, so decoding it fails.
  await server.built.ctx.storage.put(owner.org.gcs_bucket_name, sources['broken.png']!.gcs_path, Buffer.from('this is not a png'), { contentType: 'image/png' });
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

describe('validation', () => {
  it('refuses bad requests with 4xx and readable messages', async () => {
    const base = { project_id: project.id, image_names: ['street_1.png'], prompt: 'make it night' };
    const noToken = await api(server.url, 'POST', '/api/v1/image-edit/edit', { body: base });
    expect(noToken.status).toBe(401);
    const none = await startEdit(server, owner, { ...base, image_names: [] });
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ success: false, code: 'validation_failed' });
    expect(none.body.error).toContain('Select at least one image to edit');
    const blank = await startEdit(server, owner, { ...base, prompt: '   ' });
    expect(blank.status).toBe(400);
    expect(blank.body.error).toContain('Enter a prompt that describes the edit');
    const tooMany = await startEdit(server, owner, { ...base, image_names: Array.from({ length: 101 }, (_, i) => `x${i}.png`) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toContain('At most 100 images');
    const longPrompt = await startEdit(server, owner, { ...base, prompt: 'night '.repeat(400) });
    expect(longPrompt.status).toBe(400);
    expect(longPrompt.body.error).toContain('at most 2000 characters');
    const badSeed = await startEdit(server, owner, { ...base, seed: -1 });
    expect(badSeed.status).toBe(400);
    const badSteps = await startEdit(server, owner, { ...base, num_inference_steps: 'many' });
    expect(badSteps.status).toBe(400);
    const badProject = await startEdit(server, owner, { ...base, project_id: 'nope' });
    expect(badProject.status).toBe(400);
    const unknown = await startEdit(server, owner, { ...base, image_names: ['street_1.png', 'ghost.png'] });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toContain('"ghost.png"');
    const noFolder = await startEdit(server, owner, { ...base, current_folder_path: '/nowhere' });
    expect(noFolder.status).toBe(404);
    const badStatus = await api(server.url, 'GET', '/api/v1/image-edit/status/not-a-uuid', { token: owner.token });
    expect(badStatus.status).toBe(400);
    const missing = await api(server.url, 'GET', '/api/v1/image-edit/status/00000000-0000-4000-8000-000000000000', { token: owner.token });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ success: false, code: 'not_found' });
  });

  it("another organization's project and job answer 404", async () => {
    const res = await startEdit(server, other, { project_id: project.id, image_names: ['street_1.png'], prompt: 'make it night' });
    expect(res.status).toBe(404);
    const mine = await startEdit(server, owner, { project_id: project.id, image_names: ['street_1.png'], prompt: 'brighter', seed: 1 });
    expect(mine.status).toBe(200);
    const peek = await api(server.url, 'GET', `/api/v1/image-edit/status/${mine.body.edit_id}`, { token: other.token });
    expect(peek.status).toBe(404);
    await waitFor(server, owner, mine.body.edit_id);
  });

  it('a viewer (no images.edit) is refused with 403 but may follow a job of the organization', async () => {
    const viewer = await onboardedUser(server);
    await server.built.ctx.db.insert(organizationMembers).values({ organizationId: owner.org.id, userId: viewer.userId, role: 'viewer' });
    const refused = await startEdit(server, viewer, { project_id: project.id, image_names: ['street_1.png'], prompt: 'make it night' });
    expect(refused.status).toBe(403);
    expect(refused.body.success).toBe(false);
    const started = await startEdit(server, owner, { project_id: project.id, image_names: ['street_1.png'], prompt: 'darker', seed: 2 });
    expect(started.status).toBe(200);
    const seen = await api(server.url, 'GET', `/api/v1/image-edit/status/${started.body.edit_id}`, { token: viewer.token });
    expect(seen.status).toBe(200);
    expect(seen.body.edit_id).toBe(started.body.edit_id);
    await waitFor(server, owner, started.body.edit_id);
  });

  it('health names the built-in provider and its vocabulary', async () => {
    expect((await api(server.url, 'GET', '/api/v1/image-edit/health')).status).toBe(401);
    const res = await api(server.url, 'GET', '/api/v1/image-edit/health', { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'healthy', provider: 'builtin', model: null, endpoint: null });
    expect(res.body.vocabulary).toEqual(expect.arrayContaining(['night', 'fog', 'rain', 'snow', 'flip horizontally', 'rotate 90']));
  });
});

describe('jobs', () => {
  it('edits several images into the folder it was started from; one bad image fails alone', async () => {
    const start = await startEdit(server, owner, {
      project_id: project.id,
      image_names: ['street_1.png', 'broken.png', 'street_2.png', 'street_3.png'],
      prompt: 'flip horizontally and make it night',
      current_folder_path: '/edits',
    });
    expect(start.status).toBe(200);
    expect(start.body).toMatchObject({ success: true, status: 'queued', total_count: 4, provider: 'builtin' });
    expect(start.body.seed).toBeGreaterThanOrEqual(0);
    expect(start.body.seed).toBeLessThan(1_000_000);
    const done = await waitFor(server, owner, start.body.edit_id);
    expect(done.status).toBe('completed');
    expect(done.progress).toBe(100);
    expect(done.result).toMatchObject({ successful_count: 3, total_count: 4, failed_count: 1, needs_frontend_registration: false, virtual_folder_path: '/edits' });
    expect(done.result.failures).toEqual([{ filename: 'broken.png', error: expect.stringContaining('could not be read'), stage: 'edit' }]);
    const names = done.result.registration_data.map((r: any) => r.filename).sort();
    expect(names).toEqual(['street_1_edit_flip_h_night.png', 'street_2_edit_flip_h_night.png', 'street_3_edit_flip_h_night.png']);
    for (const r of done.result.registration_data) {
      expect(r).toMatchObject({ folder_path: '/edits', mime_type: 'image/png', width: W, height: H, annotation_created: true, annotation_count: ANNOTATIONS.length });
      expect(r.gcs_uri).toBe(`gs://${owner.org.gcs_bucket_name}/${r.gcs_path}`);
      expect(r.file_size).toBeGreaterThan(0);
    }
    // Registered like an upload: listed in /edits, edited, with a thumbnail and a sidecar.
    const listed = await listFolder(server, owner, project.id, '/edits');
    expect(listed.map((i) => i.filename).sort()).toEqual(names);
    for (const img of listed) {
      expect(img.is_edited).toBe(true);
      expect(img.thumbnail_path).toBeTruthy();
      expect(img.annotation_count).toBe(ANNOTATIONS.length);
      expect(img.status).toBe('annotating');
      const sidecar = await server.built.ctx.storage.head(owner.org.gcs_bucket_name, `${img.gcs_path}.json`);
      expect(sidecar).not.toBeNull();
    }
    // The pixels were flipped and darkened: the red block moved to the mirrored place, which is where the carried box is.
    const edited = listed.find((i) => i.filename === 'street_1_edit_flip_h_night.png')!;
    const { data } = await sharp(await download(server, owner, edited.id)).raw().toBuffer({ resolveWithObject: true });
    const px = (x: number, y: number) => [...data.subarray((y * W + x) * 3, (y * W + x) * 3 + 3)];
    const box = (await loadData(server, owner, edited.id)).find((a) => a.id === 'box');
    expect(box.bounding_box).toEqual({ x: W - 16, y: 6, w: 12, h: 8 });
    const inside = px(box.bounding_box.x + 6, 10);
    const mirroredOutside = px(8, 10);
    expect(inside[0]).toBeGreaterThan(mirroredOutside[0]! + 20);
    expect(mirroredOutside[0]).toBeLessThan(60); // grey 90 darkened by night
  });

  it('the same seed gives the same bytes; another seed another result', async () => {
    const run = async (seed: number) => {
      const s = await startEdit(server, owner, { project_id: project.id, image_names: ['street_1.png'], prompt: 'add noise, rain and snow', seed });
      expect(s.status).toBe(200);
      const d = await waitFor(server, owner, s.body.edit_id);
      expect(d.status).toBe('completed');
      return download(server, owner, d.result.registration_data[0].image_id);
    };
    const a = await run(1234);
    const b = await run(1234);
    const c = await run(999);
    expect(a.equals(b)).toBe(true);
    expect(a.equals(c)).toBe(false);
  });

  it('a prompt it cannot understand fails each image with the vocabulary', async () => {
    const s = await startEdit(server, owner, { project_id: project.id, image_names: ['street_1.png', 'street_2.png'], prompt: 'add a unicorn' });
    const d = await waitFor(server, owner, s.body.edit_id);
    expect(d.status).toBe('failed');
    expect(d.error).toContain('does not understand "unicorn"');
    expect(d.error).toContain('flip horizontally');
    expect(d.result).toMatchObject({ successful_count: 0, failed_count: 2, total_count: 2 });
  });

  it('photometric edits keep the labels as they are', async () => {
    const s = await startEdit(server, owner, { project_id: project.id, image_names: ['street_2.png'], prompt: 'grayscale and more contrast' });
    const d = await waitFor(server, owner, s.body.edit_id);
    expect(d.status).toBe('completed');
    expect(await loadData(server, owner, d.result.registration_data[0].image_id)).toEqual(ANNOTATIONS);
  });
});

describe('workers', () => {
  it("a dead worker's job is left alone while its lease lasts, then taken over and finished", async () => {
    const id = randomUUID();
    const db = server.built.ctx.db;
    const payload = { project_id: project.id, prompt: 'make it night', negative_prompt: null, num_inference_steps: 40, guidance_scale: 1, true_cfg_scale: 4, seed: 5, folder_path: '/', provider: 'builtin', total: 1 };
    await db.insert(jobs).values({ id, kind: 'image_edit', organizationId: owner.org.id, payload, status: 'running', lockedBy: 'crashed-host:1:dead', lockedUntil: new Date(Date.now() + 3000), attempts: 1, createdBy: owner.userId });
    await db.insert(imageEditItems).values({ jobId: id, position: 0, sourceImageId: sources['street_1.png']!.id, sourceFilename: 'street_1.png' });
    await new Promise((r) => setTimeout(r, 1000));
    const during = await api(server.url, 'GET', `/api/v1/image-edit/status/${id}`, { token: owner.token });
    expect(during.body).toMatchObject({ status: 'processing', processed_count: 0 });
    const done = await waitFor(server, owner, id);
    expect(done.status).toBe('completed');
    expect(done.result.registration_data).toHaveLength(1);
    expect(done.result.registration_data[0].filename).toMatch(/^street_1_edit_night(_\d+)?\.png$/);
  });

  it('a copy that cannot be registered (its folder was deleted) fails at the register stage', async () => {
    const id = randomUUID();
    const db = server.built.ctx.db;
    const payload = { project_id: project.id, prompt: 'sepia', negative_prompt: null, num_inference_steps: 40, guidance_scale: 1, true_cfg_scale: 4, seed: 5, folder_path: '/gone', provider: 'builtin', total: 1 };
    await db.insert(jobs).values({ id, kind: 'image_edit', organizationId: owner.org.id, payload, status: 'queued', createdBy: owner.userId });
    await db.insert(imageEditItems).values({ jobId: id, position: 0, sourceImageId: sources['street_2.png']!.id, sourceFilename: 'street_2.png' });
    const done = await waitFor(server, owner, id);
    expect(done.status).toBe('failed');
    expect(done.result.failures).toEqual([{ filename: 'street_2.png', stage: 'register', error: expect.stringContaining('Folder /gone not found') }]);
  });

  it('two workers on one database share the queue without doing a job twice', async () => {
    const second = createImageEditService(server.built.ctx);
    second.start();
    try {
      const ids: string[] = [];
      for (const name of ['street_1.png', 'street_2.png', 'street_3.png', 'street_1.png']) {
        const res = await startEdit(server, owner, { project_id: project.id, image_names: [name], prompt: 'sepia', current_folder_path: '/edits' });
        ids.push(res.body.edit_id);
      }
      const results = await Promise.all(ids.map((id) => waitFor(server, owner, id)));
      expect(results.map((r) => r.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
      const made = results.flatMap((r) => r.result.registration_data.map((d: any) => d.image_id));
      expect(new Set(made).size).toBe(4);
      const listed = (await listFolder(server, owner, project.id, '/edits')).filter((i) => i.filename.includes('_edit_sepia'));
      expect(listed).toHaveLength(4);
    } finally {
      await second.stop();
    }
  });
});

describe('retention', () => {
  const DAY = 24 * 60 * 60 * 1000;
  it(`finished jobs are deleted ${FINISHED_JOB_RETENTION_DAYS} days after they finished, with copies that never became images; images and unfinished jobs stay`, async () => {
    const db = server.built.ctx.db;
    const done = await waitFor(server, owner, (await startEdit(server, owner, { project_id: project.id, image_names: ['street_1.png'], prompt: 'sepia', seed: 3 })).body.edit_id);
    expect(done.status).toBe('completed');
    const made = done.result.registration_data[0];
    // A job interrupted once too often while a copy was stored but not yet registered: it fails,
    // and the stored copy is left behind.
    const failedId = randomUUID();
    const payload = { project_id: project.id, prompt: 'grayscale', negative_prompt: null, num_inference_steps: 40, guidance_scale: 1, true_cfg_scale: 4, seed: 5, folder_path: '/', provider: 'builtin', total: 1 };
    const leftover = `${project.gcs_path}/images/street_2_edit_leftover.png`;
    await server.built.ctx.storage.put(owner.org.gcs_bucket_name, leftover, await markedPng(), { contentType: 'image/png' });
    await db.insert(jobs).values({ id: failedId, kind: 'image_edit', organizationId: owner.org.id, payload, status: 'running', lockedBy: 'crashed:1:x', lockedUntil: new Date(Date.now() - 1000), attempts: 5, createdBy: owner.userId });
    await db.insert(imageEditItems).values({ jobId: failedId, position: 0, sourceImageId: sources['street_2.png']!.id, sourceFilename: 'street_2.png', status: 'generated', outputFilename: 'street_2_edit_leftover.png', outputMime: 'image/png' });
    const failed = await waitFor(server, owner, failedId);
    expect(failed).toMatchObject({ status: 'failed', error: 'The edit was interrupted too many times' });
    expect(await server.built.ctx.storage.head(owner.org.gcs_bucket_name, leftover)).not.toBeNull();
    // A job another worker is still running (its lease far ahead) is never swept, however old.
    const runningId = randomUUID();
    await db.insert(jobs).values({ id: runningId, kind: 'image_edit', organizationId: owner.org.id, payload, status: 'running', lockedBy: 'elsewhere:1:x', lockedUntil: new Date(Date.now() + 3600_000), createdBy: owner.userId });
    await db.insert(imageEditItems).values({ jobId: runningId, position: 0, sourceImageId: sources['street_3.png']!.id, sourceFilename: 'street_3.png' });

    const sweeper = createImageEditService(server.built.ctx);
    const status = (id: string) => api(server.url, 'GET', `/api/v1/image-edit/status/${id}`, { token: owner.token });
    try {
      server.built.ctx.now = () => new Date(Date.now() + (FINISHED_JOB_RETENTION_DAYS - 1) * DAY);
      await sweeper.sweep();
      expect((await status(done.edit_id)).status).toBe(200);
      expect((await status(failedId)).status).toBe(200);

      server.built.ctx.now = () => new Date(Date.now() + (FINISHED_JOB_RETENTION_DAYS + 1) * DAY);
      const swept = await sweeper.sweep();
      expect(swept.jobs).toBeGreaterThanOrEqual(2);
      expect(swept.objects).toBeGreaterThanOrEqual(1);
      for (const id of [done.edit_id, failedId]) {
        const gone = await status(id);
        expect(gone.status).toBe(404);
        expect(gone.body).toMatchObject({ success: false, code: 'not_found' });
      }
      expect(await db.select().from(imageEditItems).where(eq(imageEditItems.jobId, failedId))).toEqual([]);
      expect(await server.built.ctx.storage.head(owner.org.gcs_bucket_name, leftover)).toBeNull();
      // The edited image made by the swept job is an image like any other: it stays.
      expect((await getImage(server, owner, made.image_id)).filename).toBe(made.filename);
      expect((await download(server, owner, made.image_id)).length).toBeGreaterThan(0);
      expect((await status(runningId)).status).toBe(200);
    } finally {
      server.built.ctx.now = undefined;
      await db.delete(jobs).where(eq(jobs.id, runningId));
    }
  });
});

describe('labels carried exactly', () => {
  const cases: [string, Step[]][] = [
    ['flip horizontally', ['flip_h']],
    ['flip vertically', ['flip_v']],
    ['rotate 90', ['rotate_90']],
    ['rotate 180', ['rotate_180']],
    ['rotate 270', ['rotate_270']],
    ['flip horizontally and rotate 90', ['flip_h', 'rotate_90']],
  ];
  for (const [prompt, steps] of cases) {
    it(`${prompt}: boxes, polygons with holes, polylines, keypoints and masks`, async () => {
      const s = await startEdit(server, owner, { project_id: project.id, image_names: ['street_3.png'], prompt });
      const d = await waitFor(server, owner, s.body.edit_id);
      expect(d.status).toBe('completed');
      const reg = d.result.registration_data[0];
      const want = expectedAnnotations(steps);
      expect([reg.width, reg.height]).toEqual([want.w, want.h]);
      const got = await loadData(server, owner, reg.image_id);
      expect(got).toEqual(want.annotations);
      // The red block is where the carried box says.
      const b = got.find((a) => a.id === 'box').bounding_box;
      const { data, info } = await sharp(await download(server, owner, reg.image_id)).raw().toBuffer({ resolveWithObject: true });
      const at = (x: number, y: number) => data[(y * info.width + x) * info.channels]!;
      expect(at(b.x + 1, b.y + 1)).toBeGreaterThan(200);
      expect(at(b.x + b.w - 2, b.y + b.h - 2)).toBeGreaterThan(200);
      expect(at(b.x + b.w + 1 < info.width ? b.x + b.w + 1 : b.x - 2, b.y + 1)).toBeLessThan(120);
    });
  }
});

// --- the remote provider against a local images-edit server

interface Seen {
  prompt: string;
  fields: Record<string, string>;
  auth: string | undefined;
  imageType: string;
}

function editServer() {
  const seen: Seen[] = [];
  const calls = new Map<string, number>();
  const srv = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const form = await new Response(Buffer.concat(chunks), { headers: { 'content-type': req.headers['content-type'] ?? '' } }).formData();
      const fields: Record<string, string> = {};
      for (const [k, v] of form.entries()) if (typeof v === 'string') fields[k] = v;
      const image = form.get('image') as File | null;
      const prompt = fields.prompt ?? '';
      seen.push({ prompt, fields, auth: req.headers.authorization, imageType: image?.type ?? '' });
      const n = (calls.get(prompt) ?? 0) + 1;
      calls.set(prompt, n);
      const send = async (w: number, h: number) => {
        const png = await sharp({ create: { width: w, height: h, channels: 3, background: '#204080' } }).png().toBuffer();
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ created: 1, data: [{ b64_json: png.toString('base64') }] }));
      };
      if (req.url !== '/v1/images/edits' || req.method !== 'POST' || !image) return res.writeHead(404).end('{"error":{"message":"no such route"}}');
      if (prompt.startsWith('slow')) await new Promise((r) => setTimeout(r, 400));
      if (prompt === 'hang') await new Promise((r) => setTimeout(r, 3000));
      if (prompt === 'always 500') return res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"model crashed"}}');
      if (prompt === 'flaky' && n === 1) return res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"warming up"}}');
      if (prompt === 'refuse') return res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"Your prompt was flagged"}}');
      if (prompt === 'garbage') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[{"b64_json":"aGVsbG8="}]}');
      if (prompt === 'double size') return send(W * 2, H * 2);
      return send(W, H);
    });
  });
  return { srv, seen, calls };
}

describe('remote provider', () => {
  let remote: TestServer;
  let edit: ReturnType<typeof editServer>;
  let user: Member;
  let proj: { id: string };
  let img: { id: string; filename: string };

  beforeAll(async () => {
    edit = editServer();
    await new Promise<void>((r) => edit.srv.listen(0, '127.0.0.1', r));
    const port = (edit.srv.address() as AddressInfo).port;
    remote = await startServer({
      IMAGE_EDIT_PROVIDER: 'remote',
      IMAGE_EDIT_URL: `http://127.0.0.1:${port}/v1/images/edits`,
      IMAGE_EDIT_API_KEY: 'sk-test-key',
      IMAGE_EDIT_MODEL: 'qwen-image-edit',
      IMAGE_EDIT_TIMEOUT_MS: '800',
      IMAGE_EDIT_RETRIES: '1',
    });
    user = await onboardedUser(remote);
    proj = await createProject(remote, user, 'Remote');
    await setClasses(remote, user, proj.id);
    img = (await uploadImage(remote, user, proj.id, 'road.png', await markedPng())) as any;
    await saveAnnotations(remote, user, proj.id, img, ANNOTATIONS);
  }, 60_000);

  afterAll(async () => {
    await remote?.stop();
    await new Promise((r) => edit?.srv.close(r));
  });

  it('sends multipart image + prompt with key, model and the spec defaults; copies labels for review', async () => {
    const s = await startEdit(remote, user, { project_id: proj.id, image_names: ['road.png'], prompt: 'a snowy alpine road', seed: 77 });
    expect(s.status).toBe(200);
    expect(s.body.provider).toBe('remote');
    const d = await waitFor(remote, user, s.body.edit_id);
    expect(d.status).toBe('completed');
    const call = edit.seen.find((c) => c.prompt === 'a snowy alpine road')!;
    expect(call.auth).toBe('Bearer sk-test-key');
    expect(call.imageType).toBe('image/png');
    expect(call.fields).toMatchObject({ model: 'qwen-image-edit', n: '1', num_inference_steps: '40', guidance_scale: '1', true_cfg_scale: '4', seed: '77' });
    const reg = d.result.registration_data[0];
    expect(reg.filename).toBe('road_edit_snowy_alpine_road.png');
    expect(reg.annotation_created).toBe(true);
    expect(await loadData(remote, user, reg.image_id)).toEqual(ANNOTATIONS);
    const image = await getImage(remote, user, reg.image_id);
    expect(image).toMatchObject({ is_edited: true, status: 'annotating' });
    const health = await api(remote.url, 'GET', '/api/v1/image-edit/health', { token: user.token });
    expect(health.body).toMatchObject({ provider: 'remote', model: 'qwen-image-edit', endpoint: expect.stringMatching(/^127\.0\.0\.1:\d+$/), vocabulary: [] });
    expect(JSON.stringify(health.body)).not.toContain('sk-test-key');
  });

  it('copies waiting to be registered survive the orphan sweep however long the job runs', async () => {
    for (const n of ['long_1.png', 'long_2.png', 'long_3.png']) await uploadImage(remote, user, proj.id, n, await markedPng());
    const s = await startEdit(remote, user, { project_id: proj.id, image_names: ['long_1.png', 'long_2.png', 'long_3.png'], prompt: 'slow dusk' });
    await waitFor(remote, user, s.body.edit_id, (b) => b.processed_count >= 1);
    // The sweep as it would run 90 minutes later: the names' first reservations (an hour) have lapsed by then.
    const swept = await sweepOrphans(remote.built.ctx, { now: new Date(Date.now() + 90 * 60_000), minAgeMs: 0 });
    expect(swept.deleted.filter((k) => k.includes('_edit_slow_dusk'))).toEqual([]);
    const d = await waitFor(remote, user, s.body.edit_id);
    expect(d.result).toMatchObject({ successful_count: 3, failed_count: 0 });
  });

  it('scales the copied labels when the model answers another size', async () => {
    const s = await startEdit(remote, user, { project_id: proj.id, image_names: ['road.png'], prompt: 'double size' });
    const d = await waitFor(remote, user, s.body.edit_id);
    const reg = d.result.registration_data[0];
    expect([reg.width, reg.height]).toEqual([W * 2, H * 2]);
    const got = await loadData(remote, user, reg.image_id);
    expect(got.find((a) => a.id === 'box').bounding_box).toEqual({ x: 8, y: 12, w: 24, h: 16 });
    expect(got.find((a) => a.id === 'kp').keypoint).toEqual({ x: 101, y: 20.5 });
    const mask = got.find((a) => a.id === 'mask').segmentation;
    expect(mask.size).toEqual([H * 2, W * 2]);
    expect(decodeRle(mask).reduce((n: number, v: number) => n + v, 0)).toBe(66 * 4);
  });

  it('retries a 503 and succeeds; a 500 that persists, a timeout, a refusal and garbage fail with their reasons', async () => {
    const flaky = await waitFor(remote, user, (await startEdit(remote, user, { project_id: proj.id, image_names: ['road.png'], prompt: 'flaky' })).body.edit_id);
    expect(flaky.status).toBe('completed');
    expect(edit.calls.get('flaky')).toBe(2);
    for (const [prompt, message, calls] of [
      ['refuse', 'refused the image (400): Your prompt was flagged', 1],
      ['garbage', 'not a PNG, JPEG, WebP or GIF image', 1],
      ['always 500', 'answered 500: model crashed (tried 2 times)', 2],
      ['hang', 'did not answer within 0.8 s (tried 2 times)', 2],
    ] as const) {
      const d = await waitFor(remote, user, (await startEdit(remote, user, { project_id: proj.id, image_names: ['road.png'], prompt })).body.edit_id);
      expect(d.status).toBe('failed');
      expect(d.error).toContain(message);
      expect(d.result.failures[0].filename).toBe('road.png');
      expect(edit.calls.get(prompt)).toBe(calls);
    }
    const health = await api(remote.url, 'GET', '/api/v1/image-edit/health', { token: user.token });
    expect(health.body.status).toBe('degraded');
    expect(health.body.last_error).toContain('did not answer within 0.8 s');
  });
});

describe('restart', () => {
  it('a job interrupted by a stop finishes in the next server on the same data, without duplicates', async () => {
    const edit = editServer();
    await new Promise<void>((r) => edit.srv.listen(0, '127.0.0.1', r));
    const port = (edit.srv.address() as AddressInfo).port;
    const dataDir = tempDir();
    const env = { IMAGE_EDIT_PROVIDER: 'remote', IMAGE_EDIT_URL: `http://127.0.0.1:${port}/v1/images/edits`, IMAGE_EDIT_TIMEOUT_MS: '10000' };
    let first: TestServer | null = await startServer(env, dataDir);
    let second: TestServer | null = null;
    try {
      const user = await onboardedUser(first);
      const proj = await createProject(first, user, 'Restart');
      const names = ['r1.png', 'r2.png', 'r3.png', 'r4.png', 'r5.png'];
      for (const n of names) await uploadImage(first, user, proj.id, n, await markedPng());
      const s = await startEdit(first, user, { project_id: proj.id, image_names: names, prompt: 'slow night' });
      expect(s.status).toBe(200);
      // Stop while it is half-way through generating.
      const mid = await waitFor(first, user, s.body.edit_id, (b) => b.processed_count >= 2);
      expect(mid.status).toBe('processing');
      // Same DATA_DIR, and the same database when the suite runs on PostgreSQL.
      const db = first.config.database;
      await first.stop();
      first = null;
      second = await startServer(db.kind === 'postgres' ? { ...env, DATABASE_URL: db.url } : env, dataDir);
      // Tokens name the issuing server's address: sign in again on the new one.
      const signIn = await api(second.url, 'POST', '/auth/v1/token?grant_type=password', {
        body: { email: user.email, password: user.password },
        headers: { apikey: second.built.ctx.auth.anonKey },
      });
      expect(signIn.status).toBe(200);
      const again = { ...user, token: signIn.body.access_token as string };
      const done = await waitFor(second, again, s.body.edit_id);
      expect(done.status).toBe('completed');
      expect(done.result).toMatchObject({ successful_count: 5, failed_count: 0, total_count: 5 });
      const listed = await listFolder(second, again, proj.id, '/');
      const edited = listed.filter((i) => i.is_edited).map((i) => i.filename).sort();
      expect(edited).toEqual(names.map((n) => n.replace('.png', '_edit_slow_night.png')).sort());
      expect(listed).toHaveLength(10);
    } finally {
      await first?.stop();
      await second?.stop();
      await new Promise((r) => edit.srv.close(r));
    }
  }, 90_000);
});
