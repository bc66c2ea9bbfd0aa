// Every task an offload thread can run, by name. A task takes and returns structured-cloneable
// values (numbers, strings, plain objects, typed arrays) and must not touch the database, storage
// or the server's context: those live on the main thread. See README.md.
import { buildStructure, type SegmentOps, type Structure } from '../services/segmentation/builtin/algorithm';
import { wasmOps } from '../services/segmentation/builtin/wasm-ops';
import { referenceOps } from '../services/segmentation/builtin/reference-ops';
import { applyPixelStep, type PixelStep, type Raw } from '../services/image-edit/pixels';
import { decodeBmp, type DecodedBmp } from '../services/bmp';
import { readThrough, type ReadThrough } from '../services/import/read-through';
import type { ImportFormat } from '../../contract/imports';

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
  /** A BMP decoded to RGB (sharp has no BMP decoder; up to BMP_MAX_PIXELS, a JS loop per pixel). */
  decodeBmp(bytes: Uint8Array, maxPixels: number): DecodedBmp {
    // A Buffer arrives as a plain Uint8Array: the decoder reads with Buffer's methods.
    return decodeBmp(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), maxPixels);
  },
  /** An import's dry run: the uploaded archive read through once, nothing written (services/import/read-through.ts). */
  importReadThrough(file: string, filename: string, format: ImportFormat, folderPath: string, tmpDir: string): Promise<ReadThrough> {
    return readThrough(file, filename, format, folderPath, tmpDir);
  },
  /** A Magic Image Edit pixel step of the built-in provider (colour and weather loops over every pixel). */
  imageEditPixels(img: Raw, step: PixelStep, seed: number): Raw {
    return applyPixelStep(img, step, seed);
  },
};

export type Tasks = typeof tasks;
export type TaskName = keyof Tasks;
