// Auto-Annotate's contract with the app: the segmentation backend the app plugs in
// (editor.auto.setSegmenter), the prompt the tool sends it and the proposal it answers with.
import type { Point, Rect, Ring } from '../../model/types';

/** What the engine needs of an AbortSignal (browsers, workers and Node all have one). */
export interface AbortSignalLike {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** Points in image pixels; box is [x, y, width, height] (points are optional with it). */
export interface SegmentPrompt {
  readonly positive: [number, number][];
  readonly negative: [number, number][];
  readonly box?: [number, number, number, number];
}

/** One polygon of a mask, with its holes, in image pixels. */
export interface MaskPolygon {
  readonly path: Ring;
  readonly holes: readonly Ring[];
}

/** A proposed mask: engine-side polygons plus the backend's answer, opaque to the engine. */
export interface MaskProposal {
  readonly polygons: readonly MaskPolygon[];
  /** Foreground pixels. */
  readonly area: number;
  /** The segmenter's confidence, 0..1. */
  readonly score: number;
  /** The backend's own answer (the app saves it). */
  readonly data: unknown;
}

export interface Segmenter {
  /**
   * A mask for the prompt. `usePrevious`: start from the previous mask of this prompt session.
   * Rejects (an AbortError) once `signal` is aborted: the tool has moved on.
   */
  mask(prompt: SegmentPrompt, usePrevious: boolean, signal: AbortSignalLike): Promise<MaskProposal>;
}

export interface AutoPoint {
  readonly x: number;
  readonly y: number;
  readonly positive: boolean;
}

/** The proposal accepted with Enter (or editor.auto.accept): the app turns it into an annotation. */
export interface ProposalAccepted {
  readonly proposal: MaskProposal;
  /** Points behind the mask. */
  readonly pointCount: number;
  readonly box: Rect | null;
  /** The active class when it was accepted. */
  readonly class: string;
}

/** Auto-Annotate's preview (ViewState.drawing while the tool has a prompt). */
export interface AutoPreview {
  readonly kind: 'auto';
  readonly points: readonly AutoPoint[];
  /** The box prompt, or the box being dragged. */
  readonly box: Rect | null;
  readonly dragging: boolean;
  readonly mask: MaskProposal | null;
  /** A mask request is debounced or in flight. */
  readonly waiting: boolean;
  /** The last request failed (click again to retry). */
  readonly failed: boolean;
}

export type { Point };
