// A team working one project at once, at random: four people save shapes of three classes (whole
// lists, and changes on a version read a moment before), restore earlier versions, upload images
// into folders and move them between folders, archive, restore and delete them, change their stage,
// assign, submit and review them, make, rename, move and delete folders, export the project, and the
// owner changes the others' roles, all overlapping.
// Afterwards what every list, total and count answers must agree with the images as they are
// (each image's folder and archive state from the list, its classes from its own annotations): the
// counters and stats the triggers keep cannot drift under concurrent writes. No call may answer 5xx; refusals (a folder not empty, a name taken, a stale
// version) are part of the game. Runs on PGlite and PostgreSQL (where the writes truly overlap).
import { beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, startServer, type TestServer } from './harness';
import { createProject, png, putUpload, register, uploadImage, type Member } from '../fixtures/datasets';
import { IMAGE_STATUSES } from '../../src/contract/images';
// The project's one seeded random source (mulberry32).
import { prng } from '../../src/server/services/image-edit/pixels';
import { expectClassListsMatch, type KnownImage } from './support/class-lists';
import { joinAs } from './team-harness';
import JSZip from 'jszip';

const CLASSES = ['car', 'person', 'tree'];
const IMAGES = 24;
const ROUNDS = 60;

let server: TestServer;
let owner: Member;
let people: { token: string; userId: string }[];
let projectId: string;
let images: { id: string; filename: string }[];

beforeAll(async () => {
  server = await startServer();
  owner = await onboardedUser(server);
  projectId = (await createProject(server, owner)).id;
  const patch = await api(server.url, 'PATCH', `/api/v1/projects/${projectId}`, { token: owner.token, body: { classes: CLASSES.map((name, i) => ({ name, type: 'box', color: ['#FFADAD', '#A0C4FF', '#CAFFBF'][i] })) } });
  if (patch.status !== 200) throw new Error(JSON.stringify(patch.body));
  images = [];
  people = [owner];
  for (let i = 0; i < IMAGES; i++) images.push(await uploadImage(server, owner, projectId, `img-${i}.png`, await png(8, 8)));
  for (const role of ['admin', 'annotator', 'annotator'] as const) people.push(await joinAs(server, owner.token, owner.org.id, role));
}, 180_000);

const SEED = 20261201;

interface FolderNode { id: string; full_path: string; image_count: number; total_image_count: number; children: FolderNode[] }
const flatten = (nodes: FolderNode[]): FolderNode[] => nodes.flatMap((n) => [n, ...flatten(n.children)]);

describe('a team working one project at once', () => {
  it(`leaves every list, total and count true to the images (seed ${SEED})`, async () => {
    const rnd = prng(SEED);
    const pick = <T>(list: T[]): T => list[Math.floor(rnd() * list.length)]!;
    const some = <T>(list: T[], n: number): T[] => Array.from({ length: n }, () => pick(list));
    const folderPaths = async () => flatten((await api(server.url, 'GET', `/api/folders/list/${projectId}`, { token: owner.token })).body.folders ?? []).map((f) => ({ id: f.id, path: f.full_path }));
    const failures: string[] = [];
    const done = new Map<string, number>();
    const act = async (who: { token: string; userId: string }, what: string, method: string, path: string, body?: unknown): Promise<number> => {
      const res = await api(server.url, method, path, { token: who.token, body });
      if (res.status >= 500) failures.push(`${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      if (res.status < 300) done.set(what, (done.get(what) ?? 0) + 1);
      return res.status;
    };
    // How many versions each image's saves made here: a restore picks an image with two or more, if
    // any (most images have no earlier version to go back to, and a random pick almost never found one).
    const saves = new Map<string, number>();
    const saved = (id: string) => saves.set(id, (saves.get(id) ?? 0) + 1);

    const moves: ((who: { token: string; userId: string }) => Promise<unknown>)[] = [
      async (who) => {
        const image = pick(images);
        const annotations = some(CLASSES, Math.floor(rnd() * 4)).map((name, i) => ({ id: `s${i}-${Math.floor(rnd() * 1e6)}`, name, bounding_box: { x: i, y: 1, w: 2, h: 2 } }));
        if ((await act(who, 'save', 'POST', '/api/v1/annotations/save-data', { image_id: image.id, project_id: projectId, image_filename: image.filename, annotations })) < 300) saved(image.id);
      },
      async (who) => {
        const folders = await folderPaths();
        const target = rnd() < 0.3 ? '/' : folders.length ? pick(folders).path : '/';
        await act(who, 'move images', 'POST', '/api/images/batch/move', { image_ids: some(images, 3).map((i) => i.id), target_folder_path: target, project_id: projectId });
      },
      async (who) => act(who, 'archive', 'PATCH', '/api/images/batch/update', { project_id: projectId, image_ids: some(images, 2).map((i) => i.id), updates: { is_archived: rnd() < 0.5 } }),
      async (who) => act(who, 'stage', 'PATCH', '/api/images/batch/update', { project_id: projectId, image_ids: some(images, 2).map((i) => i.id), updates: { status: pick([...IMAGE_STATUSES]) } }),
      async (who) => {
        const folders = await folderPaths();
        const parent = folders.length && rnd() < 0.4 ? pick(folders).path : '/';
        await act(who, 'new folder', 'POST', '/api/folders/create', { project_id: projectId, name: `f${Math.floor(rnd() * 6)}`, parent_folder_path: parent });
      },
      async (who) => {
        const folders = await folderPaths();
        if (folders.length) await act(who, 'rename folder', 'PATCH', `/api/folders/${pick(folders).id}/name?name=r${Math.floor(rnd() * 6)}`);
      },
      async (who) => {
        const folders = await folderPaths();
        if (folders.length) await act(who, 'move folder', 'POST', `/api/folders/${pick(folders).id}/move`, { target_parent_path: rnd() < 0.5 ? '/' : pick(folders).path });
      },
      async (who) => {
        // An upload into a folder (the file, then its registration), as the Data tab's. The lists
        // below read one page of 100, so the project stays under that.
        if (images.length >= 90) return;
        const folders = await folderPaths();
        const folder = folders.length && rnd() < 0.7 ? pick(folders).path : '/';
        const me = { ...who, org: owner.org };
        const bytes = await png(8, 8);
        const up = await putUpload(server, me, projectId, `up-${images.length}-${Math.floor(rnd() * 1e6)}.png`, bytes, { folder }).catch((err: Error) => {
          if (/failed: 5\d\d/.test(err.message)) failures.push(`upload: ${err.message}`);
          return null;
        });
        if (!up) return;
        const res = await register(server, me, projectId, up.filename, { gcs_bucket: up.gcs_bucket, gcs_path: up.gcs_path, gcs_uri: up.gcs_uri, folder_path: folder, file_size: bytes.length, mime_type: 'image/png' });
        if (res.status >= 500) failures.push(`upload: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        if (res.status === 200) {
          images.push({ id: res.body.image.id, filename: res.body.image.filename });
          done.set('upload', (done.get('upload') ?? 0) + 1);
        }
      },
      async (who) => act(who, 'assign', 'POST', '/api/v1/images/assign', { image_ids: some(images, 2).map((i) => i.id), assignee_id: pick(people).userId }),
      async (who) => act(who, 'submit', 'POST', `/api/v1/images/${pick(images).id}/submit`, {}),
      async (who) => act(who, 'review', 'POST', `/api/v1/images/${pick(images).id}/review`, { decision: pick(['accept', 'reject'] as const), comment: 'look again' }),
      async (who) => {
        const folders = await folderPaths();
        if (folders.length) await act(who, 'delete folder', 'DELETE', `/api/folders/${pick(folders).id}?contents=${rnd() < 0.7 ? 'move_to_parent' : 'refuse'}`);
      },
      async (who) => {
        // A deletion (the project keeps at least 10 images to play with).
        if (images.length < 10) return;
        const victim = pick(images);
        const res = await api(server.url, 'DELETE', '/api/images/batch/delete', { token: who.token, body: { image_ids: [victim.id], project_id: projectId } });
        if (res.status >= 500) failures.push(`delete: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        if (res.status === 200) {
          images.splice(images.indexOf(victim), 1);
          done.set('delete', (done.get('delete') ?? 0) + 1);
        }
      },
      async (who) => {
        // Changes on the version just read: others may save in between (the server rebases or answers 409).
        const image = pick(images);
        const doc = await api(server.url, 'GET', `/api/v1/annotations/load-data/${image.id}`, { token: who.token });
        if (doc.status !== 200) return;
        const removed = (doc.body.annotations as { id: string }[]).filter(() => rnd() < 0.3).map((a) => a.id);
        const upserts = some(CLASSES, Math.floor(rnd() * 3)).map((name, i) => ({ id: `c${i}-${Math.floor(rnd() * 1e6)}`, name, bounding_box: { x: i, y: 2, w: 2, h: 2 } }));
        if ((await act(who, 'save changes', 'POST', '/api/v1/annotations/save-changes', { image_id: image.id, project_id: projectId, image_filename: image.filename, base_version: doc.body.version, upserts, removed_ids: removed })) < 300) saved(image.id);
      },
      async (who) => {
        const withHistory = images.filter((i) => (saves.get(i.id) ?? 0) >= 2);
        const image = pick(withHistory.length ? withHistory : images);
        const history = await api(server.url, 'GET', `/api/v1/annotations/history/${image.id}`, { token: who.token });
        const entries = ((history.body?.entries ?? []) as { version: number }[]).filter((e) => e.version < history.body.version);
        if (history.status === 200 && entries.length) await act(who, 'restore', 'POST', '/api/v1/annotations/restore', { image_id: image.id, project_id: projectId, version: pick(entries).version });
      },
      async (who) => {
        // An export while the others work: a whole zip, or a clear refusal.
        const format = pick(['vellum', 'coco', 'yolo', 'voc']);
        const res = await fetch(`${server.url}/api/v1/annotations/export`, { method: 'POST', headers: { authorization: `Bearer ${who.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ project_id: projectId, scope: 'all', format }) });
        const bytes = Buffer.from(await res.arrayBuffer());
        if (res.status >= 500) failures.push(`export ${format}: ${res.status} ${bytes.toString().slice(0, 200)}`);
        if (res.status !== 200) return;
        try {
          const zip = await JSZip.loadAsync(bytes);
          if (Object.keys(zip.files).length === 0) failures.push(`export ${format}: an empty zip`);
          else done.set('export', (done.get('export') ?? 0) + 1);
        } catch (err) {
          failures.push(`export ${format}: not a zip (${(err as Error).message})`);
        }
      },
      async () => {
        // The owner changes someone's role: a role that cannot annotate or review releases what they held.
        const member = pick(people.slice(1));
        await act(owner, 'role', 'PATCH', `/api/v1/organizations/${owner.org.id}/members/${member.userId}`, { role: pick(['admin', 'annotator', 'reviewer', 'viewer']) });
      },
    ];
    // How often each move is made: shapes and images move most; a folder is deleted now and then.
    const weighted = [0, 0, 0, 1, 1, 1, 2, 3, 4, 4, 5, 6, 7, 7, 8, 8, 9, 10, 11, 12, 13, 13, 14, 14, 15, 16].map((i) => moves[i]!);
    // Each round, every person makes one move, all at once. The seed fixes the first choices; the
    // answers' order, and so the rest, varies from run to run.
    for (let round = 0; round < ROUNDS; round++) {
      await Promise.all(people.map((who) => pick(weighted)(who)));
    }
    expect(failures, 'no call answers 5xx').toEqual([]);
    // The game was played: every kind of move went through at least once (others were refused:
    // a folder not empty, a name taken, an annotator archiving).
    for (const what of ['save changes', 'restore', 'export', 'delete', 'role', 'save', 'move images', 'archive', 'stage', 'new folder', 'rename folder', 'move folder', 'upload', 'assign', 'delete folder']) {
      expect(done.get(what) ?? 0, `${what}: done at least once`).toBeGreaterThan(0);
    }

    // The images as they are now: folder and archive state from the list, classes from each image's own annotations.
    const list = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?is_archived=all&limit=100`, { token: owner.token });
    expect(list.body.images).toHaveLength(images.length);
    const known = new Map<string, KnownImage>();
    for (const image of list.body.images as { id: string; filename: string; virtual_folder_path: string; is_archived: boolean }[]) {
      const doc = await api(server.url, 'GET', `/api/v1/annotations/load-data/${image.id}`, { token: owner.token });
      const classes = [...new Set((doc.body.annotations as { name: string }[]).map((a) => a.name))].sort();
      known.set(image.filename, { folder: image.virtual_folder_path, archived: image.is_archived, classes });
    }
    // The end state is not trivial: shapes on images, images in folders.
    expect([...known.values()].filter((i) => i.classes.length > 0).length, 'images with shapes').toBeGreaterThan(3);
    expect([...known.values()].filter((i) => i.folder !== '/').length, 'images in folders').toBeGreaterThan(0);
    await expectClassListsMatch(server, owner.token, projectId, known, CLASSES);

    // Folder counts and the stage and folder totals agree with the images.
    const tree = (await api(server.url, 'GET', `/api/folders/list/${projectId}`, { token: owner.token })).body;
    const live = [...known.values()].filter((i) => !i.archived);
    expect(tree.total_image_count, 'the project: images not archived').toBe(live.length);
    expect(tree.root_image_count, 'the root: its images').toBe(live.filter((i) => i.folder === '/').length);
    for (const folder of flatten(tree.folders)) {
      const inFolder = live.filter((i) => i.folder === folder.full_path).length;
      const under = live.filter((i) => i.folder === folder.full_path || i.folder.startsWith(`${folder.full_path}/`)).length;
      const listed = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?folder_path=${encodeURIComponent(folder.full_path)}&limit=100`, { token: owner.token });
      expect(listed.body.pagination.totalItems, `folder ${folder.full_path}: the list's total`).toBe(inFolder);
      expect(listed.body.images, `folder ${folder.full_path}: the images listed`).toHaveLength(inFolder);
      expect(folder.image_count, `folder ${folder.full_path}: its count`).toBe(inFolder);
      expect(folder.total_image_count, `folder ${folder.full_path}: its count with sub-folders`).toBe(under);
    }
    // Every image is in a folder that exists.
    const paths = new Set(['/', ...flatten(tree.folders).map((f) => f.full_path)]);
    for (const [name, image] of known) expect(paths.has(image.folder), `${name} is in ${image.folder}, a folder that exists`).toBe(true);
    for (const stage of IMAGE_STATUSES) {
      const listed = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?status=${stage}&limit=100`, { token: owner.token });
      expect(listed.status).toBe(200);
      expect(listed.body.pagination.totalItems, `stage ${stage}: the total`).toBe(listed.body.images.length);
    }
    // The assignee filter's totals agree with its pages.
    for (const assignee of [...people.map((p) => p.userId), 'none']) {
      const listed = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?assignee=${assignee}&limit=100`, { token: owner.token });
      expect(listed.body.pagination.totalItems, `assignee ${assignee}: the total`).toBe(listed.body.images.length);
    }
    const project = await api(server.url, 'GET', `/api/v1/projects/${projectId}`, { token: owner.token });
    expect(project.status).toBe(200);
  }, 300_000);
});
