// Imports that fail cleanly (issue 30): amplified inputs are capped with a report line, malformed
// input fails once naming the file and the limit, and what an import writes keeps the project's
// own rules. Each test here failed before its fix.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { api, onboardedUser, startServer, type TestServer } from './harness';
import { createProject, png, type Member } from '../fixtures/datasets';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { imports, jobs } from '../../src/server/db/schema';
import { sweepImportTmp, importTmpRoot } from '../../src/server/services/import/resume';
import { sweepEndedUploads } from '../../src/server/services/import';
import { finishedImport, importFile, startImport } from './support/imports';
import { MAX_SHAPES_PER_IMAGE } from '../../src/contract/imports';

let server: TestServer;
let owner: Member;

beforeAll(async () => {
  server = await startServer();
  owner = await onboardedUser(server);
}, 60_000);
afterAll(async () => server?.stop());

async function zipOf(files: Record<string, string | Buffer>): Promise<Buffer> {
  const zip = new JSZip();
  for (const [name, data] of Object.entries(files)) zip.file(name, data);
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', compressionOptions: { level: 9 } });
}

async function imagesOf(projectId: string) {
  const res = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?page_size=100&sort_by=filename&sort_order=asc`, { token: owner.token });
  expect(res.status).toBe(200);
  return res.body.images as { id: string; filename: string; annotation_count: number }[];
}

describe('shapes per image', () => {
  it(`keeps the first ${MAX_SHAPES_PER_IMAGE} shapes of an image and says how many were left out (a small zip of one YOLO line repeated)`, async () => {
    const projectId = (await createProject(server, owner)).id;
    const bytes = await zipOf({
      'data.yaml': 'names:\n  - car\n',
      'images/a.png': await png(20, 20),
      'labels/a.txt': '0 0.5 0.5 0.2 0.2\n'.repeat(MAX_SHAPES_PER_IMAGE + 2500),
    });
    expect(bytes.length).toBeLessThan(10 * 1024);
    const job = await importFile(server, owner.token, projectId, 'boxes.zip', bytes, {}, 150);
    expect(job.status, job.error).toBe('done');
    expect(job.report.annotations_created).toBe(MAX_SHAPES_PER_IMAGE);
    expect(job.report.skipped).toEqual([{ file: 'labels/a.txt', reason: '2500 more lines left out: at most 10,000 shapes are kept per image' }]);
    const [image] = await imagesOf(projectId);
    expect(image!.annotation_count).toBe(MAX_SHAPES_PER_IMAGE);
  }, 400_000);

  it('counts the shapes an image already has (a label-only COCO file onto a project image)', async () => {
    const projectId = (await createProject(server, owner)).id;
    const first = await importFile(server, owner.token, projectId, 'a.zip', await zipOf({ 'data.yaml': 'names:\n  - car\n', 'images/a.png': await png(20, 20), 'labels/a.txt': '0 0.5 0.5 0.2 0.2\n'.repeat(MAX_SHAPES_PER_IMAGE - 3) }), {}, 150);
    expect(first.report.annotations_created).toBe(MAX_SHAPES_PER_IMAGE - 3);
    const coco = {
      images: [{ id: 1, file_name: 'a.png', width: 20, height: 20 }],
      categories: [{ id: 1, name: 'car' }],
      annotations: Array.from({ length: 5 }, (_, i) => ({ id: i + 1, image_id: 1, category_id: 1, bbox: [1, 1, 2, 2], area: 4, iscrowd: 0 })),
    };
    const job = await importFile(server, owner.token, projectId, 'more.json', Buffer.from(JSON.stringify(coco)));
    expect(job.status, job.error).toBe('done');
    expect(job.report.annotations_created).toBe(3);
    expect(job.report.skipped).toEqual([{ file: 'a.png', reason: '2 shapes left out: at most 10,000 are kept per image' }]);
    expect((await imagesOf(projectId))[0]!.annotation_count).toBe(MAX_SHAPES_PER_IMAGE);
  }, 400_000);
});

/** Rewrites the uncompressed size of the zip's only entry in its local and central headers (a header that lies). */
function withDeclaredSize(zip: Buffer, size: number): Buffer {
  const out = Buffer.from(zip);
  const local = out.indexOf(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
  const central = out.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  out.writeUInt32LE(size, local + 22);
  out.writeUInt32LE(size, central + 24);
  return out;
}

describe('malformed input fails once, naming the file and the limit', () => {
  it('fails a COCO file nested past the limit with its name, not as a crash retried three times', async () => {
    const projectId = (await createProject(server, owner)).id;
    const deep = '['.repeat(50_000) + ']'.repeat(50_000);
    const coco = `{"images":[{"id":1,"file_name":"a.png","width":10,"height":10}],"categories":[{"id":1,"name":"x"}],"annotations":[{"id":1,"image_id":1,"category_id":1,"bbox":[1,1,2,2],"attributes":{"deep":${deep}}}]}`;
    const job = await importFile(server, owner.token, projectId, 'deep.json', Buffer.from(coco), {}, 90);
    expect(job.status).toBe('failed');
    expect(job.error).toBe('deep.json: JSON nested more than 100 levels deep; at most 100 are read');
  }, 120_000);

  it('fails an entry that inflates past the size its header declares, naming the entry', async () => {
    const projectId = (await createProject(server, owner)).id;
    const coco = JSON.stringify({ images: [{ id: 1, file_name: 'a.png', width: 10, height: 10 }], categories: [{ id: 1, name: 'x' }], annotations: [] });
    const bytes = withDeclaredSize(await zipOf({ 'instances.json': coco + ' '.repeat(5000) }), 20);
    const job = await importFile(server, owner.token, projectId, 'lying.zip', bytes, { format: 'coco' }, 90);
    expect(job.status).toBe('failed');
    expect(job.error).toBe('instances.json: the entry inflates to a different size than the 20 bytes its header declares');
  }, 120_000);

  it('says which entry was left unread for its compression ratio when the format cannot be recognised', async () => {
    const projectId = (await createProject(server, owner)).id;
    const coco = JSON.stringify({ images: [], categories: [], annotations: [] });
    const bytes = withDeclaredSize(await zipOf({ 'instances.json': coco }), 2_000_000_000);
    const job = await importFile(server, owner.token, projectId, 'ratio.zip', bytes, {}, 90);
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/^The format could not be recognised: expected a COCO, YOLO, Pascal VOC, CVAT or Vellum dataset\. 1 entry was not read because it would expand more than 1000 times its compressed size: "instances\.json"$/);
    expect(job.report.skipped).toEqual([{ file: 'instances.json', reason: expect.stringMatching(/^it would expand \d+ times its compressed size \(at most 1000 is accepted\)$/) }]);
  }, 120_000);
});

describe('report text', () => {
  it('stores a report naming a skipped entry with a NUL byte in its name (shown as U+FFFD) and ends the import once', async () => {
    const projectId = (await createProject(server, owner)).id;
    const bytes = await zipOf({ 'data.yaml': 'names:\n  - car\n', 'images/a.png': await png(10, 10), 'labels/a.txt': '0 0.5 0.5 0.2 0.2\n', '../evil\u0000.png': 'x', 'labels/or\u0000phan.txt': '0 0.5 0.5 0.1 0.1\n' });
    const job = await importFile(server, owner.token, projectId, 'nul.zip', bytes, {}, 90);
    expect(job.status, job.error).toBe('done');
    expect(job.report.images_created).toBe(1);
    const files = job.report.skipped.map((s) => s.file);
    expect(files).toContain('../evil\ufffd.png');
    expect(files).toContain('labels/or\ufffdphan.txt');
    expect(JSON.stringify(job.report)).not.toContain('\\u0000');
  }, 120_000);
});

describe('imported classes follow the project class rules', () => {
  async function projectClasses(projectId: string) {
    const res = await api(server.url, 'GET', `/api/v1/projects/${projectId}`, { token: owner.token });
    expect(res.status).toBe(200);
    return res.body.project.classes as { name: string; type: string; color: string }[];
  }

  it('fails a YOLO dataset of 1,500 class names before adding anything (a project has at most 1,000 classes)', async () => {
    const projectId = (await createProject(server, owner)).id;
    const names = Array.from({ length: 1500 }, (_, i) => `  - c${i}`).join('\n');
    const bytes = await zipOf({ 'data.yaml': `names:\n${names}\n`, 'images/a.png': await png(10, 10), 'labels/a.txt': '0 0.5 0.5 0.2 0.2\n' });
    const job = await importFile(server, owner.token, projectId, 'many.zip', bytes, {}, 90);
    expect(job.status).toBe('failed');
    expect(job.error).toBe('The dataset has 1500 classes the project lacks; with its 0 a project would have more than the 1000 classes it may have');
    expect(await projectClasses(projectId)).toEqual([]);
    expect(await imagesOf(projectId)).toEqual([]);
  }, 120_000);

  it('stores a 120-character COCO category as one 100-character class, imports its boxes, and class edits still save', async () => {
    const projectId = (await createProject(server, owner)).id;
    const long = `${'x'.repeat(99)}y${'z'.repeat(20)}`;
    const coco = {
      images: [{ id: 1, file_name: 'a.png', width: 10, height: 10 }],
      categories: [{ id: 1, name: long }],
      annotations: [
        { id: 1, image_id: 1, category_id: 1, bbox: [1, 1, 2, 2], area: 4, iscrowd: 0 },
        { id: 2, image_id: 1, category_id: 1, bbox: [3, 3, 2, 2], area: 4, iscrowd: 0 },
      ],
    };
    const job = await importFile(server, owner.token, projectId, 'long.zip', await zipOf({ 'annotations/instances.json': JSON.stringify(coco), 'images/a.png': await png(10, 10) }), {}, 90);
    expect(job.status, job.error).toBe('done');
    expect(job.report.annotations_created).toBe(2);
    expect(job.report.skipped).toEqual([]);
    expect(job.report.classes_created).toEqual([long.slice(0, 100)]);
    expect(job.report.warnings).toContain(`class "${long}" is stored as "${long.slice(0, 100)}" (class names have at most 100 characters)`);
    const classes = await projectClasses(projectId);
    expect(classes.map((c) => c.name)).toEqual([long.slice(0, 100)]);
    const edit = await api(server.url, 'PATCH', `/api/v1/projects/${projectId}`, { token: owner.token, body: { classes: [...classes, { name: 'another', type: 'box', color: '#123456' }] } });
    expect(edit.status, JSON.stringify(edit.body)).toBe(200);
  }, 120_000);
});

describe('__proto__ in a Vellum import', () => {
  it('keeps an attribute named __proto__ and refuses a __proto__ key, as the HTTP API does', async () => {
    const projectId = (await createProject(server, owner)).id;
    const box = { name: 'car', bounding_box: { x: 1, y: 1, w: 2, h: 2 } };
    const manifest = { format: 'vellum', version: 1, project: { classes: [{ name: 'car', type: 'box', color: '#112233' }] }, folders: [] };
    // As text: a `__proto__` key in an object literal would set the prototype instead.
    const annotations = [
      JSON.stringify({ id: 'named', ...box, attributes: [{ name: '__proto__', value: 'x' }, { name: 'colour', value: 'red' }] }),
      `${JSON.stringify({ id: 'keyed', ...box }).slice(0, -1)},"__proto__":{"polluted":true}}`,
      JSON.stringify({ id: 'nested', ...box, attributes: [{ name: 'a', value: 'v' }] }).replace('"value":"v"', '"value":{"__proto__":1}'),
    ];
    const doc = `{"image":{"filename":"a.png","width":10,"height":10},"annotations":[${annotations.join(',')}]}`;
    const job = await importFile(server, owner.token, projectId, 'v.zip', await zipOf({ 'vellum.json': JSON.stringify(manifest), 'annotations/a.png.json': doc, 'images/a.png': await png(10, 10) }), {}, 90);
    expect(job.status, job.error).toBe('done');
    expect(job.report.annotations_created).toBe(1);
    expect(job.report.skipped).toEqual([
      { file: 'images/a.png #2', reason: 'the key "__proto__" is refused, as the API refuses it' },
      { file: 'images/a.png #3', reason: 'the key "attributes[0].value.__proto__" is refused, as the API refuses it' },
    ]);
    const [image] = await imagesOf(projectId);
    const load = await api(server.url, 'GET', `/api/v1/annotations/load-data/${image!.id}`, { token: owner.token });
    expect(load.body.annotations.map((a: { id: string; attributes?: unknown }) => [a.id, a.attributes])).toEqual([['named', [{ name: '__proto__', value: 'x' }, { name: 'colour', value: 'red' }]]]);
    // The HTTP API refuses the same annotation.
    const body = `{"image_id":"${image!.id}","project_id":"${projectId}","image_filename":"a.png","annotations":[${annotations[1]}]}`;
    const res = await fetch(`${server.url}/api/v1/annotations/save-data`, { method: 'POST', headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' }, body });
    expect(res.status).toBe(400);
  }, 120_000);
});

describe('folder names in the dry run', () => {
  it('fails a dataset with a folder name the folder rules refuse before any image is added', async () => {
    const projectId = (await createProject(server, owner)).id;
    const long = 'f'.repeat(150);
    const bytes = await zipOf({ 'data.yaml': 'names:\n  - car\n', 'images/good/a.png': await png(10, 10), [`images/${long}/b.png`]: await png(10, 10) });
    const job = await importFile(server, owner.token, projectId, 'folders.zip', bytes, {}, 90);
    expect(job.status).toBe('failed');
    expect(job.error).toBe(`images/${long}/b.png: its folder "${long}" cannot be created (Invalid folder path "/${long}": Folder name must be at most 100 characters)`);
    expect(job.report.images_created).toBe(0);
    expect(await imagesOf(projectId)).toEqual([]);
    const folders = await api(server.url, 'GET', `/api/v1/projects/${projectId}/folders`, { token: owner.token });
    expect(JSON.stringify(folders.body)).not.toContain('good');
  }, 120_000);
});

describe('the folder an import goes to', () => {
  it('fails the import, adding nothing, when its folder was renamed after the import was made; no folder of the old name comes back', async () => {
    const projectId = (await createProject(server, owner)).id;
    const made = await api(server.url, 'POST', '/api/folders/create', { token: owner.token, body: { project_id: projectId, name: 'train', parent_folder_path: '/' } });
    expect(made.status).toBe(200);
    const bytes = await zipOf({ 'data.yaml': 'names:\n  - car\n', 'images/a.png': await png(10, 10), 'labels/a.txt': '0 0.5 0.5 0.2 0.2\n' });
    const res = await api(server.url, 'POST', `/api/v1/projects/${projectId}/imports`, { token: owner.token, body: { filename: 'into-train.zip', size: bytes.length, folder_path: '/train' } });
    expect(res.status).toBe(201);
    await fetch(res.body.upload_url, { method: 'PUT', headers: { 'content-type': res.body.content_type }, body: new Uint8Array(bytes) });
    // A teammate renames the folder before the import runs.
    expect((await api(server.url, 'PATCH', `/api/folders/${made.body.folder.id}/name?name=training`, { token: owner.token })).status).toBe(200);
    expect((await api(server.url, 'POST', `/api/v1/imports/${res.body.import_id}/start`, { token: owner.token })).status).toBe(202);
    const job = await finishedImport(server, owner.token, res.body.import_id, 60);
    expect(job.status).toBe('failed');
    expect(job.error).toBe('The folder /train no longer exists: it was renamed, moved or deleted after the import was made. Import again into the folder as it is now.');
    expect(job.report.images_created).toBe(0);
    expect(await imagesOf(projectId)).toEqual([]);
    const tree = await api(server.url, 'GET', `/api/folders/list/${projectId}`, { token: owner.token });
    expect(tree.body.folders.map((f: { full_path: string }) => f.full_path)).toEqual(['/training']);
  }, 90_000);
});

describe('an import stopped hard (kill -9) and picked up again', () => {
  /** Reserves and uploads an import, then leaves it as a run that died mid-way leaves it: 'running', with its job queued again. */
  async function diedMidway(projectId: string, filename: string, bytes: Buffer, before: (id: string) => Promise<void>): Promise<string> {
    const res = await api(server.url, 'POST', `/api/v1/projects/${projectId}/imports`, { token: owner.token, body: { filename, size: bytes.length } });
    expect(res.status).toBe(201);
    await fetch(res.body.upload_url, { method: 'PUT', headers: { 'content-type': res.body.content_type }, body: new Uint8Array(bytes) });
    const id = res.body.import_id as string;
    await before(id);
    const ctx = server.built.ctx;
    await ctx.db.update(imports).set({ status: 'running' }).where(eq(imports.id, id));
    await ctx.db.insert(jobs).values({ id: randomUUID(), kind: 'import', organizationId: owner.org.id, payload: { import_id: id }, status: 'queued', createdBy: owner.userId });
    return id;
  }

  it('stores an image under the name the dead run reserved, not a suffixed one', async () => {
    const projectId = (await createProject(server, owner)).id;
    const bytes = await zipOf({ 'data.yaml': 'names:\n  - car\n', 'images/k6.png': await png(10, 10), 'labels/k6.txt': '0 0.5 0.5 0.2 0.2\n' });
    const id = await diedMidway(projectId, 'k6.zip', bytes, async () => {
      // What the dead run did for k6.png before it stopped: check-filename held the name for the import's user.
      const held = await api(server.url, 'POST', `/api/v1/projects/${projectId}/images/check-filename`, { token: owner.token, body: { filename: 'k6.png' } });
      expect(held.body.unique_filename).toBe('k6.png');
    });
    const job = await finishedImport(server, owner.token, id, 90);
    expect(job.status, job.error).toBe('done');
    expect((await imagesOf(projectId)).map((i) => [i.filename, i.annotation_count])).toEqual([['k6.png', 1]]);
    expect(job.report.warnings.filter((w) => w.includes('was stored as'))).toEqual([]);
  }, 120_000);

  it('keeps its temporary files under DATA_DIR, clears what a dead run left, and sweeps the directories of ended imports', async () => {
    const ctx = server.built.ctx;
    const root = importTmpRoot(ctx);
    expect(root.startsWith(path.resolve(server.config.dataDir))).toBe(true);
    const projectId = (await createProject(server, owner)).id;
    const bytes = await zipOf({ 'data.yaml': 'names:\n  - car\n', 'images/t.png': await png(10, 10) });
    const id = await diedMidway(projectId, 't.zip', bytes, async (importId) => {
      fs.mkdirSync(path.join(root, importId), { recursive: true });
      fs.writeFileSync(path.join(root, importId, 'upload'), Buffer.alloc(1024));
    });
    const job = await finishedImport(server, owner.token, id, 90);
    expect(job.status, job.error).toBe('done');
    expect(fs.existsSync(path.join(root, id))).toBe(false);
    // A directory a crashed process left for an import that has since ended, and one for an import still queued.
    const ended = path.join(root, id);
    fs.mkdirSync(ended, { recursive: true });
    const other = randomUUID();
    fs.mkdirSync(path.join(root, other), { recursive: true });
    expect(await sweepImportTmp(ctx)).toBe(2);
    expect(fs.readdirSync(root)).toEqual([]);
  }, 120_000);
});

describe('upload URLs of imports', () => {
  async function reserve(projectId: string, filename: string, size: number) {
    const res = await api(server.url, 'POST', `/api/v1/projects/${projectId}/imports`, { token: owner.token, body: { filename, size } });
    expect(res.status).toBe(201);
    return res.body as { import_id: string; upload_url: string; content_type: string };
  }
  const put = (r: { upload_url: string; content_type: string }, bytes: Buffer) => fetch(r.upload_url, { method: 'PUT', headers: { 'content-type': r.content_type }, body: new Uint8Array(bytes) });

  it('refuses a PUT once the import has started', async () => {
    const projectId = (await createProject(server, owner)).id;
    const file = Buffer.from(JSON.stringify({ images: [], annotations: [], categories: [] }));
    const r = await reserve(projectId, 'a.json', file.length);
    expect((await put(r, file)).status).toBe(200);
    expect((await api(server.url, 'POST', `/api/v1/imports/${r.import_id}/start`, { token: owner.token })).status).toBe(202);
    const late = await put(r, file);
    expect(late.status).toBe(409);
    expect(((await late.json()) as { code: string }).code).toBe('upload_closed');
    const job = await finishedImport(server, owner.token, r.import_id, 90);
    expect(job.status, job.error).toBe('done');
    expect((await put(r, file)).status).toBe(409);
  }, 120_000);

  it('takes no more bytes than the size declared when the import was reserved', async () => {
    const projectId = (await createProject(server, owner)).id;
    const r = await reserve(projectId, 'b.json', 10);
    const res = await put(r, Buffer.alloc(11, 0x20));
    expect(res.status).toBe(413);
    expect((await put(r, Buffer.from('{"a":1}   '))).status).toBe(200);
  });

  it('sweeps what reaches the upload key of an ended import (an S3 presigned PUT cannot be refused)', async () => {
    const projectId = (await createProject(server, owner)).id;
    const job = await importFile(server, owner.token, projectId, 'c.json', Buffer.from(JSON.stringify({ images: [], annotations: [], categories: [] })));
    expect(job.status).toBe('done');
    const ctx = server.built.ctx;
    const [row] = await ctx.db.select().from(imports).where(eq(imports.id, job.import_id));
    await ctx.storage.put(owner.org.gcs_bucket_name, row!.stagingKey, Buffer.alloc(1000), { contentType: 'application/json' });
    expect(await sweepEndedUploads(ctx)).toBeGreaterThanOrEqual(1);
    expect(await ctx.storage.head(owner.org.gcs_bucket_name, row!.stagingKey)).toBeNull();
  });
});

describe('cancelling an import', () => {
  it('cancels a queued import: 200, status cancelled, its upload gone; an ended one answers 409', async () => {
    const idle = await startServer({ IMPORT_CONCURRENCY: '0' });
    try {
      const user = await onboardedUser(idle);
      const projectId = (await createProject(idle, user)).id;
      const file = Buffer.from(JSON.stringify({ images: [], annotations: [], categories: [] }));
      const res = await api(idle.url, 'POST', `/api/v1/projects/${projectId}/imports`, { token: user.token, body: { filename: 'q.json', size: file.length } });
      await fetch(res.body.upload_url, { method: 'PUT', headers: { 'content-type': res.body.content_type }, body: new Uint8Array(file) });
      const id = res.body.import_id as string;
      expect((await api(idle.url, 'POST', `/api/v1/imports/${id}/cancel`, { token: user.token })).body.code).toBe('import_not_active');
      expect((await api(idle.url, 'POST', `/api/v1/imports/${id}/start`, { token: user.token })).status).toBe(202);
      const cancelled = await api(idle.url, 'POST', `/api/v1/imports/${id}/cancel`, { token: user.token });
      expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
      // Queued: nothing is in flight, so it ends at once.
      expect(cancelled.body).toMatchObject({ import_id: id, status: 'cancelled', cancel_requested: true });
      expect((await api(idle.url, 'GET', `/api/v1/imports/${id}`, { token: user.token })).body.status).toBe('cancelled');
      const [row] = await idle.built.ctx.db.select().from(imports).where(eq(imports.id, id));
      expect(await idle.built.ctx.storage.head(user.org.gcs_bucket_name, row!.stagingKey)).toBeNull();
      const again = await api(idle.url, 'POST', `/api/v1/imports/${id}/cancel`, { token: user.token });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('import_not_active');
    } finally {
      await idle.stop();
    }
  }, 120_000);

  // Its report equals the project's images exactly, with images held in flight: import-cancel.test.ts.
  it('cancels a running import: it stops, keeps the images it added and reports them', async () => {
    const projectId = (await createProject(server, owner)).id;
    const files: Record<string, string | Buffer> = { 'data.yaml': 'names:\n  - car\n' };
    const image = await png(64, 48);
    for (let i = 0; i < 60; i++) {
      files[`images/f${String(i).padStart(2, '0')}.png`] = image;
      files[`labels/f${String(i).padStart(2, '0')}.txt`] = '0 0.5 0.5 0.2 0.2\n';
    }
    const id = await startImport(server, owner.token, projectId, 'many.zip', await zipOf(files));
    let done = 0;
    for (let i = 0; i < 600 && done < 2; i++) {
      await new Promise((r) => setTimeout(r, 20));
      done = (await api(server.url, 'GET', `/api/v1/imports/${id}`, { token: owner.token })).body.progress.done;
    }
    const res = await api(server.url, 'POST', `/api/v1/imports/${id}/cancel`, { token: owner.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: 'running', cancel_requested: true });
    // The worker stops at its next image, finishes those in flight, writes its final report, then ends the import as cancelled and its job completes.
    const ctx = server.built.ctx;
    for (let i = 0; i < 600; i++) {
      const rows = await ctx.db.select({ status: jobs.status, payload: jobs.payload }).from(jobs).where(eq(jobs.kind, 'import'));
      if (rows.some((j) => (j.payload as { import_id?: string }).import_id === id && j.status === 'completed')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const job = (await api(server.url, 'GET', `/api/v1/imports/${id}`, { token: owner.token })).body as { status: string; report: { images_created: number; annotations_created: number } };
    expect(job.status).toBe('cancelled');
    const kept = await imagesOf(projectId);
    expect(kept.length).toBeGreaterThanOrEqual(2);
    expect(kept.length).toBeLessThan(60);
    expect(job.report.images_created).toBe(kept.length);
    expect(job.report.annotations_created).toBe(kept.reduce((n, i) => n + i.annotation_count, 0));
  }, 120_000);
});
