// COCO person keypoints with a segmentation (issue 33): the import job makes each person one
// skeleton instance with its points value by value, and keeps its segmentation beside it as a
// polygon of the class "person segmentation" (a skeleton class holds skeletons only) carrying the
// COCO id as `instance`. Exported to COCO and imported again, both come back the same.
import { beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, png, type Member } from '../fixtures/datasets';
import { importFile } from './support/imports';

type Point = { x: number; y: number; v: number };
type Stored = { name: string; points?: Point[]; polygon?: { path: [number, number][] }; bounding_box: { x: number; y: number; w: number; h: number }; instance?: string };

let server: TestServer;
let owner: Member;

const KEYPOINTS = [10, 8, 2, 12.5, 7.25, 1, 0, 0, 0];
const RING = [4, 4, 30, 4, 30, 26, 4, 26, 2, 15];

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
}, 60_000);


async function importInto(zip: JSZip): Promise<{ project: string; annotations: Stored[]; warnings: string[]; classes: { name: string; kind?: string }[] }> {
  const project = (await createProject(server, owner)).id;
  const job = await importFile(server, owner.token, project, 'people.zip', await zip.generateAsync({ type: 'nodebuffer' }), { format: 'coco' });
  expect(job.status, job.error).toBe('done');
  const list = await api(server.url, 'GET', `/api/v1/projects/${project}/images`, { token: owner.token });
  const data = await api(server.url, 'GET', `/api/v1/annotations/load-data/${(list.body.images as { id: string }[])[0]!.id}`, { token: owner.token });
  const classes = (await api(server.url, 'GET', `/api/v1/projects/${project}`, { token: owner.token })).body.project.classes;
  return { project, annotations: data.body.annotations as Stored[], warnings: job.report.warnings, classes };
}

describe('COCO person keypoints with a segmentation', () => {
  it('imports the skeleton, and its outline as a polygon of "person segmentation", and both survive a COCO round trip', { timeout: 120_000 }, async () => {
    const zip = new JSZip();
    zip.file('images/val/person.png', await png(40, 30));
    zip.file(
      'annotations/person_keypoints_val.json',
      JSON.stringify({
        images: [{ id: 1, file_name: 'person.png', width: 40, height: 30 }],
        categories: [{ id: 1, name: 'person', keypoints: ['nose', 'left_eye', 'right_eye'], skeleton: [[1, 2], [1, 3]] }],
        annotations: [{ id: 77, image_id: 1, category_id: 1, iscrowd: 0, bbox: [2, 4, 28, 22], area: 600, num_keypoints: 2, keypoints: KEYPOINTS, segmentation: [RING] }],
      }),
    );
    const first = await importInto(zip);
    expect(first.annotations).toHaveLength(2);
    const skeleton = first.annotations.find((a) => a.name === 'person')!;
    expect(skeleton.points).toEqual([{ x: 10, y: 8, v: 2 }, { x: 12.5, y: 7.25, v: 1 }, { x: 0, y: 0, v: 0 }]);
    expect(skeleton.bounding_box).toEqual({ x: 2, y: 4, w: 28, h: 22 });
    const outline = first.annotations.find((a) => a.name === 'person segmentation')!;
    expect(outline.polygon!.path).toEqual([[4, 4], [30, 4], [30, 26], [4, 26], [2, 15]]);
    expect(outline.instance).toBe('77');
    expect(first.classes).toEqual([expect.objectContaining({ name: 'person', kind: 'skeleton' }), expect.objectContaining({ name: 'person segmentation' })]);
    expect(first.warnings.join('\n')).toContain('1 skeleton instance(s) kept their segmentation');

    // Export that project to COCO and import it again: the same skeleton, the same outline.
    const res = await fetch(`${server.url}/api/v1/annotations/export`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: first.project, scope: 'all', format: 'coco', include_images: true }),
    });
    expect(res.status).toBe(200);
    const again = await importInto(await JSZip.loadAsync(Buffer.from(await res.arrayBuffer())));
    expect(again.annotations).toHaveLength(2);
    const person = again.annotations.find((a) => a.name === 'person')!;
    expect(person.points).toEqual(skeleton.points);
    expect(person.bounding_box).toEqual(skeleton.bounding_box);
    expect(again.annotations.find((a) => a.name === 'person segmentation')!.polygon!.path).toEqual(outline.polygon!.path);
    expect(again.classes.map((c) => c.name).sort()).toEqual(['person', 'person segmentation']);
  });
});
