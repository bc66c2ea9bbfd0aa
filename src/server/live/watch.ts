// Watch-only presence (issue 20, the Data tab's avatars on its tiles): a socket names the images it
// shows (`watch`, replacing its set each time) and is told who is on each of them, then a
// `presence` whenever that changes. A watcher is no peer: it joins no room, so it is in nobody's
// presence and gets no `changed`, cursor or selection. Each id goes through the read rule of
// `join` (annotations.read on the image's organization, the image in the named project), in one
// query for the set; anything else is answered `not_found` and nothing more.
// Project watchers (`watch_project`, issue 30, the Data tab's grid and counts): a socket names one
// project it may read the images of, and is sent `project_changed` when an import into it ends
// (./notify.ts announces it to every process), at most once a LIVE_PROJECT_CHANGED_MIN_MS per project.
import { and, eq, inArray } from 'drizzle-orm';
import type { AppContext } from '../context';
import { images } from '../db/schema';
import { ApiError } from '../errors';
import { can, projectInOrg, roleIn } from '../services/access';
import { LIVE_MAX_JOINS_PER_SOCKET, LIVE_PROJECT_CHANGED_MIN_MS, LIVE_PROJECT_CHANGES, type LiveErrorMessage, type LivePeer, type LiveProjectChange, type LiveServerMessage } from '../../contract/live';
import { PROJECT_CHANNEL } from './notify';

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

export interface ProjectWatchersDeps<C> {
  send(client: C, message: LiveServerMessage | LiveErrorMessage): void;
}

/** The project each socket of one process watches (`watch_project`), and the `project_changed` they are sent. */
export class ProjectWatchers<C extends object> {
  private readonly byClient = new Map<C, string>();
  private readonly byProject = new Map<string, Set<C>>();
  /** Projects told of within the last LIVE_PROJECT_CHANGED_MIN_MS: the change that came meanwhile goes at its end. */
  private readonly quiet = new Map<string, { timer: NodeJS.Timeout; pending: LiveProjectChange | null }>();
  private stopListening: (() => Promise<void>) | null = null;

  constructor(
    private readonly ctx: AppContext,
    private readonly deps: ProjectWatchersDeps<C>,
  ) {}

  async start(): Promise<void> {
    this.stopListening = await this.ctx.database.listen(PROJECT_CHANNEL, (payload) => this.announced(payload));
  }

  async stop(): Promise<void> {
    for (const q of this.quiet.values()) clearTimeout(q.timer);
    this.quiet.clear();
    await this.stopListening?.();
    this.stopListening = null;
  }

  /** `watch_project`: the caller may read the project's images (images.read in its organization), else `not_found`. Replaces the socket's project; null ends it. */
  async watch(client: C, userId: string, projectId: string | null, isClosed: () => boolean): Promise<void> {
    if (projectId !== null && !(await this.readable(userId, projectId))) {
      if (!isClosed()) this.deps.send(client, { type: 'error', code: 'not_found', project_id: projectId });
      return;
    }
    if (isClosed()) return;
    this.drop(client);
    if (projectId !== null) {
      this.byClient.set(client, projectId);
      let clients = this.byProject.get(projectId);
      if (!clients) this.byProject.set(projectId, (clients = new Set()));
      clients.add(client);
    }
    this.deps.send(client, { type: 'watching_project', project_id: projectId });
  }

  /** The periodic re-check: a project no longer readable is no longer watched, answered `not_found` (the socket stays open). */
  async recheck(client: C, userId: string): Promise<void> {
    const projectId = this.byClient.get(client);
    if (!projectId || (await this.readable(userId, projectId))) return;
    if (this.byClient.get(client) !== projectId) return; // a new watch came meanwhile
    this.drop(client);
    this.deps.send(client, { type: 'error', code: 'not_found', project_id: projectId });
  }

  drop(client: C): void {
    const projectId = this.byClient.get(client);
    if (!projectId) return;
    this.byClient.delete(client);
    const clients = this.byProject.get(projectId);
    clients?.delete(client);
    if (clients?.size === 0) this.byProject.delete(projectId);
  }

  /** Projects watched on this process (tests, health). */
  get size(): number {
    return this.byProject.size;
  }

  private async readable(userId: string, projectId: string): Promise<boolean> {
    try {
      await projectInOrg(this.ctx, userId, projectId, 'images.read');
      return true;
    } catch (err) {
      if (err instanceof ApiError) return false;
      throw err;
    }
  }

  /** A NOTIFY `<project id>:<reason>`: the project's watchers here are told, now or at the end of its quiet time. */
  private announced(payload: string): void {
    const [projectId, reason] = payload.split(':') as [string, LiveProjectChange];
    if (!projectId || !LIVE_PROJECT_CHANGES.includes(reason) || !this.byProject.has(projectId)) return;
    const q = this.quiet.get(projectId);
    if (q) {
      q.pending = reason;
      return;
    }
    this.tell(projectId, reason);
  }

  private tell(projectId: string, reason: LiveProjectChange): void {
    for (const client of this.byProject.get(projectId) ?? []) this.deps.send(client, { type: 'project_changed', project_id: projectId, reason });
    const q = {
      pending: null as LiveProjectChange | null,
      timer: setTimeout(() => {
        this.quiet.delete(projectId);
        if (q.pending) this.tell(projectId, q.pending);
      }, LIVE_PROJECT_CHANGED_MIN_MS),
    };
    q.timer.unref();
    this.quiet.set(projectId, q);
  }
}
