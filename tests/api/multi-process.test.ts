// The deployed topology of docs/deploy.md, as real processes (`node --import tsx src/server/main.ts`):
// two `ROLE=api` processes and a `ROLE=worker` one on one PostgreSQL and one S3-compatible store
// (s3rver behind the verifying proxy of storage-s3-server.ts), sharing SUPABASE_JWT_SECRET. A client
// talks to either api process as a load balancer would send it: an import started on one is
// followed on the other and run by the worker, an export comes from the other, a save through one
// is heard on a live socket of the other, and a worker killed with SIGKILL mid-import is replaced
// by a second that finishes it. Runs when DATABASE_URL names a PostgreSQL server (CI's second API
// run); PGlite is one process, so the test is skipped without it.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { api, tempDir, type TestServer } from './harness';
import { png } from '../fixtures/datasets';
import { finishedImport, startImport, type ImportJob } from './support/imports';
import { LiveClient } from './support/live';
import { S3_ACCESS_KEY, S3_SECRET_KEY, startS3Server, type S3TestServer } from './storage-s3-server';

const base = process.env.DATABASE_URL;
const BUCKET = 'vellum-multi-process';
const SECRET = 'multi-process-test-secret-0123456789abcdef';
const METRICS_TOKEN = 'multi-process-metrics-token-0123';
/** Every wait in this file ends by itself. */
const WAIT_MS = 60_000;

interface Proc {
  name: string;
  url: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  log: () => string;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Calls `read` every 100 ms until `done` holds; throws naming `what` after WAIT_MS. */
async function waitFor<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, ms = WAIT_MS): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}; last: ${JSON.stringify(value)?.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!base)('2 api processes and 1 worker on PostgreSQL and S3', () => {
  const procs: Proc[] = [];
  let s3: S3TestServer;
  let dbUrl: string;
  let dbName: string;
  let publicUrl: string;
  let api1: Proc, api2: Proc, worker1: Proc, worker2: Proc;
  let token: string;
  let projectId: string;
  const sockets: LiveClient[] = [];

  async function spawnServer(name: string, role: 'api' | 'worker'): Promise<Proc> {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        HOST: '127.0.0.1',
        PORT: String(port),
        // One address for every api process (the load balancer's): tokens name it as their issuer.
        PUBLIC_URL: publicUrl,
        ROLE: role,
        LOG_LEVEL: 'warn',
        DATA_DIR: tempDir('vellum-multi-'),
        DATABASE_URL: dbUrl,
        STORAGE_URL: `s3://${BUCKET}?endpoint=${s3.endpoint}&region=us-east-1&forcePathStyle=true`,
        AWS_ACCESS_KEY_ID: S3_ACCESS_KEY,
        AWS_SECRET_ACCESS_KEY: S3_SECRET_KEY,
        SUPABASE_JWT_SECRET: SECRET,
        METRICS_TOKEN: METRICS_TOKEN,
        // A killed worker's import is taken up once its lease has run out.
        IMPORT_LEASE_SECONDS: '3',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stdout!.on('data', (d) => (log += d));
    child.stderr!.on('data', (d) => (log += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const proc = { name, url, child, exited, log: () => log };
    procs.push(proc);
    return proc;
  }

  async function ready(proc: Proc): Promise<void> {
    await waitFor(
      `${proc.name} to be ready`,
      async () => {
        if (proc.child.exitCode !== null) throw new Error(`${proc.name} exited with ${proc.child.exitCode}: ${proc.log()}`);
        return (await api(proc.url, 'GET', '/api/v1/health/ready').catch(() => null))?.status;
      },
      (status) => status === 200,
    );
  }

  const as = (proc: Proc) => ({ url: proc.url }) as TestServer;

  beforeAll(async () => {
    const pg = await import('pg');
    dbName = `vellum_multi_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
    const admin = new pg.default.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();
    const url = new URL(base!);
    url.pathname = `/${dbName}`;
    dbUrl = url.toString();
    s3 = await startS3Server({ buckets: [BUCKET] });
    // The first api process migrates the new database; the others wait on the migration lock.
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    [api1, api2, worker1] = await Promise.all([spawnServer('api 1', 'api'), spawnServer('api 2', 'api'), spawnServer('worker 1', 'worker')]);
    await Promise.all([ready(api1), ready(api2), ready(worker1)]);

    // Signed up on one api process, onboarded on the other: one secret, one issuer.
    const config = await api(api1.url, 'GET', '/api/v1/config');
    const signup = await api(api1.url, 'POST', '/auth/v1/signup', { body: { email: 'multi@example.com', password: 'long enough password', data: { full_name: 'M' } }, headers: { apikey: config.body.supabaseAnonKey } });
    expect(signup.status, JSON.stringify(signup.body)).toBe(200);
    token = signup.body.access_token;
    const onboarding = await api(api2.url, 'POST', '/api/v1/users/onboarding', { token, body: { full_name: 'M', organization_name: 'Multi', organization_slug: `multi-${Date.now().toString(36)}` } });
    expect(onboarding.status, JSON.stringify(onboarding.body)).toBe(200);
    const project = await api(api1.url, 'POST', '/api/v1/projects', { token, body: { organization_id: onboarding.body.organization.id, name: 'Multi' } });
    expect(project.status).toBe(200);
    projectId = project.body.project.id;
  }, 180_000);

  afterAll(async () => {
    for (const s of sockets) s.socket.terminate();
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGTERM');
    await Promise.race([Promise.all(procs.map((p) => p.exited)), new Promise((r) => setTimeout(r, 20_000))]);
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await s3?.stop();
    if (base && dbName) {
      const pg = await import('pg');
      const admin = new pg.default.Client({ connectionString: base });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
      await admin.end();
    }
  }, 60_000);

  async function cocoZip(prefix: string, count: number): Promise<Buffer> {
    const zip = new JSZip();
    const images = Array.from({ length: count }, (_, i) => ({ id: i + 1, file_name: `${prefix}${i}.png`, width: 32, height: 24 }));
    const annotations = images.map((img) => ({ id: img.id, image_id: img.id, category_id: 1, bbox: [2, 3, 10, 8], area: 80, iscrowd: 0 }));
    zip.file('annotations/instances.json', JSON.stringify({ images, categories: [{ id: 1, name: 'car' }], annotations }));
    for (const img of images) zip.file(`images/${img.file_name}`, await png(32, 24, `#${(0x204060 + img.id * 97).toString(16).slice(-6)}`));
    return zip.generateAsync({ type: 'nodebuffer' });
  }

  async function imagesOf(proc: Proc): Promise<{ id: string; filename: string }[]> {
    const res = await api(proc.url, 'GET', `/api/v1/projects/${projectId}/images?limit=100&sort_by=filename&sort_order=asc`, { token });
    expect(res.status).toBe(200);
    return res.body.images;
  }

  it('every process is ready; only the api processes serve the product, only the worker runs jobs', async () => {
    for (const p of [api1, api2]) expect((await api(p.url, 'GET', '/api/v1/health/live')).body).toEqual({ status: 'live', role: 'api' });
    expect((await api(worker1.url, 'GET', '/api/v1/health/live')).body).toEqual({ status: 'live', role: 'worker' });
    expect((await api(worker1.url, 'GET', `/api/v1/projects/${projectId}`, { token })).status).toBe(404);
    expect((await api(api2.url, 'GET', `/api/v1/projects/${projectId}`, { token })).status).toBe(200);
  });

  it('an import started on one api process is run by the worker and followed on the other; an export from the first holds it', async () => {
    const id = await startImport(as(api1), token, projectId, 'small.zip', await cocoZip('small-', 3));
    const job: ImportJob = await finishedImport(as(api2), token, id);
    expect({ status: job.status, error: job.error, created: job.report.images_created, annotations: job.report.annotations_created }).toEqual({ status: 'done', error: undefined, created: 3, annotations: 3 });

    const res = await fetch(`${api1.url}/api/v1/annotations/export`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: projectId, format: 'coco', include_images: true, scope: 'all' }),
    });
    expect(res.status).toBe(200);
    const zip = await JSZip.loadAsync(Buffer.from(await res.arrayBuffer()));
    const files = Object.keys(zip.files).filter((n) => !zip.files[n]!.dir);
    expect(files.filter((n) => n.endsWith('.png')).map((n) => n.split('/').pop()).sort()).toEqual(['small-0.png', 'small-1.png', 'small-2.png']);
    const cocoFile = files.find((n) => n.endsWith('.json') && /instances|annotations|coco/.test(n));
    expect(cocoFile, files.join(', ')).toBeDefined();
    const coco = JSON.parse(await zip.file(cocoFile!)!.async('string'));
    expect(coco.annotations).toHaveLength(3);
    // The PNGs came from S3 through the API process: the bytes of what the import stored.
    expect((await zip.file(files.find((n) => n.endsWith('small-0.png'))!)!.async('nodebuffer')).subarray(1, 4).toString()).toBe('PNG');
  }, 120_000);

  it('a live session across both api processes: a save through one is heard on the other', async () => {
    const [img] = await imagesOf(api1);
    const onA = await LiveClient.ready(api1.url, token);
    const onB = await LiveClient.ready(api2.url, token);
    sockets.push(onA, onB);
    const joined = await onB.join(img!.id, projectId);
    expect(joined.type).toBe('joined');
    await onA.join(img!.id, projectId);
    const version = joined.version as number;
    const box = { id: 'multi-box', name: 'car', bounding_box: { x: 4, y: 4, w: 6, h: 6 }, attributes: [] };
    const saved = await api(api1.url, 'POST', '/api/v1/annotations/save-changes', {
      token,
      body: { image_id: img!.id, project_id: projectId, image_filename: img!.filename, base_version: version, upserts: [box], removed_ids: [] },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(await onB.changed(img!.id, version + 1, 10_000)).toMatchObject({ type: 'changed', base_version: version, upserts: [box], removed_ids: [] });
    expect(await onA.changed(img!.id, version + 1, 10_000)).toMatchObject({ upserts: [box] });
  }, 60_000);

  it('a worker killed with SIGKILL mid-import leaves it to a second worker, which finishes it without losing or renaming images', async () => {
    const count = 60;
    const id = await startImport(as(api2), token, projectId, 'big.zip', await cocoZip('big-', count));
    // Mid-import: the worker has stored some images and not all.
    const mid = await waitFor(
      'the import to be part done',
      async () => (await api<ImportJob>(api1.url, 'GET', `/api/v1/imports/${id}`, { token })).body,
      (j) => (j.status === 'running' && j.progress.done > 0) || j.status === 'done' || j.status === 'failed',
      WAIT_MS,
    );
    worker1.child.kill('SIGKILL');
    expect(await worker1.exited).toBe(null);
    expect({ status: mid.status, partDone: mid.progress.done < count }).toEqual({ status: 'running', partDone: true });

    worker2 = await spawnServer('worker 2', 'worker');
    await ready(worker2);
    const job = await waitFor(
      'the second worker to finish the import',
      async () => (await api<ImportJob>(api2.url, 'GET', `/api/v1/imports/${id}`, { token })).body,
      (j) => j.status === 'done' || j.status === 'failed',
      90_000,
    );
    expect({ status: job.status, error: job.error, done: job.progress.done }).toEqual({ status: 'done', error: undefined, done: count });
    const names = (await imagesOf(api1)).map((i) => i.filename).filter((n) => n.startsWith('big-'));
    expect(names.sort()).toEqual(Array.from({ length: count }, (_, i) => `big-${i}.png`).sort());
  }, 180_000);

  it("each process's metrics tell its part: the api processes answered the requests and ran no job, the worker ran the import", async () => {
    const scrape = async (p: Proc) => {
      const res = await fetch(`${p.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(res.status).toBe(200);
      return res.text();
    };
    const count = (text: string, name: string, labels: string) => text.split('\n').filter((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && labels.split(',').every((kv) => l.includes(kv))).reduce((n, l) => n + Number(l.split(' ').pop()), 0);
    const [a1, a2, w2] = await Promise.all([scrape(api1), scrape(api2), scrape(worker2)]);
    for (const text of [a1, a2]) {
      expect(count(text, 'http_request_duration_seconds_count', 'route="/api/v1/imports/:import_id"')).toBeGreaterThan(0);
      expect(count(text, 'vellum_job_duration_seconds_count', 'kind="import"')).toBe(0);
      expect(count(text, 'vellum_jobs', 'kind="import",status="queued"')).toBe(0);
    }
    expect(count(w2, 'vellum_job_duration_seconds_count', 'kind="import",outcome="completed"')).toBe(1);
    expect(count(w2, 'http_request_duration_seconds_count', 'route="/api/v1/imports/:import_id"')).toBe(0);
    expect(w2).toMatch(/^vellum_live_sockets 0$/m);
    expect(count(a1, 'vellum_db_pool_connections', 'state="max"')).toBe(10);
  });
});
