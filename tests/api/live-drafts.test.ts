// Drafts on the live socket (issue 35 §1): an edit not saved yet goes to the image's other people at
// once, from its author, as a `draft`; the author's save then confirms it with `changed`. Nothing
// of a draft is stored: it is in no load, change log, history or export. Only someone who may edit
// sends one, only to an image they joined; other organizations and watchers never hear it; a
// draft's author leaving is told as presence (the peers then drop it); drafts have a rate of their own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { anotherProcessOf, api, onboardedUser, startServer, type TestServer } from './harness';
import { joinAs } from './team-harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';
import { closedAfterEach, LiveClient, sleep } from './support/live';
import { LIVE_MAX_DRAFTS_PER_SECOND, LIVE_MAX_PEER_MESSAGES_PER_SECOND } from '../../src/contract/live';

let server: TestServer;
let owner: Awaited<ReturnType<typeof onboardedUser>>;
let stranger: Member;
let project: { id: string };
// Each test's sockets are closed after it (the owner would otherwise pass LIVE_MAX_SOCKETS_PER_USER).
const sockets = closedAfterEach();

const CLASSES = [{ name: 'car', type: 'box', color: '#FFADAD' }];
const box = (id: string, x = 1) => ({ id, name: 'car', bounding_box: { x, y: 2, w: 30, h: 40 }, attributes: [] });

async function live(token: string): Promise<LiveClient> {
  const client = await LiveClient.ready(server, token);
  sockets.push(client);
  return client;
}
let counter = 0;
async function newImage() {
  counter += 1;
  return uploadImage(server, owner, project.id, `draft${counter}.png`, await png(40, 30));
}
const saveChanges = (img: { id: string; filename: string }, base: number, upserts: unknown[], token = owner.token) =>
  api(server.url, 'POST', '/api/v1/annotations/save-changes', { token, body: { image_id: img.id, project_id: project.id, image_filename: img.filename, base_version: base, upserts, removed_ids: [] } });
const draft = (imageId: string, upserts: unknown[], removed: string[] = [], base = 0) => ({ type: 'draft', image_id: imageId, base_version: base, upserts, removed_ids: removed });

/** The owner (a) and a new member of `role` (b), both joined to a new image. */
async function twoOnImage(role: 'annotator' | 'viewer' = 'annotator') {
  const img = await newImage();
  const member = await joinAs(server, owner.token, owner.org.id, role);
  const a = await live(owner.token);
  const b = await live(member.token);
  await a.join(img.id, project.id);
  expect(await b.join(img.id, project.id)).toMatchObject({ type: 'joined' });
  return { img, member, a, b };
}

beforeAll(async () => {
  server = await startServer({ LIVE_PING_MS: '200', LIVE_RECHECK_MS: '300' });
  owner = await onboardedUser(server);
  stranger = await onboardedUser(server);
  project = await createProject(server, owner);
  expect((await api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { classes: CLASSES } })).status).toBe(200);
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

describe('drafts', () => {
  it('a peer gets the draft at once, from its author, then the save confirms it as changed; the author never hears its own', async () => {
    const { img, a, b } = await twoOnImage();
    await a.send(draft(img.id, [box('d1', 5)]));
    expect(await b.next((m) => m.type === 'draft')).toEqual({ type: 'draft', image_id: img.id, user_id: owner.userId, base_version: 0, upserts: [box('d1', 5)], removed_ids: [] });
    // Nothing was saved by the draft: the image is still at version 0.
    const loaded = await api(server.url, 'GET', `/api/v1/annotations/load-data/${img.id}?project_id=${project.id}`, { token: owner.token });
    expect(loaded.body).toMatchObject({ version: 0, annotations: [] });
    expect((await saveChanges(img, 0, [box('d1', 5)])).status).toBe(200);
    expect(await b.changed(img.id, 1)).toMatchObject({ by: owner.userId, upserts: [box('d1', 5)] });
    expect(a.messages.filter((m) => m.type === 'draft')).toEqual([]);
  });

  it('is refused when malformed, relayed only for an image the sender joined, and never from a viewer', async () => {
    const { img, a, b } = await twoOnImage('viewer');
    await b.send(draft(img.id, [box('v1')]));
    await b.send(draft(img.id, [])); // an empty draft
    expect(await b.next((m) => m.type === 'error')).toMatchObject({ code: 'invalid_message' });
    await b.send(draft(img.id, [{ id: 'x', name: 'car' }])); // no shape
    expect(await b.next((m) => m.type === 'error')).toMatchObject({ code: 'invalid_message' });
    const other = await newImage();
    await a.send(draft(other.id, [box('elsewhere')])); // not joined to it
    await b.send({ type: 'selection', image_id: img.id, ids: ['v1'] });
    // The viewer's selection is the next thing a hears: the viewer's draft was ignored.
    await a.next((m) => m.type === 'peer' && 'selection' in m);
    expect(a.messages.filter((m) => m.type === 'draft')).toEqual([]);
    expect(b.messages.filter((m) => m.type === 'draft')).toEqual([]);
  });

  it('never reaches another organization, another image\'s sockets or a watcher', async () => {
    const { img, a, b } = await twoOnImage();
    const outsider = await live(stranger.token);
    expect(await outsider.join(img.id, project.id)).toEqual({ type: 'error', code: 'not_found', image_id: img.id });
    const elsewhere = await live(owner.token);
    await elsewhere.join((await newImage()).id, project.id);
    const watcher = await live(owner.token);
    await watcher.send({ type: 'watch', project_id: project.id, image_ids: [img.id] });
    await watcher.next((m) => m.type === 'watching');
    await a.send(draft(img.id, [box('secret')]));
    await b.next((m) => m.type === 'draft');
    // A message after the draft reaches every socket, so each would have had the draft before it.
    expect((await saveChanges(img, 0, [box('other')])).status).toBe(200);
    await b.changed(img.id, 1);
    await sleep(200);
    for (const s of [outsider, elsewhere, watcher]) expect(s.messages.filter((m) => m.type === 'draft' || JSON.stringify(m).includes('secret'))).toEqual([]);
  });

  it('never reaches the load, the change log, the history or an export', async () => {
    const { img, a, b } = await twoOnImage();
    expect((await saveChanges(img, 0, [box('kept')])).status).toBe(200);
    await a.send(draft(img.id, [box('unsaved-draft', 9), box('kept', 20)], [], 1));
    await b.next((m) => m.type === 'draft');
    const token = owner.token;
    const answers = [
      await api(server.url, 'GET', `/api/v1/annotations/load-data/${img.id}?project_id=${project.id}`, { token }),
      await api(server.url, 'GET', `/api/v1/annotations/changes/${img.id}?since=0`, { token }),
      await api(server.url, 'GET', `/api/v1/annotations/history/${img.id}`, { token }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(JSON.stringify(res.body)).not.toContain('unsaved-draft');
    }
    expect(answers[0]!.body.annotations).toEqual([box('kept')]); // not the draft's x 20
    const res = await fetch(`${server.url}/api/v1/annotations/export`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: project.id, scope: 'all', format: 'vellum' }),
    });
    expect(res.status).toBe(200);
    const zip = await JSZip.loadAsync(Buffer.from(await res.arrayBuffer()));
    const doc = JSON.parse(await zip.file(`annotations/${img.filename}.json`)!.async('string'));
    expect(doc.annotations.map((x: { id: string; bounding_box: { x: number } }) => [x.id, x.bounding_box.x])).toEqual([['kept', 1]]);
  });

  it('its author going away (the socket dropped) is told to the peers as presence without them, and no change follows', async () => {
    const { img, member, a, b } = await twoOnImage();
    await b.send(draft(img.id, [box('gone')]));
    await a.next((m) => m.type === 'draft');
    b.socket.terminate();
    const presence = await a.next((m) => m.type === 'presence' && m.image_id === img.id);
    expect(presence.peers.map((p: { user_id: string }) => p.user_id)).toEqual([owner.userId]);
    expect(presence.peers.some((p: { user_id: string }) => p.user_id === member.userId)).toBe(false);
    expect(a.messages.filter((m) => m.type === 'changed')).toEqual([]);
  });

  it(`has a budget of its own: ${LIVE_MAX_DRAFTS_PER_SECOND} a second, the next answered rate_limited and not relayed; cursors keep theirs`, async () => {
    const { img, a, b } = await twoOnImage();
    for (let i = 0; i < LIVE_MAX_DRAFTS_PER_SECOND; i++) await a.send(draft(img.id, [box('drag', i)]));
    await a.send(draft(img.id, [box('drag', 999)]));
    expect(await a.next((m) => m.type === 'error')).toEqual({ type: 'error', code: 'rate_limited', refused: 'draft', image_id: img.id, message: expect.stringContaining('drafts') });
    for (let i = 0; i < LIVE_MAX_PEER_MESSAGES_PER_SECOND; i++) await a.send({ type: 'cursor', image_id: img.id, x: i, y: i });
    await b.next((m) => m.type === 'peer' && m.cursor?.x === LIVE_MAX_PEER_MESSAGES_PER_SECOND - 1);
    const drafts = b.messages.filter((m) => m.type === 'draft');
    expect(drafts).toHaveLength(LIVE_MAX_DRAFTS_PER_SECOND);
    expect(drafts.map((m) => m.upserts[0].bounding_box.x)).not.toContain(999);
    // Once the second is over, drafts go through again.
    await sleep(1100);
    await a.send(draft(img.id, [box('drag', 1000)]));
    expect(await b.next((m) => m.type === 'draft')).toMatchObject({ upserts: [box('drag', 1000)] });
  });
});

// .ci/run's PostgreSQL stage: a draft sent to one process reaches a peer on another (through
// vellum_live_peers, as cursors do); skipped on PGlite, which has one process.
describe.skipIf(!process.env.DATABASE_URL)('drafts across two server processes on one PostgreSQL', () => {
  const secret = 'live-drafts-two-process-secret-0123456789abcdef';
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startServer({ SUPABASE_JWT_SECRET: secret });
    b = await anotherProcessOf(a, { SUPABASE_JWT_SECRET: secret });
  }, 120_000);
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  it('a draft on one process reaches the peer on the other', async () => {
    const me = await onboardedUser(a);
    const proj = await createProject(a, me);
    expect((await api(a.url, 'PATCH', `/api/v1/projects/${proj.id}`, { token: me.token, body: { classes: CLASSES } })).status).toBe(200);
    const img = await uploadImage(a, me, proj.id, 'two.png', await png(20, 20));
    const peer = await joinAs(a, me.token, me.org.id, 'annotator');
    const onA = await LiveClient.ready(a, me.token);
    const onB = await LiveClient.ready(b, peer.token);
    sockets.push(onA, onB);
    await onA.join(img.id, proj.id);
    await onB.join(img.id, proj.id);
    // B's process knows A's people once A's process announced them (one beat at most).
    await onA.next((m) => m.type === 'presence' && m.peers.length === 2, 15_000, true);
    await onA.send(draft(img.id, [box('across', 3)]));
    expect(await onB.next((m) => m.type === 'draft')).toEqual({ type: 'draft', image_id: img.id, user_id: me.userId, base_version: 0, upserts: [box('across', 3)], removed_ids: [] });
  });
});
