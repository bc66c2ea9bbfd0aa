// One interface for every segmenter backend (built-in classical, SAM2 over ONNX). The server
// caches whatever `embed` returns per image (see cache.ts) and calls `predict` for each click.
import type { SegmenterBackend } from '../../../contract/segmentation';
import type { CropMask } from './builtin/refine';

/** An image as the backends take it: its original size and a copy scaled to fit `maxSide`. */
export interface LoadedImage {
  width: number;
  height: number;
  /** interleaved RGB of the scaled copy, row-major */
  rgb: Uint8Array;
  /** size of the scaled copy */
  w: number;
  h: number;
  /** interleaved RGB at the original size, when the backend asked for it (wantsFullRes) and the image is larger than the copy */
  full?: Uint8Array;
}

export interface Embedding {
  /** memory held, for the cache's size bound */
  bytes: number;
}

/** A mask on a grid that covers the whole image (grid cell (i, j) covers a w/gw x h/gh area). */
export interface GridMask {
  /** row-major 0/1 */
  data: Uint8Array;
  gw: number;
  gh: number;
}

export interface Prediction {
  mask: GridMask;
  score: number;
  /** The mask at full resolution in a box (background outside), when the backend refined its edge; then it is the answer. */
  fine?: CropMask | null;
  /** The backend's raw scores (>0 foreground) on a grid covering the whole image, when it has any. */
  logits?: { data: Float32Array; gw: number; gh: number };
  /** Backend state to pass back as `previous` when the client asks to use the previous mask. */
  state?: unknown;
}

export interface Points {
  /** original-image pixel coordinates */
  positive: [number, number][];
  negative: [number, number][];
  /** A box around the object, [x, y, w, h] in original-image pixels: the object lies inside it. */
  box?: [number, number, number, number];
}

/** What the service asks of every backend: load, and embed an image once. */
export interface SegmenterBase<E extends Embedding = Embedding> {
  readonly name: SegmenterBackend;
  /** Longest side of the scaled copy `embed` wants. */
  readonly maxSide: number;
  /** Whether `embed` wants the original-size pixels too (LoadedImage.full). */
  readonly wantsFullRes?: boolean;
  /** Loads code or models; safe to call many times. */
  warmup(): Promise<void>;
  /** null while not loaded, else whether it loaded */
  status(): { loaded: boolean; loading: boolean; error?: string };
  embed(image: LoadedImage): Promise<E>;
  close?(): Promise<void>;
}

/** A backend whose clicks run on the request thread's side: a mask per click from the embedding (the service turns it into the answer). */
export interface Segmenter<E extends Embedding = Embedding> extends SegmenterBase<E> {
  predict(embedding: E, points: Points, previous?: unknown): Promise<Prediction>;
}
