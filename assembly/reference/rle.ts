// The RLE reference is the editor engine's plain TypeScript codec (src/engine/model/rle.ts, owned
// by the engine): the wasm kernels are tested against it so the two can never drift apart.
export { countsToString, decodeRle, encodeMask, rleArea, rleBBox, stringToCounts } from '../../src/engine/model/rle';
