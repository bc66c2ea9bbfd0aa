// The images list's class filter with the archive and folders, while images move (issue 32 §4).
// A one-class list takes its total from image_class_stats (0015_image_class_stats.sql: counts per
// class, archive state and folder, kept by triggers on images), so every change that moves an image
// between those keys must move its count: saves that add, rename or remove a class, archiving and
// restoring, moving images, renaming and moving a folder (with archived images in it), deleting
// images. After each step every class x archive filter x folder (or none) is listed and compared
// with what the test did (support/class-lists.ts): the images listed, the total the list answers,
// and the class panel's images_by_class, which reads the same counts. Runs on PGlite and PostgreSQL.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';
import { expectClassListsMatch, type KnownImage } from './support/class-lists';

let server: TestServer;
let owner: Member;
let projectId: string;

/** What the test has done to each image: the model the list is compared with. */
interface Expected extends KnownImage {
  id: string;
  version?: number;
}
const model = new Map<string, Expected>();
const CLASSES = ['car', 'person', 'dog'];

async function save(name: string, classes: string[]) {
  const image = model.get(name)!;
  const annotations = classes.map((c, i) => ({ id: `${name}-${i}`, name: c, bounding_box: { x: 1 + i, y: 1, w: 3, h: 3 } }));
  const res = await api(server.url, 'POST', '/api/v1/annotations/save-data', { token: owner.token, body: { image_id: image.id, project_id: projectId, image_filename: name, annotations } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  image.classes = [...new Set(classes)];
  image.version = res.body.version;
}

async function add(name: string, folder: string, classes: string[]) {
  const { id } = await uploadImage(server, owner, projectId, name, await png(8, 8), { folder });
  model.set(name, { id, folder, archived: false, classes: [] });
  if (classes.length > 0) await save(name, classes);
}

async function setArchived(names: string[], archived: boolean) {
  const ids = names.map((n) => model.get(n)!.id);
  const res = await api(server.url, 'PATCH', '/api/images/batch/update', { token: owner.token, body: { project_id: projectId, image_ids: ids, updates: { is_archived: archived } } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  for (const n of names) model.get(n)!.archived = archived;
}

interface FolderNode {
  id: string;
  full_path: string;
  children: FolderNode[];
}

async function folderId(path: string): Promise<string> {
  const res = await api(server.url, 'GET', `/api/folders/list/${projectId}`, { token: owner.token });
  const flat = (nodes: FolderNode[]): FolderNode[] => nodes.flatMap((f) => [f, ...flat(f.children)]);
  const folder = flat(res.body.folders).find((f) => f.full_path === path);
  if (!folder) throw new Error(`no folder ${path} in ${JSON.stringify(res.body)}`);
  return folder.id;
}

const expectListsMatch = () => expectClassListsMatch(server, owner.token, projectId, model, CLASSES);

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
  projectId = (await createProject(server, owner, 'Class counts')).id;
  const classes = CLASSES.map((name) => ({ name, type: 'box', color: '#ff0000' }));
  expect((await api(server.url, 'PATCH', `/api/v1/projects/${projectId}`, { token: owner.token, body: { classes } })).status).toBe(200);
  for (const [name, parent] of [['a', '/'], ['b', '/a']]) {
    const res = await api(server.url, 'POST', '/api/folders/create', { token: owner.token, body: { project_id: projectId, name, parent_folder_path: parent } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  await add('root-car-person.png', '/', ['car', 'car', 'person']);
  await add('root-none.png', '/', []);
  await add('a-car.png', '/a', ['car']);
  await add('a-person.png', '/a', ['person', 'person']);
  await add('ab-car.png', '/a/b', ['car']);
  await add('ab-dog.png', '/a/b', ['dog', 'car']);
}, 120_000);


describe('one class with the archive and folders, as images change', () => {
  it('after uploads and saves', async () => {
    await expectListsMatch();
  });

  it('archiving and restoring images, in the root and in sub-folders', async () => {
    await setArchived(['a-car.png', 'ab-dog.png'], true);
    await expectListsMatch();
    await setArchived(['a-car.png'], false);
    await expectListsMatch();
  });

  it('saves that add a class, rename one, and remove the last of one (archived images too)', async () => {
    await save('root-none.png', ['dog']);
    await save('ab-dog.png', ['dog']); // archived: car leaves it
    const image = model.get('a-person.png')!;
    const renamed = await api(server.url, 'POST', '/api/v1/annotations/save-changes', {
      token: owner.token,
      body: { image_id: image.id, project_id: projectId, image_filename: 'a-person.png', base_version: image.version, upserts: [{ id: 'a-person.png-0', name: 'dog', bounding_box: { x: 1, y: 1, w: 3, h: 3 } }], removed_ids: [] },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    image.classes = ['dog', 'person']; // one of its two persons became a dog
    await expectListsMatch();
    await save('root-car-person.png', []);
    await expectListsMatch();
  });

  it('moving images between folders', async () => {
    const ids = ['root-none.png', 'a-car.png'].map((n) => model.get(n)!.id);
    const res = await api(server.url, 'POST', '/api/images/batch/move', { token: owner.token, body: { image_ids: ids, target_folder_path: '/a/b', project_id: projectId } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    model.get('root-none.png')!.folder = '/a/b';
    model.get('a-car.png')!.folder = '/a/b';
    await expectListsMatch();
  });

  it('renaming and moving a folder that holds archived images and a sub-folder', async () => {
    const renamed = await api(server.url, 'PATCH', `/api/folders/${await folderId('/a')}/name?name=c`, { token: owner.token });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    for (const i of model.values()) i.folder = i.folder.replace(/^\/a(?=\/|$)/, '/c');
    await expectListsMatch();
    const moved = await api(server.url, 'POST', `/api/folders/${await folderId('/c/b')}/move`, { token: owner.token, body: { target_parent_path: '/' } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    for (const i of model.values()) i.folder = i.folder.replace(/^\/c\/b(?=\/|$)/, '/b');
    await expectListsMatch();
  });

  it('deleting images, archived or not', async () => {
    const names = ['ab-dog.png', 'a-car.png'];
    const res = await api(server.url, 'DELETE', '/api/images/batch/delete', { token: owner.token, body: { image_ids: names.map((n) => model.get(n)!.id), project_id: projectId, delete_gcs_files: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const n of names) model.delete(n);
    await expectListsMatch();
  });

  it("another project's images of the same class are not counted", async () => {
    const other = await createProject(server, owner, 'Other');
    const classes = [{ name: 'car', type: 'box', color: '#ff0000' }];
    expect((await api(server.url, 'PATCH', `/api/v1/projects/${other.id}`, { token: owner.token, body: { classes } })).status).toBe(200);
    const image = await uploadImage(server, owner, other.id, 'other.png', await png(8, 8));
    const res = await api(server.url, 'POST', '/api/v1/annotations/save-data', { token: owner.token, body: { image_id: image.id, project_id: other.id, image_filename: 'other.png', annotations: [{ id: 'o', name: 'car', bounding_box: { x: 1, y: 1, w: 3, h: 3 } }] } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await expectListsMatch();
  });
});
