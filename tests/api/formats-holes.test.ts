// Holes and parts survive a round trip through formats whose polygons are one ring (issue 32,
// section 5): a mask of two parts, each with holes, exported as COCO polygons (mask_format
// 'polygon') or as a YOLO segment line, then imported through the import job into a new project,
// comes back as polygons with holes that draw the same pixels (IoU >= 0.99, coco-check's maskIoU).
// The holes are a tenth of the mask's area, so a hole filled in would fail the check. What
// pycocotools itself draws from the exported polygons is checked the same way, and a COCO object
// joined Ultralytics-style (its two polygons in one ring, merge_multi_segment) imports as its two
// parts.
import { beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { encodeMask } from '../../src/contract/rle';
import { loadKernelsNode, type Kernels } from '../../src/kernels/node';
import { maskIoU, pycocotoolsPolygonMask } from '../support/coco-check';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';
import { importFile } from './support/imports';

const W = 160;
const H = 120;
type Pt = [number, number];
type Polygon = { path: Pt[]; holes?: Pt[][] };

let server: TestServer;
let owner: Member;
let kernels: Kernels;
let source: string;

// Column-major, pixel (x, y) at x * H + y. Part one: x 10..89, y 10..99, with a square hole and a
// round one. Part two: x 110..149, y 20..79, with a square hole.
const mask = new Uint8Array(W * H);
for (let x = 10; x < 90; x++) {
  for (let y = 10; y < 100; y++) {
    const square = x >= 20 && x < 40 && y >= 20 && y < 45;
    const round = (x + 0.5 - 60) ** 2 + (y + 0.5 - 70) ** 2 < 15 ** 2;
    if (!square && !round) mask[x * H + y] = 1;
  }
}
for (let x = 110; x < 150; x++) for (let y = 20; y < 80; y++) if (!(x >= 120 && x < 135 && y >= 35 && y < 55)) mask[x * H + y] = 1;

async function exported(format: string, extra: Record<string, unknown>): Promise<Buffer> {
  const res = await fetch(`${server.url}/api/v1/annotations/export`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ project_id: source, scope: 'all', format, include_images: true, ...extra }),
  });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** Imports the zip into a new project; the polygons of its one image. */
async function importedPolygons(filename: string, bytes: Buffer, format: string): Promise<Polygon[]> {
  const target = (await createProject(server, owner)).id;
  const job = await importFile(server, owner.token, target, filename, bytes, { format });
  expect(job.status, job.error).toBe('done');
  const list = await api(server.url, 'GET', `/api/v1/projects/${target}/images`, { token: owner.token });
  const [image] = list.body.images as { id: string }[];
  const data = await api(server.url, 'GET', `/api/v1/annotations/load-data/${image!.id}`, { token: owner.token });
  const annotations = data.body.annotations as { polygon?: Polygon }[];
  expect(annotations.every((a) => a.polygon), 'every shape is a polygon').toBe(true);
  return annotations.map((a) => a.polygon!);
}

const draw = (polygons: Polygon[]) => kernels.polygonsToMask(polygons.map((p) => ({ path: p.path, holes: p.holes ?? [] })), H, W);

beforeAll(async () => {
  kernels = await loadKernelsNode();
  server = await sharedServer();
  owner = await onboardedUser(server);
  source = (await createProject(server, owner, 'Holes')).id;
  expect((await api(server.url, 'PATCH', `/api/v1/projects/${source}`, { token: owner.token, body: { classes: [{ name: 'blob', type: 'polygon', color: '#00ff00' }] } })).status).toBe(200);
  const image = await uploadImage(server, owner, source, 'holes.png', await png(W, H));
  const annotations = [{ id: 'm1', name: 'blob', bounding_box: { x: 10, y: 10, w: 140, h: 90 }, segmentation: { size: [H, W], counts: encodeMask(mask, H, W) } }];
  const res = await api(server.url, 'POST', '/api/v1/annotations/save-data', { token: owner.token, body: { image_id: image.id, project_id: source, image_filename: 'holes.png', annotations } });
  expect(res.status).toBe(200);
}, 90_000);


describe('a mask with holes, through one-ring polygons and back', () => {
  it('COCO polygons (mask_format polygon): pycocotools draws the holes empty, and the import gives back each part with its holes', { timeout: 90_000 }, async () => {
    const zip = await exported('coco', { mask_format: 'polygon' });
    const coco = JSON.parse(await (await JSZip.loadAsync(zip)).file('annotations.json')!.async('string')) as { annotations: { segmentation: number[][] }[] };
    expect(coco.annotations).toHaveLength(1);
    expect(coco.annotations[0]!.segmentation, 'one ring per part').toHaveLength(2);
    expect(maskIoU(pycocotoolsPolygonMask(coco.annotations[0]!.segmentation, H, W), mask)).toBeGreaterThanOrEqual(0.99);

    const polygons = await importedPolygons('holes_coco.zip', zip, 'coco');
    expect(polygons.map((p) => p.holes?.length ?? 0).sort()).toEqual([1, 2]);
    expect(maskIoU(draw(polygons), mask)).toBeGreaterThanOrEqual(0.99);
  });

  it('YOLO segment: one line for the mask, and the import gives back each part with its holes', { timeout: 90_000 }, async () => {
    const zip = await exported('yolo', { yolo_task: 'segment' });
    const label = (await (await JSZip.loadAsync(zip)).file('labels/holes.txt')!.async('string')).trim();
    expect(label.split('\n'), 'one object, one line').toHaveLength(1);

    const polygons = await importedPolygons('holes_yolo.zip', zip, 'yolo');
    expect(polygons.map((p) => p.holes?.length ?? 0).sort()).toEqual([1, 2]);
    expect(maskIoU(draw(polygons), mask)).toBeGreaterThanOrEqual(0.99);
  });

  it("COCO from another tool: an object's two polygons joined into one ring (Ultralytics' merge_multi_segment) import as its two parts", { timeout: 90_000 }, async () => {
    // Squares A (x 10..30) and B (x 50..70), joined from A's (30,10) to B's (50,10) and back: the forward pass walks A
    // round to its link vertex and B whole, the closing edge walks the bridge back.
    const ring = [30, 10, 30, 30, 10, 30, 10, 10, 30, 10, 50, 10, 70, 10, 70, 30, 50, 30, 50, 10];
    const file = {
      images: [{ id: 1, file_name: 'holes.png', width: W, height: H }],
      categories: [{ id: 1, name: 'blob' }],
      annotations: [{ id: 7, image_id: 1, category_id: 1, bbox: [10, 10, 60, 20], area: 800, iscrowd: 0, segmentation: [ring] }],
    };
    const out = new JSZip();
    out.file('annotations/instances_default.json', JSON.stringify(file));
    out.file('images/default/holes.png', await png(W, H));
    const polygons = await importedPolygons('joined_coco.zip', await out.generateAsync({ type: 'nodebuffer' }), 'coco');
    const corners = (p: Polygon) => p.path.map(([x, y]) => `${x},${y}`).sort();
    expect(polygons.map(corners).sort()).toEqual([
      ['10,10', '10,30', '30,10', '30,30'],
      ['50,10', '50,30', '70,10', '70,30'],
    ]);
  });
});
