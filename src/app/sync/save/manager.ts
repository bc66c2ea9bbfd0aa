// The save pipeline (issue 5 "Loading and saving"; spec sections 4, 8 and 9). Every change is kept
// on the device at once (IndexedDB, one small entry per change) and saved with save-changes after
// the 2000 ms debounce: the net upserts and removals of those entries on the server version they
// build on, never the whole list, so a save costs what the change costs, whatever the document's
// size. One save at a time per image. A 409 is merged three ways and saved again; 429, 503 and
// network failures are retried with backoff; a lost session waits for sign-in; nothing leaves the
// device's store before the server has it.
//
// This file wires the parts and holds the interface the screen calls: ./slot.ts (one image's
// pending changes, rebase and net delta), ./scheduler.ts (debounce, one save at a time, retries),
// ./conflict.ts (the 409 merge), ./recovery.ts (work kept on the device coming back, discard) and
// ./device.ts (the signed-in user's store, writes in order).
import type { SaveDataResponse } from '../../../contract/annotation-api';
import type { ManagerCore } from './core';
import { deviceStore } from './device';
import { createRecovery } from './recovery';
import { createScheduler } from './scheduler';
import { computeStatus, hasWork, netDelta, newEntry, outlastedBy, overwrittenBy, rebaseWithDropped, recentAmong, replaceDelta, sameStatus, settledIds, touchedIds, type Slot } from './slot';
import type { AbsorbedChange, Delta, MergeResult, SaveDeps, SaveManager, SaveStatus } from './types';

// Long because it is the pipeline's wiring: each method of the SaveManager interface is a few lines
// handing off to the slot, scheduler, conflict and recovery parts.
export function createManager(deps: SaveDeps): SaveManager {
  const statusListeners = new Set<(s: SaveStatus) => void>();
  let seq = 0;
  let lastStatus: SaveStatus = { state: 'saved', label: 'Saved', unsavedImages: 0 };
  /** Images the screen shows (between its open and close). */
  const screenOpen = new Set<string>();

  const core: ManagerCore = {
    deps,
    slots: new Map<string, Slot>(),
    device: deviceStore(deps),
    mergedListeners: new Set<(imageId: string, m: MergeResult) => void>(),
    savedListeners: new Set<(imageId: string, r: SaveDataResponse) => void>(),
    absorbedListeners: new Set<(imageId: string, a: AbsorbedChange) => void>(),
    offset: 0,
    mergedNotice: false,
    disposed: false,
    emit() {
      const next = computeStatus(core.slots.values(), core.mergedNotice);
      if (sameStatus(next, lastStatus)) return;
      lastStatus = next;
      for (const l of statusListeners) l(next);
    },
    newEntry(s, delta, local = false) {
      seq += 1;
      return newEntry(s, delta, { key: `${deps.tabId}:${String(seq).padStart(9, '0')}`, at: deps.now(), offset: core.offset }, local);
    },
  };
  const { slots, device } = core;
  const sched = createScheduler(core);

  /** Another account on this device: its slots go (the previous one's work stays in its own store for its return). */
  const followUser = () =>
    device.follow(() => {
      for (const s of slots.values()) sched.stopTimers(s);
      slots.clear();
      core.emit();
    });

  function changeImage(imageId: string, delta: Delta, opts?: { immediate?: boolean; replace?: boolean }) {
    const s = slots.get(imageId);
    if (!s) {
      deps.log(`A change for image ${imageId}, which was never opened, cannot be saved`);
      return;
    }
    core.mergedNotice = false;
    // The whole document was replaced: every shape the device knew and the new one lacks is removed.
    if (opts?.replace) delta = replaceDelta(s, delta);
    // Nothing changed (a remove-all where this device knows no shape): the server would make an empty version of it.
    if (!delta.upserts.length && !delta.removed.length) return;
    const entry = core.newEntry(s, delta);
    s.pending.push(entry);
    s.needsSave = true;
    if (s.phase === 'idle') s.phase = 'pending';
    void device.op((st) => st.add(entry));
    sched.schedule(s, !!opts?.immediate);
    core.emit();
  }

  function closeImage(imageId: string) {
    const s = slots.get(imageId);
    if (!s) return;
    // The entries hold every change: nothing of the editor is needed to save them.
    s.isOpen = false;
    s.recovery = null;
    if (hasWork(s)) {
      // The user moved on: no reason to wait for the debounce.
      if (s.retryTimer === null && s.phase !== 'needs-sign-in') void sched.kick(s, { reset: s.phase === 'error' || s.phase === 'offline-waiting' });
    } else if (!s.running) slots.delete(imageId);
  }

  const recovery = createRecovery(core, sched, {
    followUser,
    closeHidden: (imageId) => {
      if (!screenOpen.has(imageId)) closeImage(imageId);
    },
  });

  // ---------------------------------------------------------------- outside events
  const wakeAll = (filter: (s: Slot) => boolean) => {
    for (const s of slots.values()) if (hasWork(s) && filter(s)) void sched.kick(s, { reset: true });
    // Work left for images not opened whose load failed (offline, signed out) is tried again too,
    // not only on the next open(): until then it is on the device alone, and the top bar says Saved.
    if (screenOpen.size) void recovery.resumeOthers();
  };
  const offOnline = deps.onOnline(() => wakeAll(() => true));
  const offAuth = deps.onAuthChange(() => {
    void followUser().then(() => wakeAll((s) => s.phase === 'needs-sign-in' || s.phase === 'offline-waiting' || s.phase === 'error'));
  });

  // ---------------------------------------------------------------- the interface
  return {
    async open(ref, loaded) {
      screenOpen.add(ref.imageId);
      const recovered = await recovery.openImage(ref, loaded);
      if (screenOpen.size) void recovery.resumeOthers();
      return recovered;
    },

    change(imageId, delta: Delta, opts) {
      changeImage(imageId, delta, opts);
    },

    close(imageId) {
      screenOpen.delete(imageId);
      closeImage(imageId);
    },

    async flush() {
      if (screenOpen.size) void recovery.resumeOthers();
      await Promise.all([...slots.values()].filter(hasWork).map((s) => sched.kick(s, { reset: true })));
    },

    flushOnPageHide: () => sched.flushBatch([...slots.values()].filter((s) => s.needsSave && !s.running)),

    discard: (imageId) => recovery.discard(imageId),

    status: () => lastStatus,

    subscribe(listener) {
      statusListeners.add(listener);
      return () => statusListeners.delete(listener);
    },
    onMerged(listener) {
      core.mergedListeners.add(listener);
      return () => core.mergedListeners.delete(listener);
    },
    version: (imageId) => slots.get(imageId)?.base.version ?? null,

    remote(imageId, change) {
      const s = slots.get(imageId);
      if (!s || !s.isOpen) return { kind: 'closed' };
      // Held already (this tab's save, a merge, a rebased save's skipped versions): it may still have replaced a recent edit of this tab.
      if (change.version <= s.base.version) return { kind: 'known', overwritten: overwrittenBy(s, change, deps.now()) };
      // A save in flight builds on the base: its answer (saved, or a 409 merged) moves the base on first.
      if (s.running || s.inFlight.length > 0) return { kind: 'busy' };
      if (change.base_version !== s.base.version) return { kind: 'gap' };
      // The server applied exactly this change to the version held: so does the device's copy.
      const shapes = s.base.shapes;
      for (const id of change.removed_ids) shapes.delete(id);
      for (const a of change.upserts) shapes.set(a.id, a);
      s.base = { shapes, version: change.version, savedAt: s.base.savedAt };
      // Shapes changed here before the change was saved lose to it (the later edit wins): dropped
      // from the pending work, the screen takes theirs. The rest stay this device's, saved next.
      const theirsWon = outlastedBy(s.pending, change);
      // Pending changes now build on the new version (the next save sends them on it, no 409).
      // Those the server holds already leave (a save whose answer was lost is this change): sent
      // again they would make an empty version.
      const want = new Map(netDelta(s.pending).upserts.map((a) => [a.id, a]));
      const drop = new Set([...settledIds(s.pending, want, s.base.shapes), ...theirsWon]);
      const local = touchedIds(s.pending);
      for (const id of drop) local.delete(id);
      const { rebased, dropped } = rebaseWithDropped(s.base, s.pending, drop);
      s.pending = rebased;
      device.persist(dropped, rebased);
      if (!rebased.length && s.needsSave) {
        s.needsSave = false;
        s.phase = 'idle';
        core.emit();
      }
      return { kind: 'applied', local, overwritten: overwrittenBy(s, change, deps.now()).filter((id) => !local.has(id)), theirsWon: [...theirsWon] };
    },

    recentEdits: (imageId, ids) => recentAmong(slots.get(imageId), ids, deps.now()),

    onSaved(listener) {
      core.savedListeners.add(listener);
      return () => core.savedListeners.delete(listener);
    },
    onAbsorbed(listener) {
      core.absorbedListeners.add(listener);
      return () => core.absorbedListeners.delete(listener);
    },

    dispose() {
      core.disposed = true;
      for (const s of slots.values()) sched.stopTimers(s);
      offOnline();
      offAuth();
      device.close();
    },
  };
}
