// Issue 30, the live socket's limits (each test failed before its fix):
// - finding 11: malformed messages were never rate-limited (2,000 x 60 KB of bad JSON cost about
//   0.8 s of event loop); they now count against the socket's control rate, and a socket that keeps
//   sending them is closed (1008) instead of being answered each time;
// - an API key counted as its own user for LIVE_MAX_SOCKETS_PER_USER: its sockets now count
//   against the person who created it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, startServer, type TestServer } from './harness';
import { joinAs } from './team-harness';
import { closedAfterEach, LiveClient, sleep } from './support/live';
import { LIVE_MAX_CONTROL_MESSAGES_PER_SECOND, LIVE_MAX_MESSAGE_BYTES } from '../../src/contract/live';

let server: TestServer;
let owner: Awaited<ReturnType<typeof onboardedUser>>;
// Each test's sockets are closed after it (the owner would otherwise pass LIVE_MAX_SOCKETS_PER_USER).
const sockets = closedAfterEach();

async function live(token: string): Promise<LiveClient> {
  const client = await LiveClient.ready(server, token);
  sockets.push(client);
  return client;
}
/** How a socket's auth ended: 'ready', or the close code. */
async function authOutcome(client: LiveClient, token: string): Promise<'ready' | number> {
  await client.send({ type: 'auth', token });
  return Promise.race([client.next((m) => m.type === 'ready', 10_000).then(() => 'ready' as const), client.closed.then((c) => c.code)]);
}
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await sleep(10);
}
function raw(): LiveClient {
  const client = new LiveClient(server);
  sockets.push(client);
  return client;
}

beforeAll(async () => {
  server = await startServer({ LIVE_MAX_SOCKETS_PER_USER: '3' });
  owner = await onboardedUser(server);
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

describe('malformed messages (finding 11)', () => {
  it('count against the socket rate: a socket sending 300 x 60 KB of bad JSON is closed 1008 after a few answers', async () => {
    const a = await live(owner.token);
    const junk = `{${'x'.repeat(LIVE_MAX_MESSAGE_BYTES - 4 * 1024)}`;
    for (let i = 0; i < 300; i++) a.socket.send(junk);
    const closed = await a.closed;
    expect(closed.code).toBe(1008);
    expect(closed.reason).toMatch(/malformed/i);
    const answered = a.messages.filter((m) => m.type === 'error' && m.code === 'invalid_message');
    expect(answered.length).toBeGreaterThan(0);
    expect(answered.length).toBeLessThanOrEqual(LIVE_MAX_CONTROL_MESSAGES_PER_SECOND);
    // The server is fine: another socket of the same user works.
    const b = await live(owner.token);
    await b.send({ type: 'watch', project_id: '00000000-0000-4000-8000-000000000000', image_ids: [] });
    expect(await b.next((m) => m.type === 'watching')).toMatchObject({ type: 'watching', images: [] });
  });

  it('a few malformed messages are answered invalid_message and the socket stays open', async () => {
    const a = await live(owner.token);
    for (let i = 0; i < 3; i++) await a.send('{not json');
    const answered = () => a.messages.filter((m) => m.type === 'error' && m.code === 'invalid_message').length;
    await until(() => answered() === 3);
    expect(answered()).toBe(3);
    await a.send({ type: 'watch', project_id: '00000000-0000-4000-8000-000000000000', image_ids: [] });
    expect(await a.next((m) => m.type === 'watching')).toMatchObject({ images: [] });
    expect(a.socket.readyState).toBe(a.socket.OPEN);
  });
});

describe('API keys share their owner socket cap', () => {
  it('the creator with 2 sockets gets one more through a key; the next key socket closes 4429; a freed place lets it in', async () => {
    const member = await joinAs(server, owner.token, owner.org.id, 'admin');
    const key = await api(server.url, 'POST', '/api/v1/api-keys', { token: member.token, body: { organization_id: owner.org.id, name: 'live cap' } });
    expect(key.status).toBe(200);
    const mine = [await live(member.token), await live(member.token)];
    await live(key.body.key);
    expect(await authOutcome(raw(), key.body.key)).toBe(4429);
    // And the other way round: a session socket past the cap the key shares.
    expect(await authOutcome(raw(), member.token)).toBe(4429);
    mine[0]!.close();
    await mine[0]!.closed;
    await sleep(50);
    await live(key.body.key);
    // Another person's sockets are theirs alone.
    await live(owner.token);
  });
});
