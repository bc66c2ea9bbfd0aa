// The RLE reference is the project's one plain TypeScript codec (src/contract/rle.ts, which the
// engine, the server and validation use): the wasm kernels are tested against it so the two never drift.
export { countsToString, decodeRle, encodeMask, rleArea, rleBBox, stringToCounts } from '../../src/contract/rle';
