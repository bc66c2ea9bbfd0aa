// What the offload thread needs to run a TF.js graph detector: where its files are and how to read
// its outputs. Plain data, so it crosses to the thread (detect-thread.ts) as a task argument.

/** How a graph's outputs become boxes: CenterNet's own top-100 list, or NanoDet's per-cell class scores and distance bins. */
export type DetectorDecoder = 'centernet' | 'nanodet';

export interface DetectorSpec {
  /** cache key on the thread: a second job on the same thread finds the model loaded */
  id: string;
  /** the graph model's JSON (its weight files sit beside it) */
  modelJson: string;
  decoder: DetectorDecoder;
  /** the square side the graph takes, in pixels */
  inputSize: number;
}

/** One detection, in the image's own pixels. */
export interface Detection {
  /** index into the model's classes */
  classIndex: number;
  score: number;
  /** [x, y, w, h] */
  box: [number, number, number, number];
}

export interface DetectOptions {
  minScore: number;
  maxDetections: number;
  /** boxes of one class overlapping more than this are one object (non-maximum suppression) */
  iouThreshold: number;
}

export const DEFAULT_DETECT_OPTIONS: DetectOptions = { minScore: 0.4, maxDetections: 300, iouThreshold: 0.5 };
