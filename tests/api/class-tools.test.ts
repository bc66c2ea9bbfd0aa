// Classes for every tool and skeleton classes through the API (issue 33 sections 3 and 4): a class
// may list the tools that draw it (none: every tool), a class given with `type` alone still works
// and reads back with its type's tools, names are unique whatever the tools with a message a person
// can act on (not the schema's field path), an older client's "person" as box and as polygon
// becomes one class, and a skeleton class's points and edges are checked with their own codes.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';

let server: TestServer;
let owner: Member;
let project: { id: string };

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
  project = await createProject(server, owner, 'Tools');
}, 60_000);

const patchClasses = (classes: unknown[]) => api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { classes } });
const classesNow = async () => (await api(server.url, 'GET', `/api/v1/projects/${project.id}`, { token: owner.token })).body.project.classes as Record<string, unknown>[];

const COCO_PERSON = {
  points: ['nose', 'left_eye', 'right_eye', 'left_ear', 'right_ear', 'left_shoulder', 'right_shoulder', 'left_elbow', 'right_elbow', 'left_wrist', 'right_wrist', 'left_hip', 'right_hip', 'left_knee', 'right_knee', 'left_ankle', 'right_ankle'],
  edges: [[15, 13], [13, 11], [16, 14], [14, 12], [11, 12], [5, 11], [6, 12], [5, 6], [5, 7], [6, 8], [7, 9], [8, 10], [1, 2], [0, 1], [0, 2], [1, 3], [2, 4], [3, 5], [4, 6]],
};

describe('class tools', () => {
  it('stores the tools a class lists, in tool order, and leaves a class without tools drawable with every tool', async () => {
    const res = await patchClasses([
      { name: 'person', color: '#F07575', tools: ['polygon', 'box', 'box'] },
      { name: 'anything', color: '#ACF6E7' },
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await classesNow()).toEqual([
      { name: 'person', color: '#F07575', tools: ['box', 'polygon'] },
      { name: 'anything', color: '#ACF6E7' },
    ]);
  });

  it('reads a class given with type alone as its type: a polygon class also draws masks, and keeps its type for older readers', async () => {
    const res = await patchClasses([
      { name: 'car', type: 'box', color: '#F07575' },
      { name: 'road', type: 'polygon', color: '#ACF6E7' },
      { name: 'lane', type: 'polyline', color: '#F075A6' },
      { name: 'nose', type: 'keypoint', color: '#75F0A6' },
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await classesNow()).toEqual([
      { name: 'car', type: 'box', color: '#F07575', tools: ['box'] },
      { name: 'road', type: 'polygon', color: '#ACF6E7', tools: ['polygon', 'mask'] },
      { name: 'lane', type: 'polyline', color: '#F075A6', tools: ['polyline'] },
      { name: 'nose', type: 'keypoint', color: '#75F0A6', tools: ['keypoint'] },
    ]);
    // Widened in the Classes tab: the type no longer says what the class is, so it goes.
    const widened = await patchClasses([{ name: 'car', type: 'box', color: '#F07575', tools: ['box', 'polygon'] }]);
    expect(widened.body.project.classes).toEqual([{ name: 'car', color: '#F07575', tools: ['box', 'polygon'] }]);
  });

  it('makes one class of an older client\'s "person" as box and as polygon', async () => {
    const res = await patchClasses([
      { name: 'person', type: 'box', color: '#F07575' },
      { name: 'tree', type: 'box', color: '#ACF6E7' },
      { name: 'Person', type: 'polygon', color: '#7575F0' },
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.project.classes).toEqual([
      { name: 'person', color: '#F07575', tools: ['box', 'polygon', 'mask'] },
      { name: 'tree', type: 'box', color: '#ACF6E7', tools: ['box'] },
    ]);
  });

  it('refuses a name used twice with a clear message and its own code', async () => {
    const res = await patchClasses([
      { name: 'person', color: '#F07575', tools: ['box'] },
      { name: 'car', color: '#ACF6E7' },
      { name: ' PERSON ', color: '#7575F0', tools: ['polygon'] },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('class_name_taken');
    expect(res.body.class_index).toBe(2);
    expect(res.body.error).toBe('There is already a class named "person". Class names are unique whatever the tools: one class can be drawn with several tools (widen its tools instead).');
    expect(res.body.error).not.toMatch(/Invalid body|classes\.\d/);
  });

  it('refuses an empty tool list and an unknown tool', async () => {
    const empty = await patchClasses([{ name: 'ghost', color: '#F07575', tools: [] }]);
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ code: 'class_tools_empty', error: 'Class "ghost" needs at least one tool (leave tools out to allow every tool)' });
    const unknown = await patchClasses([{ name: 'ghost', color: '#F07575', tools: ['brush'] }]);
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('validation_failed');
  });

  it('creates a project with classes under the same rules', async () => {
    const ok = await api(server.url, 'POST', '/api/v1/projects', { token: owner.token, body: { organization_id: owner.org.id, name: 'Made with tools', classes: [{ name: 'dog', type: 'polygon', color: '#F07575' }, { name: 'cat', color: '#ACF6E7', tools: ['mask'] }] } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.project.classes).toEqual([{ name: 'dog', type: 'polygon', color: '#F07575', tools: ['polygon', 'mask'] }, { name: 'cat', color: '#ACF6E7', tools: ['mask'] }]);
    const twice = await api(server.url, 'POST', '/api/v1/projects', { token: owner.token, body: { organization_id: owner.org.id, name: 'Twice', classes: [{ name: 'dog', color: '#F07575' }, { name: 'dog', color: '#ACF6E7', tools: ['box'] }] } });
    expect(twice.status).toBe(400);
    expect(twice.body.code).toBe('class_name_taken');
  });

  it('saves a box and a polygon of one class on an image', async () => {
    expect((await patchClasses([{ name: 'person', color: '#F07575', tools: ['box', 'polygon'] }])).status).toBe(200);
    const image = await uploadImage(server, owner, project.id, 'people.png', await png(40, 30));
    const annotations = [
      { id: 'b1', name: 'person', bounding_box: { x: 1, y: 1, w: 10, h: 10 } },
      { id: 'p1', name: 'person', bounding_box: { x: 20, y: 2, w: 10, h: 10 }, polygon: { path: [[20, 2], [30, 2], [25, 12]] } },
    ];
    const saved = await api(server.url, 'POST', '/api/v1/annotations/save-data', { token: owner.token, body: { image_id: image.id, project_id: project.id, image_filename: image.filename, annotations } });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const loaded = await api(server.url, 'GET', `/api/v1/annotations/load-data/${image.id}`, { token: owner.token });
    expect((loaded.body.annotations as { id: string; name: string }[]).map((a) => [a.id, a.name]).sort()).toEqual([['b1', 'person'], ['p1', 'person']]);
  });
});

describe('skeleton classes', () => {
  it('stores the COCO person skeleton as given, with no tools of its own', async () => {
    const res = await patchClasses([{ name: 'person', color: '#F07575', kind: 'skeleton', skeleton: COCO_PERSON, tools: ['box'] }]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await classesNow()).toEqual([{ name: 'person', color: '#F07575', kind: 'skeleton', skeleton: COCO_PERSON }]);
  });

  it.each([
    ['no skeleton', { kind: 'skeleton' }, 'skeleton_required', 'a skeleton class needs its skeleton'],
    ['a skeleton on another kind of class', { skeleton: { points: ['a'], edges: [] } }, 'skeleton_required', 'only a class of kind "skeleton" has a skeleton'],
    ['no points', { kind: 'skeleton', skeleton: { points: [], edges: [] } }, 'skeleton_points_invalid', 'at least one point'],
    ['a point without a name', { kind: 'skeleton', skeleton: { points: ['head', '  '], edges: [] } }, 'skeleton_points_invalid', 'point 2 has no name'],
    ['a point named twice', { kind: 'skeleton', skeleton: { points: ['head', 'tail', 'Head'], edges: [] } }, 'skeleton_duplicate_point', 'the point "Head" appears twice'],
    ['an edge past the last point', { kind: 'skeleton', skeleton: { points: ['head', 'tail'], edges: [[0, 2]] } }, 'skeleton_edge_invalid', 'the edge [0, 2] names a point that does not exist (points are numbered 0 to 1)'],
    ['a negative index', { kind: 'skeleton', skeleton: { points: ['head', 'tail'], edges: [[-1, 0]] } }, 'skeleton_edge_invalid', 'does not exist'],
    ['an edge to itself', { kind: 'skeleton', skeleton: { points: ['head', 'tail'], edges: [[1, 1]] } }, 'skeleton_edge_invalid', 'joins a point to itself'],
    ['an edge twice, either way round', { kind: 'skeleton', skeleton: { points: ['head', 'tail'], edges: [[0, 1], [1, 0]] } }, 'skeleton_duplicate_edge', 'the edge between "tail" and "head" appears twice'],
  ])('refuses %s', async (_what, fields, code, words) => {
    const res = await patchClasses([{ name: 'cow', color: '#F07575', ...fields }]);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(code);
    expect(res.body.error).toContain('Class "cow": ');
    expect(res.body.error).toContain(words);
  });

  it('refuses more points or edges than a skeleton may have, and edges that are not index pairs', async () => {
    const many = await patchClasses([{ name: 'cow', color: '#F07575', kind: 'skeleton', skeleton: { points: Array.from({ length: 101 }, (_, i) => `p${i}`), edges: [] } }]);
    expect(many.status).toBe(400);
    expect(many.body.error).toContain('at most 100 points');
    const edges = await patchClasses([{ name: 'cow', color: '#F07575', kind: 'skeleton', skeleton: { points: ['a', 'b'], edges: Array.from({ length: 501 }, () => [0, 1]) } }]);
    expect(edges.status).toBe(400);
    expect(edges.body.error).toContain('at most 500 edges');
    for (const bad of [[[0.5, 1]], [[0, 1, 1]], [['0', '1']]]) {
      const res = await patchClasses([{ name: 'cow', color: '#F07575', kind: 'skeleton', skeleton: { points: ['a', 'b'], edges: bad } }]);
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
  });
});
