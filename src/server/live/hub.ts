// The live hub of one server process (issue 20, README "Live co-editing"): the open sockets, who
// is authenticated as whom, which images each socket is joined to (rooms), presence, the relay of
// cursors, selections and overlaps, the limits, and the `changed` notifications of committed versions.
//
// Versions are announced by NOTIFY in their own transaction (services/annotations/store.ts); the
// hub LISTENs (ctx.database.listen: every process on PostgreSQL, in process on PGlite) and reads
// each announced version from the change log, so every write path and every process is covered
// by one mechanism. A room remembers the last version it relayed and reads everything after it,
// so a lost or late notification is caught up by the next one (and after the listener reconnects).
// Presence and peer messages of other processes come through ./cluster.ts (PostgreSQL only).
// Sockets that only watch images' presence (the Data tab's tiles) are kept in ./watch.ts.
import type { WebSocket, RawData } from 'ws';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../context';
import { profiles } from '../db/schema';
import { ApiError } from '../errors';
import { authenticate } from '../services/caller';
import { annotatedImage, can, roleIn } from '../services/access';
import { CHANGES_CHANNEL, headOf, layerOf, versionsAfter, type LoggedVersion } from '../services/annotations';
import { WORKFLOW_CHANNEL } from '../services/workflow/events';
import {
  LIVE_AUTH_TIMEOUT_MS,
  LIVE_CLOSE,
  LIVE_MAX_CHANGED_BYTES,
  LIVE_MAX_CONTROL_MESSAGES_PER_SECOND,
  LIVE_MAX_DRAFTS_PER_SECOND,
  LIVE_MAX_JOINS_PER_SOCKET,
  LIVE_MAX_PEER_MESSAGES_PER_SECOND,
  parseClientMessage,
  peerColor,
  withPeerColors,
  type LiveClientMessage,
  type LiveDraft,
  type LiveErrorMessage,
  type LivePeer,
  type LiveServerMessage,
} from '../../contract/live';
import { RateWindow } from './rate';
import { LiveCluster } from './cluster';
import { LiveWatchers, ProjectWatchers } from './watch';

/** Peers are not sent cursors and selections while this much is waiting to go out to them. */
const PEER_BACKLOG_BYTES = 1024 * 1024;
/** A socket that lets this much pile up (it does not read) is closed (1013, try again later). */
const MAX_BACKLOG_BYTES = 32 * 1024 * 1024;
/** The standard "policy violation": a socket that keeps sending malformed messages is closed with it. */
const CLOSE_MALFORMED = 1008;

interface Membership {
  /** The last version this socket was told of (joined or changed). */
  version: number;
  projectId: string;
  canEdit: boolean;
  /** The socket's person holds a layer of the image (a consensus draft, a ground-truth attempt; issue 36): what they draw is theirs alone, so their cursor, selection and live drafts go to nobody, and nobody's reach them. */
  layered: boolean;
}

interface Client {
  socket: WebSocket;
  user: { id: string; name: string } | null;
  /** Whose sockets this one counts among for LIVE_MAX_SOCKETS_PER_USER: the user, or the person who created the API key. */
  capOwner: string | null;
  /** The credential of the last `auth`, checked again every recheckMs. */
  token: string | null;
  joins: Map<string, Membership>;
  peerRate: RateWindow;
  /** `draft` messages: a budget of their own, so a drag's drafts do not starve cursors (or the reverse). */
  draftRate: RateWindow;
  controlRate: RateWindow;
  /** Messages are handled one after the other, in order. */
  queue: Promise<void>;
  gotFirst: boolean;
  alive: boolean;
  closed: boolean;
  timers: NodeJS.Timeout[];
}

interface Room {
  imageId: string;
  clients: Set<Client>;
  /** The last version relayed to the room; null until the first join has read the image's version. */
  version: number | null;
  /** The highest version announced while `version` was null. */
  pending: number;
  /** Catch-ups run one after the other, so versions go out in order. */
  chain: Promise<void>;
}

export class LiveHub {
  private readonly clients = new Set<Client>();
  /** Open sockets by whom they count against for LIVE_MAX_SOCKETS_PER_USER (Client.capOwner). */
  private readonly byUser = new Map<string, Set<Client>>();
  private readonly rooms = new Map<string, Room>();
  private stopListening: (() => Promise<void>) | null = null;
  /** The issue notices of services/workflow (an image id each): `issues` to the image's sockets. */
  private stopIssues: (() => Promise<void>) | null = null;
  private pinger: NodeJS.Timeout | null = null;
  /** When `ping` last ran (performance.now()), to tell a stalled event loop from sockets that stopped answering. */
  private lastPing: number | null = null;
  /** Presence and peer messages shared with the other processes (PostgreSQL only). */
  private readonly cluster: LiveCluster | null;
  /** Sockets watching images' presence without joining them (`watch`). */
  private readonly watchers: LiveWatchers<Client>;
  /** Sockets watching a project for `project_changed` (`watch_project`). */
  private readonly projects: ProjectWatchers<Client>;

  constructor(private readonly ctx: AppContext) {
    this.watchers = new LiveWatchers<Client>(ctx, {
      peersOf: (imageId) => this.peersOn(imageId),
      send: (client, message) => this.send(client, message),
      sendText: (client, text) => this.sendText(client, text),
    });
    this.projects = new ProjectWatchers<Client>(ctx, { send: (client, message) => this.send(client, message) });
    this.cluster =
      ctx.database.kind === 'postgres'
        ? new LiveCluster(
            ctx,
            {
              peersChanged: (imageId) => {
                const room = this.rooms.get(imageId);
                if (room) this.presence(room, null);
                this.watchers.changed(imageId);
              },
              peerMessage: (imageId, text) => {
                for (const c of this.rooms.get(imageId)?.clients ?? []) if (!c.joins.get(imageId)?.layered && c.socket.bufferedAmount < PEER_BACKLOG_BYTES) this.sendText(c, text);
              },
              localPeers: (imageId) => {
                const room = this.rooms.get(imageId);
                return room ? this.localPeersOf(room) : null;
              },
            },
            () => this.rooms.keys(),
          )
        : null;
  }

  async start(): Promise<void> {
    await this.cluster?.start();
    await this.projects.start();
    this.stopListening = await this.ctx.database.listen(CHANGES_CHANNEL, (payload) => this.announced(payload), () => this.catchUpAll());
    this.stopIssues = await this.ctx.database.listen(WORKFLOW_CHANNEL, (imageId) => {
      for (const c of this.rooms.get(imageId)?.clients ?? []) this.send(c, { type: 'issues', image_id: imageId });
    });
    this.pinger = setInterval(() => this.ping(), this.ctx.config.live.pingMs);
    this.pinger.unref();
  }

  async stop(): Promise<void> {
    if (this.pinger) clearInterval(this.pinger);
    for (const client of [...this.clients]) this.close(client, 1001, 'Server shutting down');
    await this.cluster?.stop();
    await this.projects.stop();
    await this.stopListening?.();
    this.stopListening = null;
    await this.stopIssues?.();
    this.stopIssues = null;
  }

  /** A socket that just opened: it has LIVE_AUTH_TIMEOUT_MS to authenticate. */
  accept(socket: WebSocket): void {
    const client: Client = {
      socket,
      user: null,
      capOwner: null,
      token: null,
      joins: new Map(),
      peerRate: new RateWindow(LIVE_MAX_PEER_MESSAGES_PER_SECOND),
      draftRate: new RateWindow(LIVE_MAX_DRAFTS_PER_SECOND),
      controlRate: new RateWindow(LIVE_MAX_CONTROL_MESSAGES_PER_SECOND),
      queue: Promise.resolve(),
      gotFirst: false,
      alive: true,
      closed: false,
      timers: [],
    };
    this.clients.add(client);
    const authTimer = setTimeout(() => {
      if (!client.user) this.close(client, LIVE_CLOSE.unauthorized, 'No auth message in time');
    }, LIVE_AUTH_TIMEOUT_MS);
    authTimer.unref();
    client.timers.push(authTimer);
    socket.on('message', (data, isBinary) => this.received(client, data, isBinary));
    socket.on('pong', () => {
      client.alive = true;
    });
    socket.on('close', () => this.dropped(client));
    socket.on('error', () => this.close(client, 1011, 'Socket error'));
  }

  // --- messages in

  private received(client: Client, data: RawData, isBinary: boolean): void {
    if (client.closed) return;
    const text = isBinary ? null : Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
    const parsed = text === null ? ({ ok: false, tooLarge: false, error: 'Messages are JSON text' } as const) : parseClientMessage(text);
    const first = !client.gotFirst;
    client.gotFirst = true;
    const now = Date.now();
    if (!parsed.ok) {
      if (parsed.tooLarge) return this.close(client, LIVE_CLOSE.tooLarge, 'Message too large');
      if (first) return this.close(client, LIVE_CLOSE.unauthorized, 'The first message must be auth');
      // Counted like auth, join, leave and watch (each costs a parse): past the rate the socket is
      // closed, so junk stops costing the event loop once the limit is reached (issue 30, finding 11).
      if (!client.controlRate.allow(now)) return this.close(client, CLOSE_MALFORMED, 'Too many malformed messages');
      return this.send(client, { type: 'error', code: 'invalid_message', message: parsed.error });
    }
    const message = parsed.message;
    if (first && message.type !== 'auth') return this.close(client, LIVE_CLOSE.unauthorized, 'The first message must be auth');
    if (message.type === 'cursor' || message.type === 'selection' || message.type === 'overlap') {
      // Over the limit: dropped, cursors and selections without an answer (a client sends these as
      // the pointer moves); an overlap is rare and worth knowing about, so its sender is told.
      if (!client.peerRate.allow(now)) {
        if (message.type === 'overlap') this.send(client, { type: 'error', code: 'rate_limited', refused: 'overlap', image_id: message.image_id, message: `At most ${LIVE_MAX_PEER_MESSAGES_PER_SECOND} cursor, selection and overlap messages a second` });
        return;
      }
    } else if (message.type === 'draft') {
      // Dropped past the budget, and said so: the peers miss this state of the edit until the next draft or the save.
      if (!client.draftRate.allow(now)) return this.send(client, { type: 'error', code: 'rate_limited', refused: 'draft', image_id: message.image_id, message: `At most ${LIVE_MAX_DRAFTS_PER_SECOND} drafts a second` });
    } else if (!client.controlRate.allow(now)) {
      // Named, with what it was for: the client sends a refused join or leave again a second later.
      return this.send(client, {
        type: 'error',
        code: 'rate_limited',
        refused: message.type,
        ...('image_id' in message && { image_id: message.image_id }),
        ...('project_id' in message && message.project_id !== null && { project_id: message.project_id }),
        message: `At most ${LIVE_MAX_CONTROL_MESSAGES_PER_SECOND} auth, join, leave and watch messages a second`,
      });
    }
    client.queue = client.queue
      .then(() => (client.closed ? undefined : this.handle(client, message)))
      .catch((err: unknown) => {
        this.ctx.log.warn({ err }, 'live message failed');
        this.close(client, 1011, 'Internal error');
      });
  }

  private async handle(client: Client, message: LiveClientMessage): Promise<void> {
    if (message.type === 'auth') return this.authenticate(client, message.token);
    if (!client.user) return this.send(client, { type: 'error', code: 'not_authenticated' });
    switch (message.type) {
      case 'join':
        return this.join(client, message.image_id, message.project_id);
      case 'leave':
        if (!client.joins.has(message.image_id)) return this.send(client, { type: 'error', code: 'not_joined', image_id: message.image_id });
        return this.leave(client, message.image_id);
      case 'cursor':
        return this.relay(client, message.image_id, { cursor: { x: message.x, y: message.y } });
      case 'selection':
        return this.relay(client, message.image_id, { selection: message.ids });
      case 'overlap':
        // Only an edit can be overlapped: a viewer's (or one whose role lost write) is ignored.
        if (!client.joins.get(message.image_id)?.canEdit) return;
        return this.relay(client, message.image_id, { overlap: message.ids });
      case 'draft':
        // Only an edit of someone who may edit: a viewer's (or one whose role lost write) is ignored.
        if (!client.joins.get(message.image_id)?.canEdit) return;
        return this.relay(client, message.image_id, { draft: message });
      case 'watch':
        return this.watchers.watch(client, client.user.id, message.project_id, message.image_ids, () => client.closed);
      case 'watch_project':
        return this.projects.watch(client, client.user.id, message.project_id, () => client.closed);
    }
  }

  /** `auth`, first or again (a refreshed token): the same checks as the HTTP guard; the user may not change. */
  private async authenticate(client: Client, token: string): Promise<void> {
    let userId: string;
    let capOwner: string;
    try {
      const caller = await authenticate(this.ctx.auth, this.ctx, token);
      userId = caller.user.id;
      // An API key's sockets count against the person who created it (issue 30): keys do not multiply the cap.
      capOwner = caller.apiKey?.createdBy ?? userId;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return this.close(client, LIVE_CLOSE.unauthorized, 'Invalid or expired credential');
    }
    if (client.closed) return;
    if (client.user) {
      if (client.user.id !== userId) return this.close(client, LIVE_CLOSE.unauthorized, 'A socket stays with the user it authenticated first');
      client.token = token;
      return this.send(client, { type: 'ready', user_id: userId });
    }
    const mine = this.byUser.get(capOwner) ?? new Set<Client>();
    if (mine.size >= this.ctx.config.live.maxSocketsPerUser) return this.close(client, LIVE_CLOSE.tooManySockets, 'Too many open sockets for this user');
    // Counted before the name is read, so sockets authenticating at once cannot pass the limit together.
    client.user = { id: userId, name: '' };
    client.capOwner = capOwner;
    client.token = token;
    mine.add(client);
    this.byUser.set(capOwner, mine);
    const [profile] = await this.ctx.db.select({ fullName: profiles.fullName, email: profiles.email }).from(profiles).where(eq(profiles.id, userId)).limit(1);
    if (client.closed) return;
    client.user.name = profile?.fullName?.trim() || profile?.email || '';
    const recheck = setInterval(() => void this.recheck(client), this.ctx.config.live.recheckMs);
    recheck.unref();
    client.timers.push(recheck);
    this.send(client, { type: 'ready', user_id: userId });
  }

  /** Read access as the HTTP routes check it (annotations.read); anything else is `not_found`, nothing more. */
  private async access(userId: string, imageId: string, projectId: string): Promise<{ canEdit: boolean; layered: boolean } | null> {
    try {
      const image = await annotatedImage(this.ctx, userId, imageId, projectId, 'annotations.read');
      const role = await roleIn(this.ctx.db, userId, image.organizationId);
      return { canEdit: role !== null && can(role, 'annotations.write'), layered: Boolean(await layerOf(this.ctx.db, imageId, userId)) };
    } catch (err) {
      if (err instanceof ApiError) return null;
      throw err;
    }
  }

  private async join(client: Client, imageId: string, projectId: string): Promise<void> {
    if (!client.joins.has(imageId) && client.joins.size >= LIVE_MAX_JOINS_PER_SOCKET) {
      return this.send(client, { type: 'error', code: 'too_many_joins', image_id: imageId, message: `A socket may be joined to at most ${LIVE_MAX_JOINS_PER_SOCKET} images` });
    }
    const access = await this.access(client.user!.id, imageId, projectId);
    if (client.closed) return;
    if (!access) return this.send(client, { type: 'error', code: 'not_found', image_id: imageId });
    // In the room before the version is read, so a version committed meanwhile is not missed:
    // until the read answers, the membership takes no `changed`; after it, what the room relayed
    // past that version is sent to this socket alone.
    let room = this.rooms.get(imageId);
    const fresh = !room;
    if (!room) {
      room = { imageId, clients: new Set(), version: null, pending: 0, chain: Promise.resolve() };
      this.rooms.set(imageId, room);
    }
    const membership: Membership = { version: Number.MAX_SAFE_INTEGER, projectId, canEdit: access.canEdit, layered: access.layered };
    const again = client.joins.has(imageId);
    client.joins.set(imageId, membership);
    room.clients.add(client);
    const { version } = await headOf(this.ctx.db, imageId);
    if (client.closed || client.joins.get(imageId) !== membership) return;
    membership.version = version;
    this.send(client, { type: 'joined', image_id: imageId, version, peers: this.peersOf(room) });
    if (!again) {
      this.presence(room, client);
      this.watchers.changed(imageId);
      this.cluster?.announce(imageId, this.localPeersOf(room), fresh);
    }
    if (room.version === null) {
      room.version = version;
      if (room.pending > version) this.catchUp(room, room.pending);
    } else if (room.version > version) {
      this.catchUp(room, room.version, client);
    }
  }

  private leave(client: Client, imageId: string): void {
    client.joins.delete(imageId);
    const room = this.rooms.get(imageId);
    if (!room) return;
    room.clients.delete(client);
    if (room.clients.size === 0) this.rooms.delete(imageId);
    else this.presence(room, null);
    this.watchers.changed(imageId);
    this.cluster?.announce(imageId, room.clients.size === 0 ? [] : this.localPeersOf(room));
  }

  /**
   * A cursor, a selection, an overlap or a draft to the room's other sockets (not to those that are
   * behind), and to the other processes with people on the image. Only the sender's joined image.
   */
  private relay(client: Client, imageId: string, what: { cursor: { x: number; y: number } } | { selection: string[] } | { overlap: string[] } | { draft: LiveDraft }): void {
    const room = client.joins.has(imageId) ? this.rooms.get(imageId) : undefined;
    if (!room || client.joins.get(imageId)!.layered) return;
    const message =
      'draft' in what
        ? { type: 'draft', image_id: imageId, user_id: client.user!.id, base_version: what.draft.base_version, upserts: what.draft.upserts, removed_ids: what.draft.removed_ids }
        : { type: 'peer', image_id: imageId, user_id: client.user!.id, ...what };
    const text = JSON.stringify(message);
    for (const other of room.clients) {
      if (other !== client && !other.joins.get(imageId)?.layered && other.socket.bufferedAmount < PEER_BACKLOG_BYTES) this.sendText(other, text);
    }
    this.cluster?.relay(imageId, message);
  }

  // --- presence

  /**
   * One entry per person on the image, on this process and the others; `can_edit` when any of their
   * sockets may edit; colours distinct among them (withPeerColors, worked out over everyone, so each
   * process gives the same ones). What `joined`, `presence` and `watching` carry.
   */
  private peersOf(room: Room): LivePeer[] {
    return withPeerColors(mergePeers([...this.localPeersOf(room), ...(this.cluster?.peersOn(room.imageId) ?? [])]));
  }

  /** Everyone on the image, with or without a room on this process (as peersOf). */
  private peersOn(imageId: string): LivePeer[] {
    const room = this.rooms.get(imageId);
    return room ? this.peersOf(room) : withPeerColors(mergePeers(this.cluster?.peersOn(imageId) ?? []));
  }

  /**
   * The people on this process's sockets, each in their own colour (what the cluster announces;
   * peersOf gives the colours sent to clients). A socket whose person holds a layer of the image (a
   * consensus draft, a ground-truth attempt) is nobody's peer: they work without being seen.
   */
  private localPeersOf(room: Room): LivePeer[] {
    const seen = [...room.clients].filter((c) => !c.joins.get(room.imageId)?.layered);
    return mergePeers(seen.map((c) => ({ user_id: c.user!.id, name: c.user!.name, color: peerColor(c.user!.id), can_edit: c.joins.get(room.imageId)?.canEdit ?? false })));
  }

  private presence(room: Room, except: Client | null): void {
    const text = JSON.stringify({ type: 'presence', image_id: room.imageId, peers: this.peersOf(room) });
    for (const c of room.clients) if (c !== except) this.sendText(c, text);
  }

  // --- checks while open

  /** Every recheckMs: the credential again (revoked key, deactivated account, expired token) and read access to each joined image (removed member). */
  private async recheck(client: Client): Promise<void> {
    if (client.closed || !client.token || !client.user) return;
    try {
      const { user } = await authenticate(this.ctx.auth, this.ctx, client.token);
      if (user.id !== client.user.id) return this.close(client, LIVE_CLOSE.unauthorized, 'Credential changed');
    } catch (err) {
      if (err instanceof ApiError) return this.close(client, LIVE_CLOSE.unauthorized, 'The credential is no longer valid');
      return this.ctx.log.warn({ err }, 'live credential check failed; it runs again later');
    }
    for (const [imageId, membership] of client.joins) {
      if (client.closed) return;
      const access = await this.access(client.user.id, imageId, membership.projectId).catch(() => undefined);
      if (access === undefined) continue; // the database failed: try again next time
      if (!access) return this.close(client, LIVE_CLOSE.forbidden, 'Access to a joined image was lost');
      const shown = membership.layered !== access.layered;
      membership.canEdit = access.canEdit;
      membership.layered = access.layered;
      // A layer handed in or merged (or newly taken) shows or hides the person: the others are told.
      const room = shown ? this.rooms.get(imageId) : undefined;
      if (room) {
        this.presence(room, null);
        this.watchers.changed(imageId);
        this.cluster?.announce(imageId, this.localPeersOf(room));
      }
    }
    if (!client.closed) await this.watchers.recheck(client, client.user.id).catch((err: unknown) => this.ctx.log.warn({ err }, 'live watch check failed; it runs again later'));
    if (!client.closed) await this.projects.recheck(client, client.user.id).catch((err: unknown) => this.ctx.log.warn({ err }, 'live project watch check failed; it runs again later'));
  }

  private ping(): void {
    // After the event loop stalled for longer than a ping's interval, the pongs that came during the
    // stall are still unread (timers run before I/O): terminating now would drop every socket the
    // stall held up, so this round only pings again.
    const now = performance.now();
    const stalled = this.lastPing !== null && now - this.lastPing > 1.5 * this.ctx.config.live.pingMs;
    this.lastPing = now;
    for (const client of this.clients) {
      if (!client.alive && !stalled) {
        client.socket.terminate(); // 'close' follows: dropped() tells the rooms
        continue;
      }
      client.alive = false;
      try {
        client.socket.ping();
      } catch {
        client.socket.terminate();
      }
    }
  }

  // --- committed versions

  /** A NOTIFY `<image id>:<version>`: relay what the room has not had yet, up to that version. */
  private announced(payload: string): void {
    const [imageId, v] = payload.split(':');
    const room = imageId ? this.rooms.get(imageId) : undefined;
    const version = Number(v);
    if (!room || !Number.isInteger(version)) return;
    if (room.version === null) room.pending = Math.max(room.pending, version);
    else this.catchUp(room, version);
  }

  /** After the listener reconnected: every room reads up to its image's current version. */
  private catchUpAll(): void {
    for (const room of this.rooms.values()) {
      void headOf(this.ctx.db, room.imageId).then(
        (head) => this.catchUp(room, head.version),
        (err: unknown) => this.ctx.log.warn({ err }, 'live catch-up failed'),
      );
    }
  }

  /**
   * Reads the log from the room's last relayed version up to `upTo` and relays each version to the
   * sockets that have not had it; `only`: one socket that joined behind the room catches up alone.
   */
  private catchUp(room: Room, upTo: number, only?: Client): void {
    room.chain = room.chain
      .then(async () => {
        const from = only ? (only.joins.get(room.imageId)?.version ?? upTo) : room.version;
        if (from === null || upTo <= from) return;
        if (!only) room.version = upTo;
        for (const logged of await versionsAfter(this.ctx.db, room.imageId, from, upTo)) this.relayVersion(room, logged, only);
      })
      .catch((err: unknown) => this.ctx.log.warn({ err, imageId: room.imageId }, 'live changed relay failed'));
  }

  private relayVersion(room: Room, logged: LoggedVersion, only?: Client): void {
    const omitted = logged.upserts.length + logged.removedIds.length > LIVE_MAX_CHANGED_BYTES;
    // The log's json texts go out as they are stored, never parsed here.
    const text =
      `{"type":"changed","image_id":${JSON.stringify(room.imageId)},"version":${logged.version},"base_version":${logged.version - 1},` +
      `"upserts":${omitted ? '[]' : logged.upserts},"removed_ids":${omitted ? '[]' : logged.removedIds},"by":${JSON.stringify(logged.userId)},` +
      `"saved_at":${JSON.stringify(logged.savedAt)}${omitted ? ',"omitted":true' : ''}}`;
    for (const c of only ? [only] : room.clients) {
      const membership = c.joins.get(room.imageId);
      if (!membership || membership.version >= logged.version) continue;
      membership.version = logged.version;
      this.sendText(c, text);
    }
  }

  // --- out and closing

  private send(client: Client, message: LiveServerMessage | LiveErrorMessage): void {
    this.sendText(client, JSON.stringify(message));
  }

  private sendText(client: Client, text: string): void {
    if (client.closed || client.socket.readyState !== client.socket.OPEN) return;
    if (client.socket.bufferedAmount > MAX_BACKLOG_BYTES) return this.close(client, 1013, 'Too far behind');
    client.socket.send(text);
  }

  private close(client: Client, code: number, reason: string): void {
    if (client.closed) return;
    this.dropped(client);
    try {
      client.socket.close(code, reason);
    } catch {
      client.socket.terminate();
    }
  }

  /** The socket is gone (closed by either side, or dropped): out of its rooms, with presence to the rest. */
  private dropped(client: Client): void {
    if (client.closed) return;
    client.closed = true;
    for (const t of client.timers) clearTimeout(t);
    this.clients.delete(client);
    if (client.capOwner) {
      const mine = this.byUser.get(client.capOwner);
      mine?.delete(client);
      if (mine?.size === 0) this.byUser.delete(client.capOwner);
    }
    for (const imageId of [...client.joins.keys()]) this.leave(client, imageId);
    this.watchers.drop(client);
    this.projects.drop(client);
  }

  /** Open sockets and rooms (health and tests). */
  stats(): { sockets: number; rooms: number; watched: number; watchedProjects: number } {
    return { sockets: this.clients.size, rooms: this.rooms.size, watched: this.watchers.size, watchedProjects: this.projects.size };
  }
}

/** One entry per user id, in first-seen order; can_edit when any entry of the user's has it. */
function mergePeers(list: LivePeer[]): LivePeer[] {
  const peers = new Map<string, LivePeer>();
  for (const p of list) {
    const known = peers.get(p.user_id);
    if (known) known.can_edit ||= p.can_edit;
    else peers.set(p.user_id, { ...p });
  }
  return [...peers.values()];
}
