// The annotation calls (/api/v1/annotations) as a client sees them: load and save with versions,
// conflicts, status and counters, validation of every annotation, body limits, batch saves,
// the stage call, stats, roles and tenant isolation.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';
import { organizationMembers } from '../../src/server/db/schema';

let server: TestServer;
let owner: Member;
let stranger: Member;
let viewer: { token: string; userId: string };
let annotator: { token: string; userId: string };
let project: { id: string };
let otherProject: { id: string };
let foreign: { id: string; filename: string; projectId: string };

const CLASSES = [
  { name: 'car', type: 'box', color: '#FFADAD' },
  { name: 'road', type: 'polygon', color: '#CAFFBF' },
  { name: 'lane', type: 'polyline', color: '#9BF6FF' },
  { name: 'head', type: 'keypoint', color: '#FFD6A5' },
];

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
  stranger = await onboardedUser(server);
  project = await createProject(server, owner);
  otherProject = await createProject(server, owner);
  const patch = await api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { classes: CLASSES } });
  if (patch.status !== 200) throw new Error(JSON.stringify(patch.body));
  const theirs = await createProject(server, stranger);
  await api(server.url, 'PATCH', `/api/v1/projects/${theirs.id}`, { token: stranger.token, body: { classes: CLASSES } });
  const img = await uploadImage(server, stranger, theirs.id, 'theirs.png', await png(6, 6));
  foreign = { id: img.id, filename: img.filename, projectId: theirs.id };
  const db = server.built.ctx.db;
  viewer = await onboardedUser(server);
  await db.insert(organizationMembers).values({ organizationId: owner.org.id, userId: viewer.userId, role: 'viewer' });
  annotator = await onboardedUser(server);
  await db.insert(organizationMembers).values({ organizationId: owner.org.id, userId: annotator.userId, role: 'annotator' });
}, 120_000);

let imageCounter = 0;
async function newImage(p = project) {
  imageCounter += 1;
  const img = await uploadImage(server, owner, p.id, `img${imageCounter}.png`, await png(20 + imageCounter, 20));
  return { id: img.id, filename: img.filename };
}

const loadData = (imageId: string, token = owner.token, projectId = project.id) =>
  api(server.url, 'GET', `/api/v1/annotations/load-data/${imageId}?project_id=${projectId}`, { token });
const saveData = (img: { id: string; filename: string }, annotations: unknown[], extra: Record<string, unknown> = {}, token = owner.token) =>
  api(server.url, 'POST', '/api/v1/annotations/save-data', { token, body: { image_id: img.id, project_id: project.id, image_filename: img.filename, annotations, ...extra } });
const imageOf = async (id: string) => (await api(server.url, 'GET', `/api/v1/images/${id}`, { token: owner.token })).body.image;
const projectOf = async (id = project.id) => (await api(server.url, 'GET', `/api/v1/projects/${id}`, { token: owner.token })).body.project;

/** A load-data body: saved_at is null until the first save, then the server's save time. */
const doc = (annotations: unknown[], version: number) => ({ annotations, version, saved_at: version === 0 ? null : expect.any(String) });

const box = (id: string, name = 'car') => ({ id, name, bounding_box: { x: 1, y: 2, w: 30, h: 40 }, attributes: [] });

/** One annotation of every kind, with attributes and keys the schema does not know. */
const EVERY_KIND = [
  { id: 'b1', name: 'car', bounding_box: { x: 10.5, y: 20.25, w: 100, h: 50 }, attributes: [{ occluded: true }, 'front'] },
  {
    id: 'p1',
    name: 'road',
    bounding_box: { x: 0, y: 0, w: 10, h: 10 },
    polygon: { path: [[0, 0], [10, 0], [10, 10], [0, 10]], holes: [[[2, 2], [4, 2], [4, 4]]] },
    attributes: [],
    sam2_area: 88.5,
    metadata: { tool_used: 'sam2', score: 0.97 },
  },
  { id: 'l1', name: 'lane', bounding_box: { x: 0, y: 0, w: 5, h: 5 }, polyline: { path: [[0, 0], [5, 5]] }, attributes: [{ k: null }] },
  { id: 'k1', name: 'head', bounding_box: { x: 3, y: 4, w: 0, h: 0 }, keypoint: { x: 3, y: 4 } },
  { id: 's1', name: 'road', bounding_box: { x: 0, y: 0, w: 5, h: 4 }, segmentation: { size: [4, 5], counts: [3, 10, 7] }, attributes: [] },
  { id: 's2', name: 'car', bounding_box: { x: 0, y: 0, w: 5, h: 1 }, segmentation: { size: [1, 5], counts: '5' } },
];

describe('load-data and save-data', () => {
  it('loads an image never saved as an empty document at version 0, under both names', async () => {
    const img = await newImage();
    const res = await loadData(img.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(doc([], 0));
    const alias = await api(server.url, 'GET', `/api/v1/annotations/load/${img.id}?project_id=${project.id}`, { token: owner.token });
    expect(alias.body).toEqual(doc([], 0));
    // project_id is optional; a wrong one is a 404.
    expect((await api(server.url, 'GET', `/api/v1/annotations/load-data/${img.id}`, { token: owner.token })).body.version).toBe(0);
    expect((await loadData(img.id, owner.token, otherProject.id)).status).toBe(404);
    expect((await api(server.url, 'GET', `/api/v1/annotations/load-data/${img.id}`)).status).toBe(401);
    expect((await api(server.url, 'GET', '/api/v1/annotations/load-data/not-a-uuid', { token: owner.token })).status).toBe(400);
  });

  it('saves every shape kind and loads it back exactly; each save adds a version', async () => {
    const img = await newImage();
    const before = await projectOf();
    const first = await saveData(img, EVERY_KIND);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status_updated: true, new_count: EVERY_KIND.length, version: 1 });
    const loaded = await loadData(img.id);
    expect(loaded.body).toEqual(doc(EVERY_KIND, 1));
    const image = await imageOf(img.id);
    expect(image).toMatchObject({ status: 'annotating', annotation_count: EVERY_KIND.length });
    expect((await projectOf()).annotation_count).toBe(before.annotation_count + EVERY_KIND.length);

    // A second save: version 2, status stays, the counters follow the new list.
    const second = await saveData(img, EVERY_KIND.slice(0, 2), { base_version: 1 });
    expect(second.body).toMatchObject({ status_updated: false, new_count: 2, version: 2 });
    expect((await loadData(img.id)).body).toEqual(doc(EVERY_KIND.slice(0, 2), 2));
    expect((await imageOf(img.id)).annotation_count).toBe(2);
    expect((await projectOf()).annotation_count).toBe(before.annotation_count + 2);

    // Without base_version the save applies whatever the version (last write wins); /save is the same call.
    const third = await api(server.url, 'POST', '/api/v1/annotations/save', { token: owner.token, body: { image_id: img.id, project_id: project.id, image_filename: img.filename, annotations: [] } });
    expect(third.status).toBe(200);
    expect(third.body).toMatchObject({ status_updated: false, new_count: 0, version: 3 });
    expect((await imageOf(img.id))).toMatchObject({ status: 'annotating', annotation_count: 0 });
    expect((await projectOf()).annotation_count).toBe(before.annotation_count);
  });

  it('leaves a new image new when the save holds no annotation', async () => {
    const img = await newImage();
    const res = await saveData(img, []);
    expect(res.body).toMatchObject({ status_updated: false, new_count: 0, version: 1 });
    expect((await imageOf(img.id)).status).toBe('new');
  });

  it('answers a stale base_version with 409 and the current document, writing nothing', async () => {
    const img = await newImage();
    await saveData(img, [box('a')]);
    await saveData(img, [box('a'), box('b')], { base_version: 1 });
    const stale = await saveData(img, [box('c')], { base_version: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ success: false, code: 'version_conflict', current: { annotations: [box('a'), box('b')], version: 2 } });
    expect(stale.body.error).toMatch(/version/);
    expect((await loadData(img.id)).body.version).toBe(2);
    expect((await imageOf(img.id)).annotation_count).toBe(2);
    // A base_version ahead of the document is stale too.
    expect((await saveData(img, [], { base_version: 7 })).status).toBe(409);
  });

  it('stamps each save with the server time it landed: the save answer, load-data and a 409 agree', async () => {
    const img = await newImage();
    const t0 = Date.now();
    const first = await saveData(img, [box('a')]);
    expect(first.status).toBe(200);
    const savedAt = Date.parse(first.body.saved_at);
    expect(savedAt).toBeGreaterThanOrEqual(t0 - 1000);
    expect(savedAt).toBeLessThanOrEqual(Date.now() + 1000);
    expect((await loadData(img.id)).body.saved_at).toBe(first.body.saved_at);
    await new Promise((r) => setTimeout(r, 5));
    const second = await saveData(img, [box('a'), box('b')], { base_version: 1 });
    expect(Date.parse(second.body.saved_at)).toBeGreaterThan(savedAt);
    const stale = await saveData(img, [box('c')], { base_version: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body.current).toEqual({ annotations: [box('a'), box('b')], version: 2, saved_at: second.body.saved_at });
    const batch = await api(server.url, 'POST', '/api/v1/annotations/batch-save-data', {
      token: owner.token,
      body: { saves: [{ image_id: img.id, project_id: project.id, image_filename: img.filename, annotations: [], base_version: 2 }] },
    });
    expect(batch.body.results[0]).toMatchObject({ status: 'saved', version: 3 });
    expect((await loadData(img.id)).body.saved_at).toBe(batch.body.results[0].saved_at);
  });

  it('lets exactly one of several concurrent saves on the same base_version win', async () => {
    const img = await newImage();
    await saveData(img, [box('start')]);
    const before = await projectOf();
    const results = await Promise.all([1, 2, 3, 4].map((n) => saveData(img, Array.from({ length: n }, (_, i) => box(`n${n}-${i}`)), { base_version: 1 })));
    const won = results.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(3);
    expect(won[0].body.version).toBe(2);
    const doc = (await loadData(img.id)).body;
    expect(doc.version).toBe(2);
    expect(doc.annotations).toHaveLength(won[0].body.new_count);
    expect((await imageOf(img.id)).annotation_count).toBe(won[0].body.new_count);
    expect((await projectOf()).annotation_count).toBe(before.annotation_count - 1 + won[0].body.new_count);
  });

  it('keeps completed_image_count in step and never demotes a complete image', async () => {
    const img = await newImage();
    const before = await projectOf();
    const stage = await api(server.url, 'PATCH', '/api/v1/annotations/status', { token: owner.token, body: { image_id: img.id, project_id: project.id, status: 'complete' } });
    expect(stage.status).toBe(200);
    expect(stage.body).toMatchObject({ success: true, previous_status: 'new', image: { status: 'complete' } });
    expect((await projectOf()).completed_image_count).toBe(before.completed_image_count + 1);
    const saved = await saveData(img, [box('x')]);
    expect(saved.body).toMatchObject({ status_updated: false, new_count: 1 });
    expect((await imageOf(img.id)).status).toBe('complete');
    expect((await projectOf()).completed_image_count).toBe(before.completed_image_count + 1);
    // The cycle form, and a wrong project is a 404.
    const cycled = await api(server.url, 'PATCH', '/api/v1/annotations/status', { token: owner.token, body: { image_id: img.id, project_id: project.id, cycle: true } });
    expect(cycled.body.image.status).toBe('new');
    expect((await projectOf()).completed_image_count).toBe(before.completed_image_count);
    expect((await api(server.url, 'PATCH', '/api/v1/annotations/status', { token: owner.token, body: { image_id: img.id, project_id: otherProject.id, status: 'complete' } })).status).toBe(404);
    expect((await api(server.url, 'PATCH', '/api/v1/annotations/status', { token: owner.token, body: { image_id: img.id, project_id: project.id, status: 'done' } })).status).toBe(400);
  });
});

describe('validation', () => {
  const poly = (path: unknown) => ({ id: 'p', name: 'road', bounding_box: { x: 0, y: 0, w: 1, h: 1 }, polygon: { path } });
  const cases: [string, unknown[], RegExp][] = [
    ['a polygon with 2 points', [box('ok'), poly([[0, 0], [1, 1]])], /Annotation 1 \(id "p"\).*polygon\.path.*at least 3 points/],
    ['a polyline with 1 point', [{ ...box('l', 'lane'), polyline: { path: [[0, 0]] } }], /Annotation 0 \(id "l"\).*polyline\.path.*at least 2 points/],
    ['RLE counts not summing to the size', [{ ...box('s'), segmentation: { size: [4, 5], counts: [3, 10] } }], /Annotation 0 \(id "s"\).*segmentation\.counts.*sum to 13, expected .* 20/],
    ['malformed compressed counts', [{ ...box('s'), segmentation: { size: [4, 5], counts: 'zz' } }], /Annotation 0 \(id "s"\).*segmentation\.counts/],
    ['a string where a number belongs', [{ ...box('n'), bounding_box: { x: 'NaN', y: 0, w: 1, h: 1 } }], /Annotation 0 \(id "n"\).*bounding_box\.x/],
    ['a null where a number belongs', [poly([[0, 0], [1, null], [2, 2]])], /Annotation 0 \(id "p"\).*polygon\.path\[1\]\[1\]/],
    ['a negative width', [{ ...box('w'), bounding_box: { x: 0, y: 0, w: -1, h: 1 } }], /Annotation 0 \(id "w"\).*bounding_box\.w.*negative/],
    ['two shapes in one annotation', [{ ...poly([[0, 0], [1, 0], [1, 1]]), keypoint: { x: 1, y: 1 } }], /Annotation 0 \(id "p"\).*one shape/],
    ['duplicate ids', [box('same'), box('other'), box('same')], /Annotation 2 \(id "same"\).*duplicate.*annotation 0/],
    ['a missing id', [{ name: 'car', bounding_box: { x: 0, y: 0, w: 1, h: 1 } }], /Annotation 0: id/],
    ['a missing bounding box', [{ id: 'nb', name: 'car' }], /Annotation 0 \(id "nb"\).*bounding_box/],
    ['not an object', [box('ok'), 42], /Annotation 1: /],
    ['an unknown class', [box('u', 'truck')], /^Unknown class "truck"$/],
    ['a segmentation with an unknown class', [{ ...box('s', 'mask'), segmentation: { size: [1, 2], counts: [2] } }], /^Unknown class "mask"$/],
  ];

  it.each(cases)('refuses %s with 400 naming the annotation, writing nothing', async (_what, annotations, message) => {
    const img = await newImage();
    await saveData(img, [box('kept')]);
    const before = await projectOf();
    const res = await saveData(img, annotations, { base_version: 1 });
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error).toMatch(message);
    expect((await loadData(img.id)).body).toEqual(doc([box('kept')], 1));
    expect((await imageOf(img.id)).annotation_count).toBe(1);
    expect((await projectOf()).annotation_count).toBe(before.annotation_count);
  });

  it('refuses a wrong image_filename, a missing field and malformed JSON with 400', async () => {
    const img = await newImage();
    const wrong = await saveData({ id: img.id, filename: 'other.png' }, [box('a')]);
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ code: 'filename_mismatch' });
    expect(wrong.body.error).toContain('other.png');
    const missing = await api(server.url, 'POST', '/api/v1/annotations/save-data', { token: owner.token, body: { image_id: img.id, project_id: project.id, annotations: [] } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/image_filename/);
    const notArray = await saveData(img, 'nope' as unknown as unknown[]);
    expect(notArray.status).toBe(400);
    // JSON cannot carry NaN or Infinity, but 1e999 parses to Infinity.
    const infinite = await api(server.url, 'POST', '/api/v1/annotations/save-data', {
      token: owner.token,
      body: `{"image_id":"${img.id}","project_id":"${project.id}","image_filename":"${img.filename}","annotations":[{"id":"i","name":"head","bounding_box":{"x":0,"y":0,"w":0,"h":0},"keypoint":{"x":1e999,"y":0}}]}`,
    });
    expect(infinite.status).toBe(400);
    expect(infinite.body.error).toMatch(/Annotation 0 \(id "i"\).*keypoint\.x.*(finite|Infinity)/);
    const broken = await api(server.url, 'POST', '/api/v1/annotations/save-data', { token: owner.token, body: '{"image_id": ' });
    expect(broken.status).toBe(400);
    expect((await loadData(img.id)).body.version).toBe(0);
  });

  it('refuses NaN coordinates: a NaN literal is not JSON, and NaN serialised by JSON.stringify arrives as null', async () => {
    const img = await newImage();
    const literal = await api(server.url, 'POST', '/api/v1/annotations/save-data', {
      token: owner.token,
      body: `{"image_id":"${img.id}","project_id":"${project.id}","image_filename":"${img.filename}","annotations":[{"id":"n","name":"car","bounding_box":{"x":NaN,"y":0,"w":1,"h":1}}]}`,
    });
    expect(literal.status).toBe(400);
    expect(literal.body.success).toBe(false);
    // What a browser client sends for NaN: JSON.stringify turns it into null.
    const stringified = await saveData(img, [{ id: 'n', name: 'road', bounding_box: { x: 0, y: 0, w: 1, h: 1 }, polygon: { path: [[0, 0], [NaN, 1], [2, 2]] } }]);
    expect(stringified.status).toBe(400);
    expect(stringified.body.error).toMatch(/Annotation 0 \(id "n"\).*polygon\.path\[1\]\[0\]/);
    expect((await loadData(img.id)).body).toEqual(doc([], 0));
  });

  it('refuses 10 MB of annotations with 413 and a clear message, writing nothing', async () => {
    const img = await newImage();
    const big = Array.from({ length: 90_000 }, (_, i) => ({ ...box(`id-${i}`), attributes: ['x'.repeat(60)] }));
    expect(JSON.stringify(big).length).toBeGreaterThan(10 * 1024 * 1024);
    const res = await saveData(img, big);
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ success: false, code: 'payload_too_large' });
    expect(res.body.error).toMatch(/annotations are too large.*8 MB/);
    expect((await loadData(img.id)).body.version).toBe(0);
    // Large but under the limit is fine: 20k boxes.
    const many = Array.from({ length: 20_000 }, (_, i) => box(`m-${i}`));
    const ok = await saveData(img, many);
    expect(ok.status).toBe(200);
    expect(ok.body.new_count).toBe(20_000);
    expect((await loadData(img.id)).body.annotations).toHaveLength(20_000);
  });
});

describe('save-changes', () => {
  const saveChanges = (img: { id: string; filename: string }, body: Record<string, unknown>, token = owner.token) =>
    api(server.url, 'POST', '/api/v1/annotations/save-changes', { token, body: { image_id: img.id, project_id: project.id, image_filename: img.filename, ...body } });
  const box = (id: string, x: number) => ({ id, name: 'car', bounding_box: { x, y: 1, w: 5, h: 5 } });

  it('replaces changed shapes in place, appends new ones, drops removed ones, and counts a version', async () => {
    const img = await newImage();
    expect((await saveData(img, [box('a', 1), box('b', 2), box('c', 3)])).body.version).toBe(1);
    const res = await saveChanges(img, { base_version: 1, upserts: [box('b', 20), box('d', 4)], removed_ids: ['a', 'never-there'] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, version: 2, new_count: 3, status: 'annotating' });
    const loaded = await loadData(img.id);
    expect(loaded.body.annotations).toEqual([box('b', 20), box('c', 3), box('d', 4)]);
    expect(loaded.body.version).toBe(2);
    expect((await imageOf(img.id)).annotation_count).toBe(3);
  });

  it('answers a stale base_version whose shape changed since with 409 and the current document, writing nothing', async () => {
    const img = await newImage();
    await saveData(img, [box('a', 1)]);
    await saveData(img, [box('a', 1), box('b', 2)]);
    const res = await saveChanges(img, { base_version: 1, upserts: [box('b', 3)] });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'version_conflict', current: { version: 2, annotations: [box('a', 1), box('b', 2)] } });
    expect((await loadData(img.id)).body.version).toBe(2);
  });

  it('refuses a bad shape, an unknown class, a shape both changed and removed, and a missing base_version, writing nothing', async () => {
    const img = await newImage();
    await saveData(img, [box('a', 1)]);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ base_version: 1, upserts: [{ id: 'x', name: 'car', bounding_box: { x: 'left', y: 1, w: 5, h: 5 } }] }, /Annotation 0 \(id "x"\): bounding_box\.x/],
      [{ base_version: 1, upserts: [{ ...box('x', 1), name: 'tree' }] }, /Unknown class "tree"/],
      [{ base_version: 1, upserts: [box('a', 9)], removed_ids: ['a'] }, /"a" is both changed and removed/],
      [{ upserts: [box('x', 1)] }, /base_version/],
    ];
    for (const [body, message] of cases) {
      const res = await saveChanges(img, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(message);
    }
    expect(await loadData(img.id).then((r) => r.body)).toMatchObject({ version: 1, annotations: [box('a', 1)] });
  });

  it('grows a document past the 8 MB a whole save may carry, and keeps saving it by its changes', async () => {
    const img = await newImage();
    const polygon = (id: string) => ({ id, name: 'road', bounding_box: { x: 0, y: 0, w: 100, h: 100 }, polygon: { path: Array.from({ length: 40 }, (_, k) => [50 + 40 * Math.cos(k), 50 + 40 * Math.sin(k)].map((v) => Math.round(v * 10) / 10)), holes: [] } });
    let version = 0;
    for (let batch = 0; batch < 4; batch++) {
      const upserts = Array.from({ length: 4000 }, (_, i) => polygon(`p${batch}-${i}`));
      const res = await saveChanges(img, { base_version: version, upserts });
      expect(res.status).toBe(200);
      version = res.body.version;
    }
    const whole = await loadData(img.id);
    expect(whole.body.annotations).toHaveLength(16_000);
    expect(JSON.stringify(whole.body.annotations).length).toBeGreaterThan(8 * 1024 * 1024);
    expect((await saveData(img, whole.body.annotations, { base_version: version })).status).toBe(413);
    const moved = await saveChanges(img, { base_version: version, upserts: [{ ...polygon('p3-17'), bounding_box: { x: 5, y: 5, w: 100, h: 100 } }], removed_ids: ['p0-0'] });
    expect(moved.body).toMatchObject({ version: version + 1, new_count: 15_999 });
  }, 120_000);

  it('takes change-only entries in batch-save-data beside whole ones', async () => {
    const a = await newImage();
    const b = await newImage();
    await saveData(a, [box('a', 1)]);
    const res = await api(server.url, 'POST', '/api/v1/annotations/batch-save-data', {
      token: owner.token,
      body: {
        saves: [
          { image_id: a.id, project_id: project.id, image_filename: a.filename, base_version: 1, upserts: [box('b', 2)], removed_ids: ['a'] },
          { image_id: b.id, project_id: project.id, image_filename: b.filename, annotations: [box('z', 1)] },
          { image_id: a.id, project_id: project.id, image_filename: a.filename, upserts: [] },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['saved', 'saved', 'error']);
    expect(res.body.results[2].error).toMatch(/base_version/);
    expect((await loadData(a.id)).body.annotations).toEqual([box('b', 2)]);
  });

  it('is refused to a viewer and answers another organization\'s image with 404', async () => {
    const img = await newImage();
    expect((await saveChanges(img, { base_version: 0, upserts: [box('a', 1)] }, viewer.token)).status).toBe(403);
    expect((await saveChanges(foreign, { base_version: 0, upserts: [box('a', 1)] })).status).toBe(404);
  });
});

describe('batch-save-data', () => {
  it('saves each entry on its own: saved, conflict and error side by side', async () => {
    const [a, b, c, d] = [await newImage(), await newImage(), await newImage(), await newImage()];
    await saveData(b, [box('b0')]);
    await saveData(b, [box('b0'), box('b1')]);
    const save = (img: { id: string; filename: string }, annotations: unknown[], extra: Record<string, unknown> = {}) => ({ image_id: img.id, project_id: project.id, image_filename: img.filename, annotations, ...extra });
    const res = await api(server.url, 'POST', '/api/v1/annotations/batch-save-data', {
      token: owner.token,
      body: {
        saves: [
          save(a, [box('a1')], { base_version: 0 }),
          save(b, [box('stale')], { base_version: 1 }),
          save(c, [box('c', 'truck')]),
          save({ id: foreign.id, filename: foreign.filename }, [box('f')]),
          { image_id: d.id },
          save(d, EVERY_KIND),
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, saved: 2, failed: 4 });
    const [ra, rb, rc, rf, rbad, rd] = res.body.results;
    expect(ra).toMatchObject({ image_id: a.id, status: 'saved', version: 1, status_updated: true, image_status: 'annotating', new_count: 1 });
    expect(rb).toMatchObject({ image_id: b.id, status: 'conflict', code: 'version_conflict', current: { annotations: [box('b0'), box('b1')], version: 2 } });
    expect(rc).toMatchObject({ image_id: c.id, status: 'error', error: 'Unknown class "truck"' });
    expect(rf).toMatchObject({ image_id: foreign.id, status: 'error', code: 'not_found' });
    expect(rbad).toMatchObject({ image_id: d.id, status: 'error' });
    expect(rbad.error).toMatch(/project_id/);
    expect(rd).toMatchObject({ image_id: d.id, status: 'saved', version: 1, new_count: EVERY_KIND.length });
    expect((await loadData(a.id)).body).toEqual(doc([box('a1')], 1));
    expect((await loadData(b.id)).body.version).toBe(2);
    expect((await loadData(c.id)).body.version).toBe(0);
    expect((await loadData(d.id)).body.annotations).toEqual(EVERY_KIND);
    expect((await api(server.url, 'GET', `/api/v1/annotations/load-data/${foreign.id}`, { token: stranger.token })).body.version).toBe(0);
  });

  it('refuses a 10 MB save inside a batch on its own, saving the others', async () => {
    const [small, large] = [await newImage(), await newImage()];
    const big = Array.from({ length: 90_000 }, (_, i) => ({ ...box(`id-${i}`), attributes: ['x'.repeat(60)] }));
    const res = await api(server.url, 'POST', '/api/v1/annotations/batch-save-data', {
      token: owner.token,
      body: {
        saves: [
          { image_id: large.id, project_id: project.id, image_filename: large.filename, annotations: big },
          { image_id: small.id, project_id: project.id, image_filename: small.filename, annotations: [box('s')] },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ saved: 1, failed: 1 });
    expect(res.body.results[0]).toMatchObject({ image_id: large.id, status: 'error', code: 'payload_too_large' });
    expect(res.body.results[0].error).toMatch(/8 MB/);
    expect((await loadData(large.id)).body.version).toBe(0);
    expect((await loadData(small.id)).body).toEqual(doc([box('s')], 1));
    // Over the batch limit (16 MB) the whole request is refused with 413.
    const huge = await api(server.url, 'POST', '/api/v1/annotations/batch-save-data', {
      token: owner.token,
      body: { saves: [0, 1].map(() => ({ image_id: large.id, project_id: project.id, image_filename: large.filename, annotations: big })) },
    });
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ success: false, code: 'payload_too_large' });
    expect(huge.body.error).toMatch(/16 MB/);
  });

  it('takes at most 100 saves and at least one', async () => {
    const img = await newImage();
    const one = { image_id: img.id, project_id: project.id, image_filename: img.filename, annotations: [] };
    const tooMany = await api(server.url, 'POST', '/api/v1/annotations/batch-save-data', { token: owner.token, body: { saves: Array.from({ length: 101 }, () => one) } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatch(/100/);
    expect((await api(server.url, 'POST', '/api/v1/annotations/batch-save-data', { token: owner.token, body: { saves: [] } })).status).toBe(400);
    expect((await loadData(img.id)).body.version).toBe(0);
  });
});

describe('stats', () => {
  it('counts annotations by type and class over the project documents', async () => {
    const p = await createProject(server, owner);
    await api(server.url, 'PATCH', `/api/v1/projects/${p.id}`, { token: owner.token, body: { classes: CLASSES } });
    const imgs = [await newImage(p), await newImage(p), await newImage(p)];
    const save = (img: { id: string; filename: string }, annotations: unknown[]) =>
      api(server.url, 'POST', '/api/v1/annotations/save-data', { token: owner.token, body: { image_id: img.id, project_id: p.id, image_filename: img.filename, annotations } });
    expect((await save(imgs[0], EVERY_KIND)).status).toBe(200);
    expect((await save(imgs[1], [box('x'), box('y', 'head')])).status).toBe(200);
    const res = await api(server.url, 'GET', `/api/v1/annotations/stats/${p.id}`, { token: viewer.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      project_id: p.id,
      total_annotations: 8,
      by_type: { box: 3, polygon: 1, polyline: 1, keypoint: 1, segmentation: 2, skeleton: 0 },
      by_class: { car: 3, road: 2, lane: 1, head: 2 },
      images_by_class: { car: 2, road: 1, lane: 1, head: 2 },
      images_with_annotations: 2,
      images_total: 3,
    });
    expect((await api(server.url, 'GET', `/api/v1/annotations/stats/${p.id}`, { token: stranger.token })).status).toBe(404);
  });
});

describe('OpenAPI', () => {
  it('documents the annotation calls', async () => {
    const doc = await api(server.url, 'GET', '/api/docs/json');
    expect(doc.status).toBe(200);
    for (const path of ['/api/v1/annotations/load-data/{imageId}', '/api/v1/annotations/load/{id}', '/api/v1/annotations/save-data', '/api/v1/annotations/save', '/api/v1/annotations/batch-save-data', '/api/v1/annotations/status', '/api/v1/annotations/stats/{projectId}']) {
      expect(Object.keys(doc.body.paths)).toContain(path);
    }
  });
});

describe('access', () => {
  it('answers another organization\'s image with 404 on every call', async () => {
    const mine = await newImage();
    expect((await api(server.url, 'GET', `/api/v1/annotations/load-data/${foreign.id}?project_id=${foreign.projectId}`, { token: owner.token })).status).toBe(404);
    expect((await api(server.url, 'GET', `/api/v1/annotations/load/${foreign.id}`, { token: owner.token })).status).toBe(404);
    const save = await api(server.url, 'POST', '/api/v1/annotations/save-data', {
      token: owner.token,
      body: { image_id: foreign.id, project_id: foreign.projectId, image_filename: foreign.filename, annotations: [box('x')] },
    });
    expect(save.status).toBe(404);
    expect(save.body).toMatchObject({ success: false, code: 'not_found' });
    expect((await api(server.url, 'GET', `/api/v1/annotations/load-data/${mine.id}`, { token: stranger.token })).status).toBe(404);
    expect((await saveData(mine, [box('x')], {}, stranger.token)).status).toBe(404);
    expect((await api(server.url, 'PATCH', '/api/v1/annotations/status', { token: stranger.token, body: { image_id: mine.id, project_id: project.id, status: 'complete' } })).status).toBe(404);
    expect((await api(server.url, 'GET', `/api/v1/annotations/load-data/${foreign.id}`, { token: stranger.token })).body.version).toBe(0);
    expect((await loadData(mine.id)).body.version).toBe(0);
  });

  it('lets a viewer load but not save, and an annotator save', async () => {
    const img = await newImage();
    await saveData(img, [box('a')]);
    const read = await loadData(img.id, viewer.token);
    expect(read.status).toBe(200);
    expect(read.body.annotations).toEqual([box('a')]);
    const denied = await saveData(img, [], { base_version: 1 }, viewer.token);
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('forbidden');
    const batch = await api(server.url, 'POST', '/api/v1/annotations/batch-save-data', { token: viewer.token, body: { saves: [{ image_id: img.id, project_id: project.id, image_filename: img.filename, annotations: [] }] } });
    expect(batch.body.results[0]).toMatchObject({ status: 'error', code: 'forbidden' });
    expect((await loadData(img.id)).body).toEqual(doc([box('a')], 1));
    const saved = await saveData(img, [box('a'), box('b')], { base_version: 1 }, annotator.token);
    expect(saved.status).toBe(200);
    expect(saved.body.version).toBe(2);
  });
});
