// Tile pyramids of large images (GET /api/v1/images/{id}/tiles): made by a job of kind 'tiles'
// queued when the upload registers (or when a request finds none), served as signed WebP tiles per
// level, isolated per organization, removed with the image. One job per image; a build whose
// worker died is taken by another when the lease runs out; a failed build is reported once.
import sharp from 'sharp';
import { and, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, sharedServer, startServer, type TestServer } from './harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';
import { deleteTiles, startTilesWorkers, tilesJobId, tilesPrefix } from '../../src/server/services/tiles';
import { jobs } from '../../src/server/db/schema';

let server: TestServer;
let owner: Member;
let stranger: Member;
let project: { id: string };

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
  stranger = await onboardedUser(server);
  project = await createProject(server, owner);
}, 60_000);

/** 9000 x 5000, grey with a red square at (1000..1500, 1000..1500) and a blue one at the far corner. */
async function largePng(): Promise<Buffer> {
  const square = (r: number, g: number, b: number) => sharp({ create: { width: 500, height: 500, channels: 3, background: { r, g, b } } }).png().toBuffer();
  return sharp({ create: { width: 9000, height: 5000, channels: 3, background: { r: 128, g: 128, b: 128 } } })
    .composite([
      { input: await square(255, 0, 0), left: 1000, top: 1000 },
      { input: await square(0, 0, 255), left: 8500, top: 4500 },
    ])
    .png()
    .toBuffer();
}

/** 4500 x 600: just above the size that gets a pyramid, quick to build. */
const widePng = () => png(4500, 600, '#808080');

const tiles = (id: string, token = owner.token, on = server) => api(on.url, 'GET', `/api/v1/images/${id}/tiles`, { token });

async function readyTiles(id: string, token = owner.token, on = server) {
  for (let i = 0; i < 240; i++) {
    const res = await tiles(id, token, on);
    expect(res.status).toBe(200);
    if (res.body.status === 'ready') return res.body;
    expect(res.body.status).toBe('pending');
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('the pyramid was not ready in 2 minutes');
}

async function pixelsOf(url: string) {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  const img = sharp(Buffer.from(await res.arrayBuffer()));
  const meta = await img.metadata();
  const { data, info } = await img.raw().toBuffer({ resolveWithObject: true });
  return { format: meta.format, width: info.width, height: info.height, at: (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)] };
}

describe('image tiles', () => {
  it('answers none for an image small enough to draw whole', async () => {
    const small = await uploadImage(server, owner, project.id, 'small.png', await png(800, 600));
    expect((await tiles(small.id)).body).toEqual({ status: 'none' });
  });

  it('makes a pyramid of a large image: every level as signed WebP tiles, down to one tile for the whole image', async () => {
    const big = await uploadImage(server, owner, project.id, 'large.png', await largePng());
    const body = await readyTiles(big.id);
    expect(body).toMatchObject({ width: 9000, height: 5000, tile_size: 512 });
    // Tile URLs live at most an hour, like every signed GET URL (issue 15: they lived 12 h).
    expect(Date.parse(body.expires_at) - Date.now()).toBeLessThanOrEqual(3_600_000 + 2_000);
    expect(body.levels.map((l: { level: number; cols: number; rows: number }) => [l.level, l.cols, l.rows])).toEqual([
      [0, 18, 10],
      [1, 9, 5],
      [2, 5, 3],
      [3, 3, 2],
      [4, 2, 1],
      [5, 1, 1],
    ]);
    for (const l of body.levels) expect(l.urls).toHaveLength(l.cols * l.rows);

    // Full resolution: the tile holding the red square, and the clipped last tile.
    const red = await pixelsOf(body.levels[0].urls[2 * 18 + 2]);
    expect(red).toMatchObject({ format: 'webp', width: 512, height: 512 });
    expect(red.at(1250 - 1024, 1250 - 1024)).toEqual([expect.closeTo(255, -1), expect.closeTo(0, -1), expect.closeTo(0, -1)]);
    expect(red.at(500, 500)).toEqual([expect.closeTo(128, -1), expect.closeTo(128, -1), expect.closeTo(128, -1)]);
    const last = await pixelsOf(body.levels[0].urls[9 * 18 + 17]);
    expect([last.width, last.height]).toEqual([9000 - 17 * 512, 5000 - 9 * 512]);
    expect(last.at(last.width - 20, last.height - 20)[2]).toBeGreaterThan(200);
    // The top level is the whole image at 1/32.
    const top = await pixelsOf(body.levels[5].urls[0]);
    expect([top.width, top.height]).toEqual([Math.ceil(9000 / 32), Math.ceil(5000 / 32)]);
    expect(top.at(Math.round(1250 / 32), Math.round(1250 / 32))[0]).toBeGreaterThan(200);
  }, 180_000);

  it('answers another organization\'s image with 404, and removes the pyramid with the image', async () => {
    const big = await uploadImage(server, owner, project.id, 'large2.png', await largePng());
    await readyTiles(big.id);
    expect((await tiles(big.id, stranger.token)).status).toBe(404);

    const storage = server.built.ctx.storage;
    const keysLeft = async () => {
      const keys: string[] = [];
      for await (const o of storage.list(owner.org.gcs_bucket_name, tilesPrefix({ id: big.id, gcsPath: big.gcs_path }))) keys.push(o.key);
      return keys;
    };
    expect((await keysLeft()).length).toBeGreaterThan(200);
    const del = await api(server.url, 'DELETE', `/api/v1/projects/${project.id}/images`, { token: owner.token, body: { image_ids: [big.id] } });
    expect(del.status).toBe(200);
    expect(await keysLeft()).toEqual([]);
  }, 180_000);
});

describe('tiles jobs', () => {
  const jobOf = async (on: TestServer, imageId: string) => (await on.built.ctx.db.select().from(jobs).where(eq(jobs.id, tilesJobId(imageId))))[0];
  const jobsOfImage = async (on: TestServer, imageId: string) =>
    on.built.ctx.db.select().from(jobs).where(and(eq(jobs.kind, 'tiles'), sql`${jobs.payload}->>'image_id' = ${imageId}`));
  const dropPyramid = async (on: TestServer, bucket: string, img: { id: string } & Record<string, unknown>) =>
    deleteTiles(on.built.ctx, bucket, [{ id: img.id, gcsPath: String(img.gcs_path) }]);

  it('the registration queues one job, which builds the pyramid; a request finding neither pyramid nor job queues one, once however many ask', async () => {
    const img = await uploadImage(server, owner, project.id, 'wide.png', await widePng());
    expect((await readyTiles(img.id)).levels[0]).toMatchObject({ cols: 9, rows: 2 });
    expect(await jobsOfImage(server, img.id)).toEqual([expect.objectContaining({ status: 'completed', attempts: 1, organizationId: owner.org.id, lockedBy: null })]);

    // The pyramid went missing and its job is gone: four requests at once, one job.
    expect(await dropPyramid(server, owner.org.gcs_bucket_name, img)).toBeGreaterThan(0);
    await server.built.ctx.db.delete(jobs).where(eq(jobs.id, tilesJobId(img.id)));
    const answers = await Promise.all([1, 2, 3, 4].map(() => tiles(img.id)));
    // Each is told to wait, or (when the build finished before its request was read: the worker is
    // woken at once, and a loaded machine may read the last request late) gets the new pyramid.
    expect(answers.some((a) => a.body.status === 'pending')).toBe(true);
    for (const a of answers) expect(a.body.status === 'pending' ? a.body : a.body.levels[0]).toMatchObject(a.body.status === 'pending' ? { status: 'pending' } : { cols: 9, rows: 2 });
    expect(await jobsOfImage(server, img.id)).toHaveLength(1);
    await readyTiles(img.id);
    expect(await jobOf(server, img.id)).toMatchObject({ status: 'completed', attempts: 1 });
  }, 120_000);

  it('a failed build is reported once; the next request queues it again', async () => {
    const img = await uploadImage(server, owner, project.id, 'wide-failed.png', await widePng());
    await readyTiles(img.id);
    await dropPyramid(server, owner.org.gcs_bucket_name, img);
    await server.built.ctx.db.update(jobs).set({ status: 'failed', error: 'the disk was full' }).where(eq(jobs.id, tilesJobId(img.id)));
    expect((await tiles(img.id)).body).toEqual({ status: 'failed', error: 'The image could not be prepared for viewing: the disk was full' });
    expect((await tiles(img.id)).body).toEqual({ status: 'pending' });
    await readyTiles(img.id);
  }, 120_000);

  it('a build whose worker died is taken by another worker once its lease ran out; a stop hands a build back; TILES_CONCURRENCY=0 only queues', async () => {
    const requests = await startServer({ TILES_CONCURRENCY: '0' });
    let workers: ReturnType<typeof startTilesWorkers> | null = null;
    try {
      const user = await onboardedUser(requests);
      const proj = await createProject(requests, user);
      const img = await uploadImage(requests, user, proj.id, 'wide.png', await widePng());
      expect((await tiles(img.id, user.token, requests)).body).toEqual({ status: 'pending' });
      expect(await jobOf(requests, img.id)).toMatchObject({ status: 'queued', attempts: 0 });

      // A worker claimed it and died: the row says running, held by it until a moment ago.
      const db = requests.built.ctx.db;
      await db.update(jobs).set({ status: 'running', lockedBy: 'crashed-host:1:dead', lockedUntil: new Date(Date.now() - 1000), attempts: 1 }).where(eq(jobs.id, tilesJobId(img.id)));
      expect((await tiles(img.id, user.token, requests)).body).toEqual({ status: 'pending' });
      expect(await jobsOfImage(requests, img.id)).toHaveLength(1);

      // Another process's workers.
      workers = startTilesWorkers(requests.built.ctx, { concurrency: 1, pollMs: 100, leaseMs: 5000 });
      expect((await readyTiles(img.id, user.token, requests)).levels[0]).toMatchObject({ cols: 9, rows: 2 });
      expect(await jobOf(requests, img.id)).toMatchObject({ status: 'completed', attempts: 2, lockedBy: null });
      await workers.stop();

      // Workers stopped mid-build (the app closing) hand the job back, not counted as an attempt.
      const big = await uploadImage(requests, user, proj.id, 'large.png', await largePng());
      workers = startTilesWorkers(requests.built.ctx, { concurrency: 1, pollMs: 50, leaseMs: 5000 });
      for (let i = 0; (await jobOf(requests, big.id))?.status !== 'running'; i++) {
        if (i > 200) throw new Error('the build did not start');
        await new Promise((r) => setTimeout(r, 25));
      }
      await workers.stop();
      expect(await jobOf(requests, big.id)).toMatchObject({ status: 'queued', attempts: 0, lockedBy: null });
      expect((await tiles(big.id, user.token, requests)).body).toEqual({ status: 'pending' });
      workers = startTilesWorkers(requests.built.ctx, { concurrency: 1, pollMs: 100, leaseMs: 5000 });
      expect(await readyTiles(big.id, user.token, requests)).toMatchObject({ width: 9000, height: 5000 });
      expect(await jobOf(requests, big.id)).toMatchObject({ status: 'completed', attempts: 1 });
    } finally {
      await workers?.stop();
      await requests.stop();
    }
  }, 180_000);
});
