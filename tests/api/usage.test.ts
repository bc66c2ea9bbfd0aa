// Usage calls: annotation usage records and the organization's summary (annotations by type per
// project, storage used by originals and thumbnails).
import { beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';

let server: TestServer;
let owner: Member;
let stranger: Member;

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
  stranger = await onboardedUser(server);
});

const record = (body: Record<string, unknown>, token = owner.token) => api(server.url, 'POST', '/api/v1/usage/annotation', { token, body });

describe('usage', () => {
  it('records annotations and sums them by type and project, with storage used', async () => {
    const p1 = await createProject(server, owner, 'First');
    const p2 = await createProject(server, owner, 'Second');
    const img = await uploadImage(server, owner, p1.id, 'u.png', await png(500, 400));
    const base = { organization_id: owner.org.id, project_id: p1.id };
    expect((await record({ ...base, image_id: img.id, annotation_type: 'bbox', annotation_count: 3 })).body).toMatchObject({ success: true, id: expect.any(Number) });
    expect((await record({ ...base, annotation_type: 'bbox' })).status).toBe(200); // count defaults to 1
    expect((await record({ ...base, annotation_type: 'polygon', annotation_count: 2 })).status).toBe(200);
    expect((await record({ organization_id: owner.org.id, project_id: p2.id, annotation_type: 'segmentation', annotation_count: 5 })).status).toBe(200);

    const summary = await api(server.url, 'GET', `/api/v1/usage/summary/${owner.org.id}`, { token: owner.token });
    expect(summary.status).toBe(200);
    expect(summary.body.annotations).toEqual({
      total: 11,
      by_type: { bbox: 4, polygon: 2, segmentation: 5 },
      by_project: [
        { project_id: p1.id, project_name: 'First', total: 6, by_type: { bbox: 4, polygon: 2 } },
        { project_id: p2.id, project_name: 'Second', total: 5, by_type: { segmentation: 5 } },
      ],
    });
    const storage = summary.body.storage;
    expect(storage.image_count).toBe(1);
    expect(storage.images_bytes).toBe(img.file_size);
    expect(storage.thumbnails_bytes).toBeGreaterThan(0);
    expect(storage.total_bytes).toBe(storage.images_bytes + storage.thumbnails_bytes);
    expect(storage.by_project).toEqual([
      { project_id: p1.id, project_name: 'First', image_count: 1, images_bytes: img.file_size, thumbnails_bytes: storage.thumbnails_bytes },
      { project_id: p2.id, project_name: 'Second', image_count: 0, images_bytes: 0, thumbnails_bytes: 0 },
    ]);
    const future = await api(server.url, 'GET', `/api/v1/usage/summary/${owner.org.id}?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, { token: owner.token });
    expect(future.body.annotations.total).toBe(0);
  });

  it('refuses bad input and other organizations\' ids', async () => {
    const p = await createProject(server, owner);
    const theirs = await createProject(server, stranger);
    const base = { organization_id: owner.org.id, project_id: p.id, annotation_type: 'bbox' };
    expect((await record({ ...base, annotation_type: 'circle' })).status).toBe(400);
    expect((await record({ ...base, annotation_count: 0 })).status).toBe(400);
    expect((await record({ ...base, annotation_count: 1.5 })).status).toBe(400);
    expect((await record({ ...base, organization_id: 'x' })).status).toBe(400);
    // A project of another organization, recorded against one's own: not found.
    expect((await record({ ...base, project_id: theirs.id })).status).toBe(404);
    // Another organization entirely: not found.
    expect((await record({ ...base, organization_id: stranger.org.id, project_id: theirs.id })).status).toBe(404);
    expect((await record({ ...base, image_id: '00000000-0000-4000-8000-000000000000' })).status).toBe(404);
    expect((await api(server.url, 'GET', `/api/v1/usage/summary/${owner.org.id}`, { token: stranger.token })).status).toBe(404);
    expect((await api(server.url, 'GET', `/api/v1/usage/summary/${owner.org.id}?since=yesterday`, { token: owner.token })).status).toBe(400);
    expect((await record(base, '')).status).toBe(401);
  });
});
