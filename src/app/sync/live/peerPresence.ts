// Peers' cursors and selections on the open image (live co-editing, issue 20): the pure parts.
// A throttle for sending our own cursor (at most LIVE_MAX_PEER_MESSAGES_PER_SECOND a second, the
// last position always sent), and the state of the others' cursors, selections and drafts (issue 35:
// the shapes shown as their unsaved edits, which ./drafts.ts ends): a person who left (presence)
// loses cursor and selection, and a cursor not moved for PEER_CURSOR_IDLE_MS fades out.
import { LIVE_MAX_PEER_MESSAGES_PER_SECOND, type LivePeer } from '../../../contract/live';

/** Our cursor is sent at most this often (20 a second, the server's relay limit). */
export const CURSOR_SEND_INTERVAL_MS = Math.ceil(1000 / LIVE_MAX_PEER_MESSAGES_PER_SECOND);
/** A peer's cursor not updated for this long fades out... */
export const PEER_CURSOR_IDLE_MS = 10_000;
/** ...over this long, then is gone. */
export const PEER_CURSOR_FADE_MS = 1_000;

export interface Clock {
  now: () => number;
  setTimer: (fn: () => void, ms: number) => unknown;
  clearTimer: (handle: unknown) => void;
}

/**
 * Calls `fn` at most once per `intervalMs`: the first call at once, later ones within the interval
 * collapse into one trailing call with the newest arguments. `cancel` drops a pending call.
 */
export function throttle<A extends unknown[]>(fn: (...args: A) => void, intervalMs: number, clock: Clock): { call: (...args: A) => void; cancel: () => void } {
  let last = -Infinity;
  let pending: A | null = null;
  let timer: unknown = null;
  const fire = () => {
    timer = null;
    if (!pending) return;
    const args = pending;
    pending = null;
    last = clock.now();
    fn(...args);
  };
  return {
    call: (...args: A) => {
      pending = args;
      if (timer !== null) return;
      const wait = last + intervalMs - clock.now();
      if (wait <= 0) fire();
      else timer = clock.setTimer(fire, wait);
    },
    cancel: () => {
      if (timer !== null) clock.clearTimer(timer);
      timer = null;
      pending = null;
    },
  };
}

/** How opaque a cursor last moved at `at` is at `now`: 1, then down to 0 over the fade after the idle time. */
export function cursorOpacity(at: number, now: number): number {
  const idle = now - at - PEER_CURSOR_IDLE_MS;
  if (idle <= 0) return 1;
  return Math.max(0, 1 - idle / PEER_CURSOR_FADE_MS);
}

export interface PeerCursor {
  x: number;
  y: number;
  /** When it was heard (the clock of `now`). */
  at: number;
}

/** The others' cursors and selections, by user id, and their drafts. Immutable: each change gives a new state. */
export interface PeerPresence {
  cursors: ReadonlyMap<string, PeerCursor>;
  selections: ReadonlyMap<string, readonly string[]>;
  /** Shapes shown as another person's draft (not saved yet): shape id -> its author's user id. */
  drafts: ReadonlyMap<string, string>;
}

export const EMPTY_PRESENCE: PeerPresence = { cursors: new Map(), selections: new Map(), drafts: new Map() };

export function withCursor(s: PeerPresence, userId: string, x: number, y: number, now: number): PeerPresence {
  const cursors = new Map(s.cursors);
  cursors.set(userId, { x, y, at: now });
  return { ...s, cursors };
}

export function withSelection(s: PeerPresence, userId: string, ids: readonly string[]): PeerPresence {
  const selections = new Map(s.selections);
  if (ids.length === 0) selections.delete(userId);
  else selections.set(userId, ids);
  return { ...s, selections };
}

/** Only the people still on the image keep a cursor and a selection. */
export function keepPeers(s: PeerPresence, peers: readonly LivePeer[]): PeerPresence {
  const on = new Set(peers.map((p) => p.user_id));
  const gone = (m: ReadonlyMap<string, unknown>) => [...m.keys()].some((id) => !on.has(id));
  if (!gone(s.cursors) && !gone(s.selections)) return s;
  return {
    ...s,
    cursors: new Map([...s.cursors].filter(([id]) => on.has(id))),
    selections: new Map([...s.selections].filter(([id]) => on.has(id))),
  };
}

/** Drops cursors that have faded out entirely (the state itself when none has). */
/**
 * When the cursors' overlay must next be redrawn for fading: `tick` ms from now while a cursor
 * fades, else when the first one starts to (Infinity: no cursor). Nothing needs a redraw before.
 */
export function nextFadeAt(s: PeerPresence, now: number, tick: number): number {
  let next = Infinity;
  for (const c of s.cursors.values()) {
    const starts = c.at + PEER_CURSOR_IDLE_MS;
    next = Math.min(next, starts <= now ? now + tick : starts);
  }
  return next;
}

export function dropFaded(s: PeerPresence, now: number): PeerPresence {
  if (![...s.cursors.values()].some((c) => cursorOpacity(c.at, now) === 0)) return s;
  return { ...s, cursors: new Map([...s.cursors].filter(([, c]) => cursorOpacity(c.at, now) > 0)) };
}
