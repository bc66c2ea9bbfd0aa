import { describe, expect, it } from 'vitest';
import { CURSOR_SEND_INTERVAL_MS, EMPTY_PRESENCE, PEER_CURSOR_FADE_MS, PEER_CURSOR_IDLE_MS, cursorOpacity, dropFaded, keepPeers, throttle, withCursor, withSelection } from './peerPresence';

function fakeClock() {
  let t = 0;
  const timers: { at: number; fn: () => void; id: number }[] = [];
  let next = 1;
  return {
    now: () => t,
    setTimer: (fn: () => void, ms: number) => {
      const id = next++;
      timers.push({ at: t + ms, fn, id });
      return id;
    },
    clearTimer: (h: unknown) => {
      const i = timers.findIndex((x) => x.id === h);
      if (i >= 0) timers.splice(i, 1);
    },
    advance(ms: number) {
      t += ms;
      for (const due of timers.filter((x) => x.at <= t)) {
        timers.splice(timers.indexOf(due), 1);
        due.fn();
      }
    },
  };
}

describe('throttle', () => {
  it('sends at most 20 a second: the first at once, then one trailing call with the newest arguments', () => {
    expect(CURSOR_SEND_INTERVAL_MS).toBe(50);
    const clock = fakeClock();
    const sent: number[] = [];
    const t = throttle((x: number) => sent.push(x), CURSOR_SEND_INTERVAL_MS, clock);
    t.call(1);
    expect(sent).toEqual([1]);
    for (let i = 2; i <= 5; i++) {
      clock.advance(10);
      t.call(i);
    }
    expect(sent).toEqual([1]);
    clock.advance(10);
    expect(sent).toEqual([1, 5]);
    // A second of moves every 5 ms: no more than 20 sends, the last position among them.
    sent.length = 0;
    for (let i = 0; i < 200; i++) {
      clock.advance(5);
      t.call(100 + i);
    }
    clock.advance(100);
    expect(sent.length).toBeLessThanOrEqual(21);
    expect(sent.at(-1)).toBe(299);
  });

  it('cancel drops the pending call', () => {
    const clock = fakeClock();
    const sent: number[] = [];
    const t = throttle((x: number) => sent.push(x), 50, clock);
    t.call(1);
    t.call(2);
    t.cancel();
    clock.advance(100);
    expect(sent).toEqual([1]);
  });
});

describe('peer presence', () => {
  const peer = (user_id: string) => ({ user_id, name: user_id, color: '#e6194b', can_edit: true });

  it('a cursor stays for 10 s, then fades out over a second and is dropped', () => {
    expect(cursorOpacity(0, PEER_CURSOR_IDLE_MS)).toBe(1);
    expect(cursorOpacity(0, PEER_CURSOR_IDLE_MS + PEER_CURSOR_FADE_MS / 2)).toBeCloseTo(0.5);
    expect(cursorOpacity(0, PEER_CURSOR_IDLE_MS + PEER_CURSOR_FADE_MS)).toBe(0);
    const s = withCursor(withCursor(EMPTY_PRESENCE, 'a', 1, 2, 0), 'b', 3, 4, 5_000);
    expect(dropFaded(s, 9_000)).toBe(s);
    const later = dropFaded(s, PEER_CURSOR_IDLE_MS + PEER_CURSOR_FADE_MS);
    expect([...later.cursors.keys()]).toEqual(['b']);
    // A move brings it back at full strength.
    expect(cursorOpacity(withCursor(later, 'a', 5, 5, 20_000).cursors.get('a')!.at, 20_000)).toBe(1);
  });

  it('people who left lose their cursor and selection; an empty selection is no selection', () => {
    let s = withSelection(withCursor(EMPTY_PRESENCE, 'a', 1, 2, 0), 'a', ['x']);
    s = withSelection(withCursor(s, 'b', 1, 2, 0), 'b', ['y']);
    expect(keepPeers(s, [peer('a'), peer('b')])).toBe(s);
    const kept = keepPeers(s, [peer('b')]);
    expect([...kept.cursors.keys()]).toEqual(['b']);
    expect([...kept.selections.keys()]).toEqual(['b']);
    expect(withSelection(kept, 'b', []).selections.size).toBe(0);
  });
});
