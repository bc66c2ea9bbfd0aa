// The live co-editing socket (issue 20, /api/v1/live) as clients see it: auth and its close code,
// join and the 404 rule, `changed` after every kind of write (the author's own sockets too),
// presence and the people's distinct colours, watch (presence only, for the Data tab), the cursor,
// selection and overlap relay and its limits, sockets per user, revoked keys and removed members,
// and gap recovery through GET changes. Two processes on PostgreSQL: tests/api/live-postgres.test.ts; a server
// restart with the app's live client: tests/api/live-restart.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import WebSocket from 'ws';
import { api, onboardedUser, startServer, type TestServer } from './harness';
import { joinAs } from './team-harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';
import { importFile } from './support/imports';
import { closedAfterEach, LiveClient, sleep } from './support/live';
import { CHANGES_CHANNEL } from '../../src/server/services/annotations';
import { LIVE_MAX_CONTROL_MESSAGES_PER_SECOND, LIVE_MAX_JOINS_PER_SOCKET, LIVE_MAX_MESSAGE_BYTES, LIVE_MAX_PEER_MESSAGES_PER_SECOND, LIVE_MAX_SELECTION_IDS, parseClientMessage, PEER_COLORS, peerColor } from '../../src/contract/live';

let server: TestServer;
let owner: Awaited<ReturnType<typeof onboardedUser>>;
let stranger: Member;
let project: { id: string };
let foreign: { id: string; projectId: string };
// Each test's sockets are closed after it (the owner would otherwise pass LIVE_MAX_SOCKETS_PER_USER).
const sockets = closedAfterEach();

const CLASSES = [{ name: 'car', type: 'box', color: '#FFADAD' }];
const box = (id: string, x = 1) => ({ id, name: 'car', bounding_box: { x, y: 2, w: 30, h: 40 }, attributes: [] });

/** A socket that is closed after the file. */
async function live(token: string, on: TestServer = server): Promise<LiveClient> {
  const client = await LiveClient.ready(on, token);
  sockets.push(client);
  return client;
}
function raw(on: TestServer = server): LiveClient {
  const client = new LiveClient(on);
  sockets.push(client);
  return client;
}

let counter = 0;
async function newImage(user: Member = owner, projectId = project.id) {
  counter += 1;
  return uploadImage(server, user, projectId, `live${counter}.png`, await png(40, 30));
}
const saveChanges = (img: { id: string; filename: string }, base: number, upserts: unknown[], removed: string[] = [], token = owner.token) =>
  api(server.url, 'POST', '/api/v1/annotations/save-changes', {
    token,
    body: { image_id: img.id, project_id: project.id, image_filename: img.filename, base_version: base, upserts, removed_ids: removed },
  });

beforeAll(async () => {
  server = await startServer({ LIVE_RECHECK_MS: '300', LIVE_PING_MS: '200', LIVE_MAX_SOCKETS_PER_USER: '3' });
  owner = await onboardedUser(server);
  stranger = await onboardedUser(server);
  project = await createProject(server, owner);
  expect((await api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { classes: CLASSES } })).status).toBe(200);
  const theirs = await createProject(server, stranger);
  const img = await uploadImage(server, stranger, theirs.id, 'theirs.png', await png(6, 6));
  foreign = { id: img.id, projectId: theirs.id };
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

describe('the contract validator', () => {
  it('takes the known messages and refuses unknown types, wrong field types, extra fields and oversize text', () => {
    const id = '00000000-0000-4000-8000-000000000000';
    expect(parseClientMessage(JSON.stringify({ type: 'cursor', image_id: id, x: 1.5, y: -2 }))).toMatchObject({ ok: true });
    expect(parseClientMessage(JSON.stringify({ type: 'selection', image_id: id, ids: ['a', 'b'] }))).toMatchObject({ ok: true });
    expect(parseClientMessage(JSON.stringify({ type: 'shout', image_id: id }))).toMatchObject({ ok: false, tooLarge: false });
    expect(parseClientMessage(JSON.stringify({ type: 'cursor', image_id: id, x: '1', y: 2 }))).toMatchObject({ ok: false });
    expect(parseClientMessage(JSON.stringify({ type: 'join', image_id: 'nope', project_id: id }))).toMatchObject({ ok: false });
    expect(parseClientMessage(JSON.stringify({ type: 'leave', image_id: id, extra: 1 }))).toMatchObject({ ok: false });
    expect(parseClientMessage('{not json')).toMatchObject({ ok: false, error: 'The message is not JSON' });
    expect(parseClientMessage(JSON.stringify({ type: 'auth', token: 'x'.repeat(LIVE_MAX_MESSAGE_BYTES) }))).toMatchObject({ ok: false, tooLarge: true });
    expect(peerColor('a')).toBe(peerColor('a'));
  });
});

describe('auth', () => {
  it('answers ready with the user id for an access token and for an API key', async () => {
    const a = await live(owner.token);
    expect(a.messages[0]).toEqual({ type: 'ready', user_id: owner.userId });
    const key = await api(server.url, 'POST', '/api/v1/api-keys', { token: owner.token, body: { organization_id: owner.org.id, name: 'live' } });
    expect(key.status).toBe(200);
    const k = await live(key.body.key);
    expect(k.messages[0]).toEqual({ type: 'ready', user_id: key.body.api_key.id });
  });

  it('closes 4401 on a bad token, a bad key, a first message that is not auth, and no auth within 5 s', async () => {
    const bad = raw();
    await bad.send({ type: 'auth', token: 'not-a-token' });
    expect((await bad.closed).code).toBe(4401);
    const badKey = raw();
    await badKey.send({ type: 'auth', token: `vlm_${'A'.repeat(43)}` });
    expect((await badKey.closed).code).toBe(4401);
    const joinFirst = raw();
    await joinFirst.send({ type: 'join', image_id: foreign.id, project_id: foreign.projectId });
    expect((await joinFirst.closed).code).toBe(4401);
    const garbage = raw();
    await garbage.send('hello');
    expect((await garbage.closed).code).toBe(4401);
    const silent = raw();
    const started = Date.now();
    const closed = await silent.closed;
    expect(closed.code).toBe(4401);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4500);
    expect(silent.messages).toEqual([]);
  }, 15_000);

  it('takes a new token on the open socket for the same user, and closes 4401 for another user', async () => {
    const a = await live(owner.token);
    const signIn = await api(server.url, 'POST', '/auth/v1/token?grant_type=password', { body: { email: owner.email, password: owner.password }, headers: { apikey: server.built.ctx.auth.anonKey } });
    await a.send({ type: 'auth', token: signIn.body.access_token });
    expect(await a.next((m) => m.type === 'ready')).toEqual({ type: 'ready', user_id: owner.userId });
    await a.send({ type: 'auth', token: stranger.token });
    expect((await a.closed).code).toBe(4401);
  });

  it('the OpenAPI document describes the socket and the changes call with its 410', async () => {
    const doc = (await api(server.url, 'GET', '/api/docs/json')).body;
    const live = doc.paths['/api/v1/live'].get;
    expect(live.description).toContain('{"type":"auth","token"}');
    expect(live.description).toContain('"type":"changed"');
    expect(live.description).toContain('4401');
    expect(doc.paths['/api/v1/annotations/changes/{imageId}'].get.description).toContain('410 `history_expired`');
  });

  it('a plain GET answers 426 upgrade_required in the API error shape', async () => {
    const res = await api(server.url, 'GET', '/api/v1/live');
    expect(res.status).toBe(426);
    expect(res.body).toMatchObject({ success: false, code: 'upgrade_required' });
  });
});

describe('join', () => {
  it('answers joined with the version and the peers', async () => {
    const img = await newImage();
    expect((await saveChanges(img, 0, [box('a')])).status).toBe(200);
    const a = await live(owner.token);
    const joined = await a.join(img.id, project.id);
    expect(joined).toEqual({ type: 'joined', image_id: img.id, version: 1, peers: [{ user_id: owner.userId, name: 'Test User', color: peerColor(owner.userId), can_edit: true }] });
  });

  it("answers only not_found for another organization's image, a wrong project, an unknown id, and to a non-member", async () => {
    const a = await live(owner.token);
    expect(await a.join(foreign.id, foreign.projectId)).toEqual({ type: 'error', code: 'not_found', image_id: foreign.id });
    const mine = await newImage();
    expect(await a.join(mine.id, foreign.projectId)).toEqual({ type: 'error', code: 'not_found', image_id: mine.id });
    const unknown = '00000000-0000-4000-8000-000000000001';
    expect(await a.join(unknown, project.id)).toEqual({ type: 'error', code: 'not_found', image_id: unknown });
    const s = await live(stranger.token);
    expect(await s.join(mine.id, project.id)).toEqual({ type: 'error', code: 'not_found', image_id: mine.id });
    // Nothing else was said about those images.
    expect(s.messages.filter((m) => m.image_id === mine.id)).toHaveLength(1);
  });

  it('answers invalid_message to a malformed message on an authenticated socket, and not_joined to leave an image not joined', async () => {
    const a = await live(owner.token);
    await a.send({ type: 'cursor', image_id: 'x', x: 1, y: 2 });
    expect(await a.next((m) => m.type === 'error')).toMatchObject({ code: 'invalid_message' });
    const img = await newImage();
    await a.send({ type: 'leave', image_id: img.id });
    expect(await a.next((m) => m.type === 'error')).toEqual({ type: 'error', code: 'not_joined', image_id: img.id });
  });
});

describe('changed after every kind of write', () => {
  it('save-changes: the author and another person both get it, with upserts, removals, the base and who', async () => {
    const img = await newImage();
    const annotator = await joinAs(server, owner.token, owner.org.id, 'annotator');
    const mine = await live(owner.token);
    const theirs = await live(annotator.token);
    await mine.join(img.id, project.id);
    await theirs.join(img.id, project.id);
    const first = await saveChanges(img, 0, [box('a'), box('b')]);
    expect(first.status).toBe(200);
    // saved_at: when the version was saved, as the save's answer says (clients weigh it against their unsaved edits).
    const expected = { type: 'changed', image_id: img.id, version: 1, base_version: 0, upserts: [box('a'), box('b')], removed_ids: [], by: owner.userId, saved_at: first.body.saved_at };
    expect(await mine.changed(img.id, 1)).toEqual(expected);
    expect(await theirs.changed(img.id, 1)).toEqual(expected);
    const second = await saveChanges(img, 1, [box('a', 9)], ['b'], annotator.token);
    expect(second.status).toBe(200);
    expect(await mine.changed(img.id, 2)).toEqual({ type: 'changed', image_id: img.id, version: 2, base_version: 1, upserts: [box('a', 9)], removed_ids: ['b'], by: annotator.userId, saved_at: second.body.saved_at });
  });

  it('save-data, batch-save-data, Copy Previous (a save-changes of the copied shapes) and restore', async () => {
    const img = await newImage();
    const a = await live(owner.token);
    await a.join(img.id, project.id);
    const saveData = await api(server.url, 'POST', '/api/v1/annotations/save-data', { token: owner.token, body: { image_id: img.id, project_id: project.id, image_filename: img.filename, annotations: [box('a'), box('b')] } });
    expect(saveData.status).toBe(200);
    expect(await a.changed(img.id, 1)).toMatchObject({ upserts: [box('a'), box('b')], removed_ids: [] });
    const batch = await api(server.url, 'POST', '/api/v1/annotations/batch-save-data', {
      token: owner.token,
      body: { saves: [{ image_id: img.id, project_id: project.id, image_filename: img.filename, base_version: 1, upserts: [box('c')], removed_ids: ['a'] }] },
    });
    expect(batch.body.results[0].status).toBe('saved');
    expect(await a.changed(img.id, 2)).toMatchObject({ base_version: 1, upserts: [box('c')], removed_ids: ['a'] });
    // Copy Previous: the editor copies the previous image's shapes under new ids and saves them as changes.
    const previous = [box('p1', 5), box('p2', 6)];
    expect((await saveChanges(img, 2, previous.map((b) => ({ ...b, id: `copy-${b.id}` })))).status).toBe(200);
    expect(await a.changed(img.id, 3)).toMatchObject({ upserts: [{ ...box('p1', 5), id: 'copy-p1' }, { ...box('p2', 6), id: 'copy-p2' }] });
    const restore = await api(server.url, 'POST', '/api/v1/annotations/restore', { token: owner.token, body: { image_id: img.id, project_id: project.id, version: 1, base_version: 3 } });
    expect(restore.status, JSON.stringify(restore.body)).toBe(200);
    const restored = await a.changed(img.id, 4);
    expect(restored.upserts).toEqual([box('a')]);
    expect([...restored.removed_ids].sort()).toEqual(['c', 'copy-p1', 'copy-p2']);
  });

  it('a change larger than 1 MB comes with omitted: true and empty lists; GET changes gives it', async () => {
    const img = await newImage();
    const a = await live(owner.token);
    await a.join(img.id, project.id);
    const many = Array.from({ length: 1100 }, (_, i) => ({ ...box(`big-${i}`), attributes: [{ note: 'n'.repeat(1000) }] }));
    const saved = await saveChanges(img, 0, many);
    expect(saved.status, JSON.stringify(saved.body).slice(0, 300)).toBe(200);
    expect(await a.changed(img.id, 1)).toEqual({ type: 'changed', image_id: img.id, version: 1, base_version: 0, upserts: [], removed_ids: [], by: owner.userId, saved_at: saved.body.saved_at, omitted: true });
    const changes = await api(server.url, 'GET', `/api/v1/annotations/changes/${img.id}?since=0`, { token: owner.token });
    expect(changes.body.upserts).toHaveLength(1100);
  });

  it('an API key caller: `by` is the key', async () => {
    const img = await newImage();
    const a = await live(owner.token);
    await a.join(img.id, project.id);
    const key = await api(server.url, 'POST', '/api/v1/api-keys', { token: owner.token, body: { organization_id: owner.org.id, name: 'writer', role: 'annotator' } });
    expect((await saveChanges(img, 0, [box('k')], [], key.body.key)).status).toBe(200);
    expect(await a.changed(img.id, 1)).toMatchObject({ by: key.body.api_key.id, upserts: [box('k')] });
  });

  it('an import that matches the image by name', { timeout: 60_000 }, async () => {
    const img = await newImage();
    const a = await live(owner.token);
    await a.join(img.id, project.id);
    const coco = {
      images: [{ id: 1, file_name: img.filename, width: 40, height: 30 }],
      categories: [{ id: 7, name: 'car' }],
      annotations: [{ id: 1, image_id: 1, category_id: 7, bbox: [10, 10, 5, 5], area: 25, iscrowd: 0 }],
    };
    const zip = new JSZip();
    zip.file('annotations.json', JSON.stringify(coco));
    const job = await importFile(server, owner.token, project.id, 'labels.zip', await zip.generateAsync({ type: 'nodebuffer' }));
    expect(job.status, job.error).toBe('done');
    expect(job.report.images_matched).toBe(1);
    // The import's save is relayed by the hub like any other; under CI's load (the unit and e2e
    // suites run side by side) it once took over 5 s to arrive.
    const changed = await a.changed(img.id, 1, 15_000);
    expect(changed.upserts).toHaveLength(1);
    expect(changed.upserts[0]).toMatchObject({ name: 'car', bounding_box: { x: 10, y: 10, w: 5, h: 5 } });
    expect(changed.by).toBe(owner.userId);
  });

  it('an image edit that carries labels announces the edited image on the channel the hub relays', async () => {
    const src = await newImage();
    expect((await saveChanges(src, 0, [box('e')])).status).toBe(200);
    const announced: string[] = [];
    const stop = await server.built.ctx.database.listen(CHANGES_CHANNEL, (p) => announced.push(p));
    try {
      const start = await api(server.url, 'POST', '/api/v1/image-edit/edit', { token: owner.token, body: { project_id: project.id, image_names: [src.filename], prompt: 'flip horizontally' } });
      expect(start.status, JSON.stringify(start.body)).toBe(200);
      let status: any;
      for (let i = 0; i < 300 && status?.status !== 'completed' && status?.status !== 'failed'; i++) {
        await sleep(100);
        status = (await api(server.url, 'GET', `/api/v1/image-edit/status/${start.body.edit_id}`, { token: owner.token })).body;
      }
      expect(status.status).toBe('completed');
      const edited = status.result.registration_data[0];
      expect(edited.annotation_count).toBe(1);
      await sleep(100);
      expect(announced).toContain(`${edited.image_id}:1`);
      // A socket that joins it now starts at that version.
      const a = await live(owner.token);
      expect(await a.join(edited.image_id, project.id)).toMatchObject({ type: 'joined', version: 1 });
    } finally {
      await stop();
    }
  }, 60_000);
});

describe('presence', () => {
  it('goes out on join, leave and when a socket drops; one entry per person; a viewer may watch but cannot edit', async () => {
    const img = await newImage();
    const viewer = await joinAs(server, owner.token, owner.org.id, 'viewer');
    const a = await live(owner.token);
    await a.join(img.id, project.id);
    const v = await live(viewer.token);
    const toldOfV = a.next((m) => m.type === 'presence' && m.peers.length === 2);
    const joined = await v.join(img.id, project.id);
    expect(joined.peers.map((p: any) => [p.user_id, p.can_edit])).toEqual([
      [owner.userId, true],
      [viewer.userId, false],
    ]);
    expect((await toldOfV).image_id).toBe(img.id);
    // A second tab of the same person is not a second peer. (Each wait starts before what it waits
    // for: the others' presence goes out right after the joiner's `joined`, so it can arrive first.)
    const a2 = await live(owner.token);
    const toldOfA2 = v.next((m) => m.type === 'presence');
    await a2.join(img.id, project.id);
    expect((await toldOfA2).peers).toHaveLength(2);
    const toldOfA2Gone = v.next((m) => m.type === 'presence');
    a2.close();
    await toldOfA2Gone;
    await v.send({ type: 'leave', image_id: img.id });
    expect((await a.next((m) => m.type === 'presence')).peers.map((p: any) => p.user_id)).toEqual([owner.userId]);
    const vBack = a.next((m) => m.type === 'presence' && m.peers.length === 2);
    await v.join(img.id, project.id);
    await vBack;
    v.socket.terminate(); // dropped without a close frame
    expect((await a.next((m) => m.type === 'presence', 10_000)).peers.map((p: any) => p.user_id)).toEqual([owner.userId]);
    // A socket that stops answering pings (a lost network) is dropped within two LIVE_PING_MS (200 ms here).
    const silent = await live(viewer.token);
    const silentIn = a.next((m) => m.type === 'presence' && m.peers.length === 2);
    await silent.join(img.id, project.id);
    await silentIn;
    (silent.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    const started = Date.now();
    expect((await a.next((m) => m.type === 'presence', 5000)).peers.map((p: any) => p.user_id)).toEqual([owner.userId]);
    expect(Date.now() - started).toBeLessThan(1500);
    // The viewer's changes never reached anyone: they only watched.
    expect(a.messages.filter((m) => m.type === 'changed' && m.image_id === img.id)).toEqual([]);
  });
});

describe('pings', () => {
  it('a stall of the server longer than two pings drops no socket that answered them', async () => {
    // The pong is sent, then the process (server and this client alike) is held 3 pings long before
    // the server can read it: its next ping round comes first. Pongs are answered by hand here, so
    // the stall falls right after one, where a busy machine's would drop the socket (1006).
    const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}/api/v1/live`, { autoPong: false });
    let closedWith: number | null = null;
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve((closedWith = code))));
    let pongs = 0;
    socket.on('ping', () => {
      socket.pong();
      pongs += 1;
      if (pongs === 2) {
        const until = performance.now() + 3 * 200; // LIVE_PING_MS is 200 in this file
        while (performance.now() < until);
      }
    });
    await new Promise((resolve) => socket.once('open', resolve));
    const ready = new Promise((resolve) => socket.once('message', resolve));
    socket.send(JSON.stringify({ type: 'auth', token: owner.token }));
    await ready;
    while (pongs < 5 && closedWith === null) await sleep(50);
    expect(closedWith).toBeNull();
    socket.close();
    expect(await closed).toBe(1005);
  });
});

describe('colours', () => {
  it("two people whose own colours collide get different ones, the same in joined, presence and a watcher's answer; the one who gave way gets theirs back when the other leaves", async () => {
    const img = await newImage();
    // Members until two of them (the owner included) have the same own colour (peerColor, a hash of
    // the user id): eleven people at most, with ten colours.
    const byColor = new Map<string, { token: string; userId: string }>([[peerColor(owner.userId), owner]]);
    let pair: { token: string; userId: string }[] = [];
    while (pair.length === 0) {
      const member = await joinAs(server, owner.token, owner.org.id, 'annotator');
      const same = byColor.get(peerColor(member.userId));
      if (same) pair = [same, member];
      else byColor.set(peerColor(member.userId), member);
    }
    // The first by user id keeps the colour; the other takes the next free one.
    const [first, second] = pair.sort((p, q) => (p.userId < q.userId ? -1 : 1)) as [Member, Member];
    const own = peerColor(first.userId);
    expect(peerColor(second.userId)).toBe(own);
    const next = PEER_COLORS[(PEER_COLORS.indexOf(own as (typeof PEER_COLORS)[number]) + 1) % PEER_COLORS.length];
    const colors = (m: { [key: string]: any }) => Object.fromEntries(m.peers.map((p: { user_id: string; color: string }) => [p.user_id, p.color]));
    const expected = { [first.userId]: own, [second.userId]: next };

    const a = await live(second.token);
    expect(colors(await a.join(img.id, project.id))).toEqual({ [second.userId]: own }); // alone, in their own colour
    const b = await live(first.token);
    expect(colors(await b.join(img.id, project.id))).toEqual(expected);
    expect(colors(await a.next((m) => m.type === 'presence' && m.peers.length === 2, 5000, true))).toEqual(expected);
    const watcher = await live(owner.token);
    await watcher.send({ type: 'watch', project_id: project.id, image_ids: [img.id] });
    expect(colors((await watcher.next((m) => m.type === 'watching')).images[0])).toEqual(expected);

    await b.send({ type: 'leave', image_id: img.id });
    // The watcher's presence may arrive while the test still waits for a's: look at what it already has.
    expect(colors(await a.next((m) => m.type === 'presence' && m.peers.length === 1))).toEqual({ [second.userId]: own });
    expect(colors(await watcher.next((m) => m.type === 'presence' && m.peers.length === 1, 5000, true))).toEqual({ [second.userId]: own });
  }, 60_000);
});

describe('watch (presence only: the Data tab)', () => {
  /** Sends `watch` and resolves with the `watching` answer. */
  async function watch(c: LiveClient, ids: string[], projectId = project.id) {
    await c.send({ type: 'watch', project_id: projectId, image_ids: ids });
    return c.next((m) => m.type === 'watching');
  }
  const people = (m: { [key: string]: any }): string[] => m.peers.map((p: { user_id: string }) => p.user_id);
  /** The presence of the image with n people, already received or the next one (each test's lists go 0 -> n -> 0 once per image). */
  const presenceOf = (c: LiveClient, imageId: string, n: number) => c.next((m) => m.type === 'presence' && m.image_id === imageId && m.peers.length === n, 5000, true);

  it("gets the people on each image, then presence on the editor's join and leave; the watcher is nobody's peer and gets no changed", async () => {
    const [x, y] = [await newImage(), await newImage()];
    const annotator = await joinAs(server, owner.token, owner.org.id, 'annotator');
    const editor = await live(annotator.token);
    await editor.join(y.id, project.id);
    const w = await live(owner.token);
    expect(await watch(w, [x.id, y.id])).toEqual({
      type: 'watching',
      project_id: project.id,
      images: [
        { image_id: x.id, peers: [] },
        { image_id: y.id, peers: [{ user_id: annotator.userId, name: 'Test User', color: peerColor(annotator.userId), can_edit: true }] },
      ],
    });
    // The editor opens x: the watcher hears it; the editor's peers are the editor alone.
    const joined = await editor.join(x.id, project.id);
    expect(people(joined)).toEqual([annotator.userId]);
    expect(people(await presenceOf(w, x.id, 1))).toEqual([annotator.userId]);
    // A change saved on x is not sent to the watcher.
    expect((await saveChanges(x, 0, [box('w1')], [], annotator.token)).status).toBe(200);
    await editor.changed(x.id, 1);
    // The editor leaves x: the watcher hears the image is empty.
    await editor.send({ type: 'leave', image_id: x.id });
    expect(await presenceOf(w, x.id, 0)).toEqual({ type: 'presence', image_id: x.id, peers: [] });
    // The editor's socket drops: y is empty too.
    editor.socket.terminate();
    expect(await presenceOf(w, y.id, 0)).toMatchObject({ image_id: y.id });
    expect(w.messages.filter((m) => m.type === 'changed' || m.type === 'peer')).toEqual([]);
    // Nobody else on x heard of the watcher: a second editor is alone there.
    const other = await live(annotator.token);
    expect(people(await other.join(x.id, project.id))).toEqual([annotator.userId]);
    expect(other.messages.filter((m) => m.type === 'presence')).toEqual([]);
  });

  it('a new watch replaces the set; an empty one ends it; a second tab of the same person changes nothing', async () => {
    const [x, y] = [await newImage(), await newImage()];
    const annotator = await joinAs(server, owner.token, owner.org.id, 'annotator');
    const w = await live(owner.token);
    await watch(w, [x.id]);
    expect((await watch(w, [y.id])).images.map((i: any) => i.image_id)).toEqual([y.id]);
    const editor = await live(annotator.token);
    // The editor opens x (no longer watched), then y: the first presence the watcher gets is y's.
    await editor.join(x.id, project.id);
    await editor.join(y.id, project.id);
    expect((await w.next((m) => m.type === 'presence', 5000, true)).image_id).toBe(y.id);
    // A second tab of the same person on y: the people did not change, nothing is sent; then the first leaves y (still there in the second tab) and x.
    const tab2 = await live(annotator.token);
    await tab2.join(y.id, project.id);
    await editor.send({ type: 'leave', image_id: y.id });
    await tab2.send({ type: 'leave', image_id: y.id });
    expect(people(await presenceOf(w, y.id, 0))).toEqual([]);
    expect(w.messages.filter((m) => m.type === 'presence')).toHaveLength(2);
    expect(await watch(w, [])).toEqual({ type: 'watching', project_id: project.id, images: [] });
    await tab2.join(y.id, project.id);
    // A sentinel through the same socket: a fresh watch answers, and no presence came before it.
    await watch(w, []);
    expect(w.messages.filter((m) => m.type === 'presence')).toHaveLength(2);
  });

  it("answers not_found for another organization's image, an unknown id, an image of another project, and to a non-member; nothing more about them", async () => {
    const mine = await newImage();
    const w = await live(owner.token);
    const unknown = '00000000-0000-4000-8000-000000000002';
    const answer = await watch(w, [foreign.id, mine.id, unknown]);
    expect(answer.images.map((i: any) => i.image_id)).toEqual([mine.id]);
    expect(w.messages.filter((m) => m.type === 'error')).toEqual([
      { type: 'error', code: 'not_found', image_id: foreign.id },
      { type: 'error', code: 'not_found', image_id: unknown },
    ]);
    // The right image under another project's id is not found either.
    expect((await watch(w, [mine.id], foreign.projectId)).images).toEqual([]);
    expect(w.messages.filter((m) => m.type === 'error' && m.image_id === mine.id)).toHaveLength(1);
    // The other organization's owner opens their image: the watcher hears nothing of it.
    const theirs = await live(stranger.token);
    await theirs.join(foreign.id, foreign.projectId);
    await watch(w, [foreign.id, mine.id]);
    expect(w.messages.filter((m) => m.image_id === foreign.id).map((m) => m.type)).toEqual(['error', 'error']);
    // A non-member watching my image: not_found.
    const s = await live(stranger.token);
    expect((await watch(s, [mine.id])).images).toEqual([]);
    expect(s.messages.filter((m) => m.type === 'error')).toEqual([{ type: 'error', code: 'not_found', image_id: mine.id }]);
  });

  it('limits: at most LIVE_MAX_JOINS_PER_SOCKET ids (the set before stays), every message validated, and the control rate', async () => {
    const x = await newImage();
    const w = await live(owner.token);
    await watch(w, [x.id]);
    const tooMany = Array.from({ length: LIVE_MAX_JOINS_PER_SOCKET + 1 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    await w.send({ type: 'watch', project_id: project.id, image_ids: tooMany });
    expect(await w.next((m) => m.type === 'error')).toMatchObject({ code: 'too_many_joins' });
    // x is still watched.
    const annotator = await joinAs(server, owner.token, owner.org.id, 'annotator');
    const editor = await live(annotator.token);
    await editor.join(x.id, project.id);
    expect(people(await presenceOf(w, x.id, 1))).toEqual([annotator.userId]);
    // Malformed: an id that is not a uuid, a missing project, an unknown field.
    for (const bad of [
      { type: 'watch', project_id: project.id, image_ids: ['nope'] },
      { type: 'watch', image_ids: [x.id] },
      { type: 'watch', project_id: project.id, image_ids: [x.id], peers: true },
    ]) {
      await w.send(bad);
      expect(await w.next((m) => m.type === 'error')).toMatchObject({ code: 'invalid_message' });
    }
    // watch counts with auth, join and leave: at most LIVE_MAX_CONTROL_MESSAGES_PER_SECOND a second.
    const r = await live(owner.token);
    for (let i = 0; i < LIVE_MAX_CONTROL_MESSAGES_PER_SECOND + 5; i++) await r.send({ type: 'watch', project_id: project.id, image_ids: [x.id] });
    // The refusal names what it refused, so the client can send it again a second later.
    expect(await r.next((m) => m.type === 'error' && m.code === 'rate_limited', 5000, true)).toEqual({ type: 'error', code: 'rate_limited', refused: 'watch', project_id: project.id, message: expect.stringContaining('watch') });
    expect((await r.next((m) => m.type === 'watching', 5000, true)).images).toHaveLength(1);
    // A join and a leave past the budget name their image (and the join its project).
    const j = await live(owner.token);
    const y = await newImage();
    for (let i = 0; i < LIVE_MAX_CONTROL_MESSAGES_PER_SECOND; i++) await j.send({ type: 'leave', image_id: x.id });
    await j.send({ type: 'join', image_id: y.id, project_id: project.id });
    await j.send({ type: 'leave', image_id: y.id });
    const refusals = async () => {
      const named = () => j.messages.filter((m) => m.code === 'rate_limited' && m.image_id === y.id);
      for (let i = 0; i < 100 && named().length < 2; i++) await sleep(20);
      return named();
    };
    expect(await refusals()).toEqual([
      { type: 'error', code: 'rate_limited', refused: 'join', image_id: y.id, project_id: project.id, message: expect.any(String) },
      { type: 'error', code: 'rate_limited', refused: 'leave', image_id: y.id, message: expect.any(String) },
    ]);
  });

  it('a watcher who loses read access (removed from the organization) is answered not_found for those images at the next check, and hears nothing more', async () => {
    const x = await newImage();
    const member = await joinAs(server, owner.token, owner.org.id, 'viewer');
    const w = await live(member.token);
    expect((await watch(w, [x.id])).images).toHaveLength(1);
    expect((await api(server.url, 'DELETE', `/api/v1/organizations/${owner.org.id}/members/${member.userId}`, { token: owner.token })).status).toBe(200);
    expect(await w.next((m) => m.type === 'error', 5000)).toEqual({ type: 'error', code: 'not_found', image_id: x.id });
    const editor = await live(owner.token);
    await editor.join(x.id, project.id);
    // The same socket answers a new watch (it was not closed), and no presence of x reached it.
    expect((await watch(w, [x.id])).images).toEqual([]);
    expect(w.messages.filter((m) => m.type === 'presence')).toEqual([]);
  });
});

describe('cursor and selection', () => {
  it('are relayed to the other sockets on the image as peer messages, not back to the sender; a viewer may send both', async () => {
    const img = await newImage();
    const viewer = await joinAs(server, owner.token, owner.org.id, 'viewer');
    const a = await live(owner.token);
    const v = await live(viewer.token);
    await a.join(img.id, project.id);
    await v.join(img.id, project.id);
    await a.send({ type: 'cursor', image_id: img.id, x: 10.5, y: 20 });
    expect(await v.next((m) => m.type === 'peer')).toEqual({ type: 'peer', image_id: img.id, user_id: owner.userId, cursor: { x: 10.5, y: 20 } });
    await v.send({ type: 'selection', image_id: img.id, ids: ['a', 'b'] });
    expect(await a.next((m) => m.type === 'peer')).toEqual({ type: 'peer', image_id: img.id, user_id: viewer.userId, selection: ['a', 'b'] });
    await sleep(100);
    expect(a.messages.filter((m) => m.type === 'peer' && m.user_id === owner.userId)).toEqual([]);
    // Not joined: dropped.
    const other = await newImage();
    await a.send({ type: 'cursor', image_id: other.id, x: 1, y: 1 });
    await sleep(100);
    expect(v.messages.filter((m) => m.image_id === other.id)).toEqual([]);
  });

  it(`relays at most ${LIVE_MAX_PEER_MESSAGES_PER_SECOND} a second per socket and drops the rest`, async () => {
    const img = await newImage();
    const a = await live(owner.token);
    const annotator = await joinAs(server, owner.token, owner.org.id, 'annotator');
    const b = await live(annotator.token);
    await a.join(img.id, project.id);
    await b.join(img.id, project.id);
    for (let i = 0; i < 60; i++) await a.send({ type: 'cursor', image_id: img.id, x: i, y: i });
    await sleep(500);
    const got = b.messages.filter((m) => m.type === 'peer');
    expect(got).toHaveLength(LIVE_MAX_PEER_MESSAGES_PER_SECOND);
    expect(got.map((m) => m.cursor.x)).toEqual([...Array(LIVE_MAX_PEER_MESSAGES_PER_SECOND).keys()]);
    expect(a.socket.readyState).toBe(a.socket.OPEN);
    await sleep(700);
    await a.send({ type: 'cursor', image_id: img.id, x: 1000, y: 0 });
    expect((await b.next((m) => m.type === 'peer')).cursor.x).toBe(1000);
  });
});

describe('overlap', () => {
  const id0 = '00000000-0000-4000-8000-000000000000';
  /** The owner (a) and a new member of `role` (b) on a new image. */
  async function twoOnImage(role: 'annotator' | 'viewer') {
    const img = await newImage();
    const member = await joinAs(server, owner.token, owner.org.id, role);
    const a = await live(owner.token);
    const b = await live(member.token);
    await a.join(img.id, project.id);
    expect(await b.join(img.id, project.id)).toMatchObject({ type: 'joined' });
    return { img, member, a, b };
  }

  it('is relayed to the image\'s other sockets as a peer message, not back to the sender; validated; only from a joined image', async () => {
    const { img, member: annotator, a, b } = await twoOnImage('annotator');
    await b.send({ type: 'overlap', image_id: img.id, ids: ['s1', 's2'] });
    expect(await a.next((m) => m.type === 'peer')).toEqual({ type: 'peer', image_id: img.id, user_id: annotator.userId, overlap: ['s1', 's2'] });
    // Refused: no ids, too many, an id too long, an unknown field.
    for (const bad of [
      { type: 'overlap', image_id: img.id, ids: [] },
      { type: 'overlap', image_id: img.id, ids: Array.from({ length: LIVE_MAX_SELECTION_IDS + 1 }, (_, i) => `s${i}`) },
      { type: 'overlap', image_id: img.id, ids: ['x'.repeat(201)] },
      { type: 'overlap', image_id: img.id, ids: ['s1'], version: 3 },
    ]) {
      await b.send(bad);
      expect(await b.next((m) => m.type === 'error')).toMatchObject({ code: 'invalid_message' });
    }
    expect(parseClientMessage(JSON.stringify({ type: 'overlap', image_id: id0, ids: ['a'] }))).toMatchObject({ ok: true });
    // Not joined to that image: dropped. The selection sent after it is the next thing a hears of b.
    const other = await newImage();
    await b.send({ type: 'overlap', image_id: other.id, ids: ['s3'] });
    await b.send({ type: 'selection', image_id: img.id, ids: ['s9'] });
    expect(await a.next((m) => m.type === 'peer')).toMatchObject({ user_id: annotator.userId, selection: ['s9'] });
    expect(a.messages.filter((m) => m.type === 'peer').map((m) => m.overlap ?? m.selection)).toEqual([['s1', 's2'], ['s9']]);
    // The sender never hears its own.
    expect(b.messages.filter((m) => m.type === 'peer')).toEqual([]);
  });

  it('a viewer\'s overlap is not relayed (they edit nothing), their selection is', async () => {
    const { img, member: viewer, a, b: v } = await twoOnImage('viewer');
    await v.send({ type: 'overlap', image_id: img.id, ids: ['s1'] });
    await v.send({ type: 'selection', image_id: img.id, ids: ['s1'] });
    expect(await a.next((m) => m.type === 'peer')).toEqual({ type: 'peer', image_id: img.id, user_id: viewer.userId, selection: ['s1'] });
    expect(a.messages.filter((m) => m.type === 'peer' && 'overlap' in m)).toEqual([]);
    expect(v.messages.filter((m) => m.type === 'error')).toEqual([]);
  });

  it(`shares the ${LIVE_MAX_PEER_MESSAGES_PER_SECOND} a second of cursors and selections; one over it is answered rate_limited and not relayed`, async () => {
    const { img, a, b } = await twoOnImage('annotator');
    for (let i = 0; i < LIVE_MAX_PEER_MESSAGES_PER_SECOND; i++) await a.send({ type: 'cursor', image_id: img.id, x: i, y: i });
    await a.send({ type: 'overlap', image_id: img.id, ids: ['late'] });
    expect(await a.next((m) => m.type === 'error')).toEqual({ type: 'error', code: 'rate_limited', refused: 'overlap', image_id: img.id, message: expect.stringContaining('overlap') });
    // Once the second is over, the next goes through, and it is the only overlap b ever got.
    await sleep(1100);
    await a.send({ type: 'overlap', image_id: img.id, ids: ['again'] });
    expect(await b.next((m) => m.type === 'peer' && 'overlap' in m)).toMatchObject({ user_id: owner.userId, overlap: ['again'] });
    const got = b.messages.filter((m) => m.type === 'peer');
    expect(got.filter((m) => 'cursor' in m)).toHaveLength(LIVE_MAX_PEER_MESSAGES_PER_SECOND);
    expect(got.filter((m) => 'overlap' in m)).toHaveLength(1);
  });
});

describe('limits', () => {
  it('closes 1009 on a message over the size limit', async () => {
    const a = await live(owner.token);
    await a.send({ type: 'selection', image_id: '00000000-0000-4000-8000-000000000000', ids: ['x'.repeat(LIVE_MAX_MESSAGE_BYTES)] });
    expect((await a.closed).code).toBe(1009);
  });

  it('closes 4429 past the sockets per user (LIVE_MAX_SOCKETS_PER_USER, 3 here); a closed one frees its place', async () => {
    const user = await joinAs(server, owner.token, owner.org.id, 'annotator');
    const open = [await live(user.token), await live(user.token), await live(user.token)];
    const fourth = raw();
    await fourth.send({ type: 'auth', token: user.token });
    expect((await fourth.closed).code).toBe(4429);
    open[0]!.close();
    await open[0]!.closed;
    await sleep(50);
    await live(user.token);
    // Sockets that authenticate at the same moment cannot pass the limit together.
    const other = await joinAs(server, owner.token, owner.org.id, 'annotator');
    const racing = [raw(), raw(), raw(), raw(), raw()];
    await Promise.all(racing.map((r) => r.send({ type: 'auth', token: other.token })));
    await sleep(1000);
    expect(racing.filter((r) => r.messages.some((m) => m.type === 'ready'))).toHaveLength(3);
    expect((await Promise.all(racing.filter((r) => !r.messages.length).map((r) => r.closed))).map((c) => c.code)).toEqual([4429, 4429]);
  });
});

describe('checks while open', () => {
  it('a revoked API key is disconnected (4401) within LIVE_RECHECK_MS', async () => {
    const key = await api(server.url, 'POST', '/api/v1/api-keys', { token: owner.token, body: { organization_id: owner.org.id, name: 'to revoke' } });
    const k = await live(key.body.key);
    expect((await api(server.url, 'DELETE', `/api/v1/api-keys/${key.body.api_key.id}`, { token: owner.token })).status).toBe(200);
    const started = Date.now();
    expect((await k.closed).code).toBe(4401);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('a member removed from the organization is disconnected (4403) from the image they were on', async () => {
    const img = await newImage();
    const member = await joinAs(server, owner.token, owner.org.id, 'annotator');
    const m = await live(member.token);
    expect(await m.join(img.id, project.id)).toMatchObject({ type: 'joined' });
    expect((await api(server.url, 'DELETE', `/api/v1/organizations/${owner.org.id}/members/${member.userId}`, { token: owner.token })).status).toBe(200);
    expect((await m.closed).code).toBe(4403);
    // And they cannot join again.
    const again = await live(member.token);
    expect(await again.join(img.id, project.id)).toEqual({ type: 'error', code: 'not_found', image_id: img.id });
  });
});

describe('gap recovery', () => {
  it('a client that missed versions loads the changes since its version; a log swept past it answers 410', async () => {
    const img = await newImage();
    const a = await live(owner.token);
    const joined = await a.join(img.id, project.id);
    expect(joined.version).toBe(0);
    a.socket.terminate(); // offline
    expect((await saveChanges(img, 0, [box('a'), box('b')])).status).toBe(200);
    expect((await saveChanges(img, 1, [box('a', 7)], ['b'])).status).toBe(200);
    // Back: join again, see the version moved past the one held, catch up through changes.
    const back = await live(owner.token);
    expect(await back.join(img.id, project.id)).toMatchObject({ version: 2 });
    const changes = await api(server.url, 'GET', `/api/v1/annotations/changes/${img.id}?since=0&project_id=${project.id}`, { token: owner.token });
    expect(changes.status).toBe(200);
    expect(changes.body).toMatchObject({ since: 0, version: 2, upserts: [box('a', 7)], removed_ids: ['b'] });
    // A changed whose base is not the version held says the same: ask for changes since the held version.
    expect((await saveChanges(img, 2, [box('c')])).status).toBe(200);
    expect(await back.changed(img.id, 3)).toMatchObject({ base_version: 2 });
    const stranger404 = await api(server.url, 'GET', `/api/v1/annotations/changes/${img.id}?since=0`, { token: stranger.token });
    expect(stranger404.status).toBe(404);
    // The log no longer reaching back: 410 history_expired, and the client loads the whole document.
    await server.built.ctx.db.execute((await import('drizzle-orm')).sql`DELETE FROM annotation_changes WHERE image_id = ${img.id} AND version = 1`);
    const gone = await api(server.url, 'GET', `/api/v1/annotations/changes/${img.id}?since=0`, { token: owner.token });
    expect(gone.status).toBe(410);
    expect(gone.body.code).toBe('history_expired');
  });
});
