// The save pipeline (issue 5 "Loading and saving"; spec sections 4, 8 and 9). Every change is kept
// on the device at once (IndexedDB, one small entry per change) and saved with save-changes after
// the 2000 ms debounce: the net upserts and removals of those entries on the server version they
// build on, never the whole list, so a save costs what the change costs, whatever the document's
// size. One save at a time per image. A 409 is merged three ways and saved again; 429, 503 and
// network failures are retried with backoff; a lost session waits for sign-in; nothing leaves the
// device's store before the server has it.
import type { StoredAnnotation } from '../../../../contract/annotations';
import type { SaveChangesRequest, SaveDataResponse } from '../../../../contract/annotation-api';
import { nextTask } from '../../../../engine';
import { applyDelta, applyServerChanges, byId, countDifferences, deltaBetween, merge3, sameJson } from './merge';
import { memoryStore, type PendingEntry, type PendingStore } from './store';
import type { SaveOutcome } from './transport';
import type { Delta, ImageRef, MergeResult, Recovery, SaveDeps, SaveManager, SaveState, SaveStatus } from './types';

type Phase = 'idle' | 'pending' | 'saving' | 'retrying' | 'offline' | 'offline-waiting' | 'needs-sign-in' | 'error';

interface ServerDoc {
  /**
   * The server's shapes by id, in the server's order. A save moves it on in place with what the
   * save carried (Map.set replaces in place or appends, delete drops: what save-changes does to
   * the stored list), so a save never walks or copies the document.
   */
  shapes: Map<string, StoredAnnotation>;
  version: number;
  /** Server clock, ms; null while never saved. */
  savedAt: number | null;
}

const docOf = (annotations: readonly StoredAnnotation[], version: number, savedAt: number | null): ServerDoc => ({ shapes: byId(annotations), version, savedAt });
/** Main-thread time per slice while an opened document is indexed by id. */
const INDEX_SLICE_MS = 6;
/**
 * docOf for a document being opened, indexed in slices: a 100k-shape Map built in one go took
 * 35-60 ms of main thread (with the scavenge it set off) while the editor was loading.
 */
async function docInSlices(annotations: readonly StoredAnnotation[], version: number, savedAt: number | null): Promise<ServerDoc> {
  const shapes = new Map<string, StoredAnnotation>();
  let start = performance.now();
  for (let i = 0; i < annotations.length; i++) {
    const a = annotations[i]!;
    shapes.set(a.id, a);
    if ((i & 1023) === 1023 && performance.now() - start > INDEX_SLICE_MS) {
      await nextTask();
      start = performance.now();
    }
  }
  return { shapes, version, savedAt };
}
/** The document as a list (merges, recovery and discard only: it walks the whole document). */
const listOf = (doc: ServerDoc): StoredAnnotation[] => [...doc.shapes.values()];

interface Slot {
  ref: ImageRef;
  /** The server document the entries build on: base + net(inFlight, pending) is what the device holds. */
  base: ServerDoc;
  /** Changes not yet part of a save in flight, oldest first. */
  pending: PendingEntry[];
  /** Changes inside the save in flight. */
  inFlight: PendingEntry[];
  needsSave: boolean;
  running: Promise<void> | null;
  again: boolean;
  timer: unknown;
  retryTimer: unknown;
  attempts: number;
  phase: Phase;
  message?: string;
  /** The screen shows this image (between open and close). */
  isOpen: boolean;
  /** Set by open() when it recovered work: the document before it, for discard. */
  recovery: { before: StoredAnnotation[]; saved: boolean } | null;
}

const MAX_CONFLICT_ROUNDS = 5;

const parseTime = (iso: string | null | undefined): number | null => {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isFinite(t) ? t : null;
};

export function createManager(deps: SaveDeps): SaveManager {
  const slots = new Map<string, Slot>();
  const statusListeners = new Set<(s: SaveStatus) => void>();
  const mergedListeners = new Set<(imageId: string, m: MergeResult) => void>();
  const savedListeners = new Set<(imageId: string, r: SaveDataResponse) => void>();
  let seq = 0;
  /** Server clock minus local clock (ms), learnt from each save's saved_at. */
  let offset = 0;
  let mergedNotice = false;
  /** Images the screen shows (between its open and close). */
  const screenOpen = new Set<string>();
  /** The user whose leftover work was already resumed in the background. */
  let resumedFor: string | null = null;
  let disposed = false;
  let lastStatus: SaveStatus = { state: 'saved', label: 'Saved', unsavedImages: 0 };

  // ---------------------------------------------------------------- the device's store
  let storePromise: Promise<PendingStore> | null = null;
  let activeUser: string | null = null;
  const store = (): Promise<PendingStore> =>
    (storePromise ??= (activeUser === null ? deps.currentUser().then((u) => ((activeUser = u), u)) : Promise.resolve(activeUser)).then(deps.openStore).catch((err: unknown) => {
      deps.log('Unsaved changes cannot be kept in IndexedDB; they are kept for this tab only.', err);
      return memoryStore();
    }));
  // Writes run in call order, so an entry is never deleted before it was added.
  let chain: Promise<unknown> = Promise.resolve();
  const storeOp = (fn: (s: PendingStore) => Promise<unknown>): Promise<void> => {
    const next = chain.then(async () => fn(await store())).catch((err: unknown) => deps.log('Could not update the unsaved changes kept on this device', err));
    chain = next;
    return next.then(() => undefined);
  };

  // ---------------------------------------------------------------- status
  const hasWork = (s: Slot) => s.needsSave || s.pending.length > 0 || s.inFlight.length > 0;

  function computeStatus(): SaveStatus {
    const list = [...slots.values()];
    const unsavedImages = list.filter(hasWork).length;
    const any = (p: Phase) => list.find((s) => s.phase === p && hasWork(s));
    let state: SaveState = 'saved';
    let label = 'Saved';
    let detail: string | undefined;
    const err = any('error');
    if (any('needs-sign-in')) [state, label] = ['needs-sign-in', 'Sign in to save - changes kept on this device'];
    else if (err) [state, label, detail] = ['error', 'Save failed - changes kept on this device', err.message];
    else if (any('offline') || any('offline-waiting')) [state, label] = ['offline', 'Offline - changes kept on this device'];
    else if (any('retrying')) [state, label, detail] = ['error', 'Save failed - retrying', any('retrying')!.message];
    else if (list.some((s) => s.running || s.phase === 'saving')) [state, label] = ['saving', 'Saving...'];
    else if (unsavedImages > 0) [state, label] = ['pending', 'Unsaved changes'];
    else if (mergedNotice) [state, label] = ['conflict-merged', 'Conflict merged'];
    return detail ? { state, label, detail, unsavedImages } : { state, label, unsavedImages };
  }

  function emit() {
    const next = computeStatus();
    if (next.state === lastStatus.state && next.label === lastStatus.label && next.detail === lastStatus.detail && next.unsavedImages === lastStatus.unsavedImages) return;
    lastStatus = next;
    for (const l of statusListeners) l(next);
  }

  // ---------------------------------------------------------------- helpers
  function setBase(s: Slot, doc: ServerDoc) {
    s.base = doc;
  }

  /** Entries describe changes against the server document: move them onto a newer one. */
  function rebase(s: Slot, entries: PendingEntry[], drop: ReadonlySet<string> = new Set()): PendingEntry[] {
    const map = s.base.shapes;
    const kept: PendingEntry[] = [];
    for (const e of entries) {
      const upserts = drop.size ? e.upserts.filter((a) => !drop.has(a.id)) : e.upserts;
      const removed = drop.size ? e.removed.filter((id) => !drop.has(id)) : e.removed;
      if (!upserts.length && !removed.length) continue;
      const before: Record<string, StoredAnnotation | null> = {};
      for (const a of upserts) before[a.id] = map.get(a.id) ?? null;
      for (const id of removed) before[id] = map.get(id) ?? null;
      kept.push({ ...e, upserts, removed, before, baseVersion: s.base.version });
    }
    return kept;
  }

  /** When this device last changed each shape, in server time. */
  function editTimes(entries: PendingEntry[]): Map<string, number> {
    const at = new Map<string, number>();
    for (const e of entries) {
      const t = e.at + e.offset;
      for (const a of e.upserts) at.set(a.id, Math.max(at.get(a.id) ?? -Infinity, t));
      for (const id of e.removed) at.set(id, Math.max(at.get(id) ?? -Infinity, t));
    }
    return at;
  }

  function clearTimer(s: Slot) {
    if (s.timer !== null) deps.clearTimer(s.timer);
    s.timer = null;
  }
  function clearRetry(s: Slot) {
    if (s.retryTimer !== null) deps.clearTimer(s.retryTimer);
    s.retryTimer = null;
  }

  function newSlot(ref: ImageRef, base: ServerDoc): Slot {
    return { ref, base, pending: [], inFlight: [], needsSave: false, running: null, again: false, timer: null, retryTimer: null, attempts: 0, phase: 'idle', isOpen: true, recovery: null };
  }

  /** One change as an entry: its shapes, and the server's shape of each touched id as the merge base. */
  function newEntry(s: Slot, delta: Delta, local = false): PendingEntry {
    const map = s.base.shapes;
    const before: Record<string, StoredAnnotation | null> = {};
    for (const a of delta.upserts) before[a.id] = map.get(a.id) ?? null;
    for (const id of delta.removed) before[id] = map.get(id) ?? null;
    seq += 1;
    return {
      key: `${deps.tabId}:${String(seq).padStart(9, '0')}`,
      imageId: s.ref.imageId,
      projectId: s.ref.projectId,
      imageFilename: s.ref.imageFilename,
      at: deps.now(),
      offset,
      baseVersion: s.base.version,
      upserts: delta.upserts,
      removed: delta.removed,
      before,
      ...(local ? { local: true } : {}),
    };
  }

  /** The device's store follows a save or a merge: entries that left are removed, the rest rewritten on the new base. */
  function persist(removed: string[], rebased: PendingEntry[]) {
    const kept = rebased.filter((e) => !e.local);
    if (!removed.length && !kept.length) return;
    void storeOp(async (st) => {
      if (removed.length) await st.remove(removed);
      if (kept.length) await st.put(kept);
    });
  }

  /** Touched ids of the entries whose wanted shape (from `want`) is already the server's. */
  function settledIds(entries: PendingEntry[], want: ReadonlyMap<string, StoredAnnotation>, server: ReadonlyMap<string, StoredAnnotation>): Set<string> {
    const out = new Set<string>();
    const check = (id: string) => {
      if (!out.has(id) && sameJson(want.get(id), server.get(id))) out.add(id);
    };
    for (const e of entries) {
      for (const a of e.upserts) check(a.id);
      for (const id of e.removed) check(id);
    }
    return out;
  }

  // ---------------------------------------------------------------- one save
  interface Prepared {
    body: SaveChangesRequest;
    /** Net changes this save carries (what the entries in flight add up to). */
    upserts: StoredAnnotation[];
    removed: string[];
    sentAt: number;
  }

  /** The save of everything pending: the net changes of the entries, on the version they build on. Its cost is the change's, not the document's. */
  function prepare(s: Slot): Prepared {
    clearTimer(s);
    s.needsSave = false;
    s.inFlight.push(...s.pending);
    s.pending = [];
    s.phase = 'saving';
    const { upserts, removed } = netDelta(s.inFlight);
    const body: SaveChangesRequest = { image_id: s.ref.imageId, project_id: s.ref.projectId, image_filename: s.ref.imageFilename, base_version: s.base.version, upserts, removed_ids: removed };
    return { body, upserts, removed, sentAt: deps.now() };
  }

  /** Work that was sent but not saved goes back in front of newer work. */
  function giveBack(s: Slot) {
    s.pending = [...s.inFlight, ...s.pending];
    s.inFlight = [];
    s.needsSave = true;
  }

  type Next = 'done' | 'again' | 'stop';

  /**
   * The server's document after a 409: the changes since this base applied to it (what a large
   * document gets), else the whole document the 409 carried, else load-data.
   */
  async function theirsOf(s: Slot, outcome: Extract<SaveOutcome, { kind: 'conflict' }>): Promise<{ annotations: StoredAnnotation[]; version: number; saved_at: string | null } | null> {
    const { changes, current } = outcome;
    if (changes && changes.since === s.base.version) {
      const annotations = applyServerChanges(listOf(s.base), changes.upserts as StoredAnnotation[], changes.removed_ids);
      return { annotations, version: changes.version, saved_at: changes.saved_at };
    }
    const doc = current ?? (await deps.transport.load(s.ref.imageId, s.ref.projectId));
    return doc ? { annotations: doc.annotations as StoredAnnotation[], version: doc.version, saved_at: doc.saved_at } : null;
  }

  async function finish(s: Slot, p: Prepared, outcome: SaveOutcome, refreshed: { tried: boolean }): Promise<Next> {
    switch (outcome.kind) {
      case 'saved': {
        const { res } = outcome;
        const savedAt = parseTime(res.saved_at);
        if (savedAt !== null) offset = savedAt - (p.sentAt + deps.now()) / 2;
        // The server applied exactly these changes to the base: so does the device's copy.
        const shapes = s.base.shapes;
        for (const id of p.removed) shapes.delete(id);
        for (const a of p.upserts) shapes.set(a.id, a);
        setBase(s, { shapes, version: res.version, savedAt });
        const savedKeys = s.inFlight.map((e) => e.key);
        s.inFlight = [];
        // Only what this save carried leaves the device; newer changes now build on the saved version.
        s.pending = rebase(s, s.pending);
        persist(savedKeys, s.pending);
        if (s.recovery) s.recovery.saved = true;
        s.attempts = 0;
        s.phase = hasWork(s) ? 'pending' : 'idle';
        s.message = undefined;
        for (const l of savedListeners) l(s.ref.imageId, res);
        return s.needsSave && s.again ? 'again' : 'done';
      }
      case 'conflict': {
        const current = await theirsOf(s, outcome);
        // Neither did the changes fit this base nor could the document be loaded: like a failed request, try again later.
        if (!current) return finish(s, p, { kind: 'retry', status: 409, message: 'Could not load the other changes to merge' }, refreshed);
        const theirsList = current.annotations;
        const theirs = docOf(theirsList, current.version, parseTime(current.saved_at));
        const entries = [...s.inFlight, ...s.pending];
        const times = editTimes(entries);
        const fallback = deps.now() + offset;
        const baseList = listOf(s.base);
        // What the screen held when the save left: the base with the changes the save carried.
        const ours = applyDelta(baseList, p.upserts, p.removed);
        const merged = merge3(baseList, ours, theirsList, { oursAt: (id) => times.get(id) ?? fallback, theirsAt: theirs.savedAt });
        // Changes made while the save was in flight are not in ours: lay them on top.
        const newer = netDelta(s.pending);
        const result = applyDelta(merged.annotations, newer.upserts, newer.removed);
        setBase(s, theirs);
        // The entries now describe the merge on top of theirs: ids where the merge holds the
        // server's shape (its side won, both made the same change, or ours came back to where
        // it started) leave them, so the next save carries only what the server lacks.
        const settled = settledIds(entries, byId(result), theirs.shapes);
        const rebased = rebase(s, entries, settled);
        const kept = new Set(rebased.map((e) => e.key));
        const dropped = entries.filter((e) => !kept.has(e.key)).map((e) => e.key);
        s.inFlight = [];
        s.pending = rebased;
        persist(dropped, rebased);
        // Nothing left: the server already holds every change.
        s.needsSave = rebased.length > 0;
        mergedNotice = true;
        s.phase = s.needsSave ? 'pending' : 'idle';
        // The screen's document is the list sent plus the newer changes: it gets the difference, not a reload.
        const changes = deltaBetween(applyDelta(ours, newer.upserts, newer.removed), result);
        for (const l of mergedListeners) l(s.ref.imageId, { annotations: result, version: theirs.version, conflicts: merged.conflicts, changes });
        return s.needsSave ? 'again' : 'done';
      }
      case 'auth': {
        giveBack(s);
        if (!refreshed.tried) {
          refreshed.tried = true;
          if (await deps.transport.refreshAuth()) return 'again';
        }
        s.phase = 'needs-sign-in';
        s.message = outcome.message;
        return 'stop';
      }
      case 'retry': {
        giveBack(s);
        s.attempts += 1;
        s.message = outcome.message;
        const offline = outcome.status === null;
        if (s.attempts <= deps.maxRetries) {
          const delay = Math.min(deps.baseRetryMs * 2 ** (s.attempts - 1), deps.maxRetryMs);
          s.phase = offline ? 'offline' : 'retrying';
          clearRetry(s);
          s.retryTimer = deps.setTimer(() => {
            s.retryTimer = null;
            void kick(s, {});
          }, delay);
        } else {
          // Retries used up: the work waits on the device for 'online', the next change or a flush.
          s.phase = offline ? 'offline-waiting' : 'error';
        }
        return 'stop';
      }
      case 'refused': {
        giveBack(s);
        s.phase = 'error';
        s.message = outcome.message;
        return 'stop';
      }
    }
  }

  function netDelta(entries: PendingEntry[]): { upserts: StoredAnnotation[]; removed: string[]; touched: Set<string> } {
    const state = new Map<string, StoredAnnotation | null>();
    for (const e of entries) {
      for (const id of e.removed) state.set(id, null);
      for (const a of e.upserts) state.set(a.id, a);
    }
    const upserts: StoredAnnotation[] = [];
    const removed: string[] = [];
    for (const [id, v] of state) {
      if (v) upserts.push(v);
      else removed.push(id);
    }
    return { upserts, removed, touched: new Set(state.keys()) };
  }

  /** Runs the image's saves until nothing is left or a failure waits. Concurrent calls join the running one. */
  function kick(s: Slot, opts: { reset?: boolean; keepalive?: boolean }): Promise<void> {
    if (opts.reset) {
      clearRetry(s);
      s.attempts = 0;
    }
    if (s.running) {
      s.again = true;
      return s.running;
    }
    if (!s.needsSave) return Promise.resolve();
    const run = (async () => {
      const refreshed = { tried: false };
      let conflicts = 0;
      let keepalive = !!opts.keepalive;
      for (;;) {
        s.again = false;
        if (!s.needsSave || disposed) break;
        const p = prepare(s);
        emit();
        let outcome: SaveOutcome;
        try {
          outcome = await deps.transport.save(p.body, { keepalive });
        } catch (err) {
          outcome = { kind: 'retry', status: null, message: err instanceof Error ? err.message : String(err) };
        }
        keepalive = false;
        if (outcome.kind !== 'saved') deps.log('Auto-save failed:', outcome);
        if (outcome.kind === 'conflict' && ++conflicts > MAX_CONFLICT_ROUNDS) {
          giveBack(s);
          s.phase = 'error';
          s.message = 'The annotations keep changing on the server; saving will try again.';
          break;
        }
        const next = await finish(s, p, outcome, refreshed);
        if (next !== 'again' && !(next === 'done' && s.again && s.needsSave)) break;
      }
    })().finally(() => {
      s.running = null;
      // A closed image whose work is saved is forgotten (its document can be large).
      if (!s.isOpen && !hasWork(s) && slots.get(s.ref.imageId) === s) slots.delete(s.ref.imageId);
      emit();
    });
    s.running = run;
    return run;
  }

  function schedule(s: Slot, immediate: boolean) {
    clearTimer(s);
    if (immediate) {
      if (s.retryTimer === null) void kick(s, { reset: s.phase !== 'retrying' && s.phase !== 'offline' });
      return;
    }
    s.timer = deps.setTimer(() => {
      s.timer = null;
      // During a backoff the retry carries this change; otherwise a change restarts saving.
      if (s.retryTimer === null) void kick(s, { reset: true });
    }, deps.debounceMs);
  }

  // ---------------------------------------------------------------- outside events
  const wakeAll = (filter: (s: Slot) => boolean) => {
    for (const s of slots.values()) if (hasWork(s) && filter(s)) void kick(s, { reset: true });
  };
  /** Another account on this device: the previous one's work stays in its own store (never sent with the new account's token) for its return. */
  async function followUser(): Promise<void> {
    const user = await deps.currentUser().catch(() => activeUser ?? 'signed-out');
    if (activeUser !== null && user !== activeUser) {
      for (const s of slots.values()) {
        clearTimer(s);
        clearRetry(s);
      }
      slots.clear();
      const previous = storePromise;
      storePromise = null;
      chain = chain.then(() => previous?.then((st) => st.close()));
      emit();
    }
    activeUser = user;
  }

  const offOnline = deps.onOnline(() => wakeAll(() => true));
  const offAuth = deps.onAuthChange(() => {
    void followUser().then(() => wakeAll((s) => s.phase === 'needs-sign-in' || s.phase === 'offline-waiting' || s.phase === 'error'));
  });

  // ---------------------------------------------------------------- the interface
  const manager: SaveManager = {
    async open(ref, loaded) {
      screenOpen.add(ref.imageId);
      const recovery = await openImage(ref, loaded);
      void resumeOthers();
      return recovery;
    },

    change(imageId, delta: Delta, opts) {
      changeImage(imageId, delta, opts);
    },

    close(imageId) {
      screenOpen.delete(imageId);
      closeImage(imageId);
    },

    async flush() {
      await Promise.all([...slots.values()].filter(hasWork).map((s) => kick(s, { reset: true })));
    },

    flushOnPageHide() {
      const ready = [...slots.values()].filter((s) => s.needsSave && !s.running);
      if (ready.length <= 1) {
        for (const s of ready) void kick(s, { reset: true, keepalive: true });
        return;
      }
      for (const s of ready) clearRetry(s);
      const prepared = ready.map((s) => ({ s, p: prepare(s) }));
      const outcomes = deps.transport.saveBatch(prepared.map((x) => x.p.body), { keepalive: true }).catch(
        (err: unknown): SaveOutcome[] => prepared.map(() => ({ kind: 'retry', status: null, message: err instanceof Error ? err.message : String(err) })),
      );
      for (const [i, { s, p }] of prepared.entries()) {
        let next: Next = 'done';
        s.running = (async () => {
          next = await finish(s, p, (await outcomes)[i]!, { tried: false });
        })().finally(() => {
          s.running = null;
          if (next === 'again' || (s.again && s.needsSave)) void kick(s, {});
          emit();
        });
      }
      emit();
    },

    async discard(imageId) {
      const s = slots.get(imageId);
      if (!s) {
        await storeOp((st) => st.removeImage(imageId));
        return;
      }
      clearTimer(s);
      clearRetry(s);
      if (s.running) await s.running.catch(() => undefined);
      const recovery = s.recovery;
      s.pending = [];
      s.inFlight = [];
      s.needsSave = false;
      s.recovery = null;
      s.phase = 'idle';
      await storeOp((st) => st.removeImage(imageId));
      if (recovery?.saved) {
        // The recovered changes already reached the server: put back the document they were
        // applied to, as the changes that undo them (kept in this tab only, as the discard is).
        const undo = deltaBetween(listOf(s.base), recovery.before);
        if (undo.upserts.length || undo.removed.length) {
          s.pending.push(newEntry(s, undo, true));
          s.needsSave = true;
          await kick(s, { reset: true });
        }
      }
      emit();
    },

    status: () => lastStatus,

    subscribe(listener) {
      statusListeners.add(listener);
      return () => statusListeners.delete(listener);
    },
    onMerged(listener) {
      mergedListeners.add(listener);
      return () => mergedListeners.delete(listener);
    },
    onSaved(listener) {
      savedListeners.add(listener);
      return () => savedListeners.delete(listener);
    },

    dispose() {
      disposed = true;
      for (const s of slots.values()) {
        clearTimer(s);
        clearRetry(s);
      }
      offOnline();
      offAuth();
      void storePromise?.then((st) => st.close());
    },
  };

  async function openImage(ref: ImageRef, loaded: Parameters<SaveManager['open']>[1]): Promise<Recovery | null> {
    // Marked open at once, so a save landing meanwhile does not forget the image's slot.
    const early = slots.get(ref.imageId);
    if (early) early.isOpen = true;
    await followUser();
    let s = slots.get(ref.imageId);
    // Work of this tab still on its way: let it land first, so the loaded copy is not older than it.
    if (s) {
      s.isOpen = true;
      if (hasWork(s)) await kick(s, { reset: true });
    }
    const stored = await (async () => {
      await chain;
      try {
        return await (await store()).forImage(ref.imageId);
      } catch (err) {
        deps.log('Could not read the unsaved changes kept on this device', err);
        return [];
      }
    })();
    const fromServer = await docInSlices(loaded.annotations, loaded.version, parseTime(loaded.saved_at));
    // Read after the awaits: a save of this tab that landed meanwhile moved the base on.
    s = slots.get(ref.imageId);
    const server = s && s.base.version > fromServer.version ? s.base : fromServer;
    // This tab's own entries in memory are the freshest copies.
    const mine = new Map<string, PendingEntry>();
    for (const e of [...(s?.inFlight ?? []), ...(s?.pending ?? [])]) mine.set(e.key, e);
    const entries = stored.map((e) => mine.get(e.key) ?? e);
    for (const e of mine.values()) if (!entries.some((x) => x.key === e.key)) entries.push(e);
    entries.sort((a, b) => a.at - b.at || (a.key < b.key ? -1 : 1));

    if (!s) {
      s = newSlot(ref, server);
      slots.set(ref.imageId, s);
    } else {
      s.ref = ref;
      setBase(s, server);
    }
    s.isOpen = true;
    s.recovery = null;
    const stale = server !== fromServer;

    if (!entries.length) {
      s.pending = [];
      s.needsSave = false;
      emit();
      if (!stale) return null;
      const serverList = listOf(server);
      return { annotations: serverList, changes: countDifferences(serverList, loaded.annotations), savedAt: deps.now() };
    }
    const serverList = listOf(server);

    // Rebuild this device's changes on top of the server document, three ways when it moved on.
    const net = netDelta(entries);
    const serverMap = server.shapes;
    const base = (() => {
      const beforeUps: StoredAnnotation[] = [];
      const beforeGone: string[] = [];
      const seen = new Set<string>();
      for (const e of entries) {
        for (const [id, shape] of Object.entries(e.before)) {
          if (seen.has(id)) continue;
          seen.add(id);
          const b = e.baseVersion === server.version ? (serverMap.get(id) ?? null) : shape;
          if (b) beforeUps.push(b);
          else beforeGone.push(id);
        }
      }
      return applyDelta(serverList, beforeUps, beforeGone);
    })();
    const ours = applyDelta(base, net.upserts, net.removed);
    const times = editTimes(entries);
    const merged = merge3(base, ours, serverList, { oursAt: (id) => times.get(id) ?? -Infinity, theirsAt: server.savedAt });
    const changes = countDifferences(merged.annotations, loaded.annotations);
    if (countDifferences(merged.annotations, serverList) === 0) {
      // The server already holds all of it (a keepalive save that landed, another tab's save).
      const keys = entries.map((e) => e.key);
      s.pending = [];
      s.inFlight = [];
      s.needsSave = false;
      await storeOp((st) => st.remove(keys));
      emit();
      return stale ? { annotations: serverList, changes, savedAt: deps.now() } : null;
    }
    // The entries now describe the merge on top of the server document (what the save sends):
    // ids where it holds the server's shape leave them.
    s.pending = rebase(s, entries, settledIds(entries, byId(merged.annotations), serverMap));
    s.inFlight = [];
    const keep = new Set(s.pending.map((e) => e.key));
    persist(
      entries.filter((e) => !keep.has(e.key)).map((e) => e.key),
      s.pending,
    );
    s.needsSave = true;
    s.phase = 'pending';
    s.recovery = { before: serverList, saved: false };
    schedule(s, false);
    emit();
    return { annotations: merged.annotations, changes, savedAt: Math.max(...entries.map((e) => e.at)) };
  }

  function changeImage(imageId: string, delta: Delta, opts?: { immediate?: boolean; replace?: boolean }) {
    const s = slots.get(imageId);
    if (!s) {
      deps.log(`A change for image ${imageId}, which was never opened, cannot be saved`);
      return;
    }
    mergedNotice = false;
    if (opts?.replace) {
      // The whole document was replaced: every shape the device knew and the new one lacks is removed.
      const keep = new Set(delta.upserts.map((a) => a.id));
      const known = new Set(s.base.shapes.keys());
      for (const e of [...s.inFlight, ...s.pending]) for (const a of e.upserts) known.add(a.id);
      delta = { upserts: delta.upserts, removed: [...new Set([...delta.removed, ...[...known].filter((id) => !keep.has(id))])] };
    }
    const entry = newEntry(s, delta);
    s.pending.push(entry);
    s.needsSave = true;
    if (s.phase === 'idle') s.phase = 'pending';
    void storeOp((st) => st.add(entry));
    schedule(s, !!opts?.immediate);
    emit();
  }

  function closeImage(imageId: string) {
    const s = slots.get(imageId);
    if (!s) return;
    // The entries hold every change: nothing of the editor is needed to save them.
    s.isOpen = false;
    s.recovery = null;
    if (hasWork(s)) {
      // The user moved on: no reason to wait for the debounce.
      if (s.retryTimer === null && s.phase !== 'needs-sign-in') void kick(s, { reset: s.phase === 'error' || s.phase === 'offline-waiting' });
    } else if (!s.running) slots.delete(imageId);
  }

  /** Work left on the device for images the screen has not opened (an earlier tab closed on another image): load, merge and save it in the background. */
  async function resumeOthers() {
    if (resumedFor === activeUser || disposed) return;
    resumedFor = activeUser;
    try {
      await chain;
      const st = await store();
      for (const id of await st.images()) {
        if (slots.has(id) || disposed) continue;
        const first = (await st.forImage(id))[0];
        if (!first) continue;
        const ref: ImageRef = { imageId: id, projectId: first.projectId, imageFilename: first.imageFilename };
        const loaded = await deps.transport.load(id, ref.projectId);
        if (!loaded) {
          resumedFor = null; // try again on the next open
          continue;
        }
        if (slots.has(id)) continue; // the screen opened it meanwhile
        await openImage(ref, { annotations: loaded.annotations as StoredAnnotation[], version: loaded.version, saved_at: loaded.saved_at });
        if (!screenOpen.has(id)) closeImage(id);
      }
    } catch (err) {
      deps.log('Could not resume the unsaved changes kept on this device', err);
    }
  }

  return manager;
}
