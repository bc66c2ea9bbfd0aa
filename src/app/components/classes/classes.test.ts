import { describe, expect, it } from 'vitest';
import { CLASS_PALETTE } from '../../../contract/projects';
import { duplicateName, newClassColor, paletteColor } from './classes';

describe('class helpers', () => {
  it('duplicates with copy, then copy N, unique case-insensitively', () => {
    const c = (name: string) => ({ name, type: 'box' as const, color: '#FFADAD' });
    expect(duplicateName('Car', [c('Car')])).toBe('Car copy');
    expect(duplicateName('Car', [c('Car'), c('car COPY')])).toBe('Car copy 2');
    expect(duplicateName('Car', [c('Car'), c('Car copy'), c('Car copy 2')])).toBe('Car copy 3');
  });
  it('picks palette colours by position, and for a new class the one furthest from those in use', () => {
    expect(paletteColor(0)).toBe(CLASS_PALETTE[0]);
    expect(paletteColor(16)).toBe(CLASS_PALETTE[1]);
    const cls = (color: string) => ({ name: color, type: 'box' as const, color });
    expect(newClassColor([])).toBe('#F07575');
    const used = CLASS_PALETTE.slice(0, 14).map(cls);
    expect(newClassColor(used)).toBe(CLASS_PALETTE[14]);
    // A duplicate differs from its original even when every colour is used.
    for (const c of CLASS_PALETTE) expect(newClassColor(CLASS_PALETTE.map(cls), c)).not.toBe(c);
    // Red taken: the next class is not one of the reds or pinks.
    expect(['#F075A6', '#F6ACE7', '#F6CAAC']).not.toContain(newClassColor([cls('#F07575')]));
  });
});
