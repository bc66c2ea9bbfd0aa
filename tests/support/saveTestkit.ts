// Test doubles for the save manager: a clock whose timers run when the test advances it, and an
// in-memory server that keeps versions like the real one (save-changes applies upserts and
// removals to the stored list as src/server/services/annotations saveChanges does; a stale
// base_version is applied on the current version with `rebased_from` and the skipped `changes`
// when none of the save's ids changed since, else 409 with the current document; a save-changes
// that changes nothing makes no version and answers the head) and can be told to fail. Used by the tests of src/app/sync/save.
import { IDBFactory } from 'fake-indexeddb';
import type { StoredAnnotation } from '../../src/contract/annotations';
import type { LoadDataResponse } from '../../src/contract/annotation-api';
import { createManager } from '../../src/app/sync/save/manager';
import { openIndexedDbStore } from '../../src/app/sync/save/store';
import { isWholeSave, type SaveBody, type SaveOutcome, type SaveTransport } from '../../src/app/sync/save/transport';
import type { SaveDeps, SaveManager } from '../../src/app/sync/save/types';

/** Lets IndexedDB (fake-indexeddb runs on real timers) and promise chains finish. */
export async function settle(rounds = 12): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setTimeout(r, 0));
}

/** `wait`: what lets async work finish between timers (a test against a real server waits for its requests too). */
export function fakeClock(start = Date.UTC(2026, 0, 1), wait: () => Promise<void> = () => settle()) {
  let now = start;
  let nextId = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => now,
    setTimer: (fn: () => void, ms: number) => {
      nextId += 1;
      timers.set(nextId, { at: now + ms, fn });
      return nextId;
    },
    clearTimer: (h: unknown) => void timers.delete(h as number),
    /** Runs every timer due within `ms`, in order, letting async work settle between them. */
    async advance(ms: number) {
      const end = now + ms;
      for (;;) {
        await wait();
        const due = [...timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].fn();
      }
      now = end;
      await wait();
    },
    /** Delays (ms from now) of the timers waiting. */
    waiting: () => [...timers.values()].map((t) => t.at - now).sort((a, b) => a - b),
  };
}
export type FakeClock = ReturnType<typeof fakeClock>;

export interface Call {
  at: number;
  body: SaveBody;
  /** The request body's size, as JSON. */
  bytes: number;
  keepalive: boolean;
  batch: boolean;
}

/** One image's document as the server keeps it, with scripted failures. */
export function fakeServer(clock: FakeClock) {
  const docs = new Map<string, LoadDataResponse>();
  const calls: Call[] = [];
  /** Outcomes to answer instead of saving, first one first. */
  const script: SaveOutcome[] = [];
  let hold: { promise: Promise<void>; release: () => void } | null = null;
  let refreshOk = true;
  /** Saves applied whose answer is lost (the device sees a network failure). */
  let lostAnswers = 0;
  let loadable = true;
  const loads: string[] = [];
  let refreshes = 0;

  /** Every version each image had, for 409s answered with changes. */
  const versions = new Map<string, Map<number, LoadDataResponse>>();
  /** 'changes': a 409 carries only what changed since the base, as the server does for large documents. */
  let conflictWith: 'current' | 'changes' = 'current';
  /** The server's rebase of a stale save-changes on untouched shapes (off: every stale base is a 409, as when the change log no longer reaches back). */
  let rebaseStale = true;
  /** Ids added, changed or removed by the versions after `since` (null when a version is missing). */
  const touchedSince = (imageId: string, since: number): Set<string> | null => {
    const all = versions.get(imageId);
    const head = doc(imageId).version;
    const out = new Set<string>();
    for (let v = since; v < head; v++) {
      const a = v === 0 && !all?.has(0) ? { annotations: [] } : all?.get(v);
      const b = all?.get(v + 1);
      if (!a || !b) return null;
      const before = new Map(a.annotations.map((x) => [x.id as string, JSON.stringify(x)]));
      const after = new Map(b.annotations.map((x) => [x.id as string, JSON.stringify(x)]));
      for (const [id, text] of after) if (before.get(id) !== text) out.add(id);
      for (const id of before.keys()) if (!after.has(id)) out.add(id);
    }
    return out;
  };
  const store = (imageId: string, d: LoadDataResponse) => {
    docs.set(imageId, d);
    if (!versions.has(imageId)) versions.set(imageId, new Map());
    versions.get(imageId)!.set(d.version, structuredClone(d));
  };
  const doc = (imageId: string): LoadDataResponse => docs.get(imageId) ?? { annotations: [], version: 0, saved_at: null };
  const changesSince = (imageId: string, since: number) => {
    const base = versions.get(imageId)?.get(since) ?? { annotations: [], version: 0, saved_at: null };
    const current = doc(imageId);
    const before = new Map(base.annotations.map((a) => [a.id as string, JSON.stringify(a)]));
    const now = new Set(current.annotations.map((a) => a.id as string));
    return {
      since,
      version: current.version,
      saved_at: current.saved_at,
      upserts: structuredClone(current.annotations.filter((a) => before.get(a.id as string) !== JSON.stringify(a))),
      removed_ids: [...before.keys()].filter((id) => !now.has(id)),
    };
  };
  /** save-changes on the stored list: removed ids drop, upserts replace in place, the rest are appended. */
  const applyChanges = (current: readonly Record<string, unknown>[], upserts: readonly unknown[], removedIds: readonly string[]) => {
    const up = new Map(upserts.map((a) => [(a as { id: string }).id, a as Record<string, unknown>]));
    const removed = new Set(removedIds);
    const out: Record<string, unknown>[] = [];
    for (const a of current) {
      const id = a.id as string;
      if (removed.has(id)) continue;
      out.push(up.get(id) ?? a);
      up.delete(id);
    }
    out.push(...up.values());
    return out;
  };
  const apply = (body: SaveBody): SaveOutcome => {
    const failure = script.shift();
    if (failure) return failure;
    const outcome = applySave(body);
    if (lostAnswers > 0 && outcome.kind === 'saved') {
      lostAnswers -= 1;
      return { kind: 'retry', status: null, message: 'The connection was lost before the answer came' };
    }
    return outcome;
  };
  const applySave = (body: SaveBody): SaveOutcome => {
    const current = doc(body.image_id);
    if (!isWholeSave(body)) {
      const both = body.removed_ids.find((id) => body.upserts.some((a) => (a as { id: string }).id === id));
      if (both !== undefined) return { kind: 'refused', status: 400, message: `Annotation "${both}" is both changed and removed` };
    }
    let skipped: ReturnType<typeof changesSince> | null = null;
    if (body.base_version !== undefined && body.base_version !== current.version) {
      const touched = !isWholeSave(body) && rebaseStale && body.base_version < current.version ? touchedSince(body.image_id, body.base_version) : null;
      const ids = isWholeSave(body) ? [] : [...body.upserts.map((a) => (a as { id: string }).id), ...body.removed_ids];
      if (touched && !ids.some((id) => touched.has(id))) skipped = changesSince(body.image_id, body.base_version);
      else return conflictWith === 'changes' ? { kind: 'conflict', changes: changesSince(body.image_id, body.base_version) } : { kind: 'conflict', current: structuredClone(current) };
    }
    const annotations = isWholeSave(body) ? (structuredClone(body.annotations) as Record<string, unknown>[]) : applyChanges(current.annotations, structuredClone(body.upserts), body.removed_ids);
    if (!isWholeSave(body) && JSON.stringify(annotations) === JSON.stringify(current.annotations)) {
      // A change that changes nothing makes no version: the head as it is (with the skipped changes when stale).
      const head = { success: true as const, status_updated: false, status: (current.version === 0 ? 'new' : 'annotating') as 'new' | 'annotating', new_count: annotations.length, version: current.version, saved_at: current.saved_at ?? new Date(0).toISOString() };
      return { kind: 'saved', res: skipped ? { ...head, rebased_from: current.version, changes: skipped } : head };
    }
    const version = current.version + 1;
    const saved_at = new Date(clock.now()).toISOString();
    store(body.image_id, { annotations, version, saved_at });
    const res = { success: true as const, status_updated: current.version === 0, status: 'annotating' as const, new_count: annotations.length, version, saved_at };
    return { kind: 'saved', res: skipped ? { ...res, rebased_from: current.version, changes: skipped } : res };
  };
  const record = (body: SaveBody, keepalive: boolean, batch: boolean) => {
    const json = JSON.stringify(body);
    calls.push({ at: clock.now(), body: JSON.parse(json) as SaveBody, bytes: json.length, keepalive, batch });
  };

  const transport: SaveTransport = {
    async save(body, opts) {
      record(body, !!opts?.keepalive, false);
      if (hold) await hold.promise;
      return apply(body);
    },
    async saveBatch(bodies, opts) {
      for (const body of bodies) record(body, !!opts?.keepalive, true);
      if (hold) await hold.promise;
      return bodies.map(apply);
    },
    async refreshAuth() {
      refreshes += 1;
      return refreshOk;
    },
    async load(imageId) {
      loads.push(imageId);
      return loadable ? structuredClone(doc(imageId)) : null;
    },
  };

  return {
    transport,
    calls,
    script,
    doc,
    /** How a 409 answers: the whole document, or only the changes since the base. */
    answerConflictsWith(how: 'current' | 'changes') {
      conflictWith = how;
    },
    /** Off: every stale base is a 409 (the server's rebase does not apply, as when its change log no longer reaches back). */
    rebaseStaleSaves(on: boolean) {
      rebaseStale = on;
    },
    /** Another client's save, straight to the server. */
    saveAs(imageId: string, annotations: StoredAnnotation[]) {
      const current = doc(imageId);
      store(imageId, { annotations: structuredClone(annotations) as Record<string, unknown>[], version: current.version + 1, saved_at: new Date(clock.now()).toISOString() });
    },
    /** The next `n` saves are applied, but their answers are lost: the device sees a network failure. */
    loseAnswers(n = 1) {
      lostAnswers += n;
    },
    /** Saves wait until release() is called. */
    holdSaves() {
      let release!: () => void;
      const promise = new Promise<void>((r) => (release = r));
      hold = { promise, release: () => ((hold = null), release()) };
      return hold.release;
    },
    loads,
    setLoadable(ok: boolean) {
      loadable = ok;
    },
    setRefresh(ok: boolean) {
      refreshOk = ok;
    },
    refreshes: () => refreshes,
    loaded(imageId: string) {
      const d = doc(imageId);
      return { annotations: structuredClone(d.annotations) as StoredAnnotation[], version: d.version, saved_at: d.saved_at };
    },
  };
}
export type FakeServer = ReturnType<typeof fakeServer>;

export interface Harness {
  manager: SaveManager;
  online(): void;
  authChanged(): void;
  logs: unknown[];
}

/** A manager wired to the fakes; `idb` and `userId` pick the device database (same values = same device and user). */
export function harness(clock: FakeClock, server: Pick<FakeServer, 'transport'>, idb: IDBFactory, userId: string | { current: string } = 'user-1', extra: Partial<SaveDeps> = {}): Harness {
  const user = typeof userId === 'string' ? { current: userId } : userId;
  const onlineCbs = new Set<() => void>();
  const authCbs = new Set<() => void>();
  const logs: unknown[] = [];
  const manager = createManager({
    transport: server.transport,
    openStore: (id) => openIndexedDbStore(id, idb),
    currentUser: async () => user.current,
    now: clock.now,
    setTimer: clock.setTimer,
    clearTimer: clock.clearTimer,
    onOnline: (cb) => (onlineCbs.add(cb), () => onlineCbs.delete(cb)),
    onAuthChange: (cb) => (authCbs.add(cb), () => authCbs.delete(cb)),
    tabId: Math.random().toString(36).slice(2, 8),
    debounceMs: 2000,
    maxRetries: 5,
    baseRetryMs: 1000,
    maxRetryMs: 30_000,
    log: (m, e) => logs.push([m, e]),
    ...extra,
  });
  return { manager, logs, online: () => onlineCbs.forEach((cb) => cb()), authChanged: () => authCbs.forEach((cb) => cb()) };
}

export const newIdb = () => new IDBFactory();

export const box = (id: string, x = 0, name = 'car'): StoredAnnotation => ({ id, name, bounding_box: { x, y: 0, w: 10, h: 10 } });

/** A tiny stand-in for the editor: a list of shapes, changed the way the screen reports changes. */
export function fakeEditor(manager: SaveManager, imageId: string, initial: StoredAnnotation[] = []) {
  let list = [...initial];
  return {
    get list() {
      return list;
    },
    load(next: StoredAnnotation[]) {
      list = [...next];
    },
    upsert(...shapes: StoredAnnotation[]) {
      for (const a of shapes) {
        const i = list.findIndex((x) => x.id === a.id);
        if (i >= 0) list[i] = a;
        else list.push(a);
      }
      manager.change(imageId, { upserts: shapes, removed: [] });
    },
    remove(...ids: string[]) {
      list = list.filter((a) => !ids.includes(a.id));
      manager.change(imageId, { upserts: [], removed: ids }, { immediate: true });
    },
  };
}

export async function storedEntries(idb: IDBFactory, imageId: string, userId = 'user-1') {
  const st = await openIndexedDbStore(userId, idb);
  try {
    return await st.forImage(imageId);
  } finally {
    st.close();
  }
}
