// Applies the numbered SQL files in ./migrations that the database has not seen, each in its own
// transaction, recording them in schema_migrations. An advisory lock keeps two starting processes
// from migrating at once: it is a session lock, so the caller gives one connection
// (Database.session), and even the first CREATE TABLE waits for it (two concurrent
// CREATE TABLE IF NOT EXISTS race on pg_type and one fails). After the SQL files, documents of the old annotation layout move into rows
// (annotation-rows.ts), in batches that survive an interruption.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from './client';
import { moveDocumentsToRows } from './annotation-rows';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

export function migrationFiles(): string[] {
  return fs.readdirSync(dir).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
}

/** `afterMoveBatch`: see moveDocumentsToRows (tests interrupt the data move with it). */
export async function migrate(database: Pick<Database, 'exec' | 'db'>, afterMoveBatch?: (batch: number) => void | Promise<void>): Promise<string[]> {
  const { sql } = await import('drizzle-orm');
  const applied: string[] = [];
  await database.exec('SELECT pg_advisory_lock(7242001)');
  try {
    await database.exec('CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const rows = (await database.db.execute(sql`SELECT name FROM schema_migrations`)) as unknown as { rows: { name: string }[] };
    const done = new Set(rows.rows.map((r) => r.name));
    for (const file of migrationFiles()) {
      if (done.has(file)) continue;
      const body = fs.readFileSync(path.join(dir, file), 'utf8');
      const name = file.replace(/'/g, "''");
      await database.exec(`BEGIN;\n${body}\nINSERT INTO schema_migrations (name) VALUES ('${name}');\nCOMMIT;`);
      applied.push(file);
    }
    // Data moves that go in batches rather than in one migration's transaction.
    await moveDocumentsToRows(database, afterMoveBatch);
  } catch (err) {
    await database.exec('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await database.exec('SELECT pg_advisory_unlock(7242001)');
  }
  return applied;
}
