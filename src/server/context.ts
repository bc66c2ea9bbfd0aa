import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config';
import type { Database, Db } from './db/client';
import type { StorageDriver } from './storage/types';
import type { AuthProvider } from './auth/types';
import type { Metrics } from './metrics';

/** Everything a route or service needs, built once at start-up (see app.ts). */
export interface AppContext {
  config: Config;
  database: Database;
  db: Db;
  storage: StorageDriver;
  auth: AuthProvider;
  log: FastifyBaseLogger;
  /** The clock of time-based rules (invite expiry, account grace period); tests replace it. Default: real time. */
  now?: () => Date;
  /** The queue's draws (a ground-truth turn at gt_rate), uniform in [0, 1); tests put a seeded one. Default: Math.random. */
  random?: () => number;
  /** This process's Prometheus metrics (metrics.ts); absent in contexts built outside buildApp. */
  metrics?: Metrics;
  /** Set once the process begins to stop (SIGTERM, close()): /api/v1/health/ready answers 503 from then on. */
  lifecycle?: { stopping: boolean };
}
