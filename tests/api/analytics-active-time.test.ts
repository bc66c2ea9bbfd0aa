// The active-time rule of the analytics rollups (0020_analytics.sql, docs/analytics.md "Active
// time"), on the database itself: change rows are inserted as the save path writes them, and the
// member-days the trigger keeps are read back. Gaps up to 5:00 count, longer ones are idle, the
// first save counts nothing, several saves in one statement (an import) chain, each project keeps
// its own clock, a save dated before the last one counted adds nothing, and the time lands on the
// later save's UTC day. On PGlite, and on a fresh PostgreSQL database when DATABASE_URL is set.
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresDatabase, tempDir } from './harness';
import { openDatabase, type Database } from '../../src/server/db/client';
import { rowsOf } from '../../src/server/services/annotations/store';

let database: Database;
const org = randomUUID();
const projects = [randomUUID(), randomUUID()] as const;
const images: Record<string, string> = {};
let version = 0;

beforeAll(async () => {
  const pgUrl = process.env.DATABASE_URL ? await freshPostgresDatabase(process.env.DATABASE_URL, 'vellum_analytics_active') : null;
  database = await openDatabase(pgUrl ? { kind: 'postgres', url: pgUrl } : { kind: 'pglite', dir: path.join(tempDir('vellum-analytics-active-'), 'db') });
  const db = database.db;
  await db.execute(sql`INSERT INTO organizations (id, name, slug) VALUES (${org}, 'Org', ${`org-${org.slice(0, 8)}`})`);
  for (const p of projects) {
    await db.execute(sql`INSERT INTO projects (id, organization_id, name, gcs_path) VALUES (${p}, ${org}, 'P', ${`p/${p}`})`);
    const img = randomUUID();
    images[p] = img;
    await db.execute(sql`INSERT INTO images (id, project_id, organization_id, filename, gcs_uri, gcs_path, mime_type) VALUES (${img}, ${p}, ${org}, 'a.png', 'gs://b/a.png', ${`p/${img}`}, 'image/png')`);
    await db.execute(sql`INSERT INTO annotation_documents (image_id, project_id) VALUES (${img}, ${p})`);
  }
}, 120_000);
afterAll(async () => {
  await database?.close();
});

/** One statement of change rows by `user` in `project`, one per time. */
async function saves(project: string, user: string, times: string[]) {
  const rows = times.map((t) => ({ v: ++version, t }));
  await database.db.execute(sql`
    INSERT INTO annotation_changes (image_id, version, user_id, created_at, upserts, removed_ids, before, added, changed, removed)
    SELECT ${images[project]}, r.v, ${user}, r.t::timestamptz, '[]'::json, '[]'::json, '[]'::json, 0, 0, 0
    FROM json_to_recordset(${JSON.stringify(rows)}::json) AS r(v int, t text)`);
}

/** The member's active seconds per UTC day in the project. */
async function activeSeconds(project: string, user: string): Promise<Record<string, number>> {
  const rows = await rowsOf<{ day: string; ms: string | number }>(
    database.db,
    sql`SELECT to_char(day, 'YYYY-MM-DD') AS day, active_ms AS ms FROM analytics_member_days WHERE project_id = ${project} AND user_id = ${user} AND active_ms > 0 ORDER BY day`,
  );
  return Object.fromEntries(rows.map((r) => [r.day, Number(r.ms) / 1000]));
}

describe('active time from save times', () => {
  it('counts gaps up to 5 minutes, exactly 5:00 included; longer gaps and the first save count nothing', async () => {
    const u = randomUUID();
    await saves(projects[0], u, ['2026-03-02T09:00:00Z']);
    await saves(projects[0], u, ['2026-03-02T09:03:00Z']); // 180
    await saves(projects[0], u, ['2026-03-02T09:08:00Z']); // 300: counted
    await saves(projects[0], u, ['2026-03-02T09:13:00.001Z']); // 300.001: idle
    await saves(projects[0], u, ['2026-03-02T09:14:00.001Z']); // 60
    expect(await activeSeconds(projects[0], u)).toEqual({ '2026-03-02': 540 });
  });

  it('chains the saves of one statement (an import) from the last save before it', async () => {
    const u = randomUUID();
    await saves(projects[0], u, ['2026-03-03T10:00:00Z']);
    await saves(projects[0], u, ['2026-03-03T10:01:00Z', '2026-03-03T10:02:30Z', '2026-03-03T10:20:00Z', '2026-03-03T10:21:00Z']);
    expect(await activeSeconds(projects[0], u)).toEqual({ '2026-03-03': 60 + 90 + 60 });
  });

  it('keeps a clock per project, adds nothing for a save dated before the last one, and counts on the later save\'s day', async () => {
    const u = randomUUID();
    await saves(projects[0], u, ['2026-03-04T23:58:00Z']);
    await saves(projects[1], u, ['2026-03-04T23:59:00Z']); // another project: its first save
    await saves(projects[0], u, ['2026-03-05T00:01:00Z']); // 180 s, on the 5th
    await saves(projects[0], u, ['2026-03-05T00:00:30Z']); // earlier than the last one counted: nothing
    await saves(projects[0], u, ['2026-03-05T00:02:00Z']); // 60 s after the latest
    expect(await activeSeconds(projects[0], u)).toEqual({ '2026-03-05': 240 });
    expect(await activeSeconds(projects[1], u)).toEqual({});
  });
});
