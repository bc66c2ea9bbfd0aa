// Segmentation settings live in the server's configuration (src/server/config.ts, README
// "Configuration"): SEGMENTER, SAM2_MODEL_DIR, SEGMENTER_CACHE_MB.
export { segmentationConfig, type SegmentationConfig } from '../../config';
