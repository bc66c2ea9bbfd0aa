import { describe, expect, it } from 'vitest';
import { ImportInputError } from '../reader';
import { vellumReader } from './read';
import { memoryArchive, readAll } from '../../../../tests/support/test-archive';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

const manifest = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    format: 'vellum',
    version: 1,
    exported_at: '2026-11-26T09:00:00.000Z',
    name: 'Roads',
    project: {
      name: 'Roads',
      description: '',
      classes: [
        { name: 'car', type: 'box', color: '#FFADAD' },
        { name: 'lane', type: 'polyline', color: '#A0C4FF' },
        { name: 'hub', type: 'keypoint', color: '#bdb2ff' },
      ],
      annotation_types: ['box', 'polyline', 'keypoint'],
    },
    folders: ['/site a', '/site a/day 1', '/empty'],
    scope: 'all_complete',
    class_filter: null,
    include_images: true,
    image_count: 2,
    annotation_count: 3,
    ...extra,
  });

const stored = [
  { id: 'a1', name: 'car', bounding_box: { x: 1, y: 2, w: 3, h: 4 }, attributes: [{ name: 'colour', value: 'red' }], sam2_area: 12 },
  { id: 'a2', name: 'lane', bounding_box: { x: 0, y: 0, w: 10, h: 1 }, polyline: { path: [[0, 0], [10, 1]] } },
];

const doc = (filename: string, folder: string, annotations: unknown[], status = 'complete') =>
  JSON.stringify({
    image: { id: '6f1c2a34-0000-4000-8000-000000000001', filename, folder, width: 640, height: 480, status, is_edited: true, is_archived: false, mime_type: 'image/png', file_size: 4 },
    annotations,
    version: 3,
  });

describe('Vellum reader', () => {
  it('reads classes with colours, folders, statuses, archive flags and the stored annotations exactly', async () => {
    const archive = memoryArchive({
      'images/site a/day 1/x.png': PNG,
      'annotations/site a/day 1/x.png.json': doc('x.png', '/site a/day 1', stored),
      'annotations/y.png.json': doc('y.png', '/', [{ id: 'k', name: 'hub', bounding_box: { x: 5, y: 5, w: 0, h: 0 }, keypoint: { x: 5, y: 5 } }], 'annotating'),
      'vellum.json': manifest(),
      'README.txt': 'readme',
    });
    expect(await vellumReader.detect(archive)).toBe(true);
    const { dataset, images, report } = await readAll(vellumReader, archive);
    expect(dataset.classes).toEqual([
      { name: 'car', type: 'box', color: '#FFADAD' },
      { name: 'lane', type: 'polyline', color: '#A0C4FF' },
      { name: 'hub', type: 'keypoint', color: '#bdb2ff' },
    ]);
    expect(dataset.folders).toEqual(['site a', 'site a/day 1', 'empty']);
    expect(dataset.total).toBe(2);
    expect(images).toEqual([
      { fileName: 'x.png', entry: 'images/site a/day 1/x.png', folder: 'site a/day 1', width: 640, height: 480, status: 'complete', archived: false, annotations: [], stored },
      { fileName: 'y.png', folder: '', width: 640, height: 480, status: 'annotating', archived: false, annotations: [], stored: [{ id: 'k', name: 'hub', bounding_box: { x: 5, y: 5, w: 0, h: 0 }, keypoint: { x: 5, y: 5 } }] },
    ]);
    expect(report.skipped).toEqual([]);
  });

  it("keeps a keypoint class's point names in order, and leaves out invalid ones with a warning", async () => {
    const project = (classes: unknown[]) => ({ project: { name: 'Roads', description: '', classes, annotation_types: ['keypoint'] } });
    const named = memoryArchive({ 'vellum.json': manifest(project([{ name: 'person', type: 'keypoint', color: '#bdb2ff', keypoints: ['nose', 'left_eye', 'right_eye'] }])) });
    expect((await readAll(vellumReader, named)).dataset.classes).toEqual([{ name: 'person', type: 'keypoint', color: '#bdb2ff', keypoints: ['nose', 'left_eye', 'right_eye'] }]);
    const bad = memoryArchive({ 'vellum.json': manifest(project([{ name: 'person', type: 'keypoint', keypoints: [7] }])) });
    const { dataset, report } = await readAll(vellumReader, bad);
    expect(dataset.classes).toEqual([{ name: 'person', type: 'keypoint' }]);
    expect(report.warnings.join('\n')).toContain('the keypoint names of class "person" were left out');
  });

  it('reads an export zipped inside a top folder, and yields image files without a document', async () => {
    const archive = memoryArchive({ 'Roads/vellum.json': manifest({ folders: [] }), 'Roads/images/z.png': PNG });
    const { images } = await readAll(vellumReader, archive);
    expect(images).toEqual([{ fileName: 'z.png', entry: 'Roads/images/z.png', folder: '', annotations: [] }]);
  });

  it('refuses a newer layout and malformed JSON (with its line), and skips documents that are not image documents', async () => {
    expect(await vellumReader.detect(memoryArchive({ 'vellum.json': '{"format": "other"}' }))).toBe(false);
    const newer = await readAll(vellumReader, memoryArchive({ 'vellum.json': manifest({ version: 99 }) })).catch((e: unknown) => e);
    expect(newer).toBeInstanceOf(ImportInputError);
    expect((newer as Error).message).toContain('layout version 99');
    const broken = memoryArchive({ 'vellum.json': manifest(), 'annotations/a.png.json': '{\n"image": {"filename": "a.png"},\n"annotations": [}\n' });
    const err = await readAll(vellumReader, broken).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportInputError);
    expect((err as Error).message).toMatch(/^annotations\/a\.png\.json: malformed JSON at line 3, column \d+/);
    const odd = memoryArchive({ 'vellum.json': manifest(), 'annotations/b.png.json': '{"image": {"filename": "b.png", "status": "weird"}, "annotations": {}}', 'annotations/c.json': '[]' });
    const { images, report } = await readAll(vellumReader, odd);
    expect(images).toEqual([]);
    expect(report.skipped).toEqual([
      { file: 'annotations/b.png.json', reason: 'not a Vellum image document (annotations is not a list)' },
      { file: 'annotations/c.json', reason: 'not a Vellum image document (no image.filename)' },
    ]);
  });
});
