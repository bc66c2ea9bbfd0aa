// Consensus drafts on the live socket (issue 36 §3): two annotators holding drafts of one
// overlapped image, and the owner, all joined to it. What a draft holder draws is theirs alone: their
// live drafts, selections and cursors reach nobody (not the other holder, not the owner), and
// nobody's reach them; the owner's own edits still reach the owner's peers as before.
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedServer, type TestServer } from './harness';
import { closedAfterEach, LiveClient, sleep } from './support/live';
import { team } from './workflow-fixture';

let server: TestServer;
let t: Awaited<ReturnType<typeof team>>;
const sockets = closedAfterEach();

const box = (id: string, x = 1) => ({ id, name: 'car', bounding_box: { x, y: 2, w: 10, h: 10 }, attributes: [] });
const draft = (imageId: string, upserts: unknown[]) => ({ type: 'draft', image_id: imageId, base_version: 0, upserts, removed_ids: [] });

async function live(token: string): Promise<LiveClient> {
  const client = await LiveClient.ready(server, token);
  sockets.push(client);
  return client;
}

beforeAll(async () => {
  server = await sharedServer();
  t = await team(server);
  expect((await t.call(t.owner, 'PATCH', `/api/v1/projects/${t.project.id}`, { classes: [{ name: 'car', type: 'box', color: '#FFADAD' }] })).status).toBe(200);
}, 120_000);

describe('consensus drafts on the live socket', () => {
  it('a draft holder\'s live drafts, selections and cursor reach nobody, and nobody\'s reach them', async () => {
    const img = await t.newImage();
    expect((await t.call(t.owner, 'POST', '/api/v1/images/assign', { image_ids: [img.id], overlap: 2 })).status).toBe(200);
    for (const who of [t.annotator, t.annotator2]) {
      const next = await t.call(who, 'POST', `/api/v1/projects/${t.project.id}/queue/next`, { role: 'annotate' });
      expect(next.body.image.id).toBe(img.id);
    }
    const [ann, bea, owner, admin] = await Promise.all([live(t.annotator.token), live(t.annotator2.token), live(t.owner.token), live(t.admin.token)]);
    for (const s of [ann, bea, owner, admin]) expect(await s.join(img.id, t.project.id)).toMatchObject({ type: 'joined' });

    await ann.send(draft(img.id, [box('ann-secret', 3)]));
    await ann.send({ type: 'selection', image_id: img.id, ids: ['ann-secret'] });
    await ann.send({ type: 'cursor', image_id: img.id, x: 5, y: 5 });
    await bea.send(draft(img.id, [box('bea-secret', 4)]));
    // The owner's edits still go to the owner's peers who hold no draft (the admin)...
    await owner.send(draft(img.id, [box('owner-edit', 6)]));
    await owner.send({ type: 'selection', image_id: img.id, ids: ['owner-edit'] });
    expect(await admin.next((m) => m.type === 'draft', 15_000, true)).toMatchObject({ user_id: t.owner.userId, upserts: [box('owner-edit', 6)] });
    await admin.next((m) => m.type === 'peer' && 'selection' in m, 15_000, true);
    await sleep(300);
    // ...and nothing of the holders went anywhere, nor anything of the others to them.
    const relayed = (s: LiveClient) => s.messages.filter((m) => m.type === 'draft' || (m.type === 'peer' && ('selection' in m || 'cursor' in m)));
    expect(relayed(ann)).toEqual([]);
    expect(relayed(bea)).toEqual([]);
    for (const s of [owner, admin]) expect(JSON.stringify(relayed(s))).not.toMatch(/secret|"x":5/);
    expect(relayed(owner)).toEqual([]);
  });
});
