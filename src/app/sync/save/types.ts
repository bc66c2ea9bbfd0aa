// The save manager's public types (the editor screen's side of issue 5 "Loading and saving").
import type { StoredAnnotation } from '../../../contract/annotations';
import type { SaveDataResponse } from '../../../contract/annotation-api';
import type { PendingStore } from './store';
import type { SaveTransport } from './transport';

export interface ImageRef {
  imageId: string;
  projectId: string;
  imageFilename: string;
}

export type SaveState = 'saved' | 'pending' | 'saving' | 'offline' | 'needs-sign-in' | 'conflict-merged' | 'error';

export interface SaveStatus {
  state: SaveState;
  /** What the screen shows. */
  label: string;
  /** The server's message for a refused save. */
  detail?: string;
  /** Images with changes not yet on the server. */
  unsavedImages: number;
}

export interface Delta {
  upserts: StoredAnnotation[];
  removed: string[];
}

/** The server document with this device's pending changes applied. */
export interface Recovery {
  annotations: StoredAnnotation[];
  /** Shapes that differ from the loaded document. */
  changes: number;
  /** Local time (ms) of the last pending change. */
  savedAt: number;
}

export interface MergeResult {
  annotations: StoredAnnotation[];
  version: number;
  /** Ids changed on both sides, where the later edit won over the other side. */
  conflicts: string[];
  /** The conflicts where the server's side was later and won: this device's change of them was dropped (the others are told, live `overlap`). */
  theirsWon: string[];
  /**
   * What the screen applies to its live document: the merge against the document as the screen
   * last handed it over (the list sent plus later change() deltas). Shapes changed since then
   * are the screen's own and newer: it keeps them.
   */
  changes: Delta;
}

/** A change another client saved (the live socket's `changed`, or GET changes), to move the device's copy of the server document on. */
export interface RemoteChange {
  version: number;
  base_version: number;
  upserts: StoredAnnotation[];
  removed_ids: string[];
  /** Who saved it (the live socket's `by`; null or absent: unknown, as for a net change of several versions). */
  by?: string | null;
  /**
   * When `version` was saved (server clock; null or absent: not told). A shape this device changed
   * and has not saved, changed here before that, loses to it (the later edit wins); untold, the
   * device's unsaved edit is kept as the later one.
   */
  saved_at?: string | null;
}

/**
 * What remote() did: 'applied' (the base moved on; `local` are the ids this device changed and has
 * not saved yet: the screen keeps its own shape of those), 'known' (the version is already held:
 * this tab's own save, one a merge took in, or one a rebased save skipped), 'gap' (the change does
 * not build on the version held: load the changes since it), 'busy' (a save is in flight: try
 * again once it is answered), 'closed' (no document of the image is open here).
 * `overwritten` (applied and known): ids this tab saved within RECENT_EDIT_MS at an earlier
 * version that the change replaced or removed: the other person's later edit won over the user's.
 * `theirsWon` (applied): ids this device changed and had not saved, changed in the change later
 * (its `saved_at`): this device's change of them is dropped, never saved, and the screen takes theirs.
 */
export type RemoteOutcome = { kind: 'applied'; local: Set<string>; overwritten: string[]; theirsWon: string[] } | { kind: 'known'; overwritten: string[] } | { kind: 'gap' | 'busy' | 'closed' };

/** Changes saved elsewhere that the manager took in itself (a rebased save's skipped versions), for the screen's document; `local` and `theirsWon` as in RemoteOutcome. */
export interface AbsorbedChange {
  change: RemoteChange;
  local: Set<string>;
  theirsWon: string[];
}

export interface SaveDeps {
  transport: SaveTransport;
  /** The pending-work store of one signed-in user (IndexedDB by default). */
  openStore: (userId: string) => Promise<PendingStore>;
  /** Who is signed in now; the store and the open images follow a change of account. */
  currentUser: () => Promise<string>;
  now: () => number;
  setTimer: (fn: () => void, ms: number) => unknown;
  clearTimer: (handle: unknown) => void;
  /** The browser came back online. */
  onOnline: (cb: () => void) => () => void;
  /** The session changed (signed in again, token refreshed). */
  onAuthChange: (cb: () => void) => () => void;
  /** Unique per tab; keys of this tab's entries. */
  tabId: string;
  /**
   * The ids of this user's tabs open now on this device, this one included (each holds a Web Lock
   * named after its id while it lives); null where that cannot be known. Recovery takes in only the
   * entries of tabs not open: another open tab saves its own.
   */
  liveTabs?: () => Promise<ReadonlySet<string> | null>;
  debounceMs: number;
  maxRetries: number;
  baseRetryMs: number;
  maxRetryMs: number;
  log: (message: string, err?: unknown) => void;
}

export interface SaveManager {
  /** After load-data: remembers the server document as the base of this image. Returns the pending work this device still holds for the image, merged onto the loaded document, or null. */
  open(ref: ImageRef, loaded: { annotations: StoredAnnotation[]; version: number; saved_at?: string | null }): Promise<Recovery | null>;
  /**
   * Every document change: the delta goes to IndexedDB at once; save-changes sends the net changes
   * after the debounce (at once when opts.immediate). opts.replace: the delta's upserts are the
   * whole new document, and every other shape is removed.
   */
  change(imageId: string, delta: Delta, opts?: { immediate?: boolean; replace?: boolean }): void;
  /** The screen leaves the image; its pending changes are still saved. */
  close(imageId: string): void;
  /** Save everything pending now; resolves when done or failed. */
  flush(): Promise<void>;
  /** pagehide / visibilitychange hidden: send pending changes with fetch keepalive (change-only batch-save-data entries when several images have some). */
  flushOnPageHide(): void;
  /** Drop this device's pending work for the image (the user chose 'Discard'); a recovered save already made is reverted. */
  discard(imageId: string): Promise<void>;
  status(): SaveStatus;
  subscribe(listener: (s: SaveStatus) => void): () => void;
  onMerged(listener: (imageId: string, merge: MergeResult) => void): () => void;
  /** The server version the device's copy of the image's document is at (null: not open here). */
  version(imageId: string): number | null;
  /** Another client's saved change (live co-editing): the device's copy of the server document moves on, and pending changes are rebased on it. */
  remote(imageId: string, change: RemoteChange): RemoteOutcome;
  /**
   * Of `ids`, those this tab saved within RECENT_EDIT_MS (and no later change saved elsewhere
   * replaced since): another person's edit of them was dropped by their merge, this user's won.
   */
  recentEdits(imageId: string, ids: readonly string[]): string[];
  onSaved(listener: (imageId: string, res: SaveDataResponse) => void): () => void;
  /**
   * A save of this tab was applied by the server on a newer version than its base (`rebased_from`):
   * the versions it skipped, already in the manager's copy, for the screen's document (the same
   * path as remote()). Their live `changed` messages then answer 'known'.
   */
  onAbsorbed(listener: (imageId: string, absorbed: AbsorbedChange) => void): () => void;
  dispose(): void;
}
