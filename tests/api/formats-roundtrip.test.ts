// Each export format, written then read: the zip the export route answers, read by the same
// format's reader (src/server/formats/<format>/read.ts) and converted as the importer converts
// (services/import/convert.ts toStored), gives back the annotations that were saved, as far as the
// format carries them:
//   vellum  every annotation exactly as stored (ids, every shape kind, attributes, extra keys);
//   coco    boxes (marked as boxes), polygons (a rectangle one too; a polygon with holes as its
//           mask, pixel for pixel), masks pixel for pixel, keypoints, attributes; polylines are
//           left out; the file stays what pycocotools reads;
//   yolo    (with the image files: a label file does not name its image) segment mode: boxes (as their 4 corners), polygons with their holes (keyholed), masks traced
//           and simplified within 1 px (only boundary pixels differ); detect mode: boxes; keypoints and polylines left out, no attributes;
//   voc     boxes, and every other shape but a point as its bounding box; pose / truncated /
//           difficult and named attributes.
// CVAT is read only (no writer). The import job itself is covered by export-roundtrip.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { decodeRle, encodeMask, numericCounts } from '../../src/contract/rle';
import { loadKernelsNode, type Kernels } from '../../src/kernels/node';
import { READERS } from '../../src/server/formats';
import { toStored } from '../../src/server/services/import/convert';
import type { ImportFormat } from '../../src/contract/imports';
import { memoryArchive, readAll } from '../support/test-archive';
import { expectPycocotoolsReadable, type CocoFileLike } from '../support/coco-check';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';
import { importFile } from './support/imports';

type Stored = Record<string, unknown> & { id: string; name: string };
type Box = { x: number; y: number; w: number; h: number };

const W = 40;
const H = 30;
let server: TestServer;
let owner: Member;
let projectId: string;
let kernels: Kernels;

const mask = new Uint8Array(W * H);
// Column-major: pixel (x, y) at x * H + y. An L shape at x 3..8, y 2..6 without its corner x 6..8, y 2..3.
for (let x = 3; x < 9; x++) for (let y = 2; y < 7; y++) if (!(x >= 6 && y < 4)) mask[x * H + y] = 1;

const saved: Stored[] = [
  { id: 'b1', name: 'car', bounding_box: { x: 1.5, y: 2.25, w: 10.125, h: 5 }, attributes: [{ name: 'make', value: 'volvo' }, { name: 'difficult', value: true }] },
  { id: 'p1', name: 'roof', bounding_box: { x: 20, y: 10, w: 12, h: 8 }, polygon: { path: [[20, 10], [32, 10], [26, 18]] } },
  { id: 'p2', name: 'roof', bounding_box: { x: 0, y: 12, w: 16, h: 16 }, polygon: { path: [[0, 12], [16, 12], [16, 28], [0, 28]], holes: [[[4, 16], [10, 16], [10, 22], [4, 22]]] } },
  { id: 'm1', name: 'roof', bounding_box: { x: 3, y: 2, w: 6, h: 5 }, segmentation: { size: [H, W], counts: encodeMask(mask, H, W) } },
  { id: 'k1', name: 'eye', bounding_box: { x: 7, y: 8, w: 0, h: 0 }, keypoint: { x: 7, y: 8 }, attributes: [{ name: 'side', value: 'left' }] },
  { id: 'l1', name: 'lane', bounding_box: { x: 0, y: 25, w: 40, h: 0 }, polyline: { path: [[0, 25], [40, 25]] } },
  // A polygon that happens to be an axis-aligned rectangle: a polygon, not a box (issue 32).
  { id: 'w1', name: 'window', bounding_box: { x: 22, y: 20, w: 10, h: 6 }, polygon: { path: [[22, 20], [32, 20], [32, 26], [22, 26]] } },
];

/** The export route's zip for this project (or another), as archive entries. */
async function exported(format: string, extra: Record<string, unknown> = {}, project = projectId): Promise<Record<string, Buffer>> {
  const res = await fetch(`${server.url}/api/v1/annotations/export`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ project_id: project, scope: 'all', format, ...extra }),
  });
  expect(res.status).toBe(200);
  const zip = await JSZip.loadAsync(Buffer.from(await res.arrayBuffer()));
  const entries: Record<string, Buffer> = {};
  for (const file of Object.values(zip.files)) if (!file.dir) entries[file.name] = await file.async('nodebuffer');
  return entries;
}

/** The format's reader over the zip, each annotation converted as the importer converts it (ids 'r0', 'r1', ...). */
async function readBack(format: ImportFormat, entries: Record<string, Buffer>): Promise<Stored[]> {
  const reader = READERS.find((r) => r.format === format)!;
  const { images } = await readAll(reader, memoryArchive(entries));
  const image = images.find((i) => i.fileName === 'scene.png')!;
  expect(image, `${format}: scene.png read back`).toBeDefined();
  if (image.stored) return image.stored as Stored[];
  return image.annotations.map((a, i) => {
    const c = toStored(a, `r${i}`, a.class, { width: W, height: H }, image.normalized ?? false);
    if (!c.ok) throw new Error(`${format}: ${c.reason}`);
    return c.stored as Stored;
  });
}

const pixels = (a: Record<string, unknown>) => Array.from(decodeRle({ size: [H, W], counts: numericCounts(a.segmentation as { size: [number, number]; counts: number[] | string }) }));
const raster = (rings: [number, number][][]) => Array.from(kernels.polygonsToMask(rings.map((path) => ({ path, holes: [] })), H, W));
const near = (a: number, b: number, tol = 1e-6 * W) => Math.abs(a - b) <= tol;
function expectBox(actual: unknown, want: Box, tol?: number) {
  const b = actual as Box;
  for (const k of ['x', 'y', 'w', 'h'] as const) expect(near(b[k], want[k], tol), `${k}: ${b[k]} vs ${want[k]}`).toBe(true);
}
/** A mask traced to a polygon within 1 px: every pixel that differs from `mask` is on its boundary, and IoU is at least 0.8. */
function expectTracedMask(traced: number[]) {
  const at = (x: number, y: number) => (x >= 0 && y >= 0 && x < W && y < H ? mask[x * H + y]! : 0);
  let both = 0;
  let either = 0;
  for (let x = 0; x < W; x++) {
    for (let y = 0; y < H; y++) {
      const want = at(x, y);
      const got = traced[x * H + y]!;
      both += want & got;
      either += want | got;
      if (got === want) continue;
      const boundary = [[1, 0], [-1, 0], [0, 1], [0, -1]].some(([dx, dy]) => at(x + dx!, y + dy!) !== want);
      expect(boundary, `pixel ${x},${y} differs inside the mask or outside its border`).toBe(true);
    }
  }
  expect(both / either).toBeGreaterThanOrEqual(0.8);
}
const named = (a: Record<string, unknown>) => Object.fromEntries(((a.attributes ?? []) as { name: string; value: unknown }[]).map((e) => [e.name, e.value]));
const byName = (list: Stored[], name: string) => list.filter((a) => a.name === name);

beforeAll(async () => {
  kernels = await loadKernelsNode();
  server = await sharedServer();
  owner = await onboardedUser(server);
  projectId = (await createProject(server, owner, 'Formats')).id;
  const classes = [
    { name: 'car', type: 'box', color: '#ff0000' },
    { name: 'roof', type: 'polygon', color: '#00ff00' },
    { name: 'eye', type: 'keypoint', color: '#0000ff' },
    { name: 'lane', type: 'polyline', color: '#ffff00' },
    { name: 'window', type: 'polygon', color: '#00ffff' },
  ];
  expect((await api(server.url, 'PATCH', `/api/v1/projects/${projectId}`, { token: owner.token, body: { classes } })).status).toBe(200);
  const image = await uploadImage(server, owner, projectId, 'scene.png', await png(W, H));
  const res = await api(server.url, 'POST', '/api/v1/annotations/save-data', { token: owner.token, body: { image_id: image.id, project_id: projectId, image_filename: 'scene.png', annotations: saved } });
  expect(res.status).toBe(200);
}, 90_000);


describe('write, then read, gives the same annotations', () => {
  it('Vellum: every annotation exactly as stored', { timeout: 60_000 }, async () => {
    const back = await readBack('vellum', await exported('vellum'));
    const load = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?sort_by=filename`, { token: owner.token });
    const data = await api(server.url, 'GET', `/api/v1/annotations/load-data/${(load.body.images as { id: string }[])[0]!.id}`, { token: owner.token });
    expect(back).toEqual(data.body.annotations);
    expect(back.map((a) => a.id)).toEqual(saved.map((a) => a.id));
  });

  it('COCO: boxes, polygons, a polygon with holes as its mask, masks pixel for pixel, keypoints, attributes', { timeout: 60_000 }, async () => {
    const back = await readBack('coco', await exported('coco'));
    const [car] = byName(back, 'car');
    expect(car!.polygon, 'a box comes back as a box').toBeUndefined();
    expectBox(car!.bounding_box, saved[0]!.bounding_box as Box, 0);
    expect(named(car!)).toEqual({ make: 'volvo', difficult: true });
    const roofs = byName(back, 'roof');
    expect(roofs).toHaveLength(3);
    expect(roofs[0]!.polygon).toEqual(saved[1]!.polygon);
    // The polygon with a hole is written as RLE: its pixels are the polygon's, hole excluded.
    const holed = saved[2]!.polygon as { path: [number, number][]; holes: [number, number][][] };
    expect(pixels(roofs[1]!)).toEqual(Array.from(kernels.polygonsToMask([holed], H, W)));
    expect(pixels(roofs[2]!)).toEqual(Array.from(mask));
    const [eye] = byName(back, 'eye');
    expect(eye!.keypoint).toEqual({ x: 7, y: 8 });
    expect(named(eye!)).toEqual({ side: 'left' });
    expect(byName(back, 'lane'), 'COCO has no open paths').toEqual([]);
    const [window] = byName(back, 'window');
    expect(window!.polygon, 'a rectangle polygon stays a polygon').toEqual(saved[6]!.polygon);
  });

  it('COCO: boxes carry the box mark, and the file stays what pycocotools reads', { timeout: 60_000 }, async () => {
    const coco = JSON.parse((await exported('coco'))['annotations.json']!.toString('utf8')) as { categories: { id: number; name: string }[]; annotations: Record<string, unknown>[] };
    const nameOf = (a: Record<string, unknown>) => coco.categories.find((c) => c.id === a.category_id)!.name;
    expect(coco.annotations.filter((a) => a.vellum_shape === 'box').map(nameOf)).toEqual(['car']);
    expectPycocotoolsReadable(coco as unknown as CocoFileLike);
  });

  it('YOLO segments: boxes (written as their corners), polygons with their holes, masks traced within 1 px', { timeout: 60_000 }, async () => {
    const back = await readBack('yolo', await exported('yolo', { include_images: true, yolo_task: 'segment' }));
    // Written as its 4 corners, read back as a box (formats/shapes.ts axisAlignedRectangle).
    const [car] = byName(back, 'car');
    expect(car!.polygon).toBeUndefined();
    expectBox(car!.bounding_box, saved[0]!.bounding_box as Box);
    const roofs = byName(back, 'roof');
    expect(roofs).toHaveLength(3);
    const ring = (roofs[0]!.polygon as { path: [number, number][] }).path;
    (saved[1]!.polygon as { path: [number, number][] }).path.forEach(([px, py], i) => expect(near(ring[i]![0], px) && near(ring[i]![1], py)).toBe(true));
    // The hole is joined to the outer ring by a zero-width bridge in the line, and cut back out on reading.
    const holed = roofs[1]!.polygon as { path: [number, number][]; holes: [number, number][][] };
    const want = saved[2]!.polygon as { path: [number, number][]; holes: [number, number][][] };
    expect(holed.holes).toHaveLength(1);
    expect(raster([holed.path]).map((v, i) => v - raster(holed.holes)[i]!)).toEqual(raster([want.path]).map((v, i) => v - raster(want.holes)[i]!));
    // The mask is traced and simplified within MASK_POLYGON_TOLERANCE (1 px): only boundary pixels may differ.
    expectTracedMask(raster([(roofs[2]!.polygon as { path: [number, number][] }).path]));
    expect(byName(back, 'eye').concat(byName(back, 'lane'))).toEqual([]);
    // A YOLO segment cannot say it was a polygon: a rectangle reads back as its box.
    expectBox(byName(back, 'window')[0]!.bounding_box, saved[6]!.bounding_box as Box);
  });

  it('YOLO detect (boxes only): boxes to 1e-6 of the image size', { timeout: 60_000 }, async () => {
    const back = await readBack('yolo', await exported('yolo', { class_filter: ['car'], include_images: true }));
    expect(back).toHaveLength(1);
    expect(back[0]!.polygon).toBeUndefined();
    expectBox(back[0]!.bounding_box, saved[0]!.bounding_box as Box);
  });

  it('Pascal VOC: boxes, every other shape but a point as its bounding box, and attributes', { timeout: 60_000 }, async () => {
    const back = await readBack('voc', await exported('voc'));
    const [car] = byName(back, 'car');
    expectBox(car!.bounding_box, saved[0]!.bounding_box as Box);
    expect(named(car!)).toMatchObject({ make: 'volvo', difficult: true, truncated: false });
    const roofs = byName(back, 'roof');
    expect(roofs).toHaveLength(3);
    roofs.forEach((r, i) => expectBox(r.bounding_box, saved[i + 1]!.bounding_box as Box));
    // This polyline is flat (no height): its box has no area, so VOC cannot write it.
    expect(byName(back, 'lane')).toEqual([]);
    expect(byName(back, 'eye'), 'a point has no box').toEqual([]);
    expectBox(byName(back, 'window')[0]!.bounding_box, saved[6]!.bounding_box as Box);
  });
});

// A person-keypoints file as other tools write them: a named skeleton whose instances each lack some
// points (v 0), and a category with an empty keypoints list whose first point is unlabelled.
const KEYPOINTS_FILE = {
  images: [{ id: 1, file_name: 'people.png', width: W, height: H }],
  categories: [
    { id: 1, name: 'person', supercategory: 'person', keypoints: ['nose', 'left_eye', 'right_eye', 'left_ear', 'right_ear'], skeleton: [[1, 2], [1, 3], [2, 4], [3, 5]] },
    { id: 2, name: 'b', supercategory: '', keypoints: [], skeleton: [[0, 1], [1, 2]] },
  ],
  annotations: [
    { id: 1, image_id: 1, category_id: 1, bbox: [8, 3, 10, 6], area: 60, iscrowd: 0, segmentation: [], keypoints: [0, 0, 0, 12, 5, 2, 0, 0, 0, 14, 6, 1, 10, 7, 2], num_keypoints: 3 },
    { id: 2, image_id: 1, category_id: 1, bbox: [20, 10, 10, 10], area: 100, iscrowd: 0, segmentation: [], keypoints: [22, 12, 2, 0, 0, 0, 25, 12, 2, 0, 0, 0, 0, 0, 0], num_keypoints: 2 },
    { id: 3, image_id: 1, category_id: 2, bbox: [0, 0, 4, 4], area: 8, iscrowd: 0, segmentation: [[0, 0, 4, 0, 4, 4]], keypoints: [0, 0, 0, 0, 2, 1, 4, 1, 2], num_keypoints: 2 },
  ],
};

describe('COCO person keypoints: import as skeletons, then export, gives the same triples', () => {
  it("keeps every category's keypoints order and every [x, y, v] value by value", { timeout: 90_000 }, async () => {
    const zip = new JSZip();
    zip.file('annotations/person_keypoints_val.json', JSON.stringify(KEYPOINTS_FILE));
    zip.file('images/val/people.png', await png(W, H));
    const target = (await createProject(server, owner, 'Keypoints')).id;
    const job = await importFile(server, owner.token, target, 'people.zip', await zip.generateAsync({ type: 'nodebuffer' }), { format: 'coco' });
    expect(job.status, job.error).toBe('done');
    // Each category with keypoints is a skeleton class (issue 33), its COCO skeleton 0-based; each object one skeleton instance with its bbox.
    const project = await api(server.url, 'GET', `/api/v1/projects/${target}`, { token: owner.token });
    const person = (project.body.project.classes as { name: string; kind?: string; skeleton?: unknown }[]).find((c) => c.name === 'person')!;
    expect(person).toMatchObject({ kind: 'skeleton', skeleton: { points: KEYPOINTS_FILE.categories[0]!.keypoints, edges: [[0, 1], [0, 2], [1, 3], [2, 4]] } });
    const list = await api(server.url, 'GET', `/api/v1/projects/${target}/images`, { token: owner.token });
    const data = await api(server.url, 'GET', `/api/v1/annotations/load-data/${(list.body.images as { id: string }[])[0]!.id}`, { token: owner.token });
    const instances = data.body.annotations as { name: string; points?: { x: number; y: number; v: number }[]; bounding_box: Box }[];
    // b's third object also has an outline: it comes in as its own polygon of 'b segmentation' (a skeleton class holds skeletons only).
    expect(instances.map((a) => [a.name, a.points?.length])).toEqual([['person', 5], ['person', 5], ['b', 3], ['b segmentation', undefined]]);
    expect(instances[0]!.points![3]).toEqual({ x: 14, y: 6, v: 1 });
    expect(instances[0]!.bounding_box).toEqual({ x: 8, y: 3, w: 10, h: 6 });

    const out = JSON.parse((await exported('coco', {}, target))['annotations.json']!.toString('utf8')) as typeof KEYPOINTS_FILE;
    const category = (name: string) => out.categories.find((c) => c.name === name)!;
    expect(category('person').keypoints).toEqual(KEYPOINTS_FILE.categories[0]!.keypoints);
    expect(category('person').skeleton, 'edges 1-based again').toEqual(KEYPOINTS_FILE.categories[0]!.skeleton);
    expect(out.annotations.map((a) => a.bbox).slice(0, 2)).toEqual([KEYPOINTS_FILE.annotations[0]!.bbox, KEYPOINTS_FILE.annotations[1]!.bbox]);
    // The unnamed list comes back with each point's 1-based number, in the same places.
    expect(category('b').keypoints).toEqual(['1', '2', '3']);
    const outline = out.annotations.find((a) => out.categories.find((c) => c.id === a.category_id)!.name === 'b segmentation');
    expect(outline?.segmentation).toEqual(KEYPOINTS_FILE.annotations[2]!.segmentation);
    const triples = (file: typeof KEYPOINTS_FILE) =>
      file.annotations.filter((a) => a.keypoints).map((a) => [file.categories.find((c) => c.id === a.category_id)!.name, a.keypoints, a.num_keypoints]).sort((x, y) => String(x[1]).localeCompare(String(y[1])));
    expect(triples(out)).toEqual(triples(KEYPOINTS_FILE));
    expectPycocotoolsReadable(out as unknown as CocoFileLike);

    // Through Vellum's own format and into another project, the names keep their order too.
    const vellumZip = new JSZip();
    for (const [name, bytes] of Object.entries(await exported('vellum', { include_images: true }, target))) vellumZip.file(name, bytes);
    const again = (await createProject(server, owner, 'Keypoints again')).id;
    const second = await importFile(server, owner.token, again, 'people-vellum.zip', await vellumZip.generateAsync({ type: 'nodebuffer' }), { format: 'vellum' });
    expect(second.status, second.error).toBe('done');
    const out2 = JSON.parse((await exported('coco', {}, again))['annotations.json']!.toString('utf8')) as typeof KEYPOINTS_FILE;
    expect(out2.categories.find((c) => c.name === 'person')!.keypoints).toEqual(KEYPOINTS_FILE.categories[0]!.keypoints);
    expect(triples(out2)).toEqual(triples(KEYPOINTS_FILE));
  });
});
