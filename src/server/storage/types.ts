// One interface for object storage; drivers: local files (default) and S3-compatible services.
import type { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';

/** What a listing tells about an object (S3 listings carry no content type). */
export interface ObjectSummary {
  /** Key inside the bucket, without the bucket name. */
  key: string;
  size: number;
  lastModified: Date;
}

export interface ObjectInfo extends ObjectSummary {
  contentType: string;
  /** Quoted entity tag, as an HTTP ETag header carries it. */
  etag: string;
}

export interface SignedUrl {
  url: string;
  expiresAt: Date;
}

export class ObjectNotFoundError extends Error {
  constructor(bucket: string, key: string) {
    super(`Object not found: ${bucket}/${key}`);
  }
}

export class BucketNotFoundError extends Error {
  constructor(bucket: string) {
    super(`Bucket not found: ${bucket}`);
  }
}

/** A bucket name, key, prefix or content type the storage refuses (bad characters, traversal, clashes). */
export class InvalidObjectNameError extends Error {}

export interface StorageDriver {
  kind: 'local' | 's3';
  /** Maps an organization bucket name (vellum-<slug>) to where it lives; see README "Storage". Idempotent. */
  createBucket(bucket: string): Promise<void>;
  bucketExists(bucket: string): Promise<boolean>;
  /** Removes the bucket and every object in it. Idempotent. */
  deleteBucket(bucket: string): Promise<void>;
  /** Throws BucketNotFoundError when the bucket does not exist. When contentLength is given the body must have exactly that many bytes. */
  put(bucket: string, key: string, body: Buffer | Readable, opts: { contentType: string; contentLength?: number }): Promise<void>;
  /** Throws ObjectNotFoundError. */
  get(bucket: string, key: string): Promise<{ body: Readable; info: ObjectInfo }>;
  /** The bytes alone, without the object's description (the export's image files: the local driver skips reading its sidecar). Throws ObjectNotFoundError. */
  getBody(bucket: string, key: string): Promise<Readable>;
  /**
   * The bytes of an object of at most `maxBytes` as one Buffer, read at once (the export's image
   * files: no stream and no chunk per 64 KiB); a larger one, or any on a driver that cannot tell its
   * size before reading, as getBody's stream. Throws ObjectNotFoundError.
   */
  getBytes(bucket: string, key: string, maxBytes: number): Promise<Buffer | Readable>;
  head(bucket: string, key: string): Promise<ObjectInfo | null>;
  /** Idempotent: deleting a missing object is not an error. */
  delete(bucket: string, key: string): Promise<void>;
  /** Every object whose key starts with prefix, in key order (UTF-8 byte order, like S3). A missing bucket lists nothing. */
  list(bucket: string, prefix: string): AsyncIterable<ObjectSummary>;
  /** A URL that allows GET (and HEAD) of this one object until it expires. */
  signedDownloadUrl(bucket: string, key: string, opts: { expiresInSeconds: number }): Promise<SignedUrl>;
  /**
   * A URL that allows exactly one kind of request, a PUT of this one object with this content type, until it expires.
   * maxBytes is enforced by the local driver only (an S3 presigned PUT cannot carry a size range).
   */
  signedUploadUrl(bucket: string, key: string, opts: { expiresInSeconds: number; contentType: string; maxBytes?: number }): Promise<SignedUrl>;
  /** Mounts the routes that serve signed URLs (local driver only). */
  registerRoutes(app: FastifyInstance): Promise<void>;
  close(): Promise<void>;
}
