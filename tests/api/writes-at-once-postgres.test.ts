// Writes at once on PostgreSQL, made deterministic: a second connection holds a transaction
// open at the point a racing request would, and the test lets it commit while the request under
// test waits on its lock. Runs when DATABASE_URL names a PostgreSQL server (.ci/run's "API suite
// on PostgreSQL" stage); skipped otherwise, since PGlite runs one transaction at a time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, png, uploadImage } from '../fixtures/datasets';
import { joinAs } from './team-harness';

const onPostgres = Boolean(process.env.DATABASE_URL);

describe.skipIf(!onPostgres)('writes at once on PostgreSQL', () => {
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

  it('a role change waiting on an image a reviewer is rejecting lets the review open its issue, and both go through', async () => {
    const p = await createProject(server, owner);
    const image = await uploadImage(server, owner, p.id, 'held.png', await png(4, 4));
    const annotator = await joinAs(server, owner.token, owner.org.id, 'annotator');
    expect((await api(server.url, 'POST', '/api/v1/images/assign', { token: owner.token, body: { image_ids: [image.id], assignee_id: annotator.userId } })).status).toBe(200);
    expect((await api(server.url, 'GET', `/api/v1/images/${image.id}`, { token: owner.token })).body.image.assignee_id).toBe(annotator.userId);

    // What a rejection does, left uncommitted: its image row is locked, then it opens an issue
    // (here a usage record: any row that points at the organization takes FOR KEY SHARE on it).
    await other.query('BEGIN');
    await other.query('SELECT id FROM images WHERE id = $1 FOR UPDATE', [image.id]);
    const change = api(server.url, 'PATCH', `/api/v1/organizations/${owner.org.id}/members/${annotator.userId}`, { token: owner.token, body: { role: 'viewer' } });
    await someoneWaitsOnALock();
    // With the organization held FOR UPDATE by the role change, this insert waited on it while the
    // role change waited on the image: a deadlock, one of the two failed (the role change as a 500).
    // It must not wait on a lock at all (lock_timeout counts only time spent waiting on one).
    await other.query("SET LOCAL lock_timeout = '500ms'");
    await other.query("INSERT INTO usage_records (organization_id, project_id, image_id, annotation_type) VALUES ($1, $2, $3, 'box')", [owner.org.id, p.id, image.id]);
    await other.query('COMMIT');
    const changed = await change;
    expect(changed.status).toBe(200);
    expect(changed.body.member).toMatchObject({ role: 'viewer' });
    const after = await api(server.url, 'GET', `/api/v1/images/${image.id}`, { token: owner.token });
    // A viewer cannot annotate: the assignment was released.
    expect(after.body.image.assignee_id).toBeNull();
  });
});
