// A pre-label job whose worker process is killed mid-job (issue 34, Done when: "kill the worker
// mid-job: the predictions are not doubled"). The server runs as a process of its own (`node
// --import tsx src/server/main.ts`, PGlite in its DATA_DIR); an HTTP model in this test process
// answers two images and holds the third, and the process is killed with SIGKILL while it waits.
// Started again on the same data, it takes the job up when the dead worker's lease runs out
// (PRELABEL_LEASE_SECONDS=2) and finishes it: every image holds the model's predictions once.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { api, migratedDataDir, type TestServer } from './harness';
import { TEST_SHARED_BUFFERS_MB } from '../support/pglite-template';
import { png, uploadImage, type Member } from '../fixtures/datasets';

const IMAGES = 6;
const PER_IMAGE = 2;
const children: ChildProcess[] = [];
let model: http.Server | undefined;

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await new Promise((r) => (model ? model.close(r) : r(undefined)));
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function startProcess(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', HOST: '127.0.0.1', PGLITE_SHARED_BUFFERS_MB: TEST_SHARED_BUFFERS_MB, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  return { child, exited, err: () => stderr };
}

/** Calls `read` every 100 ms until `done` holds; throws naming `what` after 90 s. */
async function waitFor<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  const until = Date.now() + 90_000;
  for (;;) {
    const value = await read().catch(() => undefined as T);
    if (value !== undefined && done(value)) return value;
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}; last: ${JSON.stringify(value)?.slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('a pre-label job whose worker process is killed', () => {
  it('finishes after a restart, with no prediction doubled', async () => {
    // The model: two boxes per image; holds its answer from the third call on while `hold` is set.
    let hold = true;
    const calls: number[] = [];
    const held: http.ServerResponse[] = [];
    model = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        calls.push((JSON.parse(body) as { width: number }).width);
        if (hold && calls.length > 2) held.push(res);
        else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ predictions: [{ class: 'car', score: 0.9, box: [1, 1, 10, 8] }, { class: 'car', score: 0.8, box: [12, 2, 6, 6] }] }));
      });
    });
    await new Promise<void>((r) => model!.listen(0, '127.0.0.1', r));
    const modelUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}/predict`;

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = { DATA_DIR: await migratedDataDir(), PORT: String(port), PUBLIC_URL: url, MODELS_ALLOW_PRIVATE_URLS: 'true', PRELABEL_LEASE_SECONDS: '2' };
    const first = startProcess(env);
    await waitFor('the server', () => fetch(`${url}/api/v1/health`), (r) => r.ok);
    const server = { url } as TestServer;

    const config = await api(url, 'GET', '/api/v1/config');
    const signup = await api(url, 'POST', '/auth/v1/signup', { body: { email: 'crash@example.com', password: 'long enough password', data: { full_name: 'C' } }, headers: { apikey: config.body.supabaseAnonKey } });
    expect(signup.status, JSON.stringify(signup.body)).toBe(200);
    const token = signup.body.access_token as string;
    const onboarding = await api(url, 'POST', '/api/v1/users/onboarding', { token, body: { full_name: 'C', organization_name: 'Crash', organization_slug: `crash-${Date.now().toString(36)}` } });
    expect(onboarding.status).toBe(200);
    const owner = { token, org: onboarding.body.organization } as Member;
    const project = await api(url, 'POST', '/api/v1/projects', { token, body: { organization_id: owner.org.id, name: 'Crash' } });
    expect(project.status, JSON.stringify(project.body)).toBe(200);
    const projectId = project.body.project.id as string;
    const classes = await api(url, 'PATCH', `/api/v1/projects/${projectId}`, { token, body: { classes: [{ name: 'car', type: 'box', color: '#ff0000' }] } });
    expect(classes.status).toBe(200);
    const imageIds: string[] = [];
    for (let i = 0; i < IMAGES; i++) imageIds.push((await uploadImage(server, owner, projectId, `img${i}.png`, await png(40 + i, 30))).id);
    const registered = await api(url, 'POST', '/api/v1/models', { token, body: { organization_id: owner.org.id, name: 'Local', source: 'http', url: modelUrl, kind: 'detect', classes: ['car'] } });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);

    const started = await api(url, 'POST', `/api/v1/projects/${projectId}/prelabel`, { token, body: { model_id: registered.body.model.id, all: true } });
    expect(started.status).toBe(202);
    const jobUrl = `/api/v1/prelabel/${started.body.job_id}`;
    // Two images saved and marked, the third's model call in flight: kill the process.
    await waitFor('the third call', async () => held.length, (n) => n === 1);
    const before = await api(url, 'GET', jobUrl, { token });
    expect(before.body).toMatchObject({ status: 'running', progress: { done: 2, total: IMAGES } });
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    hold = false;
    for (const res of held.splice(0)) res.destroy();

    const second = startProcess(env);
    await waitFor('the restarted server', () => fetch(`${url}/api/v1/health`), (r) => r.ok);
    const job = await waitFor('the job to end', async () => (await api(url, 'GET', jobUrl, { token })).body, (b) => !['queued', 'running'].includes(b.status));
    expect(job, second.err()).toMatchObject({ status: 'done', progress: { done: IMAGES, total: IMAGES }, report: { images: IMAGES, predictions: IMAGES * PER_IMAGE, skipped: [] } });
    for (const id of imageIds) {
      const loaded = await api(url, 'GET', `/api/v1/annotations/load-data/${id}?project_id=${projectId}`, { token });
      expect(loaded.body.annotations.length, `image ${id}`).toBe(PER_IMAGE);
    }
    // The model was asked once more for the image whose answer the kill lost, and never for the two done before it.
    expect(calls.length).toBe(IMAGES + 1);
    second.child.kill('SIGTERM');
    await second.exited;
  }, 240_000);
});
