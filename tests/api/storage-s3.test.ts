// The S3 storage driver against a real S3-compatible server on loopback (s3rver, behind a proxy that
// verifies presigned URLs: see storage-s3-server.ts), in both layouts: one shared bucket holding every
// organization as a prefix, and one bucket per organization.
import { ListBucketsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/server/config';
import { createStorage } from '../../src/server/storage';
import { S3Storage } from '../../src/server/storage/s3';
import { parseS3StorageUrl } from '../../src/server/storage/s3-url';
import { collect, freshBucket, readAll, storageContract } from './storage-contract';
import { S3_ACCESS_KEY, S3_SECRET_KEY, startS3Server, type S3TestServer } from './storage-s3-server';

const SHARED = 'vellum-data';

// The driver takes credentials from the SDK's default chain: the environment, as in production.
process.env.AWS_ACCESS_KEY_ID = S3_ACCESS_KEY;
process.env.AWS_SECRET_ACCESS_KEY = S3_SECRET_KEY;
delete process.env.AWS_SESSION_TOKEN;
delete process.env.AWS_PROFILE;

async function driverFor(server: S3TestServer, bucket: string): Promise<S3Storage> {
  const config = loadConfig({ DATA_DIR: '/nonexistent-unused', STORAGE_URL: `s3://${bucket}?endpoint=${server.endpoint}&region=us-east-1&forcePathStyle=true` });
  return (await createStorage(config)) as S3Storage;
}

function rawClient(server: S3TestServer): S3Client {
  return new S3Client({ region: 'us-east-1', endpoint: server.endpoint, forcePathStyle: true, credentials: { accessKeyId: S3_ACCESS_KEY, secretAccessKey: S3_SECRET_KEY } });
}

const servers: S3TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
});

storageContract('s3, one shared bucket (organizations as prefixes)', async () => {
  const server = await startS3Server({ buckets: [SHARED] });
  servers.push(server);
  const driver = await driverFor(server, SHARED);
  return {
    driver,
    async teardown() {
      await driver.close();
      // Presigned requests really went through the verifier, and some were refused by it.
      expect(server.stats.verified).toBeGreaterThan(10);
      expect(server.stats.refused).toBeGreaterThan(3);
    },
  };
}, { enforcesMaxBytes: false, listsInKeyOrder: false });

storageContract('s3, one bucket per organization', async () => {
  const server = await startS3Server();
  servers.push(server);
  const driver = await driverFor(server, '');
  return {
    driver,
    async teardown() {
      await driver.close();
      expect(server.stats.refused).toBeGreaterThan(3);
    },
  };
}, { enforcesMaxBytes: false, listsInKeyOrder: false });

describe('s3 layouts as seen in S3', () => {
  let server: S3TestServer;
  let raw: S3Client;
  beforeAll(async () => {
    server = await startS3Server({ buckets: [SHARED] });
    servers.push(server);
    raw = rawClient(server);
  });
  afterAll(() => raw?.destroy());

  it('shared bucket: an organization bucket is a prefix with a folder marker', async () => {
    const driver = await driverFor(server, SHARED);
    const org = freshBucket();
    await driver.createBucket(org);
    await driver.put(org, 'photos/a.jpg', Buffer.from('jpeg'), { contentType: 'image/jpeg' });
    const listed = await raw.send(new ListObjectsV2Command({ Bucket: SHARED, Prefix: `${org}/` }));
    expect((listed.Contents ?? []).map((o) => o.Key).sort()).toEqual([`${org}/`, `${org}/photos/a.jpg`]);
    expect((await driver.signedDownloadUrl(org, 'photos/a.jpg', { expiresInSeconds: 60 })).url).toContain(`/${SHARED}/${org}/photos/a.jpg?`);
    // No S3 bucket is created per organization in this layout.
    expect(((await raw.send(new ListBucketsCommand({}))).Buckets ?? []).map((b) => b.Name)).toEqual([SHARED]);
    // Another organization's prefix is another bucket: nothing leaks between them.
    const other = freshBucket();
    await driver.createBucket(other);
    expect(await collect(driver.list(other, ''))).toEqual([]);
    await driver.deleteBucket(org);
    expect((await raw.send(new ListObjectsV2Command({ Bucket: SHARED, Prefix: `${org}/` }))).KeyCount ?? 0).toBe(0);
    expect(await driver.bucketExists(other)).toBe(true);
    await driver.close();
  });

  it('bucket per organization: each organization bucket is an S3 bucket', async () => {
    const driver = await driverFor(server, '');
    const org = freshBucket();
    await driver.createBucket(org);
    await driver.put(org, 'photos/a.jpg', Buffer.from('jpeg'), { contentType: 'image/jpeg' });
    expect(((await raw.send(new ListBucketsCommand({}))).Buckets ?? []).map((b) => b.Name)).toContain(org);
    expect(((await raw.send(new ListObjectsV2Command({ Bucket: org }))).Contents ?? []).map((o) => o.Key)).toEqual(['photos/a.jpg']);
    expect((await driver.signedDownloadUrl(org, 'photos/a.jpg', { expiresInSeconds: 60 })).url).toContain(`/${org}/photos/a.jpg?`);
    await driver.deleteBucket(org);
    expect(((await raw.send(new ListBucketsCommand({}))).Buckets ?? []).map((b) => b.Name)).not.toContain(org);
    await driver.close();
  });

  it('lists and deletes buckets with more objects than one S3 page', async () => {
    const driver = await driverFor(server, SHARED);
    const org = freshBucket();
    await driver.createBucket(org);
    const keys = Array.from({ length: 1005 }, (_, i) => `many/${String(i).padStart(4, '0')}.txt`);
    for (let i = 0; i < keys.length; i += 50) await Promise.all(keys.slice(i, i + 50).map((k) => driver.put(org, k, Buffer.from(k), { contentType: 'text/plain' })));
    expect((await collect(driver.list(org, 'many/'))).map((o) => o.key)).toEqual(keys);
    await driver.deleteBucket(org);
    expect(await driver.bucketExists(org)).toBe(false);
    expect(await collect(driver.list(org, ''))).toEqual([]);
    await driver.close();
    // 1,005 objects through a local S3 server: minutes, not seconds, on a loaded 2-core machine.
  }, 180_000);

  it('uploads a stream of unknown length larger than one part as a multipart upload', async () => {
    const driver = await driverFor(server, SHARED);
    const org = freshBucket();
    await driver.createBucket(org);
    const part = Buffer.alloc(1024 * 1024, 7);
    async function* gen() {
      for (let i = 0; i < 10; i++) yield part; // 10 MiB: one 8 MiB part and a 2 MiB one
    }
    const { Readable } = await import('node:stream');
    await driver.put(org, 'big.bin', Readable.from(gen()), { contentType: 'application/octet-stream' });
    const got = await driver.get(org, 'big.bin');
    expect(got.info.size).toBe(10 * 1024 * 1024);
    const bytes = await readAll(got.body);
    expect(bytes.length).toBe(10 * 1024 * 1024);
    expect(bytes.every((b) => b === 7)).toBe(true);
    await driver.deleteBucket(org);
    await driver.close();
  });
});

describe('STORAGE_URL for S3', () => {
  it('parses both layouts and their options', () => {
    expect(parseS3StorageUrl('s3://vellum-data?endpoint=http://127.0.0.1:9000/&region=eu-west-1&forcePathStyle=true')).toEqual({ bucket: 'vellum-data', endpoint: 'http://127.0.0.1:9000', region: 'eu-west-1', forcePathStyle: true });
    expect(parseS3StorageUrl('s3://?endpoint=http://minio:9000', {})).toMatchObject({ bucket: null, region: 'us-east-1', forcePathStyle: true });
    expect(parseS3StorageUrl('s3:///?endpoint=http://minio:9000&forcePathStyle=false', {})).toMatchObject({ bucket: null, forcePathStyle: false });
    expect(parseS3StorageUrl('s3:', { AWS_REGION: 'ap-south-1' })).toEqual({ bucket: null, endpoint: undefined, region: 'ap-south-1', forcePathStyle: false });
  });

  it('stops start-up with a message naming STORAGE_URL when it is wrong', () => {
    for (const bad of ['s3://Bad_Bucket', 's3://b-ok/some/path', 's3://key:secret@bucket', 's3://bucket?endpont=http://x', 's3://bucket?endpoint=ftp://x', 's3://bucket?forcePathStyle=maybe']) {
      expect(() => loadConfig({ STORAGE_URL: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ STORAGE_URL: bad }), bad).toThrow(/STORAGE_URL/);
    }
    expect(loadConfig({ STORAGE_URL: 's3://vellum-data?endpoint=http://127.0.0.1:9000' }).storage).toEqual({ kind: 's3', url: 's3://vellum-data?endpoint=http://127.0.0.1:9000' });
  });
});
