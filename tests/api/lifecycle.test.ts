// The server as an operator runs it: `node --import tsx src/server/main.ts`, configured from the
// environment, stopped with SIGTERM or SIGINT, started again on the same data.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { api, tempDir } from './harness';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function waitForHealth(url: string, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      const res = await fetch(`${url}/api/v1/health`);
      if (res.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('server did not become healthy');
}

describe('server lifecycle', () => {
  it.each([
    [{ PORT: 'eighty' }, /^Invalid configuration: PORT must be a port number/],
    [{ DATABASE_URL: 'mysql://x' }, /^Invalid configuration: DATABASE_URL must start with postgres:\/\//],
    [{ SUPABASE_URL: 'https://x.supabase.co' }, /^Invalid configuration: SUPABASE_ANON_KEY is required/],
    [{ LOG_LEVEL: 'loud' }, /^Invalid configuration: LOG_LEVEL/],
  ])('refuses to start with %j and says which setting is wrong in one line', async (env, message) => {
    const proc = run({ DATA_DIR: tempDir(), ...env });
    const code = await proc.exited;
    expect(code).not.toBe(0);
    const lines = proc.err().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('finishes in-flight work on %s, exits 0, and starts again with the data intact', async (signal) => {
    const dataDir = tempDir();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = { DATA_DIR: dataDir, PORT: String(port), PUBLIC_URL: url };
    const first = run(env);
    await waitForHealth(url);
    const config = await api(url, 'GET', '/api/v1/config');
    const signup = await api(url, 'POST', '/auth/v1/signup', { body: { email: `life-${signal.toLowerCase()}@example.com`, password: 'long enough', data: { full_name: 'L' } }, headers: { apikey: config.body.supabaseAnonKey } });
    expect(signup.status).toBe(200);
    const token = signup.body.access_token;
    const onboarding = await api(url, 'POST', '/api/v1/users/onboarding', { token, body: { full_name: 'L', organization_name: 'Life', organization_slug: `life-${signal.toLowerCase()}` } });
    expect(onboarding.status).toBe(200);
    // A burst of writes still in flight when the signal arrives: every answered one must persist.
    const writes = Array.from({ length: 10 }, (_, i) => api(url, 'POST', '/api/v1/projects', { token, body: { organization_id: onboarding.body.organization.id, name: `P${i}` } }).catch(() => null));
    first.child.kill(signal);
    const answered = (await Promise.all(writes)).filter((r) => r?.status === 200).length;
    const firstCode = await first.exited;
    expect({ code: firstCode, log: firstCode === 0 ? "" : first.err() + first.out() }).toEqual({ code: 0, log: "" });

    const second = run(env);
    await waitForHealth(url);
    const signin = await api(url, 'POST', '/auth/v1/token?grant_type=password', { body: { email: `life-${signal.toLowerCase()}@example.com`, password: 'long enough' }, headers: { apikey: config.body.supabaseAnonKey } });
    expect(signin.status).toBe(200);
    const list = await api(url, 'GET', `/api/v1/projects/organization/${onboarding.body.organization.id}`, { token: signin.body.access_token });
    expect(list.status).toBe(200);
    expect(list.body.projects.length).toBeGreaterThanOrEqual(answered);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 120_000);
});
