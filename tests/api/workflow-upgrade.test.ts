// Upgrading a database with images to the workflow schema (0009_workflow.sql, issue 29): a
// database built at migration 0008 holds images in every old stage; after the upgrade each keeps
// its status, nobody is assigned, no issue is open, the per-folder counts still answer, and the new
// review stage is accepted and sorts between annotating and complete. On PGlite, and on a fresh
// database of the PostgreSQL server when DATABASE_URL is set.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { api, freshPostgresDatabase, signUp, startServer, tempDir } from './harness';
import { connectDatabase } from '../../src/server/db/client';
import { migrationFiles } from '../../src/server/db/migrate';

const MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/server/db/migrations');

describe(`upgrading to the workflow schema (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('keeps every image and its status, with no assignments and no open issues', { timeout: 180_000 }, async () => {
    const dataDir = tempDir('vellum-wf-upgrade-');
    const pgUrl = process.env.DATABASE_URL ? await freshPostgresDatabase(process.env.DATABASE_URL, 'vellum_wf_upgrade') : null;
    const old = await connectDatabase(pgUrl ? { kind: 'postgres', url: pgUrl } : { kind: 'pglite', dir: path.join(dataDir, 'db') });
    await old.exec('CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const before = migrationFiles().filter((f) => f < '0009');
    expect(before.at(-1)).toMatch(/^0008_/);
    for (const file of before) await old.exec(`BEGIN;\n${fs.readFileSync(path.join(MIGRATIONS, file), 'utf8')}\nINSERT INTO schema_migrations (name) VALUES ('${file}');\nCOMMIT;`);

    const orgId = randomUUID();
    const projectId = randomUUID();
    await old.db.execute(sql`INSERT INTO organizations (id, name, slug) VALUES (${orgId}, 'Old org', ${`old-${orgId.slice(0, 8)}`})`);
    await old.db.execute(sql`INSERT INTO projects (id, organization_id, name, gcs_path) VALUES (${projectId}, ${orgId}, 'Old project', 'old/project')`);
    const stages = ['new', 'annotating', 'complete', 'annotating', 'new', 'complete', 'complete'];
    const ids: Record<string, string> = {};
    for (const [i, status] of stages.entries()) {
      const id = randomUUID();
      ids[`img-${i}.png`] = id;
      await old.db.execute(sql`INSERT INTO images (id, project_id, organization_id, filename, gcs_uri, gcs_path, mime_type, image_width, image_height, status, virtual_folder_path, created_at)
        VALUES (${id}, ${projectId}, ${orgId}, ${`img-${i}.png`}, ${`gs://b/img-${i}.png`}, ${`old/img-${i}.png`}, 'image/png', 40, 30, ${status}, ${i < 4 ? '/' : '/later'}, ${new Date(Date.UTC(2025, 0, 1 + i))})`);
    }
    await old.db.execute(sql`UPDATE projects SET image_count = ${stages.length}, completed_image_count = 3 WHERE id = ${projectId}`);
    await old.close();

    const server = await startServer(pgUrl ? { DATABASE_URL: pgUrl } : {}, dataDir);
    try {
      const applied = (await server.built.ctx.db.execute(sql`SELECT name FROM schema_migrations ORDER BY name`)) as unknown as { rows: { name: string }[] };
      expect(applied.rows.map((r) => r.name)).toContain('0009_workflow.sql');
      const owner = await signUp(server);
      expect((await api(server.url, 'GET', '/api/v1/users/me', { token: owner.token })).status).toBe(200); // makes the profile
      await server.built.ctx.db.execute(sql`INSERT INTO organization_members (organization_id, user_id, role) VALUES (${orgId}, ${owner.userId}, 'owner')`);
      const list = async (q: string) => {
        const res = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?limit=100&sort_by=filename&sort_order=asc${q}`, { token: owner.token });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return res.body as { images: { filename: string; status: string; assignee_id: null; reviewer_id: null; open_issues: number }[]; pagination: { totalItems: number } };
      };
      const all = await list('');
      expect(all.images.map((i) => [i.filename, i.status])).toEqual(stages.map((s, i) => [`img-${i}.png`, s]));
      for (const img of all.images) expect(img).toMatchObject({ assignee_id: null, reviewer_id: null, open_issues: 0 });
      // The trigger-kept folder counts answer the filtered totals as before.
      expect((await list('&status=complete')).pagination.totalItems).toBe(3);
      expect((await list('&status=annotating&folder_path=/')).pagination.totalItems).toBe(2);
      expect((await list('&assignee=none')).pagination.totalItems).toBe(stages.length);

      // The review stage is accepted and sorts between annotating and complete.
      const submitted = await api(server.url, 'POST', `/api/v1/images/${ids['img-1.png']}/submit`, { token: owner.token });
      expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
      expect(submitted.body.image.status).toBe('review');
      expect((await list('&status=review')).pagination.totalItems).toBe(1);
      const byStage = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?limit=100&sort_by=status&sort_order=asc`, { token: owner.token });
      expect(byStage.body.images.map((i: { status: string }) => i.status)).toEqual(['new', 'new', 'annotating', 'review', 'complete', 'complete', 'complete']);
      const project = await api(server.url, 'GET', `/api/v1/projects/${projectId}`, { token: owner.token });
      expect(project.body.project).toMatchObject({ image_count: stages.length, completed_image_count: 3 });
    } finally {
      await server.stop();
    }
  });
});
