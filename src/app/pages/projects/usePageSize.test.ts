import { describe, expect, it } from 'vitest';
import { pageSizeFor } from './usePageSize';

describe('pageSizeFor', () => {
  it('fills the window with 320x240 cards and never goes below 12', () => {
    expect(pageSizeFor(1024, 768)).toBe(12);
    expect(pageSizeFor(2560, 1440)).toBe(8 * 6);
  });
});
