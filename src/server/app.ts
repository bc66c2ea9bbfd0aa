// Builds the Fastify application: plugins, the auth guard, every route, the OpenAPI document and
// the SPA. main.ts starts it; tests build it with their own configuration.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import fastifyCompress from '@fastify/compress';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import fastifyWebsocket from '@fastify/websocket';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { servesRequests, type Config } from './config';
import { openDatabase } from './db/client';
import { createStorage } from './storage';
import { createAuth } from './auth';
import type { AppContext } from './context';
import { installErrorHandler } from './http/error-handler';
import { installAuthGuard } from './http/auth-guard';
import { registerRoutes } from './http/routes';
import { compressionOptions } from './http/compression';
import { staticCacheControl } from './http/static-assets';
import { installSecurityHeaders } from './http/security-headers';
import { LIVE_MAX_MESSAGE_BYTES } from '../contract/live';
import { createMetrics, registerMetricsRoute, startMetricsServer } from './metrics';
import { startBackgroundWork, type BackgroundWork } from './jobs/workers';

export interface BuiltApp {
  app: FastifyInstance;
  ctx: AppContext;
  /** The port of the METRICS_PORT listener (null without one); tests give METRICS_PORT=0 and read it here. */
  metricsPort: number | null;
  /** Stops taking requests, lets in-flight ones finish, then closes the database and storage. */
  close(): Promise<void>;
}

export async function buildApp(config: Config, opts: { logger?: boolean } = {}): Promise<BuiltApp> {
  const database = await openDatabase(config.database);
  const storage = await createStorage(config);
  const auth = await createAuth(config, database.db);
  const app = Fastify({
    logger:
      opts.logger === false
        ? false
        : {
            level: config.logLevel,
            // Signed-URL tokens are credentials: keep them out of the logs.
            serializers: { req: (req) => ({ method: req.method, url: req.url.replace(/([?&]token=)[^&]+/g, '$1[redacted]'), host: req.host, remoteAddress: req.ip }) },
          },
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,128}$/.test(given) ? given : randomUUID();
    },
    bodyLimit: 16 * 1024 * 1024,
    // Only the configured proxies' X-Forwarded-For is believed (TRUST_PROXY); by default the socket's address is the client's.
    trustProxy: config.trustProxy,
    return503OnClosing: true,
  });
  const ctx: AppContext = { config, database, db: database.db, storage, auth, log: app.log, lifecycle: { stopping: false } };
  // ROLE (docs/deploy.md): `worker` serves health and metrics only; `api` and `all` serve the product.
  const serving = servesRequests(config.role);
  const metrics = createMetrics(ctx, app);
  ctx.metrics = metrics;
  if (config.role !== 'all' && database.kind === 'pglite') {
    app.log.warn({ role: config.role }, 'ROLE is not "all" but the database is PGlite, which one process holds: no other process can share the work (set DATABASE_URL)');
  }
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installShutdownHooks(app);
  // nosniff, no framing, same-origin referrers, HSTS on https, and a Content-Security-Policy (http/security-headers.ts).
  installSecurityHeaders(app, config);

  installErrorHandler(app);

  // The SPA's files, before compression so that its hook never sees their routes: they were
  // compressed at build time and are served as they are asked for (http/static-assets.ts).
  const indexHtml = path.join(config.appDir, 'index.html');
  const hasApp = serving && fs.existsSync(indexHtml);
  if (hasApp) {
    await app.register(fastifyStatic, {
      root: config.appDir,
      wildcard: false,
      index: false,
      preCompressed: true,
      cacheControl: false,
      setHeaders: (reply, filePath) => reply.header('cache-control', staticCacheControl(config.appDir, filePath)),
    });
  }
  // Every route from here on: JSON and text of 1 KB or more, br or gzip (http/compression.ts).
  await app.register(fastifyCompress, compressionOptions);

  if (serving) await registerProductPlugins(app);
  installAuthGuard(app, auth, ctx);
  if (serving) {
    await auth.registerRoutes(app);
    await storage.registerRoutes(app);
  }
  await registerRoutes(app, ctx);
  if (config.metrics.token && config.metrics.port === null) registerMetricsRoute(app, metrics, config.metrics.token);

  app.setNotFoundHandler((request, reply) => {
    const url = request.url.split('?')[0];
    if (!serving || request.method !== 'GET' || url === '/metrics' || url.startsWith('/api/') || url.startsWith('/auth/') || url.startsWith('/storage/')) {
      return reply.status(404).send({ success: false, error: `Route ${request.method} ${url} not found`, code: 'not_found' });
    }
    if (!hasApp) return reply.status(503).type('text/plain').send('The app is not built yet: run `npm run build` (npm start does it for you).');
    return reply.type('text/html').sendFile('index.html'); // cache-control: no-cache, from setHeaders
  });

  // The job workers and sweeps this role runs (jobs/workers.ts), from ready to close; stopping
  // hands running jobs back before the database closes.
  let work: BackgroundWork | null = null;
  app.addHook('onReady', async () => {
    work = startBackgroundWork(ctx);
  });
  app.addHook('onClose', async () => {
    await work?.stop();
  });
  const metricsServer = config.metrics.port === null ? null : await startMetricsServer(metrics, config.host, config.metrics.port, config.metrics.token, app.log);

  let closed = false;
  return {
    app,
    ctx,
    metricsPort: metricsServer?.port ?? null,
    async close() {
      if (closed) return;
      closed = true;
      ctx.lifecycle!.stopping = true;
      await app.close();
      await metricsServer?.close();
      await auth.close();
      await storage.close();
      await database.close();
    },
  };
}

/**
 * The request id on every response, and connections that end once shutdown begins: Node closes
 * only the connections idle at that moment, so a keep-alive one that answers a request afterwards
 * would otherwise hold the process open for the whole keep-alive timeout.
 */
function installShutdownHooks(app: FastifyInstance): void {
  let shuttingDown = false;
  app.addHook('preClose', async () => {
    shuttingDown = true;
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (shuttingDown) reply.header('connection', 'close');
  });
  // A response whose headers went out before shutdown (a streamed export) leaves its socket idle
  // when it ends: close it then.
  app.addHook('onResponse', async () => {
    if (shuttingDown) setImmediate(() => app.server.closeIdleConnections());
  });
}

/** The OpenAPI document and viewer, and the live socket's WebSocket support: processes that serve the product only. */
async function registerProductPlugins(app: FastifyInstance): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      info: { title: 'Vellum API', description: 'The product API of Vellum. Authenticate with a bearer access token from /auth/v1.', version: '1.0.0' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/api/docs', uiConfig: { docExpansion: 'list' }, staticCSP: true });

  // WebSocket upgrades go through the router and its hooks; the one socket route is /api/v1/live
  // (http/routes/live). A frame larger than the live protocol's message limit closes with 1009.
  await app.register(fastifyWebsocket, { options: { maxPayload: LIVE_MAX_MESSAGE_BYTES } });
}
