// POST /api/v1/annotations/export: vellum and COCO zips, scopes, class filter, image files, errors.
import fs from 'node:fs';
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { annotationDocuments, images, organizationMembers } from '../../src/server/db/schema';
import { moveDocumentsToRows } from '../../src/server/db/annotation-rows';
import { decodeRle, encodeMask } from '../../src/contract/rle';
import { api, onboardedUser, startServer, type TestServer } from './harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';
import { expectPycocotoolsReadable } from '../support/coco-check';

let server: TestServer;
let owner: Member;
let other: Member;
let project: { id: string };
const W = 40;
const H = 30;
const ids: Record<string, string> = {};
const bytes: Record<string, Buffer> = {};

// A 3 x 4 mask at x 1..3, y 2..5 (column-major, as COCO).
const maskPixels = new Uint8Array(W * H);
for (let x = 1; x <= 3; x++) for (let y = 2; y <= 5; y++) maskPixels[x * H + y] = 1;

const annotationsA = [
  { id: 'box1', name: 'car', bounding_box: { x: 2, y: 3, w: 10, h: 5 }, attributes: [{ key: 'color', value: 'red' }] },
  { id: 'tri', name: 'roof', bounding_box: { x: 0, y: 0, w: 10, h: 10 }, polygon: { path: [[0, 0], [10, 0], [0, 10]] } },
  {
    id: 'ring',
    name: 'roof',
    bounding_box: { x: 10, y: 5, w: 20, h: 20 },
    polygon: { path: [[10, 5], [30, 5], [30, 25], [10, 25]], holes: [[[15, 10], [25, 10], [25, 20], [15, 20]]] },
  },
  { id: 'line', name: 'lane', bounding_box: { x: 0, y: 0, w: 20, h: 20 }, polyline: { path: [[0, 0], [20, 20]] } },
  { id: 'kp', name: 'eye', bounding_box: { x: 5, y: 6, w: 0, h: 0 }, keypoint: { x: 5, y: 6 } },
  { id: 'mask', name: 'blob', bounding_box: { x: 1, y: 2, w: 3, h: 4 }, segmentation: { size: [H, W], counts: encodeMask(maskPixels, H, W) }, sam2_area: 12, future_key: { a: [1, 2] } },
];
const annotationsB = [{ id: 'b1', name: 'car', bounding_box: { x: 1, y: 1, w: 4, h: 4 } }];
const annotationsC = [{ id: 'c1', name: 'car', bounding_box: { x: 0, y: 0, w: 2, h: 3 } }];

async function exportZip(body: Record<string, unknown>, token = owner.token) {
  const res = await fetch(`${server.url}/api/v1/annotations/export`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ project_id: project.id, ...body }),
  });
  const buf = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) return { status: res.status, headers: res.headers, error: JSON.parse(buf.toString()), zip: null as unknown as JSZip };
  return { status: res.status, headers: res.headers, error: null, zip: await JSZip.loadAsync(buf) };
}
const entries = (zip: JSZip) => Object.keys(zip.files).filter((n) => !zip.files[n]!.dir).sort();
const json = async (zip: JSZip, name: string) => JSON.parse(await zip.file(name)!.async('string'));

beforeAll(async () => {
  server = await startServer();
  owner = await onboardedUser(server);
  other = await onboardedUser(server);
  project = await createProject(server, owner, 'Street Scenes');
  const classes = [
    { name: 'car', type: 'box', color: '#ff0000' },
    { name: 'roof', type: 'polygon', color: '#00ff00' },
    { name: 'lane', type: 'polyline', color: '#0000ff' },
    { name: 'eye', type: 'keypoint', color: '#ffff00' },
    { name: 'blob', type: 'polygon', color: '#00ffff' },
  ];
  expect((await api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { classes } })).status).toBe(200);
  expect((await api(server.url, 'POST', '/api/folders/create', { token: owner.token, body: { project_id: project.id, name: 'cats' } })).status).toBe(200);
  bytes.a = await png(W, H, '#112233');
  bytes.b = await png(W, H, '#445566');
  bytes.c = await png(W, H, '#778899');
  ids.a = (await uploadImage(server, owner, project.id, 'a.png', bytes.a)).id;
  ids.b = (await uploadImage(server, owner, project.id, 'b.png', bytes.b, { folder: '/cats' })).id;
  ids.c = (await uploadImage(server, owner, project.id, 'c.png', bytes.c)).id;
  for (const id of [ids.a, ids.b]) {
    expect((await api(server.url, 'PATCH', `/api/v1/images/${id}/status`, { token: owner.token, body: { status: 'complete' } })).status).toBe(200);
  }
  // Written straight into the table (registration may already have created empty documents).
  const docs = [
    { imageId: ids.a!, projectId: project.id, annotations: annotationsA, version: 3 },
    { imageId: ids.b!, projectId: project.id, annotations: annotationsB, version: 1 },
    { imageId: ids.c!, projectId: project.id, annotations: annotationsC, version: 1 },
  ];
  for (const doc of docs) {
    await server.built.ctx.db.insert(annotationDocuments).values(doc).onConflictDoUpdate({ target: annotationDocuments.imageId, set: { annotations: doc.annotations, version: doc.version } });
  }
  // Documents written in the old one-list layout, moved into rows as start-up moves them.
  await moveDocumentsToRows(server.built.ctx.database);
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

describe('vellum format', () => {
  it('exports the complete images losslessly, without image files by default', async () => {
    const res = await exportZip({});
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toContain('filename="Street Scenes_vellum.zip"');
    expect(entries(res.zip)).toEqual(['README.txt', 'annotations/a.png.json', 'annotations/cats/b.png.json', 'vellum.json']);
    const a = await json(res.zip, 'annotations/a.png.json');
    expect(a.annotations).toEqual(annotationsA);
    expect(a.version).toBe(3);
    expect(a.image).toMatchObject({ filename: 'a.png', folder: '/', width: W, height: H, status: 'complete', is_edited: false });
    const b = await json(res.zip, 'annotations/cats/b.png.json');
    expect(b.image.folder).toBe('/cats');
    expect(b.annotations).toEqual(annotationsB);
    const manifest = await json(res.zip, 'vellum.json');
    expect(manifest).toMatchObject({ format: 'vellum', version: 1, project: { name: 'Street Scenes', annotation_types: ['box'] }, folders: ['/cats'], image_count: 2, annotation_count: 7 });
    expect(manifest.project.classes.map((c: { name: string }) => c.name)).toEqual(['car', 'roof', 'lane', 'eye', 'blob']);
    expect(typeof manifest.exported_at).toBe('string');
  });

  it('includes image files byte for byte, and image_ids alone mean the selection', async () => {
    const res = await exportZip({ image_ids: [ids.c], include_images: true, name: 'Pick' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('filename="Pick_vellum.zip"');
    expect(entries(res.zip)).toEqual(['README.txt', 'annotations/c.png.json', 'images/c.png', 'vellum.json']);
    expect(Buffer.from(await res.zip.file('images/c.png')!.async('uint8array')).equals(bytes.c!)).toBe(true);
    expect((await json(res.zip, 'annotations/c.png.json')).annotations).toEqual(annotationsC);
  });

  it('current_filters applies the images list filters; class_filter keeps only those classes', async () => {
    const res = await exportZip({ scope: 'current_filters', filters: { folder_path: '/cats' } });
    expect(entries(res.zip)).toEqual(['README.txt', 'annotations/cats/b.png.json', 'vellum.json']);
    const all = await exportZip({ scope: 'current_filters', filters: {}, class_filter: ['roof'] });
    expect(entries(all.zip)).toEqual(['README.txt', 'annotations/a.png.json', 'annotations/c.png.json', 'annotations/cats/b.png.json', 'vellum.json']);
    expect((await json(all.zip, 'annotations/a.png.json')).annotations).toEqual(annotationsA.filter((a) => a.name === 'roof'));
    expect((await json(all.zip, 'annotations/c.png.json')).annotations).toEqual([]);
    // The manifest carries each class's tools (issue 33), so an import gives the class the same tools.
    expect((await json(all.zip, 'vellum.json')).project.classes).toEqual([{ name: 'roof', type: 'polygon', color: '#00ff00', tools: ['polygon', 'mask'] }]);
  });
});

describe('coco format', () => {
  it('writes COCO instances whose file names match the zip entries', async () => {
    const res = await exportZip({ format: 'coco', include_images: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('filename="Street Scenes_coco.zip"');
    expect(entries(res.zip)).toEqual(['README.txt', 'annotations.json', 'images/a.png', 'images/cats/b.png']);
    const coco = await json(res.zip, 'annotations.json');
    expect(Object.keys(coco)).toEqual(expect.arrayContaining(['info', 'images', 'annotations', 'categories']));
    expect(coco.images).toEqual([
      { id: 1, file_name: 'images/a.png', width: W, height: H },
      { id: 2, file_name: 'images/cats/b.png', width: W, height: H },
    ]);
    for (const img of coco.images) expect(res.zip.file(img.file_name)).not.toBeNull();
    expect(Buffer.from(await res.zip.file('images/cats/b.png')!.async('uint8array')).equals(bytes.b!)).toBe(true);
    const cat = (name: string) => coco.categories.find((c: { name: string }) => c.name === name);
    expect(coco.categories.map((c: { id: number; name: string }) => [c.id, c.name])).toEqual([[1, 'car'], [2, 'roof'], [3, 'lane'], [4, 'eye'], [5, 'blob']]);
    expect(cat('eye')).toEqual({ id: 4, name: 'eye', supercategory: '', keypoints: ['point'], skeleton: [] });
    expect(cat('car').supercategory).toBe('');

    const anns = coco.annotations as Array<Record<string, any>>;
    expect(anns.map((a) => a.id)).toEqual([1, 2, 3, 4, 5, 6]); // the polyline is left out
    for (const a of anns) expect(a.iscrowd).toBe(0);
    const [box, tri, ring, kp, mask, boxB] = anns;
    expect(box).toMatchObject({ image_id: 1, category_id: 1, bbox: [2, 3, 10, 5], area: 50, segmentation: [[2, 3, 12, 3, 12, 8, 2, 8]] });
    expect(tri).toMatchObject({ image_id: 1, category_id: 2, bbox: [0, 0, 10, 10], area: 50, segmentation: [[0, 0, 10, 0, 0, 10]] });
    // Polygon with a hole: compressed RLE over the whole image, 20x20 minus 10x10 pixels.
    expect(ring).toMatchObject({ image_id: 1, category_id: 2, bbox: [10, 5, 20, 20], area: 300 });
    expect(ring.segmentation.size).toEqual([H, W]);
    expect(typeof ring.segmentation.counts).toBe('string');
    const ringMask = decodeRle(ring.segmentation);
    expect(ringMask.reduce((s, v) => s + v, 0)).toBe(300);
    expect(ringMask[20 * H + 15]).toBe(0); // inside the hole
    expect(ringMask[12 * H + 7]).toBe(1); // in the ring
    expect(kp).toMatchObject({ image_id: 1, category_id: 4, keypoints: [5, 6, 2], num_keypoints: 1, bbox: [5, 6, 0, 0], area: 0 });
    // The point as a zero-area triangle, not [] (pycocotools' frPyObjects indexes segm[0]).
    expect(kp.segmentation).toEqual([[5, 6, 5, 6, 5, 6]]);
    // What pycocotools needs of every annotation (../support/coco-check.ts).
    expectPycocotoolsReadable(coco);
    expect(mask).toMatchObject({ image_id: 1, category_id: 5, bbox: [1, 2, 3, 4], area: 12 });
    expect(typeof mask.segmentation.counts).toBe('string');
    expect(decodeRle(mask.segmentation)).toEqual(maskPixels);
    expect(boxB).toMatchObject({ image_id: 2, category_id: 1, bbox: [1, 1, 4, 4], area: 16 });

    const readme = await res.zip.file('README.txt')!.async('string');
    expect(readme).toContain('1 polyline annotation(s) were left out');
    expect(readme).toContain('images/a.png\tlane\t1');
    expect(readme).toContain('zero-area polygon');
  });

  it('class_filter keeps only those categories and annotations', async () => {
    const res = await exportZip({ format: 'coco', class_filter: ['car', 'lane'] });
    expect(entries(res.zip)).toEqual(['README.txt', 'annotations.json']);
    const coco = await json(res.zip, 'annotations.json');
    expect(coco.categories.map((c: { name: string }) => c.name)).toEqual(['car', 'lane']);
    expect(coco.annotations.map((a: { bbox: number[] }) => a.bbox)).toEqual([[2, 3, 10, 5], [1, 1, 4, 4]]);
    expect(await res.zip.file('README.txt')!.async('string')).toContain('images/a.png\tlane\t1');
    const none = await exportZip({ format: 'coco', class_filter: ['roof'], scope: 'selected', image_ids: [ids.b] });
    const cocoB = await json(none.zip, 'annotations.json');
    expect(cocoB.images).toHaveLength(1);
    expect(cocoB.annotations).toEqual([]);
    expect(await none.zip.file('README.txt')!.async('string')).toContain('Polylines: none left out.');
  });
});

describe('large selections', () => {
  let big: { id: string };
  const N = 1100; // more than two keyset batches of 500

  beforeAll(async () => {
    big = await createProject(server, owner, 'Big');
    const rows = Array.from({ length: N }, (_, i) => {
      const filename = `img-${String(i).padStart(5, '0')}.png`;
      return { id: randomUUID(), projectId: big.id, organizationId: owner.org.id, filename, gcsUri: `gs://x/${filename}`, gcsPath: `nowhere/${filename}`, mimeType: 'image/png', status: 'complete' as const, imageWidth: 10, imageHeight: 10 };
    });
    for (let i = 0; i < rows.length; i += 500) await server.built.ctx.db.insert(images).values(rows.slice(i, i + 500));
    await server.built.ctx.db.insert(annotationDocuments).values(rows.map((r, i) => ({ imageId: r.id, projectId: big.id, annotations: [{ id: `a${i}`, name: 'car', bounding_box: { x: i % 10, y: 0, w: 1, h: 1 } }], version: 1 })));
    await moveDocumentsToRows(server.built.ctx.database);
  }, 60_000);

  it('exports every image once, across batches, in filename order', async () => {
    const res = await exportZip({ project_id: big.id, format: 'coco' });
    expect(res.status).toBe(200);
    const coco = await json(res.zip, 'annotations.json');
    expect(coco.images).toHaveLength(N);
    expect(coco.images.map((im: { id: number }) => im.id)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    expect(coco.images[N - 1].file_name).toBe(`images/img-${String(N - 1).padStart(5, '0')}.png`);
    expect(coco.annotations).toHaveLength(N);
    expect(coco.annotations[N - 1]).toMatchObject({ id: N, image_id: N, bbox: [(N - 1) % 10, 0, 1, 1] });
  });

  it('lists image files missing from storage in README.txt instead of failing', async () => {
    const res = await exportZip({ project_id: big.id, scope: 'current_filters', filters: { search: 'img-00001' }, include_images: true });
    expect(res.status).toBe(200);
    expect(entries(res.zip).filter((n) => n.startsWith('images/'))).toEqual([]);
    expect(await res.zip.file('README.txt')!.async('string')).toContain('images/img-00001.png');
  });

  it('stops and cleans up when the client goes away', { timeout: 60_000 }, async () => {
    // An export far larger than the socket buffers, so the client leaves while it is being written.
    const heavy = await createProject(server, owner, 'Heavy');
    const rows = Array.from({ length: 300 }, (_, i) => {
      const filename = `h-${String(i).padStart(4, '0')}.png`;
      return { id: randomUUID(), projectId: heavy.id, organizationId: owner.org.id, filename, gcsUri: `gs://x/${filename}`, gcsPath: `nowhere/${filename}`, mimeType: 'image/png', status: 'complete' as const, imageWidth: 1000, imageHeight: 1000 };
    });
    await server.built.ctx.db.insert(images).values(rows);
    const path = () => Array.from({ length: 2000 }, () => [Math.random() * 1000, Math.random() * 1000]);
    for (const r of rows) {
      await server.built.ctx.db.insert(annotationDocuments).values({ imageId: r.id, projectId: heavy.id, annotations: [{ id: 'p', name: 'poly', bounding_box: { x: 0, y: 0, w: 1000, h: 1000 }, polygon: { path: path() } }], version: 1 });
    }
    await moveDocumentsToRows(server.built.ctx.database);
    // The server runs in this process: a temporary directory of this test's own keeps other
    // files' exports, running meanwhile in the other worker, out of the count.
    const ownTmp = fs.mkdtempSync(`${os.tmpdir()}/export-abandon-`);
    const previousTmp = process.env.TMPDIR;
    process.env.TMPDIR = ownTmp;
    onTestFinished(() => {
      if (previousTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previousTmp;
      fs.rmSync(ownTmp, { recursive: true, force: true });
    });
    const spools = () => fs.readdirSync(ownTmp).filter((n) => n.startsWith('vellum-export-'));
    const before = new Set(spools());
    // A plain HTTP client that reads one chunk and then closes its socket.
    const http = await import('node:http');
    const progressId = randomUUID();
    const payload = JSON.stringify({ project_id: heavy.id, format: 'coco', progress_id: progressId });
    const gone = new Promise<number>((resolve, reject) => {
      const req = http.request(`${server.url}/api/v1/annotations/export`, { method: 'POST', headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
        res.once('data', () => {
          res.pause();
          setTimeout(() => {
            const writing = spools().filter((n) => !before.has(n)).length; // still writing, waiting for the client
            req.destroy();
            if (writing === 1) resolve(res.statusCode!);
            else reject(new Error(`${writing} export spools while the client waits, expected 1`));
          }, 300);
        });
      });
      req.on('error', (err) => (err.message.includes('aborted') || err.message.includes('socket hang up') ? undefined : reject(err)));
      req.end(payload);
    });
    expect(await gone).toBe(200);
    let left = spools().filter((n) => !before.has(n));
    for (let i = 0; i < 50 && left.length > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      left = spools().filter((n) => !before.has(n));
    }
    expect(left).toEqual([]);
    // The dialog's progress says the export was cancelled (COCO had spooled every image: annotations.json was being sent).
    const progress = await api(server.url, 'GET', `/api/v1/annotations/export/progress?project_id=${heavy.id}&progress_id=${progressId}`, { token: owner.token });
    expect(progress.body).toMatchObject({ state: 'cancelled', image_count: 300 });
    // The server still answers.
    expect((await exportZip({ image_ids: [ids.c] })).status).toBe(200);
  });
});

describe('errors', () => {
  it('answers 400 with a readable message for bad selections and options', async () => {
    const noIds = await exportZip({ scope: 'selected' });
    expect(noIds.status).toBe(400);
    expect(noIds.error.error).toBe('Please select images to export');
    expect((await exportZip({ scope: 'selected', image_ids: [] })).error.error).toBe('Please select images to export');
    const nothing = await exportZip({ scope: 'current_filters', filters: { search: 'no-such-image' } });
    expect(nothing.status).toBe(400);
    expect(nothing.error.error).toBe('No images to export with the current selection');
    const otherProjectImage = await exportZip({ image_ids: ['00000000-0000-4000-8000-000000000000'] });
    expect(otherProjectImage.error.error).toBe('No images to export with the current selection');
    const blank = await exportZip({ name: '   ' });
    expect(blank.status).toBe(400);
    expect(blank.error.success).toBe(false);
    const noClasses = await exportZip({ class_filter: [] });
    expect(noClasses.status).toBe(400);
    expect(noClasses.error.code).toBe('no_classes_selected');
    expect((await exportZip({ format: 'cvat' })).status).toBe(400);
  });

  it('lets every member export, viewers included', async () => {
    const viewer = await onboardedUser(server);
    await server.built.ctx.db.insert(organizationMembers).values({ organizationId: owner.org.id, userId: viewer.userId, role: 'viewer' });
    const res = await exportZip({ format: 'coco' }, viewer.token);
    expect(res.status).toBe(200);
    expect((await json(res.zip, 'annotations.json')).images).toHaveLength(2);
  });

  it("answers 404 for another organization's project or image, and 401 without a token", async () => {
    const res = await exportZip({}, other.token);
    expect(res.status).toBe(404);
    expect(res.error.success).toBe(false);
    // Their own project, with one of our images among the selected ids (and the reverse).
    const theirs = await createProject(server, other, 'Theirs');
    const theirImage = await uploadImage(server, other, theirs.id, 'theirs.png', await png(W, H, '#000000'));
    const mixed = await exportZip({ project_id: theirs.id, image_ids: [theirImage.id, ids.a] }, other.token);
    expect([mixed.status, mixed.error.error]).toEqual([404, 'Image not found']);
    const reverse = await exportZip({ scope: 'selected', image_ids: [ids.a, theirImage.id] });
    expect([reverse.status, reverse.error.error]).toEqual([404, 'Image not found']);
    expect((await exportZip({ project_id: theirs.id, image_ids: [theirImage.id] }, other.token)).status).toBe(200);
    const anon = await fetch(`${server.url}/api/v1/annotations/export`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ project_id: project.id }) });
    expect(anon.status).toBe(401);
  });
});
