// Several processes starting at once on one empty PostgreSQL database (the api processes and the
// worker of a deployment): each opens it and migrates, and all of them start. CI once saw a worker
// fail with "duplicate key value violates unique constraint pg_type_typname_nsp_index": the
// bookkeeping table was created outside the advisory lock, and the lock was taken on one pooled
// connection while the migrations ran on others. PostgreSQL only (PGlite is one process).
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { freshPostgresDatabase } from './harness';
import { openDatabase } from '../../src/server/db/client';
import { migrationFiles } from '../../src/server/db/migrate';

describe.skipIf(!process.env.DATABASE_URL)('several processes migrating one empty PostgreSQL database at once', () => {
  it('all start, and each migration is applied once', { timeout: 120_000 }, async () => {
    const url = await freshPostgresDatabase(process.env.DATABASE_URL!, 'vellum_migrate_race');
    const opened = await Promise.allSettled(Array.from({ length: 4 }, () => openDatabase({ kind: 'postgres', url })));
    const failures = opened.filter((o) => o.status === 'rejected').map((o) => String((o as PromiseRejectedResult).reason));
    expect(failures).toEqual([]);
    const databases = opened.map((o) => (o as PromiseFulfilledResult<Awaited<ReturnType<typeof openDatabase>>>).value);
    try {
      const rows = (await databases[0]!.db.execute(sql`SELECT name FROM schema_migrations ORDER BY name`)) as unknown as { rows: { name: string }[] };
      expect(rows.rows.map((r) => r.name)).toEqual(migrationFiles());
      const locks = (await databases[0]!.db.execute(sql`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'`)) as unknown as { rows: { n: number }[] };
      expect(locks.rows[0]!.n).toBe(0);
    } finally {
      await Promise.all(databases.map((d) => d.close()));
    }
  });
});
