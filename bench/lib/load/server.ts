// A Vellum server in a child process (src/server/main.ts, as `npm start` runs it) on a throwaway
// database of the PostgreSQL server given, so its CPU and memory are measured apart from the load
// generator's: /proc/<pid>/stat (utime + stime) and /proc/<pid>/status (VmRSS) once a second.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { TestServer } from '../../../tests/api/harness';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface ChildServer {
  url: string;
  /** The run's database on the PostgreSQL server given. */
  dbUrl: string;
  pid: number;
  /** The throwaway database's name (its PostgreSQL backends name it in their process titles). */
  dbName: string;
  /** What the harness helpers (signUp, joinAs, createProject...) read from a server: its URL and anon key. */
  asTestServer: TestServer;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const p = (srv.address() as { port: number }).port;
      srv.close(() => resolve(p));
    });
  });
}

async function withAdmin<T>(base: string, fn: (c: import('pg').Client) => Promise<T>): Promise<T> {
  const pg = await import('pg');
  const admin = new pg.default.Client({ connectionString: base });
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.end();
  }
}

/** `nodeArgs`: more options for the server's node (`--cpu-prof --cpu-prof-dir=...` to profile it under the load). */
export async function startChildServer(pgUrl: string, nodeArgs: string[] = []): Promise<ChildServer> {
  const dbName = `vellum_load_${Date.now().toString(36)}`;
  await withAdmin(pgUrl, (c) => c.query(`CREATE DATABASE ${dbName}`));
  const dbUrl = new URL(pgUrl);
  dbUrl.pathname = `/${dbName}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vellum-bench-load-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: url, DATABASE_URL: dbUrl.toString(), LOG_LEVEL: 'warn' };
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', path.join(root, 'src/server/main.ts')], { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
  let exited: number | null = null;
  child.on('exit', (code) => (exited = code ?? -1));
  const until = performance.now() + 120_000;
  for (;;) {
    if (exited !== null) throw new Error(`the server exited with ${exited} while starting`);
    if (performance.now() > until) throw new Error('the server did not answer /health within 120 s');
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) break;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const config = (await (await fetch(`${url}/api/v1/config`)).json()) as { supabaseAnonKey: string };
  const asTestServer = { url, built: { ctx: { auth: { anonKey: config.supabaseAnonKey } } } } as unknown as TestServer;
  return {
    url,
    dbUrl: dbUrl.toString(),
    pid: child.pid!,
    dbName,
    asTestServer,
    async stop() {
      if (exited === null) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([gone, new Promise((r) => setTimeout(r, 20_000))]);
        if (exited === null) child.kill('SIGKILL');
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
      await withAdmin(pgUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)).catch((err: unknown) => console.warn(`could not drop ${dbName}:`, err));
    },
  };
}

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ: 100 on Linux everywhere). */
const HZ = 100;

function cpuTicks(pid: number): number | null {
  try {
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(rest[11]) + Number(rest[12]);
  } catch {
    return null;
  }
}

function rssMb(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

export interface ProcessSamples {
  /** CPU % of one core over each second (can pass 100: libuv's threads compress, hash and encode). */
  cpu: number[];
  rssMb: number[];
}

/** Samples the process every second until stop(). */
export function sampleProcess(pid: number): { stop(): ProcessSamples } {
  const out: ProcessSamples = { cpu: [], rssMb: [] };
  let lastTicks = cpuTicks(pid);
  let lastAt = performance.now();
  const first = rssMb(pid);
  if (first !== null) out.rssMb.push(first);
  const timer = setInterval(() => {
    const ticks = cpuTicks(pid);
    const now = performance.now();
    if (ticks !== null && lastTicks !== null) out.cpu.push(((ticks - lastTicks) / HZ / ((now - lastAt) / 1000)) * 100);
    lastTicks = ticks;
    lastAt = now;
    const rss = rssMb(pid);
    if (rss !== null) out.rssMb.push(rss);
  }, 1000);
  return {
    stop() {
      clearInterval(timer);
      return out;
    },
  };
}

/**
 * CPU of the PostgreSQL backends serving `dbName` when the database runs on this machine: every
 * second, the processes whose title names the database (`postgres: user db 127.0.0.1(port) idle`),
 * summed. A backend is counted from the first second it is seen.
 */
export function sampleDatabase(dbName: string): { stop(): number[] } {
  const cpu: number[] = [];
  const backends = () => {
    const out = new Map<number, number>();
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (!fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(` ${dbName} `)) continue;
      } catch {
        continue;
      }
      const ticks = cpuTicks(Number(entry));
      if (ticks !== null) out.set(Number(entry), ticks);
    }
    return out;
  };
  let last = backends();
  let lastAt = performance.now();
  const timer = setInterval(() => {
    const now = backends();
    const at = performance.now();
    let used = 0;
    for (const [pid, ticks] of now) used += ticks - (last.get(pid) ?? ticks);
    cpu.push((used / HZ / ((at - lastAt) / 1000)) * 100);
    last = now;
    lastAt = at;
  }, 1000);
  return {
    stop() {
      clearInterval(timer);
      return cpu;
    },
  };
}

export interface WaitSamples {
  /** How many times pg_stat_activity was read. */
  samples: number;
  /** Backends of the run's database running a statement, summed over the samples. */
  active: number;
  /** Of those, by what they waited for (`Lock/transactionid`, `IO/WALWrite`, ... or `CPU` when not waiting) and by statement. */
  waits: { event: string; query: string; count: number }[];
}

/** What the server's database connections are doing, read from pg_stat_activity every `everyMs`. */
export async function sampleWaits(dbUrl: string, dbName: string, everyMs = 250): Promise<{ stop(): Promise<WaitSamples> }> {
  const pg = await import('pg');
  const client = new pg.default.Client({ connectionString: dbUrl });
  await client.connect();
  const counts = new Map<string, { event: string; query: string; count: number }>();
  let samples = 0;
  let active = 0;
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    client
      .query<{ event: string; query: string }>(
        `SELECT coalesce(wait_event_type || '/' || wait_event, 'CPU') AS event, left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS query
           FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND pid <> pg_backend_pid()`,
        [dbName],
      )
      .then((res) => {
        samples += 1;
        active += res.rows.length;
        for (const r of res.rows) {
          const key = `${r.event}\u0000${r.query}`;
          const c = counts.get(key) ?? { event: r.event, query: r.query, count: 0 };
          c.count += 1;
          counts.set(key, c);
        }
      })
      .catch(() => undefined)
      .finally(() => (busy = false));
  }, everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await client.end();
      return { samples, active, waits: [...counts.values()].sort((a, b) => b.count - a.count) };
    },
  };
}
