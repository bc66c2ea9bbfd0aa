// Consensus draft holders are nobody's peer (issue 36 §3: each annotator works "without seeing the
// others"). Two annotators holding drafts of one overlapped image, the owner and the admin join it,
// and the reviewer watches it as the Data tab's tiles do: neither holder is in anyone's `joined`,
// `presence` or `watching` people (not the other holder's either), while the owner and the admin
// see each other. Once both handed in and the image is in review, the periodic re-check finds they
// hold no layer any more and the owner is told they are there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './harness';
import { closedAfterEach, LiveClient, sleep } from './support/live';
import { team } from './workflow-fixture';
import type { LivePeer } from '../../src/contract/live';

let server: TestServer;
let t: Awaited<ReturnType<typeof team>>;
const sockets = closedAfterEach();

async function live(token: string): Promise<LiveClient> {
  const client = await LiveClient.ready(server, token);
  sockets.push(client);
  return client;
}

beforeAll(async () => {
  server = await startServer({ LIVE_RECHECK_MS: '500' });
  t = await team(server);
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

describe('presence on an overlapped image', () => {
  it('lists no draft holder to anyone, on the image or on its tile, until the drafts are handed in', { timeout: 60_000 }, async () => {
    const img = await t.newImage();
    expect((await t.call(t.owner, 'POST', '/api/v1/images/assign', { image_ids: [img.id], overlap: 2 })).status).toBe(200);
    for (const who of [t.annotator, t.annotator2]) expect((await t.call(who, 'POST', `/api/v1/projects/${t.project.id}/queue/next`, { role: 'annotate' })).body.image.id).toBe(img.id);
    const holders = [t.annotator.userId, t.annotator2.userId];

    const watcher = await live(t.reviewer.token);
    await watcher.send({ type: 'watch', project_id: t.project.id, image_ids: [img.id] });
    await watcher.next((m) => m.type === 'watching');
    const [ann, bea] = await Promise.all([live(t.annotator.token), live(t.annotator2.token)]);
    expect(await ann.join(img.id, t.project.id)).toMatchObject({ type: 'joined' });
    expect(await bea.join(img.id, t.project.id)).toMatchObject({ type: 'joined' });
    const owner = await live(t.owner.token);
    expect(await owner.join(img.id, t.project.id)).toMatchObject({ type: 'joined' });
    const admin = await live(t.admin.token);
    expect(await admin.join(img.id, t.project.id)).toMatchObject({ type: 'joined' });
    // The admin's arrival reaches the owner, the holders and the tile: the lists have gone out.
    const ids = (m: { peers?: LivePeer[]; images?: { peers: LivePeer[] }[] }) => (m.peers ?? m.images?.[0]?.peers ?? []).map((p) => p.user_id).sort();
    const withAdmin = (m: { type: string; peers?: LivePeer[] }) => m.type === 'presence' && (m.peers ?? []).some((p) => p.user_id === t.admin.userId);
    expect(ids((await owner.next(withAdmin, 15_000, true)) as never)).toEqual([t.owner.userId, t.admin.userId].sort());
    await ann.next(withAdmin, 15_000, true);
    await watcher.next(withAdmin, 15_000, true);
    await sleep(300);

    for (const s of [ann, bea, owner, admin, watcher]) {
      const lists = s.messages.filter((m) => m.type === 'joined' || m.type === 'presence' || m.type === 'watching');
      expect(lists.length).toBeGreaterThan(0);
      for (const m of lists) expect(ids(m as never).filter((id) => holders.includes(id))).toEqual([]);
      expect(JSON.stringify(lists)).not.toMatch(/Ann Otator|Bea Second/);
    }

    // Both hand in: the image is in review, they hold no layer; the re-check shows them.
    for (const who of [t.annotator, t.annotator2]) expect((await t.call(who, 'POST', `/api/v1/images/${img.id}/submit`)).status).toBe(200);
    const withHolders = (m: { type: string; peers?: LivePeer[] }) => m.type === 'presence' && holders.every((id) => (m.peers ?? []).some((p) => p.user_id === id));
    expect(ids((await owner.next(withHolders)) as never)).toEqual([t.owner.userId, t.admin.userId, ...holders].sort());
  });
});
