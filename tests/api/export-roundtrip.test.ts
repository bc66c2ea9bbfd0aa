// Round trips through the API. YOLO and Pascal VOC: export a project (with its image files), import
// the zip into a new project, and find every box again to 1e-6 of the image size, in its folder.
// Vellum: export then import gives the same document (ids, classes with colours, stages, folders,
// attributes, every shape kind). COCO: import a COCO file, export COCO, and get the same boxes,
// polygons, masks (pixel for pixel), keypoint skeletons, categories and attributes.
import { beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { decodeRle, encodeMask } from '../../src/contract/rle';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, jpeg, png, uploadImage, type Member } from '../fixtures/datasets';
import { importFile } from './support/imports';
import { joinAs } from './team-harness';

let server: TestServer;
let owner: Member;
let source: { id: string };
const W = 40;
const H = 30;

type Box = { x: number; y: number; w: number; h: number };
const byImage: Record<string, { folder: string; size: [number, number]; boxes: { name: string; box: Box }[] }> = {
  'scene.png': {
    folder: '/',
    size: [W, H],
    boxes: [
      { name: 'car', box: { x: 2.25, y: 3.5, w: 10.125, h: 5.75 } },
      { name: 'car', box: { x: 1.000001, y: 29.5, w: 38.999999, h: 0.5 } },
      { name: 'person', box: { x: 0, y: 0, w: 40, h: 30 } },
      { name: 'person', box: { x: 13.333333, y: 7.777777, w: 0.123456, h: 11.111111 } },
    ],
  },
  'x.png': { folder: '/cats', size: [W, H], boxes: [{ name: 'car', box: { x: 4, y: 4, w: 8, h: 6 } }] },
  'x.jpg': { folder: '/dogs', size: [20, 10], boxes: [{ name: 'person', box: { x: 1.5, y: 2.5, w: 3.25, h: 4.125 } }] },
};

async function exportZip(body: Record<string, unknown>): Promise<Buffer> {
  const res = await fetch(`${server.url}/api/v1/annotations/export`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ project_id: source.id, scope: 'current_filters', filters: {}, include_images: true, ...body }),
  });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** Imports the zip into a new project and waits for it; returns the project id. */
async function importZip(filename: string, bytes: Buffer, format: string): Promise<string> {
  const projectId = (await createProject(server, owner)).id;
  const job = await importFile(server, owner.token, projectId, filename, bytes, { format });
  expect(job.status, job.error).toBe('done');
  return projectId;
}

/** The imported project's boxes, by the image's original file name (VOC renames shared stems <stem>-<id>). */
async function importedBoxes(projectId: string) {
  const list = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?page_size=100&sort_by=filename&sort_order=asc`, { token: owner.token });
  expect(list.status).toBe(200);
  const out: Record<string, { folder: string; boxes: { name: string; box: Box }[] }> = {};
  for (const image of list.body.images as { id: string; filename: string; virtual_folder_path?: string; folder_path?: string }[]) {
    const original = image.filename.replace(/-[0-9a-f-]{36}(\.[^.]+)$/, '$1');
    const data = await api(server.url, 'GET', `/api/v1/annotations/load-data/${image.id}`, { token: owner.token });
    out[original] = {
      folder: image.virtual_folder_path ?? image.folder_path ?? '',
      boxes: (data.body.annotations as { name: string; bounding_box: Box }[]).map((a) => ({ name: a.name, box: a.bounding_box })),
    };
  }
  return out;
}

function expectSameBoxes(actual: Awaited<ReturnType<typeof importedBoxes>>) {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(byImage).sort());
  for (const [name, want] of Object.entries(byImage)) {
    const got = actual[name]!;
    expect(got.folder, name).toBe(want.folder);
    expect(got.boxes.map((b) => b.name)).toEqual(want.boxes.map((b) => b.name));
    const tolerance = 1e-6 * Math.max(...want.size);
    got.boxes.forEach((b, i) => {
      for (const k of ['x', 'y', 'w', 'h'] as const) expect(Math.abs(b.box[k] - want.boxes[i]!.box[k]), `${name} box ${i} ${k}`).toBeLessThanOrEqual(tolerance);
    });
  }
}

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
  source = await createProject(server, owner, 'Round trip');
  const classes = [
    { name: 'car', type: 'box', color: '#ff0000' },
    { name: 'person', type: 'box', color: '#00ff00' },
  ];
  expect((await api(server.url, 'PATCH', `/api/v1/projects/${source.id}`, { token: owner.token, body: { classes } })).status).toBe(200);
  for (const name of ['cats', 'dogs']) expect((await api(server.url, 'POST', '/api/folders/create', { token: owner.token, body: { project_id: source.id, name } })).status).toBe(200);
  for (const [filename, spec] of Object.entries(byImage)) {
    const bytes = filename.endsWith('.jpg') ? await jpeg(spec.size[0], spec.size[1]) : await png(spec.size[0], spec.size[1]);
    const image = await uploadImage(server, owner, source.id, filename, bytes, { folder: spec.folder });
    const annotations = spec.boxes.map((b, i) => ({ id: `${filename}-${i}`, name: b.name, bounding_box: b.box }));
    const saved = await api(server.url, 'POST', '/api/v1/annotations/save-data', { token: owner.token, body: { image_id: image.id, project_id: source.id, image_filename: image.filename, annotations } });
    expect(saved.status).toBe(200);
  }
}, 90_000);


describe('round trips', () => {
  it('YOLO: export, import into a new project, every box back to 1e-6 of the image size, in its folder', { timeout: 60_000 }, async () => {
    const projectId = await importZip('Round trip_yolo.zip', await exportZip({ format: 'yolo' }), 'yolo');
    expectSameBoxes(await importedBoxes(projectId));
  });

  it('VOC: export, import into a new project, every box back to 1e-6 of the image size, in its folder', { timeout: 60_000 }, async () => {
    const projectId = await importZip('Round trip_voc.zip', await exportZip({ format: 'voc' }), 'voc');
    expectSameBoxes(await importedBoxes(projectId));
  });
});

/** Every image of a project, archived or not: name -> {folder, status, archived, annotations as load-data gives them}. */
async function documents(projectId: string) {
  const list = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?page_size=100&sort_by=filename&sort_order=asc&is_archived=all`, { token: owner.token });
  const out: Record<string, { folder: string; status: string; archived: boolean; annotations: Record<string, unknown>[] }> = {};
  for (const image of list.body.images as { id: string; filename: string; status: string; is_archived: boolean; virtual_folder_path?: string; folder_path?: string }[]) {
    const data = await api(server.url, 'GET', `/api/v1/annotations/load-data/${image.id}`, { token: owner.token });
    out[image.filename] = { folder: image.virtual_folder_path ?? image.folder_path ?? '', status: image.status, archived: image.is_archived, annotations: data.body.annotations };
  }
  return out;
}

describe('Vellum: export, then import into a new project, gives the same document', () => {
  it('keeps ids, every shape kind, attributes, classes with colours, stages, the archive flag and folders (also empty ones)', { timeout: 90_000 }, async () => {
    const project = await createProject(server, owner, 'Lossless');
    const classes = [
      { name: 'car', type: 'box', color: '#123456' },
      { name: 'roof', type: 'polygon', color: '#abcdef' },
      { name: 'lane', type: 'polyline', color: '#FFADAD' },
      { name: 'eye', type: 'keypoint', color: '#A0C4FF' },
    ];
    expect((await api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { classes } })).status).toBe(200);
    for (const name of ['train', 'empty']) expect((await api(server.url, 'POST', '/api/folders/create', { token: owner.token, body: { project_id: project.id, name } })).status).toBe(200);
    const mask = new Uint8Array(30 * 40);
    for (let x = 3; x < 9; x++) for (let y = 2; y < 7; y++) mask[x * 30 + y] = 1;
    const shapes = [
      { id: 'b1', name: 'car', bounding_box: { x: 1.5, y: 2, w: 10, h: 5 }, attributes: [{ name: 'occluded', value: true }, 'free text'] },
      { id: 'p1', name: 'roof', bounding_box: { x: 0, y: 0, w: 20, h: 20 }, polygon: { path: [[0, 0], [20, 0], [20, 20], [0, 20]], holes: [[[5, 5], [10, 5], [10, 10]]] } },
      { id: 'm1', name: 'roof', bounding_box: { x: 3, y: 2, w: 6, h: 5 }, segmentation: { size: [30, 40], counts: encodeMask(mask, 30, 40) } },
      { id: 'l1', name: 'lane', bounding_box: { x: 0, y: 25, w: 40, h: 0 }, polyline: { path: [[0, 25], [40, 25]] } },
      { id: 'k1', name: 'eye', bounding_box: { x: 7, y: 8, w: 0, h: 0 }, keypoint: { x: 7, y: 8 }, sam2_area: 12 },
    ];
    const a = await uploadImage(server, owner, project.id, 'a.png', await png(40, 30), { folder: '/train' });
    const b = await uploadImage(server, owner, project.id, 'b.png', await png(40, 30));
    expect((await api(server.url, 'POST', '/api/v1/annotations/save-data', { token: owner.token, body: { image_id: a.id, project_id: project.id, image_filename: 'a.png', annotations: shapes } })).status).toBe(200);
    expect((await api(server.url, 'PATCH', `/api/v1/images/${b.id}/status`, { token: owner.token, body: { status: 'complete' } })).status).toBe(200);
    // An archived image in review: both come back as they were (an import used to bring it back unarchived).
    const c = await uploadImage(server, owner, project.id, 'c.png', await png(40, 30));
    expect((await api(server.url, 'PATCH', `/api/v1/images/${c.id}/status`, { token: owner.token, body: { status: 'review' } })).status).toBe(200);
    expect((await api(server.url, 'PATCH', '/api/images/batch/update', { token: owner.token, body: { image_ids: [c.id], project_id: project.id, updates: { is_archived: true } } })).status).toBe(200);

    const res = await fetch(`${server.url}/api/v1/annotations/export`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: project.id, scope: 'selected', image_ids: [a.id, b.id, c.id], format: 'vellum', include_images: true }),
    });
    expect(res.status).toBe(200);
    const copy = await importZip('Lossless_vellum.zip', Buffer.from(await res.arrayBuffer()), 'auto');

    const original = await documents(project.id);
    expect(original['c.png']).toMatchObject({ status: 'review', archived: true });
    expect(await documents(copy)).toEqual(original);
    const after = await api(server.url, 'GET', `/api/v1/projects/${copy}`, { token: owner.token });
    const before = await api(server.url, 'GET', `/api/v1/projects/${project.id}`, { token: owner.token });
    expect(after.body.project.classes).toEqual(before.body.project.classes);
    expect(after.body.project.classes.map((c: { name: string; color: string }) => [c.name, c.color])).toEqual(classes.map((c) => [c.name, c.color]));
    const folders = await api(server.url, 'GET', `/api/folders/list/${copy}`, { token: owner.token });
    expect(JSON.stringify(folders.body)).toContain('"empty"');
  });
});

describe('Vellum import by a role that may not stage or archive', () => {
  it('imports the images and annotations, keeps their stage and archive flag as they were, and says so once each', { timeout: 90_000 }, async () => {
    const project = await createProject(server, owner, 'Staged');
    const image = await uploadImage(server, owner, project.id, 'd.png', await png(40, 30));
    expect((await api(server.url, 'PATCH', `/api/v1/images/${image.id}/status`, { token: owner.token, body: { status: 'complete' } })).status).toBe(200);
    expect((await api(server.url, 'PATCH', '/api/images/batch/update', { token: owner.token, body: { image_ids: [image.id], project_id: project.id, updates: { is_archived: true } } })).status).toBe(200);
    const res = await fetch(`${server.url}/api/v1/annotations/export`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: project.id, scope: 'selected', image_ids: [image.id], format: 'vellum', include_images: true }),
    });
    expect(res.status).toBe(200);
    const annotator = await joinAs(server, owner.token, owner.org.id, 'annotator');
    const target = (await createProject(server, owner, 'Staged copy')).id;
    const job = await importFile(server, annotator.token, target, 'Staged_vellum.zip', Buffer.from(await res.arrayBuffer()), { format: 'vellum' });
    expect(job.status, job.error).toBe('done');
    expect(job.report.images_created).toBe(1);
    expect(job.report.warnings).toEqual(
      expect.arrayContaining([
        "Your role cannot change images' stage: the dataset's stage was not applied",
        "Your role cannot change images' archive state: the dataset's archive state was not applied",
      ]),
    );
    expect(Object.values(await documents(target)).map((d) => [d.status, d.archived])).toEqual([['new', false]]);
  });
});

describe('COCO: import, then export, gives the same objects', () => {
  it('keeps boxes, multi-ring polygons, masks pixel for pixel, keypoint skeletons (as skeleton instances), categories and attributes', { timeout: 90_000 }, async () => {
    const mask = new Uint8Array(30 * 40);
    for (let x = 10; x < 30; x++) for (let y = 5; y < 25; y++) if ((x + y) % 7) mask[x * 30 + y] = 1;
    const counts = encodeMask(mask, 30, 40);
    const coco = {
      images: [{ id: 7, file_name: 'street.png', width: 40, height: 30 }],
      categories: [
        { id: 1, name: 'car', supercategory: 'vehicle' },
        { id: 2, name: 'building' },
        { id: 3, name: 'person', keypoints: ['nose', 'left_eye', 'right_eye'], skeleton: [[1, 2], [1, 3]] },
      ],
      annotations: [
        { id: 1, image_id: 7, category_id: 1, bbox: [2, 3, 10, 5], area: 50, iscrowd: 0, segmentation: [[2, 3, 12, 3, 12, 8, 2, 8]], attributes: { occluded: false, make: 'volvo' } },
        { id: 2, image_id: 7, category_id: 2, bbox: [1, 1, 34, 11], area: 230.5, iscrowd: 0, segmentation: [[1, 1, 20, 1, 20, 12], [25, 2, 35, 2, 35, 9]] },
        { id: 3, image_id: 7, category_id: 2, bbox: [10, 5, 20, 20], area: 0, iscrowd: 1, segmentation: { size: [30, 40], counts } },
        { id: 4, image_id: 7, category_id: 3, bbox: [14, 6, 12, 20], area: 240, iscrowd: 0, segmentation: [[14, 6, 26, 6, 26, 26, 14, 26]], keypoints: [20, 8, 2, 18, 7, 1, 0, 0, 0], num_keypoints: 2 },
        { id: 5, image_id: 7, category_id: 3, bbox: [2, 12, 8, 15], area: 120, iscrowd: 0, keypoints: [5, 14, 2, 0, 0, 0, 7, 14, 2], num_keypoints: 2 },
      ],
    };
    const zip = new JSZip();
    zip.file('annotations/instances_val.json', JSON.stringify(coco));
    zip.file('images/val/street.png', await png(40, 30));
    const projectId = await importZip('street.zip', await zip.generateAsync({ type: 'nodebuffer' }), 'coco');

    const res = await fetch(`${server.url}/api/v1/annotations/export`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: projectId, scope: 'current_filters', filters: {}, format: 'coco' }),
    });
    expect(res.status).toBe(200);
    const out = JSON.parse(await (await JSZip.loadAsync(Buffer.from(await res.arrayBuffer()))).file('annotations.json')!.async('string'));
    const cat = (id: number) => out.categories.find((c: { id: number }) => c.id === id);
    expect(out.categories.map((c: { name: string }) => c.name).sort()).toEqual(['building', 'car', 'person', 'person segmentation']);
    expect(out.categories.find((c: { name: string }) => c.name === 'person').keypoints).toEqual(['nose', 'left_eye', 'right_eye']);
    const byName = (name: string) => out.annotations.filter((a: { category_id: number }) => cat(a.category_id).name === name);

    const [car] = byName('car');
    expect(car.bbox).toEqual([2, 3, 10, 5]);
    expect(car.attributes).toEqual({ occluded: false, make: 'volvo' });
    const buildings = byName('building');
    const rings = buildings.find((b: { segmentation: unknown }) => Array.isArray(b.segmentation));
    expect(rings.segmentation).toEqual(coco.annotations[1]!.segmentation);
    const rle = buildings.find((b: { segmentation: unknown }) => !Array.isArray(b.segmentation));
    expect(rle.iscrowd).toBe(1);
    expect(Buffer.from(decodeRle(rle.segmentation))).toEqual(Buffer.from(mask));
    const [person, other] = byName('person');
    expect(person.keypoints).toEqual([20, 8, 2, 18, 7, 1, 0, 0, 0]);
    expect(person.num_keypoints).toBe(2);
    expect(person.bbox).toEqual([14, 6, 12, 20]);
    // The person category is a skeleton class now (issue 33), which holds skeletons only: the outline comes in as its own
    // polygon of 'person segmentation' and goes out as it came; the skeleton's segmentation written is a zero-area
    // polygon at the box's corner, and the edges come back 1-based.
    expect(person.segmentation).toEqual([[14, 6, 14, 6, 14, 6]]);
    expect(byName('person segmentation').map((a: { segmentation: unknown }) => a.segmentation)).toEqual([coco.annotations[3]!.segmentation]);
    expect(out.categories.find((c: { name: string }) => c.name === 'person').skeleton).toEqual([[1, 2], [1, 3]]);
    expect(other.keypoints).toEqual([5, 14, 2, 0, 0, 0, 7, 14, 2]);
    expect(other.bbox).toEqual([2, 12, 8, 15]);
    expect(out.annotations).toHaveLength(6);
  });
});
