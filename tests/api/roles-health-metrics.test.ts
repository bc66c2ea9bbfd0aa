// Issue 30 §4 in one process at a time (the several-process topology is multi-process.test.ts):
// ROLE (`api` enqueues and never works, `worker` works and answers only health and metrics), the
// health routes a load balancer probes, and GET /metrics with its protections.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import JSZip from 'jszip';
import { api, onboardedUser, sharedServer, startServer, tempDir, type TestServer } from './harness';
import { createProject, png } from '../fixtures/datasets';
import { startImport } from './support/imports';
import { LiveClient } from './support/live';
import { ConfigError, loadConfig } from '../../src/server/config';
import { createJobQueue, enqueueOnce } from '../../src/server/jobs/queue';
import { imports, jobs } from '../../src/server/db/schema';
import { TILES_JOB_KIND } from '../../src/server/services/tiles';
import { PURGE_JOB_KIND } from '../../src/server/services/account-purge';

const TOKEN = 'metrics-token-for-the-tests-0123456789';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `read` until `done` holds (at most `tries` × 100 ms); returns the last value read. */
async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, tries = 100): Promise<T> {
  let value = await read();
  for (let i = 0; i < tries && !done(value); i++) {
    await sleep(100);
    value = await read();
  }
  return value;
}

type Sample = { name: string; labels: Record<string, string>; value: number };
/** The samples of a Prometheus text exposition. */
function samples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}
/** The value of the one sample of `name` whose labels include `labels` (undefined when none). */
function valueOf(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  return samples(text).find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

async function scrape(url: string, token: string | null = TOKEN) {
  const res = await fetch(`${url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

async function cocoZip(): Promise<Buffer> {
  const zip = new JSZip();
  zip.file('annotations.json', JSON.stringify({ images: [{ id: 1, file_name: 'one.png', width: 20, height: 20 }], categories: [{ id: 1, name: 'car' }], annotations: [{ id: 1, image_id: 1, category_id: 1, bbox: [1, 1, 5, 5], area: 25, iscrowd: 0 }] }));
  zip.file('images/one.png', await png(20, 20));
  return zip.generateAsync({ type: 'nodebuffer' });
}

describe('ROLE', () => {
  it('a bad ROLE, METRICS_TOKEN or METRICS_PORT stops start-up with one line naming the setting', () => {
    const message = (env: Record<string, string>) => {
      try {
        loadConfig({ DATA_DIR: '/unused', ...env });
        return null;
      } catch (err) {
        return err instanceof ConfigError ? err.message : `not a ConfigError: ${String(err)}`;
      }
    };
    expect(message({ ROLE: 'both' })).toBe('Invalid configuration: ROLE must be one of all, api, worker (got "both")');
    expect(message({ METRICS_TOKEN: 'short' })).toMatch(/^Invalid configuration: METRICS_TOKEN must be at least 16 characters$/);
    expect(message({ METRICS_PORT: 'nine' })).toMatch(/^Invalid configuration: METRICS_PORT must be a whole number/);
    expect(message({ PORT: '4000', METRICS_PORT: '4000' })).toMatch(/^Invalid configuration: METRICS_PORT must differ from PORT/);
    expect(message({ SHUTDOWN_DRAIN_SECONDS: '-1' })).toMatch(/^Invalid configuration: SHUTDOWN_DRAIN_SECONDS/);
    expect(message({ PGLITE_SHARED_BUFFERS_MB: '0' })).toMatch(/^Invalid configuration: PGLITE_SHARED_BUFFERS_MB must be a whole number 1-4096/);
    expect(message({ PGLITE_SHARED_BUFFERS_MB: '16MB' })).toMatch(/^Invalid configuration: PGLITE_SHARED_BUFFERS_MB must be a whole number/);
    expect(loadConfig({ DATA_DIR: '/unused' }).role).toBe('all');
    expect(loadConfig({ DATA_DIR: '/unused', ROLE: ' Worker ' }).role).toBe('worker');
    expect(loadConfig({ DATA_DIR: '/unused' }).database).toEqual({ kind: 'pglite', dir: '/unused/db' });
    expect(loadConfig({ DATA_DIR: '/unused', PGLITE_SHARED_BUFFERS_MB: '16' }).database).toEqual({ kind: 'pglite', dir: '/unused/db', sharedBuffersMb: 16 });
  });

  it('a PGlite server runs with the buffer pool PGLITE_SHARED_BUFFERS_MB names (the harness asks for 16 MB)', async () => {
    const server = await sharedServer();
    if (server.config.database.kind !== 'pglite') return; // PostgreSQL keeps its own server's setting
    const rows = (await server.built.ctx.db.execute(sql`SHOW shared_buffers`)) as unknown as { rows: { shared_buffers: string }[] };
    expect(rows.rows[0]!.shared_buffers).toBe('16MB');
  });

  it('an api process queues an import and never runs it; a worker on the same data runs it and serves only health and metrics', async () => {
    const dataDir = tempDir();
    const apiServer = await startServer({ METRICS_TOKEN: TOKEN, ROLE: 'api' }, dataDir);
    let importId: string;
    let organizationId: string;
    // Jobs of the other kinds, for things that do not exist: a worker claims and ends them quickly.
    const others: string[] = [];
    const attemptsOf = async (server: TestServer) =>
      (await server.built.ctx.db.select({ id: jobs.id, attempts: jobs.attempts }).from(jobs).where(sql`${jobs.id} IN (${sql.join(others.map((id) => sql`${id}`), sql`, `)})`)).map((j) => j.attempts);
    try {
      for (const [kind, payload] of [
        [TILES_JOB_KIND, { image_id: crypto.randomUUID() }],
        [PURGE_JOB_KIND, { user_id: crypto.randomUUID() }],
      ] as const) {
        others.push((await enqueueOnce(apiServer.built.ctx, { kind, key: crypto.randomUUID(), payload })).id);
      }
      const owner = await onboardedUser(apiServer);
      organizationId = owner.org.id;
      const project = await createProject(apiServer, owner);
      importId = await startImport(apiServer, owner.token, project.id, 'one.zip', await cocoZip());
      // A second: a process that ran import workers would have claimed it at once (a queue hears the database announce a new job).
      await sleep(1000);
      expect((await api(apiServer.url, 'GET', `/api/v1/imports/${importId}`, { token: owner.token })).body.status).toBe('queued');
      expect(await attemptsOf(apiServer)).toEqual([0, 0]);
      const metrics = await scrape(apiServer.url);
      expect(valueOf(metrics.text, 'vellum_jobs', { kind: 'import', status: 'queued' })).toBe(1);
      expect(valueOf(metrics.text, 'vellum_jobs', { kind: 'import', status: 'running' })).toBe(0);
      // The api process serves the product: the SPA fallback (503 without a build), the docs, identity.
      expect((await api(apiServer.url, 'GET', '/api/v1/config')).status).toBe(200);
      expect((await api(apiServer.url, 'GET', '/api/docs/json')).status).toBe(200);
    } finally {
      await apiServer.stop();
    }

    const dbUrl: Record<string, string> = apiServer.config.database.kind === 'postgres' ? { DATABASE_URL: apiServer.config.database.url } : {};
    const worker = await startServer({ METRICS_TOKEN: TOKEN, ...dbUrl, ROLE: 'worker' }, dataDir);
    try {
      const row = await until(
        async () => (await worker.built.ctx.db.select().from(imports).where(sql`${imports.id} = ${importId}`))[0],
        (r) => r?.status === 'done' || r?.status === 'failed',
        300,
      );
      expect({ status: row?.status, error: row?.error }).toEqual({ status: 'done', error: null });
      expect(await until(() => attemptsOf(worker), (a) => a.every((n) => n >= 1))).toEqual([1, 1]);
      expect(row?.organizationId).toBe(organizationId);

      // Health and metrics only: every other route answers 404, the SPA included.
      expect((await api(worker.url, 'GET', '/api/v1/health/live')).body).toEqual({ status: 'live', role: 'worker' });
      expect((await api(worker.url, 'GET', '/api/v1/health/ready')).status).toBe(200);
      expect((await api(worker.url, 'GET', '/api/v1/health')).status).toBe(200);
      for (const [method, path] of [
        ['GET', '/api/v1/config'],
        ['GET', `/api/v1/imports/${importId}`],
        ['POST', '/api/v1/projects'],
        ['GET', '/api/v1/live'],
        ['GET', '/api/docs/json'],
        ['GET', '/auth/v1/settings'],
        ['POST', '/auth/v1/signup'],
        ['GET', '/'],
        ['GET', '/projects'],
      ] as const) {
        const res = await api(worker.url, method, path, { body: method === 'POST' ? {} : undefined });
        expect([path, res.status, res.body?.code]).toEqual([path, 404, 'not_found']);
      }
      const metrics = await scrape(worker.url);
      expect(metrics.status).toBe(200);
      expect(valueOf(metrics.text, 'vellum_job_duration_seconds_count', { kind: 'import', outcome: 'completed' })).toBe(1);
    } finally {
      await worker.stop();
    }
  }, 120_000);
});

// The health checks and the metrics that are off by default take the worker's server of the
// default configuration (harness.ts sharedServer); the rest need a configuration of their own.
describe('health', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await sharedServer();
  }, 60_000);

  it('live answers while the process runs; ready once the database and storage answer; /health as before', async () => {
    expect(await api(server.url, 'GET', '/api/v1/health/live')).toMatchObject({ status: 200, body: { status: 'live', role: 'all' } });
    const ready = await api(server.url, 'GET', '/api/v1/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', role: 'all', stopping: false, checks: { database: 'ok', storage: 'ok' } });
    expect(ready.headers.get('cache-control')).toBe('no-store');
    expect((await api(server.url, 'GET', '/api/v1/health')).body).toMatchObject({ status: 'ok', database: server.config.database.kind, storage: 'local' });
  });

  it('ready answers 503 naming the storage when the storage does not answer, while live stays 200', async () => {
    // An S3 endpoint where nothing listens (a port just freed).
    const net = await import('node:net');
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = 'unused';
    process.env.AWS_SECRET_ACCESS_KEY = 'unused';
    const dead = await startServer({ STORAGE_URL: `s3://nowhere?endpoint=http://127.0.0.1:${port}&region=us-east-1&forcePathStyle=true` });
    try {
      const ready = await api(dead.url, 'GET', '/api/v1/health/ready');
      expect({ status: ready.status, body: ready.body }).toEqual({ status: 503, body: { status: 'not_ready', role: 'all', stopping: false, checks: { database: 'ok', storage: 'failed' } } });
      expect((await api(dead.url, 'GET', '/api/v1/health/live')).status).toBe(200);
    } finally {
      await dead.stop();
      process.env.AWS_ACCESS_KEY_ID = saved.id;
      process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
      if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
      if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
    }
  }, 60_000);
});

describe('GET /metrics', () => {
  it('is not served when neither METRICS_TOKEN nor METRICS_PORT is set', async () => {
    const server = await sharedServer();
    expect((await scrape(server.url)).status).toBe(404);
    expect((await scrape(server.url, null)).status).toBe(404);
  }, 60_000);

  describe('with METRICS_TOKEN', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startServer({ METRICS_TOKEN: TOKEN });
    }, 60_000);
    afterAll(async () => server?.stop());

    it('answers 401 without the bearer token or with another one', async () => {
      for (const token of [null, 'metrics-token-for-the-tests-0123456780', '']) {
        const res = await scrape(server.url, token);
        expect(res.status).toBe(401);
        expect(JSON.parse(res.text)).toMatchObject({ success: false, code: 'unauthorized' });
      }
      const basic = await fetch(`${server.url}/metrics`, { headers: { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` } });
      expect(basic.status).toBe(401);
    });

    it('reports request durations by route pattern and status, never the raw URL', async () => {
      const owner = await onboardedUser(server);
      const project = await createProject(server, owner);
      expect((await api(server.url, 'GET', `/api/v1/projects/${project.id}`, { token: owner.token })).status).toBe(200);
      const missing = `/no-such-place-${Math.random().toString(36).slice(2)}`;
      expect((await api(server.url, 'POST', missing)).status).toBe(404);
      const res = await scrape(server.url);
      expect(res.status).toBe(200);
      expect(res.type).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(valueOf(res.text, 'http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/projects/:id', status_code: '200' })).toBe(1);
      expect(valueOf(res.text, 'http_request_duration_seconds_count', { method: 'POST', route: 'unmatched', status_code: '404' })).toBeGreaterThanOrEqual(1);
      expect(res.text).not.toContain(project.id);
      expect(res.text).not.toContain(missing);
      // The event loop: prom-client's lag gauge and its percentiles.
      expect(valueOf(res.text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
      expect(valueOf(res.text, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
    });

    it('reports the queue by kind (depth, oldest queued age) and the jobs this process ran (durations, failures)', async () => {
      const ctx = server.built.ctx;
      // A kind nobody works: its depth and the age of its oldest job.
      const { id: oldest } = await enqueueOnce(ctx, { kind: 'metrics_waiting', key: 'a', payload: {} });
      await enqueueOnce(ctx, { kind: 'metrics_waiting', key: 'b', payload: {} });
      await ctx.db.execute(sql`UPDATE jobs SET created_at = now() - interval '1 hour' WHERE id = ${oldest}`);
      let text = (await scrape(server.url)).text;
      expect(valueOf(text, 'vellum_jobs', { kind: 'metrics_waiting', status: 'queued' })).toBe(2);
      expect(valueOf(text, 'vellum_job_oldest_queued_seconds', { kind: 'metrics_waiting' })).toBeGreaterThanOrEqual(3600);
      expect(valueOf(text, 'vellum_job_oldest_queued_seconds', { kind: 'import' })).toBe(0);

      // A kind worked here: one job completes, one ends failed, one throws (retried later).
      const queue = createJobQueue(ctx, {
        kind: 'metrics_probe',
        concurrency: 3,
        pollMs: 50,
        leaseMs: 5000,
        maxAttempts: 3,
        async run(job) {
          if (job.payload.end === 'throw') throw new Error('probe failure');
          await queue.own(job.id, { status: job.payload.end === 'fail' ? 'failed' : 'completed', lockedBy: null, lockedUntil: null });
        },
        giveUp: async () => undefined,
      });
      for (const end of ['complete', 'fail', 'throw']) await enqueueOnce(ctx, { kind: 'metrics_probe', key: end, payload: { end } });
      queue.start();
      try {
        text = await until(
          async () => (await scrape(server.url)).text,
          (t) => valueOf(t, 'vellum_job_failures_total', { kind: 'metrics_probe', reason: 'error' }) === 1 && valueOf(t, 'vellum_job_duration_seconds_count', { kind: 'metrics_probe', outcome: 'completed' }) === 1,
        );
      } finally {
        await queue.stop();
      }
      expect(valueOf(text, 'vellum_job_duration_seconds_count', { kind: 'metrics_probe', outcome: 'completed' })).toBe(1);
      expect(valueOf(text, 'vellum_job_duration_seconds_count', { kind: 'metrics_probe', outcome: 'failed' })).toBe(1);
      expect(valueOf(text, 'vellum_job_duration_seconds_count', { kind: 'metrics_probe', outcome: 'error' })).toBe(1);
      expect(valueOf(text, 'vellum_job_failures_total', { kind: 'metrics_probe', reason: 'failed' })).toBe(1);
      expect(valueOf(text, 'vellum_job_failures_total', { kind: 'metrics_probe', reason: 'error' })).toBe(1);
      expect(valueOf(text, 'vellum_job_failures_total', { kind: 'metrics_probe', reason: 'gave_up' })).toBeUndefined();
    });

    it('reports the open live sockets and the database pool', async () => {
      const owner = await onboardedUser(server);
      const before = valueOf((await scrape(server.url)).text, 'vellum_live_sockets');
      const sockets = [await LiveClient.ready(server, owner.token), await LiveClient.ready(server, owner.token)];
      const text = (await scrape(server.url)).text;
      expect(valueOf(text, 'vellum_live_sockets')).toBe(before! + 2);
      for (const s of sockets) s.close();
      await Promise.all(sockets.map((s) => s.closed));
      const after = await until(
        async () => valueOf((await scrape(server.url)).text, 'vellum_live_sockets'),
        (n) => n === before,
      );
      expect(after).toBe(before);

      if (server.config.database.kind === 'postgres') {
        expect(valueOf(text, 'vellum_db_pool_connections', { state: 'max' })).toBe(10);
        expect(valueOf(text, 'vellum_db_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
        expect(valueOf(text, 'vellum_db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(0);
        expect(valueOf(text, 'vellum_db_pool_connections', { state: 'waiting' })).toBe(0);
      } else {
        expect(valueOf(text, 'vellum_db_pool_connections', { state: 'total' })).toBe(1);
        expect(valueOf(text, 'vellum_db_pool_connections', { state: 'max' })).toBe(1);
      }
    });
  });

  it('with METRICS_PORT: served on that port only (with the token too when both are set), and not on the main one', async () => {
    const open = await startServer({ METRICS_PORT: '0' });
    const guarded = await startServer({ METRICS_PORT: '0', METRICS_TOKEN: TOKEN });
    try {
      expect(open.built.metricsPort).toBeGreaterThan(0);
      const on = (s: TestServer) => `http://127.0.0.1:${s.built.metricsPort}`;
      const res = await scrape(on(open), null);
      expect(res.status).toBe(200);
      expect(valueOf(res.text, 'vellum_live_sockets')).toBe(0);
      expect((await scrape(open.url, null)).status).toBe(404);
      expect((await fetch(`${on(open)}/api/v1/health`)).status).toBe(404);

      expect((await scrape(on(guarded), null)).status).toBe(401);
      expect((await scrape(on(guarded), 'metrics-token-for-the-tests-wrong-one')).status).toBe(401);
      expect((await scrape(on(guarded))).status).toBe(200);
      expect((await scrape(guarded.url)).status).toBe(404);
    } finally {
      await open.stop();
      await guarded.stop();
    }
  });
});
