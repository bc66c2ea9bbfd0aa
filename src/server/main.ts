// Entry point of `npm start`: reads the configuration, starts the server, and shuts down cleanly on
// SIGTERM / SIGINT (in-flight requests finish, then the database closes).
//
// The port answers from the first moment: while the app loads and the database opens and migrates, a small listener
// says the process is live (/api/v1/health/live 200) and not ready (/api/v1/health/ready 503, the
// rest 503 too); then the app takes the port over. On SIGTERM, /health/ready answers 503 at once,
// the app keeps serving for SHUTDOWN_DRAIN_SECONDS (so a load balancer stops sending it requests),
// then stops; a second signal skips the rest of that wait.
import http from 'node:http';
import { ConfigError, loadConfig, type Config } from './config';
import { listen, type Listening } from './listen';

/** Answers health while the app is built; returns the port it holds and a close that frees it. */
async function listenWhileStarting(config: Config): Promise<Listening> {
  const server = http.createServer((req, res) => {
    const url = req.url?.split('?')[0];
    const live = url === '/api/v1/health/live';
    const body = live
      ? { status: 'live', role: config.role }
      : url === '/api/v1/health/ready'
        ? { status: 'not_ready', role: config.role, stopping: false, checks: { database: 'skipped', storage: 'skipped' } }
        : { success: false, error: 'The server is starting (database migrations); try again shortly', code: 'unavailable' };
    res.writeHead(live ? 200 : 503, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', connection: 'close', ...(live ? {} : { 'retry-after': '2' }) });
    res.end(JSON.stringify(body));
  });
  return listen(server, config.port, config.host);
}

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(78);
    }
    throw err;
  }
  const starting = await listenWhileStarting(config);
  // The app (routes, services, formats, models...) is loaded only now: a wrong setting is said
  // without loading it, and the port answers health while it loads.
  const { buildApp } = await import('./app');
  const built = await buildApp(config).catch(async (err: unknown) => {
    await starting.close();
    throw err;
  });
  const { app } = built;
  let stopping = false;
  let endDrain: (() => void) | null = null;
  const stop = async (signal: string) => {
    if (stopping) {
      endDrain?.();
      return;
    }
    stopping = true;
    built.ctx.lifecycle!.stopping = true;
    app.log.info({ signal, drainMs: config.shutdownDrainMs }, 'shutting down');
    if (config.shutdownDrainMs > 0) {
      await new Promise<void>((resolve) => {
        endDrain = resolve;
        setTimeout(resolve, config.shutdownDrainMs).unref();
      });
    }
    const force = setTimeout(() => {
      app.log.error('shutdown took too long, exiting');
      process.exit(1);
    }, 15_000);
    force.unref();
    try {
      await built.close();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  await app.ready();
  await starting.close();
  await app.listen({ port: starting.port, host: config.host });
  app.log.info(
    { url: config.publicUrl, role: config.role, database: built.ctx.database.kind, storage: built.ctx.storage.kind, auth: built.ctx.auth.mode, dataDir: config.dataDir, metricsPort: built.metricsPort },
    `Vellum is running at ${config.publicUrl}`,
  );
}

main().catch((err) => {
  console.error(err instanceof Error ? `Vellum failed to start: ${err.message}` : err);
  process.exit(1);
});
