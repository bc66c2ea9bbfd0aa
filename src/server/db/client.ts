// Opens the database named by the configuration: PGlite in DATA_DIR by default, PostgreSQL
// with DATABASE_URL. Both speak the same SQL and the same drizzle API.
import fs from 'node:fs';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import * as schema from './schema';
import type { Config } from '../config';
import { migrate } from './migrate';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
/** A transaction of Db, and either: what helpers that run inside or outside a transaction take. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type Exec = Db | Tx;

export interface Database {
  kind: 'pglite' | 'postgres';
  db: Db;
  /** Runs raw SQL text (several statements allowed); used by migrations. */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

/** Opens the database and brings its schema up to date (migrations, then data moves). */
export async function openDatabase(config: Config['database']): Promise<Database> {
  const database = await connectDatabase(config);
  await migrate(database);
  return database;
}

/** Opens the database as it is, without migrating (tests that prepare an older layout). */
export async function connectDatabase(config: Config['database']): Promise<Database> {
  let database: Database;
  if (config.kind === 'pglite') {
    const { PGlite } = await import('@electric-sql/pglite');
    const { drizzle } = await import('drizzle-orm/pglite');
    fs.mkdirSync(config.dir, { recursive: true });
    const client = await PGlite.create(config.dir);
    database = {
      kind: 'pglite',
      db: drizzle(client, { schema }) as unknown as Db,
      exec: async (sql) => void (await client.exec(sql)),
      close: () => client.close(),
    };
  } else {
    const pg = await import('pg');
    const { drizzle } = await import('drizzle-orm/node-postgres');
    // bigint columns (counts, sizes) fit in a JS number for our ranges.
    pg.default.types.setTypeParser(20, (v: string) => Number(v));
    const pool = new pg.default.Pool({ connectionString: config.url, max: 10 });
    await pool.query('SELECT 1');
    database = {
      kind: 'postgres',
      db: drizzle(pool, { schema }) as unknown as Db,
      exec: async (sql) => void (await pool.query(sql)),
      close: () => pool.end(),
    };
  }
  return database;
}
