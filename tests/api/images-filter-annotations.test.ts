// The images list's annotation filters (issue 32 §4): class (repeatable, any of them),
// has_annotations, min_annotations / max_annotations, combined with folders, the archive, search,
// sort and paging; bad values answer 400; the export's 'current_filters' scope selects the same
// images; and an image's classes follow every save path (save-data, save-changes with a rename, a
// removal, a rebased save, a restore), as the list reads them from the image row
// (images.class_names, kept by triggers on the annotation rows).
import { beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';

let server: TestServer;
let owner: Member;
let projectId: string;
const ids: Record<string, string> = {};

type Query = Record<string, string | number | string[]>;

/** name -> [folder, class of each shape, archived] */
const IMAGES: Record<string, [string, string[], boolean?]> = {
  'a.png': ['/', ['car', 'car', 'person']],
  'b.png': ['/', ['dog']],
  'c.png': ['/pets', ['car']],
  'd.png': ['/pets', []],
  'e.png': ['/', []],
  'f.png': ['/', ['car', 'car'], true],
  'g.png': ['/pets', ['person', 'person', 'person', 'person']],
  'h car.png': ['/', ['bus']],
};

function queryString(q: Query): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) for (const one of Array.isArray(v) ? v : [v]) params.append(k, String(one));
  return params.toString();
}

const list = (q: Query) => api(server.url, 'GET', `/api/v1/projects/${projectId}/images?${queryString(q)}`, { token: owner.token });

/** Every file name the list answers (walking the pages, 2 a page), and the total it reported. */
async function listed(q: Query): Promise<{ names: string[]; total: number }> {
  const names: string[] = [];
  for (let page = 1; ; page++) {
    const res = await list({ ...q, page, limit: 2 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    names.push(...(res.body.images as { filename: string }[]).map((i) => i.filename));
    if (!res.body.pagination.hasNext) return { names, total: res.body.pagination.totalItems as number };
  }
}

async function sortedNames(q: Query): Promise<string[]> {
  const { names, total } = await listed(q);
  expect(total, 'the total counts the same images').toBe(names.length);
  return names.sort();
}

async function save(name: string, classes: string[]) {
  const annotations = classes.map((c, i) => ({ id: `${name}-${i}`, name: c, bounding_box: { x: 1 + i, y: 1, w: 3, h: 3 } }));
  const res = await api(server.url, 'POST', '/api/v1/annotations/save-data', { token: owner.token, body: { image_id: ids[name], project_id: projectId, image_filename: name, annotations } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.version as number;
}

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
  projectId = (await createProject(server, owner, 'Annotation filters')).id;
  const classes = ['car', 'bus', 'person', 'dog', 'cat', 'tree'].map((name) => ({ name, type: 'box', color: '#ff0000' }));
  expect((await api(server.url, 'PATCH', `/api/v1/projects/${projectId}`, { token: owner.token, body: { classes } })).status).toBe(200);
  expect((await api(server.url, 'POST', '/api/folders/create', { token: owner.token, body: { project_id: projectId, name: 'pets' } })).status).toBe(200);
  for (const [name, [folder, classes]] of Object.entries(IMAGES)) {
    ids[name] = (await uploadImage(server, owner, projectId, name, await png(16, 16), { folder })).id;
    if (classes.length > 0) await save(name, classes);
  }
  const archived = await api(server.url, 'PATCH', '/api/images/batch/update', { token: owner.token, body: { project_id: projectId, image_ids: [ids['f.png']], updates: { is_archived: true } } });
  expect(archived.status, JSON.stringify(archived.body)).toBe(200);
}, 120_000);


describe('each filter', () => {
  it('class: the images having that class, case-sensitively, archived ones left out', async () => {
    expect(await sortedNames({ class: 'car' })).toEqual(['a.png', 'c.png']);
    expect(await sortedNames({ class: 'Car' })).toEqual([]);
    expect(await sortedNames({ class: 'bus' })).toEqual(['h car.png']);
    expect(await sortedNames({ class: 'person' })).toEqual(['a.png', 'g.png']);
  });

  it('class repeated: images having any of them', async () => {
    expect(await sortedNames({ class: ['dog', 'person'] })).toEqual(['a.png', 'b.png', 'g.png']);
    expect(await sortedNames({ class: ['car', 'car'] })).toEqual(['a.png', 'c.png']);
  });

  it('an unknown class gives an empty list, not an error', async () => {
    const res = await list({ class: 'unicorn' });
    expect(res.status).toBe(200);
    expect(res.body.images).toEqual([]);
    expect(res.body.pagination).toMatchObject({ totalItems: 0, totalPages: 0, hasNext: false });
  });

  it('has_annotations true and false', async () => {
    expect(await sortedNames({ has_annotations: 'true' })).toEqual(['a.png', 'b.png', 'c.png', 'g.png', 'h car.png']);
    expect(await sortedNames({ has_annotations: 'false' })).toEqual(['d.png', 'e.png']);
  });

  it('min_annotations and max_annotations, inclusive, alone and together', async () => {
    expect(await sortedNames({ min_annotations: 3 })).toEqual(['a.png', 'g.png']);
    expect(await sortedNames({ max_annotations: 0 })).toEqual(['d.png', 'e.png']);
    expect(await sortedNames({ min_annotations: 1, max_annotations: 1 })).toEqual(['b.png', 'c.png', 'h car.png']);
    expect(await sortedNames({ min_annotations: 2, max_annotations: 3 })).toEqual(['a.png']);
    expect(await sortedNames({ min_annotations: 5 })).toEqual([]);
  });
});

describe('the class panel counts', () => {
  it('/annotations/stats gives each class its shapes and its images, archived images left out', async () => {
    const res = await api(server.url, 'GET', `/api/v1/annotations/stats/${projectId}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.by_class).toEqual({ car: 3, person: 5, dog: 1, bus: 1 });
    expect(res.body.images_by_class).toEqual({ car: 2, person: 2, dog: 1, bus: 1 });
  });
});

describe('combined with the other filters, sort and paging', () => {
  it('with a folder: that folder only', async () => {
    expect(await sortedNames({ class: 'car', folder_path: '/' })).toEqual(['a.png']);
    expect(await sortedNames({ class: 'car', folder_path: '/pets' })).toEqual(['c.png']);
    expect(await sortedNames({ has_annotations: 'false', folder_path: '/pets' })).toEqual(['d.png']);
    expect(await sortedNames({ min_annotations: 1, folder_path: '/pets', status: 'annotating' })).toEqual(['c.png', 'g.png']);
  });

  it('with the archive: archived images only on request', async () => {
    expect(await sortedNames({ class: 'car', is_archived: 'true' })).toEqual(['f.png']);
    expect(await sortedNames({ class: 'car', is_archived: 'all' })).toEqual(['a.png', 'c.png', 'f.png']);
    expect(await sortedNames({ class: 'car', is_archived: 'all', folder_path: '/' })).toEqual(['a.png', 'f.png']);
    expect(await sortedNames({ min_annotations: 2, is_archived: 'all', max_annotations: 2 })).toEqual(['f.png']);
    // The archive with a folder, for the class and the annotation-count filters alike.
    expect(await sortedNames({ class: 'car', is_archived: 'true', folder_path: '/pets' })).toEqual([]);
    expect(await sortedNames({ class: ['car', 'person'], is_archived: 'true', folder_path: '/' })).toEqual(['f.png']);
    expect(await sortedNames({ has_annotations: 'true', is_archived: 'true' })).toEqual(['f.png']);
    expect(await sortedNames({ has_annotations: 'true', is_archived: 'all', folder_path: '/' })).toEqual(['a.png', 'b.png', 'f.png', 'h car.png']);
    expect(await sortedNames({ has_annotations: 'false', is_archived: 'all', folder_path: '/' })).toEqual(['e.png']);
    expect(await sortedNames({ min_annotations: 1, is_archived: 'true', folder_path: '/' })).toEqual(['f.png']);
  });

  it('with a name search', async () => {
    expect(await sortedNames({ class: ['car', 'bus'], search: 'car' })).toEqual(['h car.png']);
  });

  it('sorted by annotation count, page by page', async () => {
    const asc = await listed({ has_annotations: 'true', sort_by: 'annotation_count', sort_order: 'asc' });
    expect(asc.total).toBe(5);
    expect(asc.names.slice(3)).toEqual(['a.png', 'g.png']);
    expect(asc.names.slice(0, 3).sort()).toEqual(['b.png', 'c.png', 'h car.png']);
    const desc = await listed({ class: ['car', 'person', 'dog'], sort_by: 'filename', sort_order: 'desc' });
    expect(desc).toEqual({ names: ['g.png', 'c.png', 'b.png', 'a.png'], total: 4 });
    const second = await list({ class: ['car', 'person', 'dog'], sort_by: 'filename', sort_order: 'asc', limit: 3, page: 2 });
    expect(second.body.images.map((i: { filename: string }) => i.filename)).toEqual(['g.png']);
    expect(second.body.pagination).toMatchObject({ page: 2, totalItems: 4, totalPages: 2, hasNext: false, hasPrev: true });
  });
});

describe('bad values answer 400 with a code', () => {
  it.each([
    ['min_annotations=-1', { min_annotations: -1 }, 'validation_failed'],
    ['max_annotations=1.5', { max_annotations: '1.5' }, 'validation_failed'],
    ['min_annotations=lots', { min_annotations: 'lots' }, 'validation_failed'],
    ['has_annotations=maybe', { has_annotations: 'maybe' }, 'validation_failed'],
    ['a class name of 501 characters', { class: 'x'.repeat(501) }, 'validation_failed'],
    ['min above max', { min_annotations: 3, max_annotations: 2 }, 'invalid_annotation_range'],
  ] as [string, Query, string][])('%s', async (_, q, code) => {
    const res = await list(q);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.code).toBe(code);
  });

  it('min equal to max is fine', async () => {
    expect((await list({ min_annotations: 2, max_annotations: 2 })).status).toBe(200);
  });
});

describe("the export's current filters select the same images", () => {
  const body = (filters: Record<string, unknown>) => ({ project_id: projectId, scope: 'current_filters', format: 'vellum', filters });

  async function exported(filters: Record<string, unknown>): Promise<string[]> {
    const counted = await api(server.url, 'POST', '/api/v1/annotations/export/count', { token: owner.token, body: body(filters) });
    expect(counted.status, JSON.stringify(counted.body)).toBe(200);
    if (counted.body.image_count === 0) return []; // nothing to export: the export itself refuses
    const res = await fetch(`${server.url}/api/v1/annotations/export`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body(filters)),
    });
    expect(res.status).toBe(200);
    const zip = await JSZip.loadAsync(Buffer.from(await res.arrayBuffer()));
    const names = Object.keys(zip.files)
      .filter((p) => p.startsWith('annotations/') && p.endsWith('.json'))
      .map((p) => p.slice(p.lastIndexOf('/') + 1, -'.json'.length))
      .sort();
    expect(counted.body.image_count).toBe(names.length);
    return names;
  }

  it.each([
    [{ class: ['car'] }],
    [{ class: ['dog', 'person'], folder_path: '/' }],
    [{ class: ['car'], is_archived: 'all' }],
    [{ has_annotations: 'false' }],
    [{ min_annotations: 1, max_annotations: 1 }],
    [{ class: ['unicorn'] }],
  ] as Query[][])('%j', async (filters) => {
    const fromList = await sortedNames(filters);
    expect(await exported(filters)).toEqual(fromList);
  });

  it('min above max is the same 400 there', async () => {
    const res = await api(server.url, 'POST', '/api/v1/annotations/export/count', { token: owner.token, body: body({ min_annotations: 2, max_annotations: 1 }) });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_annotation_range');
  });
});

describe("an image's classes follow every save path", () => {
  const classesOf = async (name: string) => {
    const found: string[] = [];
    for (const c of ['car', 'person', 'dog', 'cat', 'tree']) if ((await sortedNames({ class: c, search: name })).includes(name)) found.push(c);
    return found;
  };

  it('save-data, save-changes (a rename, a removal, a rebased save), restore', async () => {
    const name = 'path.png';
    ids[name] = (await uploadImage(server, owner, projectId, name, await png(16, 16))).id;
    const v1 = await save(name, ['car', 'car', 'person']);
    expect(await classesOf(name)).toEqual(['car', 'person']);

    const changes = (base: number, upserts: unknown[], removed: string[] = []) =>
      api(server.url, 'POST', '/api/v1/annotations/save-changes', {
        token: owner.token,
        body: { image_id: ids[name], project_id: projectId, image_filename: name, base_version: base, upserts, removed_ids: removed },
      });
    // The person becomes a cat: person leaves, cat joins.
    const renamed = await changes(v1, [{ id: `${name}-2`, name: 'cat', bounding_box: { x: 3, y: 1, w: 3, h: 3 } }]);
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(await classesOf(name)).toEqual(['car', 'cat']);
    // One of two cars removed: car stays; then the other: car leaves.
    const oneCar = await changes(renamed.body.version, [], [`${name}-0`]);
    expect(await classesOf(name)).toEqual(['car', 'cat']);
    const noCar = await changes(oneCar.body.version, [], [`${name}-1`]);
    expect(noCar.status).toBe(200);
    expect(await classesOf(name)).toEqual(['cat']);
    // A save on a stale base that touches other ids is rebased onto the head: its tree counts.
    const rebased = await changes(oneCar.body.version, [{ id: `${name}-t`, name: 'tree', bounding_box: { x: 9, y: 9, w: 2, h: 2 } }]);
    expect(rebased.status, JSON.stringify(rebased.body)).toBe(200);
    expect(rebased.body.rebased_from).toBe(noCar.body.version);
    expect(await classesOf(name)).toEqual(['cat', 'tree']);
    // Restoring the first version brings back its classes.
    const restored = await api(server.url, 'POST', '/api/v1/annotations/restore', { token: owner.token, body: { image_id: ids[name], project_id: projectId, version: v1 } });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(await classesOf(name)).toEqual(['car', 'person']);
    // Saving an empty list: no class, and 'no annotations'.
    await save(name, []);
    expect(await classesOf(name)).toEqual([]);
    expect(await sortedNames({ has_annotations: 'false', search: name })).toEqual([name]);
  }, 60_000);
});
