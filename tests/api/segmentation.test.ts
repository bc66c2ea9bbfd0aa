// Assisted segmentation (/api/v1/auto-annotate/sam2/...) as a client sees it: warmup and health,
// process-image with its cache, get-mask on a generated image with a known object (IoU after one
// click and after corrective clicks), the mask result's shape, save-segmentation into the image's
// annotation document, roles, tenant isolation and bad input (never a 500).
import { beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';
import { iou, nextClick, syntheticImage } from '../fixtures/segmentation';
import { and, eq } from 'drizzle-orm';
import { organizationMembers } from '../../src/server/db/schema';
import { GetMaskResponse } from '../../src/contract/segmentation';
import { LOOKUP_TTL_MS } from '../../src/server/services/segmentation';
import { foregroundBox } from '../../src/server/services/segmentation/maskBox';
import { loadKernelsNode, type Kernels } from '../../src/kernels/node';
import { buildKernels } from '../../assembly/build.mjs';

let server: TestServer;
let owner: Member;
let stranger: Member;
let viewer: { token: string; userId: string };
let project: { id: string };
let foreignProject: { id: string };
let k: Kernels;
const W = 400, H = 300;
const scene = syntheticImage(3, W, H);
const BASE = '/api/v1/auto-annotate/sam2';

beforeAll(async () => {
  await buildKernels({ quiet: true });
  k = await loadKernelsNode();
  server = await sharedServer();
  owner = await onboardedUser(server);
  stranger = await onboardedUser(server);
  project = await createProject(server, owner);
  await api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { classes: [{ name: 'blob', type: 'polygon', color: '#FFADAD' }] } });
  const bytes = await sharp(Buffer.from(scene.rgb), { raw: { width: W, height: H, channels: 3 } }).png().toBuffer();
  await uploadImage(server, owner, project.id, 'scene.png', bytes);
  await uploadImage(server, owner, project.id, 'second.png', bytes);
  await uploadImage(server, owner, project.id, 'third.png', bytes);
  await uploadImage(server, owner, project.id, 'flat.png', await png(64, 48));
  foreignProject = await createProject(server, stranger);
  await uploadImage(server, stranger, foreignProject.id, 'theirs.png', await png(32, 32));
  viewer = await onboardedUser(server);
  await server.built.ctx.db.insert(organizationMembers).values({ organizationId: owner.org.id, userId: viewer.userId, role: 'viewer' });
}, 120_000);

const post = (path: string, body: unknown, token = owner.token) => api(server.url, 'POST', `${BASE}/${path}`, { token, body });
const getMask = (body: Record<string, unknown>, token = owner.token) => post('get-mask', { project_id: project.id, image_name: 'scene.png', ...body }, token);

/** The mask's bounding box grown by `grow` of its size, [x, y, w, h]. */
function truthBox(truth: Uint8Array, w: number, h: number, grow: number): [number, number, number, number] {
  const { x0, x1, y0, y1 } = foregroundBox(truth, w, h)!;
  const gx = ((x1 - x0 + 1) * grow) / 2, gy = ((y1 - y0 + 1) * grow) / 2;
  return [Math.max(0, x0 - gx), Math.max(0, y0 - gy), x1 - x0 + 1 + 2 * gx, y1 - y0 + 1 + 2 * gy];
}

/** The response's COCO RLE decoded to a row-major 0/1 mask. */
function decodeRowMajor(mask: { size: [number, number]; counts: string }): Uint8Array {
  const [h, w] = mask.size;
  const col = k.decode(mask);
  const out = new Uint8Array(h * w);
  for (let x = 0; x < w; x++) for (let y = 0; y < h; y++) out[y * w + x] = col[x * h + y]!;
  return out;
}

describe('warmup and health', () => {
  it('needs a token', async () => {
    const res = await api(server.url, 'GET', `${BASE}/health`);
    expect(res.status).toBe(401);
    expect(res.body.success).toBe(false);
  });

  it('warms up and reports healthy with the built-in backend', async () => {
    const warm = await post('warmup', undefined);
    expect(warm.status).toBe(200);
    expect(['ready', 'warming']).toContain(warm.body.status);
    expect(warm.body.backend).toBe('builtin');
    let health = await api(server.url, 'GET', `${BASE}/health`, { token: owner.token });
    for (let i = 0; i < 30 && health.body.status !== 'healthy'; i++) {
      await new Promise((r) => setTimeout(r, 200));
      health = await api(server.url, 'GET', `${BASE}/health`, { token: owner.token });
    }
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'healthy', backend: 'builtin', model_loaded: true });
  });

  it('checks membership when an organization is named', async () => {
    const mine = await api(server.url, 'GET', `${BASE}/health?org_id=${owner.org.id}`, { token: owner.token });
    expect(mine.status).toBe(200);
    const theirs = await api(server.url, 'GET', `${BASE}/health?org_id=${stranger.org.id}`, { token: owner.token });
    expect(theirs.status).toBe(404);
  });
});

describe('process-image', () => {
  it('computes once, then answers already_loaded', async () => {
    const first = await post('process-image', { project_id: project.id, image_name: 'scene.png' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'success', size: { width: W, height: H }, backend: 'builtin' });
    expect(first.body.embedding_time).toBeGreaterThan(0);
    const again = await post('process-image', { project_id: project.id, image_name: 'scene.png', gcs_uri: 'gs://ignored/scene.png' });
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('already_loaded');
  });

  it('two requests at once share one computation', async () => {
    const [a, b] = await Promise.all([
      post('process-image', { project_id: project.id, image_name: 'second.png' }),
      post('process-image', { project_id: project.id, image_name: 'second.png' }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect([a.body.status, b.body.status].sort()).toEqual(['already_loaded', 'success']);
  });

  it('answers 404 for an unknown image, an unknown project and another organization', async () => {
    const unknown = await post('process-image', { project_id: project.id, image_name: 'nope.png' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ success: false, code: 'not_found' });
    const noProject = await post('process-image', { project_id: '00000000-0000-4000-8000-000000000000', image_name: 'scene.png' });
    expect(noProject.status).toBe(404);
    const foreign = await post('process-image', { project_id: foreignProject.id, image_name: 'theirs.png' });
    expect(foreign.status).toBe(404);
    expect(foreign.body.success).toBe(false);
  });

  it('an image whose file is not an image answers 422, one whose file is gone 404: never a 500', async () => {
    const junk = await uploadImage(server, owner, project.id, 'junk.png', await png(40, 30));
    await server.built.ctx.storage.put(owner.org.gcs_bucket_name, junk.gcs_path, Buffer.from('not a png at all'), { contentType: 'image/png' });
    const unreadable = await post('process-image', { project_id: project.id, image_name: 'junk.png' });
    expect(unreadable.status).toBe(422);
    expect(unreadable.body).toMatchObject({ success: false, code: 'image_unreadable' });
    // Remembered for a while: a click on it answers the same, without decoding again.
    const click = await getMask({ image_name: 'junk.png', positive_points: [[1, 1]] });
    expect(click.status).toBe(422);
    const gone = await uploadImage(server, owner, project.id, 'gone.png', await png(40, 30));
    await server.built.ctx.storage.delete(owner.org.gcs_bucket_name, gone.gcs_path);
    const missing = await post('process-image', { project_id: project.id, image_name: 'gone.png' });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ success: false, code: 'image_file_missing' });
  });

  it('refuses a malformed body with 400', async () => {
    const res = await post('process-image', { project_id: 'not-a-uuid', image_name: 'scene.png' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'validation_failed' });
    const raw = await fetch(`${server.url}${BASE}/process-image`, { method: 'POST', headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' }, body: '{"project_id":' });
    expect(raw.status).toBe(400);
    expect((await raw.json()).code).toBe('invalid_json');
  });
});

describe('BMP images (sharp cannot read them)', () => {
  it('process-image reads a BMP upload, and a click gives the mask its PNG twin gives', async () => {
    // The scene as a 24-bit bottom-up BMP, as Windows tools write it.
    const stride = Math.floor((24 * W + 31) / 32) * 4;
    const bmp = Buffer.alloc(54 + stride * H);
    bmp.write('BM', 0, 'latin1');
    bmp.writeUInt32LE(bmp.length, 2);
    bmp.writeUInt32LE(54, 10);
    bmp.writeUInt32LE(40, 14);
    bmp.writeInt32LE(W, 18);
    bmp.writeInt32LE(H, 22);
    bmp.writeUInt16LE(1, 26);
    bmp.writeUInt16LE(24, 28);
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const at = 54 + (H - 1 - y) * stride + x * 3;
        const i = (y * W + x) * 3;
        [bmp[at], bmp[at + 1], bmp[at + 2]] = [scene.rgb[i + 2]!, scene.rgb[i + 1]!, scene.rgb[i]!];
      }
    }
    await uploadImage(server, owner, project.id, 'scene.bmp', bmp);
    const processed = await post('process-image', { project_id: project.id, image_name: 'scene.bmp' });
    expect(processed.status, JSON.stringify(processed.body)).toBe(200);
    expect(processed.body.size).toEqual({ width: W, height: H });
    const [cx, cy] = scene.centre;
    const fromBmp = await getMask({ image_name: 'scene.bmp', positive_points: [[cx, cy]], negative_points: [] });
    const fromPng = await getMask({ image_name: 'scene.png', positive_points: [[cx, cy]], negative_points: [] });
    expect(fromBmp.status).toBe(200);
    expect(fromBmp.body.mask).toEqual(fromPng.body.mask);
  });
});

describe('every format upload accepts segments where the editor shows its pixels', () => {
  /** IoU of two masks of the same size, from the API's answers. */
  const maskIoU = (a: { size: [number, number]; counts: string }, b: { size: [number, number]; counts: string }) => {
    const ma = decodeRowMajor(a), mb = decodeRowMajor(b);
    let inter = 0, union = 0;
    for (let i = 0; i < ma.length; i++) {
      inter += ma[i]! & mb[i]!;
      union += ma[i]! | mb[i]!;
    }
    return union ? inter / union : 1;
  };
  const raw = () => sharp(Buffer.from(scene.rgb), { raw: { width: W, height: H, channels: 3 } });

  it.each([
    ['GIF', 'scene.gif', () => raw().gif().toBuffer(), 0.97],
    ['lossless WebP', 'scene.webp', () => raw().webp({ lossless: true }).toBuffer(), 1],
    ['16-bit PNG', 'scene16.png', () => raw().toColourspace('rgb16').png().toBuffer(), 1],
    ['CMYK JPEG', 'cmyk.jpg', () => raw().toColourspace('cmyk').jpeg({ quality: 95 }).toBuffer(), 0.95],
    // Stored turned a quarter to the left, with EXIF orientation 6 ("rotate 90 clockwise to show"):
    // the browser shows the scene upright, so the mask must be the upright scene's.
    ['EXIF-rotated JPEG', 'exif.jpg', () => raw().rotate(-90).jpeg({ quality: 95 }).withMetadata({ orientation: 6 }).toBuffer(), 0.95],
  ])('%s', async (_kind, name, make, minIoU) => {
    await uploadImage(server, owner, project.id, name, await make());
    const processed = await post('process-image', { project_id: project.id, image_name: name });
    expect(processed.status, JSON.stringify(processed.body)).toBe(200);
    expect(processed.body.size).toEqual({ width: W, height: H });
    const [cx, cy] = scene.centre;
    const mask = await getMask({ image_name: name, positive_points: [[cx, cy]], negative_points: [] });
    const twin = await getMask({ image_name: 'scene.png', positive_points: [[cx, cy]], negative_points: [] });
    expect(mask.status).toBe(200);
    expect(maskIoU(mask.body.mask, twin.body.mask)).toBeGreaterThanOrEqual(minIoU);
  });

  it('SVG, rasterised at its own size', async () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><rect width="${W}" height="${H}" fill="#204060"/><circle cx="200" cy="150" r="60" fill="#e0c040"/></svg>`;
    await uploadImage(server, owner, project.id, 'disc.svg', Buffer.from(svg));
    const processed = await post('process-image', { project_id: project.id, image_name: 'disc.svg' });
    expect(processed.status, JSON.stringify(processed.body)).toBe(200);
    expect(processed.body.size).toEqual({ width: W, height: H });
    const res = await getMask({ image_name: 'disc.svg', positive_points: [[200, 150]], negative_points: [] });
    expect(res.status).toBe(200);
    const mask = decodeRowMajor(res.body.mask);
    let inside = 0, outside = 0;
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        if (!mask[y * W + x]) continue;
        if ((x - 200) ** 2 + (y - 150) ** 2 <= 62 ** 2) inside++;
        else outside++;
      }
    }
    expect(inside).toBeGreaterThan(0.9 * Math.PI * 60 * 60);
    expect(outside).toBeLessThan(0.05 * Math.PI * 60 * 60);
  });
});

describe('get-mask', () => {
  it('one click inside the object gives a mask close to it, with the mask result fields', async () => {
    const [cx, cy] = scene.centre;
    const res = await getMask({ x: cx, y: cy, positive_points: [[cx, cy]], negative_points: [] });
    expect(res.status).toBe(200);
    const body = res.body;
    expect(body.status).toBe('success');
    expect(body.mask.size).toEqual([H, W]);
    expect(typeof body.mask.counts).toBe('string');
    const mask = decodeRowMajor(body.mask);
    let area = 0;
    for (const v of mask) area += v;
    expect(body.area).toBe(area);
    expect(iou(mask, scene.truth)).toBeGreaterThan(0.8);
    expect(mask[cy * W + cx]).toBe(1);
    const [bx, by, bw, bh] = body.bbox;
    expect(cx).toBeGreaterThanOrEqual(bx);
    expect(cx).toBeLessThan(bx + bw);
    expect(cy).toBeGreaterThanOrEqual(by);
    expect(cy).toBeLessThan(by + bh);
    expect(body.point_coords).toEqual([[cx, cy]]);
    expect(body.point_labels).toEqual([1]);
    // logits: a small row-major grid over the whole image (long side 64), > 0 where the mask is.
    const [lh, lw] = body.logits.size as [number, number];
    expect(Math.max(lh, lw)).toBe(64);
    expect(body.logits.data).toHaveLength(lh * lw);
    expect(body.logits.data[Math.floor((cy * lh) / H) * lw + Math.floor((cx * lw) / W)]).toBeGreaterThan(0);
    expect(body.logits.data[0]).toBeLessThan(0);
    expect(body.score).toBeGreaterThan(0);
    expect(body.score).toBeLessThanOrEqual(1);
    expect(body.inference_time).toBeGreaterThan(0);
    // The polygon with its holes rasterises back to (nearly) the same mask.
    expect(body.vellum_annotation.polygon.path.length).toBeGreaterThanOrEqual(3);
    expect(body.polygon).toEqual(body.vellum_annotation.polygon.path);
    const polys = body.vellum_annotations.map((a: { polygon: unknown }) => a.polygon);
    const col = k.polygonsToMask(polys, H, W);
    const back = new Uint8Array(W * H);
    for (let x = 0; x < W; x++) for (let y = 0; y < H; y++) back[y * W + x] = col[x * H + y]!;
    expect(iou(back, mask)).toBeGreaterThan(0.97);
    expect(body.vellum_annotation.metadata.sam2_area).toBeGreaterThan(0);
    // Outer rings run clockwise on screen (positive shoelace area in y-down coordinates), as the kernels give them.
    const path = body.vellum_annotation.polygon.path as [number, number][];
    let twice = 0;
    for (let i = 0, j = path.length - 1; i < path.length; j = i++) twice += path[j]![0] * path[i]![1] - path[i]![0] * path[j]![1];
    expect(twice).toBeGreaterThan(0);
  });

  it('corrective clicks at the largest error improve the mask', async () => {
    const pos: [number, number][] = [scene.centre], neg: [number, number][] = [];
    let res = await getMask({ positive_points: pos, negative_points: neg });
    const first = iou(decodeRowMajor(res.body.mask), scene.truth);
    let best = first;
    for (let i = 0; i < 4 && best < 0.95; i++) {
      const c = nextClick(decodeRowMajor(res.body.mask), scene.truth, W, H)!;
      (c.positive ? pos : neg).push([c.x, c.y]);
      res = await getMask({ positive_points: pos, negative_points: neg, use_previous_mask: true });
      expect(res.status).toBe(200);
      best = Math.max(best, iou(decodeRowMajor(res.body.mask), scene.truth));
    }
    expect(best).toBeGreaterThanOrEqual(Math.max(first, 0.9));
    expect(res.body.point_labels).toEqual([...pos.map(() => 1), ...neg.map(() => 0)]);
  });

  it('answers JSON that the contract schema accepts', async () => {
    const res = await getMask({ positive_points: [scene.centre], negative_points: [[3, 3]] });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(() => GetMaskResponse.parse(res.body)).not.toThrow();
  });

  it('a member removed from the organization is refused: saving at once, masks once the look-up expires', async () => {
    const leaver = await onboardedUser(server);
    const db = server.built.ctx.db;
    await db.insert(organizationMembers).values({ organizationId: owner.org.id, userId: leaver.userId, role: 'annotator' });
    try {
      const before = await getMask({ positive_points: [scene.centre] }, leaver.token);
      expect(before.status).toBe(200);
      await db.delete(organizationMembers).where(and(eq(organizationMembers.organizationId, owner.org.id), eq(organizationMembers.userId, leaver.userId)));
      const save = await post('save-segmentation', { project_id: project.id, image_name: 'scene.png', class_name: 'blob', mask: before.body.mask }, leaver.token);
      expect(save.status).toBe(404);
      server.built.ctx.now = () => new Date(Date.now() + LOOKUP_TTL_MS + 1000);
      const after = await getMask({ positive_points: [scene.centre] }, leaver.token);
      expect(after.status).toBe(404);
      expect(after.body.success).toBe(false);
    } finally {
      server.built.ctx.now = undefined;
    }
  });

  it('takes {x, y} points and negative points', async () => {
    const [cx, cy] = scene.centre;
    const res = await getMask({ positive_points: [{ x: cx, y: cy }], negative_points: [{ x: 2, y: 2 }] });
    expect(res.status).toBe(200);
    expect(res.body.point_labels).toEqual([1, 0]);
    expect(decodeRowMajor(res.body.mask)[2 * W + 2]).toBe(0);
  });

  it('a viewer may not ask for masks (assisted segmentation needs annotations.write)', async () => {
    const res = await getMask({ positive_points: [scene.centre] }, viewer.token);
    expect(res.status).toBe(403);
    expect((await post('process-image', { project_id: project.id, image_name: 'scene.png' }, viewer.token)).status).toBe(403);
  });

  it('refuses bad points with a clear 400', async () => {
    const outside = await getMask({ positive_points: [[W + 5, 10]] });
    expect(outside.status).toBe(400);
    expect(outside.body).toMatchObject({ success: false, code: 'point_outside_image' });
    const negative = await getMask({ positive_points: [scene.centre], negative_points: [[-1, 3]] });
    expect(negative.body.code).toBe('point_outside_image');
    const many = await getMask({ positive_points: Array.from({ length: 500 }, (_, i) => [i % W, 5]) });
    expect(many.status).toBe(400);
    expect(many.body.code).toBe('too_many_points');
    const huge = await getMask({ positive_points: Array.from({ length: 20_000 }, () => [1, 1]) });
    expect(huge.status).toBe(400);
    const none = await getMask({ positive_points: [], negative_points: [] });
    expect(none.status).toBe(400);
    expect(none.body.code).toBe('no_points');
    const onlyNegative = await getMask({ negative_points: [[3, 3]] });
    expect(onlyNegative.body.code).toBe('no_positive_point');
    const notNumbers = await getMask({ positive_points: [['a', 'b']] });
    expect(notNumbers.status).toBe(400);
    const nan = await getMask({ x: 'NaN', y: 1 });
    expect(nan.status).toBe(400);
  });

  it('a box around the object gives its mask alone and inside the box; clicks then refine it', async () => {
    const box = truthBox(scene.truth, W, H, 0.05);
    const alone = await getMask({ box });
    expect(alone.status).toBe(200);
    const mask = decodeRowMajor(alone.body.mask);
    expect(iou(mask, scene.truth)).toBeGreaterThan(0.8);
    let outside = 0;
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) if (mask[y * W + x] && (x < box[0] - 1 || y < box[1] - 1 || x > box[0] + box[2] || y > box[1] + box[3])) outside++;
    expect(outside).toBe(0);
    expect(alone.body.point_coords).toEqual([]);
    const c = nextClick(mask, scene.truth, W, H)!;
    const refined = await getMask({ box, [c.positive ? 'positive_points' : 'negative_points']: [[c.x, c.y]], use_previous_mask: true });
    expect(refined.status).toBe(200);
    expect(iou(decodeRowMajor(refined.body.mask), scene.truth)).toBeGreaterThan(0.8);
    // A box reaching past the image's edge is clipped to it.
    expect((await getMask({ box: [-20, -20, W + 40, H + 40], positive_points: [scene.centre] })).status).toBe(200);
  });

  it('snaps the polygons to the mask within the tolerance asked for, and refuses a bad one', async () => {
    const fine = await getMask({ positive_points: [scene.centre] });
    const coarse = await getMask({ positive_points: [scene.centre], tolerance: 4 });
    expect(coarse.status).toBe(200);
    const corners = (r: typeof fine) => (r.body.vellum_annotation.polygon.path as unknown[]).length;
    expect(corners(coarse)).toBeLessThan(corners(fine));
    // The mask itself does not change with the polygons' tolerance.
    expect(coarse.body.mask).toEqual(fine.body.mask);
    for (const tolerance of [-1, 101, 'x']) {
      const bad = await getMask({ positive_points: [scene.centre], tolerance });
      expect(bad.status).toBe(400);
      expect(bad.body.success).toBe(false);
    }
  });

  it('refuses a bad box with a clear 400', async () => {
    const flat = await getMask({ box: [10, 10, 0, 20] });
    expect(flat.status).toBe(400);
    expect(flat.body).toMatchObject({ success: false, code: 'invalid_box', error: 'The box needs a positive width and height' });
    const away = await getMask({ box: [W + 10, 0, 20, 20] });
    expect(away.body).toMatchObject({ success: false, code: 'box_outside_image' });
    expect((await getMask({ box: [1, 2, 3] })).status).toBe(400);
    expect((await getMask({ box: [1, 2, 3, 'x'] })).status).toBe(400);
  });

  it('answers 404 for an unknown image and another organization\'s image', async () => {
    const unknown = await getMask({ image_name: 'missing.png', positive_points: [[1, 1]] });
    expect(unknown.status).toBe(404);
    const foreign = await post('get-mask', { project_id: foreignProject.id, image_name: 'theirs.png', positive_points: [[1, 1]] });
    expect(foreign.status).toBe(404);
    const asStranger = await getMask({ positive_points: [[1, 1]] }, stranger.token);
    expect(asStranger.status).toBe(404);
  });

  it('computes the embedding itself when process-image was not called, and copes with a flat image', async () => {
    const third = await getMask({ image_name: 'third.png', positive_points: [scene.centre] });
    expect(third.status).toBe(200);
    const flat = await getMask({ image_name: 'flat.png', positive_points: [[10, 10]] });
    expect(flat.status).toBe(200);
    expect(flat.body.mask.size).toEqual([48, 64]);
  });
});

describe('save-segmentation', () => {
  async function maskFor() {
    return (await getMask({ positive_points: [scene.centre] })).body;
  }
  const loadDoc = async (token = owner.token) => {
    const image = (await api(server.url, 'GET', `/api/v1/projects/${project.id}/images?org_id=${owner.org.id}&search=scene.png`, { token })).body.images[0];
    return { image, doc: (await api(server.url, 'GET', `/api/v1/annotations/load-data/${image.id}?project_id=${project.id}`, { token })).body };
  };

  it('adds the mask as an annotation of the class and returns the new version', async () => {
    const m = await maskFor();
    const before = (await loadDoc()).doc;
    const res = await post('save-segmentation', {
      project_id: project.id,
      image_name: 'scene.png',
      class_name: 'blob',
      mask: m.mask,
      bbox: m.bbox,
      metadata: { score: m.score, area: m.area, point_count: 1, inference_time: m.inference_time, tool_used: 'sam2' },
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.version).toBe(before.version + 1);
    const a = res.body.annotation;
    expect(a).toMatchObject({ name: 'blob', segmentation: { size: [H, W], counts: m.mask.counts } });
    expect(a.bounding_box).toEqual({ x: m.bbox[0], y: m.bbox[1], w: m.bbox[2], h: m.bbox[3] });
    expect(a.metadata).toMatchObject({ score: m.score, area: m.area, tool_used: 'sam2' });
    const { doc, image } = await loadDoc();
    expect(doc.version).toBe(res.body.version);
    expect(doc.annotations.at(-1)).toEqual(a);
    expect(image.annotation_count).toBe(doc.annotations.length);
  });

  it('takes the polygons instead of the RLE', async () => {
    const m = await maskFor();
    const res = await post('save-segmentation', { project_id: project.id, image_name: 'scene.png', class_name: 'blob', vellum_annotation: m.vellum_annotation, metadata: {} });
    expect(res.status).toBe(200);
    const saved = decodeRowMajor(res.body.annotation.segmentation);
    expect(iou(saved, decodeRowMajor(m.mask))).toBeGreaterThan(0.95);
  });

  it('refuses an unknown class, a wrong-size mask, a stale version and a viewer', async () => {
    const m = await maskFor();
    const body = { project_id: project.id, image_name: 'scene.png', class_name: 'blob', mask: m.mask };
    const unknownClass = await post('save-segmentation', { ...body, class_name: 'nope' });
    expect(unknownClass.status).toBe(400);
    expect(unknownClass.body.code).toBe('unknown_class');
    const wrongSize = await post('save-segmentation', { ...body, mask: { size: [10, 10], counts: '0' } });
    expect(wrongSize.status).toBe(400);
    expect(wrongSize.body.code).toBe('invalid_mask');
    const garbage = await post('save-segmentation', { ...body, mask: { size: [H, W], counts: 'zz' } });
    expect(garbage.status).toBe(400);
    const stale = await post('save-segmentation', { ...body, base_version: 0 });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe('version_conflict');
    const noMask = await post('save-segmentation', { project_id: project.id, image_name: 'scene.png', class_name: 'blob' });
    expect(noMask.status).toBe(400);
    const asViewer = await post('save-segmentation', body, viewer.token);
    expect(asViewer.status).toBe(403);
    const foreign = await post('save-segmentation', { ...body, project_id: foreignProject.id, image_name: 'theirs.png' });
    expect(foreign.status).toBe(404);
  });
});

describe('OpenAPI', () => {
  it('lists the assisted-segmentation calls', async () => {
    const doc = await (await fetch(`${server.url}/api/docs/json`)).json();
    for (const p of ['warmup', 'health', 'process-image', 'get-mask', 'save-segmentation']) expect(Object.keys(doc.paths)).toContain(`${BASE}/${p}`);
  });
});
