// Starts a real Vellum server for a test file: its own temporary DATA_DIR, a free port, and the
// database named by DATABASE_URL when set (CI runs the API suite on PGlite and on PostgreSQL).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../src/server/config';
import { buildApp, type BuiltApp } from '../../src/server/app';

export interface TestServer {
  url: string;
  config: Config;
  built: BuiltApp;
  stop(): Promise<void>;
}

export function tempDir(prefix = 'vellum-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A fresh database schema per server when running on PostgreSQL, so test files do not see each other's rows. */
async function isolatedDatabaseUrl(base: string): Promise<string> {
  const pg = await import('pg');
  const name = `vellum_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.default.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function startServer(env: Record<string, string> = {}, dataDir = tempDir()): Promise<TestServer> {
  const baseEnv: Record<string, string> = { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' };
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
  const built = await buildApp(config, { logger: false });
  await built.app.listen({ port, host: '127.0.0.1' });
  return { url, config, built, stop: () => built.close() };
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
