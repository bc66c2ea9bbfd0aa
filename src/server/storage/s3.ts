// S3-compatible storage driver (AWS S3, MinIO, R2, GCS interop), chosen by STORAGE_URL=s3://...
//
// Two layouts, picked by whether STORAGE_URL names a bucket:
// - One shared bucket: STORAGE_URL=s3://vellum-data?endpoint=...&region=...&forcePathStyle=true
//   Every organization bucket `vellum-<slug>` is the prefix `vellum-<slug>/` inside `vellum-data`, so
//   the object (vellum-acme, photos/a.jpg) is s3://vellum-data/vellum-acme/photos/a.jpg. The
//   organization "bucket" exists while the zero-byte marker object `vellum-<slug>/` does (the folder
//   marker S3 consoles create; keys never end in "/", so it cannot clash with an object). The
//   operator creates vellum-data; the server needs only object permissions on it.
// - One bucket per organization: STORAGE_URL=s3://?endpoint=... (or s3:///?..., or plain s3://)
//   Every organization gets its own S3 bucket named `vellum-<slug>`; the server needs permission to
//   create and delete buckets. Bucket names are global on AWS: another account may own one already.
// Credentials come from the SDK's default chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY /
// AWS_SESSION_TOKEN, profiles, instance roles). Signed URLs are SigV4 presigned URLs straight to the
// service; a presigned URL made with temporary credentials stops working when they expire. The upload
// URL signs the Content-Type header; it cannot carry a size cap (only POST policies can), so maxBytes is
// not enforced here. registerRoutes mounts nothing: clients talk to the service directly.
import { Readable, Transform } from 'node:stream';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  CreateMultipartUploadCommand,
  UploadPartCommand,
  CompleteMultipartUploadCommand,
  AbortMultipartUploadCommand,
  S3Client,
  type CompletedPart,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { checkBucket, checkContentType, checkExpiry, checkKey, checkLength, checkPrefix } from './names';
import { parseS3StorageUrl, type S3Location } from './s3-url';
import { BucketNotFoundError, ObjectNotFoundError, type ObjectInfo, type ObjectSummary, type SignedUrl, type StorageDriver } from './types';

/** Streams of unknown length go up in parts of this size (S3 wants at least 5 MiB but the last). */
const PART_SIZE = 8 * 1024 * 1024;
const DELETE_BATCH = 1000;
const NOT_FOUND = new Set(['NotFound', 'NoSuchKey', 'NoSuchBucket']);

function errorName(err: unknown): string {
  return (err as { name?: string; Code?: string }).Code ?? (err as { name?: string }).name ?? '';
}

function isNotFound(err: unknown): boolean {
  return NOT_FOUND.has(errorName(err)) || (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;
}

/** Fails the upload when a stream's length differs from the one announced (S3 would wait or cut it). */
function exactLength(expected: number): Transform {
  let bytes = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      bytes += chunk.length;
      if (bytes > expected) return cb(new Error(`The body is longer than the ${expected} bytes announced`));
      cb(null, chunk);
    },
    flush(cb) {
      cb(bytes === expected ? null : new Error(`The body has ${bytes} bytes, not the ${expected} announced`));
    },
  });
}

/** Keys of SVG objects: uploads are named by their type (register checks the bytes against the extension). */
const isSvgKey = (key: string) => /\.svgz?$/i.test(key);
const SVG_AS_ATTACHMENT = { ResponseContentDisposition: 'attachment', ResponseContentType: 'image/svg+xml' } as const;

export class S3Storage implements StorageDriver {
  readonly kind = 's3' as const;
  readonly client: S3Client;

  constructor(readonly location: S3Location) {
    this.client = new S3Client({
      region: location.region,
      endpoint: location.endpoint,
      forcePathStyle: location.forcePathStyle,
      // Only checksums the operation requires: the default (CRC32 on every PutObject) puts a checksum of
      // the empty body into presigned PUT URLs, and several S3-compatible services reject the headers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  static fromUrl(url: string): S3Storage {
    return new S3Storage(parseS3StorageUrl(url));
  }

  /** Where an organization bucket's objects live in S3. */
  private scope(bucket: string): { Bucket: string; prefix: string } {
    checkBucket(bucket);
    return this.location.bucket ? { Bucket: this.location.bucket, prefix: `${bucket}/` } : { Bucket: bucket, prefix: '' };
  }

  private where(bucket: string, key: string): { Bucket: string; Key: string } {
    checkKey(key);
    const { Bucket, prefix } = this.scope(bucket);
    return { Bucket, Key: prefix + key };
  }

  // --- buckets

  async createBucket(bucket: string): Promise<void> {
    const { Bucket, prefix } = this.scope(bucket);
    if (prefix) {
      await this.client.send(new PutObjectCommand({ Bucket, Key: prefix, Body: Buffer.alloc(0), ContentType: 'application/x-directory' }));
      return;
    }
    try {
      await this.client.send(new CreateBucketCommand({ Bucket }));
    } catch (err) {
      const name = errorName(err);
      if (name === 'BucketAlreadyOwnedByYou') return;
      // Some services answer AlreadyExists for our own bucket too: it is ours if we can open it.
      if (name === 'BucketAlreadyExists' && (await this.bucketExists(bucket).catch(() => false))) return;
      throw err;
    }
  }

  async bucketExists(bucket: string): Promise<boolean> {
    const { Bucket, prefix } = this.scope(bucket);
    try {
      if (prefix) await this.client.send(new HeadObjectCommand({ Bucket, Key: prefix }));
      else await this.client.send(new HeadBucketCommand({ Bucket }));
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  async deleteBucket(bucket: string): Promise<void> {
    const { Bucket, prefix } = this.scope(bucket);
    // Objects first, the bucket (or its marker) last: an interrupted delete can simply be run again.
    let batch: string[] = [];
    try {
      for await (const page of this.pages(Bucket, prefix)) {
        for (const key of page) if (key !== prefix) batch.push(key);
        while (batch.length >= DELETE_BATCH) await this.deleteKeys(Bucket, batch.splice(0, DELETE_BATCH));
      }
      if (batch.length) await this.deleteKeys(Bucket, batch);
      batch = [];
      if (prefix) await this.client.send(new DeleteObjectCommand({ Bucket, Key: prefix }));
      else await this.client.send(new DeleteBucketCommand({ Bucket }));
    } catch (err) {
      if (!prefix && errorName(err) === 'NoSuchBucket') return;
      throw err;
    }
  }

  private async deleteKeys(Bucket: string, keys: string[]): Promise<void> {
    try {
      const res = await this.client.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true } }));
      const failed = (res.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
      if (failed.length) throw new Error(`Could not delete ${failed.length} object(s), first: ${failed[0].Key}: ${failed[0].Message ?? failed[0].Code}`);
    } catch (err) {
      // GCS's XML API has no multi-object delete: one by one instead.
      if (errorName(err) !== 'NotImplemented') throw err;
      for (const Key of keys) await this.client.send(new DeleteObjectCommand({ Bucket, Key }));
    }
  }

  /** Raw keys under a prefix of an S3 bucket, page by page. A missing bucket has no pages. */
  private async *pages(Bucket: string, Prefix: string): AsyncGenerator<string[]> {
    for await (const page of this.listPages(Bucket, Prefix)) yield page.map((o) => o.Key);
  }

  private async *listPages(Bucket: string, Prefix: string): AsyncGenerator<{ Key: string; Size: number; LastModified: Date }[]> {
    let ContinuationToken: string | undefined;
    do {
      let res;
      try {
        res = await this.client.send(new ListObjectsV2Command({ Bucket, Prefix, ContinuationToken }));
      } catch (err) {
        if (errorName(err) === 'NoSuchBucket') return;
        throw err;
      }
      yield (res.Contents ?? []).filter((o) => o.Key !== undefined).map((o) => ({ Key: o.Key!, Size: o.Size ?? 0, LastModified: o.LastModified ?? new Date(0) }));
      ContinuationToken = res.IsTruncated ? res.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }

  // --- objects

  async put(bucket: string, key: string, body: Buffer | Readable, opts: { contentType: string; contentLength?: number }): Promise<void> {
    const target = this.where(bucket, key);
    const ContentType = checkContentType(opts.contentType);
    checkLength(opts.contentLength);
    if (Buffer.isBuffer(body) && opts.contentLength !== undefined && opts.contentLength !== body.length) {
      throw new Error(`The body has ${body.length} bytes, not the ${opts.contentLength} announced`);
    }
    // In the shared layout a missing organization bucket would not stop S3: check its marker.
    if (this.location.bucket && !(await this.bucketExists(bucket))) {
      if (!Buffer.isBuffer(body)) body.resume();
      throw new BucketNotFoundError(bucket);
    }
    try {
      if (Buffer.isBuffer(body)) {
        await this.client.send(new PutObjectCommand({ ...target, Body: body, ContentType, ContentLength: body.length }));
      } else if (opts.contentLength !== undefined) {
        // A body of the wrong length aborts the request: S3 must never store a short or cut object.
        const abort = new AbortController();
        let lengthError: Error | undefined;
        const checked = exactLength(opts.contentLength);
        checked.on('error', (err) => {
          lengthError = err;
          abort.abort(err);
        });
        body.once('error', (err) => checked.destroy(err));
        body.pipe(checked);
        try {
          await this.client.send(new PutObjectCommand({ ...target, Body: checked, ContentType, ContentLength: opts.contentLength }), { abortSignal: abort.signal });
        } catch (err) {
          throw lengthError ?? err;
        }
      } else {
        await this.putUnknownLength(target, body, ContentType);
      }
    } catch (err) {
      if (errorName(err) === 'NoSuchBucket') throw new BucketNotFoundError(bucket);
      throw err;
    }
  }

  /** One PutObject when the stream fits in a part, else a multipart upload holding one part in memory at a time. */
  private async putUnknownLength(target: { Bucket: string; Key: string }, body: Readable, ContentType: string): Promise<void> {
    let chunks: Buffer[] = [];
    let size = 0;
    let uploadId: string | undefined;
    const parts: CompletedPart[] = [];
    const flushPart = async () => {
      const part = Buffer.concat(chunks, size);
      chunks = [];
      size = 0;
      if (!uploadId) uploadId = (await this.client.send(new CreateMultipartUploadCommand({ ...target, ContentType }))).UploadId;
      const PartNumber = parts.length + 1;
      const res = await this.client.send(new UploadPartCommand({ ...target, UploadId: uploadId, PartNumber, Body: part, ContentLength: part.length }));
      parts.push({ ETag: res.ETag, PartNumber });
    };
    try {
      for await (const chunk of body) {
        const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
        chunks.push(buf);
        size += buf.length;
        if (size >= PART_SIZE) await flushPart();
      }
      if (!uploadId) {
        const whole = Buffer.concat(chunks, size);
        await this.client.send(new PutObjectCommand({ ...target, Body: whole, ContentType, ContentLength: whole.length }));
        return;
      }
      if (size > 0) await flushPart();
      await this.client.send(new CompleteMultipartUploadCommand({ ...target, UploadId: uploadId, MultipartUpload: { Parts: parts } }));
    } catch (err) {
      if (uploadId) await this.client.send(new AbortMultipartUploadCommand({ ...target, UploadId: uploadId })).catch(() => undefined);
      throw err;
    }
  }

  async getBody(bucket: string, key: string): Promise<Readable> {
    return (await this.get(bucket, key)).body;
  }

  /** A stream always: an object's bytes arrive over the network as they come. */
  async getBytes(bucket: string, key: string): Promise<Readable> {
    return this.getBody(bucket, key);
  }

  async get(bucket: string, key: string): Promise<{ body: Readable; info: ObjectInfo }> {
    const target = this.where(bucket, key);
    try {
      const res = await this.client.send(new GetObjectCommand(target));
      if (!(res.Body instanceof Readable)) throw new Error('The S3 client returned a body that is not a Node stream');
      return {
        body: res.Body,
        info: { key, size: res.ContentLength ?? 0, contentType: res.ContentType ?? 'application/octet-stream', etag: res.ETag ?? '""', lastModified: res.LastModified ?? new Date(0) },
      };
    } catch (err) {
      if (isNotFound(err)) throw new ObjectNotFoundError(bucket, key);
      throw err;
    }
  }

  async head(bucket: string, key: string): Promise<ObjectInfo | null> {
    const target = this.where(bucket, key);
    try {
      const res = await this.client.send(new HeadObjectCommand(target));
      return { key, size: res.ContentLength ?? 0, contentType: res.ContentType ?? 'application/octet-stream', etag: res.ETag ?? '""', lastModified: res.LastModified ?? new Date(0) };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async delete(bucket: string, key: string): Promise<void> {
    const target = this.where(bucket, key);
    try {
      await this.client.send(new DeleteObjectCommand(target));
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  async *list(bucket: string, prefix: string): AsyncIterable<ObjectSummary> {
    checkPrefix(prefix);
    const scope = this.scope(bucket);
    for await (const page of this.listPages(scope.Bucket, scope.prefix + prefix)) {
      for (const o of page) {
        const key = o.Key.slice(scope.prefix.length);
        if (key === '') continue; // the organization bucket's marker
        yield { key, size: o.Size, lastModified: o.LastModified };
      }
    }
  }

  // --- signed URLs

  /** X-Amz-Date has whole seconds; signing at a whole second makes expiresAt exact. */
  private signingWindow(seconds: number): { signingDate: Date; expiresIn: number; expiresAt: Date } {
    const expiresIn = checkExpiry(seconds);
    const signingDate = new Date(Math.floor(Date.now() / 1000) * 1000);
    return { signingDate, expiresIn, expiresAt: new Date(signingDate.getTime() + expiresIn * 1000) };
  }

  async signedDownloadUrl(bucket: string, key: string, opts: { expiresInSeconds: number }): Promise<SignedUrl> {
    const target = this.where(bucket, key);
    const { signingDate, expiresIn, expiresAt } = this.signingWindow(opts.expiresInSeconds);
    // A cached copy must not outlive the URL that fetched it. An SVG is a document that can hold
    // links and script: the bucket origin serves it as a download, never inline (an <img> still
    // draws it, and the app shows the WebP thumbnail or draws the original in <img>/canvas).
    const command = new GetObjectCommand({ ...target, ResponseCacheControl: `private, max-age=${expiresIn}`, ...(isSvgKey(key) ? SVG_AS_ATTACHMENT : {}) });
    return { url: await getSignedUrl(this.client, command, { expiresIn, signingDate }), expiresAt };
  }

  async signedUploadUrl(bucket: string, key: string, opts: { expiresInSeconds: number; contentType: string; maxBytes?: number }): Promise<SignedUrl> {
    const target = this.where(bucket, key);
    const ContentType = checkContentType(opts.contentType);
    const { signingDate, expiresIn, expiresAt } = this.signingWindow(opts.expiresInSeconds);
    // content-type is unsignable by default in the presigner: sign it, so the URL takes this type only.
    const url = await getSignedUrl(this.client, new PutObjectCommand({ ...target, ContentType }), { expiresIn, signingDate, signableHeaders: new Set(['content-type']) });
    return { url, expiresAt };
  }

  async registerRoutes(): Promise<void> {
    /* presigned URLs go straight to the S3 service */
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
