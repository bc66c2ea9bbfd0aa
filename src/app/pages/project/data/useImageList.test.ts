import { describe, expect, it } from 'vitest';
import { morePage } from './useImageList';

const images = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `id-${i}` }));

describe("the Data tab's 'more'", () => {
  it('asks for the images after the last one loaded (keyset paging)', () => {
    expect(morePage(images(200))).toEqual({ page: 5, after: 'id-199' });
    expect(morePage(images(250))).toEqual({ page: 6, after: 'id-249' });
  });

  it('after removals, still starts after the last image shown (no page number arithmetic)', () => {
    const shown = images(200).filter((_, i) => i % 3 !== 0); // 133 left
    expect(morePage(shown).after).toBe('id-199');
  });

  it('with nothing loaded, asks for the first page', () => {
    expect(morePage([])).toEqual({ page: 1 });
  });
});
