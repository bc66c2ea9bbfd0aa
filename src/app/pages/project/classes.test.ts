import { describe, expect, it } from 'vitest';
import { CLASS_PALETTE } from '../../../contract/projects';
import { duplicateName, paletteColor, randomPaletteColor, unusedPaletteColor } from './classes';

describe('class helpers', () => {
  it('duplicates with copy, then copy N, unique case-insensitively', () => {
    const c = (name: string) => ({ name, type: 'box' as const, color: '#FFADAD' });
    expect(duplicateName('Car', [c('Car')])).toBe('Car copy');
    expect(duplicateName('Car', [c('Car'), c('car COPY')])).toBe('Car copy 2');
    expect(duplicateName('Car', [c('Car'), c('Car copy'), c('Car copy 2')])).toBe('Car copy 3');
  });
  it('picks palette colours by position and random ones different from the original', () => {
    expect(paletteColor(0)).toBe(CLASS_PALETTE[0]);
    expect(paletteColor(16)).toBe(CLASS_PALETTE[1]);
    for (let i = 0; i < 50; i += 1) expect(randomPaletteColor(CLASS_PALETTE[3])).not.toBe(CLASS_PALETTE[3]);
    expect(randomPaletteColor(undefined, () => 0.999)).toBe(CLASS_PALETTE[14]);
    const used = CLASS_PALETTE.slice(0, 14).map((color) => ({ name: color, type: 'box' as const, color }));
    expect(unusedPaletteColor(used)).toBe(CLASS_PALETTE[14]);
    expect(unusedPaletteColor([...used, { name: 'x', type: 'box', color: CLASS_PALETTE[14] }], CLASS_PALETTE[2])).not.toBe(CLASS_PALETTE[2]);
  });
});
