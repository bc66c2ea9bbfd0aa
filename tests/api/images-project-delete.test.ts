// Deleting a project (or its organization's data) with images in folders: the cascades and the
// per-folder stats triggers must let it through and leave nothing behind.
import { sql } from 'drizzle-orm';
import { beforeAll, expect, it } from 'vitest';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, png, uploadImage } from '../fixtures/datasets';

let server: TestServer;
beforeAll(async () => {
  server = await sharedServer();
});

it('deletes a project that holds images, and its per-folder counts go with them', async () => {
  const owner = await onboardedUser(server);
  const p = await createProject(server, owner);
  const keep = await createProject(server, owner);
  await api(server.url, 'POST', '/api/folders/create', { token: owner.token, body: { project_id: p.id, name: 'f' } });
  await uploadImage(server, owner, p.id, 'a.png', await png(4, 4));
  await uploadImage(server, owner, p.id, 'b.png', await png(4, 4), { folder: '/f' });
  await uploadImage(server, owner, keep.id, 'c.png', await png(4, 4));
  const res = await api(server.url, 'DELETE', `/api/v1/projects/${p.id}`, { token: owner.token });
  expect(res.body).toEqual({ success: true, message: 'Project deleted' });
  const stats = (await server.built.ctx.db.execute(sql`SELECT project_id::text AS project_id, image_count::int AS n FROM image_folder_stats`)) as unknown as { rows: { project_id: string; n: number }[] };
  expect(stats.rows.filter((r) => r.project_id === p.id)).toEqual([]);
  expect(stats.rows.filter((r) => r.project_id === keep.id)).toEqual([{ project_id: keep.id, n: 1 }]);
  expect((await api(server.url, 'GET', `/api/v1/projects/${keep.id}/images`, { token: owner.token })).body.pagination.totalItems).toBe(1);
});
