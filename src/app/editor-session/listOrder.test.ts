import { describe, expect, it } from 'vitest';
import { nextInList } from './listOrder';

describe('Tab through the list', () => {
  const order = ['n5', 'n4', 'n3', 'n2', 'n1'];
  const none = new Set<string>();

  it('starts at the first row forward and at the last backward', () => {
    expect(nextInList(order, none, none, 1)).toBe('n5');
    expect(nextInList(order, none, none, -1)).toBe('n1');
  });

  it('moves from the selection and skips hidden rows', () => {
    expect(nextInList(order, new Set(['n4']), none, 1)).toBe('n3');
    expect(nextInList(order, new Set(['n4']), new Set(['n3']), 1)).toBe('n2');
    expect(nextInList(order, new Set(['n4', 'n2']), none, 1)).toBe('n1');
    expect(nextInList(order, new Set(['n4', 'n2']), none, -1)).toBe('n5');
  });

  it('gives null past the ends, so Tab can leave the canvas', () => {
    expect(nextInList(order, new Set(['n1']), none, 1)).toBeNull();
    expect(nextInList(order, new Set(['n5']), none, -1)).toBeNull();
    expect(nextInList([], none, none, 1)).toBeNull();
  });
});
