// Tile pyramids of large images (GET /api/v1/images/{id}/tiles): made after the upload registers,
// served as signed WebP tiles per level, isolated per organization, removed with the image.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, startServer, type TestServer } from './harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';
import { tilesPrefix } from '../../src/server/services/tiles';

let server: TestServer;
let owner: Member;
let stranger: Member;
let project: { id: string };

beforeAll(async () => {
  server = await startServer();
  owner = await onboardedUser(server);
  stranger = await onboardedUser(server);
  project = await createProject(server, owner);
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

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

const tiles = (id: string, token = owner.token) => api(server.url, 'GET', `/api/v1/images/${id}/tiles`, { token });

async function readyTiles(id: string) {
  for (let i = 0; i < 240; i++) {
    const res = await tiles(id);
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
