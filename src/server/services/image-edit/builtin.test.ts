// The built-in editor's size limit: an image above MAX_BUILTIN_PIXELS fails that image with a
// message naming its size and the limit (never decoded: its header is enough).
import { describe, expect, it } from 'vitest';
import { pngClaiming } from '../../../../tests/fixtures/datasets';
import { MAX_BUILTIN_PIXELS, createBuiltinProvider } from './builtin';
import { EditFailure } from './provider';

const input = (bytes: Buffer, prompt = 'make it night') => ({
  bytes, mime: 'image/png', filename: 'big.png', width: 0, height: 0, prompt, negativePrompt: null, steps: 40, guidance: 1, trueCfg: 4, seed: 1, signal: new AbortController().signal,
});

describe('built-in provider limits', () => {
  it(`refuses an image above ${MAX_BUILTIN_PIXELS / 1e6} MP with its size in the message`, async () => {
    const edit = createBuiltinProvider().edit(input(pngClaiming(12_000, 9_000)));
    await expect(edit).rejects.toBeInstanceOf(EditFailure);
    await expect(edit).rejects.toThrow('The image is 12000 x 9000: the built-in editor takes images up to 100 MP');
  });

  it('a prompt outside the vocabulary fails before the image is read', async () => {
    await expect(createBuiltinProvider().edit(input(Buffer.from('not an image'), 'add a unicorn'))).rejects.toThrow('does not understand "unicorn"');
  });
});
