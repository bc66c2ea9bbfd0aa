// Imports keep each image's classes (issue 32 §4): images.class_names (kept by triggers on the
// annotation rows) and the per-class counts (image_class_stats, kept by triggers on images) follow a
// COCO, a YOLO, a Pascal VOC and a Vellum import, for new images and for images the project already
// had (matched by file name, their labels added, one of them archived; labels alone match an image
// anywhere, an image the archive carries only in its folder). After each import every
// class x archive filter x folder is listed and compared with the classes the archives held
// (support/class-lists.ts), with the class panel's images_by_class. Runs on PGlite and PostgreSQL.
import { beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';
import { importFile } from './support/imports';
import { expectClassListsMatch, type KnownImage } from './support/class-lists';

let server: TestServer;
let owner: Member;
let projectId: string;
/** Each image's classes as the archives (and the saves before them) gave them; folder and archive state as listed. */
const known = new Map<string, KnownImage>();
const CLASSES = ['car', 'cat', 'dog', 'bird', 'horse', 'person'];

async function zipOf(files: Record<string, string | Buffer>): Promise<Buffer> {
  const zip = new JSZip();
  for (const [name, data] of Object.entries(files)) zip.file(name, data);
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

interface Listed {
  id: string;
  filename: string;
  virtual_folder_path: string;
  is_archived: boolean;
}

async function listedImages(project: string): Promise<Listed[]> {
  const res = await api(server.url, 'GET', `/api/v1/projects/${project}/images?is_archived=all&limit=100`, { token: owner.token });
  expect(res.status).toBe(200);
  return res.body.images;
}

/** Adds the classes an import gave each image, and takes every image's folder and archive state from the list. */
async function afterImport(project: string, into: Map<string, KnownImage>, added: Record<string, string[]>) {
  for (const image of await listedImages(project)) {
    const had = into.get(image.filename)?.classes ?? [];
    into.set(image.filename, { folder: image.virtual_folder_path, archived: image.is_archived, classes: [...new Set([...had, ...(added[image.filename] ?? [])])] });
  }
  for (const name of Object.keys(added)) expect(into.has(name), `${name} is in the project`).toBe(true);
}

async function importInto(project: string, filename: string, bytes: Buffer) {
  const job = await importFile(server, owner.token, project, filename, bytes);
  expect(job.status, job.error).toBe('done');
  return job;
}

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
  projectId = (await createProject(server, owner, 'Imported classes')).id;
  expect((await api(server.url, 'PATCH', `/api/v1/projects/${projectId}`, { token: owner.token, body: { classes: [{ name: 'car', type: 'box', color: '#ff0000' }] } })).status).toBe(200);
  // Two images the imports will match by file name: one with a car, one with a car and archived.
  for (const name of ['shared.png', 'old.png']) {
    const image = await uploadImage(server, owner, projectId, name, await png(40, 30));
    const annotations = [{ id: 'c', name: 'car', bounding_box: { x: 1, y: 1, w: 5, h: 5 } }];
    expect((await api(server.url, 'POST', '/api/v1/annotations/save-data', { token: owner.token, body: { image_id: image.id, project_id: projectId, image_filename: name, annotations } })).status).toBe(200);
  }
  const old = (await listedImages(projectId)).find((i) => i.filename === 'old.png')!;
  expect((await api(server.url, 'PATCH', '/api/images/batch/update', { token: owner.token, body: { project_id: projectId, image_ids: [old.id], updates: { is_archived: true } } })).status).toBe(200);
  await afterImport(projectId, known, { 'shared.png': ['car'], 'old.png': ['car'] });
}, 120_000);


describe('imports keep images.class_names and the class counts right', () => {
  it('before any import', async () => {
    await expectClassListsMatch(server, owner.token, projectId, known, CLASSES);
  });

  it('COCO: new images, and labels alone added to an image and to an archived one', async () => {
    const coco = {
      images: [
        { id: 1, file_name: 'coco-a.png', width: 40, height: 30 },
        { id: 2, file_name: 'coco-b.png', width: 40, height: 30 },
        { id: 3, file_name: 'shared.png', width: 40, height: 30 },
        { id: 4, file_name: 'old.png', width: 40, height: 30 },
      ],
      categories: [
        { id: 1, name: 'cat' },
        { id: 2, name: 'dog' },
      ],
      annotations: [
        { id: 10, image_id: 1, category_id: 1, bbox: [2, 3, 10, 5], area: 50, iscrowd: 0 },
        { id: 11, image_id: 1, category_id: 2, segmentation: [[1, 1, 20, 1, 20, 12]], bbox: [1, 1, 19, 11], area: 100, iscrowd: 0 },
        { id: 12, image_id: 1, category_id: 2, bbox: [5, 5, 4, 4], area: 16, iscrowd: 0 },
        { id: 13, image_id: 2, category_id: 1, bbox: [5, 5, 4, 4], area: 16, iscrowd: 0 },
        { id: 14, image_id: 3, category_id: 2, bbox: [5, 5, 4, 4], area: 16, iscrowd: 0 },
        { id: 15, image_id: 4, category_id: 2, bbox: [5, 5, 4, 4], area: 16, iscrowd: 0 },
      ],
    };
    const zip = await zipOf({
      'annotations/instances_train.json': JSON.stringify(coco),
      'images/train/coco-a.png': await png(40, 30),
      'images/train/coco-b.png': await png(40, 30, '#228833'),
    });
    const job = await importInto(projectId, 'coco.zip', zip);
    expect(job.format).toBe('coco');
    expect(job.report.images_created).toBe(2);
    await afterImport(projectId, known, { 'coco-a.png': ['cat', 'dog'], 'coco-b.png': ['cat'], 'shared.png': ['dog'], 'old.png': ['dog'] });
    await expectClassListsMatch(server, owner.token, projectId, known, CLASSES);
  });

  it('YOLO: a new image with two classes, one without labels, and a label added to a COCO image', async () => {
    const zip = await zipOf({
      'data.yaml': 'path: .\ntrain: images/train\nval: images/val\nnames:\n  - cat\n  - bird\n',
      'images/train/yolo-a.png': await png(40, 30),
      'labels/train/yolo-a.txt': '1 0.5 0.5 0.2 0.2\n0 0.3 0.3 0.1 0.1\n1 0.7 0.7 0.1 0.1\n',
      'images/train/yolo-b.png': await png(40, 30, '#aa2222'),
      // COCO put coco-b.png in /train: an image the archive carries is matched in its folder.
      'images/train/coco-b.png': await png(40, 30, '#228833'),
      'labels/train/coco-b.txt': '1 0.5 0.5 0.2 0.2\n',
    });
    const job = await importInto(projectId, 'yolo.zip', zip);
    expect(job.format).toBe('yolo');
    expect(job.report.images_created).toBe(2);
    await afterImport(projectId, known, { 'yolo-a.png': ['bird', 'cat'], 'yolo-b.png': [], 'coco-b.png': ['bird'] });
    await expectClassListsMatch(server, owner.token, projectId, known, CLASSES);
  });

  it('Pascal VOC: a new image, and labels alone giving the first classes of an image that had none', async () => {
    const voc = (file: string, objects: string[]) =>
      `<annotation><folder>VOC</folder><filename>${file}</filename><size><width>40</width><height>30</height><depth>3</depth></size>${objects
        .map((name, i) => `<object><name>${name}</name><bndbox><xmin>${1 + i}</xmin><ymin>2</ymin><xmax>${10 + i}</xmax><ymax>12</ymax></bndbox></object>`)
        .join('')}</annotation>`;
    const zip = await zipOf({
      'VOC/Annotations/voc-a.xml': voc('voc-a.png', ['horse', 'person', 'horse']),
      'VOC/JPEGImages/voc-a.png': await png(40, 30),
      'VOC/Annotations/yolo-b.xml': voc('yolo-b.png', ['horse']),
    });
    const job = await importInto(projectId, 'voc.zip', zip);
    expect(job.format).toBe('voc');
    expect(job.report.images_created).toBe(1);
    await afterImport(projectId, known, { 'voc-a.png': ['horse', 'person'], 'yolo-b.png': ['horse'] });
    await expectClassListsMatch(server, owner.token, projectId, known, CLASSES);
  });

  it("Vellum: the project's own export imported into a new project brings every image's classes", async () => {
    const images = await listedImages(projectId);
    const res = await fetch(`${server.url}/api/v1/annotations/export`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: projectId, scope: 'selected', image_ids: images.map((i) => i.id), format: 'vellum', include_images: true }),
    });
    expect(res.status).toBe(200);
    const copy = (await createProject(server, owner, 'Copy')).id;
    const job = await importInto(copy, 'copy.zip', Buffer.from(await res.arrayBuffer()));
    expect(job.format).toBe('vellum');
    const copied = new Map<string, KnownImage>();
    await afterImport(copy, copied, {});
    // Every image came over (the archived one too; the copy lists it as the import left it).
    expect([...copied.keys()].sort()).toEqual([...known.keys()].sort());
    for (const [name, image] of copied) image.classes = known.get(name)!.classes;
    await expectClassListsMatch(server, owner.token, copy, copied, CLASSES);
  });
});
