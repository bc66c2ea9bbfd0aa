import { describe, expect, it } from 'vitest';
import { MAX_ISLAND_SIZE, parseIslandSize } from './IslandSizeDialog';

describe('the island size typed in Remove islands', () => {
  it('takes a whole number of pixels from 1 to the largest image area', () => {
    expect(parseIslandSize('1')).toEqual({ size: 1 });
    expect(parseIslandSize(' 250 ')).toEqual({ size: 250 });
    expect(parseIslandSize(String(MAX_ISLAND_SIZE))).toEqual({ size: MAX_ISLAND_SIZE });
  });

  it('refuses anything else with a sentence that says what to type', () => {
    for (const bad of ['', '0', '-5', '2.5', '1e3', 'ten', String(MAX_ISLAND_SIZE + 1)]) {
      const parsed = parseIslandSize(bad);
      expect(parsed, bad).toHaveProperty('error');
      expect((parsed as { error: string }).error).toMatch(/^Enter /);
    }
  });
});
