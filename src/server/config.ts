// Configuration from the environment. Every setting is documented in README.md ("Configuration").
// A bad value stops start-up with one line that names it (see ConfigError).
import path from 'node:path';
import { isIP } from 'node:net';
import { parseS3StorageUrl } from './storage/s3-url';
import { SERVER_ROLES } from '../contract/system';
import { DEFAULT_LIST_TOTAL_CAP } from '../contract/images';

export class ConfigError extends Error {}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** Absolute origin the browser uses to reach this server (signed URLs, OAuth redirects). */
  publicUrl: string;
  logLevel: string;
  /** PGlite's shared_buffers in MB when set (PGLITE_SHARED_BUFFERS_MB); PGlite's own 128 MB otherwise. */
  database: { kind: 'pglite'; dir: string; sharedBuffersMb?: number } | { kind: 'postgres'; url: string };
  storage: { kind: 'local'; dir: string } | { kind: 's3'; url: string };
  auth:
    | { kind: 'embedded'; jwtSecret: string | null; siteUrl: string; smtpUrl: string | null; smtpFrom: string; signUpsPerHour: number }
    | { kind: 'supabase'; url: string; anonKey: string; jwtSecret: string | null; jwksUrl: string | null; serviceRoleKey: string | null };
  google: { clientId: string; clientSecret: string; issuer: string } | null;
  /** Where the built SPA lives; served with history fallback when present. */
  appDir: string;
  /** Magic Image Edit (README "Magic Image Edit"): which provider edits, and the job workers of this process. */
  imageEdit: ImageEditConfig;
  /** Dataset imports (README "Import"): the job workers of this process. */
  imports: JobWorkersConfig;
  /** Tile pyramids and the account purge (src/server/jobs/README.md): the job workers of this process. */
  jobs: { tiles: JobWorkersConfig; accountPurge: JobWorkersConfig & { intervalMs: number }; prelabel: JobWorkersConfig };
  /** Assisted segmentation (README "Assisted segmentation"): SEGMENTER, SAM2_MODEL_DIR, SEGMENTER_CACHE_MB. */
  segmentation: SegmentationConfig;
  /** Days the annotation change log keeps a version (ANNOTATION_HISTORY_DAYS; 0: forever). Older versions can no longer be looked at, restored or asked for as changes (410). */
  annotationHistoryDays: number;
  /** LIST_TOTAL_CAP: an images list whose total needs a count of the matching rows counts at most this many and says "N+" (pagination.totalCapped). */
  listTotalCap: number;
  /** Live co-editing (README "Live co-editing"): LIVE_RECHECK_MS, LIVE_PING_MS, LIVE_MAX_SOCKETS_PER_USER. */
  live: LiveConfig;
  /** TRUST_PROXY: the proxies whose X-Forwarded-For is believed (addresses or CIDRs); false: none, the socket's address is the client's. */
  trustProxy: false | string[];
  /** ROLE (docs/deploy.md): `all` serves requests and runs the background work, `api` only serves, `worker` only works (and answers health and metrics). */
  role: Role;
  /** GET /metrics (docs/deploy.md "Metrics"): METRICS_TOKEN, a bearer token on the main port, and/or METRICS_PORT, a port of its own; neither: not served. */
  metrics: { token: string | null; port: number | null };
  /** SHUTDOWN_DRAIN_SECONDS: after SIGTERM, how long the process keeps serving with /health/ready at 503 before it stops (a second signal ends the wait). */
  shutdownDrainMs: number;
  /** Models (docs/models.md): MODELS_ALLOW_PRIVATE_URLS lets an HTTP model live at a private, loopback or link-local address (refused by default: SSRF). */
  models?: { allowPrivateUrls: boolean };
}

export const ROLES = SERVER_ROLES;
export type Role = (typeof ROLES)[number];

/** Whether this process answers the product's requests (the API, identity, signed storage URLs, the SPA). */
export function servesRequests(role: Role): boolean {
  return role !== 'worker';
}

/** Whether this process runs the background work: the job workers and the timed sweeps (src/server/jobs/README.md). */
export function runsJobs(role: Role): boolean {
  return role !== 'api';
}

export interface LiveConfig {
  /** How often each open socket's credential and the read access to its images are checked again (at most 30 s). */
  recheckMs: number;
  /** How often each socket is pinged; one without a pong by the next ping is dropped (so within two of these: 8 s by default, under the issue's 10). */
  pingMs: number;
  /** Open sockets per user (or API key) on one server process. */
  maxSocketsPerUser: number;
}

export interface JobWorkersConfig {
  /** Jobs this process works at once; 0: this process only takes requests. */
  concurrency: number;
  /** A job's lease; a worker that stops renewing it (crash) loses the job to another after this long. */
  leaseMs: number;
  pollMs: number;
}

export interface SegmentationConfig {
  backend: 'builtin' | 'sam2';
  /** Directory with the SAM2 encoder and decoder ONNX files (services/segmentation/sam2.ts names them). */
  sam2ModelDir: string | null;
  /** Memory bound of the embedding cache. */
  cacheBytes: number;
}

export interface ImageEditConfig {
  provider: 'builtin' | 'remote';
  /** remote: the images-edit endpoint (multipart image + prompt in, image out). */
  url: string | null;
  apiKey: string | null;
  model: string | null;
  /** remote: per request. */
  timeoutMs: number;
  /** remote: extra attempts after a timeout, a network error, 429 or 5xx. */
  retries: number;
  /** remote: also send negative_prompt, num_inference_steps, guidance_scale, true_cfg_scale and seed. */
  sendParams: boolean;
  /** Jobs this process works at once; 0: this process only takes requests. */
  concurrency: number;
  /** A job's lease; a worker that stops renewing it (crash) loses the job to another after this long. */
  leaseMs: number;
  pollMs: number;
}

type Env = Record<string, string | undefined>;

function fail(name: string, why: string): never {
  throw new ConfigError(`Invalid configuration: ${name} ${why}`);
}

function url(env: Env, name: string, protocols: string[]): string | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    fail(name, `must be a URL (got "${raw}")`);
  }
  if (!protocols.includes(parsed.protocol)) fail(name, `must start with ${protocols.map((p) => `${p}//`).join(' or ')} (got "${raw}")`);
  return raw.replace(/\/+$/, '');
}

export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const portRaw = env.PORT?.trim() || '3000';
  if (!/^\d+$/.test(portRaw) || Number(portRaw) > 65535) fail('PORT', `must be a port number 0-65535 (got "${portRaw}")`);
  const port = Number(portRaw);
  const host = env.HOST?.trim() || '0.0.0.0';
  const dataDir = path.resolve(cwd, env.DATA_DIR?.trim() || '.vellum');
  const publicUrl = url(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${port}`;
  const logLevel = env.LOG_LEVEL?.trim() || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) fail('LOG_LEVEL', `must be one of fatal, error, warn, info, debug, trace, silent (got "${logLevel}")`);

  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const sharedBuffersMb = env.PGLITE_SHARED_BUFFERS_MB?.trim() ? integer(env, 'PGLITE_SHARED_BUFFERS_MB', 128, 1, 4096) : undefined;
  const database: Config['database'] = databaseUrl ? { kind: 'postgres', url: databaseUrl } : { kind: 'pglite', dir: path.join(dataDir, 'db'), ...(sharedBuffersMb ? { sharedBuffersMb } : {}) };

  const storageUrl = url(env, 'STORAGE_URL', ['s3:', 'file:']);
  if (storageUrl?.startsWith('s3:')) {
    try {
      parseS3StorageUrl(storageUrl, env);
    } catch (err) {
      fail('STORAGE_URL', (err as Error).message);
    }
  }
  const storage: Config['storage'] =
    storageUrl && storageUrl.startsWith('s3:')
      ? { kind: 's3', url: storageUrl }
      : { kind: 'local', dir: storageUrl ? new URL(storageUrl).pathname : path.join(dataDir, 'objects') };

  const supabaseUrl = url(env, 'SUPABASE_URL', ['http:', 'https:']);
  let auth: Config['auth'];
  if (supabaseUrl) {
    const anonKey = env.SUPABASE_ANON_KEY?.trim();
    if (!anonKey) fail('SUPABASE_ANON_KEY', 'is required when SUPABASE_URL is set');
    const jwtSecret = env.SUPABASE_JWT_SECRET?.trim() || null;
    const jwksUrl = url(env, 'SUPABASE_JWKS_URL', ['http:', 'https:']);
    if (!jwtSecret && !jwksUrl) fail('SUPABASE_JWT_SECRET', 'or SUPABASE_JWKS_URL is required when SUPABASE_URL is set');
    // Only needed to delete accounts through the hosted admin API.
    const serviceRoleKey = env.SUPABASE_SERVICE_ROLE_KEY?.trim() || null;
    auth = { kind: 'supabase', url: supabaseUrl, anonKey, jwtSecret, jwksUrl, serviceRoleKey };
  } else {
    const jwtSecret = env.SUPABASE_JWT_SECRET?.trim() || null;
    if (jwtSecret && jwtSecret.length < 32) fail('SUPABASE_JWT_SECRET', 'must be at least 32 characters');
    const smtpUrl = url(env, 'SMTP_URL', ['smtp:', 'smtps:']);
    // Sign-ups per client address an hour (auth/embedded/throttle.ts): raised for test servers, whose every user comes from 127.0.0.1.
    const signUpsPerHour = integer(env, 'SIGN_UPS_PER_HOUR', 100, 1, 100_000);
    auth = { kind: 'embedded', jwtSecret, siteUrl: publicUrl, smtpUrl, smtpFrom: env.SMTP_FROM?.trim() || 'Vellum <no-reply@localhost>', signUpsPerHour };
  }

  const googleId = env.GOOGLE_CLIENT_ID?.trim();
  const googleSecret = env.GOOGLE_CLIENT_SECRET?.trim();
  if (Boolean(googleId) !== Boolean(googleSecret)) fail(googleId ? 'GOOGLE_CLIENT_SECRET' : 'GOOGLE_CLIENT_ID', 'must be set together with the other Google setting');
  const google = googleId && googleSecret ? { clientId: googleId, clientSecret: googleSecret, issuer: url(env, 'GOOGLE_ISSUER', ['http:', 'https:']) ?? 'https://accounts.google.com' } : null;

  const appDir = path.resolve(cwd, env.APP_DIR?.trim() || 'dist/app');
  const imageEdit = imageEditConfig(env);
  const segmentation = segmentationConfig(env, cwd);
  const imports = {
    concurrency: integer(env, 'IMPORT_CONCURRENCY', 1, 0, 16),
    leaseMs: integer(env, 'IMPORT_LEASE_SECONDS', 60, 2, 3600) * 1000,
    pollMs: integer(env, 'IMPORT_POLL_MS', 30_000, 50, 60_000),
  };
  const annotationHistoryDays = integer(env, 'ANNOTATION_HISTORY_DAYS', 90, 0, 36_500);
  const listTotalCap = integer(env, 'LIST_TOTAL_CAP', DEFAULT_LIST_TOTAL_CAP, 1, 10_000_000);
  const jobs: Config['jobs'] = {
    tiles: workers(env, 'TILES', 1),
    accountPurge: { ...workers(env, 'ACCOUNT_PURGE', 1), intervalMs: integer(env, 'ACCOUNT_PURGE_INTERVAL_SECONDS', 3600, 1, 86_400) * 1000 },
    prelabel: workers(env, 'PRELABEL', 1),
  };
  const live: LiveConfig = {
    recheckMs: integer(env, 'LIVE_RECHECK_MS', 30_000, 100, 30_000),
    pingMs: integer(env, 'LIVE_PING_MS', 4_000, 100, 4_000),
    maxSocketsPerUser: integer(env, 'LIVE_MAX_SOCKETS_PER_USER', 20, 1, 1000),
  };
  const role = (env.ROLE?.trim().toLowerCase() || 'all') as Role;
  if (!ROLES.includes(role)) fail('ROLE', `must be one of ${ROLES.join(', ')} (got "${env.ROLE?.trim()}")`);
  return { port, host, dataDir, publicUrl, logLevel, database, storage, auth, google, appDir, imageEdit, imports, jobs, segmentation, annotationHistoryDays, listTotalCap, live, trustProxy: trustProxyOf(env), role, metrics: metricsConfig(env, port), shutdownDrainMs: integer(env, 'SHUTDOWN_DRAIN_SECONDS', 0, 0, 300) * 1000, models: modelsConfig(env) };
}

function metricsConfig(env: Env, port: number): Config['metrics'] {
  const token = env.METRICS_TOKEN?.trim() || null;
  // A short token is guessable; the scraper sends it on every request, so length costs nothing.
  if (token !== null && token.length < 16) fail('METRICS_TOKEN', 'must be at least 16 characters');
  const metricsPort = env.METRICS_PORT?.trim() ? integer(env, 'METRICS_PORT', 0, 0, 65535) : null;
  if (metricsPort !== null && metricsPort !== 0 && metricsPort === port) fail('METRICS_PORT', `must differ from PORT (both are ${port})`);
  return { token, port: metricsPort };
}

export function segmentationConfig(env: Env, cwd = process.cwd()): SegmentationConfig {
  const dir = env.SAM2_MODEL_DIR?.trim() || null;
  const backend = env.SEGMENTER?.trim().toLowerCase() || (dir ? 'sam2' : 'builtin');
  if (backend !== 'builtin' && backend !== 'sam2') fail('SEGMENTER', `must be builtin or sam2 (got "${backend}")`);
  if (backend === 'sam2' && !dir) fail('SAM2_MODEL_DIR', 'is required when SEGMENTER is sam2');
  const cacheBytes = integer(env, 'SEGMENTER_CACHE_MB', 1024, 16, 1_048_576) * 1024 * 1024;
  return { backend, sam2ModelDir: dir ? path.resolve(cwd, dir) : null, cacheBytes };
}

function modelsConfig(env: Env): { allowPrivateUrls: boolean } {
  const raw = env.MODELS_ALLOW_PRIVATE_URLS?.trim().toLowerCase() || 'false';
  if (!['true', 'false'].includes(raw)) fail('MODELS_ALLOW_PRIVATE_URLS', `must be true or false (got "${raw}")`);
  return { allowPrivateUrls: raw === 'true' };
}

/** TRUST_PROXY: unset, `false` or `0`: trust no proxy; else a comma-separated list of addresses or CIDRs (`10.0.0.0/8, ::1`). */
function trustProxyOf(env: Env): false | string[] {
  const raw = env.TRUST_PROXY?.trim();
  if (!raw || raw === 'false' || raw === '0') return false;
  const list = raw.split(',').map((s) => s.trim()).filter(Boolean);
  for (const entry of list) {
    const [addr, bits, extra] = entry.split('/');
    const family = isIP(addr ?? '');
    const maxBits = family === 6 ? 128 : 32;
    if (!family || extra !== undefined || (bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits))) {
      fail('TRUST_PROXY', `must be false or a comma-separated list of IP addresses or CIDRs (got "${entry}")`);
    }
  }
  return list;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) fail(name, `must be a whole number ${min}-${max} (got "${raw}")`);
  return Number(raw);
}

/** <PREFIX>_CONCURRENCY, <PREFIX>_LEASE_SECONDS (60) and <PREFIX>_POLL_MS (30000: the longest an idle worker sleeps; it is woken when there is work, jobs/queue.ts). */
function workers(env: Env, prefix: string, concurrency: number): JobWorkersConfig {
  return {
    concurrency: integer(env, `${prefix}_CONCURRENCY`, concurrency, 0, 64),
    leaseMs: integer(env, `${prefix}_LEASE_SECONDS`, 60, 2, 3600) * 1000,
    pollMs: integer(env, `${prefix}_POLL_MS`, 30_000, 50, 60_000),
  };
}

function imageEditConfig(env: Env): ImageEditConfig {
  const provider = env.IMAGE_EDIT_PROVIDER?.trim().toLowerCase() || 'builtin';
  if (provider !== 'builtin' && provider !== 'remote') fail('IMAGE_EDIT_PROVIDER', `must be builtin or remote (got "${provider}")`);
  const editUrl = url(env, 'IMAGE_EDIT_URL', ['http:', 'https:']);
  if (provider === 'remote' && !editUrl) fail('IMAGE_EDIT_URL', 'is required when IMAGE_EDIT_PROVIDER is remote');
  const sendParams = env.IMAGE_EDIT_SEND_PARAMS?.trim().toLowerCase() || 'true';
  if (!['true', 'false'].includes(sendParams)) fail('IMAGE_EDIT_SEND_PARAMS', `must be true or false (got "${sendParams}")`);
  return {
    provider,
    url: editUrl,
    apiKey: env.IMAGE_EDIT_API_KEY?.trim() || null,
    model: env.IMAGE_EDIT_MODEL?.trim() || null,
    timeoutMs: integer(env, 'IMAGE_EDIT_TIMEOUT_MS', 120_000, 100, 3_600_000),
    retries: integer(env, 'IMAGE_EDIT_RETRIES', 2, 0, 10),
    sendParams: sendParams === 'true',
    concurrency: integer(env, 'IMAGE_EDIT_CONCURRENCY', 1, 0, 64),
    leaseMs: integer(env, 'IMAGE_EDIT_LEASE_SECONDS', 60, 2, 3600) * 1000,
    pollMs: integer(env, 'IMAGE_EDIT_POLL_MS', 30_000, 50, 60_000),
  };
}
