// Dataset import (issue 17) through the API: reserve, PUT, start, poll, and see what a user sees
// afterwards (images, classes, annotations as load-data gives them, the report). Formats' own
// constructs are unit-tested beside their readers (src/server/formats/*/read.test.ts);
// this file covers the path every format shares, bad archives, roles and other organizations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { api, onboardedUser, startServer, tempDir, type TestServer } from './harness';
import { joinAs, signIn } from './team-harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';
import { countsToString, decodeRle, encodeMask } from '../../src/contract/rle';
import { finishedImport, startImport as startImportAs, type ImportJob } from './support/imports';
import { eq } from 'drizzle-orm';
import { imports } from '../../src/server/db/schema';
import { ABANDONED_IMPORT_MS, sweepAbandonedImports } from '../../src/server/services/import';
import { MAX_IMPORT_REPORT_ITEMS } from '../../src/contract/imports';

let server: TestServer;
let owner: Member;

beforeAll(async () => {
  server = await startServer();
  owner = await onboardedUser(server);
}, 60_000);
afterAll(async () => server?.stop());

const startImport = (user: Member, projectId: string, filename: string, bytes: Buffer, body: Record<string, unknown> = {}) => startImportAs(server, user.token, projectId, filename, bytes, body);
const finished = (user: Member, id: string) => finishedImport(server, user.token, id);

async function imagesOf(user: Member, projectId: string) {
  const res = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?page_size=100&sort_by=filename&sort_order=asc`, { token: user.token });
  expect(res.status).toBe(200);
  return res.body.images as { id: string; filename: string; folder_path?: string; virtual_folder_path?: string; annotation_count: number; width?: number; image_width?: number }[];
}

async function annotationsOf(user: Member, imageId: string) {
  const res = await api(server.url, 'GET', `/api/v1/annotations/load-data/${imageId}`, { token: user.token });
  expect(res.status).toBe(200);
  return res.body.annotations as Record<string, any>[];
}

async function zipOf(files: Record<string, string | Buffer>): Promise<Buffer> {
  const zip = new JSZip();
  for (const [name, data] of Object.entries(files)) zip.file(name, data);
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

/** A 40x30 mask with a 10x6 rectangle at (5, 4), as COCO RLE. */
function rectMask(): { size: [number, number]; counts: number[] } {
  const m = new Uint8Array(30 * 40);
  for (let y = 4; y < 10; y++) for (let x = 5; x < 15; x++) m[x * 30 + y] = 1; // column-major
  return { size: [30, 40], counts: encodeMask(m, 30, 40) };
}

describe('importing a COCO zip with its images', () => {
  let projectId: string;
  let job: ImportJob;
  beforeAll(async () => {
    projectId = (await createProject(server, owner)).id;
    const mask = rectMask();
    const coco = {
      images: [
        { id: 1, file_name: 'street.png', width: 40, height: 30 },
        { id: 2, file_name: 'field.png', width: 40, height: 30 },
      ],
      categories: [
        { id: 1, name: 'car' },
        { id: 2, name: 'roof' },
        { id: 3, name: 'puddle' },
      ],
      annotations: [
        { id: 10, image_id: 1, category_id: 1, bbox: [2, 3, 10, 5], area: 50, iscrowd: 0, attributes: { occluded: true, color: 'red' } },
        { id: 11, image_id: 1, category_id: 2, segmentation: [[1, 1, 20, 1, 20, 12], [25, 2, 35, 2, 35, 9]], bbox: [1, 1, 34, 11], area: 100, iscrowd: 0 },
        { id: 12, image_id: 2, category_id: 3, segmentation: { size: mask.size, counts: countsToString(mask.counts) }, bbox: [5, 4, 10, 6], area: 60, iscrowd: 0 },
        { id: 13, image_id: 2, category_id: 3, segmentation: { size: mask.size, counts: mask.counts }, bbox: [5, 4, 10, 6], area: 60, iscrowd: 1 },
        { id: 14, image_id: 2, category_id: 1, bbox: [30, 20, 20, 20], area: 400, iscrowd: 0 },
        { id: 15, image_id: 2, category_id: 2, segmentation: [[1, 1, 5, 5]], bbox: [1, 1, 4, 4], area: 0, iscrowd: 0 },
        { id: 16, image_id: 2, category_id: 99, bbox: [1, 1, 2, 2], area: 4, iscrowd: 0 },
      ],
    };
    const zip = await zipOf({
      'annotations/instances_train.json': JSON.stringify(coco),
      'images/train/street.png': await png(40, 30),
      'images/train/field.png': await png(40, 30, '#228833'),
    });
    job = await finished(owner, await startImport(owner, projectId, 'dataset.zip', zip));
  }, 60_000);

  it('finishes, detects COCO and reports what it created', () => {
    expect(job.status, job.error).toBe('done');
    expect(job.format).toBe('coco');
    expect(job.progress).toEqual({ done: 2, total: 2 });
    expect(job.report.images_created).toBe(2);
    expect(job.report.classes_created.sort()).toEqual(['car', 'puddle', 'roof']);
  });

  it('creates the images, with their real size, and their annotations as shapes', async () => {
    const imgs = await imagesOf(owner, projectId);
    expect(imgs.map((i) => i.filename)).toEqual(['field.png', 'street.png']);
    const street = await annotationsOf(owner, imgs[1]!.id);
    const box = street.find((a) => a.name === 'car')!;
    expect(box.bounding_box).toEqual({ x: 2, y: 3, w: 10, h: 5 });
    expect(box.attributes).toEqual([{ name: 'occluded', value: true }, { name: 'color', value: 'red' }]);
    const roofs = street.filter((a) => a.name === 'roof');
    expect(roofs.map((r) => r.polygon.path)).toEqual([[[1, 1], [20, 1], [20, 12]], [[25, 2], [35, 2], [35, 9]]]);
  });

  it('keeps masks pixel for pixel, compressed or not', async () => {
    const field = (await imagesOf(owner, projectId))[0]!;
    const masks = (await annotationsOf(owner, field.id)).filter((a) => a.segmentation);
    expect(masks).toHaveLength(2);
    const expected = decodeRle(rectMask());
    for (const m of masks) expect(Buffer.from(decodeRle(m.segmentation))).toEqual(Buffer.from(expected));
  });

  it('clips a box that leaves the image, skips what it cannot use, and says so', async () => {
    const field = (await imagesOf(owner, projectId))[0]!;
    const car = (await annotationsOf(owner, field.id)).find((a) => a.name === 'car')!;
    expect(car.bounding_box).toEqual({ x: 30, y: 20, w: 10, h: 10 });
    expect(job.report.warnings.join('\n')).toMatch(/1 box was partly outside the image and clipped/);
    const reasons = job.report.skipped.map((s) => s.reason).join('\n');
    expect(reasons).toMatch(/at least 3 points/);
    expect(reasons).toMatch(/99/);
    expect(job.report.annotations_created).toBe(6);
  });
});

describe('annotation-only files and bad input', () => {
  it('attaches a lone COCO JSON to images already in the project by file name, and names those it cannot match', async () => {
    const projectId = (await createProject(server, owner)).id;
    const img = await uploadImage(server, owner, projectId, 'cat.png', await png(50, 40));
    const coco = {
      images: [
        { id: 1, file_name: 'photos/cat.png', width: 50, height: 40 },
        { id: 2, file_name: 'dog.png', width: 50, height: 40 },
      ],
      categories: [{ id: 7, name: 'ear' }],
      annotations: [
        { id: 1, image_id: 1, category_id: 7, bbox: [10, 10, 5, 5], area: 25, iscrowd: 0 },
        { id: 2, image_id: 2, category_id: 7, bbox: [10, 10, 5, 5], area: 25, iscrowd: 0 },
      ],
    };
    const job = await finished(owner, await startImport(owner, projectId, 'labels.json', Buffer.from(JSON.stringify(coco))));
    expect(job.status, job.error).toBe('done');
    expect(job.report.images_matched).toBe(1);
    expect(job.report.images_created).toBe(0);
    expect(job.report.skipped).toContainEqual(expect.objectContaining({ file: 'dog.png' }));
    expect((await annotationsOf(owner, img.id)).map((a) => a.bounding_box)).toEqual([{ x: 10, y: 10, w: 5, h: 5 }]);
    expect((await imagesOf(owner, projectId)).map((i) => i.filename)).toEqual(['cat.png']);
  });

  it('past the report\'s 1,000 lines, counts each further skipped shape once', async () => {
    const projectId = (await createProject(server, owner)).id;
    const bad = Array.from({ length: MAX_IMPORT_REPORT_ITEMS + 7 }, (_, i) => ({ id: i + 1, image_id: 1, category_id: 1, segmentation: [[1, 1, 5, 5]], bbox: [1, 1, 4, 4], area: 0, iscrowd: 0 }));
    const coco = { images: [{ id: 1, file_name: 'a.png', width: 40, height: 30 }], categories: [{ id: 1, name: 'car' }], annotations: bad };
    const job = await finished(owner, await startImport(owner, projectId, 'thin.zip', await zipOf({ 'annotations.json': JSON.stringify(coco), 'a.png': await png(40, 30) })));
    expect(job.status, job.error).toBe('done');
    expect(job.report.skipped).toHaveLength(MAX_IMPORT_REPORT_ITEMS);
    expect(job.report.skipped_more).toBe(7);
  });

  it('keeps two images of one name in two splits apart, each with its own labels', async () => {
    const projectId = (await createProject(server, owner)).id;
    const split = (box: number[]) => ({ images: [{ id: 1, file_name: 'a.png', width: 40, height: 30 }], categories: [{ id: 1, name: 'car' }], annotations: [{ id: 1, image_id: 1, category_id: 1, bbox: box }] });
    const zip = await zipOf({
      'annotations/instances_train.json': JSON.stringify(split([1, 1, 5, 5])),
      'annotations/instances_val.json': JSON.stringify(split([9, 9, 5, 5])),
      'images/train/a.png': await png(40, 30),
      'images/val/a.png': await png(40, 30, '#aa2222'),
    });
    const job = await finished(owner, await startImport(owner, projectId, 'splits.zip', zip));
    expect(job.status, job.error).toBe('done');
    expect(job.report.images_created).toBe(2);
    const imgs = await imagesOf(owner, projectId);
    expect(imgs.map((i) => i.filename)).toEqual(['a.png', 'a_1.png']);
    const boxes = await Promise.all(imgs.map(async (i) => (await annotationsOf(owner, i.id)).map((a) => a.bounding_box.x)));
    expect(boxes.sort()).toEqual([[1], [9]]);
  });

  it('imports CVAT XML, and an XML error in its last image adds nothing at all', async () => {
    const cvat = (broken: boolean) => `<?xml version="1.0" encoding="utf-8"?>
<annotations>
  <version>1.1</version>
  <meta><task><labels><label><name>car</name><color>#ff0000</color><type>rectangle</type><attributes></attributes></label></labels></task></meta>
  <image id="0" name="a.png" width="40" height="30">
    <box label="car" occluded="1" xtl="1" ytl="2" xbr="11" ybr="7" z_order="0"></box>
  </image>
  <image id="1" name="b.png" width="40" height="30">
    <box label="car" occluded="0" xtl="5" ytl="5" xbr="9" ybr="9" z_order="0">${broken ? '' : '</box>'}
  </image>
</annotations>`;
    const files = async (broken: boolean) => zipOf({ 'annotations.xml': cvat(broken), 'images/a.png': await png(40, 30), 'images/b.png': await png(40, 30) });
    const bad = (await createProject(server, owner)).id;
    const failed = await finished(owner, await startImport(owner, bad, 'cvat.zip', await files(true)));
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/annotations\.xml.*line 10/);
    expect(await imagesOf(owner, bad)).toEqual([]);
    const project = await api(server.url, 'GET', `/api/v1/projects/${bad}`, { token: owner.token });
    expect(project.body.project.classes).toEqual([]);

    const good = (await createProject(server, owner)).id;
    const job = await finished(owner, await startImport(owner, good, 'cvat.zip', await files(false)));
    expect(job.status, job.error).toBe('done');
    expect(job.format).toBe('cvat');
    const imgs = await imagesOf(owner, good);
    expect(imgs.map((i) => i.filename)).toEqual(['a.png', 'b.png']);
    const [a] = await annotationsOf(owner, imgs[0]!.id);
    expect(a!.bounding_box).toEqual({ x: 1, y: 2, w: 10, h: 5 });
    expect(a!.attributes).toContainEqual({ name: 'occluded', value: true });
  });

  it('a reader that meets bad input after its first image ends the import before anything is added', async () => {
    // A streamed format meeting a broken record late in its file: a CVAT file whose first image is
    // good and whose markup breaks after it. The dry run (on an offload thread) reads it all first.
    const xml = `<annotations><version>1.1</version><meta><task><labels><label><name>never-added</name><type>rectangle</type></label></labels></task></meta>
      <image id="0" name="a.png" width="8" height="8"><box label="never-added" xtl="1" ytl="1" xbr="3" ybr="3"/></image>
      <image id="1" name="b.png" width="8" height="8"><box label="never-added" xtl="1" ytl="1" xbr="3" ybr="3"></image>
      </annotations>`;
    const projectId = (await createProject(server, owner)).id;
    const job = await finished(owner, await startImport(owner, projectId, 'half.zip', await zipOf({ 'annotations.xml': xml, 'images/a.png': await png(8, 8), 'images/b.png': await png(8, 8) })));
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/^annotations\.xml: XML error at line 3: /);
    expect(await imagesOf(owner, projectId)).toEqual([]);
    expect((await api(server.url, 'GET', `/api/v1/projects/${projectId}`, { token: owner.token })).body.project.classes).toEqual([]);
  });

  it('fails malformed JSON with its line, and changes nothing', async () => {
    const projectId = (await createProject(server, owner)).id;
    const bad = '{\n  "images": [],\n  "annotations": [\n    {"id": 1,,}\n  ]\n}';
    const job = await finished(owner, await startImport(owner, projectId, 'broken.json', Buffer.from(bad), { format: 'coco' }));
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/line 4/);
    expect(await imagesOf(owner, projectId)).toEqual([]);
  });

  it('never reads entries with ".." or absolute paths, and reports them', async () => {
    const projectId = (await createProject(server, owner)).id;
    const coco = { images: [{ id: 1, file_name: 'a.png', width: 8, height: 8 }], categories: [{ id: 1, name: 'x' }], annotations: [] };
    const zip = await zipOf({ 'annotations/instances_val.json': JSON.stringify(coco), 'images/val/a.png': await png(8, 8) });
    // JSZip normalises names it is given: write the unsafe name into the archive's bytes (same length, so the offsets hold).
    const evil = Buffer.from(zip.toString('latin1').replaceAll('images/val/a.png', '../../../x/a.png'), 'latin1');
    const job = await finished(owner, await startImport(owner, projectId, 'evil.zip', evil));
    expect(job.report.skipped).toContainEqual(expect.objectContaining({ file: '../../../x/a.png' }));
    expect(job.report.skipped.find((s) => s.file === '../../../x/a.png')!.reason).toMatch(/unsafe path/);
    expect(job.report.images_created).toBe(0);
  });

  it('refuses an entry that would expand more than the ratio allows', async () => {
    const projectId = (await createProject(server, owner)).id;
    const zip = await zipOf({ 'annotations/instances_val.json': JSON.stringify({ images: [], categories: [], annotations: [] }), 'images/val/zeros.png': Buffer.alloc(30 * 1024 * 1024) });
    const job = await finished(owner, await startImport(owner, projectId, 'bomb.zip', zip));
    expect(job.report.skipped).toContainEqual(expect.objectContaining({ file: 'images/val/zeros.png', reason: expect.stringMatching(/expand \d+ times/) }));
  });

  it('fails a file that is no dataset with a clear message', async () => {
    const projectId = (await createProject(server, owner)).id;
    const job = await finished(owner, await startImport(owner, projectId, 'notes.zip', await zipOf({ 'notes.txt': 'hello' })));
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/format could not be recognised/);
  });

  it('refuses other file types, a start before the upload, and a second start', async () => {
    const projectId = (await createProject(server, owner)).id;
    const exe = await api(server.url, 'POST', `/api/v1/projects/${projectId}/imports`, { token: owner.token, body: { filename: 'setup.exe', size: 10 } });
    expect(exe.status).toBe(415);
    const res = await api(server.url, 'POST', `/api/v1/projects/${projectId}/imports`, { token: owner.token, body: { filename: 'labels.json', size: 10 } });
    const early = await api(server.url, 'POST', `/api/v1/imports/${res.body.import_id}/start`, { token: owner.token });
    expect(early.status).toBe(400);
    expect(early.body.code).toBe('object_not_found');
    const id = await startImport(owner, projectId, 'again.json', Buffer.from('{"images":[],"annotations":[],"categories":[]}'));
    const second = await api(server.url, 'POST', `/api/v1/imports/${id}/start`, { token: owner.token });
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('import_started');
    const list = await api(server.url, 'GET', `/api/v1/projects/${projectId}/imports`, { token: owner.token });
    expect(list.body.imports.map((i: ImportJob) => i.import_id)).toContain(id);
  });
});

describe('who may import', () => {
  it('refuses viewers (403) and hides other organizations\' projects and imports (404)', async () => {
    const projectId = (await createProject(server, owner)).id;
    const viewer = await joinAs(server, owner.token, owner.org.id, 'viewer');
    const asViewer = await api(server.url, 'POST', `/api/v1/projects/${projectId}/imports`, { token: viewer.token, body: { filename: 'a.json', size: 10 } });
    expect(asViewer.status).toBe(403);
    const stranger = await onboardedUser(server);
    const foreign = await api(server.url, 'POST', `/api/v1/projects/${projectId}/imports`, { token: stranger.token, body: { filename: 'a.json', size: 10 } });
    expect(foreign.status).toBe(404);
    const id = await startImport(owner, projectId, 'mine.json', Buffer.from('{"images":[],"annotations":[],"categories":[]}'));
    expect((await api(server.url, 'GET', `/api/v1/imports/${id}`, { token: stranger.token })).status).toBe(404);
    expect((await api(server.url, 'POST', `/api/v1/imports/${id}/start`, { token: stranger.token })).status).toBe(404);
  });

  it('an annotator without classes.edit cannot bring new classes, and is told so', async () => {
    const projectId = (await createProject(server, owner)).id;
    const annotator = await joinAs(server, owner.token, owner.org.id, 'annotator');
    const member = { ...owner, token: annotator.token };
    const coco = { images: [{ id: 1, file_name: 'a.png', width: 8, height: 8 }], categories: [{ id: 1, name: 'brand-new' }], annotations: [{ id: 1, image_id: 1, category_id: 1, bbox: [1, 1, 2, 2] }] };
    const zip = await zipOf({ 'annotations/instances_val.json': JSON.stringify(coco), 'images/val/a.png': await png(8, 8) });
    const job = await finished(member, await startImport(member, projectId, 'new-classes.zip', zip));
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/brand-new.*cannot add classes/);
  });
});

describe('an import outlives the server that ran it', () => {
  it('resumes after a stop where it left off, without adding anything twice', async () => {
    const dataDir = tempDir();
    const first = await startServer({}, dataDir);
    const sameDb: Record<string, string> = first.config.database.kind === 'postgres' ? { DATABASE_URL: first.config.database.url } : {};
    const user = await onboardedUser(first);
    const projectId = (await createProject(first, user)).id;
    const n = 12;
    const coco = {
      images: Array.from({ length: n }, (_, i) => ({ id: i + 1, file_name: `frame_${String(i).padStart(2, '0')}.png`, width: 1200, height: 900 })),
      categories: [{ id: 1, name: 'car' }],
      annotations: Array.from({ length: n * 3 }, (_, k) => ({ id: k + 1, image_id: Math.floor(k / 3) + 1, category_id: 1, bbox: [10 * (k % 3), 10, 50, 40] })),
    };
    const big = await png(1200, 900);
    const files: Record<string, string | Buffer> = { 'annotations/instances_val.json': JSON.stringify(coco) };
    for (const img of coco.images) files[`images/val/${img.file_name}`] = big;
    const zip = await zipOf(files);

    const res = await api(first.url, 'POST', `/api/v1/projects/${projectId}/imports`, { token: user.token, body: { filename: 'frames.zip', size: zip.length } });
    await fetch(res.body.upload_url, { method: 'PUT', headers: { 'content-type': res.body.content_type }, body: new Uint8Array(zip) });
    const id = res.body.import_id as string;
    expect((await api(first.url, 'POST', `/api/v1/imports/${id}/start`, { token: user.token })).status).toBe(202);
    let done = 0;
    for (let i = 0; i < 600 && done < 3; i++) {
      await new Promise((r) => setTimeout(r, 20));
      done = (await api(first.url, 'GET', `/api/v1/imports/${id}`, { token: user.token })).body.progress.done;
    }
    await first.stop(); // a clean stop hands the job back
    expect(done).toBeGreaterThanOrEqual(3);
    expect(done).toBeLessThan(n);

    const second = await startServer(sameDb, dataDir);
    try {
      // Tokens name the server's address as their issuer: sign in again on the new one.
      const token = await signIn(second, user.email, user.password);
      let job: ImportJob | null = null;
      for (let i = 0; i < 600; i++) {
        const got = await api<ImportJob>(second.url, 'GET', `/api/v1/imports/${id}`, { token });
        expect(got.status).toBe(200);
        job = got.body;
        if (job.status === 'done' || job.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(job!.status, job!.error).toBe('done');
      expect(job!.progress).toEqual({ done: n, total: n });
      expect(job!.report.images_created + job!.report.images_matched).toBe(n);
      const list = await api(second.url, 'GET', `/api/v1/projects/${projectId}/images?page_size=100`, { token });
      expect(list.body.images).toHaveLength(n);
      for (const img of list.body.images as { id: string }[]) {
        const doc = await api(second.url, 'GET', `/api/v1/annotations/load-data/${img.id}`, { token });
        expect(doc.body.annotations).toHaveLength(3);
      }
    } finally {
      await second.stop();
    }
  }, 120_000);
});

describe('abandoned imports', () => {
  it('an import reserved a day ago and never started goes, with its uploaded file', async () => {
    const projectId = (await createProject(server, owner)).id;
    const res = await api(server.url, 'POST', `/api/v1/projects/${projectId}/imports`, { token: owner.token, body: { filename: 'later.json', size: 2 } });
    await fetch(res.body.upload_url, { method: 'PUT', headers: { 'content-type': res.body.content_type }, body: '{}' });
    const started = await startImport(owner, projectId, 'now.json', Buffer.from('{"images":[],"annotations":[],"categories":[]}'));
    await finished(owner, started);
    const ctx = server.built.ctx;
    const bucket = owner.org.gcs_bucket_name;
    const [row] = await ctx.db.select().from(imports).where(eq(imports.id, res.body.import_id));
    expect(await ctx.storage.head(bucket, row!.stagingKey)).not.toBeNull();
    // A minute before its day it stays. (Not a count of 0: imports that earlier tests of this file
    // reserved and never started may be more than a minute older than this one on a slow run.)
    await sweepAbandonedImports(ctx, new Date(Date.now() + ABANDONED_IMPORT_MS - 60_000));
    expect(await ctx.storage.head(bucket, row!.stagingKey)).not.toBeNull();
    expect((await api(server.url, 'GET', `/api/v1/imports/${res.body.import_id}`, { token: owner.token })).status).toBe(200);
    expect(await sweepAbandonedImports(ctx, new Date(Date.now() + ABANDONED_IMPORT_MS + 60_000))).toBeGreaterThanOrEqual(1);
    expect(await ctx.storage.head(bucket, row!.stagingKey)).toBeNull();
    expect((await api(server.url, 'GET', `/api/v1/imports/${res.body.import_id}`, { token: owner.token })).status).toBe(404);
    expect((await api(server.url, 'GET', `/api/v1/imports/${started}`, { token: owner.token })).body.status).toBe('done');
  });
});
