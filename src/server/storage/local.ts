// Local-file storage driver (the embedded default).
//
// Layout under the storage dir (STORAGE_URL=file:///path, default $DATA_DIR/objects):
//   <dir>/<bucket>/<key>          the object bytes, a plain file
//   <dir>/.meta/<bucket>/<key>    JSON sidecar: content type, size, ETag, and the inode of the object it
//                                 describes (a tree mirroring the objects, so no sidecar name can clash
//                                 with a key; buckets never start with ".", so neither can these dirs)
//   <dir>/.tmp/                   uploads in progress, renamed into place when complete
// A write goes to a temp file, is fsynced, then renamed over the object, so a reader or a crash sees
// the old object or the new one, never half of one. The sidecar is renamed after the object; if a
// crash falls between the two, the inode check below notices the sidecar is stale.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { createHash, randomUUID, type KeyObject } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config';
import { loadOrCreateSecret } from '../secrets';
import { checkBucket, checkContentType, checkExpiry, checkKey, checkLength, checkPrefix, compareKeys, encodeKeyPath } from './names';
import { signGrant, tokenKey } from './tokens';
import { BodySizeError, OBJECT_ROUTE_PREFIX, registerLocalRoutes } from './local-routes';

export { BodySizeError, OBJECT_ROUTE_PREFIX };
import {
  BucketNotFoundError,
  InvalidObjectNameError,
  ObjectNotFoundError,
  type ObjectInfo,
  type ObjectSummary,
  type SignedUrl,
  type StorageDriver,
} from './types';

/** Largest upload through a signed URL that names no cap of its own. */
export const DEFAULT_MAX_UPLOAD_BYTES = 250 * 1024 * 1024;
const TEMP_MAX_AGE_MS = 60 * 60 * 1000;
const FALLBACK_CONTENT_TYPE = 'application/octet-stream';

interface Sidecar {
  contentType: string;
  size: number;
  etag: string;
  ino: number;
}


function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function clashError(err: unknown, key: string): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EISDIR' || code === 'ENOTDIR' || code === 'EEXIST' || code === 'ENOTEMPTY') {
    return new InvalidObjectNameError(`Key "${key}" clashes with an existing object or folder of the same name`);
  }
  if (code === 'ENAMETOOLONG') return new InvalidObjectNameError(`Key "${key}" has a path segment that is too long`);
  return err as Error;
}

/** Counts and hashes bytes on their way to disk; fails as soon as the body is longer than allowed. */
function meter(limit: number, tooLarge: () => BodySizeError) {
  const hash = createHash('md5');
  let bytes = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      bytes += chunk.length;
      if (bytes > limit) return cb(tooLarge());
      hash.update(chunk);
      cb(null, chunk);
    },
  });
  return { stream, bytes: () => bytes, etag: () => `"${hash.digest('hex')}"` };
}

async function fsyncPath(p: string): Promise<void> {
  const fh = await fsp.open(p, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

export class LocalStorage implements StorageDriver {
  readonly kind = 'local' as const;
  readonly root: string;
  private readonly metaRoot: string;
  private readonly tmpRoot: string;
  private readonly key: KeyObject;

  private constructor(
    root: string,
    secret: string,
    private readonly publicUrl: string,
    readonly maxUploadBytes: number,
  ) {
    this.root = path.resolve(root);
    this.metaRoot = path.join(this.root, '.meta');
    this.tmpRoot = path.join(this.root, '.tmp');
    this.key = tokenKey(secret);
  }

  static async open(config: Config, opts: { maxUploadBytes?: number } = {}): Promise<LocalStorage> {
    if (config.storage.kind !== 'local') throw new Error('LocalStorage needs a local storage configuration');
    const storage = new LocalStorage(config.storage.dir, loadOrCreateSecret(config.dataDir, 'storage_secret'), config.publicUrl, opts.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES);
    await fsp.mkdir(storage.metaRoot, { recursive: true });
    await fsp.mkdir(storage.tmpRoot, { recursive: true });
    await storage.sweepTemp();
    return storage;
  }

  /** Removes uploads abandoned by a crash. Recent ones are left alone: another process may be writing them. */
  private async sweepTemp(): Promise<void> {
    const now = Date.now();
    for (const name of await fsp.readdir(this.tmpRoot)) {
      const p = path.join(this.tmpRoot, name);
      try {
        const st = await fsp.lstat(p);
        if (now - st.mtimeMs > TEMP_MAX_AGE_MS) await fsp.rm(p, { recursive: true, force: true });
      } catch {
        /* already gone */
      }
    }
  }

  // --- paths: every name is validated, then the resolved path is checked to stay inside its bucket.

  private bucketDir(bucket: string): string {
    return path.join(this.root, checkBucket(bucket));
  }

  private paths(bucket: string, key: string): { file: string; meta: string; bucketDir: string; metaDir: string } {
    checkKey(key);
    const bucketDir = this.bucketDir(bucket);
    const metaDir = path.join(this.metaRoot, bucket);
    const file = path.resolve(bucketDir, ...key.split('/'));
    const meta = path.resolve(metaDir, ...key.split('/'));
    if (!file.startsWith(bucketDir + path.sep) || !meta.startsWith(metaDir + path.sep)) throw new InvalidObjectNameError(`Invalid key "${key}"`);
    return { file, meta, bucketDir, metaDir };
  }

  // --- buckets

  async createBucket(bucket: string): Promise<void> {
    await fsp.mkdir(this.bucketDir(bucket), { recursive: true });
    await fsp.mkdir(path.join(this.metaRoot, bucket), { recursive: true });
  }

  async bucketExists(bucket: string): Promise<boolean> {
    try {
      return (await fsp.stat(this.bucketDir(bucket))).isDirectory();
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
  }

  async deleteBucket(bucket: string): Promise<void> {
    // Renamed out of the way first, so the bucket disappears at once even while the removal runs.
    for (const dir of [this.bucketDir(bucket), path.join(this.metaRoot, bucket)]) {
      const trash = path.join(this.tmpRoot, `trash-${randomUUID()}`);
      try {
        await fsp.rename(dir, trash);
      } catch (err) {
        if (isMissing(err)) continue;
        throw err;
      }
      await fsp.rm(trash, { recursive: true, force: true });
    }
  }

  // --- objects

  async put(bucket: string, key: string, body: Buffer | Readable, opts: { contentType: string; contentLength?: number }): Promise<void> {
    checkLength(opts.contentLength);
    if (Buffer.isBuffer(body) && opts.contentLength !== undefined && opts.contentLength !== body.length) {
      throw new BodySizeError('length_mismatch', `The body has ${body.length} bytes, not the ${opts.contentLength} announced`);
    }
    await this.write(bucket, key, Buffer.isBuffer(body) ? Readable.from([body]) : body, { contentType: opts.contentType, expectedLength: opts.contentLength });
  }

  /** Streams body into place atomically. Used by put() and by the signed upload route (with a cap). */
  async write(bucket: string, key: string, body: Readable, opts: { contentType: string; expectedLength?: number; maxBytes?: number }): Promise<ObjectInfo> {
    const contentType = checkContentType(opts.contentType);
    const { file, meta, bucketDir, metaDir } = this.paths(bucket, key);
    if (!(await this.bucketExists(bucket))) {
      body.resume();
      throw new BucketNotFoundError(bucket);
    }
    const tmp = path.join(this.tmpRoot, randomUUID());
    const tmpMeta = `${tmp}.meta`;
    try {
      const limit = Math.min(opts.maxBytes ?? Infinity, opts.expectedLength ?? Infinity);
      const m = meter(limit, () =>
        opts.maxBytes !== undefined && limit === opts.maxBytes
          ? new BodySizeError('too_large', `The body is larger than the ${opts.maxBytes} bytes allowed`)
          : new BodySizeError('length_mismatch', `The body is longer than the ${opts.expectedLength} bytes announced`),
      );
      await pipeline(body, m.stream, fs.createWriteStream(tmp, { flags: 'wx', mode: 0o640 }));
      if (opts.expectedLength !== undefined && m.bytes() !== opts.expectedLength) {
        throw new BodySizeError('length_mismatch', `The body has ${m.bytes()} bytes, not the ${opts.expectedLength} announced`);
      }
      const fh = await fsp.open(tmp, 'r');
      let ino: number;
      let mtime: Date;
      try {
        await fh.sync();
        const st = await fh.stat();
        ino = st.ino;
        mtime = st.mtime;
      } finally {
        await fh.close();
      }
      const sidecar: Sidecar = { contentType, size: m.bytes(), etag: m.etag(), ino };
      await fsp.writeFile(tmpMeta, JSON.stringify(sidecar), { flag: 'wx', mode: 0o640 });
      await fsyncPath(tmpMeta);
      await this.moveIntoPlace(tmp, file, bucketDir, key);
      await this.moveIntoPlace(tmpMeta, meta, metaDir, key);
      return { key, size: sidecar.size, contentType, etag: sidecar.etag, lastModified: mtime };
    } finally {
      await fsp.rm(tmp, { force: true });
      await fsp.rm(tmpMeta, { force: true });
    }
  }

  private async moveIntoPlace(from: string, to: string, top: string, key: string): Promise<void> {
    // A concurrent delete may prune the parent folder between mkdir and rename: try again once.
    for (let attempt = 0; ; attempt++) {
      try {
        // mkdir -p must not bring back a bucket deleted while this upload was running.
        if (!(await this.exists(top))) throw new BucketNotFoundError(path.basename(top));
        await fsp.mkdir(path.dirname(to), { recursive: true });
        await fsp.rename(from, to);
        break;
      } catch (err) {
        if (err instanceof BucketNotFoundError) throw err;
        if ((err as NodeJS.ErrnoException).code === 'ENOENT' && attempt === 0 && (await this.exists(top))) continue;
        if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !(await this.exists(top))) throw new BucketNotFoundError(path.basename(top));
        throw clashError(err, key);
      }
    }
    // Make the rename itself durable.
    try {
      await fsyncPath(path.dirname(to));
    } catch {
      /* some filesystems refuse fsync on directories; the data itself is synced */
    }
  }

  private async exists(p: string): Promise<boolean> {
    try {
      await fsp.stat(p);
      return true;
    } catch {
      return false;
    }
  }

  /** Sidecar data when it describes this very file, else what can be said without it. */
  private async describe(key: string, metaPath: string, st: fs.Stats): Promise<ObjectInfo> {
    let sidecar: Sidecar | null = null;
    try {
      const parsed = JSON.parse(await fsp.readFile(metaPath, 'utf8')) as Sidecar;
      if (parsed.ino === st.ino && parsed.size === st.size) sidecar = parsed;
    } catch {
      /* missing or unreadable: fall back below */
    }
    return {
      key,
      size: st.size,
      lastModified: st.mtime,
      contentType: sidecar?.contentType ?? FALLBACK_CONTENT_TYPE,
      etag: sidecar?.etag ?? `"${st.ino.toString(16)}-${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`,
    };
  }

  /**
   * Opens an object for reading. The returned handle pins the file: a concurrent overwrite or delete
   * does not change what is read. The caller closes it (a read stream from it closes it at the end).
   */
  async open(bucket: string, key: string): Promise<{ handle: fsp.FileHandle; info: ObjectInfo } | null> {
    const { meta } = this.paths(bucket, key);
    const opened = await this.openFile(bucket, key);
    if (!opened) return null;
    try {
      return { handle: opened.handle, info: await this.describe(key, meta, opened.st) };
    } catch (err) {
      await opened.handle.close();
      throw err;
    }
  }

  /** The object's file opened for reading, with its stat; null when there is none. */
  private async openFile(bucket: string, key: string): Promise<{ handle: fsp.FileHandle; st: fs.Stats } | null> {
    const { file } = this.paths(bucket, key);
    let handle: fsp.FileHandle;
    try {
      // O_NOFOLLOW: a symlink planted in the storage dir is never followed out of it.
      handle = await fsp.open(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (isMissing(err) || code === 'ELOOP' || code === 'EISDIR') return null;
      throw err;
    }
    try {
      const st = await handle.stat();
      if (!st.isFile()) {
        await handle.close();
        return null;
      }
      return { handle, st };
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  async get(bucket: string, key: string): Promise<{ body: Readable; info: ObjectInfo }> {
    const opened = await this.open(bucket, key);
    if (!opened) throw new ObjectNotFoundError(bucket, key);
    return { body: opened.handle.createReadStream(), info: opened.info };
  }

  async getBody(bucket: string, key: string): Promise<Readable> {
    const opened = await this.openFile(bucket, key);
    if (!opened) throw new ObjectNotFoundError(bucket, key);
    return opened.handle.createReadStream();
  }

  async getBytes(bucket: string, key: string, maxBytes: number): Promise<Buffer | Readable> {
    const opened = await this.openFile(bucket, key);
    if (!opened) throw new ObjectNotFoundError(bucket, key);
    const { handle, st } = opened;
    if (st.size > maxBytes) return handle.createReadStream();
    try {
      // Objects are replaced by rename, never written in place: the open file keeps its size.
      const bytes = Buffer.allocUnsafe(st.size);
      let filled = 0;
      while (filled < bytes.length) {
        const { bytesRead } = await handle.read(bytes, filled, bytes.length - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return filled === bytes.length ? bytes : bytes.subarray(0, filled);
    } finally {
      await handle.close();
    }
  }

  async head(bucket: string, key: string): Promise<ObjectInfo | null> {
    const { file, meta } = this.paths(bucket, key);
    try {
      const st = await fsp.lstat(file);
      return st.isFile() ? await this.describe(key, meta, st) : null;
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async delete(bucket: string, key: string): Promise<void> {
    const { file, meta, bucketDir, metaDir } = this.paths(bucket, key);
    for (const [p, top] of [
      [file, bucketDir],
      [meta, metaDir],
    ] as const) {
      try {
        await fsp.unlink(p);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        // A folder of that name is not an object: nothing to delete.
        if (isMissing(err) || code === 'EISDIR' || code === 'EPERM') continue;
        throw err;
      }
      await this.pruneEmptyDirs(path.dirname(p), top);
    }
  }

  /** Folders exist only to hold keys: remove the ones a delete left empty, up to the bucket. */
  private async pruneEmptyDirs(dir: string, top: string): Promise<void> {
    while (dir.startsWith(top + path.sep)) {
      try {
        await fsp.rmdir(dir);
      } catch {
        return; // not empty (or already gone): stop
      }
      dir = path.dirname(dir);
    }
  }

  async *list(bucket: string, prefix: string): AsyncIterable<ObjectSummary> {
    checkPrefix(prefix);
    const bucketDir = this.bucketDir(bucket);
    const cut = prefix.lastIndexOf('/');
    const startKey = cut >= 0 ? prefix.slice(0, cut + 1) : '';
    yield* this.walk(path.join(bucketDir, ...startKey.split('/').filter(Boolean)), startKey, prefix);
  }

  /** Depth first, siblings sorted as "name" for files and "name/" for folders: that is exactly key order. */
  private async *walk(dir: string, dirKey: string, prefix: string): AsyncGenerator<ObjectSummary> {
    let entries: fs.Dirent[];
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (isMissing(err)) return;
      throw err;
    }
    const items = entries
      .filter((e) => e.isFile() || e.isDirectory())
      .map((e) => ({ name: e.name, dir: e.isDirectory(), key: `${dirKey}${e.name}${e.isDirectory() ? '/' : ''}` }))
      .sort((a, b) => compareKeys(a.key, b.key));
    for (const item of items) {
      if (item.dir) {
        if (item.key.startsWith(prefix) || prefix.startsWith(item.key)) yield* this.walk(path.join(dir, item.name), item.key, prefix);
      } else if (item.key.startsWith(prefix)) {
        try {
          const st = await fsp.lstat(path.join(dir, item.name));
          yield { key: item.key, size: st.size, lastModified: st.mtime };
        } catch (err) {
          if (!isMissing(err)) throw err; // deleted while listing
        }
      }
    }
  }

  // --- signed URLs

  private urlFor(bucket: string, key: string, token: string): string {
    return `${this.publicUrl}${OBJECT_ROUTE_PREFIX}${bucket}/${encodeKeyPath(key)}?token=${encodeURIComponent(token)}`;
  }

  private expiry(seconds: number): Date {
    // JWT expiry has whole seconds: report exactly the instant the token stops working.
    return new Date((Math.floor(Date.now() / 1000) + checkExpiry(seconds)) * 1000);
  }

  async signedDownloadUrl(bucket: string, key: string, opts: { expiresInSeconds: number }): Promise<SignedUrl> {
    this.paths(bucket, key);
    const expiresAt = this.expiry(opts.expiresInSeconds);
    const token = await signGrant(this.key, { bucket, key, method: 'GET' }, expiresAt);
    return { url: this.urlFor(bucket, key, token), expiresAt };
  }

  async signedUploadUrl(bucket: string, key: string, opts: { expiresInSeconds: number; contentType: string; maxBytes?: number }): Promise<SignedUrl> {
    this.paths(bucket, key);
    const contentType = checkContentType(opts.contentType);
    if (opts.maxBytes !== undefined && (!Number.isSafeInteger(opts.maxBytes) || opts.maxBytes < 0)) throw new RangeError(`maxBytes must be a non-negative integer (got ${opts.maxBytes})`);
    const expiresAt = this.expiry(opts.expiresInSeconds);
    const token = await signGrant(this.key, { bucket, key, method: 'PUT', contentType, maxBytes: opts.maxBytes }, expiresAt);
    return { url: this.urlFor(bucket, key, token), expiresAt };
  }

  /** @internal for the routes */
  get tokenKey(): KeyObject {
    return this.key;
  }

  async registerRoutes(app: FastifyInstance): Promise<void> {
    await registerLocalRoutes(app, this);
  }

  async close(): Promise<void> {
    /* nothing held open between calls */
  }
}
