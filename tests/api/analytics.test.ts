// Project analytics (issue 36 §1) through the API, on a seeded history with exact numbers: two
// annotators save boxes and polygons of two classes at set times (gaps under, at and over 5
// minutes), submit; a reviewer and an admin accept and reject; issues are opened and resolved.
// Every field per member and in total, day and week buckets, who sees whom, the 400s and the 404.
import { beforeAll, describe, expect, it } from 'vitest';
import { onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject } from '../fixtures/datasets';
import { team } from './workflow-fixture';
import type { AnalyticsResponse, MemberActivity } from '../../src/contract/analytics';

let server: TestServer;
let t: Awaited<ReturnType<typeof team>>;
const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;
/** The annotators' saves happen on the two days before today; the workflow happens today. */
const D = today - 2 * DAY;
const iso = (ms: number) => new Date(ms).toISOString();
const dayOf = (ms: number) => iso(ms).slice(0, 10);
const at = (day: number, h: number, m: number, s = 0) => day + ((h * 60 + m) * 60 + s) * 1000;

const box = (id: string, name: string, x = 1) => ({ id, name, bounding_box: { x, y: 1, w: 5, h: 5 } });
const poly = (id: string, name: string, x = 0) => ({ id, name, bounding_box: { x, y: 0, w: 10, h: 10 }, polygon: { path: [[x, 0], [x + 10, 0], [x + 10, 10], [x, 10]] } });

async function saveAt(who: { token: string }, when: number, img: { id: string; filename: string }, annotations: unknown[]) {
  server.built.ctx.now = () => new Date(when);
  try {
    const res = await t.call(who, 'POST', '/api/v1/annotations/save-data', { image_id: img.id, project_id: t.project.id, image_filename: img.filename, annotations });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  } finally {
    server.built.ctx.now = undefined;
  }
}

const analytics = (who: { token: string }, query: Record<string, string>, projectId = t.project.id) =>
  t.call<AnalyticsResponse & { code?: string }>(who, 'GET', `/api/v1/projects/${projectId}/analytics?${new URLSearchParams(query)}`);
const member = (body: AnalyticsResponse, name: string): MemberActivity => {
  const m = body.members.find((x) => x.user.name === name);
  if (!m) throw new Error(`${name} is not among ${body.members.map((x) => x.user.name).join(', ')}`);
  return m;
};
const zero = { shapes_created: 0, shapes_edited: 0, shapes_deleted: 0, images_submitted: 0, images_accepted: 0, images_rejected: 0, active_minutes: 0, issues_opened: 0, issues_resolved: 0 };

const ANN = {
  images_submitted: 3, images_accepted: 2, images_rejected: 1,
  shapes_created: 5, shapes_edited: 3, shapes_deleted: 1,
  active_minutes: 8, issues_opened: 1, issues_resolved: 0,
  by_class: { car: { shapes_created: 3, shapes_edited: 1, shapes_deleted: 1 }, person: { shapes_created: 2, shapes_edited: 2, shapes_deleted: 0 } },
  gt: null,
  gt_by_class: {},
};
const BEA = {
  images_submitted: 1, images_accepted: 0, images_rejected: 1,
  shapes_created: 1, shapes_edited: 1, shapes_deleted: 1,
  active_minutes: 5, issues_opened: 0, issues_resolved: 1,
  by_class: { car: { shapes_created: 1, shapes_edited: 1, shapes_deleted: 1 } },
  gt: null,
  gt_by_class: {},
};
const REX = { ...zero, issues_opened: 1, by_class: {}, gt: null, gt_by_class: {} };

beforeAll(async () => {
  server = await sharedServer();
  t = await team(server);
  const classes = [
    { name: 'car', type: 'box', color: '#FFADAD' },
    { name: 'person', type: 'polygon', color: '#CAFFBF' },
  ];
  const patched = await t.call(t.owner, 'PATCH', `/api/v1/projects/${t.project.id}`, { classes });
  expect(patched.status).toBe(200);
  const [img1, img2, img3] = [await t.newImage(), await t.newImage(), await t.newImage()];

  // Ann, day D: 9:00, 9:03 (3 min), 9:07 (4 min), 9:20 (13 min: idle), 9:21 (1 min) -> 8 minutes.
  await saveAt(t.annotator, at(D, 9, 0), img1, [box('a1', 'car'), box('a2', 'car'), poly('p1', 'person')]); // created car 2, person 1
  await saveAt(t.annotator, at(D, 9, 3), img1, [box('a1', 'car', 3), poly('p1', 'person'), poly('a3', 'person', 5)]); // edited car 1, deleted car 1, created person 1
  await saveAt(t.annotator, at(D, 9, 7), img2, [box('b1', 'car')]); // created car 1
  await saveAt(t.annotator, at(D, 9, 20), img2, [{ ...box('b1', 'person'), polygon: { path: [[0, 0], [4, 0], [4, 4]] } }]); // edited person 1 (its class now)
  await saveAt(t.annotator, at(D, 9, 21), img2, [{ ...box('b1', 'person'), polygon: { path: [[0, 0], [5, 0], [5, 5]] } }]); // edited person 1
  // Bea, day D+1: 10:00, 10:05 (exactly 5 min: counted), 10:10:30 (5.5 min: idle) -> 5 minutes.
  await saveAt(t.annotator2, at(D + DAY, 10, 0), img3, [box('c1', 'car')]);
  await saveAt(t.annotator2, at(D + DAY, 10, 5), img3, [box('c1', 'car', 2)]);
  await saveAt(t.annotator2, at(D + DAY, 10, 10, 30), img3, []);

  // Today: submits, reviews and issues.
  const ok = async (p: Promise<{ status: number; body: unknown }>) => {
    const res = await p;
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    return res.body as any;
  };
  await ok(t.call(t.annotator, 'POST', `/api/v1/images/${img1.id}/submit`));
  const rejected = await ok(t.call(t.reviewer, 'POST', `/api/v1/images/${img1.id}/review`, { decision: 'reject', comment: 'The car is cut off' }));
  await ok(t.call(t.annotator, 'POST', `/api/v1/images/${img1.id}/submit`));
  await ok(t.call(t.reviewer, 'POST', `/api/v1/images/${img1.id}/review`, { decision: 'accept' }));
  await ok(t.call(t.annotator, 'POST', `/api/v1/images/${img2.id}/submit`));
  await ok(t.call(t.admin, 'POST', `/api/v1/images/${img2.id}/review`, { decision: 'accept' }));
  await ok(t.call(t.annotator2, 'POST', `/api/v1/images/${img3.id}/submit`));
  await ok(t.call(t.reviewer, 'POST', `/api/v1/images/${img3.id}/review`, { decision: 'reject' }));
  await ok(t.call(t.annotator2, 'PATCH', `/api/v1/issues/${rejected.issue.id}`, { status: 'resolved' }));
  await ok(t.call(t.annotator, 'POST', `/api/v1/images/${img3.id}/issues`, { body: 'Is this a car?' }));
}, 180_000);

describe('GET /projects/{id}/analytics', () => {
  it('counts every field per member and in total, by class, with active time from the gaps between saves', async () => {
    const res = await analytics(t.reviewer, { from: dayOf(D), to: dayOf(today), bucket: 'day' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const body = res.body;
    expect(body).toMatchObject({ from: dayOf(D), to: dayOf(today), bucket: 'day' });
    expect(member(body, 'Ann Otator')).toEqual({ user: { id: t.annotator.userId, name: 'Ann Otator' }, ...ANN });
    expect(member(body, 'Bea Second')).toEqual({ user: { id: t.annotator2.userId, name: 'Bea Second' }, ...BEA });
    expect(member(body, 'Rex Viewer')).toEqual({ user: { id: t.reviewer.userId, name: 'Rex Viewer' }, ...REX });
    // Everyone who may work is listed, idle or not; viewers are not.
    expect(member(body, 'Ada Admin')).toMatchObject({ ...zero, by_class: {} });
    expect(body.members.map((m) => m.user.id)).toContain(t.owner.userId);
    expect(body.members.map((m) => m.user.name)).not.toContain('Vic Looker');
    expect(body.totals).toEqual({
      images_submitted: 4, images_accepted: 2, images_rejected: 2,
      shapes_created: 6, shapes_edited: 4, shapes_deleted: 2,
      active_minutes: 13, issues_opened: 2, issues_resolved: 1,
      by_class: { car: { shapes_created: 4, shapes_edited: 2, shapes_deleted: 2 }, person: { shapes_created: 2, shapes_edited: 2, shapes_deleted: 0 } },
    });
  });

  it('counts only the days in the range', async () => {
    const todayOnly = (await analytics(t.owner, { from: dayOf(today), to: dayOf(today) })).body;
    expect(member(todayOnly, 'Ann Otator')).toEqual({ user: { id: t.annotator.userId, name: 'Ann Otator' }, ...zero, images_submitted: 3, images_accepted: 2, images_rejected: 1, issues_opened: 1, by_class: {}, gt: null, gt_by_class: {} });
    const beaDay = (await analytics(t.owner, { from: dayOf(D + DAY), to: dayOf(D + DAY) })).body;
    expect(member(beaDay, 'Bea Second')).toMatchObject({ shapes_created: 1, shapes_edited: 1, shapes_deleted: 1, active_minutes: 5, images_submitted: 0 });
    expect(member(beaDay, 'Ann Otator')).toMatchObject({ ...zero, by_class: {} });
  });

  it('day buckets: the stages at the end of each day (the images were made today)', async () => {
    const body = (await analytics(t.admin, { from: dayOf(D), to: dayOf(today), bucket: 'day' })).body;
    const none = { new: 0, annotating: 0, review: 0, complete: 0 };
    expect(body.buckets).toEqual([
      { start: dayOf(D), stage_counts: none },
      { start: dayOf(D + DAY), stage_counts: none },
      { start: dayOf(today), stage_counts: { new: 0, annotating: 1, review: 0, complete: 2 } },
    ]);
  });

  it('week buckets start on Monday; the last one holds the counts of the range end', async () => {
    const from = today - 13 * DAY;
    const body = (await analytics(t.owner, { from: iso(from), to: iso(today + 3600_000), bucket: 'week' })).body;
    expect(body.bucket).toBe('week');
    const starts = body.buckets.map((b) => b.start);
    for (const s of starts) expect(new Date(`${s}T00:00:00Z`).getUTCDay()).toBe(1);
    expect(Date.parse(`${starts[0]}T00:00:00Z`)).toBeLessThanOrEqual(from);
    expect(Date.parse(`${starts[0]}T00:00:00Z`)).toBeGreaterThan(from - 7 * DAY);
    expect(Date.parse(`${starts.at(-1)}T00:00:00Z`)).toBeGreaterThan(today - 7 * DAY);
    expect(new Set(starts).size).toBe(starts.length);
    expect(body.buckets.at(-1)!.stage_counts).toEqual({ new: 0, annotating: 1, review: 0, complete: 2 });
    // The whole range is older than the images before the last week: all zero.
    for (const b of body.buckets.slice(0, -1)) {
      if (Date.parse(`${b.start}T00:00:00Z`) + 7 * DAY <= today) expect(b.stage_counts).toEqual({ new: 0, annotating: 0, review: 0, complete: 0 });
    }
    // The week totals are the same as the day totals.
    expect(body.totals.shapes_created).toBe(6);
  });

  it('an annotator sees only herself: members has just her and totals are hers', async () => {
    const res = await analytics(t.annotator2, { from: dayOf(D), to: dayOf(today) });
    expect(res.status).toBe(200);
    expect(res.body.members).toEqual([{ user: { id: t.annotator2.userId, name: 'Bea Second' }, ...BEA }]);
    const { by_class, gt, gt_by_class, ...counts } = BEA;
    expect(res.body.totals).toEqual({ ...counts, by_class });
    expect(gt).toBeNull();
    expect(gt_by_class).toEqual({});
    expect(res.body.gt).toEqual({ pass_threshold: 0.8, attempts: [], by_class: {} });
    // The stage counts are the project's (no person in them).
    expect(res.body.buckets.at(-1)!.stage_counts).toEqual({ new: 0, annotating: 1, review: 0, complete: 2 });
  });

  it('viewers 403; another organization 404; a bad bucket or range 400 with its code', async () => {
    expect((await analytics(t.viewer, {})).status).toBe(403);
    const stranger = await onboardedUser(server);
    expect((await analytics(stranger, {})).status).toBe(404);
    const theirs = await createProject(server, stranger);
    expect((await analytics(t.owner, {}, theirs.id)).status).toBe(404);
    const bad = async (query: Record<string, string>, code: string) => {
      const res = await analytics(t.owner, query);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.code).toBe(code);
    };
    await bad({ bucket: 'month' }, 'invalid_bucket');
    await bad({ bucket: '' }, 'invalid_bucket');
    await bad({ from: '2026-05-02', to: '2026-05-01' }, 'invalid_date_range');
    await bad({ from: '2025-01-01', to: '2026-01-03' }, 'invalid_date_range');
    await bad({ from: 'yesterday' }, 'invalid_date_range');
    await bad({ to: '2026-13-45' }, 'invalid_date_range');
    await bad({ from: '2026-05-01T10:00:00' }, 'invalid_date_range');
    // 367 days (a leap year and a day) is the longest range answered.
    expect((await analytics(t.owner, { from: '2024-01-01', to: '2024-12-31' })).status).toBe(200);
    const defaults = await analytics(t.owner, {});
    expect(defaults.status).toBe(200);
    expect(defaults.body).toMatchObject({ to: dayOf(Date.now()), bucket: 'day' });
    expect(defaults.body.buckets).toHaveLength(30);
  });
});
