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
// Drafts (issue 35): the user's edits go to the others at once as a draft (at most one per
// LIVE_DRAFT_INTERVAL_MS while they go on, the last state always), and the others' drafts are shown
// in the document until their save confirms them or they end (./drafts.ts).
// The editor session makes one per image (src/app/editor-session/liveOpen.ts); the screen reads it.
import { LIVE_DRAFT_INTERVAL_MS, LIVE_DRAFT_TIMEOUT_MS, type LivePeer } from '../../../contract/live';
import type { StoredAnnotation } from '../../../contract/annotations';
import { editorToStored, parseStoredAnnotations } from '../../../engine';
import type { EditorSaveLink, SaveManager } from '../save';
import type { ApplyResult, LiveChange, LiveClient } from './client';
import { PeerDrafts } from './drafts';
import { CURSOR_SEND_INTERVAL_MS, EMPTY_PRESENCE, dropFaded, keepPeers, nextFadeAt, throttle, withCursor, withSelection, type PeerPresence } from './peerPresence';

/** How often faded cursors are dropped (and the overlay redrawn) while any is shown. */
const FADE_TICK_MS = 250;

export interface LiveImageOptions {
  imageId: string;
  projectId: string;
  readOnly: boolean;
  link: Pick<EditorSaveLink, 'image' | 'applyRemoteChange' | 'applyToEditor' | 'onEdit' | 'onServerChange' | 'storedOf' | 'showsDrafts'>;
  saver: Pick<SaveManager, 'version'>;
  live: LiveClient;
  /** This image's document is in the editor. */
  documentReady: () => boolean;
  /** Opens the image again (the whole document: the change log no longer reaches back). */
  reopen: () => void;
  now?: () => number;
  /** The drafts', the draft throttle's and the cursors' fading timers (the page's by default; tests pass a fake clock's, with its `now`). */
  timers?: { setTimer: (fn: () => void, ms: number) => unknown; clearTimer: (handle: unknown) => void };
}

export interface LiveImageState {
  /** The people on this image (the user included), as the server last said. */
  peers: readonly LivePeer[];
  /** The others' cursors and selections on this image, and the shapes shown as their drafts (`presence.drafts`). */
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
  private fadeTimer: unknown = null;
  private readonly timers: { setTimer: (fn: () => void, ms: number) => unknown; clearTimer: (handle: unknown) => void };
  /** When fadeTimer fires (Infinity: not armed). */
  private fadeAt = Infinity;
  private readonly cursor: { call: (x: number, y: number) => void; cancel: () => void };
  private readonly now: () => number;
  /** The others' drafts shown in the document. */
  private readonly drafts: PeerDrafts;
  /** Ids the user changed since our last draft went out, and the throttle that sends it. */
  private draftIds = new Set<string>();
  private readonly draft: { call: () => void; cancel: () => void };
  /** When the user last changed each shape (pruned): another person's draft does not replace a shape the user changed lately. */
  private readonly localEdits = new Map<string, number>();

  constructor(private readonly opts: LiveImageOptions) {
    this.now = opts.now ?? (() => Date.now());
    this.state = { peers: [], presence: EMPTY_PRESENCE, now: this.now() };
    const clock = {
      now: () => this.now(),
      setTimer: opts.timers?.setTimer ?? ((fn: () => void, ms: number) => setTimeout(fn, ms)),
      clearTimer: opts.timers?.clearTimer ?? ((h: unknown) => clearTimeout(h as ReturnType<typeof setTimeout>)),
    };
    this.timers = clock;
    // The cursor's throttle stays on the page's clock and timers.
    const page = { now: () => performance.now(), setTimer: (fn: () => void, ms: number) => setTimeout(fn, ms), clearTimer: (h: unknown) => clearTimeout(h as ReturnType<typeof setTimeout>) };
    this.cursor = throttle((x: number, y: number) => opts.live.sendCursor(opts.imageId, x, y), CURSOR_SEND_INTERVAL_MS, page);
    this.draft = throttle(() => this.sendDraft(), LIVE_DRAFT_INTERVAL_MS, clock);
    this.drafts = new PeerDrafts(
      {
        current: (id) => opts.link.storedOf([id]).upserts[0] ?? null,
        apply: (upserts, removed) => opts.link.applyToEditor(upserts, removed, new Set()),
        asShown: (saved) => {
          try {
            const [a] = parseStoredAnnotations([saved]);
            return a ? editorToStored(a) : null;
          } catch {
            return null;
          }
        },
      },
      clock,
      () => this.set({ presence: { ...this.state.presence, drafts: this.drafts.authors() } }),
    );
  }

  /** Watches the image; returns the function that stops watching. */
  start(): () => void {
    const { live, imageId, projectId } = this.opts;
    const off = live.watch(imageId, projectId, {
      version: () => this.heldVersion(),
      apply: (change) => this.apply(change),
      reload: () => this.opts.reopen(),
      onPeers: (list) => {
        // Drafts of people who left (or all, when the socket closed: []) end; the server's shapes show.
        this.drafts.peers(new Set(list.map((p) => p.user_id)));
        this.set({ peers: list, presence: keepPeers(this.state.presence, list) });
      },
      onCursor: (userId, c) => this.set({ presence: withCursor(this.state.presence, userId, c.x, c.y, this.now()) }),
      onSelection: (userId, ids) => this.set({ presence: withSelection(this.state.presence, userId, ids) }),
      onDraft: (userId, upserts, removed) => this.receivedDraft(userId, upserts, removed),
    });
    // Another person's merge dropped their edit of these shapes (the later edit, saved, won): their drafts of them end.
    const offOverlap = live.onPeerOverlap((id, o) => {
      if (id === imageId) this.drafts.dropped(o.user_id, o.ids);
    });
    const offEdits = this.opts.link.onEdit((ids) => this.edited(ids));
    const offShown = this.opts.link.showsDrafts(() => this.state.presence.drafts.keys());
    // Saved shapes the document took in from a rebased save or a merge (not through this
    // channel): drafts of them must end on those shapes, not on what was held before.
    const offServer = this.opts.link.onServerChange((change) => this.drafts.saved({ by: null, ...change }));
    return () => {
      off();
      offOverlap();
      offEdits();
      offServer();
      offShown();
      this.cursor.cancel();
      this.draft.cancel();
      this.drafts.forget();
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

  /** The user changed shapes of this image: a draft to the others, and the others' drafts of them are the user's edit now. */
  private edited(ids: readonly string[]): void {
    if (this.opts.readOnly || this.opts.link.image?.imageId !== this.opts.imageId) return;
    const t = this.now();
    for (const [id, at] of this.localEdits) if (at < t - LIVE_DRAFT_TIMEOUT_MS) this.localEdits.delete(id);
    for (const id of ids) {
      this.localEdits.set(id, t);
      this.draftIds.add(id);
    }
    this.drafts.edited(ids);
    this.draft.call();
  }

  private sendDraft(): void {
    const { live, link, saver, imageId } = this.opts;
    const ids = this.draftIds;
    this.draftIds = new Set();
    const base = saver.version(imageId);
    if (!ids.size || base === null || !live.connected || link.image?.imageId !== imageId) return;
    const { upserts, removed } = link.storedOf(ids);
    live.sendDraft(imageId, base, upserts, removed);
  }

  private receivedDraft(userId: string, upserts: StoredAnnotation[], removed: string[]): void {
    if (this.heldVersion() === null) return; // no document yet: its load shows what the server holds
    const recent = this.now() - LIVE_DRAFT_TIMEOUT_MS;
    this.drafts.received(userId, upserts, removed, (id) => (this.localEdits.get(id) ?? -Infinity) > recent);
  }

  private heldVersion(): number | null {
    const { readOnly, link, saver, imageId, documentReady } = this.opts;
    if (!documentReady()) return null;
    if (!readOnly) return link.image?.imageId === imageId ? saver.version(imageId) : null;
    return this.viewVersion;
  }

  private apply(change: LiveChange): ApplyResult {
    const result = this.applySaved(change);
    // The saved shapes are what the server holds now: drafts they match end, newer ones show again
    // on top. 'known' too: the document took the change in already (a rebased save of ours
    // skipped over it), and a draft it confirms must not end later by putting back the older shape.
    if (result === 'applied' || result === 'known') this.drafts.saved(change);
    return result;
  }

  private applySaved(change: LiveChange): ApplyResult {
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
    this.armFade();
    for (const l of [...this.listeners]) l();
  }

  /**
   * Cursors not moved for PEER_CURSOR_IDLE_MS fade out: the overlay is redrawn on a tick while one
   * fades, and nothing runs before that. (A tick while any cursor was shown re-rendered the editor
   * 4 times a second for 11 s after each move of a peer's pointer.) A timer armed for an earlier
   * time stays: when it fires it looks again (the cursor may have moved since).
   */
  private armFade(): void {
    const next = nextFadeAt(this.state.presence, this.now(), FADE_TICK_MS);
    if (next >= this.fadeAt) return;
    this.stopFading();
    this.fadeAt = next;
    this.fadeTimer = this.timers.setTimer(
      () => {
        this.fadeTimer = null;
        this.fadeAt = Infinity;
        const t = this.now();
        if (nextFadeAt(this.state.presence, t, FADE_TICK_MS) <= t + FADE_TICK_MS) this.set({ now: t, presence: dropFaded(this.state.presence, t) });
        else this.armFade();
      },
      Math.max(0, next - this.now()),
    );
  }

  private stopFading(): void {
    if (this.fadeTimer !== null) this.timers.clearTimer(this.fadeTimer);
    this.fadeTimer = null;
    this.fadeAt = Infinity;
  }
}
