// The folder calls (/api/folders) as a client sees them: the tree with counts, create, rename,
// move and delete, with the paths of folders and images inside rewritten in one go.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';

let server: TestServer;
let owner: Member;
let stranger: Member;

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
  stranger = await onboardedUser(server);
});

const create = (projectId: string, name: string | null, parent = '/', token = owner.token) =>
  api(server.url, 'POST', '/api/folders/create', { token, body: { project_id: projectId, ...(name !== null && { name }), parent_folder_path: parent } });
const tree = async (projectId: string) => (await api(server.url, 'GET', `/api/folders/list/${projectId}`, { token: owner.token })).body;
const imagePaths = async (projectId: string) => {
  const res = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?is_archived=all&sort_by=filename&sort_order=asc`, { token: owner.token });
  return Object.fromEntries(res.body.images.map((i: { filename: string; virtual_folder_path: string }) => [i.filename, i.virtual_folder_path]));
};
/** The tree as nested { name: children } with counts, easy to compare. */
const shape = (nodes: { name: string; image_count: number; total_image_count: number; children: any[] }[]): Record<string, unknown> =>
  Object.fromEntries(nodes.map((n) => [`${n.name} (${n.image_count}/${n.total_image_count})`, shape(n.children)]));

describe('create and list', () => {
  it('builds the tree with direct and total image counts (archived images not counted)', async () => {
    const p = await createProject(server, owner);
    const animals = await create(p.id, 'animals');
    expect(animals.status).toBe(200);
    expect(animals.body.folder).toMatchObject({ name: 'animals', full_path: '/animals', parent_folder_path: '/', parent_folder_id: null, project_id: p.id });
    const cats = await create(p.id, ' cats ', '/animals');
    expect(cats.body.folder).toMatchObject({ name: 'cats', full_path: '/animals/cats', parent_folder_path: '/animals', parent_folder_id: animals.body.folder.id });
    await create(p.id, 'dogs', 'animals/'); // parent path without the leading slash
    await create(p.id, 'plants');
    await uploadImage(server, owner, p.id, 'root.png', await png(4, 4));
    await uploadImage(server, owner, p.id, 'a1.png', await png(4, 4), { folder: '/animals' });
    await uploadImage(server, owner, p.id, 'c1.png', await png(4, 4), { folder: '/animals/cats' });
    const c2 = await uploadImage(server, owner, p.id, 'c2.png', await png(4, 4), { folder: '/animals/cats' });
    await api(server.url, 'PATCH', '/api/images/batch/update', { token: owner.token, body: { image_ids: [c2.id], project_id: p.id, updates: { is_archived: true } } });

    const t = await tree(p.id);
    expect(shape(t.folders)).toEqual({
      'animals (1/2)': { 'cats (1/1)': {}, 'dogs (0/0)': {} },
      'plants (0/0)': {},
    });
    expect(t).toMatchObject({ root_image_count: 1, total_image_count: 3 });
    const node = t.folders[0].children[0];
    expect(node).toMatchObject({ id: cats.body.folder.id, full_path: '/animals/cats', parent_folder_id: animals.body.folder.id, parent_folder_path: '/animals' });
  });

  it('names unnamed folders "Untitled Folder N" with the first free N in that parent', async () => {
    const p = await createProject(server, owner);
    const names: string[] = [];
    for (let i = 0; i < 3; i++) names.push((await create(p.id, null)).body.folder.name);
    expect(names).toEqual(['Untitled Folder 1', 'Untitled Folder 2', 'Untitled Folder 3']);
    const second = (await tree(p.id)).folders.find((f: { name: string }) => f.name === 'Untitled Folder 2');
    expect((await api(server.url, 'DELETE', `/api/folders/${second.id}`, { token: owner.token })).status).toBe(200);
    expect((await create(p.id, '   ')).body.folder.name).toBe('Untitled Folder 2');
    expect((await create(p.id, null, '/Untitled Folder 1')).body.folder).toMatchObject({ name: 'Untitled Folder 1', full_path: '/Untitled Folder 1/Untitled Folder 1' });
  });

  it('refuses bad names (400), sibling clashes (409), unknown parents (404) and traversal', async () => {
    const p = await createProject(server, owner);
    await create(p.id, 'one');
    for (const bad of ['a/b', '..', '.', 'x\u0000y', 'back\\slash', 'x'.repeat(101)]) {
      const res = await create(p.id, bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.code).toBe('invalid_folder_name');
    }
    const clash = await create(p.id, ' one ');
    expect(clash.status).toBe(409);
    expect(clash.body.code).toBe('folder_exists');
    expect((await create(p.id, 'child', '/missing')).status).toBe(404);
    for (const parent of ['/one/../..', '/one//x', '../one']) expect((await create(p.id, 'x', parent)).body.code, parent).toBe('invalid_folder_path');
    expect((await api(server.url, 'POST', '/api/folders/create', { token: owner.token, body: { project_id: 'nope', name: 'x' } })).status).toBe(400);
  });

  it('hides other organizations\' projects and folders (404)', async () => {
    const p = await createProject(server, owner);
    const f = await create(p.id, 'mine');
    expect((await api(server.url, 'GET', `/api/folders/list/${p.id}`, { token: stranger.token })).status).toBe(404);
    expect((await create(p.id, 'theirs', '/', stranger.token)).status).toBe(404);
    expect((await api(server.url, 'PATCH', `/api/folders/${f.body.folder.id}/name?name=x`, { token: stranger.token })).status).toBe(404);
    expect((await api(server.url, 'POST', `/api/folders/${f.body.folder.id}/move`, { token: stranger.token, body: { target_parent_path: '/' } })).status).toBe(404);
    expect((await api(server.url, 'DELETE', `/api/folders/${f.body.folder.id}`, { token: stranger.token })).status).toBe(404);
    expect((await api(server.url, 'GET', `/api/folders/list/${p.id}`)).status).toBe(401);
  });
});

describe('rename', () => {
  it('renames a folder and rewrites every path inside it, images included', async () => {
    const p = await createProject(server, owner);
    await create(p.id, 'a');
    await create(p.id, 'b', '/a');
    await create(p.id, 'c', '/a/b');
    await create(p.id, 'ab'); // a sibling sharing the prefix "a" must not change
    await uploadImage(server, owner, p.id, 'in-a.png', await png(4, 4), { folder: '/a' });
    await uploadImage(server, owner, p.id, 'in-c.png', await png(4, 4), { folder: '/a/b/c' });
    await uploadImage(server, owner, p.id, 'in-ab.png', await png(4, 4), { folder: '/ab' });
    const a = (await tree(p.id)).folders.find((f: { name: string }) => f.name === 'a');

    const res = await api(server.url, 'PATCH', `/api/folders/${a.id}/name?name=${encodeURIComponent('Renamed A')}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ folder: { id: a.id, name: 'Renamed A', full_path: '/Renamed A' }, updated_folders: 3, updated_images: 2 });
    const t = await tree(p.id);
    const renamed = t.folders.find((f: { id: string }) => f.id === a.id);
    expect(renamed.children[0]).toMatchObject({ full_path: '/Renamed A/b', parent_folder_path: '/Renamed A', parent_folder_id: a.id });
    expect(renamed.children[0].children[0]).toMatchObject({ full_path: '/Renamed A/b/c', parent_folder_path: '/Renamed A/b', image_count: 1 });
    expect(await imagePaths(p.id)).toEqual({ 'in-a.png': '/Renamed A', 'in-c.png': '/Renamed A/b/c', 'in-ab.png': '/ab' });

    expect((await api(server.url, 'PATCH', `/api/folders/${a.id}/name?name=ab`, { token: owner.token })).status).toBe(409);
    expect((await api(server.url, 'PATCH', `/api/folders/${a.id}/name?name=x%2Fy`, { token: owner.token })).status).toBe(400);
    expect((await api(server.url, 'PATCH', `/api/folders/${a.id}/name?name=%20`, { token: owner.token })).status).toBe(400);
    expect((await api(server.url, 'PATCH', `/api/folders/${a.id}/name`, { token: owner.token })).status).toBe(400);
  });
});

describe('move', () => {
  it('moves a folder with everything inside into another folder and back to the root', async () => {
    const p = await createProject(server, owner);
    const src = (await create(p.id, 'src')).body.folder;
    await create(p.id, 'deep', '/src');
    const dst = (await create(p.id, 'dst')).body.folder;
    await uploadImage(server, owner, p.id, 's.png', await png(4, 4), { folder: '/src' });
    await uploadImage(server, owner, p.id, 'd.png', await png(4, 4), { folder: '/src/deep' });

    const moved = await api(server.url, 'POST', `/api/folders/${src.id}/move`, { token: owner.token, body: { target_parent_path: '/dst' } });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ folder: { full_path: '/dst/src', parent_folder_id: dst.id, parent_folder_path: '/dst' }, updated_folders: 2, updated_images: 2 });
    expect(await imagePaths(p.id)).toEqual({ 's.png': '/dst/src', 'd.png': '/dst/src/deep' });
    expect(shape((await tree(p.id)).folders)).toEqual({ 'dst (0/2)': { 'src (1/2)': { 'deep (1/1)': {} } } });

    const back = await api(server.url, 'POST', `/api/folders/${src.id}/move`, { token: owner.token, body: { target_parent_path: '/' } });
    expect(back.body.folder).toMatchObject({ full_path: '/src', parent_folder_id: null, parent_folder_path: '/' });
    expect(await imagePaths(p.id)).toEqual({ 's.png': '/src', 'd.png': '/src/deep' });
  });

  it('refuses a move into itself or its own descendant (400), a name clash (409), an unknown target (404)', async () => {
    const p = await createProject(server, owner);
    const a = (await create(p.id, 'a')).body.folder;
    await create(p.id, 'b', '/a');
    const other = (await create(p.id, 'other')).body.folder;
    await create(p.id, 'a', '/other');
    const move = (id: string, target: string) => api(server.url, 'POST', `/api/folders/${id}/move`, { token: owner.token, body: { target_parent_path: target } });
    for (const target of ['/a', '/a/b']) {
      const res = await move(a.id, target);
      expect(res.status, target).toBe(400);
      expect(res.body.code).toBe('invalid_move');
    }
    const clash = await move(a.id, '/other');
    expect(clash.status).toBe(409);
    expect((await move(a.id, '/nowhere')).status).toBe(404);
    expect((await move(a.id, '/a/../other')).status).toBe(400);
    // Nothing changed.
    expect(shape((await tree(p.id)).folders)).toEqual({ 'a (0/0)': { 'b (0/0)': {} }, 'other (0/0)': { 'a (0/0)': {} } });
    expect(other.full_path).toBe('/other');
  });
});

describe('delete', () => {
  it('deletes an empty folder, refuses a full one, or moves its contents to the parent first', async () => {
    const p = await createProject(server, owner);
    const empty = (await create(p.id, 'empty')).body.folder;
    expect((await api(server.url, 'DELETE', `/api/folders/${empty.id}`, { token: owner.token })).body).toMatchObject({ success: true, deleted_folder_id: empty.id, moved_images: 0 });
    const full = (await create(p.id, 'full')).body.folder;
    await create(p.id, 'inner', '/full');
    await uploadImage(server, owner, p.id, 'f.png', await png(4, 4), { folder: '/full' });
    await uploadImage(server, owner, p.id, 'i.png', await png(4, 4), { folder: '/full/inner' });
    const refused = await api(server.url, 'DELETE', `/api/folders/${full.id}`, { token: owner.token });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'folder_not_empty', folder_count: 1, image_count: 1 });
    const res = await api(server.url, 'DELETE', `/api/folders/${full.id}?contents=move_to_parent`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ moved_images: 1, moved_folders: 1 });
    expect(await imagePaths(p.id)).toEqual({ 'f.png': '/', 'i.png': '/inner' });
    expect(shape((await tree(p.id)).folders)).toEqual({ 'inner (1/1)': {} });
  });
});

describe('OpenAPI', () => {
  it('documents the dataset routes', async () => {
    const doc = await api(server.url, 'GET', '/api/docs/json');
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/projects/{id}/images',
        '/api/v1/projects/{id}/images/register',
        '/api/v1/images/{id}/signed-url',
        '/api/folders/list/{projectId}',
        '/api/folders/{folderId}/move',
        '/api/images/batch/update',
        '/api/v1/usage/summary/{orgId}',
      ]),
    );
  });
});
