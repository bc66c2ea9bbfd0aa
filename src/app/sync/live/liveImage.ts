// Live co-editing on the open image (issue 20), without React: the image is watched through the
// tab's live client. Another person's saved change goes into the live document through the save
// link (the save manager's copy of the server document moves on, then Editor.applyRemote:
// selection, a drag in progress and undo of the user's own edits stay), never a reload. This tab's
// own saves are told apart by version: the manager already holds them ('known'), or a save is in
// flight and the change waits for its answer ('busy'). A view-only editor has no save slot: it
// keeps the version it loaded and applies changes directly. When the change log no longer reaches
// back, the image is opened again (`reopen`).
// The others' cursors and selections are kept here (./peerPresence.ts) for the screen's overlay;
// our own go out through sendCursor (throttled to 20 a second) and sendSelection.
// The editor session makes one per image (src/app/editor-session/liveOpen.ts); the screen reads it.
import type { LivePeer } from '../../../contract/live';
import type { EditorSaveLink, SaveManager } from '../save';
import type { ApplyResult, LiveChange, LiveClient } from './client';
import { CURSOR_SEND_INTERVAL_MS, EMPTY_PRESENCE, dropFaded, keepPeers, throttle, withCursor, withSelection, type PeerPresence } from './peerPresence';

/** How often faded cursors are dropped (and the overlay redrawn) while any is shown. */
const FADE_TICK_MS = 250;

export interface LiveImageOptions {
  imageId: string;
  projectId: string;
  readOnly: boolean;
  link: Pick<EditorSaveLink, 'image' | 'applyRemoteChange' | 'applyToEditor'>;
  saver: Pick<SaveManager, 'version'>;
  live: LiveClient;
  /** This image's document is in the editor. */
  documentReady: () => boolean;
  /** Opens the image again (the whole document: the change log no longer reaches back). */
  reopen: () => void;
  now?: () => number;
}

export interface LiveImageState {
  /** The people on this image (the user included), as the server last said. */
  peers: readonly LivePeer[];
  /** The others' cursors and selections on this image. */
  presence: PeerPresence;
  /** The clock the cursors' fading is drawn at (moves while any cursor is shown). */
  now: number;
}

export class LiveImage {
  private state: LiveImageState;
  private readonly listeners = new Set<() => void>();
  /** The version a view-only editor loaded (and moved on with the changes it applied). */
  private viewVersion: number | null = null;
  private lastSelection: string | null = null;
  private fadeTimer: ReturnType<typeof setInterval> | null = null;
  private readonly cursor: { call: (x: number, y: number) => void; cancel: () => void };
  private readonly now: () => number;

  constructor(private readonly opts: LiveImageOptions) {
    this.now = opts.now ?? (() => Date.now());
    this.state = { peers: [], presence: EMPTY_PRESENCE, now: this.now() };
    this.cursor = throttle((x: number, y: number) => opts.live.sendCursor(opts.imageId, x, y), CURSOR_SEND_INTERVAL_MS, {
      now: () => performance.now(),
      setTimer: (fn, ms) => setTimeout(fn, ms),
      clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
    });
  }

  /** Watches the image; returns the function that stops watching. */
  start(): () => void {
    const { live, imageId, projectId } = this.opts;
    const off = live.watch(imageId, projectId, {
      version: () => this.heldVersion(),
      apply: (change) => this.apply(change),
      reload: () => this.opts.reopen(),
      onPeers: (list) => this.set({ peers: list, presence: keepPeers(this.state.presence, list) }),
      onCursor: (userId, c) => this.set({ presence: withCursor(this.state.presence, userId, c.x, c.y, this.now()) }),
      onSelection: (userId, ids) => this.set({ presence: withSelection(this.state.presence, userId, ids) }),
    });
    return () => {
      off();
      this.cursor.cancel();
      this.stopFading();
    };
  }

  getState = (): LiveImageState => this.state;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** The open path reports the version it loaded (a view-only editor moves on from it). */
  loadedVersion(version: number): void {
    this.viewVersion = version;
  }

  /** Call when the document arrived (opened, reopened): catches up with what was saved meanwhile. */
  resync(): void {
    this.opts.live.resync(this.opts.imageId);
  }

  /** Our cursor, in image pixels, at most 20 a second (the last position always goes). */
  sendCursor = (x: number, y: number): void => this.cursor.call(x, y);

  /** Our selection, unless unchanged (`again`: send it anyway, e.g. to someone who just arrived). */
  sendSelection = (ids: readonly string[], again = false): void => {
    const key = ids.join('\n');
    if (!this.opts.live.connected || (!again && this.lastSelection === key)) return;
    this.lastSelection = key;
    this.opts.live.sendSelection(this.opts.imageId, [...ids]);
  };

  private heldVersion(): number | null {
    const { readOnly, link, saver, imageId, documentReady } = this.opts;
    if (!documentReady()) return null;
    if (!readOnly) return link.image?.imageId === imageId ? saver.version(imageId) : null;
    return this.viewVersion;
  }

  private apply(change: LiveChange): ApplyResult {
    const { readOnly, link, imageId } = this.opts;
    if (!readOnly) return link.applyRemoteChange(imageId, change).kind;
    const held = this.heldVersion();
    if (held === null) return 'closed';
    if (change.version <= held) return 'known';
    if (change.base_version !== held) return 'gap';
    link.applyToEditor(change.upserts, change.removed_ids, new Set());
    this.viewVersion = change.version;
    return 'applied';
  }

  private set(patch: Partial<LiveImageState>): void {
    this.state = { ...this.state, ...patch };
    // Cursors not moved for a while fade out: the overlay is redrawn on a tick while any is shown.
    if (this.state.presence.cursors.size > 0) this.startFading();
    else this.stopFading();
    for (const l of [...this.listeners]) l();
  }

  private startFading(): void {
    if (this.fadeTimer !== null) return;
    this.fadeTimer = setInterval(() => {
      const t = this.now();
      this.set({ now: t, presence: dropFaded(this.state.presence, t) });
    }, FADE_TICK_MS);
  }

  private stopFading(): void {
    if (this.fadeTimer === null) return;
    clearInterval(this.fadeTimer);
    this.fadeTimer = null;
  }
}
