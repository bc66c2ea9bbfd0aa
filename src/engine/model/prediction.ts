// A model's prediction (issue 34) is an ordinary annotation whose stored JSON carries
// `source: {model_id, score, pending}` (kept in the editor annotation's `extra`). Pending ones wait
// for review: accepting sets `pending: false` (model and score kept), rejecting deletes the shape.
import type { EditorAnnotation } from './types';

export interface PredictionSource {
  readonly model_id: string;
  /** 0..1 */
  readonly score: number;
  readonly pending: boolean;
}

/** The annotation's prediction source, or null when it is not a prediction (or the key is malformed). */
export function predictionOf(a: EditorAnnotation | undefined): PredictionSource | null {
  const s = a?.extra?.source as Partial<PredictionSource> | null | undefined;
  if (!s || typeof s !== 'object' || typeof s.score !== 'number' || typeof s.pending !== 'boolean') return null;
  return s as PredictionSource;
}

/** True for a prediction still waiting for review. */
export const isPending = (a: EditorAnnotation | undefined): boolean => predictionOf(a)?.pending === true;

/** The score of a pending prediction, or null for any other shape (what the score slider and the label read). */
export function pendingScore(a: EditorAnnotation | undefined): number | null {
  const s = predictionOf(a);
  return s?.pending ? s.score : null;
}

/** A copy of a prediction with `pending` set (the other keys of `extra` and `source` kept). */
export function withPending<A extends EditorAnnotation>(a: A, pending: boolean): A {
  const source = predictionOf(a);
  if (!source || source.pending === pending) return a;
  const extra: Record<string, unknown> = Object.assign(Object.create(null) as Record<string, unknown>, a.extra, { source: { ...source, pending } });
  return { ...a, extra };
}
