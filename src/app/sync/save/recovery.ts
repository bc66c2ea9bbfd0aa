// Work this device kept (IndexedDB, ./store.ts) coming back: open() rebuilds the entries found for
// an image on the loaded document (three ways when the server moved on) and saves the result; work
// left for images the screen does not open is resumed in the background; discard() drops it and,
// when it was already saved, saves the changes that put the document back.
import type { StoredAnnotation } from '../../../contract/annotations';
import type { ManagerCore } from './core';
import { applyDelta, byId, countDifferences, deltaBetween, merge3 } from './merge';
import type { Scheduler } from './scheduler';
import { docInSlices, editTimes, hasWork, listOf, madeBy, netDelta, newSlot, parseTime, rebaseWithDropped, settledIds, type ServerDoc, type Slot } from './slot';
import type { PendingEntry } from './store';
import type { ImageRef, Recovery, SaveManager } from './types';

type Loaded = Parameters<SaveManager['open']>[1];

/** The tab that wrote an entry (its key is `${tab}:${seq}`). */
export function tabOf(entry: PendingEntry): string {
  return entry.key.slice(0, entry.key.lastIndexOf(':'));
}

/**
 * The entries this tab may take in: its own, and those of tabs no longer open. Another open tab's
 * are its own work in progress: taken in here as well, both tabs saved them, and the older copy
 * could land over a newer edit of the other tab (tests/api/save-chaos.test.ts, a second tab).
 */
export async function orphaned(entries: readonly PendingEntry[], tabId: string, liveTabs: (() => Promise<ReadonlySet<string> | null>) | undefined): Promise<PendingEntry[]> {
  if (!liveTabs || entries.every((e) => tabOf(e) === tabId)) return [...entries];
  const live = await liveTabs().catch(() => null);
  if (!live) return [...entries];
  return entries.filter((e) => tabOf(e) === tabId || !live.has(tabOf(e)));
}

/** The image's entries: those in the store, with this tab's copies in memory (the freshest) in their place, oldest first. */
export function gatherEntries(stored: readonly PendingEntry[], s: Slot | undefined): PendingEntry[] {
  const mine = new Map<string, PendingEntry>();
  for (const e of [...(s?.inFlight ?? []), ...(s?.pending ?? [])]) mine.set(e.key, e);
  const entries = stored.map((e) => mine.get(e.key) ?? e);
  for (const e of mine.values()) if (!entries.some((x) => x.key === e.key)) entries.push(e);
  entries.sort((a, b) => a.at - b.at || (a.key < b.key ? -1 : 1));
  return entries;
}

/**
 * The document the entries were made on: the server's list with each touched shape as the entries
 * knew it (their `before`), or as the server holds it where they were made on this very version.
 */
export function recoveryBase(entries: readonly PendingEntry[], server: ServerDoc, serverList: readonly StoredAnnotation[]): StoredAnnotation[] {
  const beforeUps: StoredAnnotation[] = [];
  const beforeGone: string[] = [];
  const seen = new Set<string>();
  for (const e of entries) {
    for (const [id, shape] of Object.entries(e.before)) {
      if (seen.has(id)) continue;
      seen.add(id);
      const b = e.baseVersion === server.version ? (server.shapes.get(id) ?? null) : shape;
      if (b) beforeUps.push(b);
      else beforeGone.push(id);
    }
  }
  return applyDelta(serverList, beforeUps, beforeGone);
}

export interface RecoveryOps {
  /** After load-data: the image's slot on the loaded document, with the work kept for it rebuilt on top (see SaveManager.open). */
  openImage(ref: ImageRef, loaded: Loaded): Promise<Recovery | null>;
  /** Work left on the device for images the screen has not opened: load, merge and save it in the background. */
  resumeOthers(): Promise<void>;
  discard(imageId: string): Promise<void>;
}

// Long because recovery is one procedure over the device's entries: rebuild, three-way merge when the
// server moved on, trim, save, and discard, sharing the slot's state.
export function createRecovery(
  core: ManagerCore,
  sched: Scheduler,
  hooks: {
    /** Follows the signed-in account (./device.ts follow). */
    followUser(): Promise<void>;
    /** The image is not shown: its slot is closed once opened in the background. */
    closeHidden(imageId: string): void;
  },
): RecoveryOps {
  const { deps, slots, device } = core;
  /** The user whose leftover work was already resumed in the background. */
  let resumedFor: string | null = null;

  /** The entries rebuilt on the server document, three ways when it moved on, and saved after the debounce. */
  async function rebuild(s: Slot, entries: PendingEntry[], loaded: Loaded, stale: boolean): Promise<Recovery | null> {
    const server = s.base;
    const serverList = listOf(server);
    const net = netDelta(entries);
    const base = recoveryBase(entries, server, serverList);
    const ours = applyDelta(base, net.upserts, net.removed);
    const times = editTimes(entries);
    const merged = merge3(base, ours, serverList, { oursAt: (id) => times.get(id) ?? -Infinity, theirsAt: server.savedAt, removed: new Set(net.removed), mine: madeBy(entries) });
    const changes = countDifferences(merged.annotations, loaded.annotations);
    if (countDifferences(merged.annotations, serverList) === 0) {
      // The server already holds all of it (a keepalive save that landed, another tab's save).
      const keys = entries.map((e) => e.key);
      s.pending = [];
      s.inFlight = [];
      s.needsSave = false;
      await device.op((st) => st.remove(keys));
      core.emit();
      return stale ? { annotations: serverList, changes, savedAt: deps.now() } : null;
    }
    // The entries now describe the merge on top of the server document (what the save sends):
    // ids where it holds the server's shape leave them.
    const { rebased, dropped } = rebaseWithDropped(s.base, entries, settledIds(entries, byId(merged.annotations), server.shapes));
    s.pending = rebased;
    s.inFlight = [];
    device.persist(dropped, s.pending);
    s.needsSave = true;
    s.phase = 'pending';
    s.recovery = { before: serverList, saved: false };
    sched.schedule(s, false);
    core.emit();
    return { annotations: merged.annotations, changes, savedAt: Math.max(...entries.map((e) => e.at)) };
  }

  async function openImage(ref: ImageRef, loaded: Loaded): Promise<Recovery | null> {
    // Marked open at once, so a save landing meanwhile does not forget the image's slot.
    const early = slots.get(ref.imageId);
    if (early) early.isOpen = true;
    await hooks.followUser();
    let s = slots.get(ref.imageId);
    // Work of this tab still on its way: let it land first, so the loaded copy is not older than it.
    if (s) {
      s.isOpen = true;
      if (hasWork(s)) await sched.kick(s, { reset: true });
    }
    const stored = await orphaned(await device.forImage(ref.imageId), deps.tabId, deps.liveTabs);
    const fromServer = await docInSlices(loaded.annotations, loaded.version, parseTime(loaded.saved_at));
    // Read after the awaits: a save of this tab that landed meanwhile moved the base on.
    s = slots.get(ref.imageId);
    const server = s && s.base.version > fromServer.version ? s.base : fromServer;
    const entries = gatherEntries(stored, s);

    if (!s) {
      s = newSlot(ref, server);
      slots.set(ref.imageId, s);
    } else {
      s.ref = ref;
      s.base = server;
    }
    s.isOpen = true;
    s.recovery = null;
    const stale = server !== fromServer;

    if (entries.length) return rebuild(s, entries, loaded, stale);
    s.pending = [];
    s.needsSave = false;
    core.emit();
    if (!stale) return null;
    const serverList = listOf(server);
    return { annotations: serverList, changes: countDifferences(serverList, loaded.annotations), savedAt: deps.now() };
  }

  async function resumeOthers() {
    if (resumedFor === device.user || core.disposed) return;
    resumedFor = device.user;
    try {
      await device.settled();
      const st = await device.open();
      for (const id of await st.images()) {
        if (slots.has(id) || core.disposed) continue;
        const first = (await orphaned(await st.forImage(id), deps.tabId, deps.liveTabs))[0];
        if (!first) continue;
        const ref: ImageRef = { imageId: id, projectId: first.projectId, imageFilename: first.imageFilename };
        const loaded = await deps.transport.load(id, ref.projectId);
        if (!loaded) {
          resumedFor = null; // try again on the next open
          continue;
        }
        if (slots.has(id)) continue; // the screen opened it meanwhile
        await openImage(ref, { annotations: loaded.annotations as StoredAnnotation[], version: loaded.version, saved_at: loaded.saved_at });
        hooks.closeHidden(id);
      }
    } catch (err) {
      deps.log('Could not resume the unsaved changes kept on this device', err);
    }
  }

  async function discard(imageId: string) {
    const s = slots.get(imageId);
    if (!s) {
      await device.op((st) => st.removeImage(imageId));
      return;
    }
    sched.stopTimers(s);
    if (s.running) await s.running.catch(() => undefined);
    const recovery = s.recovery;
    s.pending = [];
    s.inFlight = [];
    s.needsSave = false;
    s.recovery = null;
    s.phase = 'idle';
    await device.op((st) => st.removeImage(imageId));
    if (recovery?.saved) {
      // The recovered changes already reached the server: put back the document they were
      // applied to, as the changes that undo them (kept in this tab only, as the discard is).
      const undo = deltaBetween(listOf(s.base), recovery.before);
      if (undo.upserts.length || undo.removed.length) {
        s.pending.push(core.newEntry(s, undo, true));
        s.needsSave = true;
        await sched.kick(s, { reset: true });
      }
    }
    core.emit();
  }

  return { openImage, resumeOthers, discard };
}
