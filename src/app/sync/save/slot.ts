// One image's saving state (a slot of ./manager.ts): the server document the device's changes build
// on, the changes pending and in flight, and what they add up to. Pure functions over a slot; the
// scheduler (./scheduler.ts), the 409 merge (./conflict.ts) and recovery (./recovery.ts) use them.
import type { StoredAnnotation } from '../../../contract/annotations';
import type { SaveChangesRequest } from '../../../contract/annotation-api';
import { nextTask } from '../../../engine';
import { byId, sameJson } from './merge';
import type { PendingEntry } from './store';
import type { Delta, ImageRef, SaveState, SaveStatus } from './types';

export type Phase = 'idle' | 'pending' | 'saving' | 'retrying' | 'offline' | 'offline-waiting' | 'needs-sign-in' | 'error';

export interface ServerDoc {
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

export const docOf = (annotations: readonly StoredAnnotation[], version: number, savedAt: number | null): ServerDoc => ({ shapes: byId(annotations), version, savedAt });
/** Main-thread time per slice while an opened document is indexed by id. */
const INDEX_SLICE_MS = 6;
/**
 * docOf for a document being opened, indexed in slices: a 100k-shape Map built in one go took
 * 35-60 ms of main thread (with the scavenge it set off) while the editor was loading.
 */
export async function docInSlices(annotations: readonly StoredAnnotation[], version: number, savedAt: number | null): Promise<ServerDoc> {
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
export const listOf = (doc: ServerDoc): StoredAnnotation[] => [...doc.shapes.values()];

export const parseTime = (iso: string | null | undefined): number | null => {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isFinite(t) ? t : null;
};

export interface Slot {
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
  /** Shapes this tab saved within RECENT_EDIT_MS: the version that saved each, and when (local clock). */
  recent: Map<string, { version: number; at: number }>;
}

export function newSlot(ref: ImageRef, base: ServerDoc): Slot {
  return { ref, base, pending: [], inFlight: [], needsSave: false, running: null, again: false, timer: null, retryTimer: null, attempts: 0, phase: 'idle', isOpen: true, recovery: null, recent: new Map() };
}

/** How long a saved edit counts as the user's recent work: another person's later change of it is reported. */
export const RECENT_EDIT_MS = 5 * 60_000;

/** The shapes a save carried are this tab's recent edits, as of the version it made. */
export function noteSaved(s: Slot, ids: Iterable<string>, version: number, now: number): void {
  for (const [id, r] of s.recent) if (now - r.at > RECENT_EDIT_MS) s.recent.delete(id);
  for (const id of ids) s.recent.set(id, { version, at: now });
}

/**
 * Ids of this tab's recent edits that a change saved elsewhere at a later version replaced or
 * removed. Each is reported once: the edit is no longer the user's.
 */
export function overwrittenBy(s: Slot, change: { version: number; upserts: readonly { id: string }[]; removed_ids: readonly string[] }, now: number): string[] {
  const out: string[] = [];
  const check = (id: string) => {
    const r = s.recent.get(id);
    if (!r || r.version >= change.version || now - r.at > RECENT_EDIT_MS) return;
    s.recent.delete(id);
    out.push(id);
  };
  for (const a of change.upserts) check(a.id);
  for (const id of change.removed_ids) check(id);
  return out;
}

/** Of `ids`, this tab's recent edits (saved within RECENT_EDIT_MS, not replaced by a later change saved elsewhere since); none without a slot. */
export function recentAmong(s: Slot | undefined, ids: readonly string[], now: number): string[] {
  return [...new Set(ids)].filter((id) => {
    const r = s?.recent.get(id);
    return !!r && now - r.at <= RECENT_EDIT_MS;
  });
}

/** Every id the entries touch. */
export function touchedIds(entries: readonly PendingEntry[]): Set<string> {
  const out = new Set<string>();
  for (const e of entries) {
    for (const a of e.upserts) out.add(a.id);
    for (const id of e.removed) out.add(id);
  }
  return out;
}

export const hasWork = (s: Slot): boolean => s.needsSave || s.pending.length > 0 || s.inFlight.length > 0;

/** The server's shape (null: absent) of every id a change touches: its merge base. */
export function beforeOf(shapes: ReadonlyMap<string, StoredAnnotation>, upserts: readonly StoredAnnotation[], removed: readonly string[]): Record<string, StoredAnnotation | null> {
  const before: Record<string, StoredAnnotation | null> = {};
  for (const a of upserts) before[a.id] = shapes.get(a.id) ?? null;
  for (const id of removed) before[id] = shapes.get(id) ?? null;
  return before;
}

/** What makes an entry unique and when it was made (the manager's key, clock and server-clock offset). */
export interface EntryStamp {
  key: string;
  at: number;
  offset: number;
}

/** One change as an entry: its shapes, and the server's shape of each touched id as the merge base. */
export function newEntry(s: Slot, delta: Delta, stamp: EntryStamp, local = false): PendingEntry {
  return {
    key: stamp.key,
    imageId: s.ref.imageId,
    projectId: s.ref.projectId,
    imageFilename: s.ref.imageFilename,
    at: stamp.at,
    offset: stamp.offset,
    baseVersion: s.base.version,
    upserts: delta.upserts,
    removed: delta.removed,
    before: beforeOf(s.base.shapes, delta.upserts, delta.removed),
    ...(local ? { local: true } : {}),
  };
}

/**
 * Entries describe changes against the server document: move them onto a newer one (`base`).
 * Ids in `drop` leave them (the server already holds what they want); an entry left empty goes.
 */
export function rebase(base: ServerDoc, entries: readonly PendingEntry[], drop: ReadonlySet<string> = new Set()): PendingEntry[] {
  const kept: PendingEntry[] = [];
  for (const e of entries) {
    const upserts = drop.size ? e.upserts.filter((a) => !drop.has(a.id)) : e.upserts;
    const removed = drop.size ? e.removed.filter((id) => !drop.has(id)) : e.removed;
    if (!upserts.length && !removed.length) continue;
    kept.push({ ...e, upserts, removed, before: beforeOf(base.shapes, upserts, removed), baseVersion: base.version });
  }
  return kept;
}

/** rebase, and the keys of the entries it left out (all their ids dropped): what leaves the device's store. */
export function rebaseWithDropped(base: ServerDoc, entries: readonly PendingEntry[], drop?: ReadonlySet<string>): { rebased: PendingEntry[]; dropped: string[] } {
  const rebased = rebase(base, entries, drop);
  const kept = new Set(rebased.map((e) => e.key));
  return { rebased, dropped: entries.filter((e) => !kept.has(e.key)).map((e) => e.key) };
}

/** When this device last changed each shape, in server time. */
export function editTimes(entries: readonly PendingEntry[]): Map<string, number> {
  const at = new Map<string, number>();
  for (const e of entries) {
    const t = e.at + e.offset;
    for (const a of e.upserts) at.set(a.id, Math.max(at.get(a.id) ?? -Infinity, t));
    for (const id of e.removed) at.set(id, Math.max(at.get(id) ?? -Infinity, t));
  }
  return at;
}

/** Whether the entries ever carried `shape` for its id (a state this device made, perhaps saved with its answer lost). */
export function madeBy(entries: readonly PendingEntry[]): (id: string, shape: StoredAnnotation) => boolean {
  const made = new Map<string, StoredAnnotation[]>();
  for (const e of entries) for (const a of e.upserts) made.set(a.id, [...(made.get(a.id) ?? []), a]);
  return (id, shape) => !!made.get(id)?.some((a) => sameJson(a, shape));
}

/**
 * How long before its save another person's edit may have been made while they were online: the
 * save ceiling (SAVE_MAX_WAIT_MS, 3 s, ./scheduler.ts) and 2 s for the network and the two clocks.
 * A change saved at T holds edits made after T minus this, as far as this device can tell.
 */
export const THEIR_EDIT_WINDOW_MS = 5000;

/**
 * Ids the entries change that `change`, saved elsewhere at its `saved_at`, surely changed later
 * than this device last did (this device's edit is older than the change's save by more than
 * THEIR_EDIT_WINDOW_MS: a device back online after a while): the later edit wins, so theirs stays
 * and the entries' change of them is to be dropped. Within the window the change's own edit time
 * is not known (a save leaves up to 3 s after its edit), and this device's unsaved edit, made
 * while the other's save was on its way, is kept as the later one (as before). Not counted: a
 * shape the change holds as one of the entries carried, or removes where the entries remove it too
 * (this device's own save, its answer lost). Empty when the change's time is not known.
 */
export function outlastedBy(entries: readonly PendingEntry[], change: { upserts: readonly StoredAnnotation[]; removed_ids: readonly string[]; saved_at?: string | null }): Set<string> {
  const out = new Set<string>();
  const savedAt = parseTime(change.saved_at);
  if (savedAt === null || !entries.length) return out;
  const times = editTimes(entries);
  const mine = madeBy(entries);
  const removedHere = new Set(netDelta(entries).removed);
  const earlier = (id: string) => (times.get(id) ?? Infinity) < savedAt - THEIR_EDIT_WINDOW_MS;
  for (const id of change.removed_ids) if (earlier(id) && !removedHere.has(id)) out.add(id);
  for (const a of change.upserts) if (earlier(a.id) && !mine(a.id, a)) out.add(a.id);
  return out;
}

/** Touched ids of the entries whose wanted shape (from `want`) is already the server's. */
export function settledIds(entries: readonly PendingEntry[], want: ReadonlyMap<string, StoredAnnotation>, server: ReadonlyMap<string, StoredAnnotation>): Set<string> {
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

/** What entries add up to, oldest first: a shape changed twice goes once, changed then removed goes as its id alone. */
export function netDelta(entries: readonly PendingEntry[]): { upserts: StoredAnnotation[]; removed: string[]; touched: Set<string> } {
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

/** A replace-all (the delta's upserts are the whole new document): every shape the device knew and the new one lacks is removed. */
export function replaceDelta(s: Slot, delta: Delta): Delta {
  const keep = new Set(delta.upserts.map((a) => a.id));
  const known = new Set(s.base.shapes.keys());
  for (const e of [...s.inFlight, ...s.pending]) for (const a of e.upserts) known.add(a.id);
  return { upserts: delta.upserts, removed: [...new Set([...delta.removed, ...[...known].filter((id) => !keep.has(id))])] };
}

/** One save as it left: its body and the net changes it carries. */
export interface Prepared {
  body: SaveChangesRequest;
  /** Net changes this save carries (what the entries in flight add up to). */
  upserts: StoredAnnotation[];
  removed: string[];
  sentAt: number;
}

/** The save of everything pending: the net changes of the entries, on the version they build on. Its cost is the change's, not the document's. */
export function takeForSave(s: Slot, sentAt: () => number): Prepared {
  s.needsSave = false;
  s.inFlight.push(...s.pending);
  s.pending = [];
  s.phase = 'saving';
  const { upserts, removed } = netDelta(s.inFlight);
  const body: SaveChangesRequest = { image_id: s.ref.imageId, project_id: s.ref.projectId, image_filename: s.ref.imageFilename, base_version: s.base.version, upserts, removed_ids: removed };
  return { body, upserts, removed, sentAt: sentAt() };
}

/** Work that was sent but not saved goes back in front of newer work. */
export function giveBack(s: Slot): void {
  s.pending = [...s.inFlight, ...s.pending];
  s.inFlight = [];
  s.needsSave = true;
}

/** The top bar's word for all slots: the most urgent state of any image with work. */
export function computeStatus(slots: Iterable<Slot>, mergedNotice: boolean): SaveStatus {
  const list = [...slots];
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

export const sameStatus = (a: SaveStatus, b: SaveStatus): boolean => a.state === b.state && a.label === b.label && a.detail === b.detail && a.unsavedImages === b.unsavedImages;
