// Who is on each watched image (the Data tab's tiles, `LiveClient.watchPresence`): the state the
// tiles read, moved on by the server's `watching` answer and its `presence` messages. Images with
// nobody on them are left out; an unchanged list keeps its array, and an unchanged state its map,
// so a tile re-renders only when its own people change.
import type { LivePeer } from '../../../contract/live';

export type WatchedPeople = ReadonlyMap<string, readonly LivePeer[]>;

export const EMPTY_WATCHED: WatchedPeople = new Map();

/** The answer to a watch: it replaces everything known (keeping the arrays of lists that did not change). */
export function watchedFrom(images: readonly { image_id: string; peers: readonly LivePeer[] }[], before: WatchedPeople = EMPTY_WATCHED): WatchedPeople {
  const next = new Map<string, readonly LivePeer[]>();
  for (const { image_id, peers } of images) {
    if (peers.length === 0) continue;
    const old = before.get(image_id);
    next.set(image_id, old && samePeople(old, peers) ? old : peers);
  }
  if (next.size === before.size && [...next].every(([id, peers]) => before.get(id) === peers)) return before;
  return next.size ? next : EMPTY_WATCHED;
}

/** One image's people changed (an empty list: nobody is there any more). */
export function withPresence(state: WatchedPeople, imageId: string, peers: readonly LivePeer[]): WatchedPeople {
  const old = state.get(imageId);
  if (peers.length === 0 ? !old : old && samePeople(old, peers)) return state;
  const next = new Map(state);
  if (peers.length === 0) next.delete(imageId);
  else next.set(imageId, peers);
  return next;
}

function samePeople(a: readonly LivePeer[], b: readonly LivePeer[]): boolean {
  return a.length === b.length && a.every((p, i) => p.user_id === b[i]!.user_id && p.name === b[i]!.name && p.color === b[i]!.color && p.can_edit === b[i]!.can_edit);
}
