// Assignments follow membership (issue 29): a member who leaves, is removed, or whose new role may
// no longer do the work stops holding those images, and the image's activity says who changed it.
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedServer, type TestServer } from './harness';
import { team } from './workflow-fixture';

let server: TestServer;
let t: Awaited<ReturnType<typeof team>>;

beforeAll(async () => {
  server = await sharedServer();
  t = await team(server);
}, 120_000);

const imageOf = async (id: string) => (await t.call(t.owner, 'GET', `/api/v1/images/${id}`)).body.image as { assignee_id: string | null; reviewer_id: string | null };
const assign = async (ids: string[], body: Record<string, unknown>) => {
  const res = await t.call(t.owner, 'POST', '/api/v1/images/assign', { image_ids: ids, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};
const setRole = async (userId: string, role: string) => {
  const res = await t.call(t.owner, 'PATCH', `/api/v1/organizations/${t.owner.org.id}/members/${userId}`, { role });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};

describe('assignments follow membership', () => {
  it('a removed member holds no image any more; the activity names who removed them', async () => {
    const img = await t.newImage();
    await assign([img.id], { assignee_id: t.annotator2.userId });
    const res = await t.call(t.owner, 'DELETE', `/api/v1/organizations/${t.owner.org.id}/members/${t.annotator2.userId}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await imageOf(img.id)).toMatchObject({ assignee_id: null });
    const mine = await t.call(t.owner, 'GET', `/api/v1/projects/${t.project.id}/images?assignee=${t.annotator2.userId}`);
    expect(mine.body.images).toEqual([]);
    const activity = await t.call(t.owner, 'GET', `/api/v1/images/${img.id}/activity`);
    expect(activity.body.events[0]).toMatchObject({ type: 'assign', by: { id: t.owner.userId }, from: t.annotator2.userId, to: null });
  });

  it('a reviewer made annotator keeps the images they annotate and loses those they review', async () => {
    const img = await t.newImage();
    await assign([img.id], { assignee_id: t.reviewer.userId, reviewer_id: t.reviewer.userId });
    await setRole(t.reviewer.userId, 'annotator');
    expect(await imageOf(img.id)).toMatchObject({ assignee_id: t.reviewer.userId, reviewer_id: null });
  });

  it('a member made viewer loses every assignment; a role that still allows the work keeps them', async () => {
    const kept = await t.newImage();
    await assign([kept.id], { assignee_id: t.admin.userId, reviewer_id: t.admin.userId });
    await setRole(t.admin.userId, 'reviewer');
    expect(await imageOf(kept.id)).toMatchObject({ assignee_id: t.admin.userId, reviewer_id: t.admin.userId });
    const img = await t.newImage();
    await assign([img.id], { assignee_id: t.annotator.userId });
    await setRole(t.annotator.userId, 'viewer');
    expect(await imageOf(img.id)).toMatchObject({ assignee_id: null, reviewer_id: null });
  });
});
