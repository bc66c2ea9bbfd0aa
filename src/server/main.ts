// Entry point of `npm start`: reads the configuration, starts the server, and shuts down cleanly on
// SIGTERM / SIGINT (in-flight requests finish, then the database closes).
import { ConfigError, loadConfig } from './config';
import { buildApp } from './app';

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
  const built = await buildApp(config);
  const { app } = built;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
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
  await app.listen({ port: config.port, host: config.host });
  app.log.info(
    { url: config.publicUrl, database: built.ctx.database.kind, storage: built.ctx.storage.kind, auth: built.ctx.auth.mode, dataDir: config.dataDir },
    `Vellum is running at ${config.publicUrl}`,
  );
}

main().catch((err) => {
  console.error(err instanceof Error ? `Vellum failed to start: ${err.message}` : err);
  process.exit(1);
});
