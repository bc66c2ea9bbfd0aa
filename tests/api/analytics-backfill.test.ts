// Upgrading to the analytics rollups (0020_analytics.sql, issue 36): a database built at the
// migration before holds a change log and workflow events; after the upgrade the analytics answer
// counts them (shapes by class, active time, a submission accepted for its submitter, an issue) and
// the stage counts of past days. The people are former members (no profile): they are still
// counted. On PGlite, and on a fresh PostgreSQL database when DATABASE_URL is set.
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
const json = (v: unknown) => JSON.stringify(v);

describe(`upgrading to the analytics rollups (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('counts the existing change log and events', { timeout: 180_000 }, async () => {
    const dataDir = tempDir('vellum-analytics-upgrade-');
    const pgUrl = process.env.DATABASE_URL ? await freshPostgresDatabase(process.env.DATABASE_URL, 'vellum_analytics_upgrade') : null;
    const old = await connectDatabase(pgUrl ? { kind: 'postgres', url: pgUrl } : { kind: 'pglite', dir: path.join(dataDir, 'db') });
    await old.exec('CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    for (const file of migrationFiles().filter((f) => f < '0020')) {
      await old.exec(`BEGIN;\n${fs.readFileSync(path.join(MIGRATIONS, file), 'utf8')}\nINSERT INTO schema_migrations (name) VALUES ('${file}');\nCOMMIT;`);
    }
    const [orgId, projectId, i1, i2, u1, u2] = Array.from({ length: 6 }, () => randomUUID());
    const db = old.db;
    await db.execute(sql`INSERT INTO organizations (id, name, slug) VALUES (${orgId}, 'Old org', ${`old-${orgId.slice(0, 8)}`})`);
    await db.execute(sql`INSERT INTO projects (id, organization_id, name, gcs_path) VALUES (${projectId}, ${orgId}, 'Old project', 'old/project')`);
    const image = async (id: string, status: string, createdAt: string) => {
      await db.execute(sql`INSERT INTO images (id, project_id, organization_id, filename, gcs_uri, gcs_path, mime_type, status, created_at)
        VALUES (${id}, ${projectId}, ${orgId}, ${`${id}.png`}, ${`gs://b/${id}.png`}, ${`old/${id}.png`}, 'image/png', ${status}, ${createdAt})`);
      await db.execute(sql`INSERT INTO annotation_documents (image_id, project_id) VALUES (${id}, ${projectId})`);
    };
    await image(i1!, 'complete', '2025-03-03T08:00:00Z');
    await image(i2!, 'annotating', '2025-03-04T08:00:00Z');
    const change = (img: string, version: number, user: string, at: string, upserts: unknown[], before: unknown[], removed: string[], counts: [number, number, number]) =>
      db.execute(sql`INSERT INTO annotation_changes (image_id, version, user_id, created_at, upserts, removed_ids, before, added, changed, removed)
        VALUES (${img}, ${version}, ${user}, ${at}, ${json(upserts)}::json, ${json(removed)}::json, ${json(before)}::json, ${counts[0]}, ${counts[1]}, ${counts[2]})`);
    const a = { id: 'a', name: 'car', bounding_box: { x: 1, y: 1, w: 2, h: 2 } };
    const b = { id: 'b', name: 'car', bounding_box: { x: 5, y: 1, w: 2, h: 2 } };
    await change(i1!, 1, u1!, '2025-03-03T09:00:00Z', [a, b], [], [], [2, 0, 0]);
    await change(i1!, 2, u1!, '2025-03-03T09:02:00Z', [{ ...a, bounding_box: { x: 2, y: 1, w: 2, h: 2 } }], [a, b], ['b'], [0, 1, 1]);
    await change(i2!, 1, u2!, '2025-03-04T10:00:00Z', [{ id: 'c', name: 'dog', bounding_box: { x: 1, y: 1, w: 2, h: 2 } }], [], [], [1, 0, 0]);
    const event = (img: string, type: string, user: string, from: string | null, to: string, at: string) =>
      db.execute(sql`INSERT INTO image_events (image_id, type, user_id, from_value, to_value, created_at) VALUES (${img}, ${type}, ${user}, ${from}, ${to}, ${at})`);
    await event(i1!, 'status', u1!, 'new', 'annotating', '2025-03-03T09:10:00Z');
    await event(i1!, 'status', u1!, 'annotating', 'review', '2025-03-03T09:30:00Z');
    await event(i1!, 'status', u2!, 'review', 'complete', '2025-03-04T12:00:00Z');
    await event(i2!, 'issue', u1!, null, 'open', '2025-03-04T13:00:00Z');
    await old.close();

    const server = await startServer(pgUrl ? { DATABASE_URL: pgUrl } : {}, dataDir);
    try {
      const owner = await signUp(server);
      expect((await api(server.url, 'GET', '/api/v1/users/me', { token: owner.token })).status).toBe(200);
      await server.built.ctx.db.execute(sql`INSERT INTO organization_members (organization_id, user_id, role) VALUES (${orgId}, ${owner.userId}, 'owner')`);
      const res = await api<AnalyticsResponse>(server.url, 'GET', `/api/v1/projects/${projectId}/analytics?from=2025-03-03&to=2025-03-06`, { token: owner.token });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const byId = (id: string) => res.body.members.find((m) => m.user.id === id);
      expect(byId(u1!)).toEqual({
        user: { id: u1, name: 'Former member' },
        shapes_created: 2, shapes_edited: 1, shapes_deleted: 1, active_minutes: 2,
        images_submitted: 1, images_accepted: 1, images_rejected: 0, issues_opened: 1, issues_resolved: 0,
        by_class: { car: { shapes_created: 2, shapes_edited: 1, shapes_deleted: 1 } },
        gt: null,
        gt_by_class: {},
      });
      expect(byId(u2!)).toMatchObject({ shapes_created: 1, shapes_edited: 0, shapes_deleted: 0, active_minutes: 0, images_submitted: 0, images_accepted: 0, by_class: { dog: { shapes_created: 1, shapes_edited: 0, shapes_deleted: 0 } } });
      expect(res.body.buckets).toEqual([
        { start: '2025-03-03', stage_counts: { new: 0, annotating: 0, review: 1, complete: 0 } },
        { start: '2025-03-04', stage_counts: { new: 0, annotating: 1, review: 0, complete: 1 } },
        { start: '2025-03-05', stage_counts: { new: 0, annotating: 1, review: 0, complete: 1 } },
        { start: '2025-03-06', stage_counts: { new: 0, annotating: 1, review: 0, complete: 1 } },
      ]);
      // Before the images were made: nothing in any stage.
      const before = await api<AnalyticsResponse>(server.url, 'GET', `/api/v1/projects/${projectId}/analytics?from=2025-03-01&to=2025-03-02`, { token: owner.token });
      expect(before.body.buckets.map((bk) => bk.stage_counts)).toEqual([{ new: 0, annotating: 0, review: 0, complete: 0 }, { new: 0, annotating: 0, review: 0, complete: 0 }]);
    } finally {
      await server.stop();
    }
  });
});
