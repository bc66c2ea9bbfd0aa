// Presence, cursors, selections and overlaps across server processes on one PostgreSQL: each hub announces
// the people on its sockets per image, and the cursors and selections they send, with NOTIFY on
// vellum_live_peers; every hub LISTENs and merges what the others announce into its own rooms.
// `changed` needs none of this (it comes from the change log, hub.ts). On PGlite there is one
// process and no cluster.
//
// An announcement is `{o, i, p, ask?}` (origin process, image, that origin's peers on the image;
// `ask` when the origin's room is new, so the others answer with theirs) or `{o, i, m}` (a peer
// message to relay as it is). Each process re-announces its rooms every heartbeat; an origin not
// heard for three heartbeats (a process that died) leaves the image's peers. The peers announced
// carry their own colours (peerColor); the hub gives the people of an image distinct colours over
// every process's peers at once (withPeerColors in hub.ts), so all processes send the same ones.
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../context';
import type { LivePeer } from '../../contract/live';

export const PEERS_CHANNEL = 'vellum_live_peers';
/** NOTIFY payloads are at most 8000 bytes. */
const MAX_PAYLOAD_BYTES = 7900;

type Announcement = { o: string; i: string; p: LivePeer[]; ask?: true } | { o: string; i: string; m: Record<string, unknown> };

export interface ClusterEvents {
  /** The peers other processes have on `imageId` changed. */
  peersChanged(imageId: string): void;
  /** A cursor, selection or overlap from another process, for the local sockets on `imageId`. */
  peerMessage(imageId: string, text: string): void;
  /** Another process's room on `imageId` is new: this one's peers there, if it has a room (else null). */
  localPeers(imageId: string): LivePeer[] | null;
}

export class LiveCluster {
  private readonly origin = randomUUID();
  /** image -> origin -> that origin's peers and when they stop counting. */
  private readonly remote = new Map<string, Map<string, { peers: LivePeer[]; until: number }>>();
  private stopListening: (() => Promise<void>) | null = null;
  /** Announcements on their way (stop() waits for them: the last ones say this process's rooms are gone). */
  private readonly sending = new Set<Promise<unknown>>();
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(
    private readonly ctx: AppContext,
    private readonly events: ClusterEvents,
    /** The images this process has rooms for, re-announced every heartbeat. */
    private readonly rooms: () => Iterable<string>,
    private readonly heartbeatMs = 5000,
  ) {}

  async start(): Promise<void> {
    this.stopListening = await this.ctx.database.listen(PEERS_CHANNEL, (payload) => this.heard(payload));
    this.heartbeat = setInterval(() => this.beat(), this.heartbeatMs);
    this.heartbeat.unref();
  }

  async stop(): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    await Promise.all(this.sending);
    await this.stopListening?.();
    this.stopListening = null;
  }

  /** The peers other processes have on the image. */
  peersOn(imageId: string): LivePeer[] {
    const now = Date.now();
    return [...(this.remote.get(imageId)?.values() ?? [])].filter((r) => r.until > now).flatMap((r) => r.peers);
  }

  /** This process's peers on the image changed (an empty list: its room is gone); `fresh`: the room is new. */
  announce(imageId: string, peers: LivePeer[], fresh = false): void {
    this.notify(fresh ? { o: this.origin, i: imageId, p: peers, ask: true } : { o: this.origin, i: imageId, p: peers });
  }

  /**
   * A cursor, selection or overlap to the other processes with people on the image; a selection or
   * overlap too large for one NOTIFY goes with its first ids.
   */
  relay(imageId: string, message: Record<string, unknown> & { selection?: string[]; overlap?: string[] }): void {
    if (!this.remote.get(imageId)?.size) return;
    const announcement = { o: this.origin, i: imageId, m: message };
    let payload = JSON.stringify(announcement);
    const key = message.selection ? 'selection' : message.overlap ? 'overlap' : null;
    if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES && key) {
      const ids: string[] = [];
      let room = MAX_PAYLOAD_BYTES - Buffer.byteLength(JSON.stringify({ ...announcement, m: { ...message, [key]: [] } }));
      for (const id of message[key]!) {
        room -= Buffer.byteLength(JSON.stringify(id)) + 1;
        if (room < 0) break;
        ids.push(id);
      }
      payload = JSON.stringify({ ...announcement, m: { ...message, [key]: ids } });
    }
    if (Buffer.byteLength(payload) <= MAX_PAYLOAD_BYTES) this.send(payload);
  }

  private notify(a: Announcement): void {
    this.send(JSON.stringify(a));
  }

  private send(payload: string): void {
    const sent = this.ctx.db
      .execute(sql`SELECT pg_notify(${PEERS_CHANNEL}, ${payload})`)
      .catch((err: unknown) => this.ctx.log.warn({ err }, 'live peer announcement failed'))
      .finally(() => this.sending.delete(sent));
    this.sending.add(sent);
  }

  private heard(payload: string): void {
    let a: Announcement;
    try {
      a = JSON.parse(payload) as Announcement;
    } catch {
      return;
    }
    if (!a || typeof a.o !== 'string' || typeof a.i !== 'string' || a.o === this.origin) return;
    if ('m' in a) {
      if (this.remote.get(a.i)?.has(a.o)) this.events.peerMessage(a.i, JSON.stringify(a.m));
      return;
    }
    if (!Array.isArray(a.p)) return;
    let byOrigin = this.remote.get(a.i);
    if (a.p.length === 0) {
      if (byOrigin?.delete(a.o)) {
        if (byOrigin.size === 0) this.remote.delete(a.i);
        this.events.peersChanged(a.i);
      }
      return;
    }
    if (!byOrigin) this.remote.set(a.i, (byOrigin = new Map()));
    const before = JSON.stringify(byOrigin.get(a.o)?.peers ?? []);
    byOrigin.set(a.o, { peers: a.p, until: Date.now() + 3 * this.heartbeatMs });
    if (JSON.stringify(a.p) !== before) this.events.peersChanged(a.i);
    if ('ask' in a && a.ask) {
      const mine = this.events.localPeers(a.i);
      if (mine) this.announce(a.i, mine);
    }
  }

  /** Re-announces this process's rooms, and forgets origins not heard for three heartbeats. */
  private beat(): void {
    for (const imageId of this.rooms()) {
      const mine = this.events.localPeers(imageId);
      if (mine) this.announce(imageId, mine);
    }
    const now = Date.now();
    for (const [imageId, byOrigin] of this.remote) {
      let changed = false;
      for (const [origin, r] of byOrigin) {
        if (r.until <= now) {
          byOrigin.delete(origin);
          changed = true;
        }
      }
      if (byOrigin.size === 0) this.remote.delete(imageId);
      if (changed) this.events.peersChanged(imageId);
    }
  }
}
