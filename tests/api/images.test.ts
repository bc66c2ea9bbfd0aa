// The image calls of spec section 7 "Images" as a client sees them: the list (pagination, sorting,
// filters), one image, stages and counters, signed URLs, deletion, and tenant isolation.
import { eq, inArray } from 'drizzle-orm';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, jpeg, keysUnder, png, uploadImage, type Member } from '../fixtures/datasets';
import { annotationDocuments, images } from '../../src/server/db/schema';

let server: TestServer;
let owner: Member;
let stranger: Member;
let project: { id: string; gcs_path: string };
/** Registered in this order (created_at ascending). */
const uploaded: Record<string, any>[] = [];

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
  stranger = await onboardedUser(server);
  project = await createProject(server, owner);
  const folder = await api(server.url, 'POST', '/api/folders/create', { token: owner.token, body: { project_id: project.id, name: 'street', parent_folder_path: '/' } });
  if (folder.status !== 200) throw new Error(JSON.stringify(folder.body));
  const specs: [string, () => Promise<Buffer>, string][] = [
    ['alpha.png', () => png(40, 30), '/'],
    ['beta.jpg', () => jpeg(120, 90), '/'],
    ['gamma_1.png', () => png(200, 100, '#ff0000'), '/'],
    ['gammax1.png', () => png(16, 16), '/'],
    ['delta.png', () => png(60, 60), '/street'],
    ['epsilon.jpg', () => jpeg(300, 200), '/street'],
    ['zeta.png', () => png(10, 10), '/'],
  ];
  for (const [name, make, folderPath] of specs) uploaded.push(await uploadImage(server, owner, project.id, name, await make(), { folder: folderPath }));
  // Annotation counts come from annotation saves (another issue): set them directly.
  const db = server.built.ctx.db;
  for (const [i, img] of uploaded.entries()) await db.update(images).set({ annotationCount: (i * 3) % 5 }).where(eq(images.id, img.id));
}, 120_000);

const list = (query: string, token = owner.token) => api(server.url, 'GET', `/api/v1/projects/${project.id}/images?${query}`, { token });
const names = (body: { images: { filename: string }[] }) => body.images.map((i) => i.filename);
const byName = (n: string) => uploaded.find((u) => u.filename === n)!;

describe('list', () => {
  it('lists one folder, newest first by default, in the Image shape', async () => {
    const root = await list(`org_id=${owner.org.id}&folder_path=/`);
    expect(root.status).toBe(200);
    expect(names(root.body)).toEqual(['zeta.png', 'gammax1.png', 'gamma_1.png', 'beta.jpg', 'alpha.png']);
    expect(root.body.pagination).toEqual({ page: 1, limit: 50, totalPages: 1, totalItems: 5, totalCapped: false, hasNext: false, hasPrev: false, nextCursor: null });
    const img = root.body.images.find((i: { filename: string }) => i.filename === 'beta.jpg');
    expect(Object.keys(img).sort()).toEqual(
      [
        'annotation_count', 'created_at', 'file_size', 'filename', 'folder_id', 'gcs_path', 'gcs_uri', 'id', 'image_height', 'image_width', 'is_archived',
        'is_edited', 'mime_type', 'organization_id', 'project_id', 'status', 'thumbnail_path', 'updated_at', 'virtual_folder_path',
        'assignee_id', 'reviewer_id', 'open_issues', 'pending_predictions', 'overlap',
      ].sort(),
    );
    expect(img).toMatchObject({ mime_type: 'image/jpeg', image_width: 120, image_height: 90, virtual_folder_path: '/', folder_id: null, assignee_id: null, reviewer_id: null, open_issues: 0, pending_predictions: 0, overlap: 1 });
    const street = await list('folder_path=/street');
    expect(names(street.body)).toEqual(['epsilon.jpg', 'delta.png']);
    expect(street.body.images[0].folder_id).toBeTruthy();
    // Trailing slash and missing leading slash name the same folder.
    expect(names((await list('folder_path=street/')).body)).toEqual(['epsilon.jpg', 'delta.png']);
    // No folder_path: the whole project.
    expect((await list('')).body.pagination.totalItems).toBe(7);
  });

  it('pages with page and limit', async () => {
    const p1 = await list('limit=3&page=1');
    const p2 = await list('limit=3&page=2');
    const p3 = await list('limit=3&page=3');
    // nextCursor: the page's last image, where a keyset page (after=) goes on from.
    expect(p1.body.pagination).toEqual({ page: 1, limit: 3, totalPages: 3, totalItems: 7, totalCapped: false, hasNext: true, hasPrev: false, nextCursor: p1.body.images[2].id });
    expect(p3.body.pagination).toMatchObject({ page: 3, hasNext: false, hasPrev: true, nextCursor: null });
    const all = [...names(p1.body), ...names(p2.body), ...names(p3.body)];
    expect(all).toEqual([...uploaded].reverse().map((u) => u.filename));
    expect((await list('limit=3&page=9')).body.images).toEqual([]);
    expect((await list('limit=10000')).status).toBe(200);
    for (const bad of ['limit=10001', 'limit=0', 'page=0', 'page=abc', 'sort_by=password', 'sort_order=up', 'status=done', 'is_archived=maybe', 'min_file_size=-1']) {
      const res = await list(bad);
      expect(res.status, bad).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    }
  });

  it('sorts by every field both ways, with a stable tie-breaker', async () => {
    const sorted = (order: 'asc' | 'desc', key: (u: Record<string, any>) => number | string) =>
      [...uploaded]
        .sort((a, b) => {
          const ka = key(a);
          const kb = key(b);
          const c = ka < kb ? -1 : ka > kb ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
          return order === 'asc' ? c : -c;
        })
        .map((u) => u.filename);
    const annotations = new Map(uploaded.map((u, i) => [u.id, (i * 3) % 5]));
    const stage = (s: string) => ['new', 'annotating', 'review', 'complete'].indexOf(s);
    const cases: [string, (u: Record<string, any>) => number | string][] = [
      ['file_size', (u) => u.file_size],
      ['filename', (u) => u.filename],
      ['annotation_count', (u) => annotations.get(u.id)!],
      ['mime_type', (u) => u.mime_type],
      ['created_at', (u) => u.created_at],
      ['status', (u) => stage(u.status)],
    ];
    for (const [field, key] of cases) {
      for (const order of ['asc', 'desc'] as const) {
        const res = await list(`sort_by=${field}&sort_order=${order}&limit=100`);
        expect(res.status).toBe(200);
        if (field === 'filename') expect(names(res.body), `${field} ${order}`).toEqual(uploaded.map((u) => u.filename).sort((a, b) => (order === 'asc' ? (a < b ? -1 : 1) : a < b ? 1 : -1)));
        else expect(names(res.body), `${field} ${order}`).toEqual(sorted(order, key));
      }
    }
  });

  it('filters by status, search (with % and _ taken literally), mime type and file size', async () => {
    expect(names((await list('search=GAMMA&sort_by=filename&sort_order=asc')).body)).toEqual(['gamma_1.png', 'gammax1.png']);
    // % and _ are literal: unescaped, "a%" and "a_" would match every name with an "a" followed by something.
    expect(names((await list('search=a%25')).body)).toEqual([]);
    expect(names((await list('search=a_')).body)).toEqual(['gamma_1.png']);
    expect(names((await list('search=_')).body)).toEqual(['gamma_1.png']);
    expect(names((await list('search=%5C')).body)).toEqual([]); // a backslash is literal too
    expect(names((await list('mime_type=image/jpeg&sort_by=filename&sort_order=asc')).body)).toEqual(['beta.jpg', 'epsilon.jpg']);
    expect(names((await list('mime_type=jpg&sort_by=filename&sort_order=asc')).body)).toEqual(['beta.jpg', 'epsilon.jpg']);
    expect((await list('mime_type=text/html')).status).toBe(400);
    const sizes = uploaded.map((u) => u.file_size).sort((a, b) => a - b);
    const [lo, hi] = [sizes[2], sizes[4]];
    const ranged = await list(`min_file_size=${lo}&max_file_size=${hi}&limit=100`);
    expect(ranged.body.pagination.totalItems).toBe(uploaded.filter((u) => u.file_size >= lo && u.file_size <= hi).length);
    expect(ranged.body.images.every((i: { file_size: number }) => i.file_size >= lo && i.file_size <= hi)).toBe(true);
    // Status filter with folder scope and the count that goes with it.
    const set = await api(server.url, 'PATCH', `/api/v1/images/${byName('alpha.png').id}/status`, { token: owner.token, body: { status: 'complete' } });
    expect(set.status).toBe(200);
    const complete = await list('status=complete&folder_path=/');
    expect(names(complete.body)).toEqual(['alpha.png']);
    expect(complete.body.pagination.totalItems).toBe(1);
    expect((await list('status=all')).body.pagination.totalItems).toBe(7); // 'all' = no filter
    await api(server.url, 'PATCH', `/api/v1/images/${byName('alpha.png').id}/status`, { token: owner.token, body: { status: 'new' } });
  });

  it('hides archived images unless asked (is_archived=true lists only them, all lists both)', async () => {
    const target = byName('zeta.png');
    const archive = await api(server.url, 'PATCH', '/api/images/batch/update', { token: owner.token, body: { image_ids: [target.id], project_id: project.id, updates: { is_archived: true } } });
    expect(archive.status).toBe(200);
    expect(names((await list('')).body)).not.toContain('zeta.png');
    expect(names((await list('is_archived=true')).body)).toEqual(['zeta.png']);
    expect((await list('is_archived=true')).body.pagination.totalItems).toBe(1);
    expect((await list('is_archived=all')).body.pagination.totalItems).toBe(7);
    await api(server.url, 'PATCH', '/api/images/batch/update', { token: owner.token, body: { image_ids: [target.id], project_id: project.id, updates: { is_archived: false } } });
  });

  it('answers 404 for another organization\'s project and a mismatched org_id, 400 for a bad folder path', async () => {
    expect((await list('', stranger.token)).status).toBe(404);
    expect((await list(`org_id=${stranger.org.id}`)).status).toBe(404);
    expect((await list('folder_path=/../street')).body.code).toBe('invalid_folder_path');
    expect((await api(server.url, 'GET', '/api/v1/projects/not-a-uuid/images', { token: owner.token })).status).toBe(400);
  });
});

describe('one image', () => {
  it('reads an image by id, 404 for strangers and for a wrong org_id', async () => {
    const img = byName('delta.png');
    const res = await api(server.url, 'GET', `/api/v1/images/${img.id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, image: expect.objectContaining({ id: img.id, filename: 'delta.png', virtual_folder_path: '/street' }) });
    expect((await api(server.url, 'GET', `/api/v1/images/${img.id}?org_id=${owner.org.id}`, { token: owner.token })).status).toBe(200);
    expect((await api(server.url, 'GET', `/api/v1/images/${img.id}`, { token: stranger.token })).status).toBe(404);
    expect((await api(server.url, 'GET', `/api/v1/images/${img.id}?org_id=${stranger.org.id}`, { token: owner.token })).status).toBe(404);
    expect((await api(server.url, 'GET', `/api/v1/images/00000000-0000-4000-8000-000000000000`, { token: owner.token })).status).toBe(404);
  });

  it('cycles and sets the status, keeping completed_image_count in step', async () => {
    const img = byName('beta.jpg');
    const projectOf = async () => (await api(server.url, 'GET', `/api/v1/projects/${project.id}`, { token: owner.token })).body.project;
    const before = (await projectOf()).completed_image_count;
    const url = `/api/v1/images/${img.id}/status`;
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await api(server.url, 'PATCH', url, { token: owner.token, body: { cycle: true } });
      expect(res.status).toBe(200);
      seen.push(res.body.image.status);
      expect((await projectOf()).completed_image_count).toBe(before + (res.body.image.status === 'complete' ? 1 : 0));
    }
    expect(seen).toEqual(['annotating', 'review', 'complete', 'new']);
    const set = await api(server.url, 'PATCH', url, { token: owner.token, body: { status: 'complete' } });
    expect(set.body).toMatchObject({ previous_status: 'new', image: { status: 'complete' } });
    expect((await projectOf()).completed_image_count).toBe(before + 1);
    await api(server.url, 'PATCH', url, { token: owner.token, body: { status: 'new' } });
    expect((await projectOf()).completed_image_count).toBe(before);
    expect((await api(server.url, 'PATCH', url, { token: owner.token, body: { status: 'done' } })).status).toBe(400);
    expect((await api(server.url, 'PATCH', url, { token: owner.token, body: {} })).status).toBe(400);
    expect((await api(server.url, 'PATCH', url, { token: stranger.token, body: { cycle: true } })).status).toBe(404);
  });

  it('signs URLs for the original and the thumbnail that fetch the right bytes', async () => {
    const img = byName('epsilon.jpg');
    const original = await api(server.url, 'GET', `/api/v1/images/${img.id}/signed-url?org_id=${owner.org.id}`, { token: owner.token });
    expect(original.status).toBe(200);
    expect(original.body.variant).toBe('original');
    const minutes = (Date.parse(original.body.expires_at) - Date.now()) / 60000;
    expect(minutes).toBeGreaterThan(58); // default 60 minutes
    const bytes = Buffer.from(await (await fetch(original.body.signed_url)).arrayBuffer());
    expect(bytes.length).toBe(img.file_size);
    expect(await sharp(bytes).metadata()).toMatchObject({ format: 'jpeg', width: 300, height: 200 });
    const thumb = await api(server.url, 'GET', `/api/v1/images/${img.id}/signed-url?variant=thumbnail&expiration_minutes=5`, { token: owner.token });
    const thumbBytes = Buffer.from(await (await fetch(thumb.body.signed_url)).arrayBuffer());
    expect(await sharp(thumbBytes).metadata()).toMatchObject({ format: 'webp', width: 300, height: 200 }); // never enlarged
    expect((Date.parse(thumb.body.expires_at) - Date.now()) / 60000).toBeLessThanOrEqual(5.01);
    expect((await api(server.url, 'GET', `/api/v1/images/${img.id}/signed-url`, { token: stranger.token })).status).toBe(404);
    expect((await api(server.url, 'GET', `/api/v1/images/${img.id}/signed-url?variant=raw`, { token: owner.token })).status).toBe(400);
  });

  it('signs batches of up to 500 ids; a deleted id is listed as missing', async () => {
    const ids = uploaded.slice(0, 3).map((u) => u.id);
    const gone = '00000000-0000-4000-8000-000000000000';
    const res = await api(server.url, 'POST', `/api/v1/images/batch-signed-urls?org_id=${owner.org.id}`, {
      token: owner.token,
      body: { image_ids: [...ids, gone], expiration_minutes: 10, variant: 'thumbnail' },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.signed_urls).sort()).toEqual([...ids].sort());
    expect(res.body.missing_ids).toEqual([gone]);
    const fetched = await fetch(res.body.signed_urls[ids[0]]);
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('content-type')).toBe('image/webp');
    const tooMany = Array.from({ length: 501 }, () => ids[0]);
    expect((await api(server.url, 'POST', '/api/v1/images/batch-signed-urls', { token: owner.token, body: { image_ids: tooMany } })).status).toBe(400);
    expect((await api(server.url, 'POST', '/api/v1/images/batch-signed-urls', { token: owner.token, body: { image_ids: ['not-a-uuid'] } })).status).toBe(400);
    expect((await api(server.url, 'POST', '/api/v1/images/batch-signed-urls', { token: owner.token, body: { image_ids: [] } })).status).toBe(400);
  });

  it("answers 404 to a batch of signed URLs holding another organization's image, or for another org_id, and signs nothing", async () => {
    const other = await createProject(server, stranger);
    const foreign = await uploadImage(server, stranger, other.id, 'foreign.png', await png(8, 8));
    const ids = uploaded.slice(0, 2).map((u) => u.id);
    const call = (token: string, imageIds: string[], orgId?: string) =>
      api(server.url, 'POST', `/api/v1/images/batch-signed-urls${orgId ? `?org_id=${orgId}` : ''}`, { token, body: { image_ids: imageIds, variant: 'thumbnail' } });

    // Mixed with the caller's own ids, with and without org_id: the whole call is refused.
    for (const res of [await call(owner.token, [...ids, foreign.id], owner.org.id), await call(owner.token, [...ids, foreign.id]), await call(owner.token, [foreign.id])]) {
      expect(res.status).toBe(404);
      expect(res.body.error ?? res.body.message).toBe('Image not found');
      expect(res.body.signed_urls).toBeUndefined();
    }
    // The caller's own images under another organization's id (one the caller is not in, or is in).
    expect((await call(owner.token, ids, stranger.org.id)).status).toBe(404);
    const second = await api(server.url, 'POST', '/api/v1/organizations', { token: owner.token, body: { name: 'Second Org', slug: `second-${Date.now().toString(36)}` } });
    expect(second.status).toBe(200);
    const secondOrgId = (second.body.organization ?? second.body).id as string;
    expect((await call(owner.token, ids, secondOrgId)).status).toBe(404);
    // The owner of the foreign image still gets it; the other side gets nothing of ours.
    const theirs = await call(stranger.token, [foreign.id], stranger.org.id);
    expect(theirs.status).toBe(200);
    expect(Object.keys(theirs.body.signed_urls)).toEqual([foreign.id]);
    expect((await call(stranger.token, [foreign.id, ids[0]])).status).toBe(404);
  });

  it('answers the assisted-segmentation metadata keyed by filename', async () => {
    const res = await api(server.url, 'GET', `/api/v1/auto-annotate/sam2/batch-image-metadata/${project.id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(Object.keys(res.body.image_metadata).sort()).toEqual(uploaded.map((u) => u.filename).sort());
    expect(res.body.image_metadata['epsilon.jpg']).toMatchObject({ id: byName('epsilon.jpg').id, width: 300, height: 200, gcs_uri: byName('epsilon.jpg').gcs_uri });
    expect((await api(server.url, 'GET', `/api/v1/auto-annotate/sam2/batch-image-metadata/${project.id}`, { token: stranger.token })).status).toBe(404);
  });
});

describe('delete', () => {
  it('deletes the given images with their files, annotation documents and counters; only owners and admins', async () => {
    const p = await createProject(server, owner);
    const a = await uploadImage(server, owner, p.id, 'a.png', await png(20, 20));
    const b = await uploadImage(server, owner, p.id, 'b.png', await png(30, 30));
    const c = await uploadImage(server, owner, p.id, 'c.png', await png(40, 40));
    const other = await createProject(server, stranger);
    const foreign = await uploadImage(server, stranger, other.id, 'x.png', await png(8, 8));
    const bucket = owner.org.gcs_bucket_name;

    // Another organization's id among them: 404 'Image not found', and nothing is deleted.
    const refused = await api(server.url, 'DELETE', `/api/v1/projects/${p.id}/images`, { token: owner.token, body: { image_ids: [a.id, foreign.id] } });
    expect([refused.status, refused.body.error]).toEqual([404, 'Image not found']);
    expect((await api(server.url, 'GET', `/api/v1/images/${a.id}`, { token: owner.token })).status).toBe(200);
    expect(await keysUnder(server, bucket, `${p.gcs_path}/images/a.png`)).not.toEqual([]);

    const gone = '00000000-0000-4000-8000-000000000000';
    const res = await api(server.url, 'DELETE', `/api/v1/projects/${p.id}/images`, { token: owner.token, body: { image_ids: [a.id, gone] } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, deleted: 1, deleted_ids: [a.id], skipped_ids: [gone], files_deleted: 3 });
    expect(await keysUnder(server, bucket, `${p.gcs_path}/images/a.png`)).toEqual([]);
    expect(await keysUnder(server, bucket, `${p.gcs_path}/thumbnails/a.png`)).toEqual([]);
    expect(await server.built.ctx.db.select().from(annotationDocuments).where(eq(annotationDocuments.imageId, a.id))).toEqual([]);
    // The other organization's image is untouched.
    expect((await api(server.url, 'GET', `/api/v1/images/${foreign.id}`, { token: stranger.token })).status).toBe(200);
    let proj = (await api(server.url, 'GET', `/api/v1/projects/${p.id}`, { token: owner.token })).body.project;
    expect(proj).toMatchObject({ image_count: 2, total_size: b.file_size + c.file_size, archived_images: 0 });

    // Without ids: every archived image.
    await api(server.url, 'PATCH', '/api/images/batch/update', { token: owner.token, body: { image_ids: [b.id], project_id: p.id, updates: { is_archived: true } } });
    proj = (await api(server.url, 'GET', `/api/v1/projects/${p.id}`, { token: owner.token })).body.project;
    expect(proj).toMatchObject({ image_count: 1, archived_images: 1 });
    const archived = await api(server.url, 'DELETE', `/api/v1/projects/${p.id}/images`, { token: owner.token });
    expect(archived.body).toMatchObject({ deleted: 1, deleted_ids: [b.id] });
    proj = (await api(server.url, 'GET', `/api/v1/projects/${p.id}`, { token: owner.token })).body.project;
    expect(proj).toMatchObject({ image_count: 1, archived_images: 0, total_size: c.file_size });
    expect((await server.built.ctx.db.select().from(images).where(inArray(images.id, [a.id, b.id, c.id]))).map((r) => r.id)).toEqual([c.id]);

    // Strangers see nothing; annotators may not delete.
    expect((await api(server.url, 'DELETE', `/api/v1/projects/${p.id}/images`, { token: stranger.token, body: { image_ids: [c.id] } })).status).toBe(404);
    const annotator = await onboardedUser(server);
    const { organizationMembers } = await import('../../src/server/db/schema');
    await server.built.ctx.db.insert(organizationMembers).values({ organizationId: owner.org.id, userId: annotator.userId, role: 'annotator' });
    expect((await api(server.url, 'DELETE', `/api/v1/projects/${p.id}/images`, { token: annotator.token, body: { image_ids: [c.id] } })).status).toBe(403);
    expect((await api(server.url, 'PATCH', `/api/v1/images/${c.id}/status`, { token: annotator.token, body: { cycle: true } })).status).toBe(403);
  });
});

describe('project card previews', () => {
  it('shows the three newest unarchived images of each project, newest first, as thumbnails that load', async () => {
    const p = await createProject(server, owner);
    const other = await createProject(server, owner);
    const made = [];
    for (const [i, name] of ['one.png', 'two.png', 'three.png', 'four.png', 'five.png'].entries()) made.push(await uploadImage(server, owner, p.id, name, await png(20 + i, 20), { folder: '/' }));
    await uploadImage(server, owner, other.id, 'lonely.png', await png(8, 8), { folder: '/' });
    // The newest image goes to the archive: a card shows only what is in the dataset.
    const archive = await api(server.url, 'PATCH', '/api/images/batch/update', { token: owner.token, body: { project_id: p.id, image_ids: [made[4].id], updates: { is_archived: true } } });
    expect(archive.status).toBe(200);

    const listed = await api(server.url, 'GET', `/api/v1/projects/organization/${owner.org.id}`, { token: owner.token });
    const card = (id: string) => listed.body.projects.find((x: { id: string }) => x.id === id);
    expect(card(p.id).preview_images.map((x: { filename: string }) => x.filename)).toEqual(['four.png', 'three.png', 'two.png']);
    expect(card(other.id).preview_images.map((x: { filename: string }) => x.filename)).toEqual(['lonely.png']);
    const thumb = await fetch(card(p.id).preview_images[0].thumbnail_url);
    expect(thumb.status).toBe(200);
    expect((await sharp(Buffer.from(await thumb.arrayBuffer())).metadata()).format).toBe('webp');

    const single = await api(server.url, 'GET', `/api/v1/projects/${p.id}`, { token: owner.token });
    expect(single.body.project.preview_images.map((x: { filename: string }) => x.filename)).toEqual(['four.png', 'three.png', 'two.png']);
  });
});
