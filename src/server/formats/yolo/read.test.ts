import { describe, expect, it } from 'vitest';
import { ImportInputError } from '../reader';
import { labelClassTypes, packLabels, parseLabelFile, parseLabelLine, unpackLabels, yoloReader, type LabelParsing } from './read';
import { imageNamed, memoryArchive, readAll, recordingReporter } from '../../../../tests/support/test-archive';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

describe('YOLO reader', () => {
  it('reads the Ultralytics layout: data.yaml names as a list, boxes and segment polygons, bad lines skipped', async () => {
    const archive = memoryArchive({
      'data.yaml': 'path: .\ntrain: images/train\nval: images/val\nnames:\n  - car\n  - road\n',
      'images/train/a.png': PNG,
      'labels/train/a.txt': '0 0.5 0.5 0.2 0.4\n1 0.1 0.1 0.9 0.1 0.5 0.9\n\n# a comment\n0 0.5 0.5 0.2\n3 0.5 0.5 0.1 0.1\n0 0.5 abc 0.1 0.1\n0 0.5 0.5 0.1 0.1 0.87\n',
      'images/val/b.png': PNG,
      'images/val/c.png': PNG,
      'labels/val/c.txt': '1 0 0 1 0 1 1 0 1\r\n',
      'labels/val/orphan.txt': '0 0.5 0.5 0.1 0.1\n',
    });
    expect(await yoloReader.detect(archive)).toBe(true);
    const { dataset, images, report } = await readAll(yoloReader, archive);
    expect(dataset.classes).toEqual([
      { name: 'car', type: 'box' },
      { name: 'road', type: 'polygon' },
    ]);
    expect(dataset.total).toBe(3);
    expect(images.map((i) => [i.fileName, i.entry, i.folder, i.normalized, i.annotations.length])).toEqual([
      ['a.png', 'images/train/a.png', 'train', true, 3],
      ['b.png', 'images/val/b.png', 'val', true, 0],
      ['c.png', 'images/val/c.png', 'val', true, 1],
    ]);
    const [box, polygon, withConfidence] = imageNamed(images, 'a.png').annotations;
    expect(box!.class).toBe('car');
    expect(box!.shape.type).toBe('box');
    if (box!.shape.type !== 'box') throw new Error('not a box');
    expect(box!.shape.x).toBeCloseTo(0.4, 12);
    expect(box!.shape.y).toBeCloseTo(0.3, 12);
    expect(box!.shape.w).toBe(0.2);
    expect(box!.shape.h).toBe(0.4);
    expect(polygon).toEqual({ class: 'road', shape: { type: 'polygon', path: [[0.1, 0.1], [0.9, 0.1], [0.5, 0.9]] } });
    expect(withConfidence!.attributes).toEqual([{ name: 'confidence', value: 0.87 }]);
    // 4 axis-aligned corners are a box.
    expect(imageNamed(images, 'c.png').annotations[0]!.shape).toEqual({ type: 'box', x: 0, y: 0, w: 1, h: 1 });
    expect(report.skipped).toEqual([
      { file: 'labels/train/a.txt line 5', reason: '4 values: expected 5 (class cx cy w h), 6 (with a confidence) or an odd number of at least 7 (class and 3 or more x y points)' },
      { file: 'labels/train/a.txt line 6', reason: 'class index 3 is not one of the 2 classes (0 to 1)' },
      { file: 'labels/train/a.txt line 7', reason: 'not a number: "abc"' },
      { file: 'labels/val/orphan.txt', reason: 'no image for this label file in the archive, and no list file (train.txt ...) names it, so its file name is unknown' },
    ]);
  });

  it("reads names as a map, Roboflow's <split>/images beside <split>/labels, and a nested dataset folder", async () => {
    const archive = memoryArchive({
      'ds/data.yaml': "names:\n  0: person\n  2: bike\nnc: 3\n",
      'ds/train/images/p.jpg': PNG,
      'ds/train/labels/p.txt': '2 0.5 0.5 1 1\n',
    });
    const { dataset, images } = await readAll(yoloReader, archive);
    expect(dataset.classes).toEqual([{ name: 'person' }, { name: '1' }, { name: 'bike', type: 'box' }]);
    expect(images).toEqual([{ fileName: 'p.jpg', entry: 'ds/train/images/p.jpg', folder: 'train', normalized: true, annotations: [{ class: 'bike', shape: { type: 'box', x: 0, y: 0, w: 1, h: 1 } }] }]);
  });

  it('reads the Darknet layout (obj.names, obj.data, obj_train_data), and labels whose image a list names', async () => {
    const archive = memoryArchive({
      'obj.names': 'cat\ndog\n\n',
      'obj.data': 'classes = 2\ntrain = data/train.txt\nnames = data/obj.names\nbackup = backup/\n',
      'train.txt': 'data/obj_train_data/x.jpg\ndata/obj_train_data/y.jpeg\n',
      'obj_train_data/x.jpg': PNG,
      'obj_train_data/x.txt': '1 0.5 0.5 0.5 0.5\n',
      'obj_train_data/y.txt': '0 0.25 0.25 0.5 0.5\n',
    });
    expect(await yoloReader.detect(archive)).toBe(true);
    const { dataset, images, report } = await readAll(yoloReader, archive);
    expect(dataset.classes).toEqual([
      { name: 'cat', type: 'box' },
      { name: 'dog', type: 'box' },
    ]);
    expect(images).toEqual([
      { fileName: 'x.jpg', entry: 'obj_train_data/x.jpg', folder: '', normalized: true, annotations: [{ class: 'dog', shape: { type: 'box', x: 0.25, y: 0.25, w: 0.5, h: 0.5 } }] },
      // No image in the archive: annotation-only, its name from train.txt.
      { fileName: 'y.jpeg', folder: '', normalized: true, annotations: [{ class: 'cat', shape: { type: 'box', x: 0, y: 0, w: 0.5, h: 0.5 } }] },
    ]);
    expect(report.skipped).toEqual([]);
  });

  it('keeps Darknet splits as folders when there are several', async () => {
    const archive = memoryArchive({ 'obj.names': 'a\n', 'obj_train_data/x.jpg': PNG, 'obj_valid_data/y.jpg': PNG });
    const { images } = await readAll(yoloReader, archive);
    expect(images.map((i) => i.folder)).toEqual(['train', 'valid']);
  });

  it('refuses a dataset without names and a data.yaml that does not parse, with its line', async () => {
    const noNames = await readAll(yoloReader, memoryArchive({ 'data.yaml': 'train: images\n', 'images/a.jpg': PNG })).catch((e: unknown) => e);
    expect(noNames).toBeInstanceOf(ImportInputError);
    expect((noNames as Error).message).toContain('data.yaml: no names');
    const broken = await readAll(yoloReader, memoryArchive({ 'data.yaml': 'names: [a, b\ntrain: x\n' })).catch((e: unknown) => e);
    expect(broken).toBeInstanceOf(ImportInputError);
    expect((broken as Error).message).toMatch(/^data\.yaml: YAML error at line 2/);
    expect(await yoloReader.detect(memoryArchive({ 'a.jpg': PNG, 'a.txt': '0 0.5 0.5 1 1' }))).toBe(false);
  });

  it('reads Ultralytics pose labels (kpt_shape): each line one skeleton instance of a skeleton class, with its box', async () => {
    const archive = memoryArchive({
      'data.yaml': 'names: [person, hand]\nkpt_shape: [3, 3]\nkpt_names:\n  0: [nose, left_eye, right_eye]\n',
      'images/p.jpg': PNG,
      'labels/p.txt': '0 0.5 0.5 0.2 0.4 0.5 0.4 2 0.45 0.38 1 0 0 0\n1 0.1 0.1 0.1 0.1 0.1 0.1 2 0 0 0 0 0 0\n0 0.5 0.5 0.2 0.4 0.5 0.4\n',
    });
    const { dataset, images, report } = await readAll(yoloReader, archive);
    expect(dataset.classes).toEqual([
      { name: 'person', skeleton: { points: ['nose', 'left_eye', 'right_eye'], edges: [] } },
      { name: 'hand', skeleton: { points: ['1', '2', '3'], edges: [] } },
    ]);
    expect(images[0]!.annotations).toEqual([
      { class: 'person', shape: { type: 'skeleton', points: [{ x: 0.5, y: 0.4, v: 2 }, { x: 0.45, y: 0.38, v: 1 }, { x: 0, y: 0, v: 0 }], box: { x: 0.4, y: 0.3, w: 0.2, h: 0.4 } } },
      { class: 'hand', shape: { type: 'skeleton', points: [{ x: 0.1, y: 0.1, v: 2 }, { x: 0, y: 0, v: 0 }, { x: 0, y: 0, v: 0 }], box: { x: 0.05, y: 0.05, w: 0.1, h: 0.1 } } },
    ]);
    expect(report.skipped).toEqual([{ file: 'labels/p.txt line 3', reason: '7 values: expected 14 (class cx cy w h and 3 keypoints of 3 values, kpt_shape in data.yaml)' }]);
  });

  it('parses label lines', () => {
    const names = ['a', 'b'];
    expect(parseLabelLine('   ', names)).toBeNull();
    expect(parseLabelLine('1 0.5 0.5 0 0', names)).toEqual({ ok: true, value: [{ class: 'b', shape: { type: 'box', x: 0.5, y: 0.5, w: 0, h: 0 } }] });
    expect(parseLabelLine('0.5 0.5 0.5 0.1 0.1', names)).toEqual({ ok: false, reason: 'class index 0.5 is not one of the 2 classes (0 to 1)' });
    expect(parseLabelLine('0 0.5 0.5 -0.1 0.1', names)).toEqual({ ok: false, reason: 'a box cannot have a negative width or height' });
    expect(parseLabelLine('0 1 2 3 4 5 6 7', names)).toMatchObject({ ok: false });
  });
});

describe('rectangles written as segments', () => {
  it('reads 4 axis-aligned corners as a box, and anything else as a polygon', () => {
    const names = ['car'];
    const rect = parseLabelLine('0 0.1 0.2 0.5 0.2 0.5 0.6 0.1 0.6', names);
    const shape = rect && rect.ok ? rect.value[0]!.shape : null;
    expect(shape?.type).toBe('box');
    if (shape?.type !== 'box') return;
    for (const [k, v] of Object.entries({ x: 0.1, y: 0.2, w: 0.4, h: 0.4 })) expect(shape[k as 'x']).toBeCloseTo(v, 12);
    const tilted = parseLabelLine('0 0.1 0.2 0.5 0.3 0.5 0.6 0.1 0.6', names);
    expect(tilted && tilted.ok && tilted.value[0]!.shape.type).toBe('polygon');
    const triangle = parseLabelLine('0 0.1 0.2 0.5 0.2 0.5 0.6', names);
    expect(triangle && triangle.ok && triangle.value[0]!.shape.type).toBe('polygon');
  });
});

describe('label files parsed elsewhere (the real run: on an offload thread)', () => {
  const DATASETS: Record<string, Record<string, string | Buffer>> = {
    'boxes, polygons, confidences and bad lines': {
      'data.yaml': 'names: [car, road, car]\n',
      'images/train/a.png': PNG,
      'labels/train/a.txt': '0 0.5 0.5 0.2 0.4\n1 0.1 0.1 0.9 0.1 0.5 0.9\n\n# c\n0 0.5 0.5 0.2\n3 0.5 0.5 0.1 0.1\n2 0.3 0.3 0.1 0.1\n0 0.5 0.5 0.1 0.1 0.87\n1 0 0 1 0 1 1 0 1\n',
      'images/train/b.png': PNG,
      'labels/train/b.txt': '2 0.5 0.5 1 1\r\n1 0.2 0.2 0.4 0.2 0.3 0.5\n',
    },
    pose: {
      'data.yaml': 'names: [person, hand]\nkpt_shape: [3, 3]\nkpt_names:\n  0: [nose, left_eye, right_eye]\n',
      'images/p.jpg': PNG,
      // The last line has no labelled point: a plain box.
      'labels/p.txt': '0 0.5 0.5 0.2 0.4 0.5 0.4 2 0.45 0.38 1 0 0 0\n1 0.1 0.1 0.1 0.1 0.1 0.1 2 0 0 0 0 0 0\n0 0.5 0.5 0.2 0.4 0.5 0.4\n1 0.3 0.3 0.1 0.1 0 0 0 0 0 0 0 0 0\n',
    },
  };

  /** Parses as a thread would: packed, cloned across (as postMessage does), unpacked; counts the calls. */
  function acrossThreads(): LabelParsing & { calls: number } {
    const hook = {
      calls: 0,
      async parse(text: string, names: readonly string[], pose: Parameters<typeof parseLabelFile>[2]) {
        hook.calls += 1;
        return unpackLabels(structuredClone(packLabels(parseLabelFile(text, names, pose), names)), names);
      },
      async classTypes(text: string, names: readonly string[], pose: Parameters<typeof parseLabelFile>[2]) {
        hook.calls += 1;
        return structuredClone(labelClassTypes(text, names, pose));
      },
    };
    return hook;
  }

  for (const [what, entries] of Object.entries(DATASETS)) {
    it(`gives the same classes, images, shapes and report as in-line: ${what}`, async () => {
      const inline = await readAll(yoloReader, memoryArchive(entries));
      const hook = acrossThreads();
      const report = recordingReporter();
      const dataset = await yoloReader.read(memoryArchive(entries), { report, tmpDir: '/nonexistent', yoloLabels: hook });
      const images = [];
      for await (const img of dataset.images) images.push(img);
      expect(hook.calls).toBeGreaterThan(0);
      expect(dataset.classes).toEqual(inline.dataset.classes);
      expect(images).toEqual(inline.images);
      expect(report.skipped).toEqual(inline.report.skipped);
      expect(inline.images.flatMap((i) => i.annotations).length).toBeGreaterThan(2);
    });
  }

  it('packs plain boxes into typed arrays and keeps every other shape as it is, in order', () => {
    const names = ['car', 'road'];
    const file = parseLabelFile('0 0.5 0.5 0.2 0.4\n1 0.1 0.1 0.9 0.1 0.5 0.9\n0 0.5 0.5 0.1 0.1 0.87\n1 0.2 0.2 0.2 0.2\nx\n', names);
    const packed = packLabels(file, names);
    expect([...packed.classes]).toEqual([0, -1, -1, 1]);
    expect(packed.boxes.length).toBe(8);
    expect(packed.others.map((a) => a.shape.type)).toEqual(['polygon', 'box']);
    expect(packed.skipped).toEqual([[5, 'not a number: "x"']]);
    expect(unpackLabels(packed, names)).toEqual(file);
  });
});
