// Tile pyramids for images too large to decode whole in a browser (a 20,000 x 20,000 image is 1.6 GB
// of pixels). Made once per image with libvips (sharp's DeepZoom output, WebP tiles of TILE_SIZE)
// and stored beside the image under <project>/tiles/<image id>/. The editor's render worker draws
// level L (1/2^L resolution) from them, loading only the visible tiles. manifest.json is written
// last: while it is missing the pyramid is not ready.
//
// Making one is a job of kind 'tiles' on the database job queue (src/server/jobs/queue.ts), one
// row per image at most (enqueueOnce): queued when a large image registers, or when a tiles
// request finds neither a pyramid nor a queued or running job. The workers of any server process
// take it (TILES_CONCURRENCY each, one by default: a 20,000 x 20,000 pyramid keeps a core busy for
// about 45 s); a worker that dies mid-build loses it to another when its lease runs out. A build
// that failed is reported once by the tiles request, which removes the job so the next request
// queues it again.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { and, eq } from 'drizzle-orm';
import sharp from 'sharp';
import type { AppContext } from '../context';
import type { JobWorkersConfig } from '../config';
import { images, jobs } from '../db/schema';
import { createJobQueue, enqueueOnce, jobIdFor, type JobQueue, type JobRow } from '../jobs/queue';
import type { ImageRow } from './images';
import { bucketFor, deleteKeys, MAX_GET_URL_SECONDS } from './stored-objects';
import { MAX_IMAGE_PIXELS } from '../../contract/images';
import { TILE_SIZE, TILED_ABOVE, type ImageTiles } from '../../contract/tiles';

export const TILES_JOB_KIND = 'tiles';
/** Claimed this often without finishing (the process died each time): the build is failed. */
const MAX_ATTEMPTS = 3;

type PyramidImage = Pick<ImageRow, 'id' | 'organizationId' | 'gcsPath' | 'imageWidth' | 'imageHeight' | 'mimeType'>;

/** Large images libvips can decode (not SVG, drawn as vectors; not BMP, which it cannot read). */
export function needsTiles(img: Pick<ImageRow, 'imageWidth' | 'imageHeight' | 'mimeType'>): boolean {
  return Math.max(img.imageWidth ?? 0, img.imageHeight ?? 0) > TILED_ABOVE && img.mimeType !== 'image/svg+xml' && img.mimeType !== 'image/bmp';
}

/** <project gcs path>/tiles/<image id>/ (the image key is <project gcs path>/images/<filename>). */
export function tilesPrefix(img: Pick<ImageRow, 'id' | 'gcsPath'>): string {
  const project = img.gcsPath.slice(0, img.gcsPath.lastIndexOf('/images/'));
  return `${project}/tiles/${img.id}/`;
}

interface Manifest {
  width: number;
  height: number;
  tile_size: number;
  /** DeepZoom's level number of full resolution: ceil(log2(max(width, height))). */
  full_level: number;
}

/** Workers of this process by app, so that a job queued here is started at once (poke). */
const workers = new WeakMap<AppContext, JobQueue>();

/** The tiles job of an image: at most one (its id is derived from the image id). */
export function tilesJobId(imageId: string): string {
  return jobIdFor(TILES_JOB_KIND, imageId);
}

/** Queues the pyramid of `img` unless a job for it is queued or running; a finished one is queued again. */
export async function queueTiles(ctx: AppContext, img: Pick<ImageRow, 'id' | 'organizationId'>): Promise<void> {
  const { queued } = await enqueueOnce(ctx, { kind: TILES_JOB_KIND, key: img.id, organizationId: img.organizationId, payload: { image_id: img.id } });
  if (queued) workers.get(ctx)?.poke();
}

/**
 * The tiles workers of this process (TILES_CONCURRENCY at once; none with 0). Started here; the
 * caller stops them when the app closes, which hands running builds back to the queue.
 */
export function startTilesWorkers(ctx: AppContext, cfg: JobWorkersConfig = ctx.config.jobs.tiles): JobQueue {
  const queue = createJobQueue(ctx, {
    kind: TILES_JOB_KIND,
    ...cfg, // concurrency, pollMs, leaseMs
    maxAttempts: MAX_ATTEMPTS,
    run: (job, signal) => runTilesJob(ctx, queue, job, signal),
    giveUp: async (job) => void (await queue.own(job.id, { status: 'failed', error: 'its build was interrupted too many times', lockedBy: null, lockedUntil: null })),
  });
  workers.set(ctx, queue);
  queue.start();
  return queue;
}

/** Builds the pyramid of the job's image (unless it is gone or small) and records how it ended. */
async function runTilesJob(ctx: AppContext, queue: JobQueue, job: JobRow, signal: AbortSignal): Promise<void> {
  const imageId = String(job.payload.image_id);
  const columns = { id: images.id, organizationId: images.organizationId, gcsPath: images.gcsPath, imageWidth: images.imageWidth, imageHeight: images.imageHeight, mimeType: images.mimeType };
  const [img] = await ctx.db.select(columns).from(images).where(eq(images.id, imageId)).limit(1);
  let error: string | null = null;
  if (img && needsTiles(img)) {
    try {
      await untilAborted(buildPyramid(ctx, img, signal), signal);
    } catch (err) {
      if (signal.aborted) throw err; // handed back (stop) or taken by another worker (lease lost)
      error = err instanceof Error ? err.message : String(err);
      ctx.log.warn({ err, imageId }, 'could not make the tile pyramid');
    }
    // Deleted while it was being made: its tiles went before these were written.
    const [still] = await ctx.db.select({ id: images.id }).from(images).where(eq(images.id, imageId)).limit(1);
    if (!still) await deleteTiles(ctx, await bucketFor(ctx, img.organizationId), [img]);
  }
  const done = { progress: 100, lockedBy: null, lockedUntil: null };
  await queue.own(job.id, error ? { ...done, status: 'failed', error } : { ...done, status: 'completed' });
}

/** Rejects with the signal's reason as soon as it aborts; the work itself goes on and is left to fail. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => undefined);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

async function readManifest(ctx: AppContext, bucket: string, prefix: string): Promise<Manifest | null> {
  if (!(await ctx.storage.head(bucket, `${prefix}manifest.json`))) return null;
  const { body } = await ctx.storage.get(bucket, `${prefix}manifest.json`);
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Manifest;
}

async function buildPyramid(ctx: AppContext, img: PyramidImage, signal: AbortSignal): Promise<void> {
  const bucket = await bucketFor(ctx, img.organizationId);
  const prefix = tilesPrefix(img);
  if (await readManifest(ctx, bucket, prefix)) return;
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'vellum-tiles-'));
  try {
    const original = path.join(dir, 'original');
    const { body } = await ctx.storage.get(bucket, img.gcsPath);
    await pipeline(body, fs.createWriteStream(original, { mode: 0o600 }), { signal });
    const info = await sharp(original, { limitInputPixels: MAX_IMAGE_PIXELS })
      .autoOrient() // as the browser shows the original (and as its stored size is measured)
      .webp({ quality: 82, effort: 2 })
      .tile({ size: TILE_SIZE, overlap: 0, layout: 'dz', container: 'fs' })
      .toFile(path.join(dir, 'pyramid'));
    const fullLevel = Math.ceil(Math.log2(Math.max(info.width, info.height)));
    const files: string[] = [];
    for (const level of await fsp.readdir(path.join(dir, 'pyramid_files'))) {
      if (!/^\d+$/.test(level)) continue;
      for (const name of await fsp.readdir(path.join(dir, 'pyramid_files', level))) if (name.endsWith('.webp')) files.push(`${level}/${name}`);
    }
    let next = 0;
    const upload = async () => {
      while (next < files.length) {
        signal.throwIfAborted();
        const rel = files[next++]!;
        await ctx.storage.put(bucket, `${prefix}${rel}`, await fsp.readFile(path.join(dir, 'pyramid_files', rel)), { contentType: 'image/webp' });
      }
    };
    await Promise.all(Array.from({ length: 8 }, upload));
    signal.throwIfAborted();
    const manifest: Manifest = { width: info.width, height: info.height, tile_size: TILE_SIZE, full_level: fullLevel };
    await ctx.storage.put(bucket, `${prefix}manifest.json`, Buffer.from(JSON.stringify(manifest)), { contentType: 'application/json' });
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

/**
 * What the editor needs to draw the image from tiles: for each level L it uses (1/2^L resolution,
 * down to one tile for the whole image), the grid and a signed URL per tile, row by row. Queues
 * the pyramid when it is missing and no job is queued or running; reports a failed build once.
 */
export async function imageTiles(ctx: AppContext, img: PyramidImage): Promise<ImageTiles> {
  if (!needsTiles(img)) return { status: 'none' };
  const bucket = await bucketFor(ctx, img.organizationId);
  const prefix = tilesPrefix(img);
  const manifest = await readManifest(ctx, bucket, prefix);
  if (!manifest) {
    const id = tilesJobId(img.id);
    const [job] = await ctx.db.select({ status: jobs.status, error: jobs.error }).from(jobs).where(eq(jobs.id, id)).limit(1);
    if (job?.status === 'failed') {
      await ctx.db.delete(jobs).where(and(eq(jobs.id, id), eq(jobs.status, 'failed'))); // the next request tries again
      return { status: 'failed', error: `The image could not be prepared for viewing: ${job.error ?? 'unknown error'}` };
    }
    if (job?.status !== 'queued' && job?.status !== 'running') await queueTiles(ctx, img);
    return { status: 'pending' };
  }
  const { width, height, tile_size: size, full_level: full } = manifest;
  const top = Math.max(0, Math.ceil(Math.log2(Math.max(width, height) / size)));
  const levels: Extract<ImageTiles, { status: 'ready' }>['levels'] = [];
  let expiresAt = '';
  for (let L = 0; L <= top; L++) {
    const w = Math.ceil(width / 2 ** L), h = Math.ceil(height / 2 ** L);
    const cols = Math.ceil(w / size), rows = Math.ceil(h / size);
    const urls: string[] = [];
    for (let y = 0; y < rows; y++) {
      for (let x = 0; x < cols; x++) {
        // No longer than any signed GET URL (read here, not at load: images.ts imports this module).
        const signed = await ctx.storage.signedDownloadUrl(bucket, `${prefix}${full - L}/${x}_${y}.webp`, { expiresInSeconds: MAX_GET_URL_SECONDS });
        urls.push(signed.url);
        expiresAt = signed.expiresAt.toISOString();
      }
    }
    levels.push({ level: L, cols, rows, urls });
  }
  return { status: 'ready', width, height, tile_size: size, levels, expires_at: expiresAt };
}

/** Removes the pyramids of deleted images (their keys are listed, not derived). */
export async function deleteTiles(ctx: AppContext, bucket: string, imgs: Pick<ImageRow, 'id' | 'gcsPath'>[]): Promise<number> {
  const keys: string[] = [];
  for (const img of imgs) for await (const o of ctx.storage.list(bucket, tilesPrefix(img))) keys.push(o.key);
  return keys.length ? deleteKeys(ctx, bucket, keys) : 0;
}
