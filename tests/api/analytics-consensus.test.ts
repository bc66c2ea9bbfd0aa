// Analytics of an overlapped image (issue 36 §3 in §1's counts; rules in docs/analytics.md
// "Consensus in the counts"), on a seeded overlap-2 history with exact numbers, on PGlite and
// (DATABASE_URL) PostgreSQL. Ann and Bea each draw in their own draft (save-data and save-changes,
// set times) and submit; the reviewer rejects, both submit again, the reviewer merges and accepts.
// Each drafter counts her own draft's shapes and active time, two submits, one reject and one
// accept; the reviewer counts the merge's shape and no review outcome.
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedServer, type TestServer } from './harness';
import { team } from './workflow-fixture';
import type { AnalyticsResponse, MemberActivity } from '../../src/contract/analytics';

let server: TestServer;
let t: Awaited<ReturnType<typeof team>>;
const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;
/** The drafts are drawn and first handed in two days before today; the rest happens today. */
const D = today - 2 * DAY;
const at = (h: number, m: number) => D + (h * 60 + m) * 60_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const box = (id: string, name: string, x = 0) => ({ id, name, bounding_box: { x, y: 0, w: 10, h: 10 } });

/** Runs `call` with the server's clock at `when` (the draft's saved_at and submitted_at). */
async function atTime<T>(when: number, call: () => Promise<T>): Promise<T> {
  server.built.ctx.now = () => new Date(when);
  try {
    return await call();
  } finally {
    server.built.ctx.now = undefined;
  }
}

const member = (body: AnalyticsResponse, name: string): MemberActivity => {
  const m = body.members.find((x) => x.user.name === name);
  if (!m) throw new Error(`${name} is not among ${body.members.map((x) => x.user.name).join(', ')}`);
  return m;
};

beforeAll(async () => {
  server = await sharedServer();
  t = await team(server);
  const classes = [
    { name: 'car', type: 'box', color: '#FFADAD' },
    { name: 'person', type: 'box', color: '#CAFFBF' },
  ];
  expect((await t.call(t.owner, 'PATCH', `/api/v1/projects/${t.project.id}`, { classes })).status).toBe(200);
}, 120_000);


describe('analytics of an overlap-2 image', () => {
  it('count each drafter\'s shapes, time, submits and review outcomes, and the merge for the reviewer', { timeout: 60_000 }, async () => {
    const img = await t.newImage();
    expect((await t.call(t.owner, 'POST', '/api/v1/images/assign', { image_ids: [img.id], overlap: 2 })).status).toBe(200);
    const ann = t.annotator;
    const bea = t.annotator2;
    for (const who of [ann, bea]) expect((await t.call(who, 'POST', `/api/v1/projects/${t.project.id}/queue/next`, { role: 'annotate' })).body.image.id).toBe(img.id);
    const saveData = (who: { token: string }, annotations: unknown[]) =>
      t.call(who, 'POST', '/api/v1/annotations/save-data', { image_id: img.id, project_id: t.project.id, image_filename: img.filename, annotations });
    const saveChanges = (who: { token: string }, base_version: number, upserts: unknown[]) =>
      t.call(who, 'POST', '/api/v1/annotations/save-changes', { image_id: img.id, project_id: t.project.id, image_filename: img.filename, base_version, upserts, removed_ids: [] });
    const submit = (who: { token: string }) => t.call(who, 'POST', `/api/v1/images/${img.id}/submit`);
    const review = (decision: 'accept' | 'reject') => t.call(t.reviewer, 'POST', `/api/v1/images/${img.id}/review`, { decision });

    // Ann: 9:00 two cars; 9:03 one car moved, the other gone, a person added (3 created, 1 edited, 1 deleted; 3 minutes).
    expect((await atTime(at(9, 0), () => saveData(ann, [box('a1', 'car'), box('a2', 'car', 20)]))).status).toBe(200);
    expect((await atTime(at(9, 3), () => saveData(ann, [box('a1', 'car', 1), box('a3', 'person', 40)]))).status).toBe(200);
    // The same list again changes nothing (the stored draft comes back from jsonb with its keys reordered).
    expect((await atTime(at(9, 4), () => saveData(ann, [box('a1', 'car', 1), box('a3', 'person', 40)]))).status).toBe(200);
    expect((await atTime(at(9, 5), () => submit(ann))).status).toBe(200);
    // Bea: 10:00 a car; 10:02 the car moved (1 created, 1 edited; 2 minutes).
    expect((await atTime(at(10, 0), () => saveChanges(bea, 0, [box('b1', 'car', 2)]))).status).toBe(200);
    expect((await atTime(at(10, 2), () => saveChanges(bea, 1, [box('b1', 'car', 3)]))).status).toBe(200);
    expect((await atTime(at(10, 5), () => submit(bea))).body.image.status).toBe('review');

    // Today: rejected, both hand in again, merged and accepted.
    expect((await review('reject')).status).toBe(200);
    expect((await submit(ann)).status).toBe(200);
    expect((await submit(bea)).body.image.status).toBe('review');
    expect((await t.call(t.reviewer, 'POST', `/api/v1/images/${img.id}/merge`, { annotations: [box('m1', 'car', 2)] })).status).toBe(200);
    expect((await review('accept')).body.image.status).toBe('complete');

    const res = await t.call<AnalyticsResponse>(t.owner, 'GET', `/api/v1/projects/${t.project.id}/analytics?from=${dayOf(D)}&to=${dayOf(today)}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(member(res.body, 'Ann Otator')).toMatchObject({
      images_submitted: 2, images_accepted: 1, images_rejected: 1,
      shapes_created: 3, shapes_edited: 1, shapes_deleted: 1, active_minutes: 4,
      by_class: { car: { shapes_created: 2, shapes_edited: 1, shapes_deleted: 1 }, person: { shapes_created: 1, shapes_edited: 0, shapes_deleted: 0 } },
    });
    expect(member(res.body, 'Bea Second')).toMatchObject({
      images_submitted: 2, images_accepted: 1, images_rejected: 1,
      shapes_created: 1, shapes_edited: 1, shapes_deleted: 0, active_minutes: 2,
      by_class: { car: { shapes_created: 1, shapes_edited: 1, shapes_deleted: 0 } },
    });
    expect(member(res.body, 'Rex Viewer')).toMatchObject({
      images_submitted: 0, images_accepted: 0, images_rejected: 0,
      shapes_created: 1, shapes_edited: 0, shapes_deleted: 0, active_minutes: 0,
      by_class: { car: { shapes_created: 1, shapes_edited: 0, shapes_deleted: 0 } },
    });
    expect(res.body.totals).toMatchObject({ images_submitted: 4, images_accepted: 2, images_rejected: 2, shapes_created: 5, shapes_edited: 2, shapes_deleted: 1, active_minutes: 6 });

    // By day: the first submits on D, the second ones and the outcomes today.
    const onD = await t.call<AnalyticsResponse>(t.owner, 'GET', `/api/v1/projects/${t.project.id}/analytics?from=${dayOf(D)}&to=${dayOf(D)}`);
    expect(member(onD.body, 'Ann Otator')).toMatchObject({ images_submitted: 1, images_accepted: 0, images_rejected: 0, shapes_created: 3 });
    expect(member(onD.body, 'Bea Second')).toMatchObject({ images_submitted: 1, images_accepted: 0, images_rejected: 0, shapes_created: 1 });
    // An annotator sees her own counts only.
    const own = await t.call<AnalyticsResponse>(bea, 'GET', `/api/v1/projects/${t.project.id}/analytics?from=${dayOf(D)}&to=${dayOf(today)}`);
    expect(own.body.members.map((m) => m.user.name)).toEqual(['Bea Second']);
    expect(own.body.totals).toMatchObject({ images_submitted: 2, images_accepted: 1, images_rejected: 1, shapes_created: 1 });
  });
});
