// Importing a Pascal VOC archive with segmentation PNGs through the API (issue 32 §5): the
// SegmentationObject / SegmentationClass PNGs are never images of the project; each object becomes
// a mask of its class beside its box, pixel for pixel, and a PNG without its XML is in the report.
import { beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { decodeRle, numericCounts } from '../../src/contract/rle';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, jpeg, type Member } from '../fixtures/datasets';
import { columnMajor, OBJECTS, SEG_H, SEG_W, segmentedVoc } from '../fixtures/voc-segmentation';
import { importFile } from './support/imports';

let server: TestServer;
let owner: Member;

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
}, 60_000);

describe('VOC segmentation import', () => {
  it('imports masks per object with their classes, and no segmentation PNG as an image', { timeout: 90_000 }, async () => {
    const zip = new JSZip();
    for (const [name, bytes] of Object.entries(segmentedVoc(await jpeg(SEG_W, SEG_H)))) zip.file(name, bytes);
    const projectId = (await createProject(server, owner, 'VOC segmentation')).id;
    const job = await importFile(server, owner.token, projectId, 'voc.zip', await zip.generateAsync({ type: 'nodebuffer' }), { format: 'voc' });
    expect(job.status, job.error).toBe('done');
    expect(job.report.skipped).toEqual([{ file: 'VOC2012/SegmentationObject/2007_000099.png', reason: expect.stringContaining('not imported (a mask is not an image)') }]);

    const list = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?page_size=100`, { token: owner.token });
    expect((list.body.images as { filename: string }[]).map((i) => i.filename)).toEqual(['2007_000032.jpg']);
    const imageId = (list.body.images as { id: string }[])[0]!.id;
    const data = await api(server.url, 'GET', `/api/v1/annotations/load-data/${imageId}`, { token: owner.token });
    const annotations = data.body.annotations as { name: string; segmentation?: { size: [number, number]; counts: number[] | string }; instance?: string }[];
    expect(annotations.filter((a) => !a.segmentation).map((a) => [a.name, a.instance])).toEqual([
      ['aeroplane', '1'],
      ['person', '2'],
    ]);
    const masks = annotations.filter((a) => a.segmentation);
    expect(masks.map((a) => [a.name, a.instance])).toEqual([
      ['aeroplane', '1'],
      ['person', '2'],
      ['dog', undefined],
    ]);
    masks.forEach((m, i) => expect(Array.from(decodeRle({ size: m.segmentation!.size, counts: numericCounts(m.segmentation!) })), m.name).toEqual(columnMajor(OBJECTS, i + 1)));

    const project = await api(server.url, 'GET', `/api/v1/projects/${projectId}`, { token: owner.token });
    const classes = (project.body.project ?? project.body).classes as { name: string; type: string }[];
    expect(classes.map((c) => [c.name, c.type])).toEqual([
      ['aeroplane', 'box'],
      ['person', 'box'],
      ['dog', 'polygon'],
    ]);
  });
});
