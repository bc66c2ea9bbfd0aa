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
  /**
   * Runs `work` on one connection of its own, so session state (an advisory lock, BEGIN ... COMMIT
   * across calls) holds for all of it. On PostgreSQL the pool's other queries would each take any
   * connection; PGlite has only one.
   */
  session<T>(work: (session: Pick<Database, 'exec' | 'db'>) => Promise<T>): Promise<T>;
  /**
   * LISTEN on a channel: `onPayload` gets each NOTIFY's payload once its transaction commits (from
   * any process on PostgreSQL; PGlite is one process). PostgreSQL listens on a connection of its
   * own, opened again after a failure, and calls `onReconnect` then (notifications sent while it
   * was down are lost: the listener catches up). Returns the function that stops listening.
   */
  listen(channel: string, onPayload: (payload: string) => void, onReconnect?: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** Opens the database and brings its schema up to date (migrations, then data moves). */
export async function openDatabase(config: Config['database']): Promise<Database> {
  const database = await connectDatabase(config);
  await database.session((session) => migrate(session));
  return database;
}

/** Opens the database as it is, without migrating (tests that prepare an older layout). */
export async function connectDatabase(config: Config['database']): Promise<Database> {
  let database: Database;
  if (config.kind === 'pglite') {
    const { PGlite } = await import('@electric-sql/pglite');
    const { drizzle } = await import('drizzle-orm/pglite');
    fs.mkdirSync(config.dir, { recursive: true });
    // A start zeroes the whole buffer pool (in wasm, about 0.5 s of CPU for PGlite's 128 MB): a
    // smaller pool starts faster and holds less memory (the test servers take 16 MB).
    const startParams = config.sharedBuffersMb ? [...PGlite.defaultStartParams, '-c', `shared_buffers=${config.sharedBuffersMb}MB`] : undefined;
    const client = await PGlite.create(config.dir, startParams ? { startParams } : {});
    database = {
      kind: 'pglite',
      db: drizzle(client, { schema }) as unknown as Db,
      exec: async (sql) => void (await client.exec(sql)),
      session: (work) => work(database),
      listen: async (channel, onPayload) => {
        const stop = await client.listen(channel, onPayload);
        return async () => {
          if (!client.closed) await stop();
        };
      },
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
      session: async (work) => {
        const conn = await pool.connect();
        try {
          return await work({ db: drizzle(conn, { schema }) as unknown as Db, exec: async (sql) => void (await conn.query(sql)) });
        } finally {
          conn.release();
        }
      },
      listen: (channel, onPayload, onReconnect) => listenPostgres(pg.default, config.url, channel, onPayload, onReconnect),
      close: () => pool.end(),
    };
  }
  return database;
}

/** LISTEN on a dedicated connection, opened again (every second until it works) when it fails. */
async function listenPostgres(
  pg: typeof import('pg').default,
  url: string,
  channel: string,
  onPayload: (payload: string) => void,
  onReconnect?: () => void,
): Promise<() => Promise<void>> {
  let stopped = false;
  let client: import('pg').Client | null = null;
  let retry: NodeJS.Timeout | null = null;
  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url });
    c.on('notification', (n) => {
      if (n.channel === channel) onPayload(n.payload ?? '');
    });
    c.on('error', () => lost(c));
    c.on('end', () => lost(c));
    try {
      await c.connect();
      await c.query(`LISTEN "${channel.replace(/"/g, '""')}"`);
    } catch (err) {
      await c.end().catch(() => undefined);
      throw err;
    }
    if (stopped) await c.end().catch(() => undefined);
    else client = c;
  };
  const lost = (c: import('pg').Client) => {
    if (stopped || client !== c || retry) return;
    client = null;
    void c.end().catch(() => undefined);
    const again = () => {
      retry = null;
      if (stopped) return;
      connect().then(
        () => onReconnect?.(),
        () => {
          retry = setTimeout(again, 1000);
          retry.unref();
        },
      );
    };
    retry = setTimeout(again, 1000);
    retry.unref();
  };
  await connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    const c = client;
    client = null;
    await c?.end().catch(() => undefined);
  };
}
