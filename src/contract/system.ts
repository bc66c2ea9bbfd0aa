import { z } from 'zod';

export const HealthResponse = z.object({
  status: z.literal('ok'),
  database: z.enum(['pglite', 'postgres']),
  storage: z.enum(['local', 's3']),
  auth: z.enum(['embedded', 'supabase']),
});
export type HealthResponse = z.infer<typeof HealthResponse>;

/** ROLE of a server process (docs/deploy.md): `all` serves and works, `api` only serves, `worker` only works. */
export const SERVER_ROLES = ['all', 'api', 'worker'] as const;
const ServerRole = z.enum(SERVER_ROLES);

/** GET /api/v1/health/live: 200 while the process runs (docs/deploy.md "Health checks"). */
export const LiveResponse = z.object({ status: z.literal('live'), role: ServerRole });
export type LiveResponse = z.infer<typeof LiveResponse>;

/**
 * GET /api/v1/health/ready: 200 `ready` once migrations are done and the database and storage
 * answer; 503 `not_ready` (naming the checks that failed) otherwise, and while the process stops.
 */
export const ReadyResponse = z.object({
  status: z.enum(['ready', 'not_ready']),
  role: ServerRole,
  stopping: z.boolean(),
  checks: z.object({ database: z.enum(['ok', 'failed', 'skipped']), storage: z.enum(['ok', 'failed', 'skipped']) }),
});
export type ReadyResponse = z.infer<typeof ReadyResponse>;

export const ConfigResponse = z.object({
  supabaseUrl: z.string(),
  supabaseAnonKey: z.string(),
  authMode: z.enum(['embedded', 'supabase']),
  googleEnabled: z.boolean(),
});
export type ConfigResponse = z.infer<typeof ConfigResponse>;

export const ErrorResponse = z.object({ success: z.literal(false), error: z.string(), code: z.string() });
export type ErrorResponse = z.infer<typeof ErrorResponse>;
