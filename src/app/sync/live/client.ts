// The live co-editing client (issue 20, docs/live.md): one WebSocket per tab to
// /api/v1/live, authenticated with the session's access token (sent again when it is refreshed),
// joined to the images the screen watches, reconnected with backoff, and kept in step: a `changed`
// that does not build on the version the screen holds, an `omitted` one, or a (re)join that finds
// the image further on, loads GET changes since that version (410 history_expired: the screen
// reloads the whole document). Every message the server sends is validated with the contract's
// schemas. Saving stays on HTTP; this only hears about committed changes and presence.
// Another person's `overlap` (their merge dropped their edit of shapes for the later one) goes to
// onPeerOverlap listeners, named from the image's people; sendOverlap says ours.
// Besides the joined images, the socket can watch the presence of a list of images without joining
// them (`watchPresence`: the Data tab's tiles), sent debounced and again after every reconnect, and
// watch a project (`watchProject`: the Data tab reloads its grid and counts when an import ends).
import { z } from 'zod';
import type { ChangesResponse } from '../../../contract/annotation-api';
import type { StoredAnnotation } from '../../../contract/annotations';
import { LIVE_MAX_DRAFT_SHAPES, LIVE_MAX_JOINS_PER_SOCKET, LIVE_MAX_MESSAGE_BYTES, LIVE_MAX_SELECTION_IDS, LiveError, LiveServerMessage, type LiveClientMessage, type LivePeer, type LiveProjectChange } from '../../../contract/live';

/** The part of a WebSocket the client uses (the browser's, or a test's fake). */
export interface LiveSocket {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason?: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}
const OPEN = 1;

/** A change to move the screen's document on: from `base_version` to `version`. */
export interface LiveChange {
  version: number;
  base_version: number;
  upserts: StoredAnnotation[];
  removed_ids: string[];
  /** Who saved it (null: unknown, as for the net change of GET changes). */
  by: string | null;
  /** When `version` was saved (server clock; null: not told). The later edit wins against this device's unsaved ones. */
  saved_at?: string | null;
}

/** What the screen did with a change ('busy': a save of its own is in flight, try again soon). */
export type ApplyResult = 'applied' | 'known' | 'gap' | 'busy' | 'closed';

/** The screen's side of one watched image. */
export interface LiveImageHandler {
  /** The version the screen's document is at; null while it has none (loading). */
  version(): number | null;
  apply(change: LiveChange): ApplyResult;
  /** The change log no longer reaches back to the version held: load the whole document again (then call resync). */
  reload(): void;
  /** The people on the image (the user included, each in the colour the server gave them), from `joined` and `presence`; [] when the socket closed: nobody is known to be there until it has joined again. */
  onPeers?(peers: LivePeer[]): void;
  onCursor?(userId: string, cursor: { x: number; y: number }): void;
  onSelection?(userId: string, ids: string[]): void;
  /** Another person's edit not saved yet (`draft`, issue 35): show it as theirs and unsaved; never save it. */
  onDraft?(userId: string, upserts: StoredAnnotation[], removedIds: string[]): void;
}

/** The side of a presence-only watch of many images (`watchPresence`). */
export interface LivePresenceHandler {
  /** The server took a watched set: the images it may show, each with the people on it (the rest were not found). Replaces all that was known. */
  onWatching(images: { image_id: string; peers: LivePeer[] }[]): void;
  /** The people on one watched image changed. */
  onPresence(imageId: string, peers: LivePeer[]): void;
  /** The socket closed: nothing is known until the next onWatching. */
  onDisconnected(): void;
}

/** A presence-only watch: `set` names the images (of one project) to watch, `stop` ends it. */
export interface LivePresenceWatch {
  set(projectId: string, imageIds: readonly string[]): void;
  stop(): void;
}

/** A watched set goes out this long after the last change to it (the grid scrolls, the list reloads): at most 5 watch messages a second. */
export const LIVE_WATCH_DEBOUNCE_MS = 200;

interface PresenceWatch {
  handler: LivePresenceHandler;
  projectId: string | null;
  ids: string[];
  idSet: Set<string>;
  /** What the server has been sent on this socket (`project:ids`); null: nothing watched there. */
  sent: string | null;
  timer: unknown;
}

/** Why a watched project should be reloaded: the server said so, or the socket came back (what happened while it was down is unknown). */
export type ProjectChangeReason = LiveProjectChange | 'reconnected';

interface ProjectWatch {
  projectId: string;
  listeners: Set<(reason: ProjectChangeReason) => void>;
  /** watch_project went out on an earlier socket: the next ready is a reconnect. */
  sent: boolean;
}

/** A GET changes answer as a change to apply (`by` unknown: it may span several people's versions). */
export function changeOfResponse(res: ChangesResponse): LiveChange {
  return { version: res.version, base_version: res.since, upserts: res.upserts as StoredAnnotation[], removed_ids: res.removed_ids, by: null, saved_at: res.saved_at };
}

export type FetchChanges = (imageId: string, projectId: string, since: number) => Promise<LiveChange | 'expired'>;

export interface LiveDeps {
  url: string;
  createSocket: (url: string) => LiveSocket;
  /** The current access token (null: signed out). */
  getToken: () => Promise<string | null>;
  /** The token was refreshed (or the user signed in again). */
  onTokenChange: (cb: () => void) => () => void;
  fetchChanges: FetchChanges;
  setTimer: (fn: () => void, ms: number) => unknown;
  clearTimer: (handle: unknown) => void;
  random: () => number;
  log: (message: string, err?: unknown) => void;
}

/** Reconnect delays: 0.5 s doubling to 30 s, with jitter (half to the whole of it). */
export const LIVE_RECONNECT_BASE_MS = 500;
export const LIVE_RECONNECT_MAX_MS = 30_000;
/** An overlap the server refused (`rate_limited`: the second's peer-message budget spent) goes again after this long, at most this many times. */
export const LIVE_OVERLAP_RETRY_MS = 1_000;
export const LIVE_OVERLAP_RETRIES = 3;
/** A join, leave, watch or re-auth the server refused (`rate_limited`: the second's budget of them spent) goes again after this long. */
export const LIVE_CONTROL_RETRY_MS = 1_000;
/** A change met a save of this tab in flight: tried again after this long. */
export const LIVE_BUSY_RETRY_MS = 250;
/** Catch-up rounds in a row before giving up until the next message (a change saved during each load). */
const MAX_CATCHUP_ROUNDS = 5;

/** Each shape is checked in full where it enters the editor (one invalid shape is left out there, not the change). */
const ChangedUpserts = z.array(z.object({ id: z.string().min(1) }).passthrough());

interface Watch {
  imageId: string;
  projectId: string;
  handler: LiveImageHandler;
  /** The newest version the server told of. */
  latest: number;
  catching: boolean;
  again: boolean;
  retry: unknown;
  /** Changes that met a save of this tab in flight, tried again as they are (no load) when the retry fires. */
  waiting: LiveChange[];
  /** The people on the image, as the server last said (names for overlaps). */
  peers: LivePeer[];
  /** Overlap ids to send once joined (sendOverlap while the socket was down). */
  overlaps: string[];
  /** The last overlap sent, and how many more times it may go again if the server answers `rate_limited` for this image. */
  lastOverlap: { ids: string[]; tries: number } | null;
  overlapTimer: unknown;
}

/**
 * Another person edited shapes of a watched image too, and their save's merge kept the shapes the
 * server held (the later edit) over theirs: `ids`, by `user_id`, named from the image's people
 * (null when they are not among them).
 */
export interface PeerOverlap {
  user_id: string;
  name: string | null;
  ids: string[];
}

export class LiveClient {
  private socket: LiveSocket | null = null;
  private ready = false;
  private attempts = 0;
  private reconnectTimer: unknown = null;
  private disposed = false;
  private readonly watches = new Map<string, Watch>();
  private readonly offToken: () => void;
  private me: string | null = null;
  private presenceWatch: PresenceWatch | null = null;
  private projectWatch: ProjectWatch | null = null;
  private readonly readyListeners = new Set<(connected: boolean) => void>();
  private readonly overlapListeners = new Set<(imageId: string, overlap: PeerOverlap) => void>();
  private readonly issuesListeners = new Set<(imageId: string) => void>();
  /** What the server refused for its rate (join and leave by image id), sent again when `refusedTimer` fires. */
  private refused = noneRefused();
  private refusedTimer: unknown = null;

  constructor(private readonly deps: LiveDeps) {
    this.offToken = deps.onTokenChange(() => void this.reauth());
  }

  /** The user id the server said this socket is (null until `ready`). */
  get userId(): string | null {
    return this.me;
  }

  get connected(): boolean {
    return this.ready;
  }

  /** Told on every connect (`ready`) and disconnect. */
  onConnection(listener: (connected: boolean) => void): () => void {
    this.readyListeners.add(listener);
    return () => this.readyListeners.delete(listener);
  }

  /** Watch an image: join it (now, or once connected), and again after every reconnect. */
  watch(imageId: string, projectId: string, handler: LiveImageHandler): () => void {
    const w: Watch = { imageId, projectId, handler, latest: -1, catching: false, again: false, retry: null, waiting: [], peers: [], overlaps: [], lastOverlap: null, overlapTimer: null };
    const previous = this.watches.get(imageId);
    if (previous) this.stopRetry(previous);
    this.watches.set(imageId, w);
    if (this.ready && !previous) this.send({ type: 'join', image_id: imageId, project_id: projectId });
    else if (this.ready) this.resync(imageId);
    this.ensureSocket();
    return () => {
      if (this.watches.get(imageId) !== w) return;
      this.stopRetry(w);
      this.watches.delete(imageId);
      if (this.ready) this.send({ type: 'leave', image_id: imageId });
    };
  }

  /** The screen's document moved (loaded, reloaded): catch up if the server is further on. */
  resync(imageId: string): void {
    const w = this.watches.get(imageId);
    if (w) void this.catchUp(w);
  }

  /**
   * Watch the presence of many images without joining them (the Data tab's tiles): the user is in
   * nobody's presence there and gets no changes. One per client (a new one replaces the last, which
   * hears nothing more); `set` replaces the images, sent LIVE_WATCH_DEBOUNCE_MS after the last call.
   */
  watchPresence(handler: LivePresenceHandler): LivePresenceWatch {
    if (this.presenceWatch) this.endPresenceWatch(this.presenceWatch);
    const pw: PresenceWatch = { handler, projectId: null, ids: [], idSet: new Set(), sent: null, timer: null };
    this.presenceWatch = pw;
    return {
      set: (projectId, imageIds) => {
        if (this.presenceWatch !== pw) return;
        pw.projectId = projectId;
        pw.ids = [...new Set(imageIds)].slice(0, LIVE_MAX_JOINS_PER_SOCKET);
        pw.idSet = new Set(pw.ids);
        if (pw.timer !== null) this.deps.clearTimer(pw.timer);
        pw.timer = this.deps.setTimer(() => {
          pw.timer = null;
          this.sendWatch(pw);
        }, LIVE_WATCH_DEBOUNCE_MS);
        this.ensureSocket();
      },
      stop: () => {
        if (this.presenceWatch === pw) this.endPresenceWatch(pw);
      },
    };
  }

  private endPresenceWatch(pw: PresenceWatch): void {
    if (pw.timer !== null) this.deps.clearTimer(pw.timer);
    pw.timer = null;
    pw.ids = [];
    this.sendWatch(pw);
    this.presenceWatch = null;
  }

  /** The watched set to the server, unless it has it already (an empty set only to end one it has). */
  private sendWatch(pw: PresenceWatch): void {
    if (!this.ready || this.presenceWatch !== pw || pw.projectId === null) return;
    const key = watchKey(pw);
    if (pw.ids.length === 0 ? pw.sent === null : pw.sent === key) return;
    this.send({ type: 'watch', project_id: pw.projectId, image_ids: pw.ids });
    pw.sent = pw.ids.length === 0 ? null : key;
  }

  /**
   * Hear when a project's images change in bulk (an import ended, started here or anywhere else):
   * `onChanged('import_finished')`, and `onChanged('reconnected')` when the socket is back after
   * a drop. One project per tab: watching another replaces it. Returns the function that stops.
   */
  watchProject(projectId: string, onChanged: (reason: ProjectChangeReason) => void): () => void {
    let pw = this.projectWatch;
    if (!pw || pw.projectId !== projectId) {
      pw = { projectId, listeners: new Set(), sent: false };
      this.projectWatch = pw;
      this.sendProjectWatch();
    }
    const mine = pw;
    mine.listeners.add(onChanged);
    this.ensureSocket();
    return () => {
      mine.listeners.delete(onChanged);
      if (this.projectWatch !== mine || mine.listeners.size > 0) return;
      this.projectWatch = null;
      if (this.ready) this.send({ type: 'watch_project', project_id: null });
    };
  }

  private sendProjectWatch(): void {
    const pw = this.projectWatch;
    if (!pw || !this.ready) return;
    this.send({ type: 'watch_project', project_id: pw.projectId });
    pw.sent = true;
  }

  /** Anything to keep a socket open for. */
  private get wanted(): boolean {
    return this.watches.size > 0 || (this.presenceWatch?.ids.length ?? 0) > 0 || this.projectWatch !== null;
  }

  sendCursor(imageId: string, x: number, y: number): void {
    if (this.ready && this.watches.has(imageId)) this.send({ type: 'cursor', image_id: imageId, x, y });
  }

  sendSelection(imageId: string, ids: string[]): void {
    if (this.ready && this.watches.has(imageId)) this.send({ type: 'selection', image_id: imageId, ids: ids.slice(0, 1000) });
  }

  /**
   * The user's edit of a joined image, not saved yet, to the others on it at once (`draft`): false
   * when it does not go (not connected, more shapes than a draft takes, or over the byte limit);
   * the others then see it when it is saved.
   */
  sendDraft(imageId: string, baseVersion: number, upserts: StoredAnnotation[], removedIds: string[]): boolean {
    if (!this.ready || !this.watches.has(imageId) || upserts.length > LIVE_MAX_DRAFT_SHAPES || removedIds.length > LIVE_MAX_SELECTION_IDS) return false;
    if (!upserts.length && !removedIds.length) return false;
    const text = JSON.stringify({ type: 'draft', image_id: imageId, base_version: baseVersion, upserts, removed_ids: removedIds });
    if (text.length * 3 > LIVE_MAX_MESSAGE_BYTES && new TextEncoder().encode(text).length > LIVE_MAX_MESSAGE_BYTES) return false;
    const socket = this.socket;
    if (!socket || socket.readyState !== OPEN) return false;
    try {
      socket.send(text);
      return true;
    } catch (err) {
      this.deps.log('A draft could not be sent', err);
      return false;
    }
  }

  /**
   * This tab's save met a 409 and its merge kept the server's shape of `ids` (the other edit was
   * later): the others on the image are told (`overlap`), so the person whose edit won hears of it.
   */
  sendOverlap(imageId: string, ids: readonly string[]): void {
    const w = this.watches.get(imageId);
    if (!w || !ids.length) return;
    // Not connected (a save that lands as the network comes back): sent once the image is joined again.
    if (!this.ready) this.holdOverlap(w, ids);
    else this.overlapOut(w, ids.slice(0, LIVE_MAX_SELECTION_IDS));
  }

  /** Adds ids to the overlap sent once the image is joined again (one message: at most the protocol's ids). */
  private holdOverlap(w: Watch, ids: readonly string[]): void {
    w.overlaps = [...new Set([...w.overlaps, ...ids])].slice(0, LIVE_MAX_SELECTION_IDS);
  }

  private overlapOut(w: Watch, ids: string[]): void {
    w.lastOverlap = { ids, tries: LIVE_OVERLAP_RETRIES };
    this.send({ type: 'overlap', image_id: w.imageId, ids });
  }

  /**
   * The server refused an overlap of this image (`rate_limited` with its image id: the cursor and
   * selection budget of the second was spent): the last one goes again a second later, a few times.
   * If two were sent within that second, it is the later that goes again.
   */
  private overlapRefused(imageId: string): void {
    const w = this.watches.get(imageId);
    const last = w?.lastOverlap;
    if (!w || !last || last.tries <= 0 || w.overlapTimer !== null) return;
    last.tries -= 1;
    w.overlapTimer = this.deps.setTimer(() => {
      w.overlapTimer = null;
      if (this.watches.get(imageId) !== w || w.lastOverlap !== last) return;
      if (this.ready) this.send({ type: 'overlap', image_id: imageId, ids: last.ids });
      else this.holdOverlap(w, last.ids);
    }, LIVE_OVERLAP_RETRY_MS);
  }

  /** Another person's `overlap` on a watched image (never this user's own, from another tab). */
  onPeerOverlap(listener: (imageId: string, overlap: PeerOverlap) => void): () => void {
    this.overlapListeners.add(listener);
    return () => this.overlapListeners.delete(listener);
  }

  /**
   * Hear when the issues or comments of a joined image change (issue 29: someone opened, answered,
   * resolved or reopened one, here or elsewhere): the editor loads the image's issues again.
   */
  onIssues(listener: (imageId: string) => void): () => void {
    this.issuesListeners.add(listener);
    return () => this.issuesListeners.delete(listener);
  }

  dispose(): void {
    this.disposed = true;
    this.offToken();
    for (const w of this.watches.values()) this.stopRetry(w);
    this.watches.clear();
    if (this.presenceWatch?.timer) this.deps.clearTimer(this.presenceWatch.timer);
    this.presenceWatch = null;
    this.projectWatch = null;
    if (this.reconnectTimer !== null) this.deps.clearTimer(this.reconnectTimer);
    this.reconnectTimer = null;
    this.dropRefused();
    const s = this.socket;
    this.socket = null;
    this.setReady(false);
    s?.close(1000);
  }

  // ------------------------------------------------------------------ the socket

  private ensureSocket(): void {
    if (this.disposed || this.socket || this.reconnectTimer !== null || !this.wanted) return;
    let socket: LiveSocket;
    try {
      socket = this.deps.createSocket(this.deps.url);
    } catch (err) {
      this.deps.log('The live socket could not be opened', err);
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    socket.onopen = () => void this.authenticate(socket);
    socket.onmessage = (ev) => {
      if (this.socket === socket) this.receive(ev.data);
    };
    socket.onerror = () => undefined; // a close follows
    socket.onclose = (ev) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.setReady(false);
      // The server has dropped this socket from every image (the others see it leave): the screens
      // show nobody until the join after the reconnect says who is there.
      for (const w of this.watches.values()) {
        w.peers = [];
        w.handler.onPeers?.([]);
      }
      if (this.presenceWatch) {
        this.presenceWatch.sent = null;
        this.presenceWatch.handler.onDisconnected();
      }
      // The next socket's ready sends every join and watch again; a refused leave is moot.
      this.dropRefused();
      if (ev.code === 4401) this.deps.log('The live socket was refused its credential; trying again with the session of then');
      this.scheduleReconnect();
    };
  }

  private scheduleReconnect(): void {
    if (this.disposed || !this.wanted || this.reconnectTimer !== null) return;
    const exp = Math.min(LIVE_RECONNECT_BASE_MS * 2 ** this.attempts, LIVE_RECONNECT_MAX_MS);
    this.attempts += 1;
    const delay = Math.round(exp * (0.5 + this.deps.random() / 2));
    this.reconnectTimer = this.deps.setTimer(() => {
      this.reconnectTimer = null;
      this.ensureSocket();
    }, delay);
  }

  private async authenticate(socket: LiveSocket): Promise<void> {
    const token = await this.deps.getToken().catch(() => null);
    if (this.socket !== socket) return;
    // Signed out: nothing to say; the server closes after its auth timeout and backoff follows.
    if (token) this.sendOn(socket, { type: 'auth', token });
  }

  /** The session's token was refreshed: the open socket gets it (the server keeps the socket past the old one's expiry). */
  private async reauth(): Promise<void> {
    const socket = this.socket;
    if (!socket || socket.readyState !== OPEN) return;
    const token = await this.deps.getToken().catch(() => null);
    if (token && this.socket === socket) this.sendOn(socket, { type: 'auth', token });
  }

  private send(message: LiveClientMessage): void {
    if (this.socket) this.sendOn(this.socket, message);
  }

  private sendOn(socket: LiveSocket, message: LiveClientMessage): void {
    if (socket.readyState !== OPEN) return;
    try {
      socket.send(JSON.stringify(message));
    } catch (err) {
      this.deps.log('A live message could not be sent', err);
    }
  }

  private setReady(on: boolean): void {
    if (this.ready === on) return;
    this.ready = on;
    for (const l of this.readyListeners) l(on);
  }

  // ------------------------------------------------------------------ messages

  private receive(data: unknown): void {
    let raw: unknown;
    try {
      raw = JSON.parse(String(data));
    } catch {
      this.deps.log('A live message that is not JSON was ignored');
      return;
    }
    const parsed = LiveServerMessage.safeParse(raw);
    if (!parsed.success) {
      this.deps.log('A live message of an unknown shape was ignored', parsed.error.issues);
      return;
    }
    const m = parsed.data;
    switch (m.type) {
      case 'ready':
        this.onReady(m.user_id);
        return;
      case 'joined': {
        const w = this.watches.get(m.image_id);
        if (!w) return;
        w.latest = Math.max(w.latest, m.version);
        w.peers = m.peers;
        w.handler.onPeers?.(m.peers);
        if (w.overlaps.length) this.overlapOut(w, w.overlaps.splice(0));
        void this.catchUp(w);
        return;
      }
      case 'presence': {
        const w = this.watches.get(m.image_id);
        if (w) {
          w.peers = m.peers;
          w.handler.onPeers?.(m.peers);
        }
        if (this.presenceWatch?.idSet.has(m.image_id)) this.presenceWatch.handler.onPresence(m.image_id, m.peers);
        return;
      }
      case 'watching': {
        const pw = this.presenceWatch;
        // An answer to a set since replaced keeps what is still watched; the next answer brings the rest.
        if (pw && pw.projectId === m.project_id) pw.handler.onWatching(m.images.filter((i) => pw.idSet.has(i.image_id)));
        return;
      }
      case 'peer': {
        const w = this.watches.get(m.image_id);
        if (!w || m.user_id === this.me) return;
        if ('cursor' in m) w.handler.onCursor?.(m.user_id, m.cursor);
        else if ('selection' in m) w.handler.onSelection?.(m.user_id, m.selection);
        else {
          const name = w.peers.find((p) => p.user_id === m.user_id)?.name || null;
          for (const l of this.overlapListeners) l(m.image_id, { user_id: m.user_id, name, ids: m.overlap });
        }
        return;
      }
      case 'draft': {
        const w = this.watches.get(m.image_id);
        // The user's own drafts (another tab of theirs) are not shown: that tab saves them.
        if (!w || m.user_id === this.me) return;
        const upserts = ChangedUpserts.safeParse(m.upserts);
        if (upserts.success) w.handler.onDraft?.(m.user_id, upserts.data as StoredAnnotation[], m.removed_ids);
        return;
      }
      case 'changed':
        this.onChanged(m);
        return;
      case 'issues':
        if (this.watches.has(m.image_id)) for (const l of [...this.issuesListeners]) l(m.image_id);
        return;
      case 'project_changed':
        if (this.projectWatch?.projectId === m.project_id) for (const l of [...this.projectWatch.listeners]) l(m.reason);
        return;
      case 'watching_project':
        return;
      case 'error':
        // A refused draft is not sent again (the next one, or the save, carries the edit). A server
        // before `refused` named only an overlap's or a draft's image.
        if (m.code === 'rate_limited' && m.image_id && (m.refused ? m.refused === 'overlap' : !m.message?.includes('draft'))) this.overlapRefused(m.image_id);
        if (m.code === 'rate_limited' && m.refused) this.controlRefused(m.refused, m.image_id);
        if (m.code === 'not_found' && m.image_id) this.deps.log(`The live socket cannot watch image ${m.image_id}`);
        else this.deps.log(`The live socket answered ${m.code}${m.message ? `: ${m.message}` : ''}`);
        return;
    }
  }

  /**
   * The server refused a join, leave, watch or auth for its rate: each goes again a second later
   * (one timer for all), if it is still wanted then. Left refused, a join left the image without
   * its live changes and people, and a leave left this person shown on an image they had left.
   */
  private controlRefused(type: NonNullable<z.infer<typeof LiveError>['refused']>, imageId: string | undefined): void {
    const r = this.refused;
    if (type === 'join' && imageId) r.joins.add(imageId);
    else if (type === 'leave' && imageId) r.leaves.add(imageId);
    else if (type === 'watch') r.watch = true;
    else if (type === 'watch_project') r.project = true;
    else if (type === 'auth') r.auth = true;
    else return;
    if (this.refusedTimer === null) this.refusedTimer = this.deps.setTimer(() => this.sendRefused(), LIVE_CONTROL_RETRY_MS);
  }

  private sendRefused(): void {
    this.refusedTimer = null;
    const r = this.refused;
    this.refused = noneRefused();
    if (!this.ready) return;
    for (const id of r.joins) {
      const w = this.watches.get(id);
      if (w) this.send({ type: 'join', image_id: id, project_id: w.projectId });
    }
    for (const id of r.leaves) if (!this.watches.has(id)) this.send({ type: 'leave', image_id: id });
    const pw = this.presenceWatch;
    if (r.watch && pw && pw.projectId !== null) {
      this.send({ type: 'watch', project_id: pw.projectId, image_ids: pw.ids });
      pw.sent = pw.ids.length === 0 ? null : watchKey(pw);
    }
    if (r.project) {
      if (this.projectWatch) this.sendProjectWatch();
      else this.send({ type: 'watch_project', project_id: null });
    }
    if (r.auth) void this.reauth();
  }

  private dropRefused(): void {
    if (this.refusedTimer !== null) this.deps.clearTimer(this.refusedTimer);
    this.refusedTimer = null;
    this.refused = noneRefused();
  }

  private onReady(userId: string): void {
    const first = !this.ready;
    this.me = userId;
    this.attempts = 0;
    this.setReady(true);
    // A re-auth on the open socket answers ready too: the joins stand.
    if (!first) return;
    for (const w of this.watches.values()) this.send({ type: 'join', image_id: w.imageId, project_id: w.projectId });
    if (this.presenceWatch) this.sendWatch(this.presenceWatch);
    const pw = this.projectWatch;
    if (pw) {
      const again = pw.sent;
      this.sendProjectWatch();
      if (again) for (const l of [...pw.listeners]) l('reconnected');
    }
  }

  private onChanged(m: z.infer<typeof LiveServerMessage> & { type: 'changed' }): void {
    const w = this.watches.get(m.image_id);
    if (!w) return;
    w.latest = Math.max(w.latest, m.version);
    if (m.omitted || w.catching) {
      // Too large to come with the message, or a catch-up is loading: it brings this one too.
      void this.catchUp(w);
      return;
    }
    const upserts = ChangedUpserts.safeParse(m.upserts);
    if (!upserts.success) {
      this.deps.log(`A changed message for image ${m.image_id} carried invalid annotations; loading the change instead`, upserts.error.issues);
      void this.catchUp(w);
      return;
    }
    const change: LiveChange = { version: m.version, base_version: m.base_version, upserts: upserts.data as StoredAnnotation[], removed_ids: m.removed_ids, by: m.by, saved_at: m.saved_at ?? null };
    this.afterApply(w, w.handler.apply(change), change);
  }

  private afterApply(w: Watch, result: ApplyResult, change: LiveChange): void {
    if (result === 'gap') void this.catchUp(w);
    else if (result === 'busy') this.retryLater(w, change);
  }

  /**
   * Tries again after LIVE_BUSY_RETRY_MS: the changes that met a save in flight are applied as they
   * are (most often this tab's own save, then already held), and a catch-up follows if the
   * version held is still behind.
   */
  private retryLater(w: Watch, change?: LiveChange): void {
    if (change) w.waiting.push(change);
    if (w.retry !== null) return;
    w.retry = this.deps.setTimer(() => {
      w.retry = null;
      if (this.watches.get(w.imageId) !== w) return;
      const waiting = w.waiting;
      w.waiting = [];
      for (let i = 0; i < waiting.length; i++) {
        const result = w.handler.apply(waiting[i]!);
        if (result === 'busy') {
          w.waiting = [...waiting.slice(i), ...w.waiting];
          this.retryLater(w);
          return;
        }
        if (result === 'gap') break;
      }
      void this.catchUp(w);
    }, LIVE_BUSY_RETRY_MS);
  }

  private stopRetry(w: Watch): void {
    if (w.retry !== null) this.deps.clearTimer(w.retry);
    if (w.overlapTimer !== null) this.deps.clearTimer(w.overlapTimer);
    w.retry = null;
    w.overlapTimer = null;
    w.waiting = [];
  }

  /** Loads what happened since the version the screen holds, when the server told of a newer one. One at a time per image. */
  private async catchUp(w: Watch): Promise<void> {
    if (w.catching) {
      w.again = true;
      return;
    }
    w.catching = true;
    try {
      for (let round = 0; round < MAX_CATCHUP_ROUNDS; round++) {
        w.again = false;
        const held = w.handler.version();
        if (held === null || held >= w.latest || this.watches.get(w.imageId) !== w) return;
        let res: LiveChange | 'expired';
        try {
          res = await this.deps.fetchChanges(w.imageId, w.projectId, held);
        } catch (err) {
          this.deps.log(`The changes of image ${w.imageId} could not be loaded`, err);
          this.retryLater(w);
          return;
        }
        if (this.watches.get(w.imageId) !== w) return;
        if (res === 'expired') {
          w.handler.reload();
          return;
        }
        w.latest = Math.max(w.latest, res.version);
        const result = res.version > res.base_version ? w.handler.apply(res) : 'known';
        if (result === 'busy') {
          this.retryLater(w);
          return;
        }
        if (result !== 'gap' && !w.again) return;
      }
    } finally {
      w.catching = false;
    }
  }
}

function noneRefused() {
  return { joins: new Set<string>(), leaves: new Set<string>(), watch: false, project: false, auth: false };
}

/** What a watch message said: the set the server holds once it is answered (`PresenceWatch.sent`). */
function watchKey(pw: PresenceWatch): string {
  return `${pw.projectId}:${pw.ids.join(',')}`;
}
