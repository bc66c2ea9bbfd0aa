// When an image's changes are saved and what follows each answer: the debounce with its ceiling
// (SAVE_MAX_WAIT_MS), one save at a time
// per image (a change made meanwhile follows it), retries with backoff on 429, 5xx and network
// failures, one session refresh on 401, the 409 merge (./conflict.ts), and the keepalive batch
// when the page is hidden.
import type { ManagerCore } from './core';
import type { StoredAnnotation } from '../../../contract/annotations';
import { mergeConflict, theirsOf, type TheirDoc } from './conflict';
import { giveBack, hasWork, noteSaved, outlastedBy, parseTime, rebaseWithDropped, takeForSave, touchedIds, type Phase, type Prepared, type Slot } from './slot';
import type { SaveOutcome } from './transport';
import type { RemoteChange } from './types';

const MAX_CONFLICT_ROUNDS = 5;
/**
 * The ceiling of the debounce: a change is sent at most this long after it was made, however
 * often more changes follow (issue 30: the timer restarted on every change, so someone drawing a
 * box every 1.5 s saved nothing until they paused). The debounce (SaveDeps.debounceMs) still
 * sends the changes of a burst together once the changes pause. A debounce set longer than this
 * (a test's slow client) is its own ceiling.
 */
export const SAVE_MAX_WAIT_MS = 3000;
/**
 * From the second 409 in a row on, the next try waits 50 ms, doubling each round, up to 1 s,
 * half of it random. With many people saving one image, tries made at once collide again; spread out, they land.
 */
const CONFLICT_BACKOFF_MS = 50;
const CONFLICT_BACKOFF_MAX_MS = 1000;

/** The wait (ms) before trying again after `conflicts` 409s in a row: none after the first. */
export function conflictBackoffMs(conflicts: number, random = Math.random()): number {
  return conflicts < 2 ? 0 : Math.min(CONFLICT_BACKOFF_MS * 2 ** (conflicts - 2), CONFLICT_BACKOFF_MAX_MS) * (0.5 + 0.5 * random);
}

/** How long a change made at `now` waits: the quiet period, cut to what is left of the ceiling of the oldest change waiting (made at `oldest`). */
export function saveDelay(oldest: number, now: number, debounceMs: number): number {
  const ceiling = Math.max(SAVE_MAX_WAIT_MS, debounceMs);
  return Math.max(0, Math.min(debounceMs, oldest + ceiling - now));
}

type Next = 'done' | 'again' | 'stop';

export interface Scheduler {
  /** Runs the image's saves until nothing is left or a failure waits. Concurrent calls join the running one. */
  kick(s: Slot, opts: { reset?: boolean; keepalive?: boolean }): Promise<void>;
  /** A change: save after the debounce, or at once. */
  schedule(s: Slot, immediate: boolean): void;
  /** Stops the slot's debounce and backoff timers. */
  stopTimers(s: Slot): void;
  clearRetry(s: Slot): void;
  /** The page is hidden: these slots' pending changes go in one keepalive batch (one slot's as its keepalive save-changes). */
  flushBatch(ready: Slot[]): void;
}

const failure = (err: unknown): SaveOutcome => ({ kind: 'retry', status: null, message: err instanceof Error ? err.message : String(err) });

/** The save stops here: the work waits in `phase` (until sign-in, a change, 'online' or a flush). */
function stop(s: Slot, phase: Phase, message: string): Next {
  s.phase = phase;
  s.message = message;
  return 'stop';
}

type SavedRes = Extract<SaveOutcome, { kind: 'saved' }>['res'];

/** The versions a rebased save skipped, as one change on the base it was made on; null when the answer lacks them (then the document is loaded). */
function skippedOf(s: Slot, res: SavedRes): RemoteChange | null {
  const c = res.changes;
  if (!c || c.since !== s.base.version || c.version !== res.rebased_from) return null;
  return { version: c.version, base_version: c.since, upserts: c.upserts as StoredAnnotation[], removed_ids: c.removed_ids, saved_at: c.saved_at };
}

/**
 * The save landed: the device's copy of the server document moves on with exactly what it carried.
 * A save the server applied on a newer version (`rebased_from`) first takes in the versions it
 * skipped, as the server did (removals, then upserts), and hands them to the screen.
 */
function saved(core: ManagerCore, s: Slot, p: Prepared, res: SavedRes, skipped: RemoteChange | null): Next {
  const savedAt = parseTime(res.saved_at);
  // A save that changed nothing made no version (the answer's version is the one it was applied
  // on): its saved_at is the head's, perhaps long ago, not the server's clock at the answer.
  const madeVersion = res.version !== (res.rebased_from ?? p.body.base_version);
  if (savedAt !== null && madeVersion) core.offset = savedAt - (p.sentAt + core.deps.now()) / 2;
  const shapes = s.base.shapes;
  if (skipped) {
    for (const id of skipped.removed_ids) shapes.delete(id);
    for (const a of skipped.upserts) shapes.set(a.id, a);
  }
  // The server applied exactly these changes to the base: so does the device's copy.
  for (const id of p.removed) shapes.delete(id);
  for (const a of p.upserts) shapes.set(a.id, a);
  s.base = { shapes, version: res.version, savedAt };
  noteSaved(s, [...p.upserts.map((a) => a.id), ...p.removed], res.version, core.deps.now());
  const savedKeys = s.inFlight.map((e) => e.key);
  s.inFlight = [];
  // Only what this save carried leaves the device; newer changes now build on the saved version,
  // less those of shapes a skipped version changed later (the later edit wins, as in remote()).
  const theirsWon = skipped ? outlastedBy(s.pending, skipped) : new Set<string>();
  const local = skipped ? touchedIds(s.pending) : null;
  for (const id of theirsWon) local!.delete(id);
  const { rebased, dropped } = rebaseWithDropped(s.base, s.pending, theirsWon);
  s.pending = rebased;
  if (!rebased.length && dropped.length) s.needsSave = false;
  core.device.persist([...savedKeys, ...dropped], s.pending);
  if (s.recovery) s.recovery.saved = true;
  s.attempts = 0;
  s.phase = hasWork(s) ? 'pending' : 'idle';
  s.message = undefined;
  if (skipped) for (const l of core.absorbedListeners) l(s.ref.imageId, { change: skipped, local: local!, theirsWon: [...theirsWon] });
  for (const l of core.savedListeners) l(s.ref.imageId, res);
  return s.needsSave && s.again ? 'again' : 'done';
}

// Long because the debounce, its ceiling, retries with backoff, the sign-in wait and the keepalive
// batch share one timer per image and the in-flight save.
export function createScheduler(core: ManagerCore): Scheduler {
  const { deps } = core;

  /** While a slot's debounce timer waits: when the oldest change it waits for was made. */
  const oldestUnsent = new WeakMap<Slot, number>();
  const clearTimer = (s: Slot) => {
    if (s.timer !== null) deps.clearTimer(s.timer);
    s.timer = null;
  };
  const clearRetry = (s: Slot) => {
    if (s.retryTimer !== null) deps.clearTimer(s.retryTimer);
    s.retryTimer = null;
  };

  function prepare(s: Slot): Prepared {
    clearTimer(s);
    return takeForSave(s, deps.now);
  }

  /** A failure to try again: after a backoff while retries are left, else when the browser is back online, a change or a flush. */
  function retry(s: Slot, outcome: Extract<SaveOutcome, { kind: 'retry' }>): Next {
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

  async function finish(s: Slot, p: Prepared, outcome: SaveOutcome, refreshed: { tried: boolean }): Promise<Next> {
    switch (outcome.kind) {
      case 'saved': {
        if (outcome.res.rebased_from === undefined) return saved(core, s, p, outcome.res, null);
        const skipped = skippedOf(s, outcome.res);
        if (skipped) return saved(core, s, p, outcome.res, skipped);
        // Applied on a newer version, but what it skipped did not come: the document is loaded and
        // merged like a 409's (this save is in it already, so only the others' changes are new).
        const current = await core.deps.transport.load(s.ref.imageId, s.ref.projectId);
        if (!current || current.version < outcome.res.version) return finish(s, p, { kind: 'retry', status: null, message: 'Could not load the changes saved meanwhile' }, refreshed);
        return mergeConflict(core, s, p, current as TheirDoc) ? 'again' : 'done';
      }
      case 'conflict': {
        const current = await theirsOf(core, s, outcome);
        // Neither did the changes fit this base nor could the document be loaded: like a failed request, try again later.
        if (!current) return finish(s, p, { kind: 'retry', status: 409, message: 'Could not load the other changes to merge' }, refreshed);
        return mergeConflict(core, s, p, current) ? 'again' : 'done';
      }
      case 'auth': {
        giveBack(s);
        if (!refreshed.tried) {
          refreshed.tried = true;
          if (await deps.transport.refreshAuth()) return 'again';
        }
        return stop(s, 'needs-sign-in', outcome.message);
      }
      case 'retry':
        return retry(s, outcome);
      case 'refused':
        giveBack(s);
        return stop(s, 'error', outcome.message);
    }
  }

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
        if (!s.needsSave || core.disposed) break;
        const p = prepare(s);
        core.emit();
        let outcome: SaveOutcome;
        try {
          outcome = await deps.transport.save(p.body, { keepalive });
        } catch (err) {
          outcome = failure(err);
        }
        keepalive = false;
        if (outcome.kind !== 'saved') deps.log('Auto-save failed:', outcome);
        if (outcome.kind === 'conflict' && ++conflicts > MAX_CONFLICT_ROUNDS) {
          giveBack(s);
          stop(s, 'error', 'The annotations keep changing on the server; saving will try again.');
          break;
        }
        const next = await finish(s, p, outcome, refreshed);
        if (next !== 'again' && !(next === 'done' && s.again && s.needsSave)) break;
        const wait = outcome.kind === 'conflict' ? conflictBackoffMs(conflicts) : 0;
        if (wait > 0) await new Promise<void>((resolve) => deps.setTimer(resolve, wait));
      }
    })().finally(() => {
      s.running = null;
      // A closed image whose work is saved is forgotten (its document can be large).
      if (!s.isOpen && !hasWork(s) && core.slots.get(s.ref.imageId) === s) core.slots.delete(s.ref.imageId);
      core.emit();
    });
    s.running = run;
    return run;
  }

  function schedule(s: Slot, immediate: boolean) {
    const now = deps.now();
    // A debounce already waiting holds older changes (none is in a save yet): the ceiling counts from the first.
    const oldest = s.timer !== null ? (oldestUnsent.get(s) ?? now) : now;
    clearTimer(s);
    if (immediate) {
      if (s.retryTimer === null) void kick(s, { reset: s.phase !== 'retrying' && s.phase !== 'offline' });
      return;
    }
    oldestUnsent.set(s, oldest);
    s.timer = deps.setTimer(() => {
      s.timer = null;
      // During a backoff the retry carries this change; otherwise a change restarts saving.
      if (s.retryTimer === null) void kick(s, { reset: true });
    }, saveDelay(oldest, now, deps.debounceMs));
  }

  function flushBatch(ready: Slot[]) {
    if (ready.length <= 1) return ready.forEach((s) => void kick(s, { reset: true, keepalive: true }));
    for (const s of ready) clearRetry(s);
    const prepared = ready.map((s) => ({ s, p: prepare(s) }));
    const outcomes = deps.transport.saveBatch(prepared.map((x) => x.p.body), { keepalive: true }).catch((err: unknown): SaveOutcome[] => prepared.map(() => failure(err)));
    for (const [i, { s, p }] of prepared.entries()) {
      let next: Next = 'done';
      s.running = (async () => {
        next = await finish(s, p, (await outcomes)[i]!, { tried: false });
      })().finally(() => {
        s.running = null;
        if (next === 'again' || (s.again && s.needsSave)) void kick(s, {});
        core.emit();
      });
    }
    core.emit();
  }

  return {
    kick,
    schedule,
    stopTimers(s) {
      clearTimer(s);
      clearRetry(s);
    },
    clearRetry,
    flushBatch,
  };
}
