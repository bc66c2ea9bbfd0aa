// People on the same image see new issues and comments at once (issue 29): every socket joined to
// the image is told `{type: 'issues', image_id}` when an issue is opened (also by a reject with a
// comment), commented on, resolved or reopened; sockets on other images are not. On PostgreSQL a
// socket on another server process is told too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anotherProcessOf, api, startServer, type TestServer } from './harness';
import { LiveClient } from './support/live';
import { team } from './workflow-fixture';

const onPostgres = Boolean(process.env.DATABASE_URL);
const secret = 'workflow-live-test-secret-0123456789abcdef';
let server: TestServer;
let second: TestServer | null = null;
let t: Awaited<ReturnType<typeof team>>;
const sockets: LiveClient[] = [];

beforeAll(async () => {
  server = await startServer({ SUPABASE_JWT_SECRET: secret });
  if (onPostgres) second = await anotherProcessOf(server, { SUPABASE_JWT_SECRET: secret });
  t = await team(server);
}, 120_000);
afterAll(async () => {
  for (const s of sockets) s.socket.terminate();
  await second?.stop();
  await server?.stop();
});

async function on(image: { id: string }, token: string, at: TestServer = server): Promise<LiveClient> {
  const client = await LiveClient.ready(at, token);
  sockets.push(client);
  expect((await client.join(image.id, t.project.id)).type).toBe('joined');
  return client;
}
/** The next `issues` notice of the image; with `past`, one already received counts (PGlite may deliver it before the HTTP answer). */
const told = (client: LiveClient, imageId: string, past = false) => client.next((m) => m.type === 'issues' && m.image_id === imageId, 5000, past);

describe('issues on the live socket', () => {
  it('tells everyone on the image when an issue is opened, commented on and resolved, and nobody elsewhere', async () => {
    const img = await t.newImage();
    const elsewhere = await t.newImage();
    const annotator = await on(img, t.annotator.token);
    const reviewer = await on(img, t.reviewer.token);
    const away = await on(elsewhere, t.annotator2.token);

    const opened = Promise.all([told(annotator, img.id), told(reviewer, img.id)]);
    const issue = await t.call(t.reviewer, 'POST', `/api/v1/images/${img.id}/issues`, { body: 'The box is loose', region: { x: 2, y: 2, w: 10, h: 10 } });
    expect(issue.status).toBe(201);
    expect(await opened).toEqual([{ type: 'issues', image_id: img.id }, { type: 'issues', image_id: img.id }]);

    const commented = told(reviewer, img.id);
    await t.call(t.annotator, 'POST', `/api/v1/issues/${issue.body.issue.id}/comments`, { body: 'Tightened' });
    await commented;
    // What the notice points at: the issue with the new comment, as GET issues answers it.
    const listed = await api(server.url, 'GET', `/api/v1/images/${img.id}/issues`, { token: t.reviewer.token });
    expect(listed.body.issues[0].comments.map((c: { body: string }) => c.body)).toEqual(['The box is loose', 'Tightened']);

    const resolved = told(annotator, img.id);
    await t.call(t.annotator, 'PATCH', `/api/v1/issues/${issue.body.issue.id}`, { status: 'resolved' });
    await resolved;

    // A reject with a comment opens an issue too.
    await t.call(t.owner, 'PATCH', `/api/v1/images/${img.id}/status`, { status: 'review' });
    const rejected = told(annotator, img.id);
    await t.call(t.reviewer, 'POST', `/api/v1/images/${img.id}/review`, { decision: 'reject', comment: 'One more car' });
    await rejected;

    // The socket on the other image was told nothing (its own image's notice still arrives after).
    await t.call(t.reviewer, 'POST', `/api/v1/images/${elsewhere.id}/issues`, { body: 'Here' });
    await told(away, elsewhere.id, true);
    expect(away.messages.filter((m) => m.type === 'issues').map((m) => m.image_id)).toEqual([elsewhere.id]);
  });

  it('a refused change tells nobody', async () => {
    const img = await t.newImage();
    const annotator = await on(img, t.annotator.token);
    expect((await t.call(t.viewer, 'POST', `/api/v1/images/${img.id}/issues`, { body: 'no' })).status).toBe(403);
    expect((await t.call(t.reviewer, 'POST', `/api/v1/images/${img.id}/issues`, { body: 'no', region: { x: 100, y: 0 } })).status).toBe(400);
    // A later accepted change is the first notice the socket gets.
    await t.call(t.reviewer, 'POST', `/api/v1/images/${img.id}/issues`, { body: 'yes' });
    await told(annotator, img.id, true);
    // Notices arrive in commit order: a refused change's would have come before this one.
    expect(annotator.messages.filter((m) => m.type === 'issues')).toHaveLength(1);
  });

  it.skipIf(!onPostgres)('reaches a socket on another server process (PostgreSQL)', async () => {
    const img = await t.newImage();
    const there = await on(img, t.annotator.token, second!);
    const notice = told(there, img.id);
    expect((await t.call(t.reviewer, 'POST', `/api/v1/images/${img.id}/issues`, { body: 'Across processes' })).status).toBe(201);
    await notice;
  });
});
