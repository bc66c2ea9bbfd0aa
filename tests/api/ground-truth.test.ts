// Ground truth and scores (issue 36 §2) through the API, with exact numbers: a reviewer marks an
// accepted image as ground truth, the project's gt_rate puts it in an annotator's queue, who sees
// it blank and as theirs, saves into the scoring layer (save-data and save-changes), submits; the
// image keeps its annotations, stage and people, and the analytics carry the score per image, per
// member and per class with the pass threshold. Rate 0 never hands it out; turning it off ends open attempts.
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedServer, type TestServer } from './harness';
import { team } from './workflow-fixture';
import type { AnalyticsResponse } from '../../src/contract/analytics';

let server: TestServer;
let t: Awaited<ReturnType<typeof team>>;
let gtImage: { id: string; filename: string };
let other: { id: string; filename: string };
let third: { id: string; filename: string };

const box = (id: string, x: number, y = 0, w = 10) => ({ id, name: 'car', bounding_box: { x, y, w, h: w } });
const dog = (id: string) => ({ id, name: 'dog', bounding_box: { x: 40, y: 40, w: 10, h: 10 }, polygon: { path: [[40, 40], [50, 40], [50, 50], [40, 50]] } });
const REFERENCE = [box('A', 0), box('B', 20), dog('D')];

const gtCall = (who: { token: string }, imageId: string, enabled: boolean) => t.call(who, 'POST', `/api/v1/images/${imageId}/ground-truth`, { enabled });
const queueNext = (who: { token: string }) => t.call(who, 'POST', `/api/v1/projects/${t.project.id}/queue/next`, { role: 'annotate' });
const load = (who: { token: string }, imageId: string) => t.call(who, 'GET', `/api/v1/annotations/load-data/${imageId}?project_id=${t.project.id}`);
const setProject = (who: { token: string }, body: Record<string, unknown>) => t.call(who, 'PATCH', `/api/v1/projects/${t.project.id}`, body);
const analytics = (who: { token: string }) => t.call<AnalyticsResponse>(who, 'GET', `/api/v1/projects/${t.project.id}/analytics`);

beforeAll(async () => {
  server = await sharedServer();
  t = await team(server);
  const classes = [
    { name: 'car', type: 'box', color: '#FFADAD' },
    { name: 'dog', type: 'polygon', color: '#CAFFBF' },
  ];
  expect((await setProject(t.owner, { classes })).status).toBe(200);
  gtImage = await t.newImage();
  const saved = await t.call(t.owner, 'POST', '/api/v1/annotations/save-data', { image_id: gtImage.id, project_id: t.project.id, image_filename: gtImage.filename, annotations: REFERENCE });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  other = await t.newImage();
  third = await t.newImage();
}, 120_000);


describe('ground truth and scores (issue 36 §2)', () => {
  it('only an accepted image can be ground truth; annotators may not mark it', async () => {
    const early = await gtCall(t.reviewer, gtImage.id, true);
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ code: 'ground_truth_not_accepted' });
    expect((await t.call(t.owner, 'POST', `/api/v1/images/${gtImage.id}/submit`)).status).toBe(200);
    expect((await t.call(t.reviewer, 'POST', `/api/v1/images/${gtImage.id}/review`, { decision: 'accept' })).status).toBe(200);
    expect((await gtCall(t.annotator, gtImage.id, true)).status).toBe(403);
    const marked = await gtCall(t.reviewer, gtImage.id, true);
    expect(marked.status, JSON.stringify(marked.body)).toBe(200);
    expect(marked.body.ground_truth).toMatchObject({ image_id: gtImage.id, enabled: true, shapes: 3 });
    const read = await t.call(t.admin, 'GET', `/api/v1/images/${gtImage.id}/ground-truth`);
    expect(read.body.ground_truth).toMatchObject({ enabled: true, shapes: 3 });
    expect((await t.call(t.annotator, 'GET', `/api/v1/images/${gtImage.id}/ground-truth`)).status).toBe(403);
  });

  it('gt_rate and gt_pass_threshold: 0 to 1, set by owners and admins, returned by the project', async () => {
    const defaults = await t.call(t.owner, 'GET', `/api/v1/projects/${t.project.id}`);
    expect(defaults.body.project).toMatchObject({ gt_rate: 0, gt_pass_threshold: 0.8 });
    expect((await setProject(t.owner, { gt_rate: 1.5 })).status).toBe(400);
    expect((await setProject(t.owner, { gt_pass_threshold: -0.1 })).status).toBe(400);
    expect((await setProject(t.annotator, { gt_rate: 1 })).status).toBe(403);
    const set = await setProject(t.admin, { gt_rate: 0 });
    expect(set.status).toBe(200);
    expect(set.body.project.gt_rate).toBe(0);
  });

  it('at rate 0 the queue never hands out the ground-truth image', async () => {
    const next = await queueNext(t.annotator2);
    expect(next.status).toBe(200);
    expect(next.body.image.id).not.toBe(gtImage.id);
  });

  it('at rate 1 the annotator gets it blank and as theirs, saves into the scoring layer and submits; the image stays as it was', async () => {
    expect((await setProject(t.owner, { gt_rate: 1 })).body.project.gt_rate).toBe(1);
    const next = await queueNext(t.annotator);
    expect(next.status).toBe(200);
    expect(next.body.image).toMatchObject({ id: gtImage.id, status: 'annotating', assignee_id: t.annotator.userId, reviewer_id: null, annotation_count: 0 });
    expect(JSON.stringify(next.body)).not.toMatch(/ground|gt_/i);
    expect((await load(t.annotator, gtImage.id)).body).toEqual({ annotations: [], version: 0, saved_at: null });

    const base = { image_id: gtImage.id, project_id: t.project.id, image_filename: gtImage.filename };
    // A: shifted by 2 (IoU 80/120); B missed; an extra car far away; the dog exact.
    const first = await t.call(t.annotator, 'POST', '/api/v1/annotations/save-data', { ...base, base_version: 0, annotations: [box('c1', 2), box('c2', 60, 60, 5)] });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ version: 1, new_count: 2, status: 'annotating' });
    const stale = await t.call(t.annotator, 'POST', '/api/v1/annotations/save-data', { ...base, base_version: 0, annotations: [] });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ code: 'version_conflict' });
    const second = await t.call(t.annotator, 'POST', '/api/v1/annotations/save-changes', { ...base, base_version: 1, upserts: [dog('d1')], removed_ids: [] });
    expect(second.body).toMatchObject({ version: 2, new_count: 3 });
    // The same change again writes no version of the attempt.
    const again = await t.call(t.annotator, 'POST', '/api/v1/annotations/save-changes', { ...base, base_version: 2, upserts: [dog('d1')], removed_ids: [] });
    expect(again.body).toMatchObject({ version: 2, new_count: 3, saved_at: second.body.saved_at });
    expect((await load(t.annotator, gtImage.id)).body.annotations.map((a: { id: string }) => a.id)).toEqual(['c1', 'c2', 'd1']);
    expect((await t.call(t.annotator, 'GET', `/api/v1/annotations/history/${gtImage.id}?project_id=${t.project.id}`)).body).toMatchObject({ entries: [] });

    // Nobody else sees the attempt: the image's annotations and change log are the reference's.
    const owners = await load(t.owner, gtImage.id);
    expect(owners.body.annotations).toEqual(REFERENCE);
    expect(owners.body.version).toBe(1);

    expect((await queueNext(t.annotator)).body.image.id).toBe(gtImage.id);
    const submitted = await t.call(t.annotator, 'POST', `/api/v1/images/${gtImage.id}/submit`);
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    expect(submitted.body.image).toMatchObject({ id: gtImage.id, status: 'review' });

    const image = await t.call(t.owner, 'GET', `/api/v1/images/${gtImage.id}`);
    expect(image.body.image ?? image.body).toMatchObject({ status: 'complete', annotation_count: 3, assignee_id: null });
    expect((await load(t.owner, gtImage.id)).body).toMatchObject({ annotations: REFERENCE, version: 1 });
    // Tried once: the queue goes on with the ordinary images.
    const after = await queueNext(t.annotator);
    expect(after.body.image.id).not.toBe(gtImage.id);
    // The annotator's own load-data now reads the image itself.
    expect((await load(t.annotator, gtImage.id)).body.annotations).toEqual(REFERENCE);
  });

  it('analytics: the score per image, per member and per class, with the pass threshold', async () => {
    const res = await analytics(t.reviewer);
    expect(res.status).toBe(200);
    const ann = res.body.members.find((m) => m.user.id === t.annotator.userId)!;
    // Matched A (IoU 2/3) and the dog (1) of 3 + 3 shapes: F1 4/6; mean IoU 5/6.
    expect(ann.gt).toEqual({ f1: 0.6667, mean_iou: 0.8333, images: 1 });
    expect(ann.gt_by_class).toEqual({ car: { f1: 0.5, mean_iou: 0.6667, images: 1 }, dog: { f1: 1, mean_iou: 1, images: 1 } });
    // The attempt's saves are not shape work on the image.
    expect(ann).toMatchObject({ shapes_created: 0, shapes_edited: 0, shapes_deleted: 0, images_submitted: 0 });
    expect(res.body.members.find((m) => m.user.id === t.annotator2.userId)!.gt).toBeNull();
    expect(res.body.gt.pass_threshold).toBe(0.8);
    expect(res.body.gt.attempts).toEqual([
      { image_id: gtImage.id, filename: gtImage.filename, user: { id: t.annotator.userId, name: 'Ann Otator' }, submitted_at: expect.any(String), f1: 0.6667, mean_iou: 0.8333, mean_oks: null, attributes: null, passed: false },
    ]);
    expect(res.body.gt.by_class).toEqual({ car: { f1: 0.5, mean_iou: 0.6667, images: 1 }, dog: { f1: 1, mean_iou: 1, images: 1 } });

    expect((await setProject(t.owner, { gt_pass_threshold: 0.6 })).status).toBe(200);
    expect((await analytics(t.reviewer)).body.gt.attempts[0]!.passed).toBe(true);
    // An annotator sees their own scores only.
    const bea = await analytics(t.annotator2);
    expect(bea.body.gt.attempts).toEqual([]);
    expect(bea.body.members.map((m) => m.user.id)).toEqual([t.annotator2.userId]);
    expect((await analytics(t.annotator)).body.gt.attempts).toHaveLength(1);
  });

  it('turning ground truth off ends the attempts still open; the scores stay', async () => {
    const next = await queueNext(t.annotator2);
    expect(next.body.image.id).toBe(gtImage.id);
    const off = await gtCall(t.reviewer, gtImage.id, false);
    expect(off.body.ground_truth).toEqual({ image_id: gtImage.id, enabled: false, shapes: 0, marked_at: null });
    expect((await load(t.annotator2, gtImage.id)).body.annotations).toEqual(REFERENCE);
    expect((await queueNext(t.annotator2)).body.image.id).not.toBe(gtImage.id);
    expect((await analytics(t.reviewer)).body.gt.attempts).toHaveLength(1);
    expect([other.id, third.id]).toContain((await queueNext(t.annotator2)).body.image.id);
  });
});
