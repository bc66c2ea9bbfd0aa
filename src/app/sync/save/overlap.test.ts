// Naming the other person of an overlap from the image's history, and the messages both people get.
import { describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../../contract/annotation-api';
import { outlastedMessage, overlapAuthor, overlapMessages } from './overlap';

const entry = (version: number, user_id: string | null, user_name: string | null): HistoryEntry => ({ version, user_id, user_name, saved_at: '2026-11-27T08:00:00.000Z', added: 0, changed: 1, removed: 0, restored_from: null });
const history = [entry(7, 'me', 'Me Myself'), entry(6, 'u2', 'Ada Lovelace'), entry(5, 'u3', 'Grace Hopper'), entry(4, 'me', 'Me Myself')];

describe('overlapAuthor', () => {
  it('names who saved the change, found by user and version', () => {
    expect(overlapAuthor({ by: 'u2', since: 5, version: 6, overwritten: ['a'], theirsWon: [], kept: [] }, history, 'me')).toBe('Ada Lovelace');
    // A change the socket told of but the history page does not reach: not known.
    expect(overlapAuthor({ by: 'u9', since: 5, version: 6, overwritten: ['a'], theirsWon: [], kept: [] }, history, 'me')).toBeNull();
  });

  it('names the one other person who saved in the skipped versions of a rebased save, and nobody when several did', () => {
    expect(overlapAuthor({ by: null, since: 5, version: 7, overwritten: [], theirsWon: [], kept: ['a'] }, history, 'me')).toBe('Ada Lovelace');
    expect(overlapAuthor({ by: null, since: 4, version: 7, overwritten: [], theirsWon: [], kept: ['a'] }, history, 'me')).toBeNull();
  });
});

describe('overlapMessages', () => {
  it('tells the one whose edit was replaced, and the one whose unsaved edit is the later', () => {
    expect(overlapMessages({ by: 'u2', since: 5, version: 6, overwritten: ['a', 'b'], theirsWon: [], kept: [] }, 'Ada Lovelace')).toEqual([
      'Ada Lovelace changed 2 annotation(s) you edited: the later edit, theirs, was kept.',
    ]);
    expect(overlapMessages({ by: null, since: 5, version: 6, overwritten: [], theirsWon: [], kept: ['a'] }, null)).toEqual([
      'Someone else also changed 1 annotation(s) you are editing: the later edit, yours, is kept.',
    ]);
  });
});

describe('outlastedMessage', () => {
  it('tells the one whose saved edit was later than another person\'s, which that person\'s merge dropped', () => {
    expect(outlastedMessage(1, 'Bea Smith')).toBe('Bea Smith also edited 1 annotation(s) you edited: the later edit, yours, was kept.');
    expect(outlastedMessage(2, null)).toBe('Someone else also edited 2 annotation(s) you edited: the later edit, yours, was kept.');
  });
});
