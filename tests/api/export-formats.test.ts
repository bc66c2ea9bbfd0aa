// POST /api/v1/annotations/export in the YOLO (Ultralytics) and Pascal VOC formats: what a training
// script reads from the zip (data.yaml, label lines normalised to 1e-6, VOC pixel boxes), every
// shape kind, images in folders and file names that share a stem.
import JSZip from 'jszip';
import { SaxesParser } from 'saxes';
import { parse as parseYaml } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { encodeMask } from '../../src/contract/rle';
import { vocToBox } from '../../src/server/formats/shapes';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, jpeg, png, uploadImage, type Member } from '../fixtures/datasets';

let server: TestServer;
let owner: Member;
let project: { id: string };
let boxes: { id: string };
const W = 40;
const H = 30;
const WHEEL = 'wheel "front" <ü>';
const img: Record<string, { id: string; filename: string }> = {};
const bytes: Record<string, Buffer> = {};

// A 3 x 4 mask at x 1..3, y 2..5 (column-major, as COCO).
const maskPixels = new Uint8Array(W * H);
for (let x = 1; x <= 3; x++) for (let y = 2; y <= 5; y++) maskPixels[x * H + y] = 1;

const carBox = { x: 2.25, y: 3.5, w: 10.125, h: 5.75 };
const scene = [
  {
    id: 'car1',
    name: 'car',
    bounding_box: carBox,
    attributes: [{ name: 'difficult', value: true }, { name: 'Pose', value: 'Left' }, { key: 'truncated', value: 1 }, { name: 'color', value: 'red & <blue>' }, 'loose note'],
  },
  { id: 'tri', name: 'roof', bounding_box: { x: 0, y: 0, w: 10, h: 10 }, polygon: { path: [[0, 0], [10, 0], [0, 10]] } },
  {
    id: 'ring',
    name: 'roof',
    bounding_box: { x: 10, y: 5, w: 20, h: 20 },
    polygon: { path: [[10, 5], [30, 5], [30, 25], [10, 25]], holes: [[[15, 10], [25, 10], [25, 20], [15, 20]]] },
  },
  { id: 'line', name: 'lane', bounding_box: { x: 0, y: 0, w: 20, h: 20 }, polyline: { path: [[0, 0], [20, 20]] } },
  { id: 'kp', name: 'eye', bounding_box: { x: 5, y: 6, w: 0, h: 0 }, keypoint: { x: 5, y: 6 } },
  { id: 'mask', name: 'blob', bounding_box: { x: 1, y: 2, w: 3, h: 4 }, segmentation: { size: [H, W], counts: encodeMask(maskPixels, H, W) } },
  { id: 'edge', name: 'car', bounding_box: { x: 35, y: 25, w: 10, h: 10 } }, // half outside: clipped to 35..40 x 25..30
  { id: 'w1', name: WHEEL, bounding_box: { x: 20, y: 10, w: 4, h: 2 } },
];

async function exportZip(body: Record<string, unknown>) {
  const res = await fetch(`${server.url}/api/v1/annotations/export`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ project_id: project.id, scope: 'current_filters', filters: {}, ...body }),
  });
  const buf = Buffer.from(await res.arrayBuffer());
  expect(res.status, buf.toString().slice(0, 300)).toBe(200);
  return { headers: res.headers, zip: await JSZip.loadAsync(buf) };
}
const entries = (zip: JSZip) => Object.keys(zip.files).filter((n) => !zip.files[n]!.dir).sort();
const text = (zip: JSZip, name: string) => {
  const f = zip.file(name);
  if (!f) throw new Error(`${name} is not in the zip: ${entries(zip).join(', ')}`);
  return f.async('string');
};

/** Label lines as [class, ...numbers]. */
async function labels(zip: JSZip, name: string): Promise<number[][]> {
  const t = await text(zip, name);
  return t.split('\n').filter(Boolean).map((l) => l.split(' ').map(Number));
}
function closeTo(actual: number[], expected: number[], tolerance = 1e-6) {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((v, i) => expect(Math.abs(v - expected[i]!), `value ${i}: ${v} vs ${expected[i]}`).toBeLessThanOrEqual(tolerance));
}
const norm = (pts: number[][], w = W, h = H) => pts.flatMap(([x, y]) => [x! / w, y! / h]);

interface XmlNode {
  name: string;
  children: XmlNode[];
  text: string;
}
function parseXml(xml: string): XmlNode {
  const parser = new SaxesParser();
  const root: XmlNode = { name: '#root', children: [], text: '' };
  const stack = [root];
  parser.on('opentag', (t) => {
    const node = { name: t.name, children: [], text: '' };
    stack[stack.length - 1]!.children.push(node);
    stack.push(node);
  });
  parser.on('text', (t) => (stack[stack.length - 1]!.text += t));
  parser.on('closetag', () => void stack.pop());
  parser.write(xml).close();
  return root.children[0]!;
}
const child = (n: XmlNode, name: string) => n.children.find((c) => c.name === name)!;
const all = (n: XmlNode, name: string) => n.children.filter((c) => c.name === name);
const val = (n: XmlNode, ...path: string[]) => path.reduce((m, p) => child(m, p), n).text;

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
  project = await createProject(server, owner, 'Streets');
  const classes = [
    { name: 'car', type: 'box', color: '#ff0000' },
    { name: 'roof', type: 'polygon', color: '#00ff00' },
    { name: 'lane', type: 'polyline', color: '#0000ff' },
    { name: 'eye', type: 'keypoint', color: '#ffff00' },
    { name: 'blob', type: 'polygon', color: '#00ffff' },
    { name: WHEEL, type: 'box', color: '#ff00ff' },
  ];
  expect((await api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { classes } })).status).toBe(200);
  for (const name of ['cats', 'dogs']) expect((await api(server.url, 'POST', '/api/folders/create', { token: owner.token, body: { project_id: project.id, name } })).status).toBe(200);
  bytes.scene = await png(W, H, '#112233');
  bytes.empty = await png(W, H, '#223344');
  bytes.catX = await png(W, H, '#334455');
  bytes.dogX = await jpeg(20, 10, '#445566');
  bytes.catY = await jpeg(W, H, '#556677');
  bytes.catBigY = await png(W, H, '#667788');
  img.scene = await uploadImage(server, owner, project.id, 'scene.png', bytes.scene);
  img.empty = await uploadImage(server, owner, project.id, 'empty.png', bytes.empty);
  img.catX = await uploadImage(server, owner, project.id, 'x.png', bytes.catX, { folder: '/cats' });
  img.dogX = await uploadImage(server, owner, project.id, 'x.jpg', bytes.dogX, { folder: '/dogs' });
  img.catY = await uploadImage(server, owner, project.id, 'y.jpg', bytes.catY, { folder: '/cats' });
  img.catBigY = await uploadImage(server, owner, project.id, 'Y.png', bytes.catBigY, { folder: '/cats' });
  const save = async (projectId: string, image: { id: string; filename: string }, annotations: unknown[]) => {
    const res = await api(server.url, 'POST', '/api/v1/annotations/save-data', { token: owner.token, body: { image_id: image.id, project_id: projectId, image_filename: image.filename, annotations } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };
  await save(project.id, img.scene, scene);
  await save(project.id, img.catX, [{ id: 'cx', name: 'car', bounding_box: { x: 4, y: 4, w: 8, h: 6 } }]);
  await save(project.id, img.dogX, [{ id: 'dx', name: 'car', bounding_box: { x: 1, y: 2, w: 3, h: 4 } }]);
  await save(project.id, img.catY, [{ id: 'cy', name: 'car', bounding_box: { x: 0, y: 0, w: 40, h: 30 } }]);

  boxes = await createProject(server, owner, 'Boxes');
  expect((await api(server.url, 'PATCH', `/api/v1/projects/${boxes.id}`, { token: owner.token, body: { classes: [classes[0], classes[3]] } })).status).toBe(200);
  img.b = await uploadImage(server, owner, boxes.id, 'b.png', await png(W, H, '#000000'));
  await save(boxes.id, img.b, [
    { id: 'b1', name: 'car', bounding_box: carBox },
    { id: 'b2', name: 'eye', bounding_box: { x: 1, y: 1, w: 0, h: 0 }, keypoint: { x: 1, y: 1 } },
    { id: 'b3', name: 'car', bounding_box: { x: 1.000001, y: 29.5, w: 38.999999, h: 0.5 } },
  ]);
}, 90_000);


describe('yolo format', () => {
  it('with yolo_task segment, writes segment labels, one line per object, normalised to 1e-6', async () => {
    const { zip, headers } = await exportZip({ format: 'yolo', yolo_task: 'segment' });
    expect(headers.get('content-disposition')).toContain('filename="Streets_yolo.zip"');
    const yRenamed = `labels/cats/y-${img.catY!.id}.txt`;
    const bigYRenamed = `labels/cats/Y-${img.catBigY!.id}.txt`;
    expect(entries(zip)).toEqual(['README.txt', 'data.yaml', bigYRenamed, 'labels/cats/x.txt', yRenamed, 'labels/dogs/x.txt', 'labels/empty.txt', 'labels/scene.txt'].sort());

    const data = parseYaml(await text(zip, 'data.yaml'));
    expect(data).toEqual({ path: '.', train: 'images', val: 'images', nc: 6, names: { 0: 'car', 1: 'roof', 2: 'lane', 3: 'eye', 4: 'blob', 5: WHEEL } });
    expect(await text(zip, 'data.yaml')).toContain('# No split was asked for: val repeats train');

    const lines = await labels(zip, 'labels/scene.txt');
    // car, triangle, ring (with its hole), mask, clipped car, wheel: the polyline and the keypoint are left out.
    expect(lines.map((l) => l[0])).toEqual([0, 1, 1, 4, 0, 5]);
    for (const l of lines) for (const v of l.slice(1)) expect(v >= 0 && v <= 1).toBe(true);
    const { x, y, w, h } = carBox;
    closeTo(lines[0]!.slice(1), norm([[x, y], [x + w, y], [x + w, y + h], [x, y + h]]));
    closeTo(lines[1]!.slice(1), norm([[0, 0], [10, 0], [0, 10]]));
    // The ring's hole joined by a zero-width keyhole bridge from its leftmost vertex (15,10) left to the outer ring's edge at (10,10), run against the outer ring.
    closeTo(lines[2]!.slice(1), norm([[10, 5], [30, 5], [30, 25], [10, 25], [10, 10], [15, 10], [15, 20], [25, 20], [25, 10], [15, 10], [10, 10]]));
    // The mask traced along pixel edges (the rectangle 1..4 x 2..6) and simplified within
    // MASK_POLYGON_TOLERANCE (1 px): every vertex lies within 1 px of the rectangle's outline.
    const maskPts = lines[3]!.slice(1);
    expect(maskPts.length).toBeGreaterThanOrEqual(6);
    for (let i = 0; i < maskPts.length; i += 2) {
      const [px, py] = [maskPts[i]! * W, maskPts[i + 1]! * H];
      const inside = px >= 1 - 1e-3 && px <= 4 + 1e-3 && py >= 2 - 1e-3 && py <= 6 + 1e-3;
      expect(inside && Math.min(px - 1, 4 - px, py - 2, 6 - py) <= 1 + 1e-3, `${px},${py}`).toBe(true);
    }
    closeTo(lines[4]!.slice(1), norm([[35, 25], [40, 25], [40, 30], [35, 30]]));
    closeTo(lines[5]!.slice(1), norm([[20, 10], [24, 10], [24, 12], [20, 12]]));
    // Six decimals, as Ultralytics writes them.
    expect((await text(zip, 'labels/scene.txt')).split('\n')[1]).toBe('1 0.000000 0.000000 0.250000 0.000000 0.000000 0.333333');

    // Same stem in two folders: both kept; in one folder: both renamed.
    closeTo((await labels(zip, 'labels/dogs/x.txt'))[0]!.slice(1), norm([[1, 2], [4, 2], [4, 6], [1, 6]], 20, 10));
    closeTo((await labels(zip, 'labels/cats/x.txt'))[0]!.slice(1), norm([[4, 4], [12, 4], [12, 10], [4, 10]]));
    closeTo((await labels(zip, yRenamed))[0]!.slice(1), [0, 0, 1, 0, 1, 1, 0, 1]);
    expect(await text(zip, bigYRenamed)).toBe('');
    expect(await text(zip, 'labels/empty.txt')).toBe('');

    const readme = await text(zip, 'README.txt');
    expect(readme).toContain('Task: segment (as asked)');
    expect(readme).toContain('1 keypoint annotation(s) were left out');
    expect(readme).toContain('scene.png\teye\t1');
    expect(readme).toContain('1 polyline annotation(s) were left out');
    expect(readme).toContain('scene.png\tlane\t1');
    expect(readme).toContain('Holes kept: 1');
    expect(readme).toContain('Clipped to the image: 1');
    expect(readme).toContain(`cats/y.jpg\tcats/y-${img.catY!.id}.jpg`);
  });

  it('puts image files beside their labels, renamed the same way', async () => {
    const { zip } = await exportZip({ format: 'yolo', include_images: true });
    const images = entries(zip).filter((n) => n.startsWith('images/'));
    expect(images).toEqual(['images/cats/x.png', `images/cats/y-${img.catY!.id}.jpg`, `images/cats/Y-${img.catBigY!.id}.png`, 'images/dogs/x.jpg', 'images/empty.png', 'images/scene.png'].sort());
    // Every image has its label file where Ultralytics looks for it (images/ -> labels/, extension -> .txt).
    for (const i of images) expect(zip.file(i.replace(/^images\//, 'labels/').replace(/\.[^.]+$/, '.txt'))).not.toBeNull();
    expect(Buffer.from(await zip.file(`images/cats/y-${img.catY!.id}.jpg`)!.async('uint8array')).equals(bytes.catY!)).toBe(true);
    expect(Buffer.from(await zip.file('images/dogs/x.jpg')!.async('uint8array')).equals(bytes.dogX!)).toBe(true);
  });

  it('writes box labels "class cx cy w h" when there are no polygons or masks, and round trips boxes to 1e-6', async () => {
    const { zip } = await exportZip({ project_id: boxes.id, format: 'yolo' });
    expect(entries(zip)).toEqual(['README.txt', 'data.yaml', 'labels/b.txt']);
    expect(parseYaml(await text(zip, 'data.yaml'))).toMatchObject({ nc: 2, names: { 0: 'car', 1: 'eye' } });
    const lines = await labels(zip, 'labels/b.txt');
    expect(lines).toHaveLength(2);
    const { x, y, w, h } = carBox;
    closeTo(lines[0]!, [0, (x + w / 2) / W, (y + h / 2) / H, w / W, h / H]);
    // Back to pixels, as an importer does: every box to 1e-6 of the image size.
    for (const [line, box] of [[lines[0]!, carBox], [lines[1]!, { x: 1.000001, y: 29.5, w: 38.999999, h: 0.5 }]] as const) {
      const [, cx, cy, nw, nh] = line;
      closeTo([(cx! - nw! / 2) * W, (cy! - nh! / 2) * H, nw! * W, nh! * H], [box.x, box.y, box.w, box.h], 1e-6 * W);
    }
    const readme = await text(zip, 'README.txt');
    expect(readme).toContain('Task: detect (the default: the export has box classes)');
    expect(readme).toContain('b.png\teye\t1');
    expect(readme).toContain('Polylines: none left out.');
  });

  it('with a class filter of box classes only, writes boxes and names only those classes', async () => {
    const { zip } = await exportZip({ format: 'yolo', class_filter: ['car'] });
    expect(parseYaml(await text(zip, 'data.yaml'))).toMatchObject({ nc: 1, names: { 0: 'car' } });
    const lines = await labels(zip, 'labels/scene.txt');
    expect(lines).toHaveLength(2);
    const { x, y, w, h } = carBox;
    closeTo(lines[0]!, [0, (x + w / 2) / W, (y + h / 2) / H, w / W, h / H]);
    closeTo(lines[1]!, [0, 37.5 / W, 27.5 / H, 5 / W, 5 / H]);
  });
});

describe('voc format', () => {
  it('writes one XML per image with pixel boxes in the 1-based convention, flat and collision-free', async () => {
    const { zip, headers } = await exportZip({ format: 'voc', include_images: true });
    expect(headers.get('content-disposition')).toContain('filename="Streets_voc.zip"');
    const stems = { catX: `x-${img.catX!.id}`, dogX: `x-${img.dogX!.id}`, catY: `y-${img.catY!.id}`, catBigY: `Y-${img.catBigY!.id}` };
    expect(entries(zip)).toEqual(
      [
        'README.txt',
        'ImageSets/Main/default.txt',
        ...['scene', 'empty', ...Object.values(stems)].map((s) => `Annotations/${s}.xml`),
        'JPEGImages/scene.png',
        'JPEGImages/empty.png',
        `JPEGImages/${stems.catX}.png`,
        `JPEGImages/${stems.dogX}.jpg`,
        `JPEGImages/${stems.catY}.jpg`,
        `JPEGImages/${stems.catBigY}.png`,
      ].sort(),
    );
    const set = (await text(zip, 'ImageSets/Main/default.txt')).split('\n').filter(Boolean).sort();
    expect(set).toEqual(['scene', 'empty', ...Object.values(stems)].sort());
    // Each XML's filename is its image in JPEGImages.
    for (const s of set) expect(zip.file(`JPEGImages/${val(parseXml(await text(zip, `Annotations/${s}.xml`)), 'filename')}`)).not.toBeNull();
    expect(Buffer.from(await zip.file(`JPEGImages/${stems.dogX}.jpg`)!.async('uint8array')).equals(bytes.dogX!)).toBe(true);

    const doc = parseXml(await text(zip, 'Annotations/scene.xml'));
    expect(doc.name).toBe('annotation');
    expect([val(doc, 'folder'), val(doc, 'filename'), val(doc, 'source', 'image'), val(doc, 'segmented')]).toEqual(['', 'scene.png', 'scene.png', '0']);
    expect([val(doc, 'size', 'width'), val(doc, 'size', 'height'), val(doc, 'size', 'depth')]).toEqual([String(W), String(H), '3']);
    const objects = all(doc, 'object');
    // Everything but the keypoint, in paint order.
    expect(objects.map((o) => val(o, 'name'))).toEqual(['car', 'roof', 'roof', 'lane', 'blob', 'car', WHEEL]);
    const bnd = (o: XmlNode) => ['xmin', 'ymin', 'xmax', 'ymax'].map((k) => Number(val(o, 'bndbox', k)));
    expect(objects.map(bnd)).toEqual([
      [3.25, 4.5, 12.375, 9.25],
      [1, 1, 10, 10],
      [11, 6, 30, 25],
      [1, 1, 20, 20],
      [2, 3, 4, 6],
      [36, 26, 40, 30],
      [21, 11, 24, 12],
    ]);
    // Back to Vellum's box: exact.
    const back = vocToBox(...(bnd(objects[0]!) as [number, number, number, number]));
    closeTo([back.x, back.y, back.w, back.h], [carBox.x, carBox.y, carBox.w, carBox.h]);
    const car = objects[0]!;
    expect([val(car, 'pose'), val(car, 'truncated'), val(car, 'difficult')]).toEqual(['Left', '1', '1']);
    expect(all(child(car, 'attributes'), 'attribute').map((a) => [val(a, 'name'), val(a, 'value')])).toEqual([['color', 'red & <blue>']]);
    expect([val(objects[1]!, 'pose'), val(objects[1]!, 'truncated'), val(objects[1]!, 'difficult')]).toEqual(['Unspecified', '0', '0']);
    expect(child(objects[1]!, 'attributes')).toBeUndefined();

    const dog = parseXml(await text(zip, `Annotations/${stems.dogX}.xml`));
    expect([val(dog, 'folder'), val(dog, 'filename'), val(dog, 'source', 'image'), val(dog, 'size', 'width'), val(dog, 'size', 'height')]).toEqual(['dogs', `${stems.dogX}.jpg`, 'dogs/x.jpg', '20', '10']);
    expect(all(dog, 'object').map(bnd)).toEqual([[2, 3, 4, 6]]);
    expect(all(parseXml(await text(zip, 'Annotations/empty.xml')), 'object')).toEqual([]);

    const readme = await text(zip, 'README.txt');
    expect(readme).toContain('xmin = x + 1');
    expect(readme).toContain('1 keypoint annotation(s) were left out');
    expect(readme).toContain('scene.png\teye\t1');
    expect(readme).toContain(`dogs/x.jpg\t${stems.dogX}.jpg`);
  });

  it('keeps its own names when no stems are shared', async () => {
    const { zip } = await exportZip({ project_id: boxes.id, format: 'voc' });
    expect(entries(zip)).toEqual(['Annotations/b.xml', 'ImageSets/Main/default.txt', 'README.txt']);
    expect(await text(zip, 'ImageSets/Main/default.txt')).toBe('b\n');
    const objects = all(parseXml(await text(zip, 'Annotations/b.xml')), 'object');
    const b = ['xmin', 'ymin', 'xmax', 'ymax'].map((k) => Number(val(objects[1]!, 'bndbox', k)));
    const back = vocToBox(...(b as [number, number, number, number]));
    closeTo([back.x, back.y, back.w, back.h], [1.000001, 29.5, 38.999999, 0.5]);
  });
});
