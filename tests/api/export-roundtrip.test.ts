// YOLO and Pascal VOC round trips through the API: export a project (with its image files), import
// the zip into a new project, and find every box again to 1e-6 of the image size, in its folder.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, startServer, type TestServer } from './harness';
import { createProject, jpeg, png, uploadImage, type Member } from '../fixtures/datasets';
import { READERS } from '../../src/server/services/import/formats';

/** A round trip needs the format's import reader; until it is registered, its case is skipped. */
const canImport = (format: string) => READERS.some((r) => r.format === format);

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
  const res = await api(server.url, 'POST', `/api/v1/projects/${projectId}/imports`, { token: owner.token, body: { filename, size: bytes.length, format } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect((await fetch(res.body.upload_url, { method: 'PUT', headers: { 'content-type': res.body.content_type }, body: new Uint8Array(bytes) })).status).toBe(200);
  expect((await api(server.url, 'POST', `/api/v1/imports/${res.body.import_id}/start`, { token: owner.token })).status).toBe(202);
  for (let i = 0; i < 300; i++) {
    const job = await api(server.url, 'GET', `/api/v1/imports/${res.body.import_id}`, { token: owner.token });
    if (job.body.status === 'done') return projectId;
    if (job.body.status === 'failed') throw new Error(`import failed: ${JSON.stringify(job.body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the import did not finish in 30 s');
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
  server = await startServer({ IMPORT_POLL_MS: '100' });
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

afterAll(async () => {
  await server?.stop();
});

describe('round trips', () => {
  it.skipIf(!canImport('yolo'))('YOLO: export, import into a new project, every box back to 1e-6 of the image size, in its folder', { timeout: 60_000 }, async () => {
    const projectId = await importZip('Round trip_yolo.zip', await exportZip({ format: 'yolo' }), 'yolo');
    expectSameBoxes(await importedBoxes(projectId));
  });

  it.skipIf(!canImport('voc'))('VOC: export, import into a new project, every box back to 1e-6 of the image size, in its folder', { timeout: 60_000 }, async () => {
    const projectId = await importZip('Round trip_voc.zip', await exportZip({ format: 'voc' }), 'voc');
    expectSameBoxes(await importedBoxes(projectId));
  });
});
