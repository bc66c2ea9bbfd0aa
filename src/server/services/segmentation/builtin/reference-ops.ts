// SegmentOps on the plain TypeScript references (assembly/reference/segment.ts): used by the
// agreement tests and as a fallback when the wasm module is not built.
import { allocStats, minCutRef, refineRef, rgbToLabRef, slicRef, superpixelStatsRef } from '../../../../../assembly/reference/segment';
import type { SegmentOps } from './algorithm';

export const referenceOps: SegmentOps = {
  rgbToLab: rgbToLabRef,
  slic: slicRef,
  superpixelStats(lab, bins, labels, w, h, count) {
    const s = allocStats(count);
    superpixelStatsRef(lab, bins, labels, w, h, s);
    return s;
  },
  minCut: minCutRef,
  refine: refineRef,
};
