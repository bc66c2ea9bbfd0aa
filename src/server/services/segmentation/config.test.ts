// SEGMENTER / SAM2_MODEL_DIR / SEGMENTER_CACHE_MB as loadConfig reads them.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config';

describe('segmentation configuration', () => {
  it('defaults to the built-in backend with a 1 GB cache', () => {
    expect(loadConfig({}, '/srv').segmentation).toEqual({ backend: 'builtin', sam2ModelDir: null, cacheBytes: 1024 * 1024 * 1024 });
  });

  it('uses SAM2 when a model directory is given, resolved against the working directory', () => {
    expect(loadConfig({ SAM2_MODEL_DIR: 'models/sam2' }, '/srv').segmentation).toMatchObject({ backend: 'sam2', sam2ModelDir: path.resolve('/srv', 'models/sam2') });
    expect(loadConfig({ SAM2_MODEL_DIR: 'models/sam2', SEGMENTER: 'builtin' }, '/srv').segmentation.backend).toBe('builtin');
    expect(loadConfig({ SEGMENTER_CACHE_MB: '64' }).segmentation.cacheBytes).toBe(64 * 1024 * 1024);
  });

  it('refuses bad values naming the setting', () => {
    expect(() => loadConfig({ SEGMENTER: 'gpu' })).toThrow(ConfigError);
    expect(() => loadConfig({ SEGMENTER: 'gpu' })).toThrow(/SEGMENTER/);
    expect(() => loadConfig({ SEGMENTER: 'sam2' })).toThrow(/SAM2_MODEL_DIR/);
    expect(() => loadConfig({ SEGMENTER_CACHE_MB: 'lots' })).toThrow(/SEGMENTER_CACHE_MB/);
  });
});
