// Compression and caching as a client sees them on the wire: raw bytes through node:http (fetch
// would decode them and hide what was sent), decoded here with node:zlib.
// - API: JSON of 1 KB or more is br or gzip as Accept-Encoding asks (br preferred), smaller JSON
//   and clients that ask for nothing get it as it is, streamed JSON is compressed too, and signed
//   object downloads are never re-encoded.
// - The SPA: served from an app directory made here and precompressed by the build step's own
//   function (these tests run before `npm run build`; tests/e2e/compression.spec.ts checks the
//   real build), hashed assets cached for a year, index.html and its fallback revalidated.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, startServer, tempDir, type TestServer } from './harness';
import { createProject, png, uploadImage } from '../fixtures/datasets';
import { precompressStaticFiles, type PrecompressResult } from '../../src/server/http/static-assets';

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  /** The body decoded as its Content-Encoding says. */
  body: Buffer;
}

function get(url: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    // node:http adds no Accept-Encoding of its own: a request without one really has none.
    const req = http.request(url, { method: 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        const encoding = res.headers['content-encoding'];
        try {
          if (encoding !== undefined && encoding !== 'gzip' && encoding !== 'br') throw new Error(`unexpected content-encoding ${encoding}`);
          const body = encoding === 'gzip' ? zlib.gunzipSync(raw) : encoding === 'br' ? zlib.brotliDecompressSync(raw) : raw;
          resolve({ status: res.statusCode ?? 0, headers: res.headers, raw, body });
        } catch (err) {
          reject(err);
        }
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const varies = (res: RawResponse) => String(res.headers.vary ?? '').toLowerCase().split(/\s*,\s*/).includes('accept-encoding');

// The app directory: an index.html over 1 KB, a hashed bundle, a hashed image, a small favicon.
const appDir = tempDir('vellum-app-');
const bundle = `/* bundle */\n${Array.from({ length: 400 }, (_, i) => `export function f${i}(a, b) { return a * ${i} + b; }`).join('\n')}\n`;
const indexHtml = `<!doctype html>\n<html><head><meta charset="utf-8"><title>Vellum</title>\n${Array.from({ length: 20 }, (_, i) => `<link rel="preload" href="/assets/font-${i}.woff2" as="font" crossorigin>`).join('\n')}\n<script type="module" src="/assets/index-AbC123xy.js"></script></head><body><div id="root"></div></body></html>\n`;
let imageBytes: Buffer;
let precompressed: PrecompressResult[];

// A route of the test's own: a JSON body as a Node stream, as load-data streams its rows.
const streamedItems = Array.from({ length: 500 }, (_, i) => ({ id: `s${i}`, name: 'car', bounding_box: { x: i, y: i * 2, w: 10, h: 20 } }));
function streamedJson(): Readable {
  return Readable.from(
    (function* () {
      yield '{"annotations":[';
      for (let i = 0; i < streamedItems.length; i++) yield (i ? ',' : '') + JSON.stringify(streamedItems[i]);
      yield '],"version":1}';
    })(),
  );
}

let server: TestServer;
beforeAll(async () => {
  fs.mkdirSync(path.join(appDir, 'assets'));
  fs.writeFileSync(path.join(appDir, 'index.html'), indexHtml);
  fs.writeFileSync(path.join(appDir, 'assets', 'index-AbC123xy.js'), bundle);
  imageBytes = await png(64, 64);
  fs.writeFileSync(path.join(appDir, 'assets', 'logo-Zz9Yy8Xx.png'), imageBytes);
  fs.writeFileSync(path.join(appDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16"/></svg>\n');
  precompressed = await precompressStaticFiles(appDir);
  server = await startServer({ APP_DIR: appDir }, tempDir(), {
    beforeListen: (app) => {
      app.get('/test/streamed-json', (_request, reply) => reply.type('application/json; charset=utf-8').send(streamedJson()));
    },
  });
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

describe('API responses', () => {
  let owner: Awaited<ReturnType<typeof onboardedUser>>;
  let loadDataPath: string;

  beforeAll(async () => {
    owner = await onboardedUser(server);
    const project = await createProject(server, owner);
    const patch = await api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { classes: [{ name: 'car', type: 'box', color: '#FFADAD' }] } });
    expect(patch.status).toBe(200);
    const image = await uploadImage(server, owner, project.id, 'street.png', await png(64, 48));
    const annotations = Array.from({ length: 60 }, (_, i) => ({ id: `box-${i}`, name: 'car', bounding_box: { x: i, y: 2 * i, w: 10 + i, h: 5 + i }, attributes: [] }));
    const saved = await api(server.url, 'POST', '/api/v1/annotations/save-data', { token: owner.token, body: { image_id: image.id, project_id: project.id, image_filename: image.filename, annotations } });
    expect(saved.status).toBe(200);
    loadDataPath = `/api/v1/annotations/load-data/${image.id}?project_id=${project.id}`;
  }, 60_000);

  const auth = () => ({ authorization: `Bearer ${owner.token}` });

  it('sends load-data (over 1 KB) gzip-encoded when asked for gzip, decoding to the same JSON as the plain answer', async () => {
    const plain = await get(server.url + loadDataPath, auth());
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.raw.length).toBeGreaterThan(1024);
    const json = JSON.parse(plain.raw.toString('utf8'));
    expect(json.annotations).toHaveLength(60);

    const gz = await get(server.url + loadDataPath, { ...auth(), 'accept-encoding': 'gzip' });
    expect(gz.status).toBe(200);
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(varies(gz)).toBe(true);
    expect(gz.raw.length).toBeLessThan(plain.raw.length / 2);
    expect(JSON.parse(gz.body.toString('utf8'))).toEqual(json);
  });

  it('sends br when asked for br, and prefers br when the client takes both', async () => {
    const plain = JSON.parse((await get(server.url + loadDataPath, auth())).raw.toString('utf8'));
    for (const accept of ['br', 'gzip, deflate, br', 'br;q=1.0, gzip;q=1.0']) {
      const res = await get(server.url + loadDataPath, { ...auth(), 'accept-encoding': accept });
      expect(res.headers['content-encoding'], accept).toBe('br');
      expect(JSON.parse(res.body.toString('utf8'))).toEqual(plain);
    }
    const gzFirst = await get(server.url + loadDataPath, { ...auth(), 'accept-encoding': 'br;q=0.5, gzip' });
    expect(gzFirst.headers['content-encoding']).toBe('gzip');
  });

  it('leaves JSON under 1 KB as it is, and answers identity to a client that asks for nothing or for identity', async () => {
    const small = await get(`${server.url}/api/v1/config`, { 'accept-encoding': 'gzip, br' });
    expect(small.status).toBe(200);
    expect(small.raw.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.raw.toString('utf8'))).toHaveProperty('supabaseAnonKey');

    for (const headers of [auth(), { ...auth(), 'accept-encoding': 'identity' }]) {
      const res = await get(server.url + loadDataPath, headers);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(JSON.parse(res.raw.toString('utf8')).annotations).toHaveLength(60);
    }
  });

  it('compresses a JSON body streamed from a Node Readable', async () => {
    const plain = await get(`${server.url}/test/streamed-json`);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const expected = { annotations: streamedItems, version: 1 };
    expect(JSON.parse(plain.raw.toString('utf8'))).toEqual(expected);
    for (const encoding of ['gzip', 'br']) {
      const res = await get(`${server.url}/test/streamed-json`, { 'accept-encoding': encoding });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe(encoding);
      expect(res.raw.length).toBeLessThan(plain.raw.length / 3);
      expect(JSON.parse(res.body.toString('utf8'))).toEqual(expected);
    }
  });

  it('serves signed object downloads byte for byte: no Content-Encoding, the stored length and ETag', async () => {
    const storage = server.built.ctx.storage;
    const bucket = owner.org.gcs_bucket_name;
    const stored = Buffer.from(JSON.stringify({ annotations: streamedItems }));
    await storage.put(bucket, 'compression-test/sidecar.json', stored, { contentType: 'application/json' });
    const { url } = await storage.signedDownloadUrl(bucket, 'compression-test/sidecar.json', { expiresInSeconds: 60 });
    const res = await get(url, { 'accept-encoding': 'gzip, br' });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['content-length']).toBe(String(stored.length));
    expect(res.headers.etag).toBeTruthy();
    expect(res.raw.equals(stored)).toBe(true);
  });
});

describe('the SPA', () => {
  it('precompresses the text files of 1 KB or more at build time, and nothing else', () => {
    const of = (file: string) => precompressed.find((r) => r.file === file);
    expect(of('assets/index-AbC123xy.js')).toMatchObject({ br: expect.any(Number), gz: expect.any(Number) });
    expect(of('index.html')).toMatchObject({ br: expect.any(Number), gz: expect.any(Number) });
    expect(of('favicon.svg')).toEqual({ file: 'favicon.svg', bytes: expect.any(Number) }); // under 1 KB
    expect(of('assets/logo-Zz9Yy8Xx.png')).toBeUndefined(); // not a text format
    expect(fs.existsSync(path.join(appDir, 'assets', 'index-AbC123xy.js.br'))).toBe(true);
    expect(fs.existsSync(path.join(appDir, 'assets', 'logo-Zz9Yy8Xx.png.gz'))).toBe(false);
  });

  it('sends the hashed bundle gzip- or br-encoded as asked, cached for a year as immutable', async () => {
    for (const [accept, encoding] of [['gzip', 'gzip'], ['br', 'br'], ['gzip, deflate, br', 'br']]) {
      const res = await get(`${server.url}/assets/index-AbC123xy.js`, { 'accept-encoding': accept });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding'], accept).toBe(encoding);
      expect(res.headers['content-type']).toMatch(/^(application|text)\/javascript/);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(varies(res)).toBe(true);
      expect(Number(res.headers['content-length'])).toBe(res.raw.length);
      expect(res.raw.length).toBeLessThan(bundle.length / 3);
      expect(res.body.toString('utf8')).toBe(bundle);
    }
  });

  it('sends the plain bytes to a client that asks for no encoding', async () => {
    const res = await get(`${server.url}/assets/index-AbC123xy.js`);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(varies(res)).toBe(true);
    expect(res.raw.toString('utf8')).toBe(bundle);
  });

  it('serves index.html and the fallback for client routes with no-cache', async () => {
    for (const url of ['/', '/index.html', '/project/annotate/cat.png']) {
      const gz = await get(server.url + url, { 'accept-encoding': 'gzip' });
      expect(gz.status, url).toBe(200);
      expect(gz.headers['content-type']).toMatch(/^text\/html/);
      expect(gz.headers['cache-control'], url).toBe('no-cache');
      expect(gz.headers['content-encoding'], url).toBe('gzip');
      expect(gz.body.toString('utf8')).toBe(indexHtml);
      const plain = await get(server.url + url);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers['cache-control']).toBe('no-cache');
      expect(plain.raw.toString('utf8')).toBe(indexHtml);
    }
  });

  it('revalidates the other top-level files, and never re-encodes images', async () => {
    const favicon = await get(`${server.url}/favicon.svg`, { 'accept-encoding': 'gzip, br' });
    expect(favicon.status).toBe(200);
    expect(favicon.headers['cache-control']).toBe('no-cache');
    expect(favicon.headers['content-encoding']).toBeUndefined();

    const image = await get(`${server.url}/assets/logo-Zz9Yy8Xx.png`, { 'accept-encoding': 'gzip, br' });
    expect(image.status).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    expect(image.headers['content-encoding']).toBeUndefined();
    expect(image.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(image.raw.equals(imageBytes)).toBe(true);
  });
});
