// Consensus (issue 36 §3) through the API, on PGlite and (DATABASE_URL) PostgreSQL: assign with
// overlap (2..5, else 400 invalid_overlap), the queue hands an overlapped image to exactly N
// different annotators even when they ask at once, each one's load-data, changes, history and saves
// read and write their own draft (nobody else's, never the image's), submit marks the draft and
// the last one moves the image to review, GET drafts answers the drafts with names and the
// agreement (exact numbers), and the reviewer's merge becomes the image's annotations as one
// history entry; an export holds no draft before the merge and the merged shapes after it.
import JSZip from 'jszip';
import { beforeAll, describe, expect, it } from 'vitest';
import { onboardedUser, sharedServer, type TestServer } from './harness';
import { join, team } from './workflow-fixture';

let server: TestServer;
let t: Awaited<ReturnType<typeof team>>;
let third: Awaited<ReturnType<typeof join>>;
let img: { id: string; filename: string };
/** The two annotators the queue gave the overlapped image to. */
let a: { token: string; userId: string };
let b: { token: string; userId: string };

const box = (id: string, x: number, w = 10, name = 'car') => ({ id, name, bounding_box: { x, y: 0, w, h: 10 } });
const queueNext = (who: { token: string }) => t.call(who, 'POST', `/api/v1/projects/${t.project.id}/queue/next`, { role: 'annotate' });
const load = (who: { token: string }, imageId: string) => t.call(who, 'GET', `/api/v1/annotations/load-data/${imageId}?project_id=${t.project.id}`);
const save = (who: { token: string }, image: { id: string; filename: string }, annotations: unknown[], base_version?: number) =>
  t.call(who, 'POST', '/api/v1/annotations/save-data', { image_id: image.id, project_id: t.project.id, image_filename: image.filename, annotations, ...(base_version !== undefined && { base_version }) });
const assign = (who: { token: string }, body: Record<string, unknown>) => t.call(who, 'POST', '/api/v1/images/assign', body);
const draftsOf = (who: { token: string }, imageId: string) => t.call(who, 'GET', `/api/v1/images/${imageId}/drafts`);
const merge = (who: { token: string }, imageId: string, annotations: unknown[]) => t.call(who, 'POST', `/api/v1/images/${imageId}/merge`, { annotations });
const submit = (who: { token: string }, imageId: string) => t.call(who, 'POST', `/api/v1/images/${imageId}/submit`);
const image = async (imageId: string) => (await t.call(t.owner, 'GET', `/api/v1/images/${imageId}`)).body.image;

/** The shapes the Vellum export holds for each image file, by filename. */
async function exported(): Promise<Record<string, unknown[]>> {
  const res = await fetch(`${server.url}/api/v1/annotations/export`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.owner.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ project_id: t.project.id, scope: 'all', format: 'vellum' }),
  });
  expect(res.status).toBe(200);
  const zip = await JSZip.loadAsync(Buffer.from(await res.arrayBuffer()));
  const out: Record<string, unknown[]> = {};
  for (const name of Object.keys(zip.files).filter((n) => n.startsWith('annotations/') && n.endsWith('.json'))) {
    const doc = JSON.parse(await zip.file(name)!.async('string'));
    out[doc.image.filename] = doc.annotations;
  }
  return out;
}

beforeAll(async () => {
  server = await sharedServer();
  t = await team(server);
  third = await join(server, t.owner, 'annotator', 'Cy Third');
  const classes = [{ name: 'car', type: 'box', color: '#FFADAD' }];
  expect((await t.call(t.owner, 'PATCH', `/api/v1/projects/${t.project.id}`, { classes })).status).toBe(200);
  img = await t.newImage();
}, 120_000);


describe('consensus (issue 36 §3)', () => {
  it('assign takes overlap 2..5 (else 400 invalid_overlap), from owners, admins and reviewers; image rows carry it', async () => {
    for (const overlap of [1, 6, 2.5, 0]) {
      const bad = await assign(t.owner, { image_ids: [img.id], overlap });
      expect(bad.status, `overlap ${overlap}`).toBe(400);
      expect(bad.body.code).toBe('invalid_overlap');
    }
    expect((await assign(t.owner, { image_ids: [img.id], overlap: '2' })).status).toBe(400);
    expect((await assign(t.annotator, { image_ids: [img.id], overlap: 2 })).status).toBe(403);
    const stranger = await onboardedUser(server);
    expect((await assign(stranger, { image_ids: [img.id], overlap: 2 })).status).toBe(404);
    expect((await image(img.id)).overlap).toBe(1);
    const set = await assign(t.reviewer, { image_ids: [img.id], overlap: 2 });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(await image(img.id)).toMatchObject({ overlap: 2, status: 'new' });
    const listed = await t.call(t.owner, 'GET', `/api/v1/projects/${t.project.id}/images?folder_path=/`);
    expect(listed.body.images.find((i: { id: string }) => i.id === img.id).overlap).toBe(2);
  });

  it('the queue hands an overlap-2 image to exactly 2 different annotators when 3 ask at once', async () => {
    const answers = await Promise.all([t.annotator, t.annotator2, third].map((who) => queueNext(who)));
    const got = answers.map((a) => (a.status === 200 ? a.body.image.id : null));
    expect(got.filter((id) => id === img.id)).toHaveLength(2);
    expect(answers.filter((a) => a.status === 204)).toHaveLength(1);
    // Whoever got it gets it again (their open draft); the one left out still gets nothing.
    const holders = [t.annotator, t.annotator2, third].filter((_, i) => got[i] === img.id);
    const left = [t.annotator, t.annotator2, third].find((_, i) => got[i] !== img.id)!;
    for (const who of holders) expect((await queueNext(who)).body.image.id).toBe(img.id);
    expect((await queueNext(left)).status).toBe(204);
    expect((await image(img.id)).status).toBe('annotating');
    const drafts = (await draftsOf(t.reviewer, img.id)).body.drafts;
    expect(drafts.map((d: { user: { id: string } }) => d.user.id).sort()).toEqual(holders.map((h) => h.userId).sort());
    [a, b] = [holders[0]!, holders[1]!];
  });

  it('each draft is its own: A saves, B and the image see nothing; B saves, A sees only hers', async () => {
    const saved = await save(a, img, [box('a1', 0)], 0);
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body).toMatchObject({ version: 1, new_count: 1 });
    expect((await load(a, img.id)).body).toMatchObject({ annotations: [box('a1', 0)], version: 1 });
    expect((await load(b, img.id)).body).toEqual({ annotations: [], version: 0, saved_at: null });
    expect((await load(t.owner, img.id)).body).toEqual({ annotations: [], version: 0, saved_at: null });
    expect((await t.call(b, 'GET', `/api/v1/annotations/changes/${img.id}?since=0`)).body).toMatchObject({ version: 0, upserts: [] });
    expect((await t.call(t.owner, 'GET', `/api/v1/annotations/history/${img.id}`)).body.entries).toEqual([]);
    expect((await image(img.id)).annotation_count).toBe(0);

    const changes = await t.call(b, 'POST', '/api/v1/annotations/save-changes', { image_id: img.id, project_id: t.project.id, image_filename: img.filename, base_version: 0, upserts: [box('b1', 2)], removed_ids: [] });
    expect(changes.status, JSON.stringify(changes.body)).toBe(200);
    expect((await load(b, img.id)).body).toMatchObject({ annotations: [box('b1', 2)], version: 1 });
    // The same change again (a retry, a second tab), and a removal of an id the draft lacks: no new version.
    const again = await t.call(b, 'POST', '/api/v1/annotations/save-changes', { image_id: img.id, project_id: t.project.id, image_filename: img.filename, base_version: 1, upserts: [box('b1', 2)], removed_ids: ['nothing'] });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ version: 1, new_count: 1, saved_at: changes.body.saved_at });
    expect((await load(b, img.id)).body).toMatchObject({ annotations: [box('b1', 2)], version: 1 });
    expect((await load(a, img.id)).body.annotations).toEqual([box('a1', 0)]);
    expect((await t.call(a, 'GET', `/api/v1/annotations/changes/${img.id}?since=0`)).body.upserts).toEqual([box('a1', 0)]);
    // A stale base on one's own draft is a conflict with one's own list, not the other's.
    const stale = await save(a, img, [box('a1', 1)], 0);
    expect(stale.status).toBe(409);
    expect(stale.body.current.annotations).toEqual([box('a1', 0)]);
    expect((await exported())[img.filename]).toEqual([]);
  });

  it('drafts are for reviewers, admins and owners (annotators 403, another organization 404), agreement null until all submitted', async () => {
    expect((await draftsOf(t.annotator, img.id)).status).toBe(403);
    expect((await draftsOf(t.viewer, img.id)).status).toBe(403);
    const stranger = await onboardedUser(server);
    expect((await draftsOf(stranger, img.id)).status).toBe(404);
    expect((await merge(stranger, img.id, [])).status).toBe(404);
    const res = await draftsOf(t.admin, img.id);
    expect(res.status).toBe(200);
    expect(res.body.agreement).toBeNull();
    const names = new Map([[t.annotator.userId, 'Ann Otator'], [t.annotator2.userId, 'Bea Second'], [third.userId, 'Cy Third']]);
    for (const d of res.body.drafts) expect(d.user.name).toBe(names.get(d.user.id));
    expect(res.body.drafts.find((d: { user: { id: string } }) => d.user.id === a.userId)).toMatchObject({ annotations: [box('a1', 0)], submitted_at: null });
    const early = await merge(t.reviewer, img.id, []);
    expect(early.status).toBe(409);
    expect(early.body.code).toBe('consensus_pending');
    // Someone without a draft cannot hand the image in for them.
    const forced = await submit(t.owner, img.id);
    expect(forced.status).toBe(409);
    expect(forced.body.code).toBe('consensus_pending');
  });

  it('submit marks the draft; the last of the two moves the image to review with the agreement', async () => {
    const first = await submit(a, img.id);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.image.status).toBe('annotating');
    expect((await submit(a, img.id)).status).toBe(409);
    const late = await save(a, img, [box('a1', 5)]);
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('invalid_transition');
    expect((await load(a, img.id)).body.annotations).toEqual([box('a1', 0)]);
    const last = await submit(b, img.id);
    expect(last.status).toBe(200);
    expect(last.body.image.status).toBe('review');
    const res = await draftsOf(t.reviewer, img.id);
    expect(res.body.drafts.every((d: { submitted_at: string | null }) => typeof d.submitted_at === 'string')).toBe(true);
    // a1 at x 0 and b1 at x 2: IoU 80/120, matched, so F1 1 and mean IoU 2/3.
    expect(res.body.agreement.f1).toBe(1);
    expect(res.body.agreement.mean_iou).toBeCloseTo(2 / 3, 12);
    expect((await exported())[img.filename]).toEqual([]);
  });

  it('the merge is checked like a save, becomes the annotations as one history entry by the reviewer, and reaches the export', async () => {
    expect((await merge(t.annotator, img.id, [box('m1', 1)])).status).toBe(403);
    const unknown = await merge(t.reviewer, img.id, [box('m1', 1, 10, 'truck')]);
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('unknown_class');
    expect((await merge(t.reviewer, img.id, [{ id: 'bad', name: 'car' }])).status).toBe(400);
    const merged = await merge(t.reviewer, img.id, [box('m1', 1), box('m2', 25)]);
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    expect(merged.body).toMatchObject({ success: true, version: 1, image: { id: img.id, annotation_count: 2, status: 'review', overlap: 2 } });
    expect((await load(t.owner, img.id)).body).toMatchObject({ annotations: [box('m1', 1), box('m2', 25)], version: 1 });
    const history = (await t.call(t.owner, 'GET', `/api/v1/annotations/history/${img.id}`)).body.entries;
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ version: 1, user_id: t.reviewer.userId, user_name: 'Rex Viewer', added: 2, merged: true });
    // The drafts stay for the record; the annotators now see the image's annotations (it left annotating).
    expect((await draftsOf(t.reviewer, img.id)).body.drafts).toHaveLength(2);
    expect((await load(t.annotator, img.id)).body.annotations).toEqual([box('m1', 1), box('m2', 25)]);
    expect((await exported())[img.filename]).toEqual([box('m1', 1), box('m2', 25)]);
    // The project's counts follow the merge (and never counted the drafts).
    const stats = await t.call(t.owner, 'GET', `/api/v1/annotations/stats/${t.project.id}`);
    expect(stats.body).toMatchObject({ total_annotations: 2, by_class: { car: 2 }, images_by_class: { car: 1 }, images_with_annotations: 1 });
  });

  it('merge of an image that is not overlapped is 409 not_overlapped; a reject hands the drafts back', async () => {
    const plain = await t.newImage();
    const res = await merge(t.reviewer, plain.id, []);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('not_overlapped');
    expect((await draftsOf(t.reviewer, plain.id)).body).toEqual({ drafts: [], agreement: null });
    const rejected = await t.call(t.reviewer, 'POST', `/api/v1/images/${img.id}/review`, { decision: 'reject' });
    expect(rejected.status).toBe(200);
    expect((await queueNext(a)).body.image.id).toBe(img.id);
    expect((await draftsOf(t.reviewer, img.id)).body.agreement).toBeNull();
  });
});
