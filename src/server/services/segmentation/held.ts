// The built-in backend as the server runs it: each image's embedding is built and kept on one
// offload thread (./held-thread.ts), and every click on it runs there, so neither the structure
// nor a click's cut (0.2-2 s at 12 MP under load) holds the request thread. The pool routes all
// tasks of one embedding to the thread that holds it (OffloadPool.run's `route`). The request
// thread keeps only a handle, in the EmbeddingCache, whose bound and eviction drop it on the
// thread too. When the thread lost it (its own bound, or the thread stopped), a click fails with
// HeldEmbeddingGone and the service embeds the image again.
import { randomUUID } from 'node:crypto';
import { offload, offloadPool, OffloadCrashed } from '../../offload/pool';
import { BUILTIN_MAX_SIDE } from './builtin';
import { EMBEDDING_GONE, type ClickAnswer } from './held-thread';
import type { Embedding, LoadedImage, Points, SegmenterBase } from './types';

export interface HeldEmbedding extends Embedding {
  /** The key (and pool route) it is held under on its thread; a new one for every embedding. */
  key: string;
  /** original size */
  width: number;
  height: number;
}

/** The thread holding an embedding no longer has it: embed the image again. */
export class HeldEmbeddingGone extends Error {
  override name = 'HeldEmbeddingGone';
}

export class HeldSegmenter implements SegmenterBase<HeldEmbedding> {
  readonly name = 'builtin' as const;
  readonly maxSide = BUILTIN_MAX_SIDE;
  readonly wantsFullRes = true;

  /** `maxBytes`: what one thread may hold (the service's cache bound). */
  constructor(private readonly maxBytes: number) {}

  async warmup(): Promise<void> {}

  /** The threads load their kernels on first use (the TypeScript references when the wasm module is not built). */
  status(): { loaded: boolean; loading: boolean; error?: string } {
    return { loaded: true, loading: false };
  }

  /** Nothing of its own to stop: the service's cache drops every held embedding when it closes. */
  async close(): Promise<void> {}

  /** Moves the pixels to a thread, which builds the embedding and keeps it. */
  async embed(image: LoadedImage): Promise<HeldEmbedding> {
    const key = randomUUID();
    const { bytes } = await offload('segmentHold', [key, image, this.maxBytes], [image], { route: key });
    return { key, width: image.width, height: image.height, bytes };
  }

  /** One click on the thread that holds `e`; `user` keys the previous mask. Throws HeldEmbeddingGone when that thread lost it. */
  async click(e: HeldEmbedding, user: string, points: Points, opts: { usePrevious: boolean; tolerance: number; logitSide: number }): Promise<ClickAnswer> {
    try {
      const answer = await offload('segmentClick', [e.key, user, points, opts], [], { route: e.key });
      e.bytes = answer.bytes;
      return answer;
    } catch (err) {
      if (err instanceof OffloadCrashed || (err as Error)?.name === EMBEDDING_GONE) {
        offloadPool().forget(e.key);
        throw new HeldEmbeddingGone(`The prepared image was lost (${(err as Error).message}); it is prepared again`);
      }
      throw err;
    }
  }

  /** Lets the thread drop `e` (the cache evicted it). */
  drop(e: HeldEmbedding): void {
    offload('segmentDrop', [e.key], [], { route: e.key })
      .catch(() => undefined)
      .finally(() => offloadPool().forget(e.key));
  }
}
