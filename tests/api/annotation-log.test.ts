// Annotations stored as rows with a change log (issue 14), as a client sees them: a one-shape
// save rewrites only that shape's row, every version can be read back as changes, the history
// lists who saved what, an earlier version can be looked at and restored, the log's retention
// answers 410, a stale save gets what changed, and concurrent editors of one image lose nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';
import { sweepHistory } from '../../src/server/services/annotations';
import { organizationMembers } from '../../src/server/db/schema';
import { COLUMNS_FORMAT, decodeBlock, type ColumnBlock } from '../../src/contract/annotation-columns';

let server: TestServer;
let owner: Member;
let stranger: Member;
let project: { id: string };

const CLASSES = [
  { name: 'car', type: 'box', color: '#FFADAD' },
  { name: 'road', type: 'polygon', color: '#CAFFBF' },
];

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
  stranger = await onboardedUser(server);
  project = await createProject(server, owner);
  const patch = await api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { classes: CLASSES } });
  if (patch.status !== 200) throw new Error(JSON.stringify(patch.body));
}, 120_000);

let imageCounter = 0;
async function newImage() {
  imageCounter += 1;
  const img = await uploadImage(server, owner, project.id, `log${imageCounter}.png`, await png(20 + imageCounter, 20));
  return { id: img.id, filename: img.filename };
}

type Img = { id: string; filename: string };
const box = (id: string, x = 1, name = 'car') => ({ id, name, bounding_box: { x, y: 2, w: 3, h: 4 }, attributes: [] });
const saveData = (img: Img, annotations: unknown[], extra: Record<string, unknown> = {}, token = owner.token) =>
  api(server.url, 'POST', '/api/v1/annotations/save-data', { token, body: { image_id: img.id, project_id: project.id, image_filename: img.filename, annotations, ...extra } });
const saveChanges = (img: Img, base: number, upserts: unknown[], removed: string[] = [], token = owner.token) =>
  api(server.url, 'POST', '/api/v1/annotations/save-changes', {
    token,
    body: { image_id: img.id, project_id: project.id, image_filename: img.filename, base_version: base, upserts, removed_ids: removed },
  });
const load = (img: Img, token = owner.token) => api(server.url, 'GET', `/api/v1/annotations/load-data/${img.id}?project_id=${project.id}`, { token });
const changes = (img: Img, since: number, token = owner.token) => api(server.url, 'GET', `/api/v1/annotations/changes/${img.id}?since=${since}`, { token });
const history = (img: Img, query = '', token = owner.token) => api(server.url, 'GET', `/api/v1/annotations/history/${img.id}${query}`, { token });
const atVersion = (img: Img, version: number, token = owner.token) => api(server.url, 'GET', `/api/v1/annotations/version/${img.id}?version=${version}`, { token });
const restore = (img: Img, version: number, extra: Record<string, unknown> = {}, token = owner.token) =>
  api(server.url, 'POST', '/api/v1/annotations/restore', { token, body: { image_id: img.id, project_id: project.id, version, ...extra } });
const ids = (list: { id: string }[]) => list.map((a) => a.id);

/** The rows' physical row versions (xmin): a row a statement rewrote gets a new one. */
async function rowVersions(imageId: string): Promise<Map<string, string>> {
  const res = (await server.built.ctx.db.execute(sql`SELECT id, xmin::text AS x FROM annotations WHERE image_id = ${imageId}`)) as unknown as { rows: { id: string; x: string }[] };
  return new Map(res.rows.map((r) => [r.id, r.x]));
}

describe('rows', () => {
  it('a one-shape save rewrites that shape\'s row only; the others stay as they were written', async () => {
    const img = await newImage();
    const shapes = Array.from({ length: 300 }, (_, i) => box(`s${i}`, i));
    expect((await saveData(img, shapes)).status).toBe(200);
    const before = await rowVersions(img.id);
    expect(before.size).toBe(300);
    const res = await saveChanges(img, 1, [box('s150', 9999)]);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ version: 2, new_count: 300 });
    const after = await rowVersions(img.id);
    const rewritten = [...after].filter(([id, x]) => before.get(id) !== x).map(([id]) => id);
    expect(rewritten).toEqual(['s150']);
    const loaded = await load(img);
    expect(loaded.body.version).toBe(2);
    expect(ids(loaded.body.annotations)).toEqual(ids(shapes));
    expect(loaded.body.annotations[150].bounding_box.x).toBe(9999);
  });

  it('keeps paint order: a changed shape keeps its place, a new one goes on top, a whole-list save sets the order it lists', async () => {
    const img = await newImage();
    await saveData(img, [box('a'), box('b'), box('c')]);
    await saveChanges(img, 1, [box('d'), box('a', 5)], ['b']);
    expect(ids((await load(img)).body.annotations)).toEqual(['a', 'c', 'd']);
    await saveData(img, [box('d'), box('e'), box('a', 5)], { base_version: 2 });
    const loaded = await load(img);
    expect(ids(loaded.body.annotations)).toEqual(['d', 'e', 'a']);
    expect(loaded.body.version).toBe(3);
    // A save that changes nothing still makes a version (the client counts on version + 1) and logs nothing.
    const same = await saveData(img, loaded.body.annotations, { base_version: 3 });
    expect(same.body).toMatchObject({ version: 4, new_count: 3 });
    expect((await changes(img, 3)).body).toMatchObject({ since: 3, version: 4, upserts: [], removed_ids: [] });
  });

  it('streams load-data whole for a document of many chunks, with the version after the shapes', async () => {
    const img = await newImage();
    const shapes = Array.from({ length: 4500 }, (_, i) => box(`m${i}`, i % 500));
    expect((await saveData(img, shapes)).status).toBe(200);
    const res = await fetch(`${server.url}/api/v1/annotations/load-data/${img.id}`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as { annotations: { id: string }[]; version: number; saved_at: string };
    expect(body.version).toBe(1);
    expect(ids(body.annotations)).toEqual(ids(shapes));
    expect(body.annotations[4499]).toEqual(shapes[4499]);
    expect(Date.parse(body.saved_at)).toBeGreaterThan(0);
    // An image never saved: no shapes, version 0, no saved_at.
    const fresh = await newImage();
    expect((await load(fresh)).body).toEqual({ annotations: [], version: 0, saved_at: null });
  });

  it('answers the column encoding when asked: the same shapes, in order, with the count and version up front', async () => {
    const img = await newImage();
    const shapes: Record<string, unknown>[] = Array.from({ length: 4100 }, (_, i) => (i % 3 === 0 ? { ...box(`c${i}`, i / 10), polygon: { path: [[i / 10, 2], [i / 10 + 3, 2], [i / 10 + 3, 6]] } } : box(`c${i}`, i)));
    shapes.push({ id: 'mask', name: 'car', bounding_box: { x: 0, y: 0, w: 2, h: 1 }, segmentation: { size: [1, 2], counts: [0, 2] }, sam2_area: 2 });
    expect((await saveData(img, shapes)).status).toBe(200);
    const res = await fetch(`${server.url}/api/v1/annotations/load-data/${img.id}?encoding=columns`, { headers: { authorization: `Bearer ${owner.token}` } });
    const text = await res.text();
    expect(text.startsWith(`{"format":"${COLUMNS_FORMAT}","count":4101,"version":1,`)).toBe(true);
    const body = JSON.parse(text) as { annotations: ColumnBlock[]; version: number; saved_at: string };
    expect(body.annotations.length).toBe(3);
    expect(body.annotations.flatMap(decodeBlock)).toEqual(shapes);
    const bad = await api(server.url, 'GET', `/api/v1/annotations/load-data/${img.id}?encoding=xml`, { token: owner.token });
    expect(bad.status).toBe(400);
  });

  it('counts by class and type through SQL over the rows, leaving archived images out', async () => {
    const p = await createProject(server, owner);
    await api(server.url, 'PATCH', `/api/v1/projects/${p.id}`, { token: owner.token, body: { classes: CLASSES } });
    const a = await uploadImage(server, owner, p.id, 'a.png', await png(8, 8));
    const b = await uploadImage(server, owner, p.id, 'b.png', await png(9, 9));
    const poly = { id: 'p', name: 'road', bounding_box: { x: 0, y: 0, w: 4, h: 4 }, polygon: { path: [[0, 0], [4, 0], [4, 4]] } };
    const save = (img: { id: string; filename: string }, list: unknown[]) =>
      api(server.url, 'POST', '/api/v1/annotations/save-data', { token: owner.token, body: { image_id: img.id, project_id: p.id, image_filename: img.filename, annotations: list } });
    await save(a, [box('1'), box('2'), poly]);
    await save(b, [box('3')]);
    const stats = await api(server.url, 'GET', `/api/v1/annotations/stats/${p.id}`, { token: owner.token });
    expect(stats.body).toMatchObject({ total_annotations: 4, by_type: { box: 3, polygon: 1 }, by_class: { car: 3, road: 1 }, images_with_annotations: 2, images_total: 2 });
    const archived = await api(server.url, 'PATCH', '/api/images/batch/update', { token: owner.token, body: { image_ids: [b.id], project_id: p.id, updates: { is_archived: true } } });
    expect(archived.status).toBe(200);
    const after = await api(server.url, 'GET', `/api/v1/annotations/stats/${p.id}`, { token: owner.token });
    expect(after.body).toMatchObject({ total_annotations: 3, by_class: { car: 2, road: 1 } });
  });
});

describe('changes since a version', () => {
  it('answers the net change: changed shapes as they are now, removed ids, nothing for the current version', async () => {
    const img = await newImage();
    await saveData(img, [box('a'), box('b'), box('c')]); // 1
    await saveChanges(img, 1, [box('a', 7)]); // 2
    await saveChanges(img, 2, [box('d')], ['b']); // 3
    await saveChanges(img, 3, [box('b', 3)], ['d']); // 4: b back, d gone
    const all = await changes(img, 0);
    expect(all.status).toBe(200);
    expect(all.body.version).toBe(4);
    expect(ids(all.body.upserts).sort()).toEqual(['a', 'b', 'c']);
    // b was removed and added again: it is in both lists, so a client that applies the removals
    // first and then the upserts puts it on top, where the server has it.
    const since1 = await changes(img, 1);
    expect(since1.body.upserts).toEqual([box('a', 7), box('b', 3)]);
    expect(since1.body.removed_ids.sort()).toEqual(['b', 'd']);
    const since3 = await changes(img, 3);
    expect(since3.body).toMatchObject({ since: 3, version: 4, upserts: [box('b', 3)], removed_ids: ['d'] });
    expect((await changes(img, 4)).body).toMatchObject({ since: 4, version: 4, upserts: [], removed_ids: [] });
    const ahead = await changes(img, 5);
    expect(ahead.status).toBe(400);
    expect(ahead.body.code).toBe('invalid_version');
    // Applying the changes to the client's copy of version 1 gives the current document.
    const v1 = new Map([box('a'), box('b'), box('c')].map((a) => [a.id, a as unknown]));
    for (const id of since1.body.removed_ids) v1.delete(id);
    for (const a of since1.body.upserts) v1.set(a.id, a);
    expect([...v1.values()]).toEqual((await load(img)).body.annotations);
  });

  it('answers 410 once the retention sweep dropped the versions asked for', async () => {
    const img = await newImage();
    await saveData(img, [box('a')]);
    await saveChanges(img, 1, [box('b')]);
    const ctx = server.built.ctx;
    const realNow = ctx.now;
    try {
      ctx.now = () => new Date(Date.now() + (ctx.config.annotationHistoryDays + 1) * 86_400_000);
      expect(await sweepHistory(ctx)).toBeGreaterThanOrEqual(2);
    } finally {
      ctx.now = realNow;
    }
    const gone = await changes(img, 0);
    expect(gone.status).toBe(410);
    expect(gone.body).toMatchObject({ success: false, code: 'history_expired' });
    expect((await changes(img, 2)).status).toBe(200);
    expect((await atVersion(img, 1)).status).toBe(410);
    const h = await history(img);
    expect(h.body).toMatchObject({ version: 2, oldest_version: 2, entries: [] });
    // Saving goes on, and the log grows again from there.
    expect((await saveChanges(img, 2, [box('c')])).status).toBe(200);
    expect((await changes(img, 2)).body.upserts).toEqual([box('c')]);
  });

  it('is another organization\'s image: 404, like every annotation call', async () => {
    const img = await newImage();
    await saveData(img, [box('a')]);
    for (const res of [await changes(img, 0, stranger.token), await history(img, '', stranger.token), await atVersion(img, 0, stranger.token), await restore(img, 0, {}, stranger.token)]) {
      expect(res.status).toBe(404);
    }
  });
});

describe('history and restore', () => {
  it('lists versions newest first with who saved them and what they did, and pages back', async () => {
    const img = await newImage();
    await api(server.url, 'PATCH', '/api/v1/users/me', { token: owner.token, body: { full_name: 'Ada Owner' } });
    await saveData(img, [box('a'), box('b')]);
    await saveChanges(img, 1, [box('a', 9), box('c')], ['b']);
    const h = await history(img);
    expect(h.status).toBe(200);
    expect(h.body.version).toBe(2);
    expect(h.body.oldest_version).toBe(0);
    expect(h.body.entries).toHaveLength(2);
    expect(h.body.entries[0]).toMatchObject({ version: 2, user_id: owner.userId, user_name: 'Ada Owner', added: 1, changed: 1, removed: 1, restored_from: null });
    expect(h.body.entries[1]).toMatchObject({ version: 1, added: 2, changed: 0, removed: 0 });
    expect(Date.parse(h.body.entries[0].saved_at)).toBeGreaterThan(0);
    const page = await history(img, '?before=2&limit=1');
    expect(page.body.entries.map((e: { version: number }) => e.version)).toEqual([1]);
  });

  it('shows an earlier version read-only and restores it as a new version, which can itself be undone', async () => {
    const img = await newImage();
    await saveData(img, [box('a'), box('b'), box('c')]); // 1
    await saveChanges(img, 1, [box('a', 50), box('d')], ['b']); // 2
    await saveChanges(img, 2, [], ['c']); // 3
    const v1 = await atVersion(img, 1);
    expect(v1.status).toBe(200);
    expect(v1.body.version).toBe(1);
    expect(v1.body.annotations.map((a: { id: string }) => a.id).sort()).toEqual(['a', 'b', 'c']);
    expect(v1.body.annotations.find((a: { id: string }) => a.id === 'a')).toEqual(box('a'));
    expect((await atVersion(img, 0)).body.annotations).toEqual([]);
    expect((await atVersion(img, 9)).status).toBe(404);
    // Looking changed nothing.
    expect((await load(img)).body.version).toBe(3);

    const stale = await restore(img, 1, { base_version: 2 });
    expect(stale.status).toBe(409);
    const res = await restore(img, 1, { base_version: 3 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ version: 4, new_count: 3 });
    const now = await load(img);
    expect(now.body.annotations.map((a: { id: string }) => a.id).sort()).toEqual(['a', 'b', 'c']);
    expect(now.body.annotations.find((a: { id: string }) => a.id === 'a')).toEqual(box('a'));
    const h = await history(img);
    expect(h.body.entries[0]).toMatchObject({ version: 4, restored_from: 1, added: 2, changed: 1, removed: 1 });
    expect((await api(server.url, 'GET', `/api/v1/images/${img.id}`, { token: owner.token })).body.image.annotation_count).toBe(3);
    // Restoring version 3 undoes the restore.
    expect((await restore(img, 3)).status).toBe(200);
    expect((await load(img)).body.annotations.map((a: { id: string }) => a.id).sort()).toEqual(['a', 'd']);
    expect((await restore(img, 5)).status).toBe(400);
  });

  it('refuses a restore from a role that may not write annotations', async () => {
    const img = await newImage();
    await saveData(img, [box('a')]);
    await saveChanges(img, 1, [box('b')]);
    const viewer = await onboardedUser(server);
    await server.built.ctx.db.insert(organizationMembers).values({ organizationId: owner.org.id, userId: viewer.userId, role: 'viewer' });
    expect((await history(img, '', viewer.token)).status).toBe(200);
    expect((await atVersion(img, 1, viewer.token)).status).toBe(200);
    expect((await restore(img, 1, {}, viewer.token)).status).toBe(403);
  });
});

describe('conflicts', () => {
  it('a stale save gets 409 with what changed since its base, and the whole document while it is small', async () => {
    const img = await newImage();
    await saveData(img, [box('a'), box('b')]);
    await saveChanges(img, 1, [box('a', 4)], ['b']);
    const res = await saveChanges(img, 1, [box('a', 5), box('c')]);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('version_conflict');
    expect(res.body.changes).toMatchObject({ since: 1, version: 2, upserts: [box('a', 4)], removed_ids: ['b'] });
    expect(res.body.current).toMatchObject({ version: 2, annotations: [box('a', 4)] });
    // Nothing of the stale save was written.
    expect((await load(img)).body.annotations).toEqual([box('a', 4)]);
  });

  it('concurrent editors of one shape: one winner per version, the others rebase on the changes and lose nothing', async () => {
    const img = await newImage();
    await saveData(img, [box('base')]);
    const EDITORS = 12;
    const winners = new Map<number, number>();
    let conflicts = 0;
    await Promise.all(
      Array.from({ length: EDITORS }, async (_, e) => {
        let base = 1;
        for (let attempt = 0; attempt < 100; attempt++) {
          // Each also moves the shared shape: a stale base is a conflict (other shapes alone would be rebased by the server).
          const res = await saveChanges(img, base, [box('base', e), box(`e${e}`, e)]);
          if (res.status === 200) {
            expect(winners.has(res.body.version)).toBe(false);
            winners.set(res.body.version, e);
            return;
          }
          expect(res.status).toBe(409);
          conflicts += 1;
          base = res.body.changes.version;
        }
        throw new Error(`editor ${e} never saved`);
      }),
    );
    expect(conflicts).toBeGreaterThan(0);
    expect([...winners.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: EDITORS }, (_, i) => i + 2));
    const loaded = await load(img);
    expect(loaded.body.version).toBe(EDITORS + 1);
    expect(ids(loaded.body.annotations).sort()).toEqual(['base', ...Array.from({ length: EDITORS }, (_, e) => `e${e}`)].sort());
    // The shapes went on top in the order their saves won; the shared one is the last winner's.
    const order = [...winners.entries()].sort((a, b) => a[0] - b[0]).map(([, e]) => e);
    expect(ids(loaded.body.annotations).slice(1)).toEqual(order.map((e) => `e${e}`));
    expect(loaded.body.annotations[0]).toEqual(box('base', order[order.length - 1]));
    expect((await changes(img, 1)).body.upserts).toHaveLength(EDITORS + 1);
  });
});

describe('assisted segmentation and other writers', () => {
  it('batch-save-data entries of both kinds are versions of their images, each in the log', async () => {
    const a = await newImage();
    const b = await newImage();
    await saveData(b, [box('x')]);
    const res = await api(server.url, 'POST', '/api/v1/annotations/batch-save-data', {
      token: owner.token,
      body: {
        saves: [
          { image_id: a.id, project_id: project.id, image_filename: a.filename, annotations: [box('a1'), box('a2')] },
          { image_id: b.id, project_id: project.id, image_filename: b.filename, base_version: 1, upserts: [box('y')], removed_ids: ['x'] },
        ],
      },
    });
    expect(res.body).toMatchObject({ saved: 2, failed: 0 });
    expect((await changes(a, 0)).body).toMatchObject({ version: 1, upserts: [box('a1'), box('a2')], removed_ids: [] });
    expect((await changes(b, 1)).body).toMatchObject({ version: 2, upserts: [box('y')], removed_ids: ['x'] });
    expect((await history(b)).body.entries[0]).toMatchObject({ version: 2, added: 1, removed: 1 });
  });

  it('save-segmentation adds one row on top and logs it', async () => {
    const img = await newImage();
    await saveData(img, [box('a')]);
    const res = await api(server.url, 'POST', '/api/v1/auto-annotate/sam2/save-segmentation', {
      token: owner.token,
      body: { project_id: project.id, image_name: img.filename, class_name: 'road', vellum_annotation: { polygon: { path: [[2, 2], [10, 2], [10, 10], [2, 10]], holes: [] } } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.version).toBe(2);
    const c = await changes(img, 1);
    expect(c.body.upserts).toHaveLength(1);
    expect(c.body.upserts[0]).toMatchObject({ id: res.body.annotation.id, name: 'road' });
    expect(ids((await load(img)).body.annotations)).toEqual(['a', res.body.annotation.id]);
  });
});
