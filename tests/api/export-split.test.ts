// POST /api/v1/annotations/export with a train/val/test split (issue 32 §1), yolo_task (§2) and
// COCO's mask_format (§3), in every format: what a training script reads from the zip.
import JSZip from 'jszip';
import { parse as parseYaml } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { encodeMask, rleArea } from '../../src/contract/rle';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';
import { expectPycocotoolsReadable, maskIoU, pycocotoolsPolygonMask } from '../support/coco-check';

let server: TestServer;
let owner: Member;
let project: { id: string };
let shapes: { id: string };
const W = 40;
const H = 30;
const N = 24;
const SPLIT = { train: 0.6, val: 0.2, test: 0.2, seed: 7 };
/** filename -> classes on it */
const classesOf = new Map<string, string[]>();

// A 10 x 8 mask with a 2 x 2 hole (column-major, as COCO): 76 pixels.
const maskPixels = new Uint8Array(W * H);
for (let x = 5; x < 15; x++) for (let y = 4; y < 12; y++) if (!(x >= 9 && x < 11 && y >= 7 && y < 9)) maskPixels[x * H + y] = 1;
const MASK = { size: [H, W], counts: encodeMask(maskPixels, H, W) };

async function exportZip(body: Record<string, unknown>) {
  const res = await fetch(`${server.url}/api/v1/annotations/export`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ project_id: project.id, scope: 'all', ...body }),
  });
  const buf = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) return { status: res.status, error: JSON.parse(buf.toString()) as { code: string }, zip: null as unknown as JSZip };
  return { status: res.status, error: null, zip: await JSZip.loadAsync(buf) };
}
const entries = (zip: JSZip) => Object.keys(zip.files).filter((n) => !zip.files[n]!.dir).sort();
const text = (zip: JSZip, name: string) => zip.file(name)!.async('string');
const json = async (zip: JSZip, name: string) => JSON.parse(await text(zip, name));
const SPLITS = ['train', 'val', 'test'] as const;

/** Filenames per split: disjoint, and together every exported image. */
function expectPartition(sets: Record<string, string[]>) {
  const all = Object.values(sets).flat();
  expect(new Set(all).size, 'an image in two splits').toBe(all.length);
  expect(all.sort()).toEqual([...classesOf.keys()].sort());
}

/** Every class with at least 3 images (as many as splits) has an image in every split. */
function expectStratified(sets: Record<string, string[]>) {
  const count = new Map<string, number>();
  for (const cs of classesOf.values()) for (const c of cs) count.set(c, (count.get(c) ?? 0) + 1);
  for (const [cls, n] of count) {
    if (n < 3) continue;
    for (const split of SPLITS) expect(sets[split]!.some((f) => classesOf.get(f)!.includes(cls)), `${cls} in ${split}`).toBe(true);
  }
}


beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
  project = await createProject(server, owner, 'Splits');
  const classes = [
    { name: 'car', type: 'box', color: '#ff0000' },
    { name: 'roof', type: 'polygon', color: '#00ff00' },
    { name: 'rare', type: 'box', color: '#0000ff' },
    { name: 'blob', type: 'polygon', color: '#00ffff' },
  ];
  expect((await api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { classes } })).status).toBe(200);
  expect((await api(server.url, 'POST', '/api/folders/create', { token: owner.token, body: { project_id: project.id, name: 'sub' } })).status).toBe(200);
  for (let i = 0; i < N; i++) {
    const filename = `img${String(i).padStart(2, '0')}.png`;
    const image = await uploadImage(server, owner, project.id, filename, await png(W, H, `#${(i * 9).toString(16).padStart(2, '0')}2233`), i % 5 === 0 ? { folder: '/sub' } : {});
    const annotations: Record<string, unknown>[] = [];
    // car on 20 images, roof on 6, rare on exactly 3 (the number of splits), blob (a mask) on 3, 4 without any.
    if (i < 20) annotations.push({ id: `c${i}`, name: 'car', bounding_box: { x: 1, y: 1, w: 10, h: 8 } });
    if (i < 6) annotations.push({ id: `r${i}`, name: 'roof', bounding_box: { x: 0, y: 0, w: 20, h: 20 }, polygon: { path: [[0, 0], [20, 0], [0, 20]] } });
    if (i >= 6 && i < 9) annotations.push({ id: `x${i}`, name: 'rare', bounding_box: { x: 2, y: 2, w: 5, h: 5 } });
    if (i >= 9 && i < 12) annotations.push({ id: `m${i}`, name: 'blob', bounding_box: { x: 5, y: 4, w: 10, h: 8 }, segmentation: MASK });
    classesOf.set(filename, [...new Set(annotations.map((a) => String(a.name)))]);
    if (annotations.length) {
      const res = await api(server.url, 'POST', '/api/v1/annotations/save-data', { token: owner.token, body: { image_id: image.id, project_id: project.id, image_filename: filename, annotations } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
  }
  // A project of polygon classes only: its default YOLO task is segment.
  shapes = await createProject(server, owner, 'Shapes');
  expect((await api(server.url, 'PATCH', `/api/v1/projects/${shapes.id}`, { token: owner.token, body: { classes: [classes[1], classes[3]] } })).status).toBe(200);
  const s = await uploadImage(server, owner, shapes.id, 's.png', await png(W, H, '#101010'));
  const res = await api(server.url, 'POST', '/api/v1/annotations/save-data', {
    token: owner.token,
    body: { image_id: s.id, project_id: shapes.id, image_filename: 's.png', annotations: [{ id: 'p', name: 'roof', bounding_box: { x: 0, y: 0, w: 20, h: 20 }, polygon: { path: [[0, 0], [20, 0], [0, 20]] } }] },
  });
  expect(res.status).toBe(200);
}, 180_000);


describe('export split', () => {
  it('refuses fractions that do not sum to 1 or are outside 0..1 with 400 invalid_split', async () => {
    for (const split of [{ train: 0.7, val: 0.2 }, { train: 0.8, val: 0.1, test: 0.2 }, { train: 1.5, val: -0.5 }]) {
      const res = await exportZip({ format: 'coco', split });
      expect(res.status).toBe(400);
      expect(res.error!.code).toBe('invalid_split');
    }
  });

  it('COCO: one instances file per split, disjoint and complete, the same categories, ids unique across files, stratified', async () => {
    const { zip } = await exportZip({ format: 'coco', split: SPLIT });
    expect(entries(zip)).toEqual(['README.txt', 'annotations/instances_test.json', 'annotations/instances_train.json', 'annotations/instances_val.json']);
    const files = Object.fromEntries(await Promise.all(SPLITS.map(async (s) => [s, await json(zip, `annotations/instances_${s}.json`)] as const)));
    const sets = Object.fromEntries(SPLITS.map((s) => [s, files[s].images.map((i: { file_name: string }) => i.file_name.split('/').pop()!)]));
    expectPartition(sets);
    expectStratified(sets);
    const imageIds = SPLITS.flatMap((s) => files[s].images.map((i: { id: number }) => i.id));
    const annotationIds = SPLITS.flatMap((s) => files[s].annotations.map((a: { id: number }) => a.id));
    expect(new Set(imageIds).size).toBe(imageIds.length);
    expect(new Set(annotationIds).size).toBe(annotationIds.length);
    expect(annotationIds).toHaveLength(20 + 6 + 3 + 3);
    for (const s of SPLITS) {
      expect(files[s].categories).toEqual(files.train.categories);
      expectPycocotoolsReadable(files[s]);
    }
    const readme = await text(zip, 'README.txt');
    expect(readme).toContain(`Split (seed 7, stratified by class): train ${sets.train!.length}, val ${sets.val!.length}, test ${sets.test!.length} image(s).`);
    expect(sets.train!.length + sets.val!.length + sets.test!.length).toBe(N);
  });

  it('gives the same split for the same seed, in every format, and another for another seed', async () => {
    const cocoSets = async (seed: number) => {
      const { zip } = await exportZip({ format: 'coco', split: { ...SPLIT, seed } });
      return Object.fromEntries(await Promise.all(SPLITS.map(async (s) => [s, (await json(zip, `annotations/instances_${s}.json`)).images.map((i: { file_name: string }) => i.file_name.split('/').pop()).sort()] as const)));
    };
    const first = await cocoSets(7);
    expect(await cocoSets(7)).toEqual(first);
    expect(await cocoSets(8)).not.toEqual(first);
    // VOC's image sets and Vellum's records say the same.
    const voc = (await exportZip({ format: 'voc', split: SPLIT })).zip;
    expect(entries(voc).filter((e) => e.startsWith('ImageSets/'))).toEqual(['ImageSets/Main/test.txt', 'ImageSets/Main/train.txt', 'ImageSets/Main/val.txt']);
    for (const s of SPLITS) expect((await text(voc, `ImageSets/Main/${s}.txt`)).trim().split('\n').map((stem) => `${stem}.png`).sort()).toEqual(first[s]);
    const vellum = (await exportZip({ format: 'vellum', split: SPLIT })).zip;
    const bySplit: Record<string, string[]> = { train: [], val: [], test: [] };
    for (const e of entries(vellum).filter((n) => n.startsWith('annotations/'))) {
      const doc = await json(vellum, e);
      bySplit[doc.image.split]!.push(doc.image.filename);
    }
    for (const s of SPLITS) expect(bySplit[s]!.sort()).toEqual(first[s]);
    expect((await json(vellum, 'vellum.json')).split).toMatchObject({ names: [...SPLITS], seed: 7, stratify: true });
  });

  it('YOLO: images/{split} and labels/{split}, data.yaml with the train, val and test paths', async () => {
    const { zip } = await exportZip({ format: 'yolo', split: SPLIT, include_images: true });
    const data = parseYaml(await text(zip, 'data.yaml'));
    expect(data).toEqual({ path: '.', train: 'images/train', val: 'images/val', test: 'images/test', nc: 4, names: { 0: 'car', 1: 'roof', 2: 'rare', 3: 'blob' } });
    const sets: Record<string, string[]> = {};
    for (const s of SPLITS) {
      const labels = entries(zip).filter((e) => e.startsWith(`labels/${s}/`));
      sets[s] = labels.map((l) => `${l.split('/').pop()!.replace(/\.txt$/, '')}.png`);
      // Every label file has its image where Ultralytics looks for it.
      for (const l of labels) expect(zip.file(l.replace(/^labels\//, 'images/').replace(/\.txt$/, '.png')), l).not.toBeNull();
    }
    expectPartition(sets);
    expectStratified(sets);
    // Folders are kept inside each split.
    expect(entries(zip).some((e) => /^labels\/(train|val|test)\/sub\/img00\.txt$/.test(e))).toBe(true);
    const readme = await text(zip, 'README.txt');
    expect(readme).toMatch(/Split \(seed 7, stratified by class\): train \d+, val \d+, test \d+ image\(s\)\./);
  });

  it('current_filters takes the list class and annotation filters, and splits what they select', async () => {
    const { zip } = await exportZip({ format: 'vellum', scope: 'current_filters', filters: { class: ['rare', 'blob'] }, split: SPLIT });
    const files = entries(zip).filter((e) => e.startsWith('annotations/'));
    expect(files.map((f) => f.split('/').pop()).sort()).toEqual(['img06.png.json', 'img07.png.json', 'img08.png.json', 'img09.png.json', 'img10.png.json', 'img11.png.json']);
    // Two classes of 3 images each, 3 splits: each class in every split.
    const bySplit = new Map<string, string[]>();
    for (const f of files) {
      const doc = await json(zip, f);
      const names = (doc.annotations as { name: string }[]).map((x) => x.name).filter((n) => n !== 'car');
      bySplit.set(doc.image.split, [...(bySplit.get(doc.image.split) ?? []), ...names]);
    }
    for (const s of SPLITS) expect(new Set(bySplit.get(s)), s).toEqual(new Set(['rare', 'blob']));
    const none = await exportZip({ format: 'vellum', scope: 'current_filters', filters: { has_annotations: 'false' } });
    expect(entries(none.zip).filter((e) => e.startsWith('annotations/'))).toHaveLength(4);
  });

  it('without a split, keeps the one-set layouts', async () => {
    expect(entries((await exportZip({ format: 'coco' })).zip)).toEqual(['README.txt', 'annotations.json']);
    const voc = (await exportZip({ format: 'voc' })).zip;
    expect(entries(voc).filter((e) => e.startsWith('ImageSets/'))).toEqual(['ImageSets/Main/default.txt']);
    const yolo = (await exportZip({ format: 'yolo' })).zip;
    expect(parseYaml(await text(yolo, 'data.yaml'))).toMatchObject({ train: 'images', val: 'images' });
    expect(await text(yolo, 'data.yaml')).toContain('val repeats train');
  });
});

describe('export progress', () => {
  it('counts the images written by the export of a progress_id, for members of its project only', async () => {
    const progressId = '6f1f7c1e-4a4b-4c4d-8e8f-000000000001';
    const before = await api(server.url, 'GET', `/api/v1/annotations/export/progress?project_id=${project.id}&progress_id=${progressId}`, { token: owner.token });
    expect(before.body).toEqual({ success: true, state: 'unknown', images_written: 0, image_count: null });
    expect((await exportZip({ format: 'yolo', split: SPLIT, progress_id: progressId })).status).toBe(200);
    const after = await api(server.url, 'GET', `/api/v1/annotations/export/progress?project_id=${project.id}&progress_id=${progressId}`, { token: owner.token });
    expect(after.body).toEqual({ success: true, state: 'done', images_written: N, image_count: N });
    // The same id under another project reads as unknown; another organization's person gets 404.
    const other = await api(server.url, 'GET', `/api/v1/annotations/export/progress?project_id=${shapes.id}&progress_id=${progressId}`, { token: owner.token });
    expect(other.body).toMatchObject({ state: 'unknown' });
    const stranger = await onboardedUser(server);
    expect((await api(server.url, 'GET', `/api/v1/annotations/export/progress?project_id=${project.id}&progress_id=${progressId}`, { token: stranger.token })).status).toBe(404);
  });
});

describe('yolo_task', () => {
  const labelLines = async (zip: JSZip, name: string) => (await text(zip, name)).trim().split('\n').map((l) => l.split(' ').map(Number));

  it('detect writes one box line per shape, polygons and masks included', async () => {
    const { zip } = await exportZip({ format: 'yolo', yolo_task: 'detect' });
    const roof = await labelLines(zip, 'labels/sub/img00.txt'); // car and roof
    expect(roof.map((l) => l.length)).toEqual([5, 5]);
    expect(roof[1]).toEqual([1, 0.25, 10 / H, 0.5, 20 / H].map((v, i) => (i === 0 ? v : Number(v.toFixed(6)))));
    const mask = await labelLines(zip, 'labels/img09.txt'); // car and the mask with a hole: one box
    expect(mask).toHaveLength(2);
    expect(mask[1]).toEqual([3, 10 / W, 8 / H, 10 / W, 8 / H].map((v, i) => (i === 0 ? v : Number(v.toFixed(6)))));
  });

  it('segment writes polygons for polygons and masks, boxes as their 4 corners', async () => {
    const { zip } = await exportZip({ format: 'yolo', yolo_task: 'segment' });
    const roof = await labelLines(zip, 'labels/sub/img00.txt');
    expect(roof[0]).toHaveLength(1 + 8); // the car box's 4 corners
    expect(roof[1]).toEqual([1, 0, 0, 0.5, 0, 0, Number((20 / H).toFixed(6))]);
    const mask = await labelLines(zip, 'labels/img09.txt');
    expect(mask).toHaveLength(2); // one line for the mask, its hole joined in
    expect(mask[1]!.length).toBeGreaterThanOrEqual(1 + 6);
    expect(await text(zip, 'README.txt')).toContain('Holes kept: 3'); // the three masks
  });

  it('defaults to detect with box classes, to segment without', async () => {
    expect(await text((await exportZip({ format: 'yolo' })).zip, 'README.txt')).toContain('Task: detect (the default');
    const res = await fetch(`${server.url}/api/v1/annotations/export`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: shapes.id, scope: 'all', format: 'yolo' }),
    });
    const zip = await JSZip.loadAsync(Buffer.from(await res.arrayBuffer()));
    expect(await text(zip, 'README.txt')).toContain('Task: segment (the default');
    expect((await text(zip, 'labels/s.txt')).trim().split(' ')).toHaveLength(1 + 6);
  });
});

describe('mask_format', () => {
  const blobOf = async (maskFormat?: string) => {
    const { zip } = await exportZip({ format: 'coco', ...(maskFormat ? { mask_format: maskFormat } : {}) });
    const coco = await json(zip, 'annotations.json');
    const blob = coco.categories.find((c: { name: string }) => c.name === 'blob').id;
    return { coco, zip, masks: coco.annotations.filter((a: { category_id: number }) => a.category_id === blob) };
  };

  it('rle (the default) keeps masks as compressed RLE', async () => {
    for (const f of [undefined, 'rle']) {
      const { masks } = await blobOf(f);
      expect(masks).toHaveLength(3);
      for (const m of masks) expect(m).toMatchObject({ segmentation: { size: [H, W], counts: expect.any(String) }, area: rleArea({ size: [H, W], counts: MASK.counts }), bbox: [5, 4, 10, 8] });
    }
  });

  it('polygon traces masks into simplified polygons that pycocotools decodes with their holes empty', async () => {
    const { masks, coco, zip } = await blobOf('polygon');
    expect(masks).toHaveLength(3);
    for (const m of masks) {
      expect(Array.isArray(m.segmentation)).toBe(true);
      // One ring: the 10 x 8 rectangle with its 2 x 2 hole joined in by a keyhole bridge.
      expect(m.segmentation).toHaveLength(1);
      expect(m.area).toBe(76);
      expect(m.bbox[0]).toBeGreaterThanOrEqual(5 - 1);
      expect(m.bbox[0] + m.bbox[2]).toBeLessThanOrEqual(15 + 1);
      // What pycocotools' annToMask gives: the mask itself, the hole's 4 pixels empty.
      const decoded = pycocotoolsPolygonMask(m.segmentation, H, W);
      expect(maskIoU(decoded, maskPixels)).toBeGreaterThanOrEqual(0.99);
      for (let x = 9; x < 11; x++) for (let y = 7; y < 9; y++) expect(decoded[x * H + y]).toBe(0);
    }
    expectPycocotoolsReadable(coco);
    const readme = await text(zip, 'README.txt');
    expect(readme).toContain('masks as polygons (mask_format polygon)');
    expect(readme).toContain('keyhole bridges so pycocotools leaves them empty (3 of 3 mask(s) had holes)');
  });
});
