// An HTTP model called against a local test server: the request it gets, good answers, timeouts,
// retries of 5xx, refusals and bad answers (not retried), the concurrency limit, redirects not
// followed, oversized answers, and the SSRF guard refusing before any request is sent.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callHttpModel, HttpModelError } from './http-client';

type Handler = (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void;
let server: http.Server;
let base: string;
let handler: Handler;
let requests: { body: any; headers: http.IncomingHttpHeaders }[];
let active = 0;
let maxActive = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      requests.push({ body: JSON.parse(body), headers: req.headers });
      active++;
      maxActive = Math.max(maxActive, active);
      res.on('close', () => active--);
      handler(req, body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));
beforeEach(() => {
  requests = [];
  maxActive = 0;
});

const target = (path = '/predict') => ({ url: `${base}${path}`, headers: { Authorization: 'Bearer s3cret' }, classes: ['car', 'truck'] });
const image = { image_url: 'https://vellum.example/signed/image.jpg', width: 640, height: 480, classes: ['car', 'truck'] };
const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};
const opts = { allowPrivate: true, timeoutMs: 2000, retries: 2, backoffMs: 10 };

describe('calling an HTTP model', () => {
  it('POSTs the image JSON with the headers, and reads boxes, polygons and RLE masks', async () => {
    const predictions = [
      { class: 'car', score: 0.9, box: [10, 20, 30, 40] },
      { class: 'truck', score: 0.5, polygon: [0, 0, 10, 0, 10, 10] },
      { class: 'car', score: 0.7, rle: { size: [480, 640], counts: [5, 10, 307185] } },
    ];
    handler = (_req, _body, res) => json(res, 200, { predictions });
    const answer = await callHttpModel(target(), image, opts);
    expect(answer.predictions).toEqual(predictions);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.body).toEqual(image);
    expect(requests[0]!.headers.authorization).toBe('Bearer s3cret');
  });

  it('retries a 503 and answers with the next attempt', async () => {
    let n = 0;
    handler = (_req, _body, res) => (n++ === 0 ? json(res, 503, { error: 'warming up' }) : json(res, 200, { predictions: [] }));
    expect((await callHttpModel(target(), image, opts)).predictions).toEqual([]);
    expect(requests).toHaveLength(2);
  });

  it('a model that never answers times out, after the retries', async () => {
    handler = () => undefined;
    await expect(callHttpModel(target(), image, { ...opts, timeoutMs: 150, retries: 1 })).rejects.toThrow(/did not answer within 0.15 s/);
    expect(requests).toHaveLength(2);
  });

  it('bad answers and refusals fail at once, saying what was wrong', async () => {
    const cases: [Handler, RegExp][] = [
      [(_q, _b, res) => json(res, 200, 'not json at all'), /not JSON/],
      [(_q, _b, res) => json(res, 200, { boxes: [] }), /does not fit/],
      [(_q, _b, res) => json(res, 200, { predictions: [{ class: 'car', score: 2, box: [0, 0, 1, 1] }] }), /does not fit/],
      [(_q, _b, res) => json(res, 200, { predictions: [{ class: 'bus', score: 0.5, box: [0, 0, 1, 1] }] }), /"bus", which is not one of its classes/],
      [(_q, _b, res) => json(res, 400, { error: 'image too small' }), /refused the image \(400\).*image too small/],
      [(_q, _b, res) => { res.writeHead(302, { location: 'http://169.254.169.254/' }); res.end(); }, /refused the image \(302\)/],
      [(_q, _b, res) => json(res, 200, { predictions: [], pad: 'x'.repeat(5000) }), /more than 1000 bytes/],
    ];
    for (const [h, why] of cases) {
      requests = [];
      handler = h;
      const err = await callHttpModel(target(), image, { ...opts, maxResponseBytes: 1000 }).catch((e) => e);
      expect(err, String(why)).toBeInstanceOf(HttpModelError);
      expect(err.message).toMatch(why);
      expect(requests, String(why)).toHaveLength(1);
    }
  });

  it('holds calls to one endpoint to the concurrency limit', async () => {
    handler = (_req, _body, res) => setTimeout(() => json(res, 200, { predictions: [] }), 50);
    await Promise.all(Array.from({ length: 6 }, () => callHttpModel(target(), image, { ...opts, concurrency: 2 })));
    expect(requests).toHaveLength(6);
    expect(maxActive).toBe(2);
  });

  it('the SSRF guard refuses a private address before any request, unless allowed', async () => {
    handler = (_req, _body, res) => json(res, 200, { predictions: [] });
    await expect(callHttpModel(target(), image, { ...opts, allowPrivate: false })).rejects.toThrow(/private/);
    await expect(callHttpModel({ ...target(), url: `http://localhost:${new URL(base).port}/predict` }, image, { ...opts, allowPrivate: false })).rejects.toThrow(/private/);
    expect(requests).toHaveLength(0);
  });
});
