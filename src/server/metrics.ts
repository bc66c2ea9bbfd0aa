// Prometheus metrics of one server process (docs/deploy.md "Metrics"), with prom-client: request
// durations by route pattern and status, the event loop, the job queue and its jobs, live sockets
// and the database pool. Each app has its own registry (tests build several apps in one process).
// GET /metrics is served with METRICS_TOKEN (a bearer token, on the main port) and/or on
// METRICS_PORT (a listener of its own); with neither it is not served at all.
import http from 'node:http';
import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AppContext } from './context';
import { apiError } from './errors';
import { listen, type Listening } from './listen';

/** How a claimed job ended in this process (the label of vellum_job_duration_seconds). */
export type JobOutcome = 'completed' | 'failed' | 'cancelled' | 'gave_up' | 'error' | 'handed_back' | 'lease_lost';
const FAILED: ReadonlySet<JobOutcome> = new Set(['failed', 'gave_up', 'error']);

export interface Metrics {
  readonly registry: Registry;
  /** A job this process ran ended (queue.ts). */
  jobEnded(kind: string, outcome: JobOutcome, seconds: number): void;
  /** A kind of job this process knows, so that its gauges read 0 rather than nothing while none is queued. */
  jobKind(kind: string): void;
  /** The text a scrape gets. */
  render(): Promise<string>;
}

interface QueueRow {
  kind: string;
  queued: number | string;
  running: number | string;
  oldest: number | string | null;
}

/**
 * Process CPU, memory, handles, GC, and the event loop's lag (nodejs_eventloop_lag_seconds and its
 * percentiles): one set per process, however many apps it builds (each set runs its own
 * event-loop monitor).
 */
let processMetrics: Registry | null = null;

/** The metrics of this app; `app` gives the request hooks and the live sockets. */
export function createMetrics(ctx: Pick<AppContext, 'db' | 'database' | 'log'>, app: FastifyInstance): Metrics {
  if (!processMetrics) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
  }
  const defaults = processMetrics;
  const registry = new Registry();

  const requests = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern (never the raw URL) and status.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    // The registered pattern (/api/v1/images/:id); a request no route matched gets one label, so a scanner cannot grow the series.
    const route = request.routeOptions.url ?? 'unmatched';
    requests.observe({ method: request.method, route, status_code: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });

  const kinds = new Set<string>();
  let queueRead: Promise<QueueRow[]> | null = null;
  /** One query per scrape for both queue gauges (prom-client collects every metric at once, so the second joins the first's). */
  const queueRows = () => {
    queueRead ??= readQueue(ctx).finally(() => (queueRead = null));
    return queueRead;
  };
  new Gauge({
    name: 'vellum_jobs',
    help: 'Jobs in the database queue by kind and status (queued: waiting for a worker; running: held by one). Shared by every process.',
    labelNames: ['kind', 'status'] as const,
    registers: [registry],
    async collect() {
      const rows = await queueRows();
      for (const r of rows) kinds.add(r.kind);
      this.reset();
      for (const kind of kinds) {
        const row = rows.find((r) => r.kind === kind);
        this.set({ kind, status: 'queued' }, Number(row?.queued ?? 0));
        this.set({ kind, status: 'running' }, Number(row?.running ?? 0));
      }
    },
  });
  new Gauge({
    name: 'vellum_job_oldest_queued_seconds',
    help: 'Age of the oldest queued job by kind (0 when none is queued).',
    labelNames: ['kind'] as const,
    registers: [registry],
    async collect() {
      const rows = await queueRows();
      this.reset();
      for (const kind of new Set([...kinds, ...rows.map((r) => r.kind)])) this.set({ kind }, Number(rows.find((r) => r.kind === kind)?.oldest ?? 0));
    },
  });
  const jobDurations = new Histogram({
    name: 'vellum_job_duration_seconds',
    help: 'Jobs run by this process, from claim to end, by kind and outcome.',
    labelNames: ['kind', 'outcome'] as const,
    buckets: [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600],
    registers: [registry],
  });
  const jobFailures = new Counter({
    name: 'vellum_job_failures_total',
    help: 'Jobs of this process that failed (failed: ended failed; error: threw, retried later; gave_up: past its attempts), by kind.',
    labelNames: ['kind', 'reason'] as const,
    registers: [registry],
  });

  new Gauge({
    name: 'vellum_live_sockets',
    help: 'Open live co-editing sockets on this process.',
    registers: [registry],
    collect() {
      this.set(app.websocketServer?.clients.size ?? 0);
    },
  });
  new Gauge({
    name: 'vellum_db_pool_connections',
    help: 'Database connections of this process by state (PostgreSQL: total, idle, waiting requests, max; PGlite: one in-process connection, total and max 1).',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [state, n] of Object.entries(poolUse(ctx))) this.set({ state }, n);
    },
  });

  return {
    registry,
    jobEnded(kind, outcome, seconds) {
      kinds.add(kind);
      jobDurations.observe({ kind, outcome }, seconds);
      if (FAILED.has(outcome)) jobFailures.inc({ kind, reason: outcome });
    },
    jobKind: (kind) => void kinds.add(kind),
    render: async () => (await defaults.metrics()) + (await registry.metrics()),
  };
}

async function readQueue(ctx: Pick<AppContext, 'db'>): Promise<QueueRow[]> {
  const res = (await ctx.db.execute(sql`
    SELECT kind, count(*) FILTER (WHERE status = 'queued') AS queued, count(*) FILTER (WHERE status = 'running') AS running,
      extract(epoch FROM now() - min(created_at) FILTER (WHERE status = 'queued'))::float8 AS oldest
    FROM jobs WHERE status IN ('queued', 'running') GROUP BY kind`)) as unknown as { rows: QueueRow[] };
  return res.rows;
}

/** The node-postgres pool's counts; PGlite is one connection inside this process. */
function poolUse(ctx: Pick<AppContext, 'db' | 'database'>): Record<string, number> {
  if (ctx.database.kind === 'pglite') return { total: 1, max: 1 };
  const pool = (ctx.db as unknown as { $client?: { totalCount: number; idleCount: number; waitingCount: number; options?: { max?: number } } }).$client;
  if (!pool) return {};
  return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options?.max ?? 10 };
}

function sameToken(given: string, expected: string): boolean {
  // Hashes first: equal lengths for timingSafeEqual, and no early exit on the length.
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** GET /metrics on the main port, for a scraper that sends `Authorization: Bearer <METRICS_TOKEN>` (401 otherwise). */
export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics, token: string): void {
  app.get('/metrics', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    const [scheme, given] = (request.headers.authorization ?? '').split(' ');
    if (scheme?.toLowerCase() !== 'bearer' || !given || !sameToken(given, token)) throw apiError('unauthorized', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>');
    return reply.type(metrics.registry.contentType).send(await metrics.render());
  });
}

/** A listener of its own on METRICS_PORT that answers GET /metrics only (with METRICS_TOKEN too, when set). */
export async function startMetricsServer(metrics: Metrics, host: string, port: number, token: string | null, log: AppContext['log']): Promise<Listening> {
  const server = http.createServer((req, res) => {
    const [scheme, given] = (req.headers.authorization ?? '').split(' ');
    const send = (status: number, type: string, body: string) => res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') return send(404, 'text/plain', 'Not found: this port serves GET /metrics only\n');
    if (token && (scheme?.toLowerCase() !== 'bearer' || !given || !sameToken(given, token))) return send(401, 'text/plain', 'Unauthorized: send Authorization: Bearer <METRICS_TOKEN>\n');
    metrics.render().then(
      (text) => send(200, metrics.registry.contentType, text),
      (err: unknown) => {
        log.error({ err }, 'metrics: collecting failed');
        send(500, 'text/plain', 'Collecting the metrics failed\n');
      },
    );
  });
  return listen(server, port, host);
}
