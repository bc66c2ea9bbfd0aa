// Watch-only presence (issue 20, the Data tab's avatars on its tiles): a socket names the images it
// shows (`watch`, replacing its set each time) and is told who is on each of them, then a
// `presence` whenever that changes. A watcher is no peer: it joins no room, so it is in nobody's
// presence and gets no `changed`, cursor or selection. Each id goes through the read rule of
// `join` (annotations.read on the image's organization, the image in the named project), in one
// query for the set; anything else is answered `not_found` and nothing more.
import { and, eq, inArray } from 'drizzle-orm';
import type { AppContext } from '../context';
import { images } from '../db/schema';
import { can, roleIn } from '../services/access';
import { LIVE_MAX_JOINS_PER_SOCKET, type LivePeer, type LiveServerMessage } from '../../contract/live';

interface Watched {
  projectId: string;
  /** image id -> the peers list last sent for it (JSON), so an unchanged list is not sent again. */
  images: Map<string, string>;
}

export interface WatchersDeps<C> {
  /** Everyone on the image, on this process and the others. */
  peersOf(imageId: string): LivePeer[];
  send(client: C, message: LiveServerMessage): void;
  sendText(client: C, text: string): void;
}

/** The ids of `imageIds` that `userId` may read in project `projectId`: the rule of join (annotatedImage with annotations.read), for many at once. */
export async function readableImages(ctx: AppContext, userId: string, projectId: string, imageIds: readonly string[]): Promise<Set<string>> {
  if (imageIds.length === 0) return new Set();
  const rows = await ctx.db
    .select({ id: images.id, organizationId: images.organizationId })
    .from(images)
    .where(and(eq(images.projectId, projectId), inArray(images.id, [...imageIds])));
  const allowed = new Map<string, boolean>();
  for (const orgId of new Set(rows.map((r) => r.organizationId))) {
    const role = await roleIn(ctx.db, userId, orgId);
    allowed.set(orgId, role !== null && can(role, 'annotations.read'));
  }
  return new Set(rows.filter((r) => allowed.get(r.organizationId)).map((r) => r.id));
}

/** The watched images of every socket of one process, and the presence they are sent. */
export class LiveWatchers<C extends object> {
  private readonly byClient = new Map<C, Watched>();
  private readonly byImage = new Map<string, Set<C>>();

  constructor(
    private readonly ctx: AppContext,
    private readonly deps: WatchersDeps<C>,
  ) {}

  /** `watch`: checks the ids, replaces the socket's set, and answers `watching` (after `not_found` for each id refused). */
  async watch(client: C, userId: string, projectId: string, imageIds: readonly string[], isClosed: () => boolean): Promise<void> {
    const ids = [...new Set(imageIds)];
    if (ids.length > LIVE_MAX_JOINS_PER_SOCKET) {
      return this.deps.send(client, { type: 'error', code: 'too_many_joins', message: `A socket may watch at most ${LIVE_MAX_JOINS_PER_SOCKET} images at once` });
    }
    const readable = await readableImages(this.ctx, userId, projectId, ids);
    if (isClosed()) return;
    this.drop(client);
    const watched: Watched = { projectId, images: new Map() };
    const answer: { image_id: string; peers: LivePeer[] }[] = [];
    for (const id of ids) {
      if (!readable.has(id)) {
        this.deps.send(client, { type: 'error', code: 'not_found', image_id: id });
        continue;
      }
      const peers = this.deps.peersOf(id);
      watched.images.set(id, JSON.stringify(peers));
      answer.push({ image_id: id, peers });
      let clients = this.byImage.get(id);
      if (!clients) this.byImage.set(id, (clients = new Set()));
      clients.add(client);
    }
    if (watched.images.size > 0) this.byClient.set(client, watched);
    this.deps.send(client, { type: 'watching', project_id: projectId, images: answer });
  }

  /** The people on the image may have changed: its watchers get `presence` when their list did. */
  changed(imageId: string): void {
    const clients = this.byImage.get(imageId);
    if (!clients) return;
    const peers = JSON.stringify(this.deps.peersOf(imageId));
    const text = `{"type":"presence","image_id":${JSON.stringify(imageId)},"peers":${peers}}`;
    for (const client of clients) {
      const watched = this.byClient.get(client);
      if (!watched || watched.images.get(imageId) === peers) continue;
      watched.images.set(imageId, peers);
      this.deps.sendText(client, text);
    }
  }

  /** The read access again (the periodic re-check): an image no longer readable leaves the set, answered `not_found`. Never closes the socket (an image deleted from the Data tab is common). */
  async recheck(client: C, userId: string): Promise<void> {
    const watched = this.byClient.get(client);
    if (!watched) return;
    const ids = [...watched.images.keys()];
    const readable = await readableImages(this.ctx, userId, watched.projectId, ids);
    if (this.byClient.get(client) !== watched) return; // a new watch came meanwhile
    for (const id of ids) {
      if (readable.has(id)) continue;
      watched.images.delete(id);
      this.forget(client, id);
      this.deps.send(client, { type: 'error', code: 'not_found', image_id: id });
    }
    if (watched.images.size === 0) this.byClient.delete(client);
  }

  /** The socket watches nothing any more (a new set, or it closed). */
  drop(client: C): void {
    const watched = this.byClient.get(client);
    if (!watched) return;
    this.byClient.delete(client);
    for (const id of watched.images.keys()) this.forget(client, id);
  }

  /** Images watched on this process (tests, health). */
  get size(): number {
    return this.byImage.size;
  }

  private forget(client: C, imageId: string): void {
    const clients = this.byImage.get(imageId);
    clients?.delete(client);
    if (clients?.size === 0) this.byImage.delete(imageId);
  }
}
