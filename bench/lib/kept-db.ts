// A bench server on a kept PostgreSQL database: seeded once, reused by later runs (dataset --million
// / --keep-db, analytics).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { sql, type SQL } from 'drizzle-orm';
import { api, signUp, startServer } from '../../tests/api/harness';
import { rowsOf } from '../../src/server/services/annotations/store';
import { arg, type BenchServer } from './seed';

export interface KeptDbOptions {
  /** The database on the --pg (or DATABASE_URL) server: created when absent, dropped first with --reseed. */
  name: string;
  /** The bench user (signed up once, signed in again later) and its organization. */
  email: string;
  organizationName: string;
  organizationSlug: string;
  /** The seeded project's condition on `p` (projects) when the user exists already. */
  seededProject: SQL;
  /** The server's environment beyond DATABASE_URL. */
  env?: Record<string, string>;
}

/**
 * A server on the kept database, signed in as the bench's own user, and the project seeded there
 * before (null: a fresh database, seed it). The user is made once and signed in again later, so the
 * project and its rows survive from run to run. A user without a seeded project (a seeding that
 * stopped) is an error that says to --reseed.
 */
export async function keptServer(options: KeptDbOptions): Promise<{ bench: BenchServer; project: { id: string; gcs_path: string } | null }> {
  const { name, email } = options;
  const base = arg('pg') ?? process.env.DATABASE_URL;
  if (!base) throw new Error(`kept database ${name} needs PostgreSQL: --pg <url> or DATABASE_URL`);
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`--keep-db ${name}: lower-case letters, digits and _ only`);
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    if (process.argv.includes('--reseed')) await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    if ((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 0) await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vellum-bench-'));
  const server = await startServer({ ...options.env, DATABASE_URL: url.toString() }, dataDir);
  const stop = async () => {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  const password = 'correct horse battery';
  const signIn = await api(server.url, 'POST', '/auth/v1/token?grant_type=password', { body: { email, password }, headers: { apikey: server.built.ctx.auth.anonKey } });
  if (signIn.status === 200) {
    const [kept] = await rowsOf<{ id: string; gcs_path: string; org_id: string; slug: string; gcs_bucket_name: string }>(
      server.built.ctx.db,
      sql`SELECT p.id, p.gcs_path, o.id AS org_id, o.slug, o.gcs_bucket_name FROM projects p JOIN organizations o ON o.id = p.organization_id WHERE ${options.seededProject} ORDER BY p.created_at LIMIT 1`,
    );
    if (!kept) {
      await stop();
      throw new Error(`kept database ${name}: signed in but found no seeded project (run with --reseed)`);
    }
    const user = { email, password, token: signIn.body.access_token as string, refreshToken: signIn.body.refresh_token as string, userId: signIn.body.user.id as string, org: { id: kept.org_id, slug: kept.slug, gcs_bucket_name: kept.gcs_bucket_name } };
    return { bench: { server, user, stop }, project: { id: kept.id, gcs_path: kept.gcs_path } };
  }
  const signedUp = await signUp(server, { email, password });
  const onboarded = await api(server.url, 'POST', '/api/v1/users/onboarding', { token: signedUp.token, body: { full_name: 'Bench', organization_name: options.organizationName, organization_slug: options.organizationSlug } });
  if (onboarded.status !== 200) throw new Error(`onboarding: ${onboarded.status} ${JSON.stringify(onboarded.body)}`);
  const user = { ...signedUp, org: onboarded.body.organization as { id: string; slug: string; gcs_bucket_name: string } };
  return { bench: { server, user, stop }, project: null };
}
