// Export scopes that leave nothing out (issue 30): `all` (every image not archived, in every
// folder), current_filters with include_subfolders, POST /annotations/export/count (what the
// dialog shows before it starts), and README.txt stating the scope and the count.
import { randomUUID } from 'node:crypto';
import JSZip from 'jszip';
import { beforeAll, describe, expect, it } from 'vitest';
import { images } from '../../src/server/db/schema';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, type Member } from '../fixtures/datasets';

let server: TestServer;
let owner: Member;
let other: Member;
let project: { id: string };
const ids: Record<string, string> = {};

// 16 at the root, 4 in folders (one of them nested; '/northern' shares a prefix with '/north'), and an archived one.
const LAYOUT: [string, string, boolean][] = [
  ...Array.from({ length: 16 }, (_, i) => [`root-${String(i).padStart(2, '0')}.png`, '/', false] as [string, string, boolean]),
  ['n1.png', '/north', false],
  ['n2.png', '/north/deep', false],
  ['nn.png', '/northern', false],
  ['s1.png', '/south', false],
  ['old.png', '/', true],
];

async function post(path: string, body: Record<string, unknown>, token = owner.token) {
  const res = await fetch(`${server.url}/api/v1/annotations/${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ project_id: project.id, ...body }),
  });
  return res;
}
async function count(body: Record<string, unknown>, token = owner.token) {
  const res = await post('export/count', body, token);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
async function exported(body: Record<string, unknown>) {
  const res = await post('export', body);
  expect(res.status).toBe(200);
  const zip = await JSZip.loadAsync(Buffer.from(await res.arrayBuffer()));
  const files = Object.keys(zip.files).filter((n) => n.startsWith('annotations/') && !zip.files[n]!.dir).sort();
  return { files, readme: await zip.file('README.txt')!.async('string') };
}

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
  other = await onboardedUser(server);
  project = await createProject(server, owner, 'Scopes');
  const rows = LAYOUT.map(([filename, folder, archived]) => {
    const id = randomUUID();
    ids[filename] = id;
    return { id, projectId: project.id, organizationId: owner.org.id, filename, virtualFolderPath: folder, isArchived: archived, gcsUri: `gs://x/${filename}`, gcsPath: `nowhere/${filename}`, mimeType: 'image/png', status: 'new' as const, imageWidth: 10, imageHeight: 10 };
  });
  await server.built.ctx.db.insert(images).values(rows);
}, 60_000);


describe('scope all', () => {
  it('exports every image not archived, in every folder, and README.txt says so with the count', async () => {
    const { files, readme } = await exported({ scope: 'all' });
    expect(files).toHaveLength(20);
    expect(files).toEqual(expect.arrayContaining(['annotations/north/n1.png.json', 'annotations/north/deep/n2.png.json', 'annotations/northern/nn.png.json', 'annotations/south/s1.png.json', 'annotations/root-00.png.json']));
    expect(files).not.toContain('annotations/old.png.json');
    expect(readme).toContain('Scope: all (every image not archived, in every folder). Images: 20.');
  });

  it('is counted before the export starts, as the export holds it', async () => {
    expect(await count({ scope: 'all' })).toEqual({ status: 200, body: { success: true, scope: 'all', image_count: 20 } });
    // The root folder alone (the dialog's old "Current filters" at the root) still means the root only: 16.
    expect((await count({ scope: 'current_filters', filters: { folder_path: '/' } })).body.image_count).toBe(16);
    expect((await count({ scope: 'current_filters', filters: {} })).body.image_count).toBe(20);
    expect((await count({ scope: 'all_complete' })).body.image_count).toBe(0);
    expect((await count({ image_ids: [ids['n1.png'], ids['old.png']] })).body).toEqual({ success: true, scope: 'selected', image_count: 2 });
  });
});

describe('a folder with its sub-folders', () => {
  it('include_subfolders adds the folders inside, and only those (not /northern)', async () => {
    expect((await count({ scope: 'current_filters', filters: { folder_path: '/north' } })).body.image_count).toBe(1);
    expect((await count({ scope: 'current_filters', filters: { folder_path: '/north', include_subfolders: false } })).body.image_count).toBe(1);
    expect((await count({ scope: 'current_filters', filters: { folder_path: '/north', include_subfolders: true } })).body.image_count).toBe(2);
    expect((await count({ scope: 'current_filters', filters: { folder_path: '/', include_subfolders: true } })).body.image_count).toBe(20);
    const { files, readme } = await exported({ scope: 'current_filters', filters: { folder_path: '/north', include_subfolders: true } });
    expect(files).toEqual(['annotations/north/deep/n2.png.json', 'annotations/north/n1.png.json']);
    expect(readme).toContain('Scope: current_filters (the images filtered: not archived, in folder /north and its sub-folders). Images: 2.');
    const only = await exported({ scope: 'current_filters', filters: { folder_path: '/north' } });
    expect(only.readme).toContain('in folder /north only). Images: 1.');
  });
});

describe('count: the export checks', () => {
  it('answers 400 for an empty selection or a bad folder, 404 for another organization, 401 without a token', async () => {
    const empty = await count({ scope: 'selected' });
    expect([empty.status, empty.body.code]).toEqual([400, 'no_selection']);
    const badFolder = await count({ scope: 'current_filters', filters: { folder_path: '/a//b' } });
    expect([badFolder.status, badFolder.body.code]).toEqual([400, 'invalid_folder_path']);
    expect((await count({ scope: 'nope' })).status).toBe(400);
    expect((await count({ scope: 'all' }, other.token)).status).toBe(404);
    const theirs = await createProject(server, other, 'Theirs');
    const foreign = await count({ project_id: theirs.id, image_ids: [ids['n1.png']] }, other.token);
    expect([foreign.status, foreign.body.error]).toEqual([404, 'Image not found']);
    const anon = await fetch(`${server.url}/api/v1/annotations/export/count`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ project_id: project.id }) });
    expect(anon.status).toBe(401);
  });

  it('is in the OpenAPI document', async () => {
    const doc = await api(server.url, 'GET', '/api/docs/json');
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths)).toContain('/api/v1/annotations/export/count');
  });
});
