// Folder writes at once on PostgreSQL, made deterministic: a second connection holds a transaction
// open at the point a racing request would, and the test lets it commit while the request under
// test waits on its lock. Runs when DATABASE_URL names a PostgreSQL server (.ci/run's "API suite
// on PostgreSQL" stage); skipped otherwise, since PGlite runs one transaction at a time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, png, uploadImage } from '../fixtures/datasets';

const onPostgres = Boolean(process.env.DATABASE_URL);

describe.skipIf(!onPostgres)('folder writes at once on PostgreSQL', () => {
  let server: TestServer;
  let owner: Awaited<ReturnType<typeof onboardedUser>>;
  let other: pg.Client;

  beforeAll(async () => {
    server = await sharedServer();
    if (server.config.database.kind !== 'postgres') throw new Error('expected PostgreSQL');
    owner = await onboardedUser(server);
    other = new pg.Client({ connectionString: server.config.database.url });
    await other.connect();
  }, 120_000);
  afterAll(async () => {
    await other?.end();
  });

  const create = async (projectId: string, name: string, parent = '/') => {
    const res = await api(server.url, 'POST', '/api/folders/create', { token: owner.token, body: { project_id: projectId, name, parent_folder_path: parent } });
    expect(res.status).toBe(200);
    return res.body.folder as { id: string };
  };
  /** Resolves once some connection to the test's database waits on a lock (the request under test). */
  async function someoneWaitsOnALock() {
    for (let i = 0; i < 500; i++) {
      const { rows } = await other.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
      if (rows[0].n > 0) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('no request waited on a lock');
  }

  it('a rename of /A waiting on a folder moved into /A/T at once takes the moved folder and its images along', async () => {
    const p = await createProject(server, owner);
    const a = await create(p.id, 'A');
    const t = await create(p.id, 'T', '/A');
    const c = await create(p.id, 'c');
    await uploadImage(server, owner, p.id, 'in-c.png', await png(4, 4), { folder: '/c' });

    // What a move of /c into /A/T does, left uncommitted: it holds /A/T FOR SHARE and has moved the rows.
    await other.query('BEGIN');
    await other.query('SELECT id FROM folders WHERE id = $1 FOR SHARE', [t.id]);
    await other.query("UPDATE folders SET full_path = '/A/T/c', parent_folder_path = '/A/T', parent_folder_id = $1 WHERE id = $2", [t.id, c.id]);
    await other.query("UPDATE images SET virtual_folder_path = '/A/T/c' WHERE project_id = $1 AND virtual_folder_path = '/c'", [p.id]);

    const rename = api(server.url, 'PATCH', `/api/folders/${a.id}/name?name=B`, { token: owner.token });
    await someoneWaitsOnALock();
    await other.query('COMMIT');
    const renamed = await rename;
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ updated_folders: 3, updated_images: 1 });

    const tree = (await api(server.url, 'GET', `/api/folders/list/${p.id}`, { token: owner.token })).body;
    expect(tree.folders).toHaveLength(1);
    const b = tree.folders[0];
    expect(b).toMatchObject({ full_path: '/B', total_image_count: 1 });
    expect(b.children[0]).toMatchObject({ full_path: '/B/T', parent_folder_path: '/B', total_image_count: 1 });
    expect(b.children[0].children[0]).toMatchObject({ id: c.id, full_path: '/B/T/c', parent_folder_path: '/B/T', parent_folder_id: t.id, image_count: 1 });
    const listed = await api(server.url, 'GET', `/api/v1/projects/${p.id}/images?folder_path=${encodeURIComponent('/B/T/c')}`, { token: owner.token });
    expect(listed.body.images.map((i: { filename: string }) => i.filename)).toEqual(['in-c.png']);
  });
});
