// Issue 30, the annotation API's findings (each test failed before its fix):
// - every client-chosen key of a save is bounded (ids, class names, attribute names and keys,
//   unknown extra keys: their count, size and depth) and a key over its limit answers 400 naming it,
//   not 500 (a 1 MB id cannot be indexed);
// - version numbers in queries and bodies stay within PostgreSQL's integer (`before=2147483648`
//   answered 500), and query numbers are decimal digits only (`since=0x1`, `since=+1` were read as 1);
// - a relabel cannot slip in attribute values the new class refuses (finding 4): the "unchanged
//   value" rule holds only while the shape keeps its class.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, projectWithImage, sharedServer, type TestServer } from './harness';
import type { Member } from '../fixtures/datasets';

let server: TestServer;
let owner: Member;
let project: { id: string };
let image: { id: string; filename: string };

const CAR = { name: 'car', type: 'box', color: '#F07575', attributes: [{ name: 'colour', kind: 'select', options: ['red', 'blue'], default: 'red' }] };
// No definitions: its annotations keep free-form attributes.
const TREE = { name: 'tree', type: 'box', color: '#ACF6E7' };
const bb = { x: 1, y: 1, w: 5, h: 5 };

beforeAll(async () => {
  server = await sharedServer();
  ({ owner, project, image } = await projectWithImage(server, { classes: [CAR, TREE], filename: 'keys.png', width: 32, height: 32 }));
}, 120_000);

const head = async () => ((await api(server.url, 'GET', `/api/v1/annotations/load-data/${image.id}`, { token: owner.token })).body as { version: number }).version;
/** The body as JSON text; a list item `{json}` is put in as that text. */
const bodyText = (body: Record<string, unknown>, list: 'annotations' | 'upserts') => {
  const items = body[list] as unknown[];
  const text = items.map((a) => (a && typeof a === 'object' && 'json' in a ? (a as { json: string }).json : JSON.stringify(a))).join(',');
  return JSON.stringify({ ...body, [list]: '@LIST@' }).replace('"@LIST@"', () => `[${text}]`);
};
const saveData = (annotations: unknown[]) =>
  api(server.url, 'POST', '/api/v1/annotations/save-data', { token: owner.token, body: bodyText({ image_id: image.id, project_id: project.id, image_filename: image.filename, annotations }, 'annotations') });
const saveChanges = async (upserts: unknown[], removed_ids: unknown[] = [], base?: number) =>
  api(server.url, 'POST', '/api/v1/annotations/save-changes', {
    token: owner.token,
    body: bodyText({ image_id: image.id, project_id: project.id, image_filename: image.filename, base_version: base ?? (await head()), upserts, removed_ids }, 'upserts'),
  });
const get = (path: string) => api(server.url, 'GET', path, { token: owner.token });

describe('client-chosen keys of a save are bounded (400 naming the key, never 500)', () => {
  const MB = 'x'.repeat(1024 * 1024);
  // As JSON text: JSON.stringify itself overflows its stack on such a value.
  const deep = { json: `{"id":"a","name":"tree","bounding_box":${JSON.stringify(bb)},"attributes":[${'['.repeat(20_000)}1${']'.repeat(20_000)}]}` };

  it.each([
    ['a 1 MB annotation id', { id: MB, name: 'car', bounding_box: bb }, /id: .*at most 200 characters/],
    ['a 201-character annotation id', { id: 'i'.repeat(201), name: 'car', bounding_box: bb }, /id: .*at most 200 characters/],
    ['a 1 MB class name', { id: 'a', name: MB, bounding_box: bb }, /name: .*at most 100 characters/],
    ['a 1 MB attribute name', { id: 'a', name: 'tree', bounding_box: bb, attributes: [{ name: MB, value: 1 }] }, /attributes\[0\]\.name: .*at most 200 characters/],
    ['a 1 MB key inside an attribute', { id: 'a', name: 'tree', bounding_box: bb, attributes: [{ [MB.slice(0, 5000)]: 1 }] }, /attributes\[0\]: .*keys.*at most 200 characters/],
    ['a 1 MB unknown extra key', { id: 'a', name: 'tree', bounding_box: bb, [MB.slice(0, 300_000)]: 1 }, /keys.*at most 200 characters/],
    ['100 unknown extra keys', { id: 'a', name: 'tree', bounding_box: bb, ...Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i])) }, /at most 50 keys/],
    ['unknown extra values of 1 MB', { id: 'a', name: 'tree', bounding_box: bb, notes: MB }, /at most 64 KB/],
    ['1,000 attribute entries', { id: 'a', name: 'tree', bounding_box: bb, attributes: Array.from({ length: 1000 }, (_, i) => ({ name: `n${i}`, value: i })) }, /attributes: .*at most 200 entries/],
    ['attributes nested 20,000 deep', deep, /attributes\[0\].*nested.*at most 20/],
  ])('save-data and save-changes refuse %s with 400', async (_what, annotation, message) => {
    for (const res of [await saveData([annotation]), await saveChanges([annotation])]) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'invalid_annotation', index: 0 });
      expect(res.body.error).toMatch(message);
      // The answer names the key, not a megabyte of it.
      expect(JSON.stringify(res.body).length).toBeLessThan(2000);
    }
  });

  it('a removed id over 200 characters answers 400 validation_failed naming removed_ids', async () => {
    const res = await saveChanges([], ['r'.repeat(1024 * 1024)]);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.error).toMatch(/removed_ids.*at most 200 characters/);
    expect(JSON.stringify(res.body).length).toBeLessThan(2000);
  });

  it('a batch entry with a 1 MB id fails alone with invalid_annotation', async () => {
    const res = await api(server.url, 'POST', '/api/v1/annotations/batch-save-data', {
      token: owner.token,
      body: { saves: [{ image_id: image.id, project_id: project.id, image_filename: image.filename, annotations: [{ id: MB, name: 'car', bounding_box: bb }] }] },
    });
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toMatchObject({ status: 'error', code: 'invalid_annotation' });
  });

  it('keys at their limits are stored and given back as sent', async () => {
    const annotation = {
      id: 'i'.repeat(200),
      name: 'tree',
      bounding_box: bb,
      attributes: [{ name: 'n'.repeat(200), value: { ['k'.repeat(200)]: [[[1]]] } }],
      ...Object.fromEntries(Array.from({ length: 47 }, (_, i) => [`extra_${i}`, i])),
    };
    const res = await saveData([annotation]);
    expect(res.status).toBe(200);
    expect((await get(`/api/v1/annotations/load-data/${image.id}`)).body.annotations).toEqual([annotation]);
  });
});

describe('version numbers are decimal integers within the database integer', () => {
  const INT4_OVER = '2147483648';

  it('history ?before=2147483648 answers 400 (it answered 500: int4 overflow), 2147483647 answers 200', async () => {
    const over = await get(`/api/v1/annotations/history/${image.id}?before=${INT4_OVER}`);
    expect(over.status).toBe(400);
    expect(over.body.code).toBe('validation_failed');
    expect(over.body.error).toMatch(/before/);
    expect((await get(`/api/v1/annotations/history/${image.id}?before=2147483647`)).status).toBe(200);
  });

  it.each([
    ['changes', 'since', (v: string) => `/api/v1/annotations/changes/${image.id}?since=${v}`],
    ['history', 'before', (v: string) => `/api/v1/annotations/history/${image.id}?before=${v}`],
    ['history', 'limit', (v: string) => `/api/v1/annotations/history/${image.id}?limit=${v}`],
    ['version', 'version', (v: string) => `/api/v1/annotations/version/${image.id}?version=${v}`],
  ])('%s ?%s= accepts only decimal digits: 0x1, +1, 1e0, 1.0, " 1", -1, "" and 99999999999 answer 400', async (_route, field, url) => {
    for (const bad of ['0x1', '%2B1', '1e0', '1.0', '%201', '-1', '', '99999999999', INT4_OVER]) {
      const res = await get(url(bad));
      expect(res.status, `${field}=${bad}`).toBe(400);
      expect(res.body.code, `${field}=${bad}`).toBe('validation_failed');
      expect(res.body.error, `${field}=${bad}`).toContain(field);
    }
    expect((await get(url('1'))).status).not.toBe(400);
  });

  it('since=0 answers the changes', async () => {
    const res = await get(`/api/v1/annotations/changes/${image.id}?since=0`);
    expect(res.status).toBe(200);
    expect(res.body.since).toBe(0);
  });

  it('base_version and restore versions over the database integer answer 400, not 500', async () => {
    const changes = await saveChanges([{ id: 'b', name: 'car', bounding_box: bb }], [], 2 ** 31);
    expect(changes.status).toBe(400);
    expect(changes.body.error).toMatch(/base_version/);
    const data = await api(server.url, 'POST', '/api/v1/annotations/save-data', {
      token: owner.token,
      body: { image_id: image.id, project_id: project.id, image_filename: image.filename, annotations: [], base_version: 2 ** 31 },
    });
    expect(data.status).toBe(400);
    for (const body of [{ version: 2 ** 31 }, { version: 1, base_version: 2 ** 40 }]) {
      const res = await api(server.url, 'POST', '/api/v1/annotations/restore', { token: owner.token, body: { image_id: image.id, project_id: project.id, ...body } });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    }
  });
});

describe('a relabel is checked against the new class (finding 4)', () => {
  it('a tree with free-form attributes relabelled to car keeps no value car refuses', async () => {
    const tree = { id: 'relabel', name: 'tree', bounding_box: bb, attributes: [{ name: 'colour', value: { toString: 1 } }] };
    expect((await saveData([tree])).status).toBe(200);
    // Same attributes, new class: the entries were never checked against car.
    for (const res of [await saveChanges([{ ...tree, name: 'car' }]), await saveData([{ ...tree, name: 'car' }])]) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'invalid_annotation', attribute: 'colour' });
      expect(res.body.error).toContain('class "car"');
    }
    expect((await get(`/api/v1/annotations/load-data/${image.id}`)).body.annotations).toEqual([tree]);
    // With a value car allows, the relabel saves.
    expect((await saveChanges([{ ...tree, name: 'car', attributes: [{ name: 'colour', value: 'blue' }] }])).status).toBe(200);
  });

  it('an unchanged value saved before its option was removed still saves while the class stays', async () => {
    const car = { id: 'stale', name: 'car', bounding_box: bb, attributes: [{ name: 'colour', value: 'green' }] };
    expect((await patchCar(['red', 'green'])).status).toBe(200);
    expect((await saveData([car])).status).toBe(200);
    expect((await patchCar(['red', 'blue'])).status).toBe(200);
    expect((await saveChanges([{ ...car, bounding_box: { ...bb, x: 2 } }])).status).toBe(200);
  });
});

const patchCar = (options: string[]) =>
  api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { classes: [{ ...CAR, attributes: [{ ...CAR.attributes[0], options }] }, TREE] } });
