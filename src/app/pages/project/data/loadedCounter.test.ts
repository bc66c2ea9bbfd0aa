import { describe, expect, it } from 'vitest';
import { loadedCounterText, loadedCounterTitle } from './loadedCounter';
import { DEFAULT_LIST_TOTAL_CAP } from '../../../../contract/images';

describe('the loaded counter', () => {
  it('shows an exact total as it is', () => {
    expect(loadedCounterText(200, 1234, false)).toBe(`200 / ${(1234).toLocaleString()} loaded`);
    expect(loadedCounterTitle(1234, false)).toBeUndefined();
  });

  it('shows a capped total with a "+" and says why: "1,000+" at the default cap', () => {
    expect(DEFAULT_LIST_TOTAL_CAP).toBe(1_000);
    expect(loadedCounterText(200, DEFAULT_LIST_TOTAL_CAP, true)).toBe(`200 / ${(1_000).toLocaleString()}+ loaded`);
    expect(loadedCounterTitle(DEFAULT_LIST_TOTAL_CAP, true)).toMatch(/^More than 1.000 images match/);
  });

  it('shows the cap the server answered with, whatever it is', () => {
    expect(loadedCounterText(4, 10_000, true)).toBe(`4 / ${(10_000).toLocaleString()}+ loaded`);
  });
});
