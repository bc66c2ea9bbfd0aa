// One interface for object storage; drivers: local files (default) and S3-compatible services.
import type { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';

export interface ObjectInfo {
  key: string;
  size: number;
  contentType: string;
  lastModified: Date;
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

export interface StorageDriver {
  kind: 'local' | 's3';
  /** Maps an organization bucket name (vellum-<slug>) to where it lives; see README "Storage". */
  createBucket(bucket: string): Promise<void>;
  bucketExists(bucket: string): Promise<boolean>;
  deleteBucket(bucket: string): Promise<void>;
  put(bucket: string, key: string, body: Buffer | Readable, opts: { contentType: string; contentLength?: number }): Promise<void>;
  /** Throws ObjectNotFoundError. */
  get(bucket: string, key: string): Promise<{ body: Readable; info: ObjectInfo }>;
  head(bucket: string, key: string): Promise<ObjectInfo | null>;
  delete(bucket: string, key: string): Promise<void>;
  list(bucket: string, prefix: string): AsyncIterable<ObjectInfo>;
  /** A URL that allows exactly one GET of this one object until it expires. */
  signedDownloadUrl(bucket: string, key: string, opts: { expiresInSeconds: number }): Promise<SignedUrl>;
  /** A URL that allows exactly one kind of request, a PUT of this one object with this content type, until it expires. */
  signedUploadUrl(bucket: string, key: string, opts: { expiresInSeconds: number; contentType: string; maxBytes?: number }): Promise<SignedUrl>;
  /** Mounts the routes that serve signed URLs (local driver only). */
  registerRoutes(app: FastifyInstance): Promise<void>;
  close(): Promise<void>;
}
