// A stale save-changes whose shapes nobody else touched (issue 20, live co-editing): the server
// applies it on the current version instead of answering 409, and tells the client what it
// skipped (`rebased_from` and `changes`) so it catches up without a reload. A save whose shapes
// changed after its base (changed, removed, or added with the same id by someone else) still gets
// the 409 with what changed; save-data and restore keep the strict check; batch-save-data's
// change-only entries behave like save-changes.
import { beforeAll, describe, expect, it } from 'vitest';
import { annotationSaves, api, onboardedUser, sharedServer, type SaveImage as Img, type TestServer } from './harness';
import { createProject, type Member } from '../fixtures/datasets';
import { organizationMembers } from '../../src/server/db/schema';
import { LiveClient } from './support/live';

let server: TestServer;
let owner: Member;
let other: { token: string; userId: string };
let project: { id: string };

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
  project = await createProject(server, owner);
  const patch = await api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { classes: [{ name: 'car', type: 'box', color: '#FFADAD' }] } });
  if (patch.status !== 200) throw new Error(JSON.stringify(patch.body));
  other = await onboardedUser(server);
  await server.built.ctx.db.insert(organizationMembers).values({ organizationId: owner.org.id, userId: other.userId, role: 'annotator' });
}, 120_000);

const { newImage, box, changeBody, saveChanges, load } = annotationSaves('rebase', () => ({ server, owner, project }));
const saveData = (img: Img, annotations: unknown[], extra: Record<string, unknown> = {}, token = owner.token) =>
  api(server.url, 'POST', '/api/v1/annotations/save-data', { token, body: { image_id: img.id, project_id: project.id, image_filename: img.filename, annotations, ...extra } });
const changes = async (img: Img, since: number) => (await api(server.url, 'GET', `/api/v1/annotations/changes/${img.id}?since=${since}`, { token: owner.token })).body;

/** An image at version 1 holding a, b and c, then another person's two saves: a moved (v2), d added (v3). */
async function movedOn(): Promise<Img> {
  const img = await newImage();
  expect((await saveData(img, [box('a'), box('b'), box('c')])).body.version).toBe(1);
  expect((await saveChanges(img, 1, [box('a', 10)], [], other.token)).body.version).toBe(2);
  expect((await saveChanges(img, 2, [box('d')], [], other.token)).body.version).toBe(3);
  return img;
}

describe('a stale save-changes on shapes nobody else touched', () => {
  it('is applied on the current version, and the answer carries the versions it skipped', async () => {
    const img = await movedOn();
    const res = await saveChanges(img, 1, [box('c', 30), box('e')], []);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, version: 4, rebased_from: 3, new_count: 5 });
    expect(res.body.changes).toEqual({ since: 1, version: 3, saved_at: expect.any(String), upserts: [box('a', 10), box('d')], removed_ids: [] });
    // The client's base with the skipped changes, then its own: the server's document.
    expect(await load(img)).toMatchObject({ version: 4, annotations: [box('a', 10), box('b'), box('c', 30), box('d'), box('e')] });
    // The log holds it as one version of its own on top of the head.
    expect(await changes(img, 3)).toMatchObject({ since: 3, version: 4, upserts: [box('c', 30), box('e')], removed_ids: [] });
  });

  it('removes a shape nobody else touched, and the skipped removal comes in the answer', async () => {
    const img = await newImage();
    await saveData(img, [box('a'), box('b'), box('c')]);
    expect((await saveChanges(img, 1, [], ['a'], other.token)).body.version).toBe(2);
    const res = await saveChanges(img, 1, [], ['c']);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ version: 3, rebased_from: 2, new_count: 1, changes: { since: 1, version: 2, upserts: [], removed_ids: ['a'] } });
    expect((await load(img)).annotations).toEqual([box('b')]);
  });

  it('answers a save on the current version as before, without rebased_from or changes', async () => {
    const img = await movedOn();
    const res = await saveChanges(img, 3, [box('b', 7)]);
    expect(res.status).toBe(200);
    expect(res.body.version).toBe(4);
    expect(res.body).not.toHaveProperty('rebased_from');
    expect(res.body).not.toHaveProperty('changes');
  });
});

describe('the live socket', () => {
  it('tells of a rebased save as one version on top of the head, with only its own change', async () => {
    const img = await newImage();
    await saveData(img, [box('a'), box('b')]);
    const watcher = await LiveClient.ready(server, other.token);
    try {
      await watcher.join(img.id, project.id);
      await saveChanges(img, 1, [box('a', 5)], [], other.token);
      expect(await watcher.changed(img.id, 2)).toMatchObject({ base_version: 1, upserts: [box('a', 5)], by: other.userId });
      const res = await saveChanges(img, 1, [box('b', 6)]);
      expect(res.body).toMatchObject({ version: 3, rebased_from: 2 });
      expect(await watcher.changed(img.id, 3)).toEqual({ type: 'changed', image_id: img.id, version: 3, base_version: 2, upserts: [box('b', 6)], removed_ids: [], by: owner.userId, saved_at: res.body.saved_at });
    } finally {
      watcher.socket.terminate();
      await watcher.closed;
    }
  });
});

describe('a stale save-changes on a shape that changed after its base still gets 409', () => {
  it('a shape someone else changed', async () => {
    const img = await movedOn();
    const res = await saveChanges(img, 1, [box('a', 50), box('e')]);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'version_conflict', changes: { since: 1, version: 3, upserts: [box('a', 10), box('d')], removed_ids: [] } });
    expect(await load(img)).toMatchObject({ version: 3, annotations: [box('a', 10), box('b'), box('c'), box('d')] });
  });

  it('a shape someone else removed: changing it or removing it again', async () => {
    const img = await newImage();
    await saveData(img, [box('a'), box('b')]);
    await saveChanges(img, 1, [], ['b'], other.token);
    const changed = await saveChanges(img, 1, [box('b', 9)]);
    expect(changed.status).toBe(409);
    expect(changed.body.changes).toMatchObject({ since: 1, version: 2, removed_ids: ['b'] });
    expect((await saveChanges(img, 1, [], ['b'])).status).toBe(409);
    expect(await load(img)).toMatchObject({ version: 2, annotations: [box('a')] });
  });

  it('a new shape whose id someone else added meanwhile', async () => {
    const img = await newImage();
    await saveData(img, [box('a')]);
    await saveChanges(img, 1, [box('n', 5)], [], other.token);
    const res = await saveChanges(img, 1, [box('n', 6)]);
    expect(res.status).toBe(409);
    expect(res.body.changes).toMatchObject({ since: 1, version: 2, upserts: [box('n', 5)] });
    expect((await load(img)).annotations).toEqual([box('a'), box('n', 5)]);
  });

  it('a shape changed after the base and changed back still counts as changed', async () => {
    const img = await newImage();
    await saveData(img, [box('a'), box('b')]);
    await saveChanges(img, 1, [box('a', 9)], [], other.token);
    await saveChanges(img, 2, [box('a')], [], other.token);
    expect((await saveChanges(img, 1, [box('a', 4)])).status).toBe(409);
  });

  it('a base ahead of the current version', async () => {
    const img = await newImage();
    await saveData(img, [box('a')]);
    expect((await saveChanges(img, 5, [box('b')])).status).toBe(409);
    expect((await load(img)).version).toBe(1);
  });
});

describe('the strict check stays for whole documents', () => {
  it('save-data on a stale base is a 409 even when the list touches only shapes nobody changed', async () => {
    const img = await movedOn();
    const res = await saveData(img, [box('a'), box('b'), box('c', 30)], { base_version: 1 });
    expect(res.status).toBe(409);
    expect((await load(img)).version).toBe(3);
  });

  it('restore on a stale base is a 409', async () => {
    const img = await movedOn();
    const res = await api(server.url, 'POST', '/api/v1/annotations/restore', { token: owner.token, body: { image_id: img.id, project_id: project.id, version: 1, base_version: 2 } });
    expect(res.status).toBe(409);
    expect((await load(img)).version).toBe(3);
  });
});

describe('batch-save-data', () => {
  it('rebases a stale change-only entry on untouched shapes, and keeps 409 for touched ones and whole lists', async () => {
    const [a, b, c] = [await movedOn(), await movedOn(), await movedOn()];
    const res = await api(server.url, 'POST', '/api/v1/annotations/batch-save-data', {
      token: owner.token,
      body: {
        saves: [
          changeBody(a, 1, [box('e')], ['b']),
          changeBody(b, 1, [box('a', 60)]),
          { image_id: c.id, project_id: project.id, image_filename: c.filename, base_version: 1, annotations: [box('a'), box('b'), box('c'), box('e')] },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ saved: 1, failed: 2 });
    const [ra, rb, rc] = res.body.results;
    expect(ra).toMatchObject({ image_id: a.id, status: 'saved', version: 4, rebased_from: 3, new_count: 4, changes: { since: 1, version: 3, upserts: [box('a', 10), box('d')], removed_ids: [] } });
    expect(rb).toMatchObject({ image_id: b.id, status: 'conflict', code: 'version_conflict', changes: { since: 1, version: 3 } });
    expect(rc).toMatchObject({ image_id: c.id, status: 'conflict', code: 'version_conflict' });
    expect((await load(a)).annotations).toEqual([box('a', 10), box('c'), box('d'), box('e')]);
    expect((await load(b)).version).toBe(3);
    expect((await load(c)).version).toBe(3);
  });
});

describe('many people saving one image at once', () => {
  it('each on other shapes: every save lands on its first try, one version each, and each answer lets its client rebuild the document', async () => {
    const img = await newImage();
    await saveData(img, [box('base')]);
    const EDITORS = 12;
    const answers = await Promise.all(Array.from({ length: EDITORS }, (_, e) => saveChanges(img, 1, [box(`e${e}`, e)], [], e % 2 ? other.token : owner.token)));
    expect(answers.map((r) => r.status)).toEqual(Array(EDITORS).fill(200));
    const versions = answers.map((r) => r.body.version as number).sort((x, y) => x - y);
    expect(versions).toEqual(Array.from({ length: EDITORS }, (_, i) => i + 2));
    const final = await load(img);
    expect(final.version).toBe(EDITORS + 1);
    // The last to land: its base, the skipped changes and its own change make the server's document.
    const last = answers.find((r) => r.body.version === EDITORS + 1)!;
    const e = answers.indexOf(last);
    const skipped = last.body.changes as { upserts: { id: string }[]; removed_ids: string[] };
    expect(last.body.rebased_from).toBe(EDITORS);
    const rebuilt = [box('base'), ...skipped.upserts, box(`e${e}`, e)];
    expect(rebuilt).toEqual(final.annotations);
  });
});
