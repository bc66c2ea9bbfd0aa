import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { countsToString, decodeRle, encodeMask } from '../../../contract/rle';
import { ImportInputError } from '../reader';
import { cocoReader } from './read';
import { imageNamed, memoryArchive, readAll, recordingReporter } from '../../../../tests/support/test-archive';

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0]);

// A 4x3 mask (height 3, width 4) with pixels (1,0), (1,1), (2,1) set, column-major.
const MASK = new Uint8Array([0, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0]);

function instances() {
  const counts = encodeMask(MASK, 3, 4);
  return {
    info: { description: 'test' },
    licenses: [],
    images: [
      { id: 1, file_name: 'a.jpg', width: 640, height: 480 },
      { id: 2, file_name: 'b.jpg', width: 4, height: 3 },
      { id: 3, file_name: 'c.jpg', width: 10, height: 10 },
    ],
    categories: [
      { id: 1, name: 'cat' },
      { id: 2, name: 'dog' },
      { id: 3, name: 'person', keypoints: ['nose', 'left_eye', 'right_eye'], skeleton: [[1, 2]] },
      { id: 4, name: 'blob' },
      { id: 5, name: 'unused' },
      { id: 6, name: 'window' },
    ],
    annotations: [
      { id: 10, image_id: 1, category_id: 1, bbox: [10, 20, 30, 40], area: 1200, iscrowd: 0, segmentation: [] },
      // Vellum's way of writing a box: the bbox rectangle as the segmentation, with its box mark.
      { id: 11, image_id: 1, category_id: 1, bbox: [1, 2, 3, 4], area: 12, iscrowd: 0, segmentation: [[1, 2, 4, 2, 4, 6, 1, 6]], vellum_shape: 'box', attributes: { occluded: true, colour: 'red', tags: ['a', 'b'] } },
      { id: 12, image_id: 1, category_id: 2, bbox: [0, 0, 50, 50], iscrowd: 0, segmentation: [[0, 0, 10, 0, 10, 10], [20, 20, 30, 20, 30, 30, 20, 30]] },
      { id: 13, image_id: 1, category_id: 2, bbox: [0, 0, 5, 5], iscrowd: 0, segmentation: [[1, 2, 3, 4]] },
      { id: 14, image_id: 1, category_id: 3, bbox: [5, 5, 30, 30], iscrowd: 0, segmentation: [[5, 5, 35, 5, 20, 35]], keypoints: [10, 11, 2, 0, 0, 0, 20, 21, 1], num_keypoints: 2 },
      { id: 15, image_id: 1, category_id: 99, bbox: [0, 0, 1, 1] },
      { id: 16, image_id: 42, category_id: 1, bbox: [0, 0, 1, 1] },
      { id: 17, image_id: 2, category_id: 4, bbox: [1, 0, 2, 2], iscrowd: 0, segmentation: { size: [3, 4], counts: countsToString(counts) } },
      { id: 18, image_id: 2, category_id: 4, bbox: [1, 0, 2, 2], iscrowd: 1, segmentation: { size: [3, 4], counts } },
      { id: 19, image_id: 2, category_id: 4, iscrowd: 1, segmentation: { size: [3, 4], counts: [1, 2] } },
      // Vellum's export of a single keypoint.
      { id: 20, image_id: 3, category_id: 3, bbox: [7, 8, 0, 0], area: 0, iscrowd: 0, segmentation: [[7, 8, 7, 8, 7, 8]], keypoints: [7, 8, 2], num_keypoints: 1 },
      // Another tool's polygon that happens to be its bbox's rectangle (no box mark): a polygon.
      { id: 21, image_id: 1, category_id: 6, bbox: [2, 3, 5, 4], area: 20, iscrowd: 0, segmentation: [[2, 3, 7, 3, 7, 7, 2, 7]] },
    ],
  };
}

describe('COCO reader', () => {
  it('reads boxes, polygons with several rings, RLE masks, keypoints and attributes', async () => {
    const archive = memoryArchive({
      'annotations/instances_train.json': JSON.stringify(instances(), null, 1),
      'images/train/a.jpg': JPEG,
      'images/train/b.jpg': JPEG,
      'images/train/extra.jpg': JPEG,
    });
    expect(await cocoReader.detect(archive)).toBe(true);
    const { dataset, images, report } = await readAll(cocoReader, archive);
    expect(dataset.total).toBe(3);
    expect(dataset.classes).toEqual([
      { name: 'cat', type: 'box' },
      { name: 'dog', type: 'polygon' },
      // A category with keypoints is a skeleton class (issue 33): its edges 0-based.
      { name: 'person', skeleton: { points: ['nose', 'left_eye', 'right_eye'], edges: [[0, 1]] } },
      // Its segmentations' class: a skeleton class holds skeletons only.
      { name: 'person segmentation', type: 'polygon' },
      { name: 'blob', type: 'polygon' },
      { name: 'unused' },
      { name: 'window', type: 'polygon' },
    ]);
    expect(images.map((i) => [i.fileName, i.entry, i.folder])).toEqual([
      ['a.jpg', 'images/train/a.jpg', 'train'],
      ['b.jpg', 'images/train/b.jpg', 'train'],
      ['c.jpg', undefined, ''],
      ['extra.jpg', 'images/train/extra.jpg', 'train'],
    ]);
    const a = imageNamed(images, 'a.jpg');
    expect(a.width).toBe(640);
    expect(a.height).toBe(480);
    expect(a.normalized).toBeUndefined();
    expect(a.annotations).toEqual([
      { class: 'cat', shape: { type: 'box', x: 10, y: 20, w: 30, h: 40 } },
      {
        class: 'cat',
        shape: { type: 'box', x: 1, y: 2, w: 3, h: 4 },
        attributes: [
          { name: 'occluded', value: true },
          { name: 'colour', value: 'red' },
          { name: 'tags', value: '["a","b"]' },
        ],
      },
      { class: 'dog', shape: { type: 'polygon', path: [[0, 0], [10, 0], [10, 10]] }, extra: { instance: '12' } },
      { class: 'dog', shape: { type: 'polygon', path: [[20, 20], [30, 20], [30, 30], [20, 30]] }, extra: { instance: '12' } },
      // One skeleton instance with its bbox, and its outline kept beside it as a polygon of 'person segmentation', tied by instance (a warning counts them).
      { class: 'person', shape: { type: 'skeleton', points: [{ x: 10, y: 11, v: 2 }, { x: 0, y: 0, v: 0 }, { x: 20, y: 21, v: 1 }], box: { x: 5, y: 5, w: 30, h: 30 } } },
      { class: 'person segmentation', shape: { type: 'polygon', path: [[5, 5], [35, 5], [20, 35]] }, extra: { instance: '14' } },
      { class: 'window', shape: { type: 'polygon', path: [[2, 3], [7, 3], [7, 7], [2, 7]] } },
    ]);
    const b = imageNamed(images, 'b.jpg');
    expect(b.annotations).toHaveLength(2);
    const [compressed, crowd] = b.annotations;
    expect(compressed!.shape).toEqual({ type: 'mask', size: [3, 4], counts: countsToString(encodeMask(MASK, 3, 4)) });
    expect(crowd!.shape).toEqual({ type: 'mask', size: [3, 4], counts: encodeMask(MASK, 3, 4) });
    expect(crowd!.extra).toEqual({ iscrowd: 1 });
    for (const m of [compressed!, crowd!]) {
      if (m.shape.type !== 'mask') throw new Error('not a mask');
      expect([...decodeRle(m.shape)]).toEqual([...MASK]);
    }
    expect(imageNamed(images, 'c.jpg').annotations).toEqual([{ class: 'person', shape: { type: 'skeleton', points: [{ x: 7, y: 8, v: 2 }, { x: 0, y: 0, v: 0 }, { x: 0, y: 0, v: 0 }], box: { x: 7, y: 8, w: 0, h: 0 } } }]);

    const f = 'annotations/instances_train.json';
    expect(report.skipped).toEqual(
      expect.arrayContaining([
        { file: `${f}: annotations[3] (id 13) segmentation[0]`, reason: 'a polygon needs at least 3 points, this one has 2' },
        { file: `${f}: annotations[5] (id 15)`, reason: 'unknown category_id 99' },
        { file: `${f}: annotations of image_id 42`, reason: '1 annotation(s) for an image id that is not in images' },
        { file: `${f}: annotations[9] (id 19) segmentation`, reason: 'RLE counts sum to 3, expected height*width = 12' },
      ]),
    );
    expect(report.skipped).toHaveLength(4);
    expect(report.warnings).toEqual([
      `${f}: annotations[1] (id 11): attribute "tags" is not a single value; kept as its JSON text`,
      '1 skeleton instance(s) kept their segmentation as polygon or mask annotations of the class "<name> segmentation", beside the skeleton (extra.instance ties them)',
      '1 image file(s) in the archive are not listed in any COCO file; imported without annotations',
    ]);
  });

  it("keeps a person's segmentation beside its skeleton (polygons or a mask of 'person segmentation'), and reads an outline without keypoints alone", async () => {
    const rle = encodeMask(MASK, 3, 4);
    const archive = memoryArchive({
      'annotations/person_keypoints_val.json': JSON.stringify({
        images: [{ id: 1, file_name: 'p.jpg', width: 40, height: 40 }],
        categories: [{ id: 1, name: 'person', keypoints: ['nose', 'tail'], skeleton: [[1, 2]] }],
        annotations: [
          // Two rings and attributes: two polygons of the class, each with the instance and the attributes.
          { id: 7, image_id: 1, category_id: 1, bbox: [0, 0, 30, 30], iscrowd: 0, attributes: { pose: 'standing' }, keypoints: [1, 2, 2, 3, 4, 1], segmentation: [[0, 0, 10, 0, 10, 10], [20, 20, 30, 20, 30, 30]] },
          // A crowd's RLE: a mask beside the skeleton.
          { id: 8, image_id: 1, category_id: 1, bbox: [1, 0, 2, 2], iscrowd: 1, keypoints: [5, 6, 2, 0, 0, 0], segmentation: { size: [3, 4], counts: rle } },
          // Vellum's export of a skeleton: a zero-area polygon at the box's corner is no outline.
          { id: 9, image_id: 1, category_id: 1, bbox: [2, 2, 4, 4], iscrowd: 0, keypoints: [2, 2, 2, 6, 6, 2], segmentation: [[2, 2, 2, 2, 2, 2]] },
          // An outline of the class without keypoints (what the export writes for such a polygon): the polygon alone.
          { id: 10, image_id: 1, category_id: 1, bbox: [0, 0, 5, 5], iscrowd: 0, segmentation: [[0, 0, 5, 0, 5, 5]] },
          // Neither keypoints nor a segmentation: skipped.
          { id: 11, image_id: 1, category_id: 1, bbox: [0, 0, 5, 5], iscrowd: 0 },
        ],
      }),
    });
    const { dataset, images, report } = await readAll(cocoReader, archive);
    expect(dataset.classes).toEqual([{ name: 'person', skeleton: { points: ['nose', 'tail'], edges: [[0, 1]] } }, { name: 'person segmentation', type: 'polygon' }]);
    const standing = [{ name: 'pose', value: 'standing' }];
    expect(imageNamed(images, 'p.jpg').annotations).toEqual([
      { class: 'person', shape: { type: 'skeleton', points: [{ x: 1, y: 2, v: 2 }, { x: 3, y: 4, v: 1 }], box: { x: 0, y: 0, w: 30, h: 30 } }, attributes: standing },
      { class: 'person segmentation', shape: { type: 'polygon', path: [[0, 0], [10, 0], [10, 10]] }, attributes: standing, extra: { instance: '7' } },
      { class: 'person segmentation', shape: { type: 'polygon', path: [[20, 20], [30, 20], [30, 30]] }, attributes: standing, extra: { instance: '7' } },
      { class: 'person', shape: { type: 'skeleton', points: [{ x: 5, y: 6, v: 2 }, { x: 0, y: 0, v: 0 }], box: { x: 1, y: 0, w: 2, h: 2 } }, extra: { iscrowd: 1 } },
      { class: 'person segmentation', shape: { type: 'mask', size: [3, 4], counts: rle }, extra: { instance: '8', iscrowd: 1 } },
      { class: 'person', shape: { type: 'skeleton', points: [{ x: 2, y: 2, v: 2 }, { x: 6, y: 6, v: 2 }], box: { x: 2, y: 2, w: 4, h: 4 } } },
      { class: 'person segmentation', shape: { type: 'polygon', path: [[0, 0], [5, 0], [5, 5]] }, extra: { instance: '10' } },
    ]);
    const f = 'annotations/person_keypoints_val.json';
    expect(report.skipped).toEqual([{ file: `${f}: annotations[4] (id 11)`, reason: 'class "person" is a skeleton class: an annotation needs keypoints, a list of x, y, v numbers' }]);
    expect(report.warnings).toEqual(['2 skeleton instance(s) kept their segmentation as polygon or mask annotations of the class "<name> segmentation", beside the skeleton (extra.instance ties them)']);
  });

  it("reads Roboflow's <split>/_annotations.coco.json beside the images", async () => {
    const file = (name: string) =>
      JSON.stringify({ images: [{ id: 0, file_name: name, width: 8, height: 8 }], categories: [{ id: 0, name: 'objects' }, { id: 1, name: 'car', supercategory: 'objects' }], annotations: [{ id: 0, image_id: 0, category_id: 1, bbox: [1, 1, 2, 2], area: 4, segmentation: [], iscrowd: 0 }] });
    const archive = memoryArchive({
      'README.roboflow.txt': 'exported',
      'train/_annotations.coco.json': file('x_jpg.rf.1.jpg'),
      'train/x_jpg.rf.1.jpg': JPEG,
      'valid/_annotations.coco.json': file('y_jpg.rf.2.jpg'),
      'valid/y_jpg.rf.2.jpg': JPEG,
    });
    expect(await cocoReader.detect(archive)).toBe(true);
    const { dataset, images, report } = await readAll(cocoReader, archive);
    // Roboflow's category 0 (the dataset's name, the others' supercategory, never used) is not a class.
    expect(dataset.classes).toEqual([{ name: 'car', type: 'box' }]);
    expect(images.map((i) => [i.fileName, i.entry, i.folder, i.annotations.length])).toEqual([
      ['x_jpg.rf.1.jpg', 'train/x_jpg.rf.1.jpg', 'train', 1],
      ['y_jpg.rf.2.jpg', 'valid/y_jpg.rf.2.jpg', 'valid', 1],
    ]);
    expect(report.skipped).toEqual([]);
    expect(report.warnings).toEqual([]);
  });

  it("reads Vellum's own COCO layout (annotations.json, file_name images/<folder>/<name>)", async () => {
    const doc = {
      images: [{ id: 1, file_name: 'images/site a/day 1/x.png', width: 5, height: 5 }],
      categories: [{ id: 1, name: 'car', supercategory: '' }, { id: 2, name: 'eye', supercategory: '', keypoints: ['point'], skeleton: [] }],
      annotations: [{ id: 1, image_id: 1, category_id: 2, bbox: [2, 3, 0, 0], area: 0, iscrowd: 0, segmentation: [[2, 3, 2, 3, 2, 3]], keypoints: [2, 3, 2], num_keypoints: 1 }],
    };
    const archive = memoryArchive({ 'annotations.json': JSON.stringify(doc), 'images/site a/day 1/x.png': JPEG, 'README.txt': 'x' });
    expect(await cocoReader.detect(archive)).toBe(true);
    const { images } = await readAll(cocoReader, archive);
    // A Vellum keypoint comes back as a plain keypoint (no part 'point', no instance).
    expect(images).toEqual([{ fileName: 'x.png', entry: 'images/site a/day 1/x.png', folder: 'site a/day 1', width: 5, height: 5, annotations: [{ class: 'eye', shape: { type: 'keypoint', x: 2, y: 3 } }] }]);
  });

  it("reads the unmarked boxes of Vellum's exports from before the box mark (info version 1.0) as boxes, and only those", async () => {
    const doc = (info: Record<string, unknown>) =>
      JSON.stringify({
        info,
        images: [{ id: 1, file_name: 'images/x.png', width: 9, height: 9 }],
        categories: [{ id: 1, name: 'car', supercategory: '' }],
        annotations: [{ id: 1, image_id: 1, category_id: 1, bbox: [1, 2, 3, 4], area: 12, iscrowd: 0, segmentation: [[1, 2, 4, 2, 4, 6, 1, 6]] }],
      });
    const shapeOf = async (info: Record<string, unknown>) => {
      const { dataset, images } = await readAll(cocoReader, memoryArchive({ 'annotations.json': doc(info) }));
      return [dataset.classes[0]!.type, images[0]!.annotations[0]!.shape.type];
    };
    expect(await shapeOf({ description: 'p', version: '1.0', contributor: 'Vellum' })).toEqual(['box', 'box']);
    expect(await shapeOf({ description: 'p', version: '1.1', contributor: 'Vellum' })).toEqual(['polygon', 'polygon']);
    expect(await shapeOf({ description: 'p', version: '1.0', contributor: 'someone' })).toEqual(['polygon', 'polygon']);
  });

  it('yields an image that instances_ and person_keypoints_ both list once, with the annotations of both', async () => {
    const images = [{ id: 5, file_name: 'a.jpg', width: 50, height: 50 }];
    const archive = memoryArchive({
      'annotations/instances_val.json': JSON.stringify({ images, categories: [{ id: 1, name: 'car' }], annotations: [{ id: 1, image_id: 5, category_id: 1, bbox: [1, 1, 2, 2] }] }),
      'annotations/person_keypoints_val.json': JSON.stringify({ images, categories: [{ id: 1, name: 'person', keypoints: ['nose'] }], annotations: [{ id: 9, image_id: 5, category_id: 1, keypoints: [3, 4, 2] }] }),
      'annotations/captions_val.json': JSON.stringify({ images, annotations: [{ id: 1, image_id: 5, caption: 'a car' }] }),
      'images/val/a.jpg': JPEG,
    });
    const { dataset, images: read, report } = await readAll(cocoReader, archive);
    expect(dataset.total).toBe(1);
    expect(dataset.classes).toEqual([{ name: 'car', type: 'box' }, { name: 'person', skeleton: { points: ['nose'], edges: [] } }]);
    expect(read).toEqual([
      {
        fileName: 'a.jpg',
        entry: 'images/val/a.jpg',
        folder: 'val',
        width: 50,
        height: 50,
        annotations: [
          { class: 'car', shape: { type: 'box', x: 1, y: 1, w: 2, h: 2 } },
          { class: 'person', shape: { type: 'skeleton', points: [{ x: 3, y: 4, v: 2 }] } },
        ],
      },
    ]);
    // captions_*.json is not an instances file by name, so it is not even read.
    expect(report.skipped).toEqual([]);
  });

  it("keeps a category's point names in order on its skeleton class, numbering unnamed points, and each object's triples in place", async () => {
    const doc = {
      images: [{ id: 1, file_name: 'a.jpg' }],
      categories: [{ id: 1, name: 'b', keypoints: [] }, { id: 2, name: 'hand', keypoints: ['wrist'] }, { id: 3, name: 'eye', keypoints: ['point'] }],
      annotations: [
        { id: 1, image_id: 1, category_id: 1, bbox: [0, 0, 4, 4], keypoints: [0, 0, 0, 0, 2, 1, 4, 1, 2] },
        { id: 2, image_id: 1, category_id: 2, keypoints: [1, 1, 2, 2, 2, 2] },
        { id: 3, image_id: 1, category_id: 3, keypoints: [3, 3, 2] },
      ],
    };
    const { dataset, images } = await readAll(cocoReader, memoryArchive({ 'labels.json': JSON.stringify(doc) }));
    expect(dataset.classes).toEqual([
      { name: 'b', skeleton: { points: ['1', '2', '3'], edges: [] } },
      { name: 'hand', skeleton: { points: ['wrist', '2'], edges: [] } },
      // Vellum's own lone points: plain keypoints.
      { name: 'eye', type: 'keypoint' },
    ]);
    expect(images[0]!.annotations.map((a) => [a.class, a.shape])).toEqual([
      ['b', { type: 'skeleton', points: [{ x: 0, y: 0, v: 0 }, { x: 0, y: 2, v: 1 }, { x: 4, y: 1, v: 2 }], box: { x: 0, y: 0, w: 4, h: 4 } }],
      ['hand', { type: 'skeleton', points: [{ x: 1, y: 1, v: 2 }, { x: 2, y: 2, v: 2 }] }],
      ['eye', { type: 'keypoint', x: 3, y: 3 }],
    ]);
  });

  it('reads a lone .json as annotation-only images', async () => {
    // Ids as numbers in one place and text in another still meet.
    const doc = { categories: [{ id: '1', name: 'car' }], images: [{ id: 3, file_name: 'photos/p.jpg' }], annotations: [{ id: 1, image_id: '3', category_id: 1, bbox: [0, 0, 2, 3] }] };
    const archive = memoryArchive({ 'labels.json': JSON.stringify(doc) });
    expect(await cocoReader.detect(archive)).toBe(true);
    const { images } = await readAll(cocoReader, archive);
    expect(images).toEqual([{ fileName: 'p.jpg', folder: '', annotations: [{ class: 'car', shape: { type: 'box', x: 0, y: 0, w: 2, h: 3 } }] }]);
  });

  it('does not take other JSON for COCO', async () => {
    expect(await cocoReader.detect(memoryArchive({ 'package.json': '{"name": "x", "version": "1"}' }))).toBe(false);
    expect(await cocoReader.detect(memoryArchive({ 'a.jpg': JPEG }))).toBe(false);
  });

  it('names the file, line and column of malformed JSON', async () => {
    const archive = memoryArchive({ 'annotations/instances_val.json': '{\n  "images": [\n    {"id": 1, "file_name": "a.jpg",, "width": 3}\n  ]\n}' });
    const err = await readAll(cocoReader, archive).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportInputError);
    expect((err as Error).message).toMatch(/^annotations\/instances_val\.json: malformed JSON at line 3, column \d+: /);
  });

  it('refuses a JSON file that is not an object, and skips one without COCO lists', async () => {
    const err = await readAll(cocoReader, memoryArchive({ 'annotations/instances_x.json': '[1, 2]' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportInputError);
    expect((err as Error).message).toContain('not a COCO file');
    const captions = memoryArchive({ 'annotations/instances_a.json': '{"images": [], "annotations": []}', 'annotations/instances_b.json': '{"images": [], "annotations": [], "categories": []}' });
    const { report } = await readAll(cocoReader, captions);
    expect(report.skipped).toEqual([{ file: 'annotations/instances_a.json', reason: 'not a COCO instances file (no categories list)' }]);
  });

  it('reads 100,000 annotations of one image through a spill file, not as one object tree', async () => {
    const n = 100_000;
    const parts: string[] = [];
    for (let i = 0; i < n; i++) parts.push(`{"id":${i},"image_id":7,"category_id":1,"bbox":[${i % 1000},${Math.floor(i / 1000)},1.5,2.5],"area":3.75,"iscrowd":0,"segmentation":[]}`);
    // Categories last: nothing can be converted before the whole file has been read once.
    const text = `{"images":[{"id":7,"file_name":"dense.jpg","width":1000,"height":100}],"annotations":[\n${parts.join(',\n')}\n],"categories":[{"id":1,"name":"dot"}]}`;
    const archive = memoryArchive({ 'dense.json': text });
    const tmpDir = await fs.mkdtemp(path.join(os.tmpdir(), 'vellum-coco-dense-'));
    try {
      const report = recordingReporter();
      const dataset = await cocoReader.read(archive, { report, tmpDir });
      // After the single pass the annotations sit on disk, one line each, and nothing is converted yet.
      const [spill] = await fs.readdir(tmpDir);
      const spilled = await fs.readFile(path.join(tmpDir, spill!), 'utf8');
      expect(spilled.split('\n').filter(Boolean)).toHaveLength(n);
      let count = 0;
      let last: unknown;
      for await (const image of dataset.images) {
        expect(image.fileName).toBe('dense.jpg');
        count += image.annotations.length;
        last = image.annotations[n - 1];
      }
      expect(count).toBe(n);
      expect(last).toEqual({ class: 'dot', shape: { type: 'box', x: 999, y: 99, w: 1.5, h: 2.5 } });
      expect(report.skipped).toEqual([]);
      // The spill is removed once its images have been read.
      expect(await fs.readdir(tmpDir)).toEqual([]);
    } finally {
      await fs.rm(tmpDir, { recursive: true, force: true });
    }
  });
});
