// The images list's capped total and deep pages (issue 32 §4). A server with LIST_TOTAL_CAP=3
// counts at most 3 matching images when no kept counter answers the total (several classes, a
// class with other filters, a search, ...) and says so with pagination.totalCapped; the last page
// then answers the exact total, and hasNext pages on past the cap. Every page after the first is
// read by a deferred join (its ids first, then their rows). For combinations of every filter
// (class, has_annotations, min/max annotations, folder, archive, stage, search) and every sort, each
// page asked for directly is compared with what the test uploaded: the images, their order, and
// what the pagination says. Each list is then walked again by keyset paging (after=, from each
// page's pagination.nextCursor, issue 35 §3): the same images in the same order. Runs on PGlite and
// PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, startServer, type TestServer } from './harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';
import { IMAGE_STATUSES, type ImageStatus } from '../../src/contract/images';

const CAP = 3;
const LIMIT = 2;
let server: TestServer;
let owner: Member;
let projectId: string;

interface Known {
  id: string;
  name: string;
  folder: string;
  classes: string[];
  annotations: number;
  archived: boolean;
  status: ImageStatus;
}
const known: Known[] = [];

/** name, folder, the class of each shape, archived, stage */
const IMAGES: [string, string, string[], boolean, ImageStatus][] = [
  ['shore-01.png', '/', ['car', 'car', 'person'], false, 'new'],
  ['shore-02.png', '/', ['car'], false, 'annotating'],
  ['field-03.png', '/', ['person'], false, 'review'],
  ['field-04.png', '/', [], false, 'new'],
  ['shore-05.png', '/pets', ['dog', 'car'], false, 'annotating'],
  ['field-06.png', '/pets', ['dog'], false, 'complete'],
  ['shore-07.png', '/pets', ['car', 'car', 'car'], false, 'annotating'],
  ['field-08.png', '/pets', [], false, 'review'],
  ['shore-09.png', '/', ['person', 'person'], true, 'new'],
  ['field-10.png', '/pets', ['car'], true, 'annotating'],
  ['shore-11.png', '/', ['car', 'dog'], false, 'annotating'],
  ['field-12.png', '/', ['person', 'car'], false, 'complete'],
  ['shore-13.png', '/pets', ['car', 'person'], false, 'annotating'],
  ['field-14.png', '/', [], true, 'review'],
];

type Query = { class?: string[]; has_annotations?: 'true' | 'false'; min_annotations?: number; max_annotations?: number; folder_path?: string; is_archived?: 'true' | 'false' | 'all'; status?: ImageStatus; search?: string };

/** The images a query selects, by the meaning the list documents (src/server/services/image-filter.ts). */
function selects(q: Query, i: Known): boolean {
  const archived = q.is_archived ?? 'false';
  if (archived !== 'all' && i.archived !== (archived === 'true')) return false;
  if (q.folder_path !== undefined && i.folder !== q.folder_path) return false;
  if (q.status && i.status !== q.status) return false;
  if (q.search && !i.name.toLowerCase().includes(q.search.toLowerCase())) return false;
  if (q.class && !q.class.some((c) => i.classes.includes(c))) return false;
  if (q.has_annotations && (i.annotations > 0) !== (q.has_annotations === 'true')) return false;
  if (q.min_annotations !== undefined && i.annotations < q.min_annotations) return false;
  if (q.max_annotations !== undefined && i.annotations > q.max_annotations) return false;
  return true;
}

interface Listed {
  id: string;
  filename: string;
  created_at: string;
  annotation_count: number;
  file_size: number;
  status: ImageStatus;
}
interface Page {
  images: Listed[];
  pagination: { page: number; limit: number; totalPages: number; totalItems: number; totalCapped: boolean; hasNext: boolean; hasPrev: boolean; nextCursor: string | null };
}

async function page(q: Query, sort: Sort, n: number, after?: string): Promise<Page> {
  const params = new URLSearchParams({ page: String(n), limit: String(LIMIT), sort_by: sort[0], sort_order: sort[1], ...(after ? { after } : {}) });
  for (const [k, v] of Object.entries(q)) if (v !== undefined) for (const one of Array.isArray(v) ? v : [v]) params.append(k, String(one));
  const res = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?${params}`, { token: owner.token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Page;
}

type Sort = [field: 'created_at' | 'filename' | 'annotation_count' | 'status' | 'file_size', order: 'asc' | 'desc'];
const SORTS: Sort[] = [
  ['created_at', 'desc'],
  ['filename', 'asc'],
  ['annotation_count', 'desc'],
  ['status', 'asc'],
  ['file_size', 'desc'],
];

/** Negative, zero or positive as `a` comes before, with or after `b` in `sort` (id breaks ties, in the sort's direction). */
function compare(sort: Sort, a: Listed, b: Listed): number {
  const key = (i: Listed): string | number => (sort[0] === 'status' ? IMAGE_STATUSES.indexOf(i.status) : i[sort[0]]);
  const [ka, kb] = [key(a), key(b)];
  const byKey = ka < kb ? -1 : ka > kb ? 1 : sort[0] === 'filename' ? 0 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  return sort[1] === 'asc' ? byKey : -byKey;
}

/**
 * Every page of `q` in `sort`, each asked for by its number, then the page after the last: the
 * images are exactly the ones `q` selects, in the sort's order, and each page's pagination says
 * what it knows (exact, or "at least" while the count stopped at the cap). Returns page 1's.
 */
async function expectPages(q: Query, sort: Sort): Promise<Page['pagination']> {
  const expected = known.filter((i) => selects(q, i)).map((i) => i.name);
  const n = expected.length;
  const lastPage = Math.max(1, Math.ceil(n / LIMIT));
  const seen: Listed[] = [];
  let first: Page['pagination'] | undefined;
  for (let p = 1; p <= lastPage + 1; p++) {
    const { images, pagination } = await page(q, sort, p);
    first ??= pagination;
    const offset = (p - 1) * LIMIT;
    const rows = Math.max(0, Math.min(LIMIT, n - offset));
    const what = `${JSON.stringify(q)} sorted ${sort.join(' ')}, page ${p}: ${JSON.stringify(pagination)}`;
    expect(images.length, what).toBe(rows);
    expect(pagination.page, what).toBe(p);
    expect(pagination.hasPrev, what).toBe(p > 1);
    expect(pagination.hasNext, what).toBe(offset + rows < n);
    if (pagination.totalCapped) {
      // Only a count could say, and it stopped: more than the cap match, this is not the last
      // page, and the total is the most this page can vouch for.
      expect(n, what).toBeGreaterThan(CAP);
      expect(rows > 0 && offset + rows === n, what).toBe(false);
      expect(pagination.totalItems, what).toBe(Math.max(CAP, rows > 0 ? offset + rows : 0));
    } else {
      expect(pagination.totalItems, what).toBe(n);
    }
    expect(pagination.totalPages, what).toBe(Math.ceil(pagination.totalItems / LIMIT));
    seen.push(...images);
  }
  expect(seen.map((i) => i.filename).sort(), `${JSON.stringify(q)} sorted ${sort.join(' ')}`).toEqual([...expected].sort());
  for (let k = 1; k < seen.length; k++) expect(compare(sort, seen[k - 1]!, seen[k]!), `${seen[k - 1]!.filename} before ${seen[k]!.filename} sorted ${sort.join(' ')}`).toBeLessThan(0);
  expect(await keysetWalk(q, sort), `${JSON.stringify(q)} sorted ${sort.join(' ')} by after=`).toEqual(seen.map((i) => i.filename));
  return first!;
}

/** The list of `q` in `sort` read by keyset paging: page 1, then after= each page's nextCursor until hasNext is false. */
async function keysetWalk(q: Query, sort: Sort): Promise<string[]> {
  const names: string[] = [];
  let after: string | undefined;
  for (let p = 1; p <= known.length + 1; p++) {
    const { images, pagination } = await page(q, sort, p, after);
    const what = `${JSON.stringify(q)} sorted ${sort.join(' ')}, keyset page ${p}: ${JSON.stringify(pagination)}`;
    names.push(...images.map((i) => i.filename));
    expect(images.length, what).toBe(pagination.hasNext ? LIMIT : images.length);
    if (!pagination.hasNext) {
      expect(pagination.nextCursor, what).toBeNull();
      return names;
    }
    // The cursor is the page's last image: the next page starts after it.
    expect(pagination.nextCursor, what).toBe(images[images.length - 1]!.id);
    after = pagination.nextCursor!;
  }
  throw new Error(`${JSON.stringify(q)} sorted ${sort.join(' ')}: the keyset walk did not end`);
}

beforeAll(async () => {
  server = await startServer({ LIST_TOTAL_CAP: String(CAP) });
  owner = await onboardedUser(server);
  projectId = (await createProject(server, owner, 'Capped totals')).id;
  const classes = ['car', 'person', 'dog'].map((name) => ({ name, type: 'box', color: '#ff0000' }));
  expect((await api(server.url, 'PATCH', `/api/v1/projects/${projectId}`, { token: owner.token, body: { classes } })).status).toBe(200);
  expect((await api(server.url, 'POST', '/api/folders/create', { token: owner.token, body: { project_id: projectId, name: 'pets' } })).status).toBe(200);
  for (const [k, [name, folder, classNames, archived, status]] of IMAGES.entries()) {
    const { id } = await uploadImage(server, owner, projectId, name, await png(8 + k * 3, 8 + (k % 4)), { folder });
    known.push({ id, name, folder, classes: [...new Set(classNames)], annotations: classNames.length, archived, status });
    if (classNames.length > 0) {
      const annotations = classNames.map((c, j) => ({ id: `${name}-${j}`, name: c, bounding_box: { x: 1 + j, y: 1, w: 3, h: 3 } }));
      const saved = await api(server.url, 'POST', '/api/v1/annotations/save-data', { token: owner.token, body: { image_id: id, project_id: projectId, image_filename: name, annotations } });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    }
  }
  // Every stage set once the saves are done (a save moves a new image to annotating).
  for (const status of IMAGE_STATUSES) {
    const ids = known.filter((i) => i.status === status).map((i) => i.id);
    const res = await api(server.url, 'PATCH', '/api/images/batch/update', { token: owner.token, body: { project_id: projectId, image_ids: ids, updates: { status } } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  const archive = await api(server.url, 'PATCH', '/api/images/batch/update', { token: owner.token, body: { project_id: projectId, image_ids: known.filter((i) => i.archived).map((i) => i.id), updates: { is_archived: true } } });
  expect(archive.status, JSON.stringify(archive.body)).toBe(200);
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

describe('a total only a count could give stops at LIST_TOTAL_CAP', () => {
  it('several classes: page 1 says "at least 3", pages go on to the last, which knows the total', async () => {
    for (const sort of SORTS) {
      const first = await expectPages({ class: ['car', 'person'] }, sort);
      expect(first).toMatchObject({ totalItems: CAP, totalCapped: true, hasNext: true, totalPages: 2 });
    }
    // The last page (8 images, limit 2: page 4) answers the exact total.
    expect((await page({ class: ['car', 'person'] }, SORTS[0]!, 4)).pagination).toMatchObject({ totalItems: 8, totalCapped: false, totalPages: 4, hasNext: false });
    // A page far past the end knows only the cap.
    const past = await page({ class: ['car', 'person'] }, SORTS[0]!, 9);
    expect(past.images).toEqual([]);
    expect(past.pagination).toMatchObject({ totalItems: CAP, totalCapped: true, hasNext: false });
  });

  it('a class with a count range, a search, a stage: capped when more than 3 match, exact otherwise', async () => {
    for (const sort of SORTS) {
      expect((await expectPages({ class: ['car'], min_annotations: 1 }, sort)).totalCapped).toBe(true);
      expect((await expectPages({ search: 'shore' }, sort)).totalCapped).toBe(true);
      expect((await expectPages({ has_annotations: 'true', is_archived: 'all' }, sort)).totalCapped).toBe(true);
      expect((await expectPages({ class: ['person'], status: 'review', is_archived: 'all' }, sort)).totalCapped).toBe(false);
      expect((await expectPages({ has_annotations: 'false', is_archived: 'true' }, sort)).totalCapped).toBe(false);
    }
  });

  it('totals a kept counter answers stay exact above the cap: none, a folder, a stage, one class', async () => {
    for (const sort of SORTS) {
      for (const q of [{}, { folder_path: '/' }, { folder_path: '/pets', is_archived: 'all' as const }, { status: 'annotating' as const, is_archived: 'all' as const }, { class: ['car'] }, { class: ['car'], folder_path: '/pets', is_archived: 'all' as const }]) {
        const first = await expectPages(q, sort);
        expect(first.totalCapped, JSON.stringify(q)).toBe(false);
        expect(first.totalItems, JSON.stringify(q)).toBeGreaterThan(CAP);
      }
    }
  });

  it('every filter at once, in every sort, and each with a folder and the archive', async () => {
    const all: Query = { class: ['car', 'dog'], has_annotations: 'true', min_annotations: 1, max_annotations: 3, folder_path: '/pets', is_archived: 'all', status: 'annotating', search: 'SHORE' };
    for (const sort of SORTS) {
      // shore-05, -07 and -13 (field-10 is no shore): exactly the cap, so the count saw them all.
      expect(await expectPages(all, sort)).toMatchObject({ totalItems: 3, totalCapped: false });
      await expectPages({ ...all, folder_path: '/', is_archived: 'false', status: undefined, search: undefined }, sort);
      await expectPages({ class: ['car', 'dog', 'person'], min_annotations: 2, is_archived: 'all' }, sort);
      await expectPages({ class: ['person', 'dog'], max_annotations: 2, folder_path: '/', search: 'field' }, sort);
      await expectPages({ has_annotations: 'true', folder_path: '/', is_archived: 'true' }, sort);
    }
  });
});

describe('keyset paging (after=)', () => {
  it('pages after the image named, in every sort, and an image outside the list gives an empty page', async () => {
    for (const sort of [...SORTS, ['updated_at', 'asc'] as unknown as Sort, ['mime_type', 'desc'] as unknown as Sort]) {
      const numbered: string[] = [];
      for (let p = 1; p <= Math.ceil(IMAGES.length / LIMIT) + 1; p++) numbered.push(...(await page({ is_archived: 'all' }, sort, p)).images.map((i) => i.filename));
      expect(numbered).toHaveLength(IMAGES.length);
      expect(await keysetWalk({ is_archived: 'all' }, sort), sort.join(' ')).toEqual(numbered);
    }
    // An archived image is not in the default (unarchived) list, but the list goes on after its place in the order.
    const archived = known.find((i) => i.archived)!;
    const all = (await page({ is_archived: 'all' }, SORTS[1]!, 1, undefined)).images;
    expect(all.length).toBe(LIMIT);
    const afterArchived = await page({}, SORTS[1]!, 1, archived.id);
    const byName = known.filter((i) => !i.archived && i.name > archived.name).map((i) => i.name).sort().slice(0, LIMIT);
    expect(afterArchived.images.map((i) => i.filename)).toEqual(byName);
    // Another project's image, or one that does not exist: nothing comes after it.
    const other = await createProject(server, owner, 'Other');
    const foreign = await uploadImage(server, owner, other.id, 'elsewhere.png', await png(9, 9));
    for (const after of [foreign.id, '00000000-0000-4000-8000-000000000000']) {
      const res = await page({}, SORTS[0]!, 2, after);
      expect(res.images).toEqual([]);
      expect(res.pagination).toMatchObject({ hasNext: false, nextCursor: null });
    }
    const bad = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?after=nope`, { token: owner.token });
    expect(bad.status).toBe(400);
  });
});
