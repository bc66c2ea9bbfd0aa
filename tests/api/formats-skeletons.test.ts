// Keypoint skeletons through COCO and YOLO pose and back (issue 33 section 4): a skeleton drawn in
// Vellum, exported by the export route and imported by the import job into a new project, comes
// back as a skeleton class with its point names in order and one instance with the same points,
// value by value (v 0 not labelled, 1 occluded, 2 visible), and its box. COCO carries the edges
// (1-based in the file, 0-based in Vellum); YOLO has none. A box of another class rides along.
import { beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { parse as parseYaml } from 'yaml';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';
import { importFile } from './support/imports';

const W = 40;
const H = 30;
type Point = { x: number; y: number; v: number };
type Box = { x: number; y: number; w: number; h: number };

let server: TestServer;
let owner: Member;
let source: string;

const SKELETON = { points: ['nose', 'left_eye', 'right_eye', 'tail'], edges: [[0, 1], [0, 2], [1, 3]] };
const POINTS: Point[] = [
  { x: 10, y: 8, v: 2 },
  { x: 12.5, y: 7.25, v: 1 },
  { x: 0, y: 0, v: 0 },
  { x: 20, y: 25, v: 2 },
];
const BOX: Box = { x: 8, y: 5, w: 15, h: 22 };
const CAR: Box = { x: 25, y: 2, w: 10, h: 6 };

async function exported(format: string, extra: Record<string, unknown> = {}): Promise<JSZip> {
  const res = await fetch(`${server.url}/api/v1/annotations/export`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ project_id: source, scope: 'all', format, include_images: true, ...extra }),
  });
  expect(res.status).toBe(200);
  return JSZip.loadAsync(Buffer.from(await res.arrayBuffer()));
}

/** Imports the zip into a new project: its classes and the annotations of its one image. */
async function imported(zip: JSZip, format: string) {
  const target = (await createProject(server, owner)).id;
  const job = await importFile(server, owner.token, target, `skeleton_${format}.zip`, await zip.generateAsync({ type: 'nodebuffer' }), { format });
  expect(job.status, job.error).toBe('done');
  const project = await api(server.url, 'GET', `/api/v1/projects/${target}`, { token: owner.token });
  const list = await api(server.url, 'GET', `/api/v1/projects/${target}/images`, { token: owner.token });
  const data = await api(server.url, 'GET', `/api/v1/annotations/load-data/${(list.body.images as { id: string }[])[0]!.id}`, { token: owner.token });
  return {
    classes: project.body.project.classes as { name: string; kind?: string; skeleton?: typeof SKELETON }[],
    annotations: data.body.annotations as { name: string; points?: Point[]; bounding_box: Box }[],
  };
}

function expectNear(actual: Record<string, number>, want: Record<string, number>) {
  for (const k of Object.keys(want)) expect(Math.abs(actual[k]! - want[k]!), `${k}: ${actual[k]} vs ${want[k]}`).toBeLessThanOrEqual(1e-6 * W);
}

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
  source = (await createProject(server, owner, 'Skeletons')).id;
  const classes = [
    { name: 'person', color: '#ff0000', kind: 'skeleton', skeleton: SKELETON },
    { name: 'car', color: '#00ff00', tools: ['box'] },
  ];
  const patched = await api(server.url, 'PATCH', `/api/v1/projects/${source}`, { token: owner.token, body: { classes } });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  const image = await uploadImage(server, owner, source, 'people.png', await png(W, H));
  const annotations = [
    { id: 's1', name: 'person', points: POINTS, bounding_box: BOX },
    { id: 'c1', name: 'car', bounding_box: CAR },
  ];
  const res = await api(server.url, 'POST', '/api/v1/annotations/save-data', { token: owner.token, body: { image_id: image.id, project_id: source, image_filename: 'people.png', annotations } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}, 90_000);


describe('skeletons through the formats and back', () => {
  it('COCO: keypoints and num_keypoints per instance, the category keypoints and 1-based skeleton; imported as the same skeleton', { timeout: 90_000 }, async () => {
    const zip = await exported('coco');
    const coco = JSON.parse(await zip.file('annotations.json')!.async('string')) as {
      categories: { id: number; name: string; keypoints?: string[]; skeleton?: number[][] }[];
      annotations: { category_id: number; keypoints?: number[]; num_keypoints?: number; bbox: number[] }[];
    };
    const person = coco.categories.find((c) => c.name === 'person')!;
    expect(person.keypoints).toEqual(SKELETON.points);
    expect(person.skeleton).toEqual([[1, 2], [1, 3], [2, 4]]);
    const instance = coco.annotations.find((a) => a.category_id === person.id)!;
    expect(instance.keypoints).toEqual([10, 8, 2, 12.5, 7.25, 1, 0, 0, 0, 20, 25, 2]);
    expect(instance.num_keypoints).toBe(3);
    expect(instance.bbox).toEqual([8, 5, 15, 22]);

    const back = await imported(zip, 'coco');
    expect(back.classes.find((c) => c.name === 'person')).toMatchObject({ kind: 'skeleton', skeleton: SKELETON });
    const [skeleton] = back.annotations.filter((a) => a.name === 'person');
    expect(skeleton!.points).toEqual(POINTS);
    expect(skeleton!.bounding_box).toEqual(BOX);
    expect(back.annotations.find((a) => a.name === 'car')!.bounding_box).toEqual(CAR);
  });

  it('YOLO pose (the default with a skeleton class): kpt_shape and kpt_names in data.yaml, one line per instance; imported as the same skeleton', { timeout: 90_000 }, async () => {
    const zip = await exported('yolo');
    const yaml = parseYaml(await zip.file('data.yaml')!.async('string')) as { names: Record<number, string>; kpt_shape: number[]; kpt_names: Record<number, string[]> };
    expect(yaml.names).toEqual({ 0: 'person', 1: 'car' });
    expect(yaml.kpt_shape).toEqual([4, 3]);
    expect(yaml.kpt_names).toEqual({ 0: SKELETON.points });
    const lines = (await zip.file('labels/people.txt')!.async('string')).trim().split('\n').map((l) => l.split(' ').map(Number));
    expect(lines.map((l) => l.length)).toEqual([5 + 12, 5 + 12]);
    // The car has no keypoints: all 0 0 0.
    expect(lines[1]!.slice(5)).toEqual(Array(12).fill(0));
    expect(await zip.file('README.txt')!.async('string')).toContain('Task: pose (the default: the export has skeleton classes)');

    const back = await imported(zip, 'yolo');
    expect(back.classes.find((c) => c.name === 'person')).toMatchObject({ kind: 'skeleton', skeleton: { points: SKELETON.points, edges: [] } });
    const [skeleton] = back.annotations.filter((a) => a.name === 'person');
    expect(skeleton!.points!.map((p) => p.v)).toEqual(POINTS.map((p) => p.v));
    skeleton!.points!.forEach((p, i) => expectNear(p, POINTS[i]!));
    expectNear(skeleton!.bounding_box, BOX);
    const car = back.annotations.find((a) => a.name === 'car')!;
    expect(car.points).toBeUndefined();
    expectNear(car.bounding_box, CAR);
  });

  it('YOLO detect writes a skeleton as its box; segment leaves it out and says so', { timeout: 60_000 }, async () => {
    const detect = (await (await exported('yolo', { yolo_task: 'detect' })).file('labels/people.txt')!.async('string')).trim().split('\n');
    expect(detect[0]).toBe(['0', ...[(8 + 7.5) / W, (5 + 11) / H, 15 / W, 22 / H].map((v) => v.toFixed(6))].join(' '));
    const segment = await exported('yolo', { yolo_task: 'segment' });
    expect((await segment.file('labels/people.txt')!.async('string')).trim().split('\n')).toHaveLength(1);
    expect(await segment.file('README.txt')!.async('string')).toContain('so 1 skeleton annotation(s) were left out');
  });
});
