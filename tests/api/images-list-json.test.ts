// The images list's rows come from the database with the API's keys and ISO timestamps
// (services/images/read.ts, imageColumnList) and are stringified as they come, not through the
// response schema: each listed image must be what GET /images/{id}
// answers for it (json.ts, imageJson), key for key and in the same key order, timestamps to the
// millisecond included, and the body must be the contract's ListImagesResponse. Checked on every
// way a page is read: the whole project (folders joined), one folder (its id looked up once) and
// the root, page 1 and a later page (the deferred join), and a keyset page (after=). Runs on
// PGlite and PostgreSQL.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';
import { ListImagesResponse } from '../../src/contract/images';

let server: TestServer;
let owner: Member;
let projectId: string;

const IMAGES: [name: string, folder: string][] = [
  ['a-01.png', '/'],
  ['a-02.png', '/pets'],
  ['a-03.png', '/pets/cats'],
  ['a-04.png', '/'],
  ['a-05.png', '/pets'],
];

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
  projectId = (await createProject(server, owner, 'List JSON')).id;
  expect((await api(server.url, 'PATCH', `/api/v1/projects/${projectId}`, { token: owner.token, body: { classes: [{ name: 'car', type: 'box', color: '#ff0000' }] } })).status).toBe(200);
  for (const [parent, name] of [[undefined, 'pets'], ['/pets', 'cats']] as const) {
    const res = await api(server.url, 'POST', '/api/folders/create', { token: owner.token, body: { project_id: projectId, name, ...(parent ? { parent_folder_path: parent } : {}) } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  for (const [k, [name, folder]] of IMAGES.entries()) {
    const { id } = await uploadImage(server, owner, projectId, name, await png(8 + k, 9 + k), { folder });
    if (k === 1) {
      const annotations = [{ id: 'b1', name: 'car', bounding_box: { x: 1, y: 1, w: 3, h: 3 } }];
      const saved = await api(server.url, 'POST', '/api/v1/annotations/save-data', { token: owner.token, body: { image_id: id, project_id: projectId, image_filename: name, annotations } });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    }
  }
}, 120_000);


async function list(query: string, limit = 2) {
  const res = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?limit=${limit}&${query}`, { token: owner.token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  // Strict: no key the contract does not name, none missing.
  const strict = ListImagesResponse.extend({ images: ListImagesResponse.shape.images.element.strict().array() }).strict();
  const parsed = strict.safeParse(res.body);
  expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  // The bytes as JSON.stringify writes the answer (the rows are encoded one by one: read.ts listBody).
  const raw = await (await fetch(`${server.url}/api/v1/projects/${projectId}/images?limit=${limit}&${query}`, { headers: { authorization: `Bearer ${owner.token}` } })).text();
  expect(raw).toBe(JSON.stringify(res.body));
  return res.body as { images: Record<string, unknown>[]; pagination: { nextCursor: string | null; hasNext: boolean; totalItems: number } };
}

/** Each listed image is GET /images/{id}'s image, keys in the same order. */
async function expectSameAsOne(images: Record<string, unknown>[]) {
  for (const listed of images) {
    const one = await api(server.url, 'GET', `/api/v1/images/${listed.id as string}`, { token: owner.token });
    expect(one.status).toBe(200);
    expect(listed).toEqual(one.body.image);
    expect(Object.keys(listed)).toEqual(Object.keys(one.body.image));
  }
}

describe('the list answers each image as GET /images/{id} does', () => {
  for (const [what, query] of [
    ['whole project', ''],
    ['one folder', 'folder_path=/pets'],
    ['a folder inside a folder', 'folder_path=/pets/cats'],
    ['the root', 'folder_path=/'],
    ['sorted by file name', 'sort_by=filename&sort_order=asc'],
  ] as const) {
    it(`${what}: page 1, page 2 and the keyset page after page 1`, async () => {
      const first = await list(query);
      expect(first.images.length).toBeGreaterThan(0);
      await expectSameAsOne(first.images);
      const second = await list(`${query}&page=2`);
      await expectSameAsOne(second.images);
      if (first.pagination.hasNext) {
        const keyset = await list(`${query}&page=2&after=${first.pagination.nextCursor!}`);
        expect(keyset.images.map((i) => i.id)).toEqual(second.images.map((i) => i.id));
      }
    });
  }

  it('the folder ids are the folders\' and the root has none', async () => {
    const { images } = await list('', 10);
    expect(images.length).toBe(IMAGES.length);
    type Node = { id: string; full_path: string; children: Node[] };
    const tree = (await api(server.url, 'GET', `/api/folders/list/${projectId}`, { token: owner.token })).body as { folders: Node[] };
    const idOf = new Map<string, string>();
    const walk = (nodes: Node[]): void => nodes.forEach((f) => (idOf.set(f.full_path, f.id), walk(f.children)));
    walk(tree.folders);
    expect([...idOf.keys()].sort()).toEqual(['/pets', '/pets/cats']);
    for (const image of images) expect(image.folder_id, image.filename as string).toBe(image.virtual_folder_path === '/' ? null : idOf.get(image.virtual_folder_path as string));
    expect(images.find((i) => i.filename === 'a-02.png')).toMatchObject({ annotation_count: 1, status: 'annotating' });
  });
});

// The total comes with the access check's own query (read.ts statsTotal, access.ts projectFieldsInOrg)
// when counters or stats hold it; a count of rows otherwise.
describe('the total, read with the access check', () => {
  const kinds = [
    ['the project counters', ''],
    ['the folder stats, a folder', 'folder_path=/pets'],
    ['the folder stats, a stage', 'status=annotating'],
    ['the class stats', 'class=car'],
    ['a count of rows', 'search=a-0'],
  ] as const;

  it('is the number of images each kind of filter lists', async () => {
    for (const [what, query] of kinds) {
      const all = await list(query, 100);
      expect(all.images.length, what).toBeGreaterThan(0);
      expect(all.pagination.totalItems, what).toBe(all.images.length);
    }
  });

  it("is not answered to another organization's member, nor for an org_id that is not the project's: 404", async () => {
    const stranger = await onboardedUser(server);
    for (const [what, query] of kinds) {
      const res = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?${query}`, { token: stranger.token });
      expect(res.status, what).toBe(404);
      expect(res.body.pagination, what).toBeUndefined();
      const otherOrg = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?org_id=${stranger.org.id}&${query}`, { token: owner.token });
      expect(otherOrg.status, what).toBe(404);
    }
  });
});
