// Segmentation settings (README "Configuration"): SEGMENTER, SAM2_MODEL_DIR, SEGMENTER_CACHE_MB.
import path from 'node:path';
import { ConfigError } from '../../config';

export interface SegmentationConfig {
  backend: 'builtin' | 'sam2';
  /** Directory with the SAM2 encoder and decoder ONNX files (see sam2.ts for names). */
  sam2ModelDir: string | null;
  /** Memory bound of the embedding cache. */
  cacheBytes: number;
}

type Env = Record<string, string | undefined>;

export function segmentationConfig(env: Env = process.env, cwd = process.cwd()): SegmentationConfig {
  const dir = env.SAM2_MODEL_DIR?.trim() || null;
  const raw = env.SEGMENTER?.trim().toLowerCase() || (dir ? 'sam2' : 'builtin');
  if (raw !== 'builtin' && raw !== 'sam2') throw new ConfigError(`Invalid configuration: SEGMENTER must be builtin or sam2 (got "${raw}")`);
  if (raw === 'sam2' && !dir) throw new ConfigError('Invalid configuration: SAM2_MODEL_DIR is required when SEGMENTER is sam2');
  const mbRaw = env.SEGMENTER_CACHE_MB?.trim() || '1024';
  if (!/^\d+$/.test(mbRaw) || Number(mbRaw) < 16 || Number(mbRaw) > 1_048_576) {
    throw new ConfigError(`Invalid configuration: SEGMENTER_CACHE_MB must be a whole number 16-1048576 (got "${mbRaw}")`);
  }
  return { backend: raw, sam2ModelDir: dir ? path.resolve(cwd, dir) : null, cacheBytes: Number(mbRaw) * 1024 * 1024 };
}
