// The images list (GET /projects/{id}/images) and the export's 'current_filters' scope (the count
// and the zip itself) select the same images for the same filters: one filter module
// (services/image-filter.ts). Names hold LIKE's '_' (file names cannot hold '%' or '\': upload
// replaces them), mixed case and non-ASCII letters; searches hold '%', '_' and '\', so a search
// that took them as wildcards, or compared case differently, would pick other images on one side.
import { beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';

let server: TestServer;
let owner: Member;
let projectId: string;

const NAMES = ['Cat_1.png', 'cat-2.png', 'CAT.png', 'dog_cat.png', 'a_b.png', 'axb.png', 'abc.png', 'Ünïcode Cat.png', 'ünïcode-dog.png', 'plain.png'];

type Filters = Record<string, string | number>;

/** Every file name the list answers for these filters (all pages). */
async function listed(filters: Filters): Promise<string[]> {
  const names: string[] = [];
  for (let page = 1; ; page++) {
    const q = new URLSearchParams({ ...Object.fromEntries(Object.entries(filters).map(([k, v]) => [k, String(v)])), page: String(page), limit: '4' });
    const res = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?${q}`, { token: owner.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    names.push(...(res.body.images as { filename: string }[]).map((i) => i.filename));
    if (!res.body.pagination.hasNext) break;
  }
  return names.sort();
}

const body = (filters: Filters) => ({ project_id: projectId, scope: 'current_filters', format: 'vellum', filters });

/** The export's count, and the file names in its zip (annotations/<folder>/<name>.json), for these filters. */
async function exported(filters: Filters): Promise<{ count: number; names: string[] }> {
  const counted = await api(server.url, 'POST', '/api/v1/annotations/export/count', { token: owner.token, body: body(filters) });
  expect(counted.status, JSON.stringify(counted.body)).toBe(200);
  const count = counted.body.image_count as number;
  if (count === 0) return { count, names: [] };
  const res = await fetch(`${server.url}/api/v1/annotations/export`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body(filters)),
  });
  expect(res.status).toBe(200);
  const zip = await JSZip.loadAsync(Buffer.from(await res.arrayBuffer()));
  const names = Object.keys(zip.files)
    .filter((p) => p.startsWith('annotations/') && p.endsWith('.json'))
    .map((p) => p.slice(p.lastIndexOf('/') + 1, -'.json'.length));
  return { count, names: names.sort() };
}

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
  projectId = (await createProject(server, owner, 'Filters')).id;
  expect((await api(server.url, 'POST', '/api/folders/create', { token: owner.token, body: { project_id: projectId, name: 'pets' } })).status).toBe(200);
  const ids: Record<string, string> = {};
  for (const [i, name] of NAMES.entries()) {
    // Sizes differ (the file size filters), every third image in /pets (the folder filter).
    const image = await uploadImage(server, owner, projectId, name, await png(8 + i, 8), { folder: i % 3 === 0 ? '/pets' : '/' });
    ids[name] = image.id;
  }
  for (const name of ['Cat_1.png', 'a_b.png', 'Ünïcode Cat.png']) {
    expect((await api(server.url, 'PATCH', `/api/v1/images/${ids[name]}/status`, { token: owner.token, body: { status: 'complete' } })).status).toBe(200);
  }
  const archived = await api(server.url, 'PATCH', '/api/images/batch/update', { token: owner.token, body: { project_id: projectId, image_ids: [ids['CAT.png']], updates: { is_archived: true } } });
  expect(archived.status, JSON.stringify(archived.body)).toBe(200);
}, 120_000);


describe('the list and the export select the same images', () => {
  const cases: [string, Filters, string[] | null][] = [
    ['a search for "cat", any case', { search: 'cat' }, ['Cat_1.png', 'Ünïcode Cat.png', 'cat-2.png', 'dog_cat.png']],
    ['a search for "%" takes it literally (as a wildcard it would match every name)', { search: '%' }, []],
    ['a search for "C%T" takes it literally', { search: 'C%T' }, []],
    ['a search for "_" takes it literally', { search: '_' }, ['Cat_1.png', 'a_b.png', 'dog_cat.png']],
    ['a search for "A_B" matches a_b, not axb', { search: 'A_B' }, ['a_b.png']],
    ['a search for a backslash', { search: '\\' }, []],
    // Whether Ü and ü meet depends on the database's locale (C: ASCII only); both sides agree either way.
    ['a search for non-ASCII letters, other case', { search: 'ÜNÏCODE' }, null],
    ['archived images', { is_archived: 'true' }, ['CAT.png']],
    ['archived or not, named "CAT"', { is_archived: 'all', search: 'CAT' }, ['CAT.png', 'Cat_1.png', 'Ünïcode Cat.png', 'cat-2.png', 'dog_cat.png']],
    ['one folder', { folder_path: '/pets' }, ['Cat_1.png', 'abc.png', 'dog_cat.png', 'plain.png']],
    ['a stage and a search', { status: 'complete', search: 'c' }, ['Cat_1.png', 'Ünïcode Cat.png']],
    ['png files', { mime_type: 'png' }, NAMES.filter((n) => n !== 'CAT.png').sort()],
  ];

  for (const [title, filters, expected] of cases) {
    it(title, { timeout: 60_000 }, async () => {
      const list = await listed(filters);
      if (expected) expect(list).toEqual([...expected].sort());
      const out = await exported(filters);
      expect(out.names).toEqual(list);
      expect(out.count).toBe(list.length);
    });
  }

  it('file sizes, between the second and the second-largest image', { timeout: 60_000 }, async () => {
    const all = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?limit=100&is_archived=all`, { token: owner.token });
    const sizes = (all.body.images as { file_size: number }[]).map((i) => i.file_size).sort((a, b) => a - b);
    const filters = { min_file_size: sizes[1]!, max_file_size: sizes[sizes.length - 2]! };
    const list = await listed(filters);
    expect(list.length).toBeGreaterThan(0);
    expect((await exported(filters)).names).toEqual(list);
  });
});
