// A server restart with two people on one image (issue 20: nothing lost or duplicated through
// restarts). A and B each run the editor's side headless, as the screen wires it: the engine's
// Editor, the save manager (fake IndexedDB) with its link, and the app's live client
// (src/app/sync/live) over a real WebSocket. The server stops: neither shows anyone on the image
// any more, and A draws a box (the save fails and waits for its retry). The server comes back on
// the same address and data (the same PGlite directory, or the same PostgreSQL database), and a
// third person's two saves land before it takes connections. Then both live clients reconnect,
// join again and see each other; B loads the versions it missed with GET changes; A's save lands
// once; and both editors hold what the server holds.
import { IDBFactory } from 'fake-indexeddb';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, startServer, tempDir, type TestServer } from './harness';
import { joinAs } from './team-harness';
import { createProject, png, uploadImage } from '../fixtures/datasets';
import { buildApp, type BuiltApp } from '../../src/server/app';
import { Editor, type EditorAnnotation } from '../../src/engine';
import { LIVE_PATH, type LivePeer } from '../../src/contract/live';
import { ChangesResponse, SaveDataResponse } from '../../src/contract/annotation-api';
import { LiveClient, changeOfResponse, type LiveSocket } from '../../src/app/sync/live/client';
import { createManager } from '../../src/app/sync/save/manager';
import { openIndexedDbStore } from '../../src/app/sync/save/store';
import { EditorSaveLink } from '../../src/app/sync/save/link';
import { outcomeOf, type SaveTransport } from '../../src/app/sync/save/transport';
import type { SaveStatus } from '../../src/app/sync/save/types';

type Session = { token: string; userId: string };

const rect = (id: string, x: number): EditorAnnotation => ({ id, type: 'box', class: 'car', x, y: 2, width: 6, height: 6, attributes: [] });
const stored = (id: string, x: number) => ({ id, name: 'car', bounding_box: { x, y: 2, w: 6, h: 6 }, attributes: [] });

/** Resolves when `check` holds, tried again on every event of the clients and every 50 ms (a wait, not a timed assertion: the test's timeout bounds it). */
async function until(what: string, check: () => boolean, logs: () => string[]): Promise<void> {
  for (let i = 0; !check(); i++) {
    if (i > 1200) throw new Error(`timed out waiting for ${what}; last logs: ${logs().slice(-8).join(' | ')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Real timers, for the save manager and the live client. */
const timers = { setTimer: (fn: () => void, ms: number): unknown => setTimeout(fn, ms), clearTimer: (h: unknown) => clearTimeout(h as NodeJS.Timeout) };

/** The editor screen's side of one person, headless: the parts the screen wires, with the server at `base`. */
function openEditor(base: () => string, session: Session, image: { id: string; filename: string }, projectId: string, name: string) {
  const logs: string[] = [];
  const log = (m: string) => logs.push(`${name}: ${m}`);
  /** Each save request: what the server answered (null: it could not be reached, or the answer was lost). */
  const attempts: { status: number | null }[] = [];
  /** Set: the next save reaches the server, which stops (this runs) before its answer gets back. */
  let loseNextAnswer: (() => Promise<void>) | null = null;
  const transport: SaveTransport = {
    async save(body) {
      let res: Response;
      try {
        res = await fetch(`${base()}/api/v1/annotations/save-changes`, { method: 'POST', headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      } catch (err) {
        attempts.push({ status: null });
        return { kind: 'retry', status: null, message: (err as Error).message };
      }
      const text = await res.text();
      const lose = loseNextAnswer;
      loseNextAnswer = null;
      if (lose) {
        attempts.push({ status: null });
        await lose();
        return { kind: 'retry', status: null, message: 'the connection was lost before the answer' };
      }
      attempts.push({ status: res.status });
      if (res.status !== 200) return outcomeOf(res.status, text);
      return { kind: 'saved', res: SaveDataResponse.parse(JSON.parse(text)) };
    },
    saveBatch: async (bodies) => bodies.map(() => ({ kind: 'refused', status: 400, message: 'not used here' }) as const),
    refreshAuth: async () => true,
    load: async () => null,
  };
  const never = () => () => undefined;
  const manager = createManager({
    ...timers,
    transport,
    tabId: `restart-${name}`,
    currentUser: async () => session.userId,
    openStore: (id) => openIndexedDbStore(id, new IDBFactory()),
    // The app's rules, quicker: a save 200 ms after an edit, retries from 250 ms doubling to 2 s.
    debounceMs: 200,
    baseRetryMs: 250,
    maxRetryMs: 2000,
    maxRetries: 40,
    now: Date.now,
    onOnline: never,
    onAuthChange: never,
    log,
  });
  let status: SaveStatus = manager.status();
  manager.subscribe((s) => (status = s));
  const editor = new Editor({ viewport: { width: 400, height: 300 }, image: { width: 40, height: 30 } });
  const link = new EditorSaveLink(editor, manager, { log });
  link.start();
  /** Each `since` of the GET changes the live client made. */
  const fetched: number[] = [];
  /** Every peers list the live client was given (joined and presence). */
  const peers: LivePeer[][] = [];
  let connected = false;
  const live = new LiveClient({
    url: `${base().replace(/^http/, 'ws')}${LIVE_PATH}`,
    createSocket: (url) => new WebSocket(url) as unknown as LiveSocket,
    ...timers,
    getToken: async () => session.token,
    onTokenChange: never,
    fetchChanges: async (imageId, project, since) => {
      fetched.push(since);
      const res = await api(base(), 'GET', `/api/v1/annotations/changes/${imageId}?since=${since}&project_id=${project}`, { token: session.token });
      // 410: the log no longer reaches back; anything else but the answer is thrown (the client tries again later).
      return res.status === 410 ? 'expired' : changeOfResponse(ChangesResponse.parse(res.body));
    },
    random: Math.random,
    log,
  });
  live.onConnection((on) => (connected = on));
  return {
    editor,
    manager,
    live,
    logs,
    attempts,
    fetched,
    peers,
    get status() {
      return status;
    },
    get connected() {
      return connected;
    },
    loseNextAnswer(stop: () => Promise<void>) {
      loseNextAnswer = stop;
    },
    async open() {
      const loaded = await api(base(), 'GET', `/api/v1/annotations/load-data/${image.id}?project_id=${projectId}`, { token: session.token });
      expect(loaded.status).toBe(200);
      const ref = { imageId: image.id, projectId, imageFilename: image.filename };
      await link.load(loaded.body.annotations);
      await manager.open(ref, loaded.body);
      link.attach(ref);
      // What useLiveImage does for an editor that may edit.
      live.watch(image.id, projectId, {
        version: () => manager.version(image.id),
        apply: (change) => link.applyRemoteChange(image.id, change).kind,
        reload: () => log('reload asked (history expired)'),
        onPeers: (list) => peers.push(list),
      });
    },
    /** The shapes in the editor, by id, as the server stores them (the box's position is enough here). */
    shapes() {
      return editor.getOrderedIds().map((id) => {
        const a = editor.getAnnotation(id) as { x: number };
        return [id, a.x] as const;
      });
    },
    dispose() {
      live.dispose();
      manager.dispose();
    },
  };
}
type HeadlessEditor = ReturnType<typeof openEditor>;

/** The same server again, on the same address, data and database (a process restarted); `beforeListen` runs once it is up and before it takes connections. */
async function restarted(previous: TestServer, beforeListen: (built: BuiltApp) => Promise<void>): Promise<TestServer> {
  const built = await buildApp(previous.config, { logger: false });
  await beforeListen(built);
  await built.app.listen({ port: previous.config.port, host: '127.0.0.1' });
  return { url: previous.url, config: previous.config, built, stop: () => built.close() };
}

describe('a server restart with live clients on an image', () => {
  let server: TestServer | null = null;
  const editors: HeadlessEditor[] = [];

  beforeAll(async () => {
    // A directory of its own: the tests start the server again on it after stopping it.
    server = await startServer({ LIVE_PING_MS: '500' }, tempDir());
  }, 120_000);
  afterAll(async () => {
    for (const e of editors) e.dispose();
    await server?.stop();
  });

  /**
   * The owner (A) and an annotator (B) with the image open in headless editors, seeing each other,
   * and B's box saved (version 1) and in A's editor; C: another annotator.
   */
  async function onOneImage(s: TestServer) {
    const owner = await onboardedUser(s);
    const project = await createProject(s, owner);
    expect((await api(s.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { classes: [{ name: 'car', type: 'box', color: '#FFADAD' }] } })).status).toBe(200);
    const image = await uploadImage(s, owner, project.id, 'restart.png', await png(40, 30));
    const b = await joinAs(s, owner.token, owner.org.id, 'annotator');
    const c = await joinAs(s, owner.token, owner.org.id, 'annotator');
    const A = openEditor(() => s.url, owner, image, project.id, 'A');
    const B = openEditor(() => s.url, b, image, project.id, 'B');
    editors.push(A, B);
    const logs = () => [...A.logs, ...B.logs];
    const both = (list: LivePeer[] | undefined) => (list ?? []).map((p) => p.user_id).sort().join() === [owner.userId, b.userId].sort().join();
    await A.open();
    await B.open();
    await until('A and B to see each other', () => both(A.peers.at(-1)) && both(B.peers.at(-1)), logs);
    B.editor.execute('create', { annotation: rect('b1', 1) });
    await until('A to hold version 1', () => A.manager.version(image.id) === 1, logs);
    expect(A.shapes()).toEqual([['b1', 1]]);
    return { owner, b, c, project, image, A, B, logs, both };
  }

  /** The image's versions on the server, newest first: [version, who, added, changed, removed]. */
  async function versions(s: TestServer, token: string, imageId: string, projectId: string) {
    const history = await api(s.url, 'GET', `/api/v1/annotations/history/${imageId}?project_id=${projectId}`, { token });
    expect(history.status).toBe(200);
    return history.body.entries.map((e: any) => [e.version, e.user_id, e.added, e.changed, e.removed]);
  }

  /** The image's shapes on the server, [id, x] sorted (each box's position is enough here). */
  async function onServer(s: TestServer, token: string, imageId: string, projectId: string) {
    const loaded = await api(s.url, 'GET', `/api/v1/annotations/load-data/${imageId}?project_id=${projectId}`, { token });
    expect(loaded.status).toBe(200);
    return { version: loaded.body.version as number, shapes: loaded.body.annotations.map((a: any) => [a.id, a.bounding_box.x]).sort() };
  }

  it('both reconnect and see each other again, B loads the versions it missed, A\'s save made while it was down lands once, and both editors hold what the server holds', async () => {
    const s = server!;
    const { owner, b, c, project, image, A, B, logs, both } = await onOneImage(s);

    // The server stops: both sockets close.
    await s.stop();
    await until('both live clients to see the socket close', () => !A.connected && !B.connected, logs);
    // Nobody is shown on the image while the socket is away.
    expect([A.peers.at(-1), B.peers.at(-1)]).toEqual([[], []]);
    // A draws a box while the server is down: the save fails and waits for a retry.
    A.editor.execute('create', { annotation: rect('a1', 20) });
    await until("A's save to fail", () => A.attempts.some((t) => t.status === null), logs);
    expect(A.attempts.every((t) => t.status === null)).toBe(true);
    expect(A.status).toMatchObject({ unsavedImages: 1 });
    expect(A.status.state).not.toBe('saved');

    // The server comes back on the same address and data. Before it takes connections, a third
    // person's two saves land (a box, then B's box moved): versions 2 and 3, which no socket hears.
    const peersBefore = { A: A.peers.length, B: B.peers.length };
    const back = await restarted(s, async (built) => {
      const save = async (base: number, upserts: unknown[]) => {
        const res = await built.app.inject({
          method: 'POST',
          url: '/api/v1/annotations/save-changes',
          headers: { authorization: `Bearer ${c.token}` },
          payload: { image_id: image.id, project_id: project.id, image_filename: image.filename, base_version: base, upserts, removed_ids: [] },
        });
        expect(res.statusCode).toBe(200);
      };
      await save(1, [stored('c1', 10)]);
      await save(2, [stored('b1', 30)]);
    });
    server = back;

    // Both live clients reconnect, join again and see each other (in their distinct colours).
    await until('A and B to see each other again', () => both(A.peers.slice(peersBefore.A).at(-1)) && both(B.peers.slice(peersBefore.B).at(-1)), logs);
    expect(new Set(A.peers.at(-1)!.map((p) => p.color)).size).toBe(2);
    // A's retried save lands; B catches up to it.
    await until("A's save to land", () => A.status.state === 'saved' && A.status.unsavedImages === 0, logs);
    await until('B to hold version 4', () => B.manager.version(image.id) === 4, logs);
    expect(A.manager.version(image.id)).toBe(4);

    // B loaded what it missed (versions 2 and 3) with GET changes since the version it held.
    expect(B.fetched).toContain(1);
    // The server's version chain: B's box, the third person's two saves, A's box once.
    expect(await versions(back, owner.token, image.id, project.id)).toEqual([
      [4, owner.userId, 1, 0, 0],
      [3, c.userId, 0, 1, 0],
      [2, c.userId, 1, 0, 0],
      [1, b.userId, 1, 0, 0],
    ]);
    // A's save reached the server once (among its tries, one answered 200), and nothing came after it.
    expect(A.attempts.filter((t) => t.status === 200)).toHaveLength(1);
    const held = await onServer(back, owner.token, image.id, project.id);
    expect(held).toEqual({
      version: 4,
      shapes: [
        ['a1', 20],
        ['b1', 30],
        ['c1', 10],
      ],
    });
    // Both editors hold the server's document: every shape once, B's box where the third person moved it.
    expect([...A.shapes()].sort()).toEqual(held.shapes);
    expect([...B.shapes()].sort()).toEqual(held.shapes);
  }, 180_000);

  /**
   * A draws a box; its save reaches the server (version 2) and is told on the sockets, then the
   * server stops before the answer gets back, and comes back. Resolves once both see each other
   * again and A has nothing left to save.
   */
  async function answerLostInRestart() {
    const s = server!;
    const on = await onOneImage(s);
    const { image, A, B, logs, both } = on;
    A.loseNextAnswer(async () => {
      await until('B to hold version 2', () => B.manager.version(image.id) === 2, logs);
      await s.stop();
    });
    A.editor.execute('create', { annotation: rect('a1', 20) });
    await until('A to try its save', () => A.attempts.length > 0, logs);
    await until('both live clients to see the socket close', () => !A.connected && !B.connected, logs);
    expect(A.status).toMatchObject({ unsavedImages: 1 });
    const peersBefore = { A: A.peers.length, B: B.peers.length };
    const back = await restarted(s, async () => undefined);
    server = back;
    await until('A and B to see each other again', () => both(A.peers.slice(peersBefore.A).at(-1)) && both(B.peers.slice(peersBefore.B).at(-1)), logs);
    await until('A to have nothing left to save', () => A.status.state !== 'pending' && A.status.state !== 'saving' && A.status.unsavedImages === 0, logs);
    return { ...on, back };
  }

  it('a save that reached the server as it went down, its answer lost: when the server is back nothing is lost or doubled, and both editors hold what it holds', async () => {
    const { owner, project, image, A, B, logs, back } = await answerLostInRestart();
    const held = await onServer(back, owner.token, image.id, project.id);
    expect(held.shapes).toEqual([
      ['a1', 20],
      ['b1', 1],
    ]);
    await until('B to hold the version on the server', () => B.manager.version(image.id) === held.version, logs);
    expect(A.manager.version(image.id)).toBe(held.version);
    expect([...A.shapes()].sort()).toEqual(held.shapes);
    expect([...B.shapes()].sort()).toEqual(held.shapes);
  }, 180_000);

  // The live `changed` of A's own version 2 arrives while the save is in flight ('busy'); once the
  // save has failed it is applied as a change from the server (SaveManager.remote), which drops
  // the pending box the server already holds, so the retry does not send it again.
  it('a save that reached the server as it went down, its answer lost, makes no second version when the server is back', async () => {
    const { owner, b, project, image, back } = await answerLostInRestart();
    expect(await versions(back, owner.token, image.id, project.id)).toEqual([
      [2, owner.userId, 1, 0, 0],
      [1, b.userId, 1, 0, 0],
    ]);
  }, 180_000);
});
