// What an offload thread keeps for get-mask's clicks (the built-in backend): each image's
// embedding, and each user's previous mask on it, so a click runs on the thread that holds them
// (the pool routes every task of one embedding to one thread: ./held.ts) and never on the event
// loop. Pure (no database, storage or context): src/server/offload/tasks.ts runs these functions.
//
// Bounded: at most `maxBytes` of embeddings per thread, least recently used first out (the
// request thread's EmbeddingCache holds the same bound and drops what it evicts here too), and at
// most PREVIOUS_PER_IMAGE users' previous masks per image.
import { loadKernelsNode, type Kernels } from '../../../kernels/node';
import { BuiltinSegmenter, type BuiltinEmbedding } from './builtin';
import { wasmOps } from './builtin/wasm-ops';
import { logitGrid, maskResult, type MaskResult } from './result';
import type { LoadedImage, Points } from './types';

/** Users whose previous mask is kept per image (a working-size mask each, up to 1 MB). */
const PREVIOUS_PER_IMAGE = 32;

/** The embedding a click names is not on this thread (evicted, or the thread that held it stopped): embed the image again. */
export const EMBEDDING_GONE = 'EmbeddingGone';

interface Held {
  e: BuiltinEmbedding;
  /** By user, in least-recently-used order. */
  previous: Map<string, unknown>;
}

const held = new Map<string, Held>();
let segmenter: BuiltinSegmenter | null = null;
let kernelsPromise: Promise<Kernels> | null = null;

function builtin(): BuiltinSegmenter {
  // The thread's own wasm kernels (the TypeScript references when they are not built); the structure stays here, pinned.
  segmenter ??= new BuiltinSegmenter(wasmOps);
  return segmenter;
}

function touch(key: string, h: Held): void {
  held.delete(key);
  held.set(key, h);
}

/** Drops the least recently used embeddings until the thread holds at most `maxBytes` (the newest one always stays). */
function evict(maxBytes: number): void {
  let total = 0;
  for (const h of held.values()) total += h.e.bytes;
  for (const [key, h] of held) {
    if (total <= maxBytes || held.size <= 1) break;
    held.delete(key);
    total -= h.e.bytes;
  }
}

/** Builds and keeps the embedding of `image` under `key`; answers the bytes it holds (the request thread's cache counts them). */
export async function holdEmbedding(key: string, image: LoadedImage, maxBytes: number): Promise<{ bytes: number }> {
  const e = await builtin().embed(image);
  held.set(key, { e, previous: new Map() });
  evict(maxBytes);
  return { bytes: e.bytes };
}

export function dropEmbedding(key: string): void {
  held.delete(key);
}

/** A click's answer, as get-mask sends it (before the response's own fields). */
export interface ClickAnswer extends MaskResult {
  score: number;
  logits: ReturnType<typeof logitGrid>;
  /** The embedding's bytes after the click (a focus crop adds its structure). */
  bytes: number;
}

/**
 * The mask for `points` on the embedding held under `key`, from `user`'s previous mask on it when
 * `usePrevious`. Throws an error named EMBEDDING_GONE when this thread does not hold the key.
 */
export async function clickMask(key: string, user: string, points: Points, opts: { usePrevious: boolean; tolerance: number; logitSide: number }): Promise<ClickAnswer> {
  const h = held.get(key);
  if (!h) throw Object.assign(new Error('The image is no longer prepared on this thread'), { name: EMBEDDING_GONE });
  touch(key, h);
  const prediction = await builtin().predict(h.e, points, opts.usePrevious ? h.previous.get(user) : undefined);
  h.previous.delete(user);
  h.previous.set(user, prediction.state);
  if (h.previous.size > PREVIOUS_PER_IMAGE) h.previous.delete(h.previous.keys().next().value!);
  kernelsPromise ??= loadKernelsNode();
  const result = maskResult(await kernelsPromise, prediction.mask, h.e.width, h.e.height, opts.tolerance, prediction.fine);
  return { ...result, score: prediction.score, logits: logitGrid(prediction.mask, prediction.logits, h.e.width, h.e.height, opts.logitSide), bytes: h.e.bytes };
}
