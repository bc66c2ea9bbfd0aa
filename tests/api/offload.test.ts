// CPU-heavy work on the offload pool's threads (src/server/offload, issue 30): the built-in
// segmenter's embedding built on a thread gives the same structure and the same masks as built
// in-line, and /api/v1/health answers while a 12 MP process-image is being prepared (ordering of
// completions, no timing).
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, uploadImage, type Member } from '../fixtures/datasets';
import { syntheticImage } from '../fixtures/segmentation';
import { buildKernels } from '../../assembly/build.mjs';
import { offload, offloadPool, OffloadPool, OffloadCrashed, OFFLOAD_NICE } from '../../src/server/offload/pool';
import { BuiltinSegmenter } from '../../src/server/services/segmentation/builtin';
import { buildStructure } from '../../src/server/services/segmentation/builtin/algorithm';
import { wasmOps } from '../../src/server/services/segmentation/builtin/wasm-ops';
import { runSteps } from '../../src/server/services/image-edit/builtin';
import { applyPixelStep, isPixelStep } from '../../src/server/services/image-edit/pixels';
import type { PhotoStep } from '../../src/server/services/image-edit/vocabulary';
import { labelClassTypes, parseLabelFile, unpackLabels } from '../../src/server/formats/yolo/read';
import { importedIds } from '../../src/server/services/import/convert';

const PHOTO_STEPS: PhotoStep[] = ['brighter', 'darker', 'more_contrast', 'less_contrast', 'grayscale', 'sepia', 'blur', 'sharpen', 'noise', 'night', 'fog', 'rain', 'snow', 'sunset'];

const W = 400, H = 300;
const scene = syntheticImage(5, W, H);

beforeAll(async () => {
  await buildKernels({ quiet: true });
}, 120_000);

describe('segmentation on an offload thread', () => {
  it('builds the same structure as in-line', async () => {
    const inline = buildStructure(await wasmOps(), scene.rgb, W, H, 3);
    const moved = await offload('segmentationStructure', [scene.rgb, W, H]);
    expect(Object.keys(moved).sort()).toEqual(Object.keys(inline).sort());
    for (const key of Object.keys(inline) as (keyof typeof inline)[]) expect(moved[key], key).toEqual(inline[key]);
  }, 60_000);

  it('answers the same masks for the same clicks, the previous mask included', async () => {
    const image = { width: W, height: H, rgb: scene.rgb, w: W, h: H };
    const here = new BuiltinSegmenter(wasmOps);
    const there = new BuiltinSegmenter(wasmOps, (rgb, w, h) => offload('segmentationStructure', [rgb, w, h]));
    const [a, b] = [await here.embed(image), await there.embed(image)];
    const clicks = [
      { positive: [[200, 150]] as [number, number][], negative: [] as [number, number][] },
      { positive: [[200, 150]] as [number, number][], negative: [[20, 20]] as [number, number][] },
    ];
    let prevA: unknown, prevB: unknown;
    for (const points of clicks) {
      const [pa, pb] = [await here.predict(a, points, prevA), await there.predict(b, points, prevB)];
      expect(pa.mask.data.some((v) => v === 1)).toBe(true);
      expect(Buffer.from(pb.mask.data)).toEqual(Buffer.from(pa.mask.data));
      expect(pb.score).toBe(pa.score);
      [prevA, prevB] = [pa.state, pb.state];
    }
  }, 60_000);

  it("fails a task whose thread dies with OffloadCrashed, and the pool's next task still runs", async () => {
    const pool = new OffloadPool(1);
    try {
      // The thread is stopped mid-task, as a crash or an out-of-memory end would stop it.
      const task = pool.run('segmentationStructure', [scene.rgb, W, H]);
      await new Promise((r) => setTimeout(r, 0));
      while (!pool.running().length) await new Promise((r) => setTimeout(r, 5));
      await (pool as unknown as { slots: { worker: { terminate(): Promise<number> } }[] }).slots[0]!.worker.terminate();
      await expect(task).rejects.toBeInstanceOf(OffloadCrashed);
      const again = await pool.run('segmentationStructure', [scene.rgb, W, H]);
      expect(again.w).toBe(W);
    } finally {
      await pool.close();
    }
  }, 60_000);
});

/** The nice value of each thread of this process (Linux /proc; empty elsewhere). */
function threadNices(): Map<number, number> {
  const out = new Map<number, number>();
  const dir = `/proc/${process.pid}/task`;
  if (!fs.existsSync(dir)) return out;
  for (const tid of fs.readdirSync(dir)) {
    const stat = fs.readFileSync(`${dir}/${tid}/stat`, 'utf8');
    out.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])); // field 19: nice
  }
  return out;
}

describe('the pool', () => {
  it.skipIf(process.platform !== 'linux')('runs its threads at a lower CPU priority than the event loop, so busy cores go to requests first', async () => {
    const before = new Set(threadNices().keys());
    const pool = new OffloadPool(1);
    try {
      await pool.run('segmentationStructure', [scene.rgb, W, H]);
      const main = threadNices().get(process.pid)!;
      const added = [...threadNices()].filter(([tid]) => !before.has(tid));
      expect(added.map(([, nice]) => nice)).toContain(Math.min(19, main + OFFLOAD_NICE));
      expect(OFFLOAD_NICE).toBeGreaterThan(0);
      expect(threadNices().get(process.pid)).toBe(main); // the event loop's own priority is unchanged
    } finally {
      await pool.close();
    }
  }, 60_000);

  it("keeps a thread for requests: a process-image's task does not wait behind long job tasks", async () => {
    const pool = new OffloadPool(2);
    try {
      // Both threads up first. Two tasks at once do not ensure it: the first thread may answer both before the second is ready.
      await Promise.all([pool.run('segmentationStructure', [scene.rgb, W, H]), pool.run('segmentationStructure', [scene.rgb, W, H])]);
      const slots = (pool as unknown as { slots: { ready: boolean }[] }).slots;
      while (slots.length < 2 || !slots.every((s) => s.ready)) await new Promise((r) => setTimeout(r, 5));
      const big = { data: new Uint8Array(4000 * 3000 * 3).fill(90), width: 4000, height: 3000, channels: 3 };
      const jobs = [pool.run('imageEditPixels', [big, 'noise', 1]), pool.run('imageEditPixels', [big, 'noise', 2]), pool.run('segmentationStructure', [scene.rgb, W, H])];
      // Tasks start as they are queued: the request took the second thread at once, while the second edit waits for the first
      // (which of the two then finishes first is up to the machine's load, so it is not asserted).
      expect(pool.running().sort()).toEqual(['imageEditPixels', 'segmentationStructure']);
      await Promise.all(jobs);
    } finally {
      await pool.close();
    }
  }, 60_000);
});

describe('routes', () => {
  it("run every task of a route on the thread that holds its state, and start again elsewhere when that thread stops", async () => {
    const pool = new OffloadPool(2);
    const image = () => ({ width: W, height: H, rgb: scene.rgb.slice(), w: W, h: H });
    const click = (key: string) => pool.run('segmentClick', [key, 'u', { positive: [[200, 150]], negative: [] }, { usePrevious: false, tolerance: 0.75, logitSide: 64 }], [], { route: key });
    try {
      // Two images held at once: one on each thread.
      await Promise.all(['k1', 'k2'].map((key) => pool.run('segmentHold', [key, image(), 1 << 30], [], { route: key })));
      const answers = await Promise.all(['k1', 'k2', 'k1', 'k2', 'k2', 'k1'].map(click));
      expect(answers.every((a) => a.area > 0)).toBe(true);
      expect(new Set(answers.map((a) => a.counts)).size).toBe(1); // the same image, the same click
      // The thread holding k1 stops: its route starts again on a thread that does not hold k1.
      const slots = (pool as unknown as { slots: { worker: { terminate(): Promise<number> } }[] }).slots;
      await Promise.all(slots.map((s) => s.worker.terminate()));
      await expect(click('k1')).rejects.toMatchObject({ name: 'EmbeddingGone' });
    } finally {
      await pool.close();
    }
  }, 60_000);
});

describe('routes and job tasks', () => {
  it("sends a job's task to the thread holding fewer routes, so a click on a held image does not wait behind it", async () => {
    const pool = new OffloadPool(2);
    try {
      await Promise.all([pool.run('segmentationStructure', [scene.rgb, W, H]), pool.run('segmentationStructure', [scene.rgb, W, H])]);
      await pool.run('segmentHold', ['held', { width: W, height: H, rgb: scene.rgb.slice(), w: W, h: H }, 1 << 30], [], { route: 'held' });
      const labels = Array.from({ length: 20_000 }, (_, k) => `${k % 2} 0.5 0.5 0.1 0.1`).join('\n');
      const job = pool.run('yoloLabels', [labels, ['a', 'b'], undefined]);
      const click = pool.run('segmentClick', ['held', 'u', { positive: [[200, 150]], negative: [] }, { usePrevious: false, tolerance: 0.75, logitSide: 64 }], [], { route: 'held' });
      // Both started at once: the job's task took the thread that holds no image.
      expect(pool.running().sort()).toEqual(['segmentClick', 'yoloLabels']);
      expect((await click).area).toBeGreaterThan(0);
      expect((await job).classes.length + (await job).leftOut).toBe(20_000); // parsed up to the per-image cap, the rest counted
    } finally {
      await pool.close();
    }
  }, 60_000);
});

describe('Magic Image Edit pixel steps on an offload thread', () => {
  it('give the same bytes as in-line, step by step and chained', async () => {
    const png = await sharp(Buffer.from(scene.rgb), { raw: { width: W, height: H, channels: 3 } }).png().toBuffer();
    const inline = async (img: Parameters<typeof applyPixelStep>[0], step: Parameters<typeof applyPixelStep>[1], seed: number) => applyPixelStep(img, step, seed);
    const pixelSteps = PHOTO_STEPS.filter(isPixelStep);
    expect(pixelSteps).toContain('noise');
    for (const step of pixelSteps) {
      const [a, b] = [await runSteps(png, 'image/png', [step], 11, inline), await runSteps(png, 'image/png', [step], 11)];
      expect(b.bytes.equals(a.bytes), step).toBe(true);
      expect(b.bytes.equals(png), step).toBe(false);
    }
    const chain = ['noise', 'rain', 'fog', 'rotate_90', 'snow'] as const;
    const [a, b] = [await runSteps(png, 'image/jpeg', chain, 3, inline), await runSteps(png, 'image/jpeg', chain, 3)];
    expect(b.bytes.equals(a.bytes)).toBe(true);
    expect([b.width, b.height]).toEqual([H, W]);
  }, 60_000);
});

describe("an import's YOLO label files on an offload thread", () => {
  it('parse into the same annotations, skipped lines and class types as in-line', async () => {
    const names = ['car', 'road'];
    const lines = Array.from({ length: 3000 }, (_, k) => (k % 7 === 3 ? `1 0.1 0.1 0.9 0.1 0.5 0.${k % 9}` : k % 11 === 5 ? `0 0.5 oops 0.1 0.1` : `${k % 2} 0.${k % 97} 0.${k % 89} 0.01 0.02${k % 13 === 0 ? ' 0.5' : ''}`));
    const text = lines.join('\n');
    const inline = parseLabelFile(text, names);
    const packed = await offload('yoloLabels', [text, names, undefined]);
    expect(unpackLabels(packed, names)).toEqual(inline);
    expect(inline.skipped.length).toBeGreaterThan(0);
    expect(await offload('yoloClassTypes', [text, names, undefined])).toEqual(labelClassTypes(text, names));
    expect(await offload('importedIds', ['imp', 'labels/a.txt', 1500])).toEqual(importedIds('imp', 'labels/a.txt', 1500));
  }, 60_000);
});

describe('requests during heavy work', () => {
  let server: TestServer;
  let owner: Member;
  let project: { id: string };

  beforeAll(async () => {
    server = await sharedServer();
    owner = await onboardedUser(server);
    project = await createProject(server, owner);
    // A 12 MP photo-like picture (the synthetic scene enlarged).
    const big = await sharp(Buffer.from(scene.rgb), { raw: { width: W, height: H, channels: 3 } }).resize(4000, 3000).jpeg({ quality: 85 }).toBuffer();
    await uploadImage(server, owner, project.id, 'big.jpg', big);
  }, 120_000);

  it('answers /api/v1/health while a 12 MP process-image is being prepared, before it finishes', async () => {
    const done: string[] = [];
    const heavy = api(server.url, 'POST', '/api/v1/auto-annotate/sam2/process-image', { token: owner.token, body: { project_id: project.id, image_name: 'big.jpg' } }).then((res) => {
      done.push('process-image');
      return res;
    });
    // The embedding's structure is being built on a thread (in-line, this loop would never see it run).
    while (!offloadPool().running().includes('segmentHold')) {
      expect(done).toEqual([]);
      await new Promise((r) => setTimeout(r, 2));
    }
    const health = await api(server.url, 'GET', '/api/v1/health');
    done.push('health');
    expect(health.status).toBe(200);
    const res = await heavy;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.size).toEqual({ width: 4000, height: 3000 });
    expect(done).toEqual(['health', 'process-image']);
  }, 120_000);
});
