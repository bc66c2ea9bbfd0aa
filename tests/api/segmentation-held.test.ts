// get-mask's clicks on the offload thread that holds the image's embedding
// (services/segmentation/held.ts, issue 30): the same masks as the built-in segmenter in-line,
// the previous mask included; the click runs off the request thread; a click on an image whose
// embedding was evicted, or whose thread stopped, still answers (the image is prepared again).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { api, onboardedUser, startServer, type TestServer } from './harness';
import { createProject, uploadImage, type Member } from '../fixtures/datasets';
import { syntheticImage } from '../fixtures/segmentation';
import { buildKernels } from '../../assembly/build.mjs';
import { loadKernelsNode } from '../../src/kernels/node';
import { LOGITS_SIDE } from '../../src/contract/segmentation';
import { offloadPool } from '../../src/server/offload/pool';
import { BUILTIN_MAX_SIDE, BuiltinSegmenter } from '../../src/server/services/segmentation/builtin';
import { wasmOps } from '../../src/server/services/segmentation/builtin/wasm-ops';
import { HeldSegmenter } from '../../src/server/services/segmentation/held';
import { decodeImage } from '../../src/server/services/segmentation/image';
import { logitGrid, maskResult } from '../../src/server/services/segmentation/result';
import type { Points } from '../../src/server/services/segmentation/types';

const W = 400, H = 300;
const scene = syntheticImage(4, W, H);
/** Larger than the working copy, so the clicks refine their edge on the original-size pixels too. */
const BIG_W = 2400, BIG_H = 1800;
const sx = BIG_W / W, sy = BIG_H / H;
let big: Buffer;

const CLICKS: Points[] = [
  { positive: [[200 * sx, 150 * sy]], negative: [] },
  { positive: [[200 * sx, 150 * sy]], negative: [[20 * sx, 20 * sy]] },
  { positive: [[200 * sx, 150 * sy], [120 * sx, 100 * sy]], negative: [[20 * sx, 20 * sy]], box: [60 * sx, 40 * sy, 280 * sx, 220 * sy] },
];

beforeAll(async () => {
  await buildKernels({ quiet: true });
  big = await sharp(Buffer.from(scene.rgb), { raw: { width: W, height: H, channels: 3 } }).resize(BIG_W, BIG_H).png().toBuffer();
}, 120_000);

describe('a held embedding on an offload thread', () => {
  it('answers the same masks, scores and logits as the built-in segmenter in-line, the previous mask included', async () => {
    const k = await loadKernelsNode();
    const here = new BuiltinSegmenter(wasmOps);
    const e = await here.embed(await decodeImage(big, BUILTIN_MAX_SIDE, true));
    expect(e.full).toBeDefined();
    const held = new HeldSegmenter(1 << 30);
    const he = await held.embed(await decodeImage(big, BUILTIN_MAX_SIDE, true));
    let previous: unknown;
    for (const [i, points] of CLICKS.entries()) {
      const p = await here.predict(e, points, previous);
      previous = p.state;
      const inline = { ...maskResult(k, p.mask, e.width, e.height, 0.75, p.fine), score: p.score, logits: logitGrid(p.mask, p.logits, e.width, e.height, LOGITS_SIDE) };
      const { bytes, ...there } = await held.click(he, 'someone', points, { usePrevious: i > 0, tolerance: 0.75, logitSide: LOGITS_SIDE });
      expect(there, `click ${i + 1}`).toEqual(inline);
      expect(inline.area).toBeGreaterThan(0);
      expect(bytes).toBeGreaterThan(0);
    }
    held.drop(he);
  }, 120_000);
});

describe('get-mask on held embeddings', () => {
  let server: TestServer;
  let owner: Member;
  let project: { id: string };
  const BASE = '/api/v1/auto-annotate/sam2';
  const post = (path: string, body: unknown) => api(server.url, 'POST', `${BASE}/${path}`, { token: owner.token, body });
  const click = (image: string, usePrevious = false) =>
    post('get-mask', { project_id: project.id, image_name: image, positive_points: [[200 * sx, 150 * sy]], negative_points: [[20 * sx, 20 * sy]], use_previous_mask: usePrevious });
  /** What a client compares: the mask, its polygons and score. */
  const maskOf = (body: Record<string, unknown>) => ({ mask: body.mask, polygon: body.polygon, area: body.area, bbox: body.bbox, score: body.score });

  beforeAll(async () => {
    // The smallest cache (16 MB) holds one of these images at a time: preparing one evicts the other.
    server = await startServer({ SEGMENTER_CACHE_MB: '16' });
    owner = await onboardedUser(server);
    project = await createProject(server, owner);
    await uploadImage(server, owner, project.id, 'a.png', big);
    await uploadImage(server, owner, project.id, 'b.png', big);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('runs the click on an offload thread, and answers /api/v1/health meanwhile', async () => {
    expect((await post('process-image', { project_id: project.id, image_name: 'a.png' })).body.status).toBe('success');
    const done: string[] = [];
    const heavy = click('a.png').then((res) => {
      done.push('get-mask');
      return res;
    });
    while (!offloadPool().running().includes('segmentClick')) {
      expect(done).toEqual([]);
      await new Promise((r) => setTimeout(r, 1));
    }
    const health = await api(server.url, 'GET', '/api/v1/health');
    done.push('health');
    expect(health.status).toBe(200);
    const res = await heavy;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.area).toBeGreaterThan(0);
    expect(done).toEqual(['health', 'get-mask']);
  }, 120_000);

  it('answers a click on an image whose embedding was evicted, with the same mask as before', async () => {
    const first = await click('a.png');
    expect(first.status).toBe(200);
    expect((await post('process-image', { project_id: project.id, image_name: 'b.png' })).body.status).toBe('success');
    const cache = (await api(server.url, 'GET', `${BASE}/health`, { token: owner.token })).body.cache;
    expect(cache.entries).toBe(1); // a.png's embedding went to make room for b.png's
    const again = await click('a.png');
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(maskOf(again.body)).toEqual(maskOf(first.body));
  }, 120_000);

  it('answers a click whose thread stopped: the image is prepared again', async () => {
    const before = await click('b.png');
    expect(before.status).toBe(200);
    // Every offload thread stopped, as a crash or an out-of-memory end would stop it.
    const slots = (offloadPool() as unknown as { slots: { worker: { terminate(): Promise<number> } }[] }).slots;
    await Promise.all(slots.map((s) => s.worker.terminate()));
    const after = await click('b.png', true);
    expect(after.status, JSON.stringify(after.body)).toBe(200);
    // The previous mask went with the thread: the click is answered as a first one on b.png.
    expect(maskOf(after.body)).toEqual(maskOf(before.body));
  }, 120_000);
});
