// The local storage driver: the shared contract, then what only it does (its HTTP routes, its files
// on disk). Routes run on a bare Fastify instance so these tests need nothing else of the server.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/server/config';
import { createStorage } from '../../src/server/storage';
import { LocalStorage } from '../../src/server/storage/local';
import { installAuthGuard } from '../../src/server/http/auth-guard';
import { ApiError } from '../../src/server/errors';
import type { AuthProvider } from '../../src/server/auth/types';
import { collect, freshBucket, readAll, storageContract } from './storage-contract';

interface LocalRig {
  driver: LocalStorage;
  app: FastifyInstance;
  base: string;
  dataDir: string;
  teardown(): Promise<void>;
}

/** A driver on a temp DATA_DIR, its routes on a bare Fastify listening on a free loopback port. */
async function startLocal(opts: { withGuard?: boolean } = {}): Promise<LocalRig> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vellum-storage-'));
  const app = Fastify();
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  // PUBLIC_URL must be known before the driver signs URLs; the port is only known after listen, and
  // routes cannot be added to a listening instance: so a second instance serves them on that port.
  await app.close();
  const config = loadConfig({ DATA_DIR: dataDir, PUBLIC_URL: base, LOG_LEVEL: 'silent' });
  const driver = (await createStorage(config)) as LocalStorage;
  const served = Fastify();
  if (opts.withGuard) {
    // The product API's bearer guard, with an auth that refuses every token: storage must not care.
    const refuseAll = { verifyAccessToken: async () => Promise.reject(new ApiError(401, 'unauthorized', 'no')) } as unknown as AuthProvider;
    installAuthGuard(served, refuseAll);
  }
  await driver.registerRoutes(served);
  await served.listen({ port: Number(new URL(base).port), host: '127.0.0.1' });
  return {
    driver,
    app: served,
    base,
    dataDir,
    async teardown() {
      await served.close();
      await driver.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A request exactly as written: no URL normalisation (fetch would resolve "..", a browser too). */
function rawRequest(base: string, method: string, rawPath: string, opts: { headers?: Record<string, string>; body?: Buffer } = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method, path: rawPath, headers: opts.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

storageContract('local', async () => {
  const rig = await startLocal();
  return { driver: rig.driver, teardown: rig.teardown };
}, { enforcesMaxBytes: true, listsInKeyOrder: true });

describe('local storage driver', () => {
  let rig: LocalRig;
  let bucket: string;
  const SECRET = 'TOP-SECRET-CONTENT-outside-the-storage-dir';

  beforeAll(async () => {
    rig = await startLocal({ withGuard: true });
    bucket = freshBucket();
    await rig.driver.createBucket(bucket);
    // Files a traversal would aim for: beside the storage dir, and in another bucket.
    fs.writeFileSync(path.join(rig.dataDir, 'secret.txt'), SECRET);
    await rig.driver.createBucket('vellum-other');
    await rig.driver.put('vellum-other', 'secret.txt', Buffer.from(SECRET), { contentType: 'text/plain' });
  });
  afterAll(async () => {
    await rig?.teardown();
  });

  const objectsDir = () => path.join(rig.dataDir, 'objects');

  it('keeps objects as plain files under <dir>/<bucket>/<key>, and lists no metadata', async () => {
    await rig.driver.put(bucket, 'a/b/c.txt', Buffer.from('hello'), { contentType: 'text/plain; charset=utf-8' });
    expect(fs.readFileSync(path.join(objectsDir(), bucket, 'a', 'b', 'c.txt'), 'utf8')).toBe('hello');
    expect((await collect(rig.driver.list(bucket, ''))).map((o) => o.key)).toEqual(['a/b/c.txt']);
    expect((await rig.driver.head(bucket, 'a/b/c.txt'))?.contentType).toBe('text/plain; charset=utf-8');
    // Deleting the last object of a folder removes the folder too.
    await rig.driver.delete(bucket, 'a/b/c.txt');
    expect(fs.existsSync(path.join(objectsDir(), bucket, 'a'))).toBe(false);
  });

  it('selects the driver from the configuration', async () => {
    expect(rig.driver.kind).toBe('local');
    expect(rig.driver.root).toBe(objectsDir());
    const custom = fs.mkdtempSync(path.join(os.tmpdir(), 'vellum-objects-'));
    const other = await createStorage(loadConfig({ DATA_DIR: rig.dataDir, STORAGE_URL: `file://${custom}` }));
    await other.createBucket('vellum-custom');
    expect(fs.statSync(path.join(custom, 'vellum-custom')).isDirectory()).toBe(true);
    await other.close();
    fs.rmSync(custom, { recursive: true, force: true });
  });

  it('refuses keys that would clash with a folder, leaving both intact', async () => {
    await rig.driver.put(bucket, 'clash/inner.txt', Buffer.from('inner'), { contentType: 'text/plain' });
    await expect(rig.driver.put(bucket, 'clash', Buffer.from('x'), { contentType: 'text/plain' })).rejects.toThrow(/clashes/);
    await expect(rig.driver.put(bucket, 'clash/inner.txt/deeper', Buffer.from('x'), { contentType: 'text/plain' })).rejects.toThrow(/clashes/);
    expect((await readAll((await rig.driver.get(bucket, 'clash/inner.txt')).body)).toString()).toBe('inner');
    expect(await rig.driver.head(bucket, 'clash')).toBeNull();
  });

  it('serves without a bearer token although the product API guard is installed', async () => {
    await rig.driver.put(bucket, 'guard.txt', Buffer.from('public by token'), { contentType: 'text/plain' });
    const signed = await rig.driver.signedDownloadUrl(bucket, 'guard.txt', { expiresInSeconds: 60 });
    expect(signed.url.startsWith(`${rig.base}/storage/v1/object/${bucket}/guard.txt?token=`)).toBe(true);
    const res = await fetch(signed.url);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('public by token');
  });

  it('answers GET with headers that keep uploaded files inert and usable cross-origin', async () => {
    await rig.driver.put(bucket, 'page.html', Buffer.from('<script>alert(1)</script>'), { contentType: 'text/html' });
    const res = await fetch((await rig.driver.signedDownloadUrl(bucket, 'page.html', { expiresInSeconds: 60 })).url);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toMatch(/sandbox/);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    const preflight = await fetch(`${rig.base}/storage/v1/object/${bucket}/page.html`, { method: 'OPTIONS', headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'PUT' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toMatch(/PUT/);
  });

  it('answers HEAD, conditional GET and the range forms', async () => {
    const body = randomBytes(1000);
    await rig.driver.put(bucket, 'ranges.bin', body, { contentType: 'application/octet-stream' });
    const { url } = await rig.driver.signedDownloadUrl(bucket, 'ranges.bin', { expiresInSeconds: 60 });
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('1000');
    expect(head.headers.get('content-type')).toBe('application/octet-stream');
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    const etag = head.headers.get('etag')!;
    expect((await fetch(url, { headers: { 'if-none-match': etag } })).status).toBe(304);
    const suffix = await fetch(url, { headers: { range: 'bytes=-10' } });
    expect(suffix.status).toBe(206);
    expect(suffix.headers.get('content-range')).toBe('bytes 990-999/1000');
    expect(Buffer.from(await suffix.arrayBuffer()).equals(body.subarray(990))).toBe(true);
    const open = await fetch(url, { headers: { range: 'bytes=995-' } });
    expect(Buffer.from(await open.arrayBuffer()).equals(body.subarray(995))).toBe(true);
    const clipped = await fetch(url, { headers: { range: 'bytes=900-5000' } });
    expect(clipped.headers.get('content-range')).toBe('bytes 900-999/1000');
    const outside = await fetch(url, { headers: { range: 'bytes=1000-1001' } });
    expect(outside.status).toBe(416);
    expect(outside.headers.get('content-range')).toBe('bytes */1000');
    expect((await fetch(url, { headers: { range: 'bytes=0-1,5-6' } })).status).toBe(200); // multi-range: whole object
  });

  it('says why a token is refused, in the API error shape', async () => {
    await rig.driver.put(bucket, 'why.txt', Buffer.from('x'), { contentType: 'text/plain' });
    const url = `${rig.base}/storage/v1/object/${bucket}/why.txt`;
    const missing = await fetch(url);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ success: false, error: expect.any(String), code: 'missing_token' });
    const garbage = await fetch(`${url}?token=not.a.jwt`);
    expect(garbage.status).toBe(403);
    expect((await garbage.json()).code).toBe('invalid_token');
    const short = await rig.driver.signedDownloadUrl(bucket, 'why.txt', { expiresInSeconds: 1 });
    await new Promise((r) => setTimeout(r, short.expiresAt.getTime() + 1100 - Date.now()));
    const expired = await fetch(short.url);
    expect(expired.status).toBe(403);
    expect((await expired.json()).code).toBe('token_expired');
    const upload = await rig.driver.signedUploadUrl(bucket, 'why.txt', { expiresInSeconds: 60, contentType: 'text/plain' });
    expect((await (await fetch(upload.url)).json()).code).toBe('token_wrong_method');
    const notFound = await fetch((await rig.driver.signedDownloadUrl(bucket, 'never-written.txt', { expiresInSeconds: 60 })).url);
    expect(notFound.status).toBe(404);
    expect((await notFound.json()).code).toBe('not_found');
  });

  it('streams uploads larger than Fastify\'s body limit and answers like Supabase Storage', async () => {
    const body = randomBytes(3 * 1024 * 1024); // a bare Fastify accepts 1 MiB bodies by default
    const signed = await rig.driver.signedUploadUrl(bucket, 'big/upload.bin', { expiresInSeconds: 60, contentType: 'application/octet-stream' });
    const res = await fetch(signed.url, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ Key: `${bucket}/big/upload.bin` });
    expect((await readAll((await rig.driver.get(bucket, 'big/upload.bin')).body)).equals(body)).toBe(true);
  });

  it('refuses uploads without Content-Length (411), without Content-Type (415), and over the default cap (413)', async () => {
    const signed = await rig.driver.signedUploadUrl(bucket, 'caps.bin', { expiresInSeconds: 60, contentType: 'application/octet-stream' });
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new Uint8Array([1, 2, 3]));
        c.close();
      },
    });
    const chunkedRes = await fetch(signed.url, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: stream, duplex: 'half' } as RequestInit);
    expect(chunkedRes.status).toBe(411);
    expect((await chunkedRes.json()).code).toBe('length_required');
    const pathAndQuery = signed.url.slice(rig.base.length);
    const untyped = await rawRequest(rig.base, 'PUT', pathAndQuery, { headers: { 'content-length': '3' }, body: Buffer.from('abc') });
    expect(untyped.status).toBe(415);
    // Announce 300 MB and send nothing: refused from the headers alone.
    const huge = await rawRequest(rig.base, 'PUT', pathAndQuery, { headers: { 'content-type': 'application/octet-stream', 'content-length': String(300 * 1024 * 1024) } });
    expect(huge.status).toBe(413);
    expect(JSON.parse(huge.body.toString()).code).toBe('payload_too_large');
    expect(await rig.driver.head(bucket, 'caps.bin')).toBeNull();
  });

  it('answers 404 to an upload into a deleted bucket and does not bring the bucket back', async () => {
    const b = freshBucket();
    await rig.driver.createBucket(b);
    const signed = await rig.driver.signedUploadUrl(b, 'late.txt', { expiresInSeconds: 60, contentType: 'text/plain' });
    await rig.driver.deleteBucket(b);
    const res = await fetch(signed.url, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'late' });
    expect(res.status).toBe(404);
    expect((await res.json()).code).toBe('bucket_not_found');
    expect(await rig.driver.bucketExists(b)).toBe(false);
    expect(fs.existsSync(path.join(objectsDir(), b))).toBe(false);
  });

  it('keeps the old object when an upload is cut off, and leaves no temp file behind', async () => {
    await rig.driver.put(bucket, 'atomic.bin', Buffer.from('old version'), { contentType: 'text/plain' });
    const signed = await rig.driver.signedUploadUrl(bucket, 'atomic.bin', { expiresInSeconds: 60, contentType: 'application/octet-stream' });
    const { hostname, port } = new URL(rig.base);
    await new Promise<void>((resolve) => {
      const req = http.request({ host: hostname, port, method: 'PUT', path: signed.url.slice(rig.base.length), headers: { 'content-type': 'application/octet-stream', 'content-length': '100000' } });
      req.on('error', () => resolve());
      req.write(Buffer.alloc(5000, 1), () => setTimeout(() => req.destroy(), 100));
    });
    await new Promise((r) => setTimeout(r, 200));
    const got = await rig.driver.get(bucket, 'atomic.bin');
    expect(got.info.contentType).toBe('text/plain');
    expect((await readAll(got.body)).toString()).toBe('old version');
    expect(fs.readdirSync(path.join(objectsDir(), '.tmp'))).toEqual([]);
  });

  it('refuses traversal in raw URLs and never reads or writes outside the bucket', async () => {
    const { url: validGet } = await rig.driver.signedDownloadUrl(bucket, 'secret.txt', { expiresInSeconds: 60 });
    const token = new URL(validGet).search;
    const attempts = [
      `/storage/v1/object/${bucket}/../../secret.txt`,
      `/storage/v1/object/${bucket}/../vellum-other/secret.txt`,
      `/storage/v1/object/../../secret.txt`,
      `/storage/v1/object/${bucket}/%2e%2e/%2e%2e/secret.txt`,
      `/storage/v1/object/${bucket}/..%2f..%2fsecret.txt`,
      `/storage/v1/object/${bucket}/..%2F..%2F..%2Fetc%2Fpasswd`,
      `/storage/v1/object/%2e%2e/secret.txt`,
      `/storage/v1/object/${bucket}/..\\..\\secret.txt`,
      `/storage/v1/object/${bucket}/..%5c..%5csecret.txt`,
      `/storage/v1/object/${bucket}/secret.txt%00.png`,
      `/storage/v1/object/${bucket}/%2fetc%2fpasswd`,
      `/storage/v1/object/${bucket}//etc/passwd`,
      `/storage/v1/object/${bucket}/%zz`,
      `/storage/v1/object/b/../../etc/passwd`,
    ];
    for (const p of attempts) {
      for (const q of [token, '?token=x']) {
        const res = await rawRequest(rig.base, 'GET', p + q);
        expect([400, 403, 404], p).toContain(res.status);
        expect(res.body.toString(), p).not.toContain(SECRET);
        expect(res.body.toString(), p).not.toContain('root:');
      }
    }
    // Even with a valid upload token for some key, a traversal path writes nothing anywhere.
    const { url: validPut } = await rig.driver.signedUploadUrl(bucket, 'x.txt', { expiresInSeconds: 60, contentType: 'text/plain' });
    const putQuery = new URL(validPut).search;
    for (const p of [`/storage/v1/object/${bucket}/../../pwned.txt`, `/storage/v1/object/${bucket}/%2e%2e/%2e%2e/pwned.txt`, `/storage/v1/object/${bucket}/..\\..\\pwned.txt`]) {
      const res = await rawRequest(rig.base, 'PUT', p + putQuery, { headers: { 'content-type': 'text/plain' }, body: Buffer.from('pwned') });
      expect(res.status, p).toBe(400);
    }
    expect(fs.existsSync(path.join(rig.dataDir, 'pwned.txt'))).toBe(false);
    expect(fs.existsSync(path.join(objectsDir(), 'pwned.txt'))).toBe(false);
    expect(fs.readFileSync(path.join(rig.dataDir, 'secret.txt'), 'utf8')).toBe(SECRET);
  });

  it('does not follow a symlink planted in the storage dir', async () => {
    fs.symlinkSync(path.join(rig.dataDir, 'secret.txt'), path.join(objectsDir(), bucket, 'link.txt'));
    const res = await fetch((await rig.driver.signedDownloadUrl(bucket, 'link.txt', { expiresInSeconds: 60 })).url);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain(SECRET);
    await expect(rig.driver.get(bucket, 'link.txt')).rejects.toThrow(/not found/i);
    await expect(rig.driver.getBody(bucket, 'link.txt')).rejects.toThrow(/not found/i);
    await expect(rig.driver.getBytes(bucket, 'link.txt', 1024)).rejects.toThrow(/not found/i);
    expect((await collect(rig.driver.list(bucket, 'link'))).length).toBe(0);
  });

  it('reads whole objects without leaving descriptors open, and a folder is no object', async () => {
    const body = randomBytes(70_000);
    await rig.driver.put(bucket, 'fds/one.bin', body, { contentType: 'application/octet-stream' });
    const open = () => fs.readdirSync('/proc/self/fd').length;
    const before = open();
    for (let i = 0; i < 50; i++) expect(((await rig.driver.getBytes(bucket, 'fds/one.bin', 1 << 20)) as Buffer).equals(body)).toBe(true);
    for (let i = 0; i < 20; i++) await expect(rig.driver.getBytes(bucket, 'fds', 1024)).rejects.toThrow(/not found/i);
    expect(open()).toBeLessThan(before + 10); // 70 reads: a leak would leave 70 (other work may hold a few)
  });

  it('keeps tokens across restarts (the secret lives in DATA_DIR) and rejects tokens of another secret', async () => {
    await rig.driver.put(bucket, 'restart.txt', Buffer.from('still here'), { contentType: 'text/plain' });
    const { url } = await rig.driver.signedDownloadUrl(bucket, 'restart.txt', { expiresInSeconds: 60 });
    const again = await createStorage(loadConfig({ DATA_DIR: rig.dataDir, PUBLIC_URL: rig.base }));
    expect((await again.signedDownloadUrl(bucket, 'restart.txt', { expiresInSeconds: 60 })).url.split('?')[0]).toBe(url.split('?')[0]);
    const foreignDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vellum-foreign-'));
    const foreign = await createStorage(loadConfig({ DATA_DIR: foreignDir, PUBLIC_URL: rig.base }));
    await foreign.createBucket(bucket);
    const forged = await foreign.signedDownloadUrl(bucket, 'restart.txt', { expiresInSeconds: 60 });
    const res = await fetch(forged.url);
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe('invalid_token');
    fs.rmSync(foreignDir, { recursive: true, force: true });
  });
});
