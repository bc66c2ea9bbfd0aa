import { describe, expect, it } from 'vitest';
import { loadedCounterText, loadedCounterTitle } from './loadedCounter';

describe('the loaded counter', () => {
  it('shows an exact total as it is', () => {
    expect(loadedCounterText(200, 1234, false)).toBe(`200 / ${(1234).toLocaleString()} loaded`);
    expect(loadedCounterTitle(1234, false)).toBeUndefined();
  });

  it('shows a capped total with a "+" and says why', () => {
    expect(loadedCounterText(200, 10_000, true)).toBe(`200 / ${(10_000).toLocaleString()}+ loaded`);
    expect(loadedCounterTitle(10_000, true)).toMatch(/^More than 10.000 images match/);
  });
});
