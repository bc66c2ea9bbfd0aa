// Live co-editing across two server processes on one PostgreSQL (issue 20): the socket is on one
// app instance, the save on the other, and `changed` crosses through LISTEN/NOTIFY. Runs when
// DATABASE_URL names a PostgreSQL server (.ci/run's "API suite on PostgreSQL" stage); skipped
// otherwise, since PGlite is one process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anotherProcessOf, api, onboardedUser, startServer, type TestServer } from './harness';
import { createProject, png, uploadImage } from '../fixtures/datasets';
import { LiveClient } from './support/live';
import { joinAs } from './team-harness';
import { sql } from 'drizzle-orm';
import { peerColors } from '../../src/contract/live';

const onPostgres = Boolean(process.env.DATABASE_URL);

describe.skipIf(!onPostgres)('two server processes on one PostgreSQL', () => {
  let a: TestServer;
  let b: TestServer;
  const sockets: LiveClient[] = [];
  // Both processes sign and verify tokens with one secret and one issuer (PUBLIC_URL), as several
  // processes behind one address do (README "Configuration").
  const secret = 'live-two-process-test-secret-0123456789abcdef';

  beforeAll(async () => {
    a = await startServer({ SUPABASE_JWT_SECRET: secret });
    b = await anotherProcessOf(a, { SUPABASE_JWT_SECRET: secret });
  }, 120_000);
  afterAll(async () => {
    for (const s of sockets) s.socket.terminate();
    await b?.stop();
    await a?.stop();
  });

  /** An owner on A with a project (class `car`) and an image in it. */
  async function imageOnA(filename: string) {
    const owner = await onboardedUser(a);
    const project = await createProject(a, owner);
    expect((await api(a.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { classes: [{ name: 'car', type: 'box', color: '#FFADAD' }] } })).status).toBe(200);
    const img = await uploadImage(a, owner, project.id, filename, await png(20, 20));
    return { owner, project, img };
  }

  it('a save on one process reaches the sockets on both, the author included, in order', async () => {
    const { owner, project, img } = await imageOnA('two.png');
    const onA = await LiveClient.ready(a, owner.token);
    const onB = await LiveClient.ready(b, owner.token);
    sockets.push(onA, onB);
    expect(await onA.join(img.id, project.id)).toMatchObject({ type: 'joined', version: 0 });
    expect(await onB.join(img.id, project.id)).toMatchObject({ type: 'joined', version: 0 });

    const box = (id: string, x: number) => ({ id, name: 'car', bounding_box: { x, y: 1, w: 5, h: 5 }, attributes: [] });
    const save = (on: TestServer, base: number, upserts: unknown[], removed: string[] = []) =>
      api(on.url, 'POST', '/api/v1/annotations/save-changes', {
        token: owner.token,
        body: { image_id: img.id, project_id: project.id, image_filename: img.filename, base_version: base, upserts, removed_ids: removed },
      });
    // Saved on B: A's socket hears it through NOTIFY and reads the change from the database.
    const first = await save(b, 0, [box('x', 1)]);
    expect(first.status).toBe(200);
    const expected1 = { type: 'changed', image_id: img.id, version: 1, base_version: 0, upserts: [box('x', 1)], removed_ids: [], by: owner.userId, saved_at: first.body.saved_at };
    expect(await onA.changed(img.id, 1)).toEqual(expected1);
    expect(await onB.changed(img.id, 1)).toEqual(expected1);
    // Saved on A, several in a row: both see every version once, in order.
    expect((await save(a, 1, [box('x', 2)])).status).toBe(200);
    expect((await save(a, 2, [box('y', 3)], ['x'])).status).toBe(200);
    expect((await save(b, 3, [box('y', 4)])).status).toBe(200);
    await onA.changed(img.id, 4);
    await onB.changed(img.id, 4);
    for (const s of [onA, onB]) {
      expect(s.messages.filter((m) => m.type === 'changed').map((m) => [m.version, m.base_version])).toEqual([
        [1, 0],
        [2, 1],
        [3, 2],
        [4, 3],
      ]);
    }
    expect((await onB.changed(img.id, 3)).removed_ids).toEqual(['x']);
  });

  it('a listener that lost its connection reconnects and catches up on the versions it did not hear', async () => {
    const { owner, project, img } = await imageOnA('reconnect.png');
    const onA = await LiveClient.ready(a, owner.token);
    sockets.push(onA);
    await onA.join(img.id, project.id);
    // End every LISTEN connection of this database (both processes'), then save at once: nobody hears that NOTIFY.
    const killed = await a.built.ctx.db.execute(
      sql`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`,
    );
    expect((killed as unknown as { rows: unknown[] }).rows.length).toBeGreaterThanOrEqual(2);
    const box = { id: 'r', name: 'car', bounding_box: { x: 1, y: 1, w: 5, h: 5 }, attributes: [] };
    const saved = await api(b.url, 'POST', '/api/v1/annotations/save-changes', {
      token: owner.token,
      body: { image_id: img.id, project_id: project.id, image_filename: img.filename, base_version: 0, upserts: [box], removed_ids: [] },
    });
    expect(saved.status).toBe(200);
    expect(await onA.changed(img.id, 1, 8000)).toMatchObject({ base_version: 0, upserts: [box] });
  });

  it("watch crosses too: a watcher on one process sees the editor's join and leave on the other, and is nobody's peer", async () => {
    const owner = await onboardedUser(a);
    const project = await createProject(a, owner);
    const [x, y] = [await uploadImage(a, owner, project.id, 'watch-x.png', await png(20, 20)), await uploadImage(a, owner, project.id, 'watch-y.png', await png(20, 20))];
    const annotator = await joinAs(a, owner.token, owner.org.id, 'annotator');
    const editorOnA = await LiveClient.ready(a, annotator.token);
    const watcherOnB = await LiveClient.ready(b, owner.token);
    sockets.push(editorOnA, watcherOnB);
    // The editor is on y before the watch: B's process already knows from A's announcement.
    await editorOnA.join(y.id, project.id);
    const people = (m: { [key: string]: any }): string[] => m.peers.map((p: { user_id: string }) => p.user_id);
    /** The first presence of the image with n people received from message `from` on (or the next one). */
    const presenceOf = (imageId: string, n: number, from: number) => {
      const match = (m: { type: string; [k: string]: any }) => m.type === 'presence' && m.image_id === imageId && m.peers.length === n;
      const seen = watcherOnB.messages.slice(from).find(match);
      return seen ? Promise.resolve(seen) : watcherOnB.next(match, 8000);
    };
    await watcherOnB.send({ type: 'watch', project_id: project.id, image_ids: [x.id, y.id] });
    const watching = await watcherOnB.next((m) => m.type === 'watching');
    expect(watching.images.map((i: any) => i.image_id)).toEqual([x.id, y.id]);
    // y's people came with the answer, or in a presence just after it (A's announcement on its way).
    if (watching.images[1].peers.length === 0) await presenceOf(y.id, 1, 0);
    else expect(people(watching.images[1])).toEqual([annotator.userId]);
    // The editor on A opens x: the watcher on B hears it; the editor's peers are the editor alone.
    let from = watcherOnB.messages.length;
    expect(people(await editorOnA.join(x.id, project.id))).toEqual([annotator.userId]);
    expect(people(await presenceOf(x.id, 1, from))).toEqual([annotator.userId]);
    // An editor on B's process on x too: both are there, the watcher still is not.
    const ownerEditorOnB = await LiveClient.ready(b, owner.token);
    sockets.push(ownerEditorOnB);
    from = watcherOnB.messages.length;
    await ownerEditorOnB.join(x.id, project.id);
    expect(people(await presenceOf(x.id, 2, from)).sort()).toEqual([annotator.userId, owner.userId].sort());
    from = watcherOnB.messages.length;
    ownerEditorOnB.socket.terminate();
    await presenceOf(x.id, 1, from);
    // The editor on A leaves x, then drops from y: the watcher on B hears both images empty.
    from = watcherOnB.messages.length;
    await editorOnA.send({ type: 'leave', image_id: x.id });
    await presenceOf(x.id, 0, from);
    editorOnA.socket.terminate();
    await presenceOf(y.id, 0, from);
    expect(watcherOnB.messages.filter((m) => m.type === 'changed' || m.type === 'peer')).toEqual([]);
  });

  it('presence, cursors, selections and overlaps cross too: people on different processes see each other', async () => {
    const owner = await onboardedUser(a);
    const project = await createProject(a, owner);
    const img = await uploadImage(a, owner, project.id, 'presence.png', await png(20, 20));
    const other = await joinAs(a, owner.token, owner.org.id, 'viewer');
    const onA = await LiveClient.ready(a, owner.token);
    const onB = await LiveClient.ready(b, other.token);
    sockets.push(onA, onB);
    await onA.join(img.id, project.id);
    await onB.join(img.id, project.id);
    // A hears B's process announce its room; B's process answers the new room's question with A's people.
    const seenOnA = await onA.next((m) => m.type === 'presence' && m.peers.length === 2);
    expect(seenOnA.peers.map((p: any) => [p.user_id, p.can_edit])).toEqual([
      [owner.userId, true],
      [other.userId, false],
    ]);
    // B sees A's person in `joined` when A's announcement came first, else in a presence after it.
    const seenOnB = await onB.next((m) => (m.type === 'presence' || m.type === 'joined') && m.peers.length === 2, 5000, true);
    // Both processes give the two people the same colours, and different ones (peerColors over everyone).
    const colors = (m: { [key: string]: any }) => Object.fromEntries(m.peers.map((p: any) => [p.user_id, p.color]));
    expect(colors(seenOnB)).toEqual(colors(seenOnA));
    expect(colors(seenOnA)).toEqual(Object.fromEntries([...peerColors([owner.userId, other.userId])]));
    expect(new Set(Object.values(colors(seenOnA))).size).toBe(2);
    await onA.send({ type: 'cursor', image_id: img.id, x: 3, y: 4 });
    expect(await onB.next((m) => m.type === 'peer')).toEqual({ type: 'peer', image_id: img.id, user_id: owner.userId, cursor: { x: 3, y: 4 } });
    await onB.send({ type: 'selection', image_id: img.id, ids: ['s1'] });
    expect(await onA.next((m) => m.type === 'peer')).toEqual({ type: 'peer', image_id: img.id, user_id: other.userId, selection: ['s1'] });
    // An editor's overlap (its merge kept the other's later shapes) crosses too; a viewer's is not relayed.
    await onA.send({ type: 'overlap', image_id: img.id, ids: ['s1', 's2'] });
    expect(await onB.next((m) => m.type === 'peer')).toEqual({ type: 'peer', image_id: img.id, user_id: owner.userId, overlap: ['s1', 's2'] });
    await onB.send({ type: 'overlap', image_id: img.id, ids: ['s1'] });
    await onB.send({ type: 'selection', image_id: img.id, ids: ['s2'] });
    expect(await onA.next((m) => m.type === 'peer')).toEqual({ type: 'peer', image_id: img.id, user_id: other.userId, selection: ['s2'] });
    // B's socket drops: A's presence loses B's person.
    onB.socket.terminate();
    expect((await onA.next((m) => m.type === 'presence' && m.peers.length === 1)).peers[0].user_id).toBe(owner.userId);
  });
});
