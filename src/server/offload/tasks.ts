// Every task an offload thread can run, by name. A task takes and returns structured-cloneable
// values (numbers, strings, plain objects, typed arrays) and must not touch the database, storage
// or the server's context: those live on the main thread. See README.md.
import { buildStructure, type SegmentOps, type Structure } from '../services/segmentation/builtin/algorithm';
import { wasmOps } from '../services/segmentation/builtin/wasm-ops';
import { referenceOps } from '../services/segmentation/builtin/reference-ops';
import { applyPixelStep, type PixelStep, type Raw } from '../services/image-edit/pixels';
import { decodeBmp, type DecodedBmp } from '../services/bmp';
import { readThrough, type ReadThrough } from '../services/import/read-through';
import { importedIds } from '../services/import/convert';
import type { ImportFormat } from '../../contract/imports';
import { clickMask, dropEmbedding, holdEmbedding, type ClickAnswer } from '../services/segmentation/held-thread';
import type { LoadedImage, Points } from '../services/segmentation/types';
import { detectObjects } from '../services/models/detect-thread';
import type { Detection, DetectOptions, DetectorSpec } from '../services/models/detector-spec';
import { detectYolo, type Letterbox, type YoloDetection, type YoloSpec } from '../services/models/yolo-thread';
import { labelClassTypes, packLabels, parseLabelFile, type PackedLabels, type PoseShape } from '../formats/yolo/read';

let ops: Promise<SegmentOps> | null = null;

/** The thread's own wasm kernels (the TypeScript references when the wasm module is not built), without pinning: the arrays leave the thread. */
function segmentOps(): Promise<SegmentOps> {
  ops ??= wasmOps()
    .catch(() => referenceOps)
    .then((o) => Object.create(o, { pin: { value: undefined } }) as SegmentOps);
  return ops;
}

export const tasks = {
  /** The built-in segmenter's per-image structure (process-image's embedding: Lab, superpixels, graphs). */
  async segmentationStructure(rgb: Uint8Array, w: number, h: number): Promise<Structure> {
    return buildStructure(await segmentOps(), rgb, w, h, 3);
  },
  /** get-mask's built-in embedding of an image, built and kept on this thread under `key` (tasks of one key are routed here: services/segmentation/held.ts). */
  segmentHold(key: string, image: LoadedImage, maxBytes: number): Promise<{ bytes: number }> {
    return holdEmbedding(key, image, maxBytes);
  },
  /** One get-mask click on the embedding this thread holds under `key`. */
  segmentClick(key: string, user: string, points: Points, opts: { usePrevious: boolean; tolerance: number; logitSide: number }): Promise<ClickAnswer> {
    return clickMask(key, user, points, opts);
  },
  /** Forgets the embedding held under `key` (the request thread's cache let it go). */
  segmentDrop(key: string): void {
    dropEmbedding(key);
  },
  /** A BMP decoded to RGB (sharp has no BMP decoder; up to BMP_MAX_PIXELS, a JS loop per pixel). */
  decodeBmp(bytes: Uint8Array, maxPixels: number): DecodedBmp {
    // A Buffer arrives as a plain Uint8Array: the decoder reads with Buffer's methods.
    return decodeBmp(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), maxPixels);
  },
  /** An import's dry run: the uploaded archive read through once, nothing written (services/import/read-through.ts). */
  importReadThrough(file: string, filename: string, format: ImportFormat, folderPath: string, tmpDir: string): Promise<ReadThrough> {
    return readThrough(file, filename, format, folderPath, tmpDir);
  },
  /** An import's YOLO label file parsed for its real run, packed for the trip back (formats/yolo/read.ts: LabelParsing). */
  yoloLabels(text: string, names: string[], pose: PoseShape | undefined): PackedLabels {
    return packLabels(parseLabelFile(text, names, pose), names);
  },
  /** An import's ids of one file's shapes, by position (services/import/convert.ts: a SHA-256 each). */
  importedIds(importId: string, file: string, count: number): string[] {
    return importedIds(importId, file, count);
  },
  /** The class types a YOLO label file shows, by class index (the real run's first read of every label file). */
  yoloClassTypes(text: string, names: string[], pose: PoseShape | undefined): ('box' | 'polygon' | 'keypoint' | undefined)[] {
    return labelClassTypes(text, names, pose);
  },
  /** A Magic Image Edit pixel step of the built-in provider (colour and weather loops over every pixel). */
  imageEditPixels(img: Raw, step: PixelStep, seed: number): Raw {
    return applyPixelStep(img, step, seed);
  },
  /** An object detector on one image already resized to its input square (services/models/detect-thread.ts: TF.js on wasm, the model kept per thread). */
  detectObjects(spec: DetectorSpec, rgb: Uint8Array, width: number, height: number, opts: DetectOptions): Promise<Detection[]> {
    return detectObjects(spec, rgb, width, height, opts);
  },
  /** An organization's own YOLO ONNX model on one letterboxed image (services/models/yolo-thread.ts: onnxruntime-node, the session kept per thread). */
  detectYolo(spec: YoloSpec, rgb: Uint8Array, lb: Letterbox, opts: DetectOptions): Promise<YoloDetection[]> {
    return detectYolo(spec, rgb, lb, opts);
  },
};

export type Tasks = typeof tasks;
export type TaskName = keyof Tasks;
