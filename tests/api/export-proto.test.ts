// Finding 12 (issue 30), the export half: an attribute named `__proto__` (the Vellum importer
// stores one; the HTTP API refuses such keys) leaves through the COCO export as an own key of the
// annotation's `attributes`, and through the Vellum export as stored.
import { beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, png, type Member } from '../fixtures/datasets';
import { importFile } from './support/imports';

let server: TestServer;
let owner: Member;
let projectId: string;

async function exported(format: string): Promise<JSZip> {
  const res = await fetch(`${server.url}/api/v1/annotations/export`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ project_id: projectId, scope: 'all', format }),
  });
  expect(res.status).toBe(200);
  return JSZip.loadAsync(Buffer.from(await res.arrayBuffer()));
}

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
  projectId = (await createProject(server, owner)).id;
  const manifest = { format: 'vellum', version: 1, project: { classes: [{ name: 'car', type: 'box', color: '#112233' }] }, folders: [] };
  const annotation = { id: 'named', name: 'car', bounding_box: { x: 1, y: 1, w: 2, h: 2 }, attributes: [{ name: '__proto__', value: 'x' }, { name: 'colour', value: 'red' }] };
  const zip = new JSZip();
  zip.file('vellum.json', JSON.stringify(manifest));
  zip.file('annotations/a.png.json', JSON.stringify({ image: { filename: 'a.png', width: 10, height: 10 }, annotations: [annotation] }));
  zip.file('images/a.png', await png(10, 10));
  const job = await importFile(server, owner.token, projectId, 'v.zip', await zip.generateAsync({ type: 'nodebuffer' }), {}, 90);
  expect(job.status, job.error).toBe('done');
  expect(job.report.annotations_created).toBe(1);
}, 120_000);

describe('__proto__ as an attribute name in exports', () => {
  it('COCO writes it as an own key of the attributes object', async () => {
    const text = await (await exported('coco')).file('annotations.json')!.async('string');
    expect(text).toContain('"attributes":{"__proto__":"x","colour":"red"}');
    const [record] = JSON.parse(text).annotations;
    expect(Object.keys(record.attributes)).toEqual(['__proto__', 'colour']);
  });

  it('Vellum keeps the entries as stored', async () => {
    const doc = JSON.parse(await (await exported('vellum')).file('annotations/a.png.json')!.async('string'));
    expect(doc.annotations[0].attributes).toEqual([{ name: '__proto__', value: 'x' }, { name: 'colour', value: 'red' }]);
  });
});
