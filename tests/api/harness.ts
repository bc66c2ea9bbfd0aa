// Real Vellum servers for the API tests: the worker's shared one of the default configuration
// (sharedServer) or one of a file's own (startServer), each with its own temporary DATA_DIR, a
// free port, and the database named by DATABASE_URL when set (CI runs the API suite on PGlite and
// on PostgreSQL). tests/README.md says which a file should take.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../src/server/config';
import { buildApp, type BuiltApp } from '../../src/server/app';
import { openDatabase } from '../../src/server/db/client';
import { usePasswordCostForTests } from '../../src/server/auth/embedded/checks';
import { copyMigratedDatabase, schemaKey, TEST_SHARED_BUFFERS_MB } from '../support/pglite-template';
import { appendCpuLine } from '../support/cpu-log-line';
import { setSharedServerStop } from '../support/shared-server-end';
import type { Member } from '../fixtures/datasets';

export interface TestServer {
  url: string;
  config: Config;
  built: BuiltApp;
  stop(): Promise<void>;
}

export function tempDir(prefix = 'vellum-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * A data directory whose PGlite database is already migrated (a copy of the template), for a
 * server a test starts as a process of its own: creating and migrating the database would cost
 * that process about 5 s of CPU.
 */
export async function migratedDataDir(): Promise<string> {
  const dir = tempDir();
  const database = loadConfig({ DATA_DIR: dir }).database;
  if (database.kind === 'pglite') await copyMigratedDatabase(database.dir);
  return dir;
}

// Under vitest, passwords are hashed at a test cost (about 1 ms instead of 22 to hash, and to
// verify: every test signs up people of its own; docs/security.md). Benches import this harness
// too, outside vitest, and keep the real cost.
if (process.env.VITEST) usePasswordCostForTests();

let pgTemplate: Promise<string> | null = null;

/** A database made from one migrated template per schema, so migrations run once per suite on PostgreSQL too. */
async function postgresTemplate(base: string): Promise<string> {
  const pg = await import('pg');
  const name = `vellum_template_${schemaKey()}`;
  const admin = new pg.default.Client({ connectionString: base });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount) return name;
    const building = `${name}_${Math.random().toString(36).slice(2, 8)}`;
    await admin.query(`CREATE DATABASE ${building}`);
    const url = new URL(base);
    url.pathname = `/${building}`;
    const database = await openDatabase({ kind: 'postgres', url: url.toString() });
    await database.close();
    try {
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
    } catch {
      await admin.query(`DROP DATABASE IF EXISTS ${building}`); // another worker finished first
    }
    return name;
  } finally {
    await admin.end();
  }
}

/** An empty, unmigrated database on the PostgreSQL server at `base` (not the migrated template); returns its URL. */
export async function freshPostgresDatabase(base: string, prefix: string): Promise<string> {
  const pg = await import('pg');
  const name = `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.default.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A fresh database per server when running on PostgreSQL, so test files do not see each other's rows. */
async function isolatedDatabaseUrl(base: string): Promise<string> {
  const pg = await import('pg');
  pgTemplate ??= postgresTemplate(base);
  const template = await pgTemplate;
  const name = `vellum_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.default.Client({ connectionString: base });
  await admin.connect();
  try {
    // Copying fails while another session is connected to the template (another worker copying): try again.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
        break;
      } catch (err) {
        if (attempt >= 50 || !/being accessed by other users/.test((err as Error).message)) throw err;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** With VITEST_CPU_LOG set, a line per server start and stop with its CPU (tests/support/vitest-cpu-log.ts). */
function logServerCpu(what: string, since: NodeJS.CpuUsage, wallStart: number): void {
  const cpu = process.cpuUsage(since);
  appendCpuLine((cpu.user + cpu.system) / 1e6, (performance.now() - wallStart) / 1000, `[${what}]`);
}

/**
 * `beforeListen` may add routes of the test's own before the server starts taking requests. A
 * data directory the harness made (none given) is removed when the server stops: a run's
 * servers would otherwise hold gigabytes of copies, in memory when the run's directory is there
 * (tests/support/test-tmp.ts). A test that starts a server again on the same data passes its own
 * (`tempDir()`), which stays until the run ends.
 */
export async function startServer(env: Record<string, string> = {}, ownDataDir?: string, opts: { beforeListen?: (app: BuiltApp['app']) => void | Promise<void> } = {}): Promise<TestServer> {
  const [cpuStart, wallStart] = [process.cpuUsage(), performance.now()];
  const madeDir = ownDataDir === undefined;
  const dataDir = ownDataDir ?? tempDir();
  const baseEnv: Record<string, string> = { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', PGLITE_SHARED_BUFFERS_MB: TEST_SHARED_BUFFERS_MB };
  if (process.env.DATABASE_URL && !env.DATABASE_URL) baseEnv.DATABASE_URL = await isolatedDatabaseUrl(process.env.DATABASE_URL);
  // Bind first to learn the port, then build with PUBLIC_URL pointing at it (signed URLs and redirects need it).
  const net = await import('node:net');
  const port: number = await new Promise((resolve) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const p = (srv.address() as { port: number }).port;
      srv.close(() => resolve(p));
    });
  });
  const url = `http://127.0.0.1:${port}`;
  const config = loadConfig({ ...baseEnv, PORT: String(port), PUBLIC_URL: url, ...env });
  if (config.database.kind === 'pglite' && !fs.existsSync(config.database.dir)) await copyMigratedDatabase(config.database.dir);
  const built = await buildApp(config, { logger: false });
  await opts.beforeListen?.(built.app);
  await built.app.listen({ port, host: '127.0.0.1' });
  const stop = async () => {
    const [stopCpu, stopWall] = [process.cpuUsage(), performance.now()];
    await built.close();
    if (madeDir) fs.rmSync(dataDir, { recursive: true, force: true });
    logServerCpu('server stop', stopCpu, stopWall);
  };
  logServerCpu('server start', cpuStart, wallStart);
  return { url, config, built, stop };
}

/**
 * A second server process of `first`'s deployment: its PostgreSQL database, its storage directory
 * and its public address (so tokens the one signs the other accepts, with a shared
 * `SUPABASE_JWT_SECRET` in `env`). Either process may run a job the other queued, as two processes
 * behind one address do. PostgreSQL only: two PGlite servers cannot share one database.
 */
export async function anotherProcessOf(first: TestServer, env: Record<string, string> = {}): Promise<TestServer> {
  if (first.config.database.kind !== 'postgres') throw new Error('anotherProcessOf needs PostgreSQL (DATABASE_URL)');
  return startServer({ ...env, DATABASE_URL: first.config.database.url, PUBLIC_URL: first.url }, first.config.dataDir);
}

let shared: Promise<TestServer> | null = null;

/**
 * The worker's one server of the default configuration, started by the first file that asks and
 * left running for the next: vitest's `shared` project keeps this module, so this singleton,
 * across a worker's files (a file with a module graph of its own, as with VELLUM_TEST_ISOLATE=1,
 * gets one of its own, stopped at its end: tests/support/vitest-file-end.ts). It dies with
 * the worker, and its data directory with the run's temporary directory. A start is about 1.45 s
 * of CPU, a third of a small API file's.
 *
 * A file may take it when what it checks is about what it made: people from `uniqueEmail`
 * (signUp's default), random organization slugs, its own projects, images, jobs and counts;
 * `ctx.now` or `ctx.random` changed for a test and put back in a `finally`. A file starts its own
 * (`startServer`) when it needs a configuration, stops or restarts the server or reuses its
 * DATA_DIR, counts or sweeps anything server-wide and asserts on the count (organizations, jobs,
 * metrics, purged accounts), runs a job queue of its own, replaces a server function that another
 * file's leftover work could call first (the next `db.transaction`), or spends a per-address auth
 * limit on purpose. Only the sign-up limit per address is raised here: a worker's files all sign
 * up from 127.0.0.1. Its `stop` throws, so no file can take it from the files after it.
 */
export function sharedServer(): Promise<TestServer> {
  shared ??= startServer({ SIGN_UPS_PER_HOUR: '100000' }).then((server) => {
    // In a file with a module graph of its own this server is the file's: stopped at its end.
    setSharedServerStop(server.stop);
    return { ...server, stop: () => Promise.reject(new Error('the shared server outlives the file: use startServer() for a server of the file\'s own')) };
  });
  // A start that failed (a hook timeout under load) is tried again by the next file, not handed on.
  shared.catch(() => (shared = null));
  return shared;
}

/** fetch with JSON in and out; returns status and parsed body. */
export async function api<T = any>(base: string, method: string, path: string, opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<{ status: number; body: T; headers: Headers }> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  }
  const res = await fetch(`${base}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
}

let counter = 0;
export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}@example.com`;
}

/** Signs a new user up through the GoTrue endpoint, as supabase-js would, and returns their session. */
export async function signUp(server: TestServer, opts: { email?: string; password?: string; fullName?: string } = {}) {
  const email = opts.email ?? uniqueEmail();
  const password = opts.password ?? 'correct horse battery';
  const anonKey = server.built.ctx.auth.anonKey;
  const res = await api(server.url, 'POST', '/auth/v1/signup', { body: { email, password, data: { full_name: opts.fullName ?? 'Test User' } }, headers: { apikey: anonKey } });
  if (res.status !== 200 || !res.body.access_token) throw new Error(`sign-up failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { email, password, token: res.body.access_token as string, refreshToken: res.body.refresh_token as string, userId: res.body.user.id as string };
}

/** A signed-up user who has completed onboarding, with their organization. */
export async function onboardedUser(server: TestServer, slug = `org-${Math.random().toString(36).slice(2, 10)}`) {
  const user = await signUp(server);
  const res = await api(server.url, 'POST', '/api/v1/users/onboarding', { token: user.token, body: { full_name: 'Test User', organization_name: `Org ${slug}`, organization_slug: slug } });
  if (res.status !== 200) throw new Error(`onboarding failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { ...user, org: res.body.organization as { id: string; slug: string; gcs_bucket_name: string } };
}

/**
 * The usual start of an annotation test: an onboarded owner with a project (with `classes`, when
 * given) holding one uploaded PNG. Throws when a step is refused.
 */
export async function projectWithImage(server: TestServer, opts: { classes?: unknown[]; filename?: string; width?: number; height?: number } = {}) {
  // Loaded when called: the dataset fixtures import this file.
  const { createProject, png, uploadImage } = await import('../fixtures/datasets');
  const owner = await onboardedUser(server);
  const project = await createProject(server, owner);
  if (opts.classes) {
    const patch = await api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { classes: opts.classes } });
    if (patch.status !== 200) throw new Error(`setting classes failed: ${patch.status} ${JSON.stringify(patch.body)}`);
  }
  const image = await uploadImage(server, owner, project.id, opts.filename ?? 'image.png', await png(opts.width ?? 20, opts.height ?? 20));
  return { owner, project, image };
}

/** An image as the annotation routes name it. */
export type SaveImage = { id: string; filename: string };

/**
 * Saves of shapes on a project's images, for tests of the save routes: `at()` gives the server, the
 * owner (who uploads, and saves and loads by default) and the project, read at each call (a file
 * sets them in its beforeAll). The project has the class 'car'.
 */
export function annotationSaves(prefix: string, at: () => { server: TestServer; owner: Member; project: { id: string } }) {
  let images = 0;
  /** A box of class car, at `x`. */
  const box = (id: string, x = 1) => ({ id, name: 'car', bounding_box: { x, y: 2, w: 3, h: 4 }, attributes: [] });
  const changeBody = (img: SaveImage, base: number, upserts: unknown[], removed: string[] = []) => ({
    image_id: img.id,
    project_id: at().project.id,
    image_filename: img.filename,
    base_version: base,
    upserts,
    removed_ids: removed,
  });
  return {
    box,
    changeBody,
    /** A new image of the project, never saved: `<prefix><n>.png`, each of another size. */
    async newImage(): Promise<SaveImage> {
      images += 1;
      const n = images;
      // Loaded when called: the dataset fixtures import this file.
      const { png, uploadImage } = await import('../fixtures/datasets');
      const { server, owner, project } = at();
      const img = await uploadImage(server, owner, project.id, `${prefix}${n}.png`, await png(20 + n, 20));
      return { id: img.id, filename: img.filename };
    },
    saveChanges: (img: SaveImage, base: number, upserts: unknown[], removed: string[] = [], token = at().owner.token) =>
      api(at().server.url, 'POST', '/api/v1/annotations/save-changes', { token, body: changeBody(img, base, upserts, removed) }),
    load: async (img: SaveImage) => (await api(at().server.url, 'GET', `/api/v1/annotations/load-data/${img.id}?project_id=${at().project.id}`, { token: at().owner.token })).body,
  };
}
