// The merge against a reject at the same moment (issue 36 §3): the merge's checks (all N drafts
// submitted, the image in review) hold under its save's lock of the image row. The reject is made
// to commit exactly between the merge's first checks and its save transaction (the server's next
// transaction is held back until the reject is done): the merge is refused with the code a merge
// after a reject gets (409 consensus_pending: the reject reopened the drafts), and nothing of it is
// written. On PGlite and (DATABASE_URL) PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './harness';
import { team } from './workflow-fixture';

let server: TestServer;
let t: Awaited<ReturnType<typeof team>>;

beforeAll(async () => {
  server = await startServer();
  t = await team(server);
  expect((await t.call(t.owner, 'PATCH', `/api/v1/projects/${t.project.id}`, { classes: [{ name: 'car', type: 'box', color: '#FFADAD' }] })).status).toBe(200);
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

describe('merge and reject at once', () => {
  it('a reject that commits while the merge is on its way refuses the merge', { timeout: 60_000 }, async () => {
    const img = await t.newImage();
    expect((await t.call(t.owner, 'POST', '/api/v1/images/assign', { image_ids: [img.id], overlap: 2 })).status).toBe(200);
    for (const who of [t.annotator, t.annotator2]) expect((await t.call(who, 'POST', `/api/v1/projects/${t.project.id}/queue/next`, { role: 'annotate' })).body.image.id).toBe(img.id);
    for (const who of [t.annotator, t.annotator2]) expect((await t.call(who, 'POST', `/api/v1/images/${img.id}/submit`)).status).toBe(200);

    // The merge's save transaction starts only once a reject of the image has committed.
    const db = server.built.ctx.db;
    const transaction = db.transaction.bind(db);
    let rejected: { status: number } | undefined;
    db.transaction = (async (...args: Parameters<typeof transaction>) => {
      db.transaction = transaction;
      rejected = await t.call(t.reviewer, 'POST', `/api/v1/images/${img.id}/review`, { decision: 'reject' });
      return transaction(...args);
    }) as typeof db.transaction;
    const merged = await t.call(t.reviewer, 'POST', `/api/v1/images/${img.id}/merge`, { annotations: [{ id: 'm1', name: 'car', bounding_box: { x: 0, y: 0, w: 5, h: 5 } }] });
    db.transaction = transaction;
    expect(rejected?.status).toBe(200);
    expect(merged.status, JSON.stringify(merged.body)).toBe(409);
    expect(merged.body.code).toBe('consensus_pending');

    // Nothing of the merge: the image is back with its annotators, with no shape and no history.
    expect((await t.call(t.owner, 'GET', `/api/v1/images/${img.id}`)).body.image).toMatchObject({ status: 'annotating', annotation_count: 0 });
    expect((await t.call(t.owner, 'GET', `/api/v1/annotations/history/${img.id}`)).body.entries).toEqual([]);
    // A merge after the reject is refused the same way.
    const again = await t.call(t.reviewer, 'POST', `/api/v1/images/${img.id}/merge`, { annotations: [] });
    expect([again.status, again.body.code]).toEqual([409, 'consensus_pending']);
  });
});
