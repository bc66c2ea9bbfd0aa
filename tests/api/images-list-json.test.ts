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

// The rows' JSON is written by the database (read.ts pageOf, row_to_json): its strings must be
// escaped byte for byte as JSON.stringify escapes them. Names the API accepts (quotes, apostrophes,
// markup, non-ASCII, emoji, U+2028 / U+2029 in a folder name), and text only the database could
// hold (an older row, a direct write): control characters with and without a short escape, DEL,
// backslashes, a folder path with no folder row.
describe('the list writes every string as JSON.stringify does', () => {
  const FOLDER = 'q"uote \'é\' 🐱 \u2028\u2029 <script> &amp;';
  const NASTY = 'a"b\\c\b\f\n\r\t\u0001\u0007\u000b\u001f\u007f\u0080\u2028\u2029é漢字🐱</script>.png';
  let nastyProject: string;

  beforeAll(async () => {
    nastyProject = (await createProject(server, owner, 'List JSON bytes')).id;
    const made = await api(server.url, 'POST', '/api/folders/create', { token: owner.token, body: { project_id: nastyProject, name: FOLDER } });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const uploaded = [
      await uploadImage(server, owner, nastyProject, 'plain.png', await png(8, 8)),
      await uploadImage(server, owner, nastyProject, 'ünï €0 🐱 it\'s &amp;.png', await png(9, 9), { folder: `/${FOLDER}` }),
      await uploadImage(server, owner, nastyProject, 'raw.png', await png(10, 10)),
      await uploadImage(server, owner, nastyProject, 'raw-folder.png', await png(11, 11), { folder: `/${FOLDER}` }),
    ];
    // What the API would refuse or clean, written as a row could hold it.
    const db = server.built.ctx.database;
    const text = (s: string) => `'${s.replace(/'/g, "''")}'`;
    await db.exec(`UPDATE images SET filename = ${text(NASTY)}, gcs_path = ${text(`p/${NASTY}`)}, gcs_uri = ${text(`gs://b/${NASTY}`)}, thumbnail_path = ${text(`t\\${NASTY}`)} WHERE id = '${uploaded[2]!.id}'`);
    await db.exec(`UPDATE images SET virtual_folder_path = ${text('/no "row" \\ here\u0007')}, filename = ${text('\u001e"\\\\"\u007f.png')} WHERE id = '${uploaded[3]!.id}'`);
  }, 120_000);

  async function rawList(query: string) {
    const res = await fetch(`${server.url}/api/v1/projects/${nastyProject}/images?${query}`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(res.status).toBe(200);
    return res.text();
  }

  for (const [what, query] of [
    ['whole project', 'limit=50'],
    ['the folder', `limit=50&folder_path=${encodeURIComponent(`/${FOLDER}`)}`],
    ['by file name', 'limit=50&sort_by=filename&sort_order=asc'],
    ['page 2 (the deferred join)', 'limit=1&page=2'],
    ['page 3', 'limit=1&page=3'],
  ] as const) {
    it(`${what}: the bytes are JSON.stringify's, and each image's bytes are those of GET /images/{id}'s`, async () => {
      const raw = await rawList(query);
      const body = JSON.parse(raw) as { images: { id: string }[] };
      expect(body.images.length).toBeGreaterThan(0);
      expect(raw).toBe(JSON.stringify(body));
      for (const listed of body.images) {
        const one = await api(server.url, 'GET', `/api/v1/images/${listed.id}`, { token: owner.token });
        expect(one.status).toBe(200);
        expect(raw).toContain(JSON.stringify(one.body.image)); // imageJson's values, written by JSON.stringify
      }
    });
  }

  it('the rows hold the strings as written (the escapes decode to the same text)', async () => {
    const { images } = JSON.parse(await rawList('limit=50')) as { images: { filename: string; thumbnail_path: string | null; virtual_folder_path: string; folder_id: string | null }[] };
    const byName = new Map(images.map((i) => [i.filename, i]));
    expect(byName.get(NASTY)?.thumbnail_path).toBe(`t\\${NASTY}`);
    expect(byName.get('\u001e"\\\\"\u007f.png')).toMatchObject({ virtual_folder_path: '/no "row" \\ here\u0007', folder_id: null });
    expect(byName.get('ünï €0 🐱 it\'s &amp;.png')?.virtual_folder_path).toBe(`/${FOLDER}`);
    expect(byName.get('ünï €0 🐱 it\'s &amp;.png')?.folder_id).toEqual(expect.any(String));
  });
});
