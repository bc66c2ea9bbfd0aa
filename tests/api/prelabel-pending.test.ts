// The prediction contract (issue 34): a stored annotation may carry `source: {model_id, score,
// pending}` (exactly these keys; a bad one is 400 invalid_annotation naming what is wrong), image
// rows carry `pending_predictions`, kept by every save path (images.pending_predictions, kept by
// triggers on the annotation rows, 0019_prelabel.sql), and the images list filters on
// has_pending_predictions=true|false. Exports leave pending predictions out unless asked
// (include_predictions), and the zip's README.txt says which.
import JSZip from 'jszip';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, projectWithImage, sharedServer, type TestServer } from './harness';
import { png, uploadImage } from '../fixtures/datasets';

let server: TestServer;
let token: string;
let projectId: string;
let imageA: Img;
let imageB: Img;

const box = (id: string, source?: unknown) => ({ id, name: 'car', bounding_box: { x: 1, y: 1, w: 4, h: 4 }, ...(source !== undefined && { source }) });
const pending = (score = 0.8) => ({ model_id: 'builtin-coco-centernet', score, pending: true });

type Img = { id: string; filename: string };
/** The head version of each image, as the saves answer it. */
const versions = new Map<string, number>();

async function send(path: string, image: Img, body: Record<string, unknown>) {
  const res = await api(server.url, 'POST', path, { token, body: { image_id: image.id, project_id: projectId, image_filename: image.filename, ...body } });
  if (res.status === 200) versions.set(image.id, res.body.version as number);
  return res;
}
const saveData = (image: Img, annotations: unknown[]) => send('/api/v1/annotations/save-data', image, { annotations });
const saveChanges = (image: Img, upserts: unknown[], removed_ids: string[] = []) =>
  send('/api/v1/annotations/save-changes', image, { base_version: versions.get(image.id) ?? 0, upserts, removed_ids });

async function rows(query = ''): Promise<Map<string, number>> {
  const res = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?limit=50${query}`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return new Map((res.body.images as { filename: string; pending_predictions: number }[]).map((i) => [i.filename, i.pending_predictions]));
}

beforeAll(async () => {
  server = await sharedServer();
  const made = await projectWithImage(server, { classes: [{ name: 'car', type: 'box', color: '#ff0000' }], filename: 'a.png' });
  token = made.owner.token;
  projectId = made.project.id;
  imageA = { id: made.image.id, filename: 'a.png' };
  imageB = { id: (await uploadImage(server, made.owner, projectId, 'b.png', await png(20, 20))).id, filename: 'b.png' };
}, 120_000);


describe('the prediction source', () => {
  it.each([
    ['not an object', 'x', 'source: must be an object'],
    ['a score above 1', { model_id: 'm', score: 1.5, pending: true }, 'source.score: must be a number from 0 to 1'],
    ['a negative score', { model_id: 'm', score: -0.1, pending: true }, 'source.score: must be a number from 0 to 1'],
    ['no pending', { model_id: 'm', score: 0.5 }, 'source.pending: must be true or false'],
    ['an empty model id', { model_id: '', score: 0.5, pending: true }, 'source.model_id: must not be empty'],
    ['a model id over 200 characters', { model_id: 'm'.repeat(201), score: 0.5, pending: false }, 'source.model_id: must be at most 200 characters'],
    ['an unknown key', { model_id: 'm', score: 0.5, pending: true, note: 'x' }, 'source: must hold only model_id, score and pending (found note)'],
  ])('refuses %s with 400 invalid_annotation', async (_what, source, message) => {
    const res = await saveData(imageA, [box('p1', source)]);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_annotation');
    expect(res.body.error).toContain(message);
  });

  it('stores a valid source and answers it back on load', async () => {
    expect((await saveData(imageA, [box('p1', pending(0.25))])).status).toBe(200);
    const loaded = await api(server.url, 'GET', `/api/v1/annotations/load-data/${imageA.id}?project_id=${projectId}`, { token });
    expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
    expect(loaded.body.annotations).toEqual([box('p1', pending(0.25))]);
  });
});

describe('pending_predictions on the image rows', () => {
  it('follows save-data, save-changes (accept, add, reject) and the list filter', async () => {
    expect((await saveData(imageA, [box('p1', pending()), box('p2', pending()), box('m1')])).status).toBe(200);
    expect((await saveData(imageB, [box('m2')])).status).toBe(200);
    expect(Object.fromEntries(await rows())).toEqual({ 'a.png': 2, 'b.png': 0 });
    expect([...(await rows('&has_pending_predictions=true')).keys()]).toEqual(['a.png']);
    expect([...(await rows('&has_pending_predictions=false')).keys()]).toEqual(['b.png']);

    // Accept p1 (pending false, model id and score kept), add a pending one to b, reject p2 (delete).
    expect((await saveChanges(imageA, [box('p1', { ...pending(), pending: false })])).status).toBe(200);
    expect((await saveChanges(imageB, [box('p3', pending())])).status).toBe(200);
    expect(Object.fromEntries(await rows())).toEqual({ 'a.png': 1, 'b.png': 1 });
    expect((await saveChanges(imageA, [], ['p2'])).status).toBe(200);
    expect(Object.fromEntries(await rows())).toEqual({ 'a.png': 0, 'b.png': 1 });
    expect([...(await rows('&has_pending_predictions=true')).keys()]).toEqual(['b.png']);
    // A whole-list save that drops the prediction clears the count.
    expect((await saveData(imageB, [box('m2')])).status).toBe(200);
    expect(Object.fromEntries(await rows())).toEqual({ 'a.png': 0, 'b.png': 0 });
  });

  it('refuses a bad filter value with 400', async () => {
    const res = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?has_pending_predictions=maybe`, { token });
    expect(res.status).toBe(400);
  });
});

describe('exports and pending predictions', () => {
  async function exported(extra: Record<string, unknown>): Promise<{ ids: string[]; readme: string }> {
    const res = await fetch(`${server.url}/api/v1/annotations/export`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: projectId, image_ids: [imageA.id], format: 'vellum', ...extra }),
    });
    expect(res.status).toBe(200);
    const zip = await JSZip.loadAsync(Buffer.from(await res.arrayBuffer()));
    const file = Object.keys(zip.files).find((p) => p.startsWith('annotations/') && p.endsWith('.json'))!;
    const doc = JSON.parse(await zip.file(file)!.async('string')) as { annotations: { id: string }[] };
    return { ids: doc.annotations.map((a) => a.id).sort(), readme: await zip.file('README.txt')!.async('string') };
  }

  it('leaves pending predictions out by default and includes them with include_predictions', async () => {
    expect((await saveData(imageA, [box('p1', pending()), box('p2', { ...pending(), pending: false }), box('m1')])).status).toBe(200);
    const plain = await exported({});
    expect(plain.ids).toEqual(['m1', 'p2']);
    expect(plain.readme).toContain('Model predictions not yet reviewed (pending): left out (1)');
    const all = await exported({ include_predictions: true });
    expect(all.ids).toEqual(['m1', 'p1', 'p2']);
    expect(all.readme).toContain('Model predictions not yet reviewed (pending): included');
  });
});
