// The Data tab's state of who is on each watched image: replaced by a watch's answer, moved on by
// presence, and the same objects back when nothing changed (tiles re-render only for their own people).
import { describe, expect, it } from 'vitest';
import type { LivePeer } from '../../../contract/live';
import { EMPTY_WATCHED, watchedFrom, withPresence } from './watchedPeople';

const ann: LivePeer = { user_id: 'u2', name: 'Ann', color: '#e6194b', can_edit: true };
const bob: LivePeer = { user_id: 'u3', name: 'Bob', color: '#3cb44b', can_edit: false };

describe('watched people', () => {
  it('an answer replaces all that was known and leaves out the images nobody is on', () => {
    const before = watchedFrom([{ image_id: 'x', peers: [ann] }]);
    const state = watchedFrom([{ image_id: 'y', peers: [bob] }, { image_id: 'z', peers: [] }], before);
    expect([...state]).toEqual([['y', [bob]]]);
    expect(watchedFrom([{ image_id: 'z', peers: [] }], state)).toBe(EMPTY_WATCHED);
  });

  it('presence adds, changes and removes one image\'s people', () => {
    let state = withPresence(EMPTY_WATCHED, 'x', [ann]);
    expect(state.get('x')).toEqual([ann]);
    state = withPresence(state, 'x', [ann, bob]);
    expect(state.get('x')).toEqual([ann, bob]);
    state = withPresence(state, 'x', [{ ...bob, can_edit: true }]);
    expect(state.get('x')).toEqual([{ ...bob, can_edit: true }]);
    state = withPresence(state, 'x', []);
    expect(state.has('x')).toBe(false);
  });

  it('nothing changed: the same state and the same lists back', () => {
    const state = withPresence(EMPTY_WATCHED, 'x', [ann]);
    expect(withPresence(state, 'x', [{ ...ann }])).toBe(state);
    expect(withPresence(state, 'y', [])).toBe(state);
    const other = withPresence(state, 'y', [bob]);
    expect(other.get('x')).toBe(state.get('x'));
    const again = watchedFrom([{ image_id: 'x', peers: [{ ...ann }] }, { image_id: 'y', peers: [{ ...bob }] }], other);
    expect(again).toBe(other);
  });
});
