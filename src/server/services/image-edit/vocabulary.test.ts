// The built-in editor's prompt vocabulary (README "Magic Image Edit").
import { describe, expect, it } from 'vitest';
import { parsePrompt, stepsSlug } from './vocabulary';

const steps = (p: string) => {
  const r = parsePrompt(p);
  return r.ok ? r.steps : r.error;
};

describe('parsePrompt', () => {
  it('reads single edits, synonyms and combinations in the order written', () => {
    expect(steps('flip horizontally and make it night')).toEqual(['flip_h', 'night']);
    expect(steps('Make it a bit brighter, then more contrast.')).toEqual(['brighter', 'more_contrast']);
    expect(steps('black and white')).toEqual(['grayscale']);
    expect(steps('snowy winter scene')).toEqual(['snow']);
    expect(steps('rotate 90 degrees counterclockwise')).toEqual(['rotate_270']);
    expect(steps('rotate 270')).toEqual(['rotate_270']);
    expect(steps('rotate left and flip vertically')).toEqual(['rotate_270', 'flip_v']);
    expect(steps('flip upside down')).toEqual(['flip_v']);
    expect(steps('turn it upside down')).toEqual(['rotate_180']);
    expect(steps('add some rain + fog')).toEqual(['rain', 'fog']);
    expect(steps('golden hour')).toEqual(['sunset']);
    expect(steps('rotate 90 and rotate 90')).toEqual(['rotate_90', 'rotate_90']);
  });

  it('refuses what it does not understand, listing the vocabulary', () => {
    const r = parsePrompt('make it night with a unicorn');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toContain('does not understand "unicorn"');
      expect(r.error).toContain('brighter, darker, more contrast');
      expect(r.error).toContain('rotate 270');
    }
    expect(parsePrompt('please').ok).toBe(false);
  });

  it('names copies after the steps', () => {
    expect(stepsSlug(['flip_h', 'night'])).toBe('flip_h_night');
  });
});
