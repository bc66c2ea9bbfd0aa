// The team workflow of issue 29 through the API: stages as one pipeline, assignments and the list
// filters, the queue, submit and review with every transition and refusal, issues pinned to
// regions with their comments, and each image's activity.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, png, uploadImage } from '../fixtures/datasets';
import { team } from './workflow-fixture';

let server: TestServer;
let t: Awaited<ReturnType<typeof team>>;

beforeAll(async () => {
  server = await sharedServer();
  t = await team(server);
  await api(server.url, 'PATCH', `/api/v1/projects/${t.project.id}`, { token: t.owner.token, body: { classes: [{ name: 'car', type: 'box', color: '#FFADAD' }] } });
}, 120_000);

const status = async (id: string) => (await t.call(t.owner, 'GET', `/api/v1/images/${id}`)).body.image.status as string;
const setStatus = (id: string, s: string) => t.call(t.owner, 'PATCH', `/api/v1/images/${id}/status`, { status: s });
const assign = (who: { token: string }, body: Record<string, unknown>) => t.call(who, 'POST', '/api/v1/images/assign', body);
const list = async (who: { token: string }, query: string) => {
  const res = await t.call(who, 'GET', `/api/v1/projects/${t.project.id}/images?limit=100&${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { images: { id: string }[]; pagination: { totalItems: number } };
};

describe('stages as one pipeline', () => {
  it('an image row carries its assignments and open issues; the cycle goes new, annotating, review, complete, new', async () => {
    const img = await t.newImage();
    expect(img).toMatchObject({ status: 'new', assignee_id: null, reviewer_id: null, open_issues: 0 });
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) seen.push((await t.call(t.owner, 'PATCH', `/api/v1/images/${img.id}/status`, { cycle: true })).body.image.status);
    expect(seen).toEqual(['annotating', 'review', 'complete', 'new']);
  });

  it('the stage routes accept review, and the folder counts and the status filter know it', async () => {
    const img = await t.newImage();
    const single = await setStatus(img.id, 'review');
    expect(single.status).toBe(200);
    expect(single.body).toMatchObject({ previous_status: 'new', image: { status: 'review' } });
    const other = await t.newImage();
    const batch = await t.call(t.owner, 'PATCH', '/api/images/batch/update', { image_ids: [other.id], project_id: t.project.id, updates: { status: 'review' } });
    expect(batch.body).toMatchObject({ updated: 1, status: 'review' });
    const inReview = await list(t.owner, 'status=review');
    expect(inReview.images.map((i) => i.id)).toEqual(expect.arrayContaining([img.id, other.id]));
    expect(inReview.pagination.totalItems).toBe(inReview.images.length);
    const bad = await setStatus(img.id, 'reviewing');
    expect(bad.status).toBe(400);
  });

  it('a save moves new to annotating, and never moves an image out of review or complete', async () => {
    const save = async (img: { id: string; filename: string }, n: number) => {
      const res = await t.call(t.annotator, 'POST', '/api/v1/annotations/save-data', {
        image_id: img.id,
        project_id: t.project.id,
        image_filename: img.filename,
        annotations: Array.from({ length: n }, (_, i) => ({ id: `a${i}`, name: 'car', bounding_box: { x: 1 + i, y: 1, w: 5, h: 5 } })),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };
    const fresh = await t.newImage();
    await save(fresh, 1);
    expect(await status(fresh.id)).toBe('annotating');
    for (const stage of ['review', 'complete']) {
      const img = await t.newImage();
      await setStatus(img.id, stage);
      await save(img, 2);
      await save(img, 0);
      expect(await status(img.id)).toBe(stage);
    }
  });
});

describe('assignments', () => {
  it('owner, admin and reviewer assign; a field left out is unchanged and null clears it', async () => {
    const a = await t.newImage();
    const b = await t.newImage();
    const res = await assign(t.admin, { image_ids: [a.id, b.id], assignee_id: t.annotator.userId, reviewer_id: t.reviewer.userId });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ success: true, updated: 2 });
    const byReviewer = await assign(t.reviewer, { image_ids: [a.id], assignee_id: t.annotator2.userId });
    expect(byReviewer.status).toBe(200);
    const got = (await t.call(t.owner, 'GET', `/api/v1/images/${a.id}`)).body.image;
    expect(got).toMatchObject({ assignee_id: t.annotator2.userId, reviewer_id: t.reviewer.userId });
    await assign(t.owner, { image_ids: [a.id], reviewer_id: null });
    expect((await t.call(t.owner, 'GET', `/api/v1/images/${a.id}`)).body.image).toMatchObject({ assignee_id: t.annotator2.userId, reviewer_id: null });
  });

  it('annotators and viewers may not assign (403); another organization answers 404', async () => {
    const img = await t.newImage();
    for (const who of [t.annotator, t.viewer]) expect((await assign(who, { image_ids: [img.id], assignee_id: t.annotator.userId })).status).toBe(403);
    const stranger = await onboardedUser(server);
    const res = await assign(stranger, { image_ids: [img.id], assignee_id: stranger.userId });
    expect(res.status).toBe(404);
    expect((await t.call(t.owner, 'GET', `/api/v1/images/${img.id}`)).body.image.assignee_id).toBeNull();
  });

  it('refuses an assignee who may not annotate and a reviewer who may not review with invalid_assignee', async () => {
    const img = await t.newImage();
    const stranger = await onboardedUser(server);
    for (const body of [
      { assignee_id: t.viewer.userId },
      { assignee_id: stranger.userId },
      { reviewer_id: t.annotator.userId },
      { reviewer_id: t.viewer.userId },
    ]) {
      const res = await assign(t.owner, { image_ids: [img.id], ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('invalid_assignee');
    }
    expect((await assign(t.owner, { image_ids: [img.id], reviewer_id: t.admin.userId })).status).toBe(200);
    expect((await assign(t.owner, { image_ids: [img.id] })).status).toBe(400);
  });

  it('the list filters by assignee (id, me, none), reviewer and open issues', async () => {
    const p = await createProject(server, t.owner);
    const bytes = await png(20, 20);
    const [mine, theirs, nobody] = await Promise.all(['m.png', 't.png', 'n.png'].map((f) => uploadImage(server, t.owner, p.id, f, bytes)));
    await assign(t.owner, { image_ids: [mine!.id], assignee_id: t.annotator.userId, reviewer_id: t.reviewer.userId });
    await assign(t.owner, { image_ids: [theirs!.id], assignee_id: t.annotator2.userId });
    await t.call(t.reviewer, 'POST', `/api/v1/images/${theirs!.id}/issues`, { body: 'Check the wheel' });
    const ids = async (who: { token: string }, q: string) => {
      const res = await t.call(who, 'GET', `/api/v1/projects/${p.id}/images?${q}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.pagination.totalItems).toBe(res.body.images.length);
      return res.body.images.map((i: { id: string }) => i.id).sort();
    };
    expect(await ids(t.annotator, 'assignee=me')).toEqual([mine!.id]);
    expect(await ids(t.owner, `assignee=${t.annotator2.userId}`)).toEqual([theirs!.id]);
    expect(await ids(t.owner, 'assignee=none')).toEqual([nobody!.id]);
    expect(await ids(t.reviewer, 'reviewer=me')).toEqual([mine!.id]);
    expect(await ids(t.owner, 'reviewer=none')).toEqual([theirs!.id, nobody!.id].sort());
    expect(await ids(t.owner, 'has_open_issues=true')).toEqual([theirs!.id]);
    expect(await ids(t.owner, 'has_open_issues=false')).toEqual([mine!.id, nobody!.id].sort());
    expect(await ids(t.viewer, 'assignee=me')).toEqual([]);
    expect((await t.call(t.owner, 'GET', `/api/v1/projects/${p.id}/images?assignee=someone`)).status).toBe(400);
  });
});

describe('the queue', () => {
  it('gives the caller their oldest assigned image first, then claims the oldest unassigned new one, then 204', async () => {
    const p = await createProject(server, t.owner);
    const bytes = await png(20, 20);
    const first = await uploadImage(server, t.owner, p.id, 'q1.png', bytes);
    const second = await uploadImage(server, t.owner, p.id, 'q2.png', bytes);
    const third = await uploadImage(server, t.owner, p.id, 'q3.png', bytes);
    await t.call(t.owner, 'PATCH', `/api/v1/images/${first.id}/status`, { status: 'complete' });
    await assign(t.owner, { image_ids: [third.id], assignee_id: t.annotator.userId });
    const next = () => t.call(t.annotator, 'POST', `/api/v1/projects/${p.id}/queue/next`, { role: 'annotate' });
    const a = await next();
    expect(a.status).toBe(200);
    expect(a.body.image.id).toBe(third.id);
    await t.call(t.annotator, 'POST', `/api/v1/images/${third.id}/submit`);
    const b = await next();
    expect(b.body.image).toMatchObject({ id: second.id, assignee_id: t.annotator.userId });
    await t.call(t.annotator, 'POST', `/api/v1/images/${second.id}/submit`);
    const none = await next();
    expect(none.status).toBe(204);
    expect(none.body).toBeNull();

    // Review: the reviewer's own first, then the oldest unclaimed image in review.
    await assign(t.owner, { image_ids: [second.id], reviewer_id: t.reviewer.userId });
    const review = () => t.call(t.reviewer, 'POST', `/api/v1/projects/${p.id}/queue/next`, { role: 'review' });
    expect((await review()).body.image.id).toBe(second.id);
    await t.call(t.reviewer, 'POST', `/api/v1/images/${second.id}/review`, { decision: 'accept' });
    expect((await review()).body.image).toMatchObject({ id: third.id, reviewer_id: t.reviewer.userId });
    await t.call(t.reviewer, 'POST', `/api/v1/images/${third.id}/review`, { decision: 'accept' });
    expect((await review()).status).toBe(204);
  });

  it('refuses the review queue to annotators and every queue to viewers (403), a bad role (400), another organization (404)', async () => {
    const url = `/api/v1/projects/${t.project.id}/queue/next`;
    expect((await t.call(t.annotator, 'POST', url, { role: 'review' })).status).toBe(403);
    expect((await t.call(t.viewer, 'POST', url, { role: 'annotate' })).status).toBe(403);
    expect((await t.call(t.owner, 'POST', url, { role: 'edit' })).status).toBe(400);
    const stranger = await onboardedUser(server);
    expect((await t.call(stranger, 'POST', url, { role: 'annotate' })).status).toBe(404);
  });
});

describe('submit and review', () => {
  const submit = (who: { token: string }, id: string) => t.call(who, 'POST', `/api/v1/images/${id}/submit`);
  const review = (who: { token: string }, id: string, body: Record<string, unknown>) => t.call(who, 'POST', `/api/v1/images/${id}/review`, body);

  it('submit moves new and annotating to review; any other stage is 409 invalid_transition', async () => {
    for (const from of ['new', 'annotating']) {
      const img = await t.newImage();
      await setStatus(img.id, from);
      const res = await submit(t.annotator, img.id);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ success: true, image: { id: img.id, status: 'review' } });
    }
    for (const from of ['review', 'complete']) {
      const img = await t.newImage();
      await setStatus(img.id, from);
      const res = await submit(t.annotator, img.id);
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('invalid_transition');
      expect(await status(img.id)).toBe(from);
    }
  });

  it('only the assignee submits an assigned image (or those who set stages); viewers never; another organization 404', async () => {
    const img = await t.newImage();
    await assign(t.owner, { image_ids: [img.id], assignee_id: t.annotator.userId });
    expect((await submit(t.annotator2, img.id)).status).toBe(403);
    expect((await submit(t.viewer, img.id)).status).toBe(403);
    expect((await submit(await onboardedUser(server), img.id)).status).toBe(404);
    expect((await submit(t.annotator, img.id)).status).toBe(200);
    const other = await t.newImage();
    await assign(t.owner, { image_ids: [other.id], assignee_id: t.annotator.userId });
    expect((await submit(t.reviewer, other.id)).status).toBe(200);
  });

  it('accept moves review to complete; reject moves it to annotating and its comment becomes an open issue', async () => {
    const a = await t.newImage();
    await setStatus(a.id, 'review');
    const accepted = await review(t.reviewer, a.id, { decision: 'accept' });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ success: true, image: { status: 'complete' }, issue: null });

    const r = await t.newImage();
    await setStatus(r.id, 'review');
    const rejected = await review(t.admin, r.id, { decision: 'reject', comment: 'The left car is missing' });
    expect(rejected.status, JSON.stringify(rejected.body)).toBe(200);
    expect(rejected.body.image).toMatchObject({ status: 'annotating', open_issues: 1 });
    expect(rejected.body.issue).toMatchObject({ status: 'open', region: null, created_by: { id: t.admin.userId, name: 'Ada Admin' } });
    expect(rejected.body.issue.comments).toEqual([expect.objectContaining({ body: 'The left car is missing', by: { id: t.admin.userId, name: 'Ada Admin' } })]);
    const issues = await t.call(t.annotator, 'GET', `/api/v1/images/${r.id}/issues`);
    expect(issues.body.issues.map((i: { id: string }) => i.id)).toEqual([rejected.body.issue.id]);

    const quiet = await t.newImage();
    await setStatus(quiet.id, 'review');
    const plain = await review(t.owner, quiet.id, { decision: 'reject' });
    expect(plain.body).toMatchObject({ image: { status: 'annotating', open_issues: 0 }, issue: null });
  });

  it('review outside the review stage is 409; annotators and viewers get 403; bad bodies 400', async () => {
    for (const from of ['new', 'annotating', 'complete']) {
      const img = await t.newImage();
      await setStatus(img.id, from);
      for (const decision of ['accept', 'reject']) {
        const res = await review(t.reviewer, img.id, { decision });
        expect(res.status).toBe(409);
        expect(res.body.code).toBe('invalid_transition');
      }
    }
    const img = await t.newImage();
    await setStatus(img.id, 'review');
    await assign(t.owner, { image_ids: [img.id], assignee_id: t.annotator.userId });
    for (const who of [t.annotator, t.viewer]) expect((await review(who, img.id, { decision: 'accept' })).status).toBe(403);
    expect((await review(await onboardedUser(server), img.id, { decision: 'accept' })).status).toBe(404);
    expect((await review(t.reviewer, img.id, { decision: 'maybe' })).status).toBe(400);
    expect((await review(t.reviewer, img.id, { decision: 'reject', comment: 'x'.repeat(2001) })).status).toBe(400);
    expect(await status(img.id)).toBe('review');
  });
});

describe('issues pinned to regions', () => {
  const open = (who: { token: string }, id: string, body: Record<string, unknown>) => t.call(who, 'POST', `/api/v1/images/${id}/issues`, body);

  it('opens an issue on a rectangle, a point or the whole image, answers 201 with its first comment, and lists them', async () => {
    const img = await t.newImage(); // 40 x 30
    const rect = await open(t.reviewer, img.id, { body: 'Box too loose', region: { x: 10, y: 5, w: 30, h: 25 } });
    expect(rect.status, JSON.stringify(rect.body)).toBe(201);
    expect(rect.body.issue).toMatchObject({ image_id: img.id, status: 'open', region: { x: 10, y: 5, w: 30, h: 25 }, created_by: { id: t.reviewer.userId, name: 'Rex Viewer' } });
    expect(rect.body.issue.comments).toHaveLength(1);
    expect(rect.body.issue.comments[0]).toMatchObject({ body: 'Box too loose', by: { id: t.reviewer.userId, name: 'Rex Viewer' } });
    const point = await open(t.annotator, img.id, { body: 'What is this?', region: { x: 40, y: 30 } });
    expect(point.status).toBe(201);
    const whole = await open(t.owner, img.id, { body: 'Blurry' });
    expect(whole.body.issue.region).toBeNull();
    const listed = await t.call(t.viewer, 'GET', `/api/v1/images/${img.id}/issues`);
    expect(listed.status).toBe(200);
    expect(listed.body.issues.map((i: { id: string }) => i.id)).toEqual([rect.body.issue.id, point.body.issue.id, whole.body.issue.id]);
    expect((await t.call(t.owner, 'GET', `/api/v1/images/${img.id}`)).body.image.open_issues).toBe(3);
  });

  it('refuses a region that leaves the image with region_outside_image, and bad bodies with 400', async () => {
    const img = await t.newImage();
    for (const region of [{ x: 35, y: 0, w: 10, h: 5 }, { x: -1, y: 0 }, { x: 0, y: 31 }, { x: 0, y: 0, w: 40, h: 31 }]) {
      const res = await open(t.reviewer, img.id, { body: 'x', region });
      expect(res.status, JSON.stringify(region)).toBe(400);
      expect(res.body.code).toBe('region_outside_image');
    }
    for (const body of [{ body: '' }, { body: 'x'.repeat(2001) }, { body: 'x', region: { x: 1, y: 1, w: 0, h: 3 } }, { body: 'x', region: { x: 1 } }]) {
      const res = await open(t.reviewer, img.id, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    }
    expect((await t.call(t.owner, 'GET', `/api/v1/images/${img.id}`)).body.image.open_issues).toBe(0);
  });

  it('comments and resolving: writers and reviewers may, viewers read only, another organization 404', async () => {
    const img = await t.newImage();
    const issue = (await open(t.reviewer, img.id, { body: 'Fix the wheel', region: { x: 1, y: 1, w: 4, h: 4 } })).body.issue;
    const reply = await t.call(t.annotator, 'POST', `/api/v1/issues/${issue.id}/comments`, { body: 'Fixed, have a look' });
    expect(reply.status).toBe(201);
    expect(reply.body.comment).toMatchObject({ body: 'Fixed, have a look', by: { id: t.annotator.userId, name: 'Ann Otator' } });
    expect((await t.call(t.viewer, 'POST', `/api/v1/issues/${issue.id}/comments`, { body: 'me too' })).status).toBe(403);
    expect((await t.call(t.viewer, 'PATCH', `/api/v1/issues/${issue.id}`, { status: 'resolved' })).status).toBe(403);
    const stranger = await onboardedUser(server);
    expect((await t.call(stranger, 'POST', `/api/v1/issues/${issue.id}/comments`, { body: 'hi' })).status).toBe(404);
    expect((await t.call(stranger, 'PATCH', `/api/v1/issues/${issue.id}`, { status: 'resolved' })).status).toBe(404);
    expect((await t.call(stranger, 'GET', `/api/v1/images/${img.id}/issues`)).status).toBe(404);
    expect((await t.call(stranger, 'POST', `/api/v1/images/${img.id}/issues`, { body: 'hi' })).status).toBe(404);

    const resolved = await t.call(t.annotator, 'PATCH', `/api/v1/issues/${issue.id}`, { status: 'resolved' });
    expect(resolved.status).toBe(200);
    expect(resolved.body.issue.status).toBe('resolved');
    expect(resolved.body.issue.comments.map((c: { body: string }) => c.body)).toEqual(['Fix the wheel', 'Fixed, have a look']);
    expect((await t.call(t.owner, 'GET', `/api/v1/images/${img.id}`)).body.image.open_issues).toBe(0);
    // Resolving twice counts once; reopening counts again.
    await t.call(t.annotator, 'PATCH', `/api/v1/issues/${issue.id}`, { status: 'resolved' });
    expect((await t.call(t.owner, 'GET', `/api/v1/images/${img.id}`)).body.image.open_issues).toBe(0);
    await t.call(t.reviewer, 'PATCH', `/api/v1/issues/${issue.id}`, { status: 'open' });
    expect((await t.call(t.owner, 'GET', `/api/v1/images/${img.id}`)).body.image.open_issues).toBe(1);
    expect((await t.call(t.owner, 'PATCH', `/api/v1/issues/${issue.id}`, { status: 'closed' })).status).toBe(400);
  });
});

describe('activity', () => {
  it('lists status, assign, issue and comment events newest first, with who did them, in pages', async () => {
    const img = await t.newImage();
    await assign(t.owner, { image_ids: [img.id], assignee_id: t.annotator.userId });
    await t.call(t.annotator, 'POST', `/api/v1/images/${img.id}/submit`);
    const rejected = await t.call(t.reviewer, 'POST', `/api/v1/images/${img.id}/review`, { decision: 'reject', comment: 'Redo the car' });
    const issueId = rejected.body.issue.id;
    await t.call(t.annotator, 'POST', `/api/v1/issues/${issueId}/comments`, { body: 'Done' });
    await t.call(t.annotator, 'PATCH', `/api/v1/issues/${issueId}`, { status: 'resolved' });
    const res = await t.call(t.viewer, 'GET', `/api/v1/images/${img.id}/activity`);
    expect(res.status).toBe(200);
    const events = res.body.events;
    expect(events.map((e: { type: string; from?: string | null; to?: string | null }) => [e.type, e.from ?? null, e.to ?? null])).toEqual([
      ['issue', 'open', 'resolved'],
      ['comment', null, null],
      ['issue', null, 'open'],
      ['status', 'review', 'annotating'],
      ['status', 'new', 'review'],
      ['assign', null, t.annotator.userId],
    ]);
    expect(events[5]).toMatchObject({ field: 'assignee', by: { id: t.owner.userId } });
    expect(events[3].by).toEqual({ id: t.reviewer.userId, name: 'Rex Viewer' });
    expect(events[1]).toMatchObject({ issue_id: issueId, by: { name: 'Ann Otator' } });
    expect(res.body.next_cursor).toBeNull();

    const first = await t.call(t.owner, 'GET', `/api/v1/images/${img.id}/activity?limit=4`);
    expect(first.body.events).toHaveLength(4);
    const rest = await t.call(t.owner, 'GET', `/api/v1/images/${img.id}/activity?limit=4&before=${first.body.next_cursor}`);
    expect([...first.body.events, ...rest.body.events].map((e: { id: string }) => e.id)).toEqual(events.map((e: { id: string }) => e.id));
    expect(rest.body.next_cursor).toBeNull();
    expect((await t.call(await onboardedUser(server), 'GET', `/api/v1/images/${img.id}/activity`)).status).toBe(404);
    expect((await t.call(t.owner, 'GET', `/api/v1/images/${img.id}/activity?limit=500`)).status).toBe(400);
  });

  it('a batch stage change records one event per image that changed', async () => {
    const a = await t.newImage();
    const b = await t.newImage();
    await setStatus(b.id, 'complete');
    await t.call(t.owner, 'PATCH', '/api/images/batch/update', { image_ids: [a.id, b.id], project_id: t.project.id, updates: { status: 'complete' } });
    const ofA = (await t.call(t.owner, 'GET', `/api/v1/images/${a.id}/activity`)).body.events;
    const ofB = (await t.call(t.owner, 'GET', `/api/v1/images/${b.id}/activity`)).body.events;
    expect(ofA).toEqual([expect.objectContaining({ type: 'status', from: 'new', to: 'complete', by: expect.objectContaining({ id: t.owner.userId }) })]);
    expect(ofB).toHaveLength(1); // only the single-image change: the batch left it as it was
  });
});
