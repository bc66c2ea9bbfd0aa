// Upgrading to consensus in the analytics (0026_consensus_analytics.sql, issue 36 §3): a database at
// the migration before holds overlapped images' drafts and events counted by 0020's rule (a submit
// for the last submitter only, the outcomes for them only, no draft shapes); after the upgrade each
// drafter counts a submit per round, every outcome, a draft still under way and the shapes in their
// draft. On PGlite, and on a fresh PostgreSQL database when DATABASE_URL is set.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { api, freshPostgresDatabase, signUp, startServer, tempDir } from './harness';
import { connectDatabase } from '../../src/server/db/client';
import { migrationFiles } from '../../src/server/db/migrate';
import type { AnalyticsResponse } from '../../src/contract/analytics';

const MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/server/db/migrations');
const car = (id: string) => ({ id, name: 'car', bounding_box: { x: 1, y: 1, w: 2, h: 2 } });

describe(`upgrading to consensus in the analytics (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('counts the overlapped images\' history for each drafter', { timeout: 180_000 }, async () => {
    const dataDir = tempDir('vellum-consensus-upgrade-');
    const pgUrl = process.env.DATABASE_URL ? await freshPostgresDatabase(process.env.DATABASE_URL, 'vellum_consensus_upgrade') : null;
    const old = await connectDatabase(pgUrl ? { kind: 'postgres', url: pgUrl } : { kind: 'pglite', dir: path.join(dataDir, 'db') });
    await old.exec('CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    for (const file of migrationFiles().filter((f) => f < '0026')) {
      await old.exec(`BEGIN;\n${fs.readFileSync(path.join(MIGRATIONS, file), 'utf8')}\nINSERT INTO schema_migrations (name) VALUES ('${file}');\nCOMMIT;`);
    }
    const [orgId, projectId, done, going, u1, u2, rev] = Array.from({ length: 7 }, () => randomUUID());
    const db = old.db;
    await db.execute(sql`INSERT INTO organizations (id, name, slug) VALUES (${orgId}, 'Old org', ${`old-${orgId.slice(0, 8)}`})`);
    await db.execute(sql`INSERT INTO projects (id, organization_id, name, gcs_path) VALUES (${projectId}, ${orgId}, 'Old project', 'old/project')`);
    for (const [id, status] of [[done, 'complete'], [going, 'annotating']] as const) {
      await db.execute(sql`INSERT INTO images (id, project_id, organization_id, filename, gcs_uri, gcs_path, mime_type, status, overlap, created_at)
        VALUES (${id}, ${projectId}, ${orgId}, ${`${id}.png`}, ${`gs://b/${id}.png`}, ${`old/${id}.png`}, 'image/png', ${status}, 2, '2025-03-03T08:00:00Z')`);
    }
    const draft = (image: string, user: string, annotations: unknown[], savedAt: string | null, submittedAt: string | null) =>
      db.execute(sql`INSERT INTO drafts (id, image_id, project_id, user_id, annotations, version, saved_at, submitted_at)
        VALUES (${randomUUID()}, ${image}, ${projectId}, ${user}, ${JSON.stringify(annotations)}::jsonb, 1, ${savedAt}, ${submittedAt})`);
    await draft(done!, u1!, [car('a'), car('b'), { ...car('c'), name: 'person' }], '2025-03-03T09:00:00Z', '2025-03-04T10:00:00Z');
    await draft(done!, u2!, [car('d')], '2025-03-03T09:30:00Z', '2025-03-04T09:00:00Z');
    await draft(going!, u1!, [car('e')], '2025-03-05T09:00:00Z', '2025-03-05T09:10:00Z');
    await draft(going!, u2!, [], null, null);
    const event = (from: string, to: string, user: string, at: string) =>
      db.execute(sql`INSERT INTO image_events (image_id, type, user_id, from_value, to_value, created_at) VALUES (${done}, 'status', ${user}, ${from}, ${to}, ${at})`);
    // Round 1 ends on the 3rd with u2's submit and is rejected on the 4th; round 2 ends on the 4th with u1's and is accepted on the 5th.
    await event('annotating', 'review', u2!, '2025-03-03T10:00:00Z');
    await event('review', 'annotating', rev!, '2025-03-04T08:00:00Z');
    await event('annotating', 'review', u1!, '2025-03-04T10:00:00Z');
    await event('review', 'complete', rev!, '2025-03-05T08:00:00Z');
    await old.close();

    const server = await startServer(pgUrl ? { DATABASE_URL: pgUrl } : {}, dataDir);
    try {
      const owner = await signUp(server);
      expect((await api(server.url, 'GET', '/api/v1/users/me', { token: owner.token })).status).toBe(200);
      await server.built.ctx.db.execute(sql`INSERT INTO organization_members (organization_id, user_id, role) VALUES (${orgId}, ${owner.userId}, 'owner')`);
      const range = async (from: string, to: string) => {
        const res = await api<AnalyticsResponse>(server.url, 'GET', `/api/v1/projects/${projectId}/analytics?from=${from}&to=${to}`, { token: owner.token });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return (id: string) => res.body.members.find((m) => m.user.id === id);
      };
      const all = await range('2025-03-03', '2025-03-05');
      expect(all(u1!)).toMatchObject({
        images_submitted: 3, images_accepted: 1, images_rejected: 1,
        shapes_created: 4, shapes_edited: 0, shapes_deleted: 0,
        by_class: { car: { shapes_created: 3, shapes_edited: 0, shapes_deleted: 0 }, person: { shapes_created: 1, shapes_edited: 0, shapes_deleted: 0 } },
      });
      expect(all(u2!)).toMatchObject({ images_submitted: 2, images_accepted: 1, images_rejected: 1, shapes_created: 1 });
      expect(all(rev!)).toBeUndefined();
      // Each round's submits on the day it ended, the outcomes on their days, the round under way on its submit's day.
      const third = await range('2025-03-03', '2025-03-03');
      expect(third(u1!)).toMatchObject({ images_submitted: 1, images_rejected: 0, shapes_created: 3 });
      expect(third(u2!)).toMatchObject({ images_submitted: 1, images_rejected: 0, shapes_created: 1 });
      const fourth = await range('2025-03-04', '2025-03-04');
      expect(fourth(u1!)).toMatchObject({ images_submitted: 1, images_rejected: 1, images_accepted: 0 });
      expect(fourth(u2!)).toMatchObject({ images_submitted: 1, images_rejected: 1, images_accepted: 0 });
      const fifth = await range('2025-03-05', '2025-03-05');
      expect(fifth(u1!)).toMatchObject({ images_submitted: 1, images_accepted: 1, shapes_created: 1 });
      expect(fifth(u2!)).toMatchObject({ images_submitted: 0, images_accepted: 1, shapes_created: 0 });
    } finally {
      await server.stop();
    }
  });
});
