// A save refused with 409 (its base version is stale): the server's document is rebuilt from what
// the 409 carries, merged three ways with this device's changes (./merge.ts), the entries are
// rebased on it, and the screen gets the merge as a change to its document.
import type { StoredAnnotation } from '../../../contract/annotations';
import type { ManagerCore } from './core';
import { applyDelta, applyServerChanges, byId, deltaBetween, merge3 } from './merge';
import { docOf, editTimes, listOf, madeBy, netDelta, parseTime, rebaseWithDropped, settledIds, type Prepared, type Slot } from './slot';
import type { SaveOutcome } from './transport';

export interface TheirDoc {
  annotations: StoredAnnotation[];
  version: number;
  saved_at: string | null;
}

/**
 * The server's document after a 409: the changes since this base applied to it (what a large
 * document gets), else the whole document the 409 carried, else load-data.
 */
export async function theirsOf(core: ManagerCore, s: Slot, outcome: Extract<SaveOutcome, { kind: 'conflict' }>): Promise<TheirDoc | null> {
  const { changes, current } = outcome;
  if (changes && changes.since === s.base.version) {
    const annotations = applyServerChanges(listOf(s.base), changes.upserts as StoredAnnotation[], changes.removed_ids);
    return { annotations, version: changes.version, saved_at: changes.saved_at };
  }
  const doc = current ?? (await core.deps.transport.load(s.ref.imageId, s.ref.projectId));
  return doc ? { annotations: doc.annotations as StoredAnnotation[], version: doc.version, saved_at: doc.saved_at } : null;
}

/** Merges the save `p` that met a 409 with the server's document `current`; true when something is left to save. */
export function mergeConflict(core: ManagerCore, s: Slot, p: Prepared, current: TheirDoc): boolean {
  const theirsList = current.annotations;
  const theirs = docOf(theirsList, current.version, parseTime(current.saved_at));
  const entries = [...s.inFlight, ...s.pending];
  const times = editTimes(entries);
  const fallback = core.deps.now() + core.offset;
  const baseList = listOf(s.base);
  // What the screen held when the save left: the base with the changes the save carried.
  const ours = applyDelta(baseList, p.upserts, p.removed);
  const merged = merge3(baseList, ours, theirsList, { oursAt: (id) => times.get(id) ?? fallback, theirsAt: theirs.savedAt, removed: new Set(p.removed), mine: madeBy(entries) });
  // Changes made while the save was in flight are not in ours: lay them on top.
  const newer = netDelta(s.pending);
  const result = applyDelta(merged.annotations, newer.upserts, newer.removed);
  s.base = theirs;
  // The entries now describe the merge on top of theirs: ids where the merge holds the
  // server's shape (its side won, both made the same change, or ours came back to where
  // it started) leave them, so the next save carries only what the server lacks.
  const settled = settledIds(entries, byId(result), theirs.shapes);
  const { rebased, dropped } = rebaseWithDropped(s.base, entries, settled);
  s.inFlight = [];
  s.pending = rebased;
  core.device.persist(dropped, rebased);
  // Nothing left: the server already holds every change.
  s.needsSave = rebased.length > 0;
  core.mergedNotice = true;
  s.phase = s.needsSave ? 'pending' : 'idle';
  // The screen's document is the list sent plus the newer changes: it gets the difference, not a reload.
  const changes = deltaBetween(applyDelta(ours, newer.upserts, newer.removed), result);
  for (const l of core.mergedListeners) l(s.ref.imageId, { annotations: result, version: theirs.version, conflicts: merged.conflicts, theirsWon: merged.theirsWon, changes });
  return s.needsSave;
}
