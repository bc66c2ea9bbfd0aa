// The three-way merge on its own: which side each shape comes from, and the paint order.
import { describe, expect, it } from 'vitest';
import { applyDelta, countDifferences, merge3, sameJson } from './merge';
import { box } from '../../../../tests/support/saveTestkit';

const at = (ours: number, theirs: number | null) => ({ oursAt: () => ours, theirsAt: theirs });

describe('merge3', () => {
  it('ignores key order, as PostgreSQL jsonb returns objects with keys reordered', () => {
    expect(sameJson({ id: 'a', bounding_box: { x: 1, y: 2 } }, { bounding_box: { y: 2, x: 1 }, id: 'a' })).toBe(true);
    expect(sameJson({ id: 'a', attributes: undefined }, { id: 'a' })).toBe(true);
    expect(sameJson({ id: 'a', p: [[1, 2]] }, { id: 'a', p: [[2, 1]] })).toBe(false);
    const reordered = { bounding_box: { h: 10, w: 10, y: 0, x: 0 }, name: 'car', id: 'a' };
    expect(merge3([box('a')], [box('a')], [reordered], at(0, 1)).conflicts).toEqual([]);
  });

  it('keeps one-sided changes, additions and deletions from both sides', () => {
    const base = [box('a'), box('b'), box('c'), box('d')];
    const ours = [box('a', 1), box('b'), box('d'), box('o')]; // edit a, delete c, add o
    const theirs = [box('t'), box('a'), box('b', 2), box('c')]; // add t first, edit b, delete d
    const m = merge3(base, ours, theirs, at(0, 1));
    expect(m.conflicts).toEqual([]);
    expect(m.annotations).toEqual([box('t'), box('a', 1), box('b', 2), box('o')]);
  });

  it('places a shape only the server has after its predecessor there', () => {
    const m = merge3([box('a'), box('b')], [box('b'), box('a')], [box('a'), box('n'), box('b')], at(0, 0));
    expect(m.annotations.map((a) => a.id)).toEqual(['b', 'a', 'n']);
  });

  it('lets the later edit win on a shape changed on both sides, ties to this device', () => {
    expect(merge3([box('a')], [box('a', 1)], [box('a', 2)], at(5, 4)).annotations).toEqual([box('a', 1)]);
    expect(merge3([box('a')], [box('a', 1)], [box('a', 2)], at(5, 5)).annotations).toEqual([box('a', 1)]);
    const theirs = merge3([box('a')], [box('a', 1)], [box('a', 2)], at(5, 6));
    expect(theirs).toEqual({ annotations: [box('a', 2)], conflicts: ['a'], theirsWon: ['a'] });
    // A deletion against an edit.
    expect(merge3([box('a')], [], [box('a', 2)], at(7, 6))).toEqual({ annotations: [], conflicts: ['a'], theirsWon: [] });
    expect(merge3([box('a')], [box('a', 1)], [], at(5, 6))).toEqual({ annotations: [], conflicts: ['a'], theirsWon: ['a'] });
  });
});

describe('applyDelta and countDifferences', () => {
  it('replaces in place, appends new shapes, drops removed ones', () => {
    expect(applyDelta([box('a'), box('b'), box('c')], [box('b', 1), box('d')], ['a'])).toEqual([box('b', 1), box('c'), box('d')]);
    expect(countDifferences([box('a'), box('b', 1)], [box('b'), box('c')])).toBe(3);
  });
});
