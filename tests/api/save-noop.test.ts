// A save-changes (or a change-only batch-save-data entry) whose net change is nothing makes no
// version: a shape drawn and deleted before its save went out comes as the removal of an id the
// server never had, a retry or a second tab sends a shape the server already holds. The answer is
// the head as it is (its version and saved_at; `rebased_from` and the skipped `changes` for a stale
// base the rebase rule accepts), the history gains no entry, the live socket hears no `changed`,
// and the image's count and status stay. A save with one real part is written whole, as before.
import { beforeAll, describe, expect, it } from 'vitest';
import { annotationSaves, api, projectWithImage, sharedServer, type SaveImage as Img, type TestServer } from './harness';
import { joinAs, type Session } from './team-harness';
import type { Member } from '../fixtures/datasets';
import { closedAfterEach, LiveClient } from './support/live';

let server: TestServer;
let owner: Member;
/** An annotator of the owner's organization: the live watcher, and the other person saving. */
let other: Session;
let project: { id: string };
const sockets = closedAfterEach();

beforeAll(async () => {
  server = await sharedServer();
  ({ owner, project } = await projectWithImage(server, { classes: [{ name: 'car', type: 'box', color: '#FFADAD' }] }));
  other = await joinAs(server, owner.token, owner.org.id, 'annotator');
}, 120_000);

const { newImage, box, changeBody, saveChanges, load } = annotationSaves('noop', () => ({ server, owner, project }));
const history = async (img: Img) => (await api(server.url, 'GET', `/api/v1/annotations/history/${img.id}`, { token: owner.token })).body;
const imageOf = async (img: Img) => (await api(server.url, 'GET', `/api/v1/images/${img.id}`, { token: owner.token })).body.image;

/** An image at version 1 holding `shapes`, with the answer of that save. */
async function savedWith(shapes: unknown[]): Promise<{ img: Img; v1: { version: number; saved_at: string } }> {
  const img = await newImage();
  const res = await saveChanges(img, 0, shapes);
  expect(res.body).toMatchObject({ version: 1 });
  return { img, v1: res.body };
}

/** A watcher of the image on the live socket (another member's). */
async function watching(img: Img): Promise<LiveClient> {
  const watcher = await LiveClient.ready(server, other.token);
  sockets.push(watcher);
  expect(await watcher.join(img.id, project.id)).toMatchObject({ type: 'joined' });
  return watcher;
}

/**
 * The versions the watcher heard `changed` for, once a real save (made here, on the head) was
 * heard: the server announces versions in commit order, so a `changed` of an earlier save would
 * have come before this one.
 */
async function heardUpTo(watcher: LiveClient, img: Img, head: number, upserts: unknown[]): Promise<number[]> {
  const res = await saveChanges(img, head, upserts, [], other.token);
  expect(res.status).toBe(200);
  await watcher.changed(img.id, res.body.version);
  return watcher.messages.filter((m) => m.type === 'changed' && m.image_id === img.id).map((m) => m.version as number);
}

describe('a save-changes that changes nothing makes no version', () => {
  it('the removal of an id the server never had (drawn and deleted before its save): the head as it is, no history entry, no live changed', async () => {
    const { img, v1 } = await savedWith([box('a')]);
    const watcher = await watching(img);
    const before = await imageOf(img);
    const res = await saveChanges(img, 1, [], ['drawn-and-deleted']);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, status_updated: false, status: before.status, new_count: 1, version: 1, saved_at: v1.saved_at });
    expect(await load(img)).toMatchObject({ version: 1, saved_at: v1.saved_at, annotations: [box('a')] });
    expect((await history(img)).entries.map((e: { version: number }) => e.version)).toEqual([1]);
    expect(await imageOf(img)).toMatchObject({ status: before.status, annotation_count: 1, updated_at: before.updated_at });
    // The next real save is version 2, and the only one heard.
    expect(await heardUpTo(watcher, img, 1, [box('b')])).toEqual([2]);
  });

  it('on an image never saved (version 0): version 0 stays, the image stays new with no history', async () => {
    const img = await newImage();
    const res = await saveChanges(img, 0, [], ['drawn-and-deleted']);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, status_updated: false, status: 'new', new_count: 0, version: 0, saved_at: expect.any(String) });
    expect(await load(img)).toMatchObject({ version: 0, saved_at: null, annotations: [] });
    expect((await history(img)).entries).toEqual([]);
    // The next save still builds on version 0.
    expect((await saveChanges(img, 0, [box('a')])).body).toMatchObject({ version: 1, status: 'annotating', status_updated: true });
  });

  it('an upsert of the stored shape (a retry, a second tab), keys in any order', async () => {
    const { img, v1 } = await savedWith([box('a'), box('b', 5)]);
    const watcher = await watching(img);
    const same = await saveChanges(img, 1, [box('b', 5)]);
    expect(same.body).toMatchObject({ version: 1, saved_at: v1.saved_at, new_count: 2, status_updated: false });
    const { attributes, name, id } = box('a');
    const reordered = await saveChanges(img, 1, [{ attributes, bounding_box: { h: 4, w: 3, y: 2, x: 1 }, name, id }, box('b', 5)], ['never-there']);
    expect(reordered.body).toMatchObject({ version: 1, saved_at: v1.saved_at, new_count: 2 });
    expect(await load(img)).toMatchObject({ version: 1, annotations: [box('a'), box('b', 5)] });
    expect((await history(img)).entries).toHaveLength(1);
    expect(await heardUpTo(watcher, img, 1, [box('c')])).toEqual([2]);
  });

  it('a stale base the rebase rule accepts: the head, with rebased_from and the changes skipped; one whose ids changed since stays a 409', async () => {
    const { img } = await savedWith([box('a'), box('b'), box('c')]);
    const v2 = await saveChanges(img, 1, [box('a', 10)], [], other.token);
    expect(v2.body.version).toBe(2);
    const watcher = await watching(img);
    const res = await saveChanges(img, 1, [box('b')], ['drawn-and-deleted']);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ version: 2, rebased_from: 2, saved_at: v2.body.saved_at, new_count: 3, status_updated: false });
    expect(res.body.changes).toEqual({ since: 1, version: 2, saved_at: v2.body.saved_at, upserts: [box('a', 10)], removed_ids: [] });
    expect((await history(img)).entries.map((e: { version: number }) => e.version)).toEqual([2, 1]);
    // a changed after base 1: the rebase rule refuses, even though the save would change nothing.
    expect((await saveChanges(img, 1, [box('a', 10)])).body).toMatchObject({ code: 'version_conflict' });
    expect(await heardUpTo(watcher, img, 2, [box('d')])).toEqual([3]);
  });

  it('a save with one real part is written whole as one version, the next after the head', async () => {
    const { img } = await savedWith([box('a'), box('b')]);
    const watcher = await watching(img);
    expect((await saveChanges(img, 1, [box('a')], ['drawn-and-deleted'])).body.version).toBe(1);
    const mixed = await saveChanges(img, 1, [box('a'), box('b', 9)], ['drawn-and-deleted']);
    expect(mixed.body).toMatchObject({ version: 2, new_count: 2 });
    expect(mixed.body).not.toHaveProperty('rebased_from');
    expect((await history(img)).entries).toMatchObject([{ version: 2, added: 0, changed: 1, removed: 0 }, { version: 1 }]);
    expect(await watcher.changed(img.id, 2)).toMatchObject({ base_version: 1, upserts: [box('b', 9)], removed_ids: [] });
    expect(await heardUpTo(watcher, img, 2, [box('c')])).toEqual([2, 3]);
  });
});

describe('batch-save-data', () => {
  it('an entry that changes nothing answers its head, the real entry beside it is saved', async () => {
    const { img: quiet, v1 } = await savedWith([box('a')]);
    const { img: busy } = await savedWith([box('a')]);
    const watcher = await watching(quiet);
    const res = await api(server.url, 'POST', '/api/v1/annotations/batch-save-data', {
      token: owner.token,
      body: { saves: [changeBody(quiet, 1, [box('a')], ['drawn-and-deleted']), changeBody(busy, 1, [box('a', 7)])] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, saved: 2, failed: 0 });
    expect(res.body.results[0]).toEqual({ image_id: quiet.id, status: 'saved', version: 1, saved_at: v1.saved_at, status_updated: false, image_status: 'annotating', new_count: 1 });
    expect(res.body.results[1]).toMatchObject({ image_id: busy.id, status: 'saved', version: 2, new_count: 1 });
    expect((await history(quiet)).entries).toHaveLength(1);
    expect((await load(busy)).annotations).toEqual([box('a', 7)]);
    expect(await heardUpTo(watcher, quiet, 1, [box('b')])).toEqual([2]);
  });
});
