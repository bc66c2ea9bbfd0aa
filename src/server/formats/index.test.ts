import { describe, expect, it } from 'vitest';
import { detectFormat, READERS } from './index';
import { memoryArchive } from '../../../tests/support/test-archive';

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0]);
const COCO = JSON.stringify({ images: [{ id: 1, file_name: 'a.jpg' }], annotations: [], categories: [{ id: 1, name: 'car' }] });

describe('format detection', () => {
  it('has one reader per format', () => {
    expect(READERS.map((r) => r.format).sort()).toEqual(['coco', 'cvat', 'vellum', 'voc', 'yolo']);
  });

  it.each([
    ['a Vellum export (which also holds JSON)', { 'vellum.json': '{"format": "vellum", "version": 1}', 'annotations/a.jpg.json': '{"image": {}, "annotations": []}', 'images/a.jpg': JPEG }, 'vellum'],
    ["Vellum's COCO export", { 'annotations.json': COCO, 'images/a.jpg': JPEG, 'README.txt': 'x' }, 'coco'],
    ['COCO instances beside images/<split>/', { 'annotations/instances_train2017.json': COCO, 'images/train2017/a.jpg': JPEG }, 'coco'],
    ["Roboflow's COCO layout", { 'train/_annotations.coco.json': COCO, 'train/a.jpg': JPEG, 'README.roboflow.txt': 'x' }, 'coco'],
    ['a lone COCO JSON', { 'labels.json': COCO }, 'coco'],
    ['a CVAT for images zip', { 'annotations.xml': '<?xml version="1.0"?>\n<annotations><version>1.1</version></annotations>', 'images/a.jpg': JPEG }, 'cvat'],
    ['a lone CVAT XML', { 'task_7.xml': '<annotations>\n<version>1.1</version>\n</annotations>' }, 'cvat'],
    ['Pascal VOC', { 'VOC2012/Annotations/a.xml': '<annotation/>', 'VOC2012/JPEGImages/a.jpg': JPEG }, 'voc'],
    ['a lone VOC XML', { 'a.xml': '<?xml version="1.0"?>\n<annotation>\n<filename>a.jpg</filename></annotation>' }, 'voc'],
    ['Ultralytics YOLO', { 'data.yaml': 'names: [a]', 'images/train/a.jpg': JPEG, 'labels/train/a.txt': '0 0.5 0.5 1 1' }, 'yolo'],
    ['Darknet YOLO', { 'obj.names': 'a\n', 'obj.data': 'classes = 1', 'obj_train_data/a.jpg': JPEG, 'obj_train_data/a.txt': '0 0.5 0.5 1 1' }, 'yolo'],
    ['images alone', { 'a.jpg': JPEG }, null],
    ['other JSON and XML', { 'package.json': '{"name": "x"}', 'drawing.xml': '<svg/>' }, null],
  ])('recognises %s', async (_what, entries, format) => {
    expect(await detectFormat(memoryArchive(entries))).toBe(format);
  });
});
