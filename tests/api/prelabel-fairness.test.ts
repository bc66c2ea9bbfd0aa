// One organization cannot starve the others (issue 34 §2): two organizations' pre-label jobs,
// queued together, take turns of 4 images (runner.ts IMAGES_PER_TURN) on the one worker
// (PRELABEL_CONCURRENCY 1). The order is read from the order in which the model was asked for the
// images (each organization's images have widths of their own), and from each job's progress when
// the other organization's turn starts; no timing is asserted.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, startServer, type TestServer } from './harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';

let server: TestServer;
let model: http.Server;
let modelUrl: string;
/** The width of each image the model was asked about, in order, and the job progress seen at that moment. */
const calls: { width: number; progress?: Record<string, number> }[] = [];
let hold = true;
const held: (() => void)[] = [];
/** Read at each call: the jobs' progress (filled once both jobs exist). */
let progressOf: (() => Promise<Record<string, number>>) | null = null;

beforeAll(async () => {
  model = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      const entry: (typeof calls)[number] = { width: (JSON.parse(body) as { width: number }).width };
      calls.push(entry);
      if (progressOf) entry.progress = await progressOf();
      const send = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ predictions: [{ class: 'car', score: 0.9, box: [1, 1, 10, 8] }] }));
      if (hold) held.push(send);
      else send();
    });
  });
  await new Promise<void>((r) => model.listen(0, '127.0.0.1', r));
  modelUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}/predict`;
  server = await startServer({ MODELS_ALLOW_PRIVATE_URLS: 'true' });
}, 120_000);

afterAll(async () => {
  for (const send of held) send();
  await server?.stop();
  await new Promise((r) => model?.close(r));
});

/** An organization with a project of `n` images whose widths start at `firstWidth`, and its HTTP model. */
async function organization(firstWidth: number, n: number) {
  const owner: Member = await onboardedUser(server);
  const projectId = (await createProject(server, owner)).id;
  expect((await api(server.url, 'PATCH', `/api/v1/projects/${projectId}`, { token: owner.token, body: { classes: [{ name: 'car', type: 'box', color: '#ff0000' }] } })).status).toBe(200);
  for (let i = 0; i < n; i++) await uploadImage(server, owner, projectId, `i${i}.png`, await png(firstWidth + i, 20));
  const registered = await api(server.url, 'POST', '/api/v1/models', { token: owner.token, body: { organization_id: owner.org.id, name: 'Local', source: 'http', url: modelUrl, kind: 'detect', classes: ['car'] } });
  expect(registered.status).toBe(201);
  const start = async () => {
    const res = await api(server.url, 'POST', `/api/v1/projects/${projectId}/prelabel`, { token: owner.token, body: { model_id: registered.body.model.id, all: true } });
    expect(res.status).toBe(202);
    return res.body.job_id as string;
  };
  return { owner, start };
}

describe('two organizations', () => {
  it('take turns of 4 images: the big job queued first does not hold the worker until it ends', async () => {
    const big = await organization(100, 12);
    const small = await organization(200, 8);
    const bigJob = await big.start();
    // The big job's first image is with the model; the small organization's job is queued meanwhile.
    for (let i = 0; i < 300 && held.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(held.length).toBe(1);
    const smallJob = await small.start();
    const read = async (token: string, id: string) => (await api(server.url, 'GET', `/api/v1/prelabel/${id}`, { token })).body;
    progressOf = async () => ({ big: (await read(big.owner.token, bigJob)).progress.done, small: (await read(small.owner.token, smallJob)).progress.done });
    hold = false;
    for (const send of held.splice(0)) send();
    for (let i = 0; i < 600; i++) {
      const [a, b] = [await read(big.owner.token, bigJob), await read(small.owner.token, smallJob)];
      if (a.status === 'done' && b.status === 'done') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const who = calls.map((c) => (c.width >= 200 ? 'small' : 'big'));
    expect(who).toEqual([...Array(4).fill('big'), ...Array(4).fill('small'), ...Array(4).fill('big'), ...Array(4).fill('small'), ...Array(4).fill('big')]);
    // Each turn starts where the other organization's last turn left off (progress as each call saw it).
    expect(calls[4]!.progress).toEqual({ big: 4, small: 0 });
    expect(calls[8]!.progress).toEqual({ big: 4, small: 4 });
    expect(calls[12]!.progress).toEqual({ big: 8, small: 4 });
    expect(calls[16]!.progress).toEqual({ big: 8, small: 8 });
    expect((await read(big.owner.token, bigJob)).report.predictions).toBe(12);
    expect((await read(small.owner.token, smallJob)).report.predictions).toBe(8);
  }, 180_000);
});
