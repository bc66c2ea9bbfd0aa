// The split's assignment on its own (no database): sizes, determinism whatever the order of the
// rows, stratification, and the request check.
import { describe, expect, it } from 'vitest';
import { assignSplits, checkSplit, splitSizes, type ImageClasses } from './split';

const members: ImageClasses[] = Array.from({ length: 40 }, (_, i) => ({
  id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  // One class per image: 'common' on most, 'rare' on exactly 3, 'pair' on 2 (fewer than the splits).
  classes: i < 3 ? ['rare'] : i < 5 ? ['pair'] : i < 35 ? ['common'] : [],
}));

function shuffled<T>(xs: readonly T[], seed: number): T[] {
  const out = [...xs];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe('export split', () => {
  it('sizes the splits by their fractions, by largest remainder', () => {
    expect(splitSizes([0.6, 0.2, 0.2], 24)).toEqual([14, 5, 5]);
    expect(splitSizes([0.8, 0.2], 3)).toEqual([2, 1]);
    expect(splitSizes([1, 0, 0], 5)).toEqual([5, 0, 0]);
  });

  it('gives the same split for the same seed whatever order the images come in, another for another seed', async () => {
    const split = { train: 0.7, val: 0.15, test: 0.15, seed: 42 };
    const a = (await assignSplits(members, split)).byId;
    for (const order of [1, 2, 3]) expect((await assignSplits(shuffled(members, order), split)).byId).toEqual(a);
    expect((await assignSplits(members, { ...split, seed: 43 })).byId).not.toEqual(a);
    expect(a.size).toBe(members.length);
  });

  it('stratifies: every class with as many images as splits is in every split, and the sizes still add up', async () => {
    for (const seed of [0, 1, 2, 3, 4, 5]) {
      const plan = await assignSplits(members, { train: 0.8, val: 0.1, test: 0.1, seed });
      for (const cls of ['rare', 'common']) {
        const splits = new Set(members.filter((m) => m.classes.includes(cls)).map((m) => plan.byId.get(m.id)));
        expect([...splits].sort(), `${cls} seed ${seed}`).toEqual(['test', 'train', 'val']);
      }
      expect(plan.unspread).toEqual([]);
      expect(plan.counts.train + plan.counts.val + plan.counts.test).toBe(40);
    }
  });

  it('without test, has two splits; a split of fraction 0 gets no image', async () => {
    const plan = await assignSplits(members, { train: 1, val: 0 });
    expect(plan.names).toEqual(['train', 'val']);
    expect(plan.counts).toMatchObject({ train: 40, val: 0 });
  });

  it('refuses fractions that do not sum to 1 or lie outside 0..1, with invalid_split', () => {
    expect(() => checkSplit({ train: 0.7, val: 0.2 })).toThrow(expect.objectContaining({ code: 'invalid_split' }));
    expect(() => checkSplit({ train: 1.2, val: -0.2 })).toThrow(expect.objectContaining({ code: 'invalid_split' }));
    expect(() => checkSplit({ train: 0.7, val: 0.2, test: 0.1 + 5e-7 })).not.toThrow();
  });
});
