// Upgrading classes to tools (0016_class_tools.sql, issue 33 §3): a database built at migration
// 0015 holds classes of every type (one with attributes and keypoint names); after the upgrade each
// class keeps its type as its allowed tools (a polygon class also masks), everything else on it is
// unchanged, an empty class list stays empty, and the upgraded list saves back as it is. On
// PGlite, and on a fresh database of the PostgreSQL server when DATABASE_URL is set.
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

const OLD_CLASSES = [
  { name: 'car', type: 'box', color: '#F07575', attributes: [{ name: 'parked', kind: 'checkbox', default: false }] },
  { name: 'road', type: 'polygon', color: '#ACF6E7' },
  { name: 'lane', type: 'polyline', color: '#F075A6' },
  { name: 'person', type: 'keypoint', color: '#75F0A6', keypoints: ['nose', 'left_eye'] },
];

describe(`upgrading classes to tools (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('gives each class its type as its tools, a polygon class also masks, and changes nothing else', { timeout: 180_000 }, async () => {
    const dataDir = tempDir('vellum-class-tools-');
    const pgUrl = process.env.DATABASE_URL ? await freshPostgresDatabase(process.env.DATABASE_URL, 'vellum_class_tools') : null;
    const old = await connectDatabase(pgUrl ? { kind: 'postgres', url: pgUrl } : { kind: 'pglite', dir: path.join(dataDir, 'db') });
    await old.exec('CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const before = migrationFiles().filter((f) => f < '0016');
    expect(before.at(-1)).toMatch(/^0015_/);
    for (const file of before) await old.exec(`BEGIN;\n${fs.readFileSync(path.join(MIGRATIONS, file), 'utf8')}\nINSERT INTO schema_migrations (name) VALUES ('${file}');\nCOMMIT;`);

    const orgId = randomUUID();
    const [withClasses, empty] = [randomUUID(), randomUUID()];
    await old.db.execute(sql`INSERT INTO organizations (id, name, slug) VALUES (${orgId}, 'Old org', ${`old-${orgId.slice(0, 8)}`})`);
    await old.db.execute(sql`INSERT INTO projects (id, organization_id, name, gcs_path, classes) VALUES (${withClasses}, ${orgId}, 'Streets', 'old/streets', ${JSON.stringify(OLD_CLASSES)}::jsonb)`);
    await old.db.execute(sql`INSERT INTO projects (id, organization_id, name, gcs_path) VALUES (${empty}, ${orgId}, 'Empty', 'old/empty')`);
    await old.close();

    const server = await startServer(pgUrl ? { DATABASE_URL: pgUrl } : {}, dataDir);
    try {
      const applied = (await server.built.ctx.db.execute(sql`SELECT name FROM schema_migrations ORDER BY name`)) as unknown as { rows: { name: string }[] };
      expect(applied.rows.map((r) => r.name)).toContain('0016_class_tools.sql');
      const owner = await signUp(server);
      expect((await api(server.url, 'GET', '/api/v1/users/me', { token: owner.token })).status).toBe(200); // makes the profile
      await server.built.ctx.db.execute(sql`INSERT INTO organization_members (organization_id, user_id, role) VALUES (${orgId}, ${owner.userId}, 'owner')`);

      const upgraded = [
        { ...OLD_CLASSES[0], tools: ['box'] },
        { ...OLD_CLASSES[1], tools: ['polygon', 'mask'] },
        { ...OLD_CLASSES[2], tools: ['polyline'] },
        { ...OLD_CLASSES[3], tools: ['keypoint'] },
      ];
      const project = await api(server.url, 'GET', `/api/v1/projects/${withClasses}`, { token: owner.token });
      expect(project.status, JSON.stringify(project.body)).toBe(200);
      expect(project.body.project.classes).toEqual(upgraded);
      expect((await api(server.url, 'GET', `/api/v1/projects/${empty}`, { token: owner.token })).body.project.classes).toEqual([]);

      // The upgraded list is what the server itself would store: saved back unchanged, then widened.
      const again = await api(server.url, 'PATCH', `/api/v1/projects/${withClasses}`, { token: owner.token, body: { classes: upgraded } });
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(again.body.project.classes).toEqual(upgraded);
      const widened = await api(server.url, 'PATCH', `/api/v1/projects/${withClasses}`, { token: owner.token, body: { classes: [{ ...upgraded[0], tools: ['box', 'polygon'] }, ...upgraded.slice(1)] } });
      expect(widened.status).toBe(200);
      const { type: _type, ...carWithoutType } = upgraded[0]!;
      expect(widened.body.project.classes[0]).toEqual({ ...carWithoutType, tools: ['box', 'polygon'] });
    } finally {
      await server.stop();
    }
  });
});
