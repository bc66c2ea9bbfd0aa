// The live socket's project watch (issue 30, the Data tab's grid and counts): `watch_project`
// answers `watching_project` to a member who may read the project's images and `not_found` to
// anyone else; an import that ends (done or failed, whoever ran it) sends `project_changed` to the
// project's watchers only; bursts come coalesced (LIVE_PROJECT_CHANGED_MIN_MS); `null` ends the
// watch; a member removed from the organization stops hearing at the re-check.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { anotherProcessOf, api, onboardedUser, startServer, type TestServer } from './harness';
import { joinAs } from './team-harness';
import { createProject, png, type Member } from '../fixtures/datasets';
import { importFile } from './support/imports';
import { LiveClient, sleep } from './support/live';
import { notifyProjectChanged } from '../../src/server/live/notify';
import { LIVE_PROJECT_CHANGED_MIN_MS } from '../../src/contract/live';

let server: TestServer;
let owner: Member;
let stranger: Member;
let project: { id: string };
let theirs: { id: string };
const sockets: LiveClient[] = [];

async function watching(token: string, projectId: string | null): Promise<LiveClient> {
  const client = await LiveClient.ready(server, token);
  sockets.push(client);
  await client.send({ type: 'watch_project', project_id: projectId });
  await client.next((m) => m.type === 'watching_project' || (m.type === 'error' && m.project_id === projectId), 5000, true);
  return client;
}
const changedOf = (c: LiveClient, projectId: string) => c.messages.filter((m) => m.type === 'project_changed' && m.project_id === projectId);

async function cocoZip(names: string[]): Promise<Buffer> {
  const zip = new JSZip();
  zip.file('annotations.json', JSON.stringify({ images: names.map((file_name, i) => ({ id: i + 1, file_name, width: 8, height: 6 })), categories: [{ id: 1, name: 'car' }], annotations: [] }));
  for (const n of names) zip.file(`images/${n}`, await png(8, 6));
  return zip.generateAsync({ type: 'nodebuffer' });
}

beforeAll(async () => {
  server = await startServer({ LIVE_RECHECK_MS: '300' });
  owner = await onboardedUser(server);
  stranger = await onboardedUser(server);
  project = await createProject(server, owner);
  expect((await api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { classes: [{ name: 'car', type: 'box', color: '#FFADAD' }] } })).status).toBe(200);
  theirs = await createProject(server, stranger);
}, 120_000);
afterEach(async () => {
  const open = sockets.splice(0);
  for (const s of open) s.socket.terminate();
  await Promise.all(open.map((s) => s.closed));
});
afterAll(async () => {
  await server?.stop();
});

describe('watch_project', () => {
  it("answers members, and not_found for another organization's project", async () => {
    const viewer = await joinAs(server, owner.token, owner.org.id, 'viewer');
    const mine = await watching(viewer.token, project.id);
    expect(mine.messages.at(-1)).toEqual({ type: 'watching_project', project_id: project.id });
    const other = await watching(stranger.token, project.id);
    expect(other.messages.at(-1)).toEqual({ type: 'error', code: 'not_found', project_id: project.id });
    const none = await watching(owner.token, '00000000-0000-4000-8000-000000000000');
    expect(none.messages.at(-1)).toMatchObject({ type: 'error', code: 'not_found' });
  });

  it("tells the project's watchers when an import by another member ends, and nobody else", async () => {
    const annotator = await joinAs(server, owner.token, owner.org.id, 'annotator');
    const ownerTab = await watching(owner.token, project.id);
    const strangerTab = await watching(stranger.token, theirs.id);
    const job = await importFile(server, annotator.token, project.id, 'frames.zip', await cocoZip(['f1.png', 'f2.png']));
    expect(job.status, job.error).toBe('done');
    expect(job.report.images_created).toBe(2);
    expect(await ownerTab.next((m) => m.type === 'project_changed', 5000, true)).toEqual({ type: 'project_changed', project_id: project.id, reason: 'import_finished' });
    // What the Data tab reloads then: the list holds the imported images.
    const list = await api(server.url, 'GET', `/api/v1/projects/${project.id}/images?limit=50`, { token: owner.token });
    expect(list.body.images.map((i: { filename: string }) => i.filename)).toEqual(expect.arrayContaining(['f1.png', 'f2.png']));
    await sleep(200);
    expect(strangerTab.messages.filter((m) => m.type === 'project_changed')).toEqual([]);
  });

  it('tells them when an import fails too (what it added stays)', async () => {
    const tab = await watching(owner.token, project.id);
    const job = await importFile(server, owner.token, project.id, 'broken.json', Buffer.from('{"images": ['));
    expect(job.status).toBe('failed');
    expect(await tab.next((m) => m.type === 'project_changed', 5000, true)).toMatchObject({ project_id: project.id, reason: 'import_finished' });
  });

  it('coalesces a burst: one message now, one for the rest after the quiet time', async () => {
    const tab = await watching(owner.token, project.id);
    await sleep(LIVE_PROJECT_CHANGED_MIN_MS * 1.2); // past any quiet time left by the test before
    for (let i = 0; i < 5; i++) await notifyProjectChanged(server.built.ctx, project.id);
    await tab.next((m) => m.type === 'project_changed', 5000, true);
    await tab.next((m) => m.type === 'project_changed' && changedOf(tab, project.id).length >= 2, 5000, true);
    await sleep(LIVE_PROJECT_CHANGED_MIN_MS * 1.5);
    expect(changedOf(tab, project.id)).toHaveLength(2);
  });

  it('ends with null, and hears nothing after', async () => {
    const tab = await watching(owner.token, project.id);
    await tab.send({ type: 'watch_project', project_id: null });
    await tab.next((m) => m.type === 'watching_project' && m.project_id === null);
    await sleep(LIVE_PROJECT_CHANGED_MIN_MS * 1.2); // past any quiet time left by the test before
    await notifyProjectChanged(server.built.ctx, project.id);
    await sleep(300);
    expect(changedOf(tab, project.id)).toEqual([]);
  });

  it('a member removed from the organization is told not_found at the re-check and hears no more', async () => {
    const member = await joinAs(server, owner.token, owner.org.id, 'annotator');
    const tab = await watching(member.token, project.id);
    expect((await api(server.url, 'DELETE', `/api/v1/organizations/${owner.org.id}/members/${member.userId}`, { token: owner.token })).status).toBe(200);
    await tab.next((m) => m.type === 'error' && m.code === 'not_found' && m.project_id === project.id, 5000);
    await sleep(LIVE_PROJECT_CHANGED_MIN_MS * 1.2);
    await notifyProjectChanged(server.built.ctx, project.id);
    await sleep(300);
    expect(changedOf(tab, project.id)).toEqual([]);
  });
});

describe.skipIf(!process.env.DATABASE_URL)('across two server processes on one PostgreSQL', () => {
  const secret = 'live-project-two-process-secret-0123456789abcdef';
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

  it('an import that ends on either process reaches a watcher on the other', async () => {
    const user = await onboardedUser(a);
    const p = await createProject(a, user);
    expect((await api(a.url, 'PATCH', `/api/v1/projects/${p.id}`, { token: user.token, body: { classes: [{ name: 'car', type: 'box', color: '#FFADAD' }] } })).status).toBe(200);
    const onB = await LiveClient.ready(b, user.token);
    sockets.push(onB);
    await onB.send({ type: 'watch_project', project_id: p.id });
    await onB.next((m) => m.type === 'watching_project');
    const job = await importFile(a, user.token, p.id, 'two.zip', await cocoZip(['t1.png']));
    expect(job.status, job.error).toBe('done');
    expect(await onB.next((m) => m.type === 'project_changed', 5000, true)).toEqual({ type: 'project_changed', project_id: p.id, reason: 'import_finished' });
  });
});
