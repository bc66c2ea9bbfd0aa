// The batch image calls (/api/images/batch): move, stage/archive, delete, with the project counters.
// An id of another organization's image answers 404 and nothing is touched; ids of the
// organization's other projects, or of no image, are skipped without being touched.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, keysUnder, png, uploadImage, type Member } from '../fixtures/datasets';

let server: TestServer;
let owner: Member;
let stranger: Member;
let foreign: { id: string };

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
  stranger = await onboardedUser(server);
  const theirs = await createProject(server, stranger);
  foreign = await uploadImage(server, stranger, theirs.id, 'theirs.png', await png(6, 6));
}, 120_000);

const GONE = '00000000-0000-4000-8000-000000000000';
const expectImageNotFound = (res: { status: number; body: any }) => {
  expect(res.status).toBe(404);
  expect(res.body.error).toBe('Image not found');
};
/** An image of another project of the owner's organization. */
const sibling = async () => (await seed(1)).imgs[0] as { id: string };

const projectOf = async (id: string) => (await api(server.url, 'GET', `/api/v1/projects/${id}`, { token: owner.token })).body.project;
const foreignUntouched = async () => {
  const res = await api(server.url, 'GET', `/api/v1/images/${foreign.id}`, { token: stranger.token });
  expect(res.body.image).toMatchObject({ status: 'new', is_archived: false, virtual_folder_path: '/' });
};

async function seed(n: number) {
  const p = await createProject(server, owner);
  const imgs = [];
  for (let i = 0; i < n; i++) imgs.push(await uploadImage(server, owner, p.id, `img${i}.png`, await png(8 + i, 8)));
  return { p, imgs };
}

describe('move', () => {
  it('moves the project\'s images into a folder or the root, skips other projects\' ids, and answers 404 for another organization\'s', async () => {
    const { p, imgs } = await seed(3);
    const other = await sibling();
    await api(server.url, 'POST', '/api/folders/create', { token: owner.token, body: { project_id: p.id, name: 'box' } });
    const move = (ids: string[]) => api(server.url, 'POST', '/api/images/batch/move', { token: owner.token, body: { image_ids: ids, target_folder_path: '/box', project_id: p.id } });
    expectImageNotFound(await move([imgs[0].id, imgs[1].id, foreign.id]));
    const untouched = await api(server.url, 'GET', `/api/v1/projects/${p.id}/images?folder_path=/box`, { token: owner.token });
    expect(untouched.body.images).toEqual([]);
    await foreignUntouched();
    const res = await move([imgs[0].id, imgs[1].id, other.id, GONE]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, moved: 2, target_folder_path: '/box', skipped_ids: [other.id, GONE] });
    const inBox = await api(server.url, 'GET', `/api/v1/projects/${p.id}/images?folder_path=/box`, { token: owner.token });
    expect(inBox.body.images.map((i: { id: string }) => i.id).sort()).toEqual([imgs[0].id, imgs[1].id].sort());
    await foreignUntouched();
    const back = await api(server.url, 'POST', '/api/images/batch/move', { token: owner.token, body: { image_ids: [imgs[0].id], target_folder_path: '/', project_id: p.id } });
    expect(back.body.moved).toBe(1);
    expect((await projectOf(p.id)).image_count).toBe(3); // moves never change counters
  });

  it('refuses unknown folders (404), bad paths (400), and other organizations\' projects (404)', async () => {
    const { p, imgs } = await seed(1);
    const move = (body: Record<string, unknown>, token = owner.token) => api(server.url, 'POST', '/api/images/batch/move', { token, body: { image_ids: [imgs[0].id], project_id: p.id, target_folder_path: '/', ...body } });
    expect((await move({ target_folder_path: '/nope' })).status).toBe(404);
    expect((await move({ target_folder_path: '/../../etc' })).body.code).toBe('invalid_folder_path');
    expect((await move({}, stranger.token)).status).toBe(404);
    expect((await move({ image_ids: [] })).status).toBe(400);
    expect((await move({ image_ids: ['not-a-uuid'] })).status).toBe(400);
    expect((await move({ image_ids: 'x' })).status).toBe(400);
  });
});

describe('update', () => {
  it('sets status and archive state and keeps image_count, archived_images and completed_image_count right', async () => {
    const { p, imgs } = await seed(4);
    const ids = imgs.map((i) => i.id);
    const update = (body: Record<string, unknown>) => api(server.url, 'PATCH', '/api/images/batch/update', { token: owner.token, body: { project_id: p.id, ...body } });

    // Another organization's id among them: 404, nothing changes (status nor archive).
    expectImageNotFound(await update({ image_ids: [ids[0], ids[1], ids[2], foreign.id], updates: { status: 'complete' } }));
    expectImageNotFound(await update({ image_ids: [foreign.id, ids[0]], updates: { is_archived: true } }));
    expect(await projectOf(p.id)).toMatchObject({ image_count: 4, completed_image_count: 0, archived_images: 0 });
    await foreignUntouched();

    const other = await sibling();
    let res = await update({ image_ids: [ids[0], ids[1], ids[2], other.id], updates: { status: 'complete' } });
    expect(res.body).toEqual({ success: true, updated: 3, status: 'complete', skipped_ids: [other.id] });
    expect(await projectOf(p.id)).toMatchObject({ image_count: 4, completed_image_count: 3, archived_images: 0 });

    // Archiving complete images takes them out of image_count and completed_image_count.
    res = await update({ image_ids: [ids[0], ids[3]], updates: { is_archived: true } });
    expect(res.body.updated).toBe(2);
    expect(await projectOf(p.id)).toMatchObject({ image_count: 2, completed_image_count: 2, archived_images: 2 });
    // Changing an archived image's stage leaves completed_image_count alone.
    await update({ image_ids: [ids[3]], updates: { status: 'complete' } });
    expect(await projectOf(p.id)).toMatchObject({ completed_image_count: 2 });
    // Restore brings both back.
    await update({ image_ids: [ids[0], ids[3]], updates: { is_archived: false } });
    expect(await projectOf(p.id)).toMatchObject({ image_count: 4, completed_image_count: 4, archived_images: 0 });

    // No explicit status: cycle the first selected image's status and give it to all.
    await update({ image_ids: [ids[1]], updates: { status: 'review' } });
    res = await update({ image_ids: [ids[1], ids[0]], updates: { cycle: true } });
    expect(res.body).toMatchObject({ updated: 2, status: 'complete' });
    res = await update({ image_ids: [ids[0], ids[1]], updates: { cycle: true } });
    expect(res.body.status).toBe('new');
    expect(await projectOf(p.id)).toMatchObject({ completed_image_count: 2 });

    // The list agrees with the counters, and its trigger-kept totals agree with counting rows
    // (a search that matches every name takes the counting path).
    const complete = await api(server.url, 'GET', `/api/v1/projects/${p.id}/images?status=complete`, { token: owner.token });
    expect(complete.body.pagination.totalItems).toBe(2);
    await api(server.url, 'POST', '/api/folders/create', { token: owner.token, body: { project_id: p.id, name: 'f' } });
    await api(server.url, 'POST', '/api/images/batch/move', { token: owner.token, body: { image_ids: [ids[0], ids[2]], target_folder_path: '/f', project_id: p.id } });
    await update({ image_ids: [ids[2]], updates: { is_archived: true } });
    for (const query of ['', 'folder_path=/', 'folder_path=/f', 'status=complete', 'status=new&folder_path=/f', 'is_archived=true', 'is_archived=all&folder_path=/f', 'mime_type=image/png&is_archived=all']) {
      const fromStats = await api(server.url, 'GET', `/api/v1/projects/${p.id}/images?${query}`, { token: owner.token });
      const counted = await api(server.url, 'GET', `/api/v1/projects/${p.id}/images?${query}&search=.png`, { token: owner.token });
      expect(fromStats.body.pagination.totalItems, query).toBe(counted.body.pagination.totalItems);
      expect(fromStats.body.pagination.totalItems, query).toBe(fromStats.body.images.length);
    }
    await foreignUntouched();
  });

  it('validates updates and checks roles', async () => {
    const { p, imgs } = await seed(1);
    const update = (updates: unknown, token = owner.token) => api(server.url, 'PATCH', '/api/images/batch/update', { token, body: { project_id: p.id, image_ids: [imgs[0].id], updates } });
    expect((await update({})).status).toBe(400);
    expect((await update({ status: 'done' })).status).toBe(400);
    expect((await update({ status: 'new', cycle: true })).status).toBe(400);
    expect((await update({ is_archived: 'yes' })).status).toBe(400);
    expect((await update({ owner: 'me' })).status).toBe(400);
    expect((await update({ status: 'complete' }, stranger.token)).status).toBe(404);
    const annotator = await onboardedUser(server);
    const { organizationMembers } = await import('../../src/server/db/schema');
    await server.built.ctx.db.insert(organizationMembers).values({ organizationId: owner.org.id, userId: annotator.userId, role: 'annotator' });
    expect((await update({ is_archived: true }, annotator.token)).status).toBe(403);
  });
});

describe('delete', () => {
  it('deletes rows, files and counters for the project\'s ids only; another organization\'s id answers 404 and deletes nothing', async () => {
    const { p, imgs } = await seed(3);
    const other = await sibling();
    const bucket = owner.org.gcs_bucket_name;
    const del = (ids: string[]) => api(server.url, 'DELETE', '/api/images/batch/delete', { token: owner.token, body: { image_ids: ids, project_id: p.id, delete_gcs_files: true } });
    expectImageNotFound(await del([imgs[0].id, foreign.id]));
    expect(await projectOf(p.id)).toMatchObject({ image_count: 3 });
    expect((await keysUnder(server, bucket, `${p.gcs_path}/images/`)).length).toBe(6); // each image and its sidecar
    await foreignUntouched();
    const res = await del([imgs[0].id, imgs[1].id, other.id]);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, deleted: 2, skipped_ids: [other.id], files_deleted: 6 });
    expect((await api(server.url, 'GET', `/api/v1/images/${other.id}`, { token: owner.token })).status).toBe(200);
    expect(await projectOf(p.id)).toMatchObject({ image_count: 1, total_size: imgs[2].file_size });
    const left = await keysUnder(server, bucket, `${p.gcs_path}/`);
    expect(left.filter((k) => k.includes('/images/') || k.includes('/thumbnails/')).sort()).toEqual(
      [`${p.gcs_path}/images/img2.png`, `${p.gcs_path}/images/img2.png.json`, `${p.gcs_path}/thumbnails/img2.png.webp`].sort(),
    );
    await foreignUntouched();
    expect((await api(server.url, 'DELETE', '/api/images/batch/delete', { token: stranger.token, body: { image_ids: [imgs[2].id], project_id: p.id } })).status).toBe(404);
  });
});
