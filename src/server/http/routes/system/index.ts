// Health (for load balancers and orchestrators, docs/deploy.md) and the SPA's configuration.
// The health routes are served by every role; /config only by processes that serve the product.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../../context';
import { servesRequests } from '../../../config';
import { ConfigResponse, HealthResponse, LiveResponse, ReadyResponse } from '../../../../contract/system';

/** A check that does not answer within this long counts as failed: a load balancer should not wait on a hung database. */
const CHECK_TIMEOUT_MS = 2000;
/** Answers are reused this long, so that many probes (or a flood of them) cost one check. */
const CHECK_REUSE_MS = 1000;
/** Any bucket name: only whether storage answers matters, not whether it exists. */
const PROBE_BUCKET = 'vellum-readiness-probe';

type Check = 'ok' | 'failed';

async function within(work: Promise<unknown>): Promise<Check> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Check>((resolve) => (timer = setTimeout(() => resolve('failed'), CHECK_TIMEOUT_MS)));
  try {
    return await Promise.race([work.then((): Check => 'ok', (): Check => 'failed'), late]);
  } finally {
    clearTimeout(timer);
  }
}

export const systemRoutes = (ctx: AppContext): FastifyPluginAsync => async (fastify) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const role = ctx.config.role;
  const tags = ['system'];
  const probe = { config: { public: true }, schema: { tags, security: [] } };

  app.get('/health', { ...probe, schema: { ...probe.schema, response: { 200: HealthResponse } } }, async () => ({
    status: 'ok' as const,
    database: ctx.database.kind,
    storage: ctx.storage.kind,
    auth: ctx.auth.mode,
  }));

  app.get('/health/live', { ...probe, schema: { ...probe.schema, summary: 'Liveness: 200 while the process runs', response: { 200: LiveResponse } } }, async () => ({ status: 'live' as const, role }));

  let last: { at: number; checks: Promise<ReadyResponse['checks']> } | null = null;
  const checks = () => {
    if (!last || performance.now() - last.at > CHECK_REUSE_MS) {
      const run = Promise.all([within(ctx.db.execute(sql`SELECT 1`)), within(ctx.storage.bucketExists(PROBE_BUCKET))]).then(([database, storage]) => ({ database, storage }));
      last = { at: performance.now(), checks: run };
    }
    return last.checks;
  };
  app.get(
    '/health/ready',
    { ...probe, schema: { ...probe.schema, summary: 'Readiness: 200 once migrations are done and the database and storage answer; 503 otherwise and while the process stops', response: { 200: ReadyResponse, 503: ReadyResponse } } },
    async (_request, reply) => {
      // Migrations ran before this app was built (db/client.ts openDatabase); main.ts answers 503 itself until then.
      const stopping = ctx.lifecycle?.stopping ?? false;
      const result = stopping ? { database: 'skipped' as const, storage: 'skipped' as const } : await checks();
      const ready = !stopping && result.database === 'ok' && result.storage === 'ok';
      return reply.code(ready ? 200 : 503).header('cache-control', 'no-store').send({ status: ready ? 'ready' : 'not_ready', role, stopping, checks: result });
    },
  );

  if (servesRequests(role)) {
    app.get('/config', { ...probe, schema: { ...probe.schema, response: { 200: ConfigResponse } } }, async () => ({
      supabaseUrl: ctx.auth.supabaseUrl,
      supabaseAnonKey: ctx.auth.anonKey,
      authMode: ctx.auth.mode,
      googleEnabled: ctx.config.google !== null,
    }));
  }
};
