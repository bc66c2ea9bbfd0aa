// Keypoint skeleton instances through the annotation API (issue 33 §4): one annotation per
// instance with one {x, y, v} per named point of its class, the box derived when left out, the
// load-data columns carrying them, and a clear 400 for a client that sends them wrongly.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, projectWithImage, sharedServer, type TestServer } from './harness';
import { png, uploadImage, type Member } from '../fixtures/datasets';

let server: TestServer;
let owner: Member;
let project: { id: string };

const PERSON = { name: 'person', color: '#FFADAD', kind: 'skeleton', skeleton: { points: ['nose', 'left_eye', 'right_eye'], edges: [[0, 1], [0, 2]] } };
const CLASSES = [PERSON, { name: 'car', type: 'box', color: '#CAFFBF' }, { name: 'head', type: 'keypoint', color: '#9BF6FF' }];

beforeAll(async () => {
  server = await sharedServer();
  ({ owner, project } = await projectWithImage(server, { classes: CLASSES }));
}, 120_000);

let n = 0;
async function newImage() {
  n += 1;
  const img = await uploadImage(server, owner, project.id, `s${n}.png`, await png(40, 40));
  return { id: img.id, filename: img.filename };
}
const save = (img: { id: string; filename: string }, annotations: unknown[]) =>
  api(server.url, 'POST', '/api/v1/annotations/save-data', { token: owner.token, body: { image_id: img.id, project_id: project.id, image_filename: img.filename, annotations } });
const saveChanges = (img: { id: string; filename: string }, upserts: unknown[]) =>
  api(server.url, 'POST', '/api/v1/annotations/save-changes', { token: owner.token, body: { image_id: img.id, project_id: project.id, image_filename: img.filename, upserts, removed_ids: [], base_version: 0 } });
const load = (img: { id: string }, q = '') => api(server.url, 'GET', `/api/v1/annotations/load-data/${img.id}?project_id=${project.id}${q}`, { token: owner.token });

const points = [{ x: 10, y: 12, v: 2 }, { x: 0, y: 0, v: 0 }, { x: 20.5, y: 4, v: 1 }];

describe('skeleton instances (issue 33 §4)', () => {
  it('save without a box, load back with the box of the labelled points, as JSON and in columns, and count as skeletons', async () => {
    const img = await newImage();
    const res = await save(img, [{ id: 's1', name: 'person', points }]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const expected = { id: 's1', name: 'person', bounding_box: { x: 10, y: 4, w: 10.5, h: 8 }, points };
    expect((await load(img)).body.annotations).toEqual([expected]);
    const cols = await load(img, '&encoding=columns');
    expect(cols.body.annotations[0].k).toEqual([4]);
    expect(cols.body.annotations[0].v).toEqual([2, 0, 1]);
    const stats = await api(server.url, 'GET', `/api/v1/annotations/stats/${project.id}`, { token: owner.token });
    expect(stats.body.by_type).toMatchObject({ skeleton: 1, keypoint: 0 });
  });

  it('answer 400 invalid_skeleton naming the annotation for the wrong number of points, points drawn one by one, or points on another class', async () => {
    const img = await newImage();
    const cases: [unknown, RegExp][] = [
      [{ id: 'a', name: 'person', points: points.slice(0, 2) }, /class "person" is a skeleton of 3 points \(nose, left_eye, right_eye\): "points" holds 2/],
      [{ id: 'b', name: 'person', bounding_box: { x: 1, y: 1, w: 0, h: 0 }, keypoint: { x: 1, y: 1 } }, /class "person" is a skeleton: send one annotation per instance with "points"/],
      [{ id: 'c', name: 'head', points }, /class "head" is not a skeleton class/],
    ];
    for (const [a, re] of cases) {
      for (const res of [await save(img, [a]), await saveChanges(img, [a])]) {
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ success: false, code: 'invalid_skeleton', index: 0 });
        expect(res.body.error).toMatch(re);
      }
    }
    // The shape itself is the schema's: a v outside 0-2 is an invalid annotation, named by its field.
    const bad = await save(img, [{ id: 'd', name: 'person', points: [{ x: 1, y: 1, v: 2 }, { x: 0, y: 0, v: 0 }, { x: 1, y: 1, v: 5 }] }]);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'invalid_annotation', index: 0 });
    expect(bad.body.error).toMatch(/points\[2\]\.v: A point's v must be 0/);
    expect((await load(img)).body.annotations).toEqual([]);
  });
});
