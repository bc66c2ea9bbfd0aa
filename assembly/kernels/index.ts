// Entry point of the kernels module (built to assembly/build/kernels.wasm by assembly/build.mjs).
// All data crosses the boundary as raw buffers in linear memory: JS allocates with alloc(),
// writes typed-array views, calls a kernel with pointers, reads results, then frees.

export { resultPtr, resultLen, releaseResult } from './mem';
export { rleDecode, rleDecodeCrop, rleEncode, rleToString, rleFromString, rleArea, rleBBox } from './rle';
export { maskToPolygons } from './contours';
export { polygonsToRle } from './raster';
export { maskPaint, maskFillHoles, maskRemoveIslands } from './brush';
export { segRgbToLab, segSlic, segStats, segMinCut, segRefine } from './segment';

/** Allocates `size` bytes (8-byte aligned at least) from the module's heap. */
export function alloc(size: usize): usize {
  return heap.alloc(size);
}

export function free(ptr: usize): void {
  heap.free(ptr);
}
