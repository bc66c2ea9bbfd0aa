// The assisted-segmentation routes with SEGMENTER=sam2: health names the backend, masks come from
// the ONNX decoder (tiny graphs with SAM2's signature, tests/fixtures/onnx.ts), and a model
// directory without the files answers 503 with a reason instead of a 500.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, startServer, type TestServer } from './harness';
import { createProject, uploadImage, type Member } from '../fixtures/datasets';
import { sam2TestModels } from '../fixtures/onnx';

let dir: string;
let server: TestServer;
let broken: TestServer;
let owner: Member;
let project: { id: string };
const BASE = '/api/v1/auto-annotate/sam2';

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vellum-sam2-api-'));
  const { encoder, decoder } = sam2TestModels();
  fs.writeFileSync(path.join(dir, 'sam2_encoder.onnx'), encoder);
  fs.writeFileSync(path.join(dir, 'sam2_decoder.onnx'), decoder);
  server = await startServer({ SEGMENTER: 'sam2', SAM2_MODEL_DIR: dir });
  broken = await startServer({ SEGMENTER: 'sam2', SAM2_MODEL_DIR: path.join(dir, 'missing') });
  owner = await onboardedUser(server);
  project = await createProject(server, owner);
  await api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { classes: [{ name: 'box', type: 'polygon', color: '#FFADAD' }] } });
  // Dark picture with a bright 100 x 100 square at (100, 50).
  const png = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#141414' } })
    .composite([{ input: await sharp({ create: { width: 100, height: 100, channels: 3, background: '#f0f0f0' } }).png().toBuffer(), left: 100, top: 50 }])
    .png()
    .toBuffer();
  await uploadImage(server, owner, project.id, 'square.png', png);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await broken?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('SEGMENTER=sam2', () => {
  it('warms up and reports the sam2 backend healthy', async () => {
    await api(server.url, 'POST', `${BASE}/warmup`, { token: owner.token });
    let health = await api(server.url, 'GET', `${BASE}/health`, { token: owner.token });
    for (let i = 0; i < 50 && health.body.status !== 'healthy'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      health = await api(server.url, 'GET', `${BASE}/health`, { token: owner.token });
    }
    expect(health.body).toMatchObject({ status: 'healthy', backend: 'sam2', model_loaded: true });
  });

  it('processes the image and answers the decoder\'s mask at the image\'s size', async () => {
    const processed = await api(server.url, 'POST', `${BASE}/process-image`, { token: owner.token, body: { project_id: project.id, image_name: 'square.png' } });
    expect(processed.status).toBe(200);
    expect(processed.body).toMatchObject({ status: 'success', size: { width: 300, height: 200 }, backend: 'sam2' });
    const res = await api(server.url, 'POST', `${BASE}/get-mask`, { token: owner.token, body: { project_id: project.id, image_name: 'square.png', positive_points: [[150, 100]] } });
    expect(res.status).toBe(200);
    expect(res.body.backend).toBe('sam2');
    expect(res.body.mask.size).toEqual([200, 300]);
    expect(res.body.area).toBeGreaterThan(9500);
    expect(res.body.area).toBeLessThan(10500);
    const [x, y, w, h] = res.body.bbox;
    expect(Math.abs(x - 100) + Math.abs(y - 50) + Math.abs(w - 100) + Math.abs(h - 100)).toBeLessThanOrEqual(4);
    expect(res.body.score).toBeCloseTo(0.5, 3); // (512 + 512) / 2 / 1024
    // logits: the decoder's logits averaged on a 64-wide grid (300 x 200 -> 64 x 43), > 0 inside the square.
    expect(res.body.logits.size).toEqual([43, 64]);
    expect(res.body.logits.data).toHaveLength(43 * 64);
    expect(res.body.logits.data[21 * 64 + 32]).toBeGreaterThan(0);
    expect(res.body.logits.data[0]).toBeLessThan(0);
    const saved = await api(server.url, 'POST', `${BASE}/save-segmentation`, { token: owner.token, body: { project_id: project.id, image_name: 'square.png', class_name: 'box', mask: res.body.mask, metadata: { score: res.body.score } } });
    expect(saved.status).toBe(200);
    expect(saved.body.annotation.metadata.tool_used).toBe('auto-annotate:sam2');
  });

  it('without model files: health says unhealthy with the reason, masks answer 503', async () => {
    const user = await onboardedUser(broken);
    await api(broken.url, 'POST', `${BASE}/warmup`, { token: user.token });
    let health = await api(broken.url, 'GET', `${BASE}/health`, { token: user.token });
    for (let i = 0; i < 50 && health.body.status === 'starting'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      health = await api(broken.url, 'GET', `${BASE}/health`, { token: user.token });
    }
    expect(health.body).toMatchObject({ status: 'unhealthy', backend: 'sam2', model_loaded: false });
    expect(health.body.error).toMatch(/sam2_encoder\.onnx/);
    const p = await createProject(broken, user);
    const missing = await api(broken.url, 'POST', `${BASE}/process-image`, { token: user.token, body: { project_id: p.id, image_name: 'none.png' } });
    expect(missing.status).toBe(404); // the image is checked before the model
    await uploadImage(broken, user, p.id, 'here.png', await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } }).png().toBuffer());
    for (const call of ['process-image', 'get-mask']) {
      const res = await api(broken.url, 'POST', `${BASE}/${call}`, { token: user.token, body: { project_id: p.id, image_name: 'here.png', positive_points: [[1, 1]] } });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ success: false, code: 'unavailable' });
      expect(res.body.error).toMatch(/sam2 segmenter is not available/);
    }
  });
});
