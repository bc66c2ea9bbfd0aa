// One behaviour contract for every storage driver: storage-local.test.ts and storage-s3.test.ts run
// these same cases against their driver. Signed URLs are exercised with plain fetch, as a browser would.
import { Readable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareKeys } from '../../src/server/storage/names';
import { BucketNotFoundError, InvalidObjectNameError, ObjectNotFoundError, type StorageDriver } from '../../src/server/storage/types';

export interface ContractTarget {
  driver: StorageDriver;
  teardown(): Promise<void>;
}

export interface ContractCaps {
  /** The driver refuses uploads over the signed maxBytes (S3 presigned PUTs cannot). */
  enforcesMaxBytes: boolean;
  /**
   * list() yields keys in UTF-8 byte order. True for the local driver and for AWS S3 (documented);
   * false under s3rver, which lists in the order it walks its own directory tree.
   */
  listsInKeyOrder: boolean;
}

let counter = 0;
export const freshBucket = () => `vellum-t${Date.now().toString(36)}-${++counter}`;

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c as string));
  return Buffer.concat(chunks);
}

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** A stream that yields its bytes in several small chunks, asynchronously. */
export function chunked(buf: Buffer, size = 7): Readable {
  async function* gen() {
    for (let i = 0; i < buf.length; i += size) {
      await new Promise((r) => setImmediate(r));
      yield buf.subarray(i, i + size);
    }
  }
  return Readable.from(gen());
}

/** Flips one character in the signature part of a signed URL (JWT signature or X-Amz-Signature). */
export function tamper(signed: string): string {
  const url = new URL(signed);
  const name = url.searchParams.has('token') ? 'token' : 'X-Amz-Signature';
  const value = url.searchParams.get(name)!;
  const sigStart = name === 'token' ? value.lastIndexOf('.') + 1 : 0;
  const i = sigStart + Math.floor((value.length - sigStart) / 2);
  const flipped = value[i] === 'a' ? 'b' : 'a';
  url.searchParams.set(name, value.slice(0, i) + flipped + value.slice(i + 1));
  return url.toString();
}

/** The same credentials (query string) on the URL of another object. */
export function moveQuery(signedFor: string, otherUrl: string): string {
  const other = new URL(otherUrl);
  other.search = new URL(signedFor).search;
  return other.toString();
}

const waitUntil = async (t: Date, extraMs: number) => {
  const ms = t.getTime() + extraMs - Date.now();
  if (ms > 0) await new Promise((r) => setTimeout(r, ms));
};

export function storageContract(name: string, setup: () => Promise<ContractTarget>, caps: ContractCaps): void {
  describe(`storage contract: ${name}`, () => {
    let target: ContractTarget;
    let s: StorageDriver;
    let bucket: string;

    beforeAll(async () => {
      target = await setup();
      s = target.driver;
      bucket = freshBucket();
      await s.createBucket(bucket);
    });
    afterAll(async () => {
      await target?.teardown();
    });

    it('creates, finds and deletes buckets, and deleting one removes its objects', async () => {
      const b = freshBucket();
      expect(await s.bucketExists(b)).toBe(false);
      await s.createBucket(b);
      await s.createBucket(b); // idempotent
      expect(await s.bucketExists(b)).toBe(true);
      await s.put(b, 'a.txt', Buffer.from('a'), { contentType: 'text/plain' });
      await s.put(b, 'deep/er/b.txt', Buffer.from('b'), { contentType: 'text/plain' });
      expect((await collect(s.list(b, ''))).map((o) => o.key)).toEqual(['a.txt', 'deep/er/b.txt']);
      await s.deleteBucket(b);
      expect(await s.bucketExists(b)).toBe(false);
      expect(await s.head(b, 'a.txt')).toBeNull();
      expect(await collect(s.list(b, ''))).toEqual([]);
      await s.deleteBucket(b); // idempotent
      // Recreated, it starts empty: nothing of the old bucket comes back.
      await s.createBucket(b);
      expect(await collect(s.list(b, ''))).toEqual([]);
      await s.deleteBucket(b);
    });

    it('refuses to put into a bucket that does not exist', async () => {
      await expect(s.put(freshBucket(), 'x.txt', Buffer.from('x'), { contentType: 'text/plain' })).rejects.toBeInstanceOf(BucketNotFoundError);
    });

    it('puts a buffer and gets it back with its content type, size and ETag', async () => {
      const body = randomBytes(3000);
      await s.put(bucket, 'images/photo 1+é.jpg', body, { contentType: 'image/jpeg' });
      const head = await s.head(bucket, 'images/photo 1+é.jpg');
      expect(head).toMatchObject({ key: 'images/photo 1+é.jpg', size: 3000, contentType: 'image/jpeg' });
      expect(head!.etag).toMatch(/^(W\/)?".+"$/);
      expect(head!.lastModified.getTime()).toBeGreaterThan(Date.now() - 60_000);
      const got = await s.get(bucket, 'images/photo 1+é.jpg');
      expect(got.info).toMatchObject({ size: 3000, contentType: 'image/jpeg', etag: head!.etag });
      expect((await readAll(got.body)).equals(body)).toBe(true);
      expect((await readAll(await s.getBody(bucket, 'images/photo 1+é.jpg'))).equals(body)).toBe(true);
    });

    it('gets the bytes alone, whole (a Buffer) or as a stream, the same bytes either way', async () => {
      const body = randomBytes(70_000); // more than one 64 KiB read
      await s.put(bucket, 'images/whole.bin', body, { contentType: 'application/octet-stream' });
      const bytesOf = async (got: Buffer | Readable) => (Buffer.isBuffer(got) ? got : await readAll(got));
      expect((await bytesOf(await s.getBytes(bucket, 'images/whole.bin', body.length))).equals(body)).toBe(true);
      expect((await bytesOf(await s.getBytes(bucket, 'images/whole.bin', body.length - 1))).equals(body)).toBe(true);
      await s.put(bucket, 'images/empty.bin', Buffer.alloc(0), { contentType: 'application/octet-stream' });
      expect((await bytesOf(await s.getBytes(bucket, 'images/empty.bin', 1024))).length).toBe(0);
      await expect(s.getBytes(bucket, 'nope/missing.txt', 1024)).rejects.toBeInstanceOf(ObjectNotFoundError);
      await expect(s.getBytes(freshBucket(), 'missing.txt', 1024)).rejects.toBeInstanceOf(ObjectNotFoundError);
    });

    it('puts streams, with and without a known length', async () => {
      const body = randomBytes(100_000);
      await s.put(bucket, 'streams/known.bin', chunked(body, 4096), { contentType: 'application/octet-stream', contentLength: body.length });
      expect((await readAll((await s.get(bucket, 'streams/known.bin')).body)).equals(body)).toBe(true);
      await s.put(bucket, 'streams/unknown.bin', chunked(body, 5000), { contentType: 'application/x-thing' });
      const got = await s.get(bucket, 'streams/unknown.bin');
      expect(got.info.contentType).toBe('application/x-thing');
      expect((await readAll(got.body)).equals(body)).toBe(true);
    });

    it('refuses a stream whose length differs from the one announced, and stores nothing', async () => {
      await expect(s.put(bucket, 'streams/short.bin', chunked(Buffer.alloc(50)), { contentType: 'application/octet-stream', contentLength: 100 })).rejects.toThrow();
      await expect(s.put(bucket, 'streams/long.bin', chunked(Buffer.alloc(150)), { contentType: 'application/octet-stream', contentLength: 100 })).rejects.toThrow();
      expect(await s.head(bucket, 'streams/short.bin')).toBeNull();
      expect(await s.head(bucket, 'streams/long.bin')).toBeNull();
    });

    it('overwrites an object with new bytes and a new content type', async () => {
      await s.put(bucket, 'over.txt', Buffer.from('first'), { contentType: 'text/plain' });
      await s.put(bucket, 'over.txt', Buffer.from('{"second":true}'), { contentType: 'application/json' });
      const got = await s.get(bucket, 'over.txt');
      expect(got.info.contentType).toBe('application/json');
      expect((await readAll(got.body)).toString()).toBe('{"second":true}');
    });

    it('answers missing objects: get throws ObjectNotFoundError, head null, delete is a no-op', async () => {
      await expect(s.get(bucket, 'nope/missing.txt')).rejects.toBeInstanceOf(ObjectNotFoundError);
      await expect(s.get(freshBucket(), 'missing.txt')).rejects.toBeInstanceOf(ObjectNotFoundError);
      await expect(s.getBody(bucket, 'nope/missing.txt')).rejects.toBeInstanceOf(ObjectNotFoundError);
      await expect(s.getBody(freshBucket(), 'missing.txt')).rejects.toBeInstanceOf(ObjectNotFoundError);
      expect(await s.head(bucket, 'nope/missing.txt')).toBeNull();
      await s.delete(bucket, 'nope/missing.txt');
      await s.put(bucket, 'gone.txt', Buffer.from('x'), { contentType: 'text/plain' });
      await s.delete(bucket, 'gone.txt');
      await s.delete(bucket, 'gone.txt');
      expect(await s.head(bucket, 'gone.txt')).toBeNull();
      await expect(s.get(bucket, 'gone.txt')).rejects.toBeInstanceOf(ObjectNotFoundError);
    });

    it('lists recursively in key order, by prefix (whole or partial segment)', async () => {
      const b = freshBucket();
      await s.createBucket(b);
      const keys = ['p/a-c.txt', 'p/a/b.txt', 'p/a/c/d.txt', 'p/ab.txt', 'q.txt', 'p/ü.txt', 'p/z.txt'];
      for (const k of keys) await s.put(b, k, Buffer.from(k), { contentType: 'text/plain' });
      const all = await collect(s.list(b, ''));
      // UTF-8 byte order, as S3 lists: "-" < "/" < "b" < "z" < "ü".
      const inOrder = (keys: string[]) => (caps.listsInKeyOrder ? keys : [...keys].sort(compareKeys));
      expect(inOrder(all.map((o) => o.key))).toEqual(['p/a-c.txt', 'p/a/b.txt', 'p/a/c/d.txt', 'p/ab.txt', 'p/z.txt', 'p/ü.txt', 'q.txt']);
      expect(all.find((o) => o.key === 'p/a/b.txt')).toMatchObject({ size: Buffer.byteLength('p/a/b.txt') });
      expect(all.every((o) => o.lastModified instanceof Date)).toBe(true);
      expect(inOrder((await collect(s.list(b, 'p/a/'))).map((o) => o.key))).toEqual(['p/a/b.txt', 'p/a/c/d.txt']);
      expect(inOrder((await collect(s.list(b, 'p/a'))).map((o) => o.key))).toEqual(['p/a-c.txt', 'p/a/b.txt', 'p/a/c/d.txt', 'p/ab.txt']);
      expect((await collect(s.list(b, 'p/nothing'))).map((o) => o.key)).toEqual([]);
      await s.delete(b, 'p/a/c/d.txt');
      expect((await collect(s.list(b, 'p/a/'))).map((o) => o.key)).toEqual(['p/a/b.txt']);
      await s.deleteBucket(b);
    });

    it('refuses bad bucket names, keys and prefixes before touching anything', async () => {
      const badBuckets = ['..', '.', 'Upper', 'a', 'has/slash', 'x\\y', '../vellum-x', 'dots.in.name', 'a\u0000b', ''];
      for (const b of badBuckets) {
        await expect(s.createBucket(b), b).rejects.toBeInstanceOf(InvalidObjectNameError);
        await expect(s.put(b, 'k.txt', Buffer.from('x'), { contentType: 'text/plain' }), b).rejects.toBeInstanceOf(InvalidObjectNameError);
      }
      const badKeys = ['', '../x', 'a/../../x', '..', './x', 'a//b', '/abs', 'a/', 'a\\..\\b', 'nul\u0000byte', 'new\nline', 'x'.repeat(1100)];
      for (const k of badKeys) {
        await expect(s.put(bucket, k, Buffer.from('x'), { contentType: 'text/plain' }), JSON.stringify(k)).rejects.toBeInstanceOf(InvalidObjectNameError);
        await expect(s.get(bucket, k), JSON.stringify(k)).rejects.toBeInstanceOf(InvalidObjectNameError);
        await expect(s.signedDownloadUrl(bucket, k, { expiresInSeconds: 60 }), JSON.stringify(k)).rejects.toBeInstanceOf(InvalidObjectNameError);
      }
      for (const p of ['../', 'a/../', '/x', 'a\\b']) await expect(collect(s.list(bucket, p)), p).rejects.toBeInstanceOf(InvalidObjectNameError);
      await expect(s.put(bucket, 'ok.txt', Buffer.from('x'), { contentType: 'text/plain\r\nx-evil: 1' })).rejects.toBeInstanceOf(InvalidObjectNameError);
      await expect(s.signedUploadUrl(bucket, 'ok.txt', { expiresInSeconds: 60, contentType: 'not a type' })).rejects.toBeInstanceOf(InvalidObjectNameError);
      await expect(s.signedDownloadUrl(bucket, 'ok.txt', { expiresInSeconds: 0 })).rejects.toBeInstanceOf(RangeError);
    });

    describe('signed download URLs', () => {
      const body = randomBytes(2048);
      beforeAll(async () => {
        await s.put(bucket, 'signed/dl.png', body, { contentType: 'image/png' });
        await s.put(bucket, 'signed/other.png', Buffer.from('other'), { contentType: 'image/png' });
      });

      it('fetch works, with content type, length and a cache lifetime within the URL lifetime', async () => {
        const signed = await s.signedDownloadUrl(bucket, 'signed/dl.png', { expiresInSeconds: 600 });
        expect(signed.expiresAt.getTime()).toBeGreaterThan(Date.now() + 590_000);
        expect(signed.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + 600_000);
        const res = await fetch(signed.url);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('image/png');
        expect(res.headers.get('content-length')).toBe('2048');
        expect(res.headers.get('etag')).toBeTruthy();
        const maxAge = Number(/private, max-age=(\d+)/.exec(res.headers.get('cache-control') ?? '')?.[1]);
        expect(maxAge).toBeGreaterThan(0);
        expect(maxAge).toBeLessThanOrEqual(600);
        expect(Buffer.from(await res.arrayBuffer()).equals(body)).toBe(true);
      });

      it('answers a byte range with 206', async () => {
        const signed = await s.signedDownloadUrl(bucket, 'signed/dl.png', { expiresInSeconds: 60 });
        const res = await fetch(signed.url, { headers: { range: 'bytes=100-199' } });
        expect(res.status).toBe(206);
        expect(res.headers.get('content-range')).toBe('bytes 100-199/2048');
        expect(Buffer.from(await res.arrayBuffer()).equals(body.subarray(100, 200))).toBe(true);
      });

      it('refuses a tampered URL', async () => {
        const signed = await s.signedDownloadUrl(bucket, 'signed/dl.png', { expiresInSeconds: 60 });
        const res = await fetch(tamper(signed.url));
        expect(res.status).toBe(403);
        expect(Buffer.from(await res.arrayBuffer()).includes(body.subarray(0, 64))).toBe(false);
      });

      it('refuses the credentials of one object on another', async () => {
        const forDl = await s.signedDownloadUrl(bucket, 'signed/dl.png', { expiresInSeconds: 60 });
        const forOther = await s.signedDownloadUrl(bucket, 'signed/other.png', { expiresInSeconds: 60 });
        const res = await fetch(moveQuery(forDl.url, forOther.url));
        expect(res.status).toBe(403);
        expect(await res.text()).not.toBe('other');
      });

      it('refuses a download URL used to upload', async () => {
        const signed = await s.signedDownloadUrl(bucket, 'signed/other.png', { expiresInSeconds: 60 });
        const res = await fetch(signed.url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: 'overwritten' });
        expect(res.status).toBe(403);
        expect((await readAll((await s.get(bucket, 'signed/other.png')).body)).toString()).toBe('other');
      });

      it('refuses an expired URL', async () => {
        const signed = await s.signedDownloadUrl(bucket, 'signed/dl.png', { expiresInSeconds: 1 });
        await waitUntil(signed.expiresAt, 1100);
        const res = await fetch(signed.url);
        expect(res.status).toBe(403);
        expect(await res.text()).toMatch(/expired/i);
      });
    });

    describe('signed upload URLs', () => {
      it('a PUT with the signed content type stores the object', async () => {
        const body = randomBytes(5000);
        const signed = await s.signedUploadUrl(bucket, 'up/ok.jpg', { expiresInSeconds: 900, contentType: 'image/jpeg', maxBytes: 10_000 });
        expect(signed.expiresAt.getTime()).toBeGreaterThan(Date.now() + 890_000);
        const res = await fetch(signed.url, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body });
        expect(res.status).toBe(200);
        const got = await s.get(bucket, 'up/ok.jpg');
        expect(got.info).toMatchObject({ size: 5000, contentType: 'image/jpeg' });
        expect((await readAll(got.body)).equals(body)).toBe(true);
      });

      it('refuses another content type and stores nothing', async () => {
        const signed = await s.signedUploadUrl(bucket, 'up/typed.jpg', { expiresInSeconds: 900, contentType: 'image/jpeg' });
        const res = await fetch(signed.url, { method: 'PUT', headers: { 'content-type': 'text/html' }, body: '<script>alert(1)</script>' });
        expect([403, 415]).toContain(res.status);
        expect(await s.head(bucket, 'up/typed.jpg')).toBeNull();
      });

      it('refuses an upload URL used to download, a tampered one, and one moved to another key', async () => {
        await s.put(bucket, 'up/existing.jpg', Buffer.from('original'), { contentType: 'image/jpeg' });
        const signed = await s.signedUploadUrl(bucket, 'up/existing.jpg', { expiresInSeconds: 900, contentType: 'image/jpeg' });
        expect((await fetch(signed.url)).status).toBe(403);
        expect((await fetch(tamper(signed.url), { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: 'tampered' })).status).toBe(403);
        const elsewhere = await s.signedUploadUrl(bucket, 'up/elsewhere.jpg', { expiresInSeconds: 900, contentType: 'image/jpeg' });
        expect((await fetch(moveQuery(signed.url, elsewhere.url), { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: 'moved' })).status).toBe(403);
        expect(await s.head(bucket, 'up/elsewhere.jpg')).toBeNull();
        expect((await readAll((await s.get(bucket, 'up/existing.jpg')).body)).toString()).toBe('original');
      });

      it('refuses an expired upload URL', async () => {
        const signed = await s.signedUploadUrl(bucket, 'up/late.jpg', { expiresInSeconds: 1, contentType: 'image/jpeg' });
        await waitUntil(signed.expiresAt, 1100);
        const res = await fetch(signed.url, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: 'late' });
        expect(res.status).toBe(403);
        expect(await s.head(bucket, 'up/late.jpg')).toBeNull();
      });

      it.runIf(caps.enforcesMaxBytes)('refuses a body over the signed maximum', async () => {
        const signed = await s.signedUploadUrl(bucket, 'up/big.jpg', { expiresInSeconds: 900, contentType: 'image/jpeg', maxBytes: 1000 });
        const res = await fetch(signed.url, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: Buffer.alloc(1001) });
        expect(res.status).toBe(413);
        expect(await s.head(bucket, 'up/big.jpg')).toBeNull();
        const exact = await fetch(signed.url, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: Buffer.alloc(1000) });
        expect(exact.status).toBe(200);
      });
    });
  });
}
