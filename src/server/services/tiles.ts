// Tile pyramids for images too large to decode whole in a browser (a 20,000 x 20,000 image is 1.6 GB
// of pixels). Made once per image with libvips (sharp's DeepZoom output, WebP tiles of TILE_SIZE)
// after the upload registers, or on the first request for it, and stored beside the image under
// <project>/tiles/<image id>/. The editor's render worker draws level L (1/2^L resolution) from
// them, loading only the visible tiles. manifest.json is written last: while it is missing the
// pyramid is not ready.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import sharp from 'sharp';
import type { AppContext } from '../context';
import type { ImageRow } from './images';
import { bucketFor, deleteKeys, MAX_GET_URL_SECONDS } from './stored-objects';
import { MAX_IMAGE_PIXELS } from '../../contract/images';
import { TILE_SIZE, TILED_ABOVE, type ImageTiles } from '../../contract/tiles';


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

/** Pyramids being made in this process, by image id; a failure is kept so the editor can say why. */
const building = new Map<string, Promise<void>>();
const failures = new Map<string, string>();
/** One pyramid at a time per process: a 20,000 x 20,000 one keeps a core busy for about 45 s. */
let lane: Promise<unknown> = Promise.resolve();

/** Starts making the pyramid unless it exists or is being made; never throws (failures are kept and logged). */
export function ensureTiles(ctx: AppContext, img: PyramidImage): Promise<void> {
  let job = building.get(img.id);
  if (!job) {
    failures.delete(img.id);
    const run = lane.then(() => buildPyramid(ctx, img));
    lane = run.catch(() => undefined);
    job = run
      .catch((err: unknown) => {
        failures.set(img.id, err instanceof Error ? err.message : String(err));
        ctx.log.warn({ err, imageId: img.id }, 'could not make the tile pyramid');
      })
      .finally(() => building.delete(img.id));
    building.set(img.id, job);
  }
  return job;
}

async function readManifest(ctx: AppContext, bucket: string, prefix: string): Promise<Manifest | null> {
  if (!(await ctx.storage.head(bucket, `${prefix}manifest.json`))) return null;
  const { body } = await ctx.storage.get(bucket, `${prefix}manifest.json`);
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Manifest;
}

async function buildPyramid(ctx: AppContext, img: PyramidImage): Promise<void> {
  const bucket = await bucketFor(ctx, img.organizationId);
  const prefix = tilesPrefix(img);
  if (await readManifest(ctx, bucket, prefix)) return;
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'vellum-tiles-'));
  try {
    const original = path.join(dir, 'original');
    const { body } = await ctx.storage.get(bucket, img.gcsPath);
    await pipeline(body, fs.createWriteStream(original, { mode: 0o600 }));
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
        const rel = files[next++]!;
        await ctx.storage.put(bucket, `${prefix}${rel}`, await fsp.readFile(path.join(dir, 'pyramid_files', rel)), { contentType: 'image/webp' });
      }
    };
    await Promise.all(Array.from({ length: 8 }, upload));
    const manifest: Manifest = { width: info.width, height: info.height, tile_size: TILE_SIZE, full_level: fullLevel };
    await ctx.storage.put(bucket, `${prefix}manifest.json`, Buffer.from(JSON.stringify(manifest)), { contentType: 'application/json' });
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

/**
 * What the editor needs to draw the image from tiles: for each level L it uses (1/2^L resolution,
 * down to one tile for the whole image), the grid and a signed URL per tile, row by row. Starts
 * the pyramid when it is missing.
 */
export async function imageTiles(ctx: AppContext, img: PyramidImage): Promise<ImageTiles> {
  if (!needsTiles(img)) return { status: 'none' };
  const bucket = await bucketFor(ctx, img.organizationId);
  const prefix = tilesPrefix(img);
  const manifest = await readManifest(ctx, bucket, prefix);
  if (!manifest) {
    const failed = building.has(img.id) ? undefined : failures.get(img.id);
    if (failed) {
      failures.delete(img.id); // the next request tries again
      return { status: 'failed', error: `The image could not be prepared for viewing: ${failed}` };
    }
    void ensureTiles(ctx, img);
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
