// Loads an image's pixels and annotations, and keeps the neighbours' ready so previous / next is
// instant (issue 5: prefetch). Annotations prefetched more than FRESH_MS ago are loaded again
// (someone else may have saved since); pixels do not change. Annotations are kept as load-data's
// text: the screen parses it in slices (parseLoadData) with a progress bar for large documents.
import type { Image } from '../../../contract/images';
import type { ImageSourceInput } from '../../../workers/render-client';
import { editorApi, type LoadedAnnotations } from './editorApi';
import { TILED_ABOVE } from '../../../contract/tiles';

/** Above this the pixels stream straight from the signed URL instead of being held in memory. */
const MAX_PREFETCH_BYTES = 40 * 1024 * 1024;
const FRESH_MS = 30_000;
const KEEP = 4;

export interface LoadedPixels {
  source: ImageSourceInput;
  width: number;
  height: number;
}

interface Entry {
  pixels: Promise<LoadedPixels>;
  data?: { at: number; value: Promise<string> };
}

const cache = new Map<string, Entry>();

/** How long to wait for the server to finish a pyramid before drawing the original instead. */
const PYRAMID_WAIT_MS = 120_000;

/**
 * A large image is drawn from the server's tile pyramid: decoding it whole would need its full
 * size in memory (1.6 GB for 20,000 x 20,000). Null when there is none (the original is used).
 */
async function pyramidOf(image: Image, orgId: string): Promise<LoadedPixels | null> {
  const until = Date.now() + PYRAMID_WAIT_MS;
  for (;;) {
    const t = await editorApi.tiles(image.id, orgId);
    if (t.status === 'ready') {
      // Tile URLs are signed for an hour at most: the renderer asks for them again before they expire.
      const renew = async () => {
        const n = await editorApi.tiles(image.id, orgId);
        return n.status === 'ready' ? { levels: n.levels, expiresAt: n.expires_at } : null;
      };
      return { source: { tiles: { width: t.width, height: t.height, tileSize: t.tile_size, levels: t.levels, expiresAt: t.expires_at, renew } }, width: t.width, height: t.height };
    }
    if (t.status !== 'pending' || Date.now() > until) {
      if (t.status === 'failed') console.warn(t.error);
      return null;
    }
    await new Promise((r) => setTimeout(r, 1500));
  }
}

async function loadPixels(image: Image, orgId: string): Promise<LoadedPixels> {
  if (Math.max(image.image_width ?? 0, image.image_height ?? 0) > TILED_ABOVE) {
    const pyramid = await pyramidOf(image, orgId);
    if (pyramid) return pyramid;
  }
  const url = await editorApi.originalUrl(image.id, orgId);
  const known = image.image_width && image.image_height ? { width: image.image_width, height: image.image_height } : null;
  if (known && image.file_size > MAX_PREFETCH_BYTES) return { source: url, ...known };
  const res = await fetch(url);
  if (!res.ok) throw new Error(`The image could not be downloaded (${res.status})`);
  const blob = await res.blob();
  if (known) return { source: blob, ...known };
  // No stored size (an old upload): read it from the pixels.
  const bitmap = await createImageBitmap(blob);
  const size = { width: bitmap.width, height: bitmap.height };
  bitmap.close();
  return { source: blob, ...size };
}

function entryFor(image: Image, orgId: string): Entry {
  let e = cache.get(image.id);
  if (!e) {
    e = { pixels: loadPixels(image, orgId) };
    e.pixels.catch(() => cache.delete(image.id));
    cache.set(image.id, e);
    while (cache.size > KEEP) cache.delete(cache.keys().next().value!);
  }
  return e;
}

function dataFor(e: Entry, image: Image, projectId: string, fresh: boolean): Promise<string> {
  if (!e.data || fresh || Date.now() - e.data.at > FRESH_MS) {
    const value = editorApi.loadDataText(image.id, projectId);
    e.data = { at: Date.now(), value };
    value.catch(() => (e.data = undefined));
  }
  return e.data.value;
}

/**
 * Pixels and annotations (load-data's body, to parse with parseLoadData) of the image being
 * opened. Its cached annotations are used once, then dropped.
 */
export async function openImage(image: Image, orgId: string, projectId: string): Promise<{ pixels: LoadedPixels; body: string }> {
  const e = entryFor(image, orgId);
  const [pixels, body] = await Promise.all([e.pixels, dataFor(e, image, projectId, false)]);
  // What we save from now on makes the cached copy stale.
  e.data = undefined;
  return { pixels, body };
}

/**
 * Starts loading a neighbour in the background; failures are ignored (opening it retries).
 * Resolves to its pixels (the screen hands them to the renderer to open ahead), null on failure.
 */
export function prefetchImage(image: Image, orgId: string, projectId: string): Promise<LoadedPixels | null> {
  const e = entryFor(image, orgId);
  dataFor(e, image, projectId, false).catch(() => undefined);
  return e.pixels.catch(() => null);
}

/** Annotations of another image (Copy Previous), without disturbing the cache. */
export function loadAnnotations(image: Image, projectId: string): Promise<LoadedAnnotations> {
  return editorApi.loadData(image.id, projectId);
}
