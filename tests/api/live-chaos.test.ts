// Live co-editing as a team meets it, at random: three people (A, B, C) and a second tab of A's
// (A2, on A's IndexedDB) have one image open at once, each the stack the browser runs minus the
// DOM: the engine's Editor in an EditorSession (src/app/editor-session/session.ts, started: its
// save link, merges, overlaps and toasts), a SaveManager (src/app/sync/save) over the real HTTP
// transport with fake-indexeddb, and a LiveClient (src/app/sync/live/client.ts) over a real `ws`
// WebSocket to the real server (its GET changes through the app's own fetchChanges). The image is
// opened as the screen's useOpenImage does: ImageLoading / openImage (load-data, the manager's
// open, the document into the editor, the link attached) and a LiveImage watching it, its
// document's arrival caught up; that joining is copied from src/app/editor-session/liveOpen.ts
// (LiveOpenImage makes its LiveImage on the page's timers; this one takes the fake clock's), less
// the selection it sends. Each round one tab, at random: draws a box, moves or resizes one (its
// own mostly, else anyone's), deletes one, undoes, redoes, removes all (rarely); or its socket
// drops (the client reconnects by its own backoff), its next save fails (refused before the
// server, applied with the answer lost or answered 502, a 503, held before or after the server
// and overtaken by later actions), it goes offline (every request fails, the socket cannot
// connect) and later comes back, it closes the image and opens it again, or it closes the tab (the
// page-hide handler runs, its keepalive save mostly goes; then the socket closes, nothing of the
// page runs any more, requests not yet at the server are cancelled, answers to it go nowhere) and
// a new tab of the same person on the same IndexedDB opens the image and takes in what the closed
// one left. A save held in the network stays held until a later round lets it go: meanwhile that
// image saves nothing more in that tab and does not open again there (the save manager's open
// waits for the tab's save in flight). The managers', the
// save links', the live clients' and the live images' (drafts, their throttle) timers run on a
// fake clock, which the server's clock follows; the sockets, the requests and the time between
// timers are real, so a seed replays the same actions but not always the same interleaving of
// socket messages with them.
//
// When the faults stop, everyone is back online with the image open and nothing left to save, the
// tabs make a few last edits at once, and everything settles again (all saved, every socket up
// and every manager at the server's version). Then (4) no shape is shown in anybody's editor as
// another person's draft (every author's save has landed and nobody is away), everyone sees everyone on the
// image, (1) every editor's document (its shapes as stored) is the server's (load-data) exactly,
// there and again once any draft left has timed out, (2) a shape only one tab ever changed is on
// the server exactly as that tab last left it, (3) a shape several changed is as one of them last
// left it, and (5) the history holds versions 1..head with no save request applied twice (and no
// manager's version ever went back, checked every round). A failure names the tab, the shape and
// what each side holds. LIVE_CHAOS_SEEDS=1,2,3 LIVE_CHAOS_ROUNDS=200 run more;
// LIVE_CHAOS_VERBOSE=1 prints what each run did and, on a failure, the whole trace.
import { AsyncLocalStorage } from 'node:async_hooks';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { StoredAnnotation } from '../../src/contract/annotations';
import type { HistoryResponse, LoadDataResponse } from '../../src/contract/annotation-api';
import type { Image } from '../../src/contract/images';
import { LIVE_DRAFT_LEAVE_GRACE_MS, LIVE_DRAFT_TIMEOUT_MS, LIVE_PATH } from '../../src/contract/live';
import { Editor, editorToStored, type EditorAnnotation } from '../../src/engine';
import { createHttpTransport, type SaveTransport } from '../../src/app/sync/save/transport';
import { editorApi } from '../../src/app/api/annotations/editorApi';
import { fetchChanges } from '../../src/app/sync/live';
import { LiveClient, type LiveSocket } from '../../src/app/sync/live/client';
import { LiveImage } from '../../src/app/sync/live/liveImage';
import { EditorSession } from '../../src/app/editor-session/session';
import { ImageLoading } from '../../src/app/editor-session/imageLoading';
import type { OpeningHooks } from '../../src/app/editor-session/openImage';
import { fakeClock, harness, newIdb, settle, type FakeClock, type Harness } from '../support/saveTestkit';
import { roleHolder } from '../support/sessionTestkit';
// The project's one seeded random source (mulberry32).
import { prng } from '../../src/server/services/image-edit/pixels';
import { api, projectWithImage, startServer, type TestServer } from './harness';
import { joinAs } from './team-harness';
import { FAULTS, flakyNetwork, type Fault } from './support/flaky-network';

// The browser's session, per tab: each tab's requests run in its own async context.
const auth = vi.hoisted(() => ({ token: (): string | undefined => undefined }));
vi.mock('../../src/app/api/supabase', () => ({
  getConfig: () => ({ supabaseAnonKey: 'anon' }),
  loadConfig: async () => ({ supabaseAnonKey: 'anon' }),
  getSupabase: async () => ({
    auth: {
      getSession: async () => ({ data: { session: { access_token: auth.token() } } }),
      refreshSession: async () => ({ data: { session: {} }, error: null }),
    },
  }),
  onSessionRenewed: () => () => undefined,
}));

/** The image open in a person's editor: as the screen's useOpenImage joins ImageLoading and the live image. */
interface Open {
  live: LiveImage;
  loading: ImageLoading;
  /** The screen leaves the image. */
  close(): void;
  /** The page goes away: nothing of the screen runs any more (no detach, no save of it). */
  drop(): void;
}

interface Person {
  name: string;
  userId: string;
  token: string;
  idb: ReturnType<typeof newIdb>;
  tabId: string;
  h: Harness;
  editor: Editor;
  session: EditorSession;
  live: LiveClient;
  /** The live client's socket now (the last it made). */
  socket: WebSocket | null;
  offline: boolean;
  faults: Fault[];
  /** Save requests held in the network: `before` the server (it has not seen them yet) or after it (the answer). */
  held: { go: () => void; before: boolean }[];
  open: Open | null;
  made: number;
  lastVersion: number;
  /** The tab was closed: what it asked for still reaches the server, the answers go nowhere. */
  closed: boolean;
  /** Parts the session (EditorSession.start's function). */
  stop: () => void;
}

const context = new AsyncLocalStorage<Person>();
auth.token = () => context.getStore()?.token;

let server: TestServer;
let projectId: string;
let orgId: string;
let image: Image;
let people: { token: string; userId: string }[];
const seen = new Map<string, number>();
const count = (what: string, n = 1) => seen.set(what, (seen.get(what) ?? 0) + n);
/**
 * The save requests answered 200, by the version answered. A save that changes nothing keeps the
 * head and is answered with it, so a version answered to several bodies was made by one of them;
 * a body alone on two versions made both: a save applied twice.
 */
const answered = new Map<number, Set<string>>();
const trace: string[] = [];
const verbose = !!process.env.LIVE_CHAOS_VERBOSE;

/**
 * fetch as the tab whose request this is sees it: the server's origin, offline, and the fault
 * queued for its next save. Requests on their way (not held in the network) are `inflight`: the
 * clock waits for them between timers.
 */
const { fetch: tabFetch, inflight } = flakyNetwork<Person>({
  origin: () => server.url,
  tab: () => context.getStore(),
  closed: (p) => p.closed,
  offline: (p) => p.offline,
  nextFault: (p) => p.faults.shift(),
  hold: (p, before) => new Promise<void>((go) => p.held.push({ go, before })),
  onSaveAnswer: async (p, { url, init, fault, res }) => {
    const body = (await res.clone().json().catch(() => null)) as { rebased_from?: number; version?: number; code?: string } | null;
    if (res.status === 200 && !url.includes('batch') && body?.version !== undefined) {
      if (!answered.has(body.version)) answered.set(body.version, new Set());
      answered.get(body.version)!.add(`${p.name} ${String(init?.body)}`);
    }
    const sent = JSON.parse(String(init?.body)) as { base_version?: number; upserts: { id: string; bounding_box: { x: number; y: number; w: number; h: number } }[]; removed_ids: string[]; saves?: unknown[] };
    const one = (b: typeof sent) => `base ${b.base_version} up ${b.upserts.map((a) => `${a.id}@${box(a.bounding_box)}`).join(' ')} rm ${b.removed_ids.join(' ')}`;
    trace.push(`   ${p.name} ${fault ?? ''} ${url.replace(/.*annotations./, '')}${init?.keepalive ? ' keepalive' : ''}: ${sent.saves ? (sent.saves as (typeof sent)[]).map(one).join(' | ') : one(sent)} -> ${res.status} ${body?.version ?? body?.code ?? ''}${body?.rebased_from !== undefined ? ` rebased from ${body.rebased_from}` : ''}`);
    count(`save ${res.status}${body?.rebased_from !== undefined ? ' rebased' : ''}${init?.keepalive ? ' keepalive' : ''}`);
  },
});

/** Lets requests, socket messages, IndexedDB and promise chains finish (held requests stay held). */
async function quiet(): Promise<void> {
  for (let i = 0; i < 200; i++) {
    await settle(6);
    if (!inflight.size) {
      // Socket messages: a few turns of the event loop with I/O between them.
      for (let j = 0; j < 3; j++) await new Promise((r) => setImmediate(r));
      await settle(4);
      if (!inflight.size) return;
    }
    await Promise.race(inflight).catch(() => undefined);
  }
  throw new Error('requests never settled');
}

const box = (b: { x: number; y: number; w: number; h: number } | undefined) => (b ? `${b.x},${b.y},${b.w}x${b.h}` : '?');
/** A shape as JSON with its keys sorted at every level: the same shape is the same text. */
function stable(a: unknown): string {
  if (a === undefined || a === null) return 'absent';
  const sort = (v: unknown): unknown => (Array.isArray(v) ? v.map(sort) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort((v as Record<string, unknown>)[k])])) : v);
  return JSON.stringify(sort(a));
}
const short = (a: StoredAnnotation | null | undefined) => (a ? box(a.bounding_box as never) : 'absent');

beforeAll(async () => {
  vi.stubGlobal('fetch', tabFetch);
  server = await startServer({ SIGN_UPS_PER_HOUR: '100000' });
  const made = await projectWithImage(server, { classes: [{ name: 'car', type: 'box', color: '#FFADAD' }], width: 200, height: 200 });
  projectId = made.project.id;
  orgId = made.owner.org.id;
  image = made.image as unknown as Image;
  people = [made.owner, await joinAs(server, made.owner.token, made.owner.org.id, 'annotator'), await joinAs(server, made.owner.token, made.owner.org.id, 'admin')];
}, 120_000);

afterAll(async () => {
  vi.unstubAllGlobals();
  await server?.stop();
});

async function loadDoc(token: string): Promise<LoadDataResponse> {
  const res = await api(server.url, 'GET', `/api/v1/annotations/load-data/${image.id}?project_id=${projectId}`, { token });
  if (res.status !== 200) throw new Error(`load-data ${res.status}`);
  return res.body as LoadDataResponse;
}

async function runChaos(seed: number, rounds: number): Promise<void> {
  const clock: FakeClock = fakeClock(Date.now(), quiet);
  // The screen's console errors (an open that failed offline) go to the trace.
  const consoleError = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void trace.push(`   console.error ${args.map((a) => (a instanceof Error ? a.message : String(a))).join(' ')}`));
  // The server's clock is the tabs' (its saved_at against their edit times decides the later edit).
  const serverNow = server.built.ctx.now;
  server.built.ctx.now = () => new Date(clock.now());
  const everyone: Person[] = [];
  try {
    await play(seed, rounds, clock, everyone);
  } finally {
    server.built.ctx.now = serverNow;
    consoleError.mockRestore();
    for (const p of everyone) {
      p.open?.close();
      p.live.dispose();
      p.h.manager.dispose();
    }
  }
}

async function play(seed: number, rounds: number, clock: FakeClock, everyone: Person[]): Promise<void> {
  const rnd = prng(seed);
  const pick = <T,>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  trace.length = 0;
  answered.clear();
  seen.clear();
  const failures: string[] = [];
  /** Per shape: each person's last intent for it (null: deleted). */
  const intent = new Map<string, Map<string, StoredAnnotation | null>>();

  // Every seed starts from an empty document.
  const start = await loadDoc(people[0]!.token);
  if (start.annotations.length) {
    const cleared = await api(server.url, 'POST', '/api/v1/annotations/save-changes', { token: people[0]!.token, body: { image_id: image.id, project_id: projectId, image_filename: image.filename, base_version: start.version, upserts: [], removed_ids: (start.annotations as StoredAnnotation[]).map((a) => a.id) } });
    if (cleared.status !== 200) throw new Error(`clearing failed: ${cleared.status}`);
  }
  const firstVersion = (await loadDoc(people[0]!.token)).version;

  const openTabs = new Set<string>();
  const transportOf = (p: Person): SaveTransport => {
    const real = createHttpTransport();
    return {
      save: (body, opts) => context.run(p, () => real.save(body, opts)),
      saveBatch: (bodies, opts) => context.run(p, () => real.saveBatch(bodies, opts)),
      refreshAuth: () => context.run(p, () => real.refreshAuth()),
      load: (imageId, project) => context.run(p, () => real.load(imageId, project)),
    };
  };
  const wsUrl = `${server.url.replace(/^http/, 'ws')}${LIVE_PATH}`;

  /** A person's tab as the editor screen makes it: its save manager, live client and editor session, started. */
  const person = (name: string, who: { token: string; userId: string }, idb: ReturnType<typeof newIdb>, made = 0): Person => {
    const p = { name, userId: who.userId, token: who.token, idb, tabId: `${name}-${Math.floor(rnd() * 1e6)}`, socket: null, offline: false, faults: [], held: [], open: null, made, lastVersion: 0, closed: false } as unknown as Person;
    openTabs.add(p.tabId);
    p.h = harness(clock, { transport: transportOf(p) }, idb, p.userId, { tabId: p.tabId, liveTabs: async () => new Set(openTabs), log: (m, e) => trace.push(`   ${name} save: ${m} ${e instanceof Error ? e.message : ''}`) });
    p.live = new LiveClient({
      url: wsUrl,
      // Offline, the socket goes to a port nobody listens on: it fails and closes, as a browser's does.
      createSocket: (url) => {
        const ws = new WebSocket(p.offline ? 'ws://127.0.0.1:9' : url);
        p.socket = ws;
        count('socket opened');
        ws.on('message', (data: Buffer) => {
          const m = /"type":"(\w+)"/.exec(String(data).slice(0, 40));
          count(`live ${m?.[1] ?? '?'}`);
        });
        return ws as unknown as LiveSocket;
      },
      getToken: async () => p.token,
      onTokenChange: () => () => undefined,
      fetchChanges: (imageId, project, since) => context.run(p, () => fetchChanges(imageId, project, since)),
      setTimer: clock.setTimer,
      clearTimer: clock.clearTimer,
      random: rnd,
      log: (m) => trace.push(`   ${name} live: ${m}`),
    });
    p.editor = new Editor({ viewport: { width: 800, height: 600 }, image: { width: 200, height: 200 } });
    p.session = new EditorSession({
      projectId,
      orgId,
      role: roleHolder('annotator'),
      saver: p.h.manager,
      live: p.live,
      editor: p.editor,
      segmentation: { warmup: async () => ({}), health: async () => ({ status: 'healthy' }), process: async () => ({}), mask: async () => Promise.reject(new Error('no masks here')) },
      tell: (message) => trace.push(`   ${name} is told: ${message}`),
      recordCreated: async () => undefined,
      timers: { setTimer: clock.setTimer, clearTimer: clock.clearTimer },
    });
    p.stop = p.session.start();
    return p;
  };

  /**
   * Opens the image as the screen does (pages/annotate/hooks/useOpenImage.ts): the live image
   * watches it (LiveOpenImage.start), ImageLoading opens it (openImage: load-data, the save
   * manager's open, the document into the editor, the link attached), the session's documentReady
   * follows the load, and the document's arrival catches up (LiveOpenImage.setDocumentIn -> resync).
   * Copied from src/app/editor-session/liveOpen.ts rather than used, because its LiveImage takes
   * the page's timers: this one takes the fake clock's. Our selection is not sent (nothing checks it).
   */
  const openImage = (p: Person) => {
    const { session } = p;
    let reopen = () => undefined as void;
    const live = new LiveImage({ imageId: image.id, projectId, readOnly: false, link: session.link, saver: session.saver, live: session.live, documentReady: () => session.documentReady, reopen: () => reopen(), now: clock.now, timers: clock });
    const hooks = session.history.opening;
    const opening: OpeningHooks = {
      ...hooks,
      loadedVersion: (id, version) => {
        hooks.loadedVersion(id, version);
        if (id === image.id) live.loadedVersion(version);
      },
    };
    const stopWatching = live.start();
    const loading = new ImageLoading(image.id, {
      timers: clock,
      load: (img) => context.run(p, async () => ({ pixels: { width: 200, height: 200, source: undefined as never }, body: await editorApi.loadDataText(img.id, projectId) })),
    });
    let documentIn = false;
    let recovered = false;
    const follow = () => {
      if (loading.getState().recovered && !recovered) count('recovered from the device');
      recovered = !!loading.getState().recovered;
      const now = loading.view(image.id).documentIn;
      session.documentReady = now;
      if (now === documentIn) return;
      documentIn = now;
      if (now) live.resync();
    };
    const offFollow = loading.subscribe(follow);
    let leave = loading.open(session, image, false, opening);
    reopen = () => {
      trace.push(`   ${p.name} reopens the image (the change log no longer reaches back)`);
      count('reopen');
      leave();
      leave = loading.open(session, image, false, opening);
    };
    p.open = {
      live,
      loading,
      close: () => {
        leave();
        offFollow();
        session.documentReady = false;
        stopWatching();
        loading.dispose();
        p.open = null;
      },
      drop: () => {
        offFollow();
        stopWatching();
        loading.dispose();
        p.open = null;
      },
    };
  };
  const ready = (p: Person) => !!p.open && p.open.loading.view(image.id).documentIn;

  // A, B and C are three people; A2 is a second tab of A's on the same device (IndexedDB).
  const idbA = newIdb();
  const A = person('A', people[0]!, idbA);
  const A2 = person('A2', people[0]!, idbA);
  const B = person('B', people[1]!, newIdb());
  const C = person('C', people[2]!, newIdb());
  everyone.push(A, B, C, A2);
  for (const p of everyone) openImage(p);
  await clock.advance(100);

  /** What the person's editor holds, as stored shapes by id. */
  const doc = (p: Person) => new Map(p.editor.getAnnotations().map((a) => [a.id, editorToStored(a)] as const));
  /** Runs a user's action on the editor; each shape it changed is the person's intent now. */
  const edit = (p: Person, what: string, action: () => void) => {
    const before = doc(p);
    action();
    const after = doc(p);
    const changed: string[] = [];
    for (const id of new Set([...before.keys(), ...after.keys()])) {
      if (stable(before.get(id)) === stable(after.get(id))) continue;
      changed.push(`${id}${after.has(id) ? `@${short(after.get(id))}` : ' gone'}`);
      if (!intent.has(id)) intent.set(id, new Map());
      intent.get(id)!.set(p.name, after.get(id) ?? null);
    }
    return `${what}${changed.length ? `: ${changed.join(' ')}` : ' (nothing changed)'}`;
  };
  const releaseHeld = (p: Person) => {
    const held = p.held.splice(0);
    for (const r of held) r.go();
    return held.length;
  };
  const own = (p: Person) => p.editor.getOrderedIds().filter((id) => id.startsWith(`${p.name.replace('2', '')}-`));
  const someShape = (p: Person, mineFirst: number) => {
    const mine = own(p);
    const pool = mine.length && rnd() < mineFirst ? mine : [...p.editor.getOrderedIds()];
    return pool.length ? pick(pool) : null;
  };

  for (let round = 0; round < rounds; round++) {
    const p = pick(everyone);
    const r = rnd();
    let what: string;
    if (!p.open) {
      what = 'opens the image';
      openImage(p);
    } else if (p.open.loading.getState().load.status === 'error') {
      what = 'sees the image fail to open, and leaves it';
      p.open.close();
      // Mostly they find they are offline, and come back.
      if (p.offline && rnd() < 0.6) {
        what += '; comes back online';
        p.offline = false;
        p.h.online();
      }
    } else if (!ready(p)) {
      what = 'waits for the image';
    } else if (r < 0.2) {
      const id = `${p.name.replace('2', '')}-${p.name}.${++p.made}`;
      const a: EditorAnnotation = { id, type: 'box', class: 'car', x: int(0, 170), y: int(0, 170), width: int(10, 30), height: int(10, 30), attributes: [] };
      what = edit(p, 'draws a box', () => p.editor.execute('create', { annotation: a }));
    } else if (r < 0.36) {
      const id = someShape(p, 0.5);
      if (!id) continue;
      what = edit(p, `moves ${id}`, () => p.editor.execute('move', { ids: [id], dx: int(-20, 20), dy: int(-20, 20) }));
    } else if (r < 0.44) {
      const id = someShape(p, 0.7);
      if (!id) continue;
      what = edit(p, `resizes ${id}`, () => p.editor.execute('resize-box', { id, rect: { x: int(0, 170), y: int(0, 170), width: int(10, 30), height: int(10, 30) } }));
    } else if (r < 0.5) {
      const id = someShape(p, 0.8);
      if (!id) continue;
      what = edit(p, `deletes ${id}`, () => p.editor.execute('delete', { ids: [id] }));
    } else if (r < 0.57) {
      what = edit(p, 'undoes', () => p.session.undo());
    } else if (r < 0.61) {
      what = edit(p, 'redoes', () => p.session.redo());
    } else if (r < 0.615) {
      what = edit(p, 'removes all', () => p.session.removeAll(false));
    } else if (r < 0.66) {
      what = `has its socket drop${p.socket ? '' : ' (none open)'}`;
      p.socket?.terminate();
    } else if (r < 0.77) {
      const f = pick(FAULTS);
      what = `gets a network fault on its next save: ${f}`;
      p.faults.push(f);
    } else if (r < 0.81) {
      what = `has ${releaseHeld(p)} held request(s) go through`;
    } else if (r < 0.86) {
      if (!p.offline) {
        what = 'goes offline';
        p.offline = true;
        p.socket?.terminate();
      } else {
        what = 'comes back online';
        p.offline = false;
        p.h.online();
      }
    } else if (r < 0.88) {
      const again = rnd() < 0.7;
      what = `closes the image${again ? ' and opens it again' : ''}`;
      p.open.close();
      if (again) openImage(p);
    } else if (r < 0.91) {
      // The tab closes (mostly after the page-hide save went out): its socket closes, nothing of
      // it runs any more, its requests not yet at the server are cancelled (a keepalive one goes
      // on), answers to it go nowhere. A new tab of the same person opens the image, mostly at once,
      // and takes in from IndexedDB what the closed one left.
      // The page's pagehide runs the session's handler: the link's gathered edits to the manager
      // (and its device store), and the keepalive save, which now and then does not go out (too
      // large, refused, offline). The device-store write begun then is let finish: whether a
      // browser finishes it as the page unloads is not sure, and an edit made within the link's
      // 150 ms before a tab closed offline is then on the device only (seed 41 lost a box drawn
      // just before when the store closed under that write). A crash, which runs nothing, is not played.
      const hide = rnd() < 0.7;
      what = `closes the tab${hide ? '' : ', its keepalive save not going out'}`;
      p.session.link.flush();
      if (hide) p.h.manager.flushOnPageHide();
      await quiet();
      p.stop();
      p.open?.drop();
      p.live.dispose();
      p.h.manager.dispose();
      p.closed = true;
      openTabs.delete(p.tabId);
      p.faults = [];
      // Held before the server: cancelled with the page (none of these is a keepalive one here: a
      // page-hide save goes with the faults queued for the tab, which a closed tab no longer has).
      p.held = p.held.filter((x) => !x.before);
      const q = person(p.name, { token: p.token, userId: p.userId }, p.idb, p.made);
      q.held = p.held;
      everyone[everyone.indexOf(p)] = q;
      if (rnd() < 0.8) openImage(q);
    } else {
      what = 'flushes (waits a moment)';
      p.session.link.flush();
    }
    trace.push(`${round} ${p.name} ${what}`);
    count(what.split(/[:(]/)[0]!.replace(/ [A-Z]-\S+/g, '').replace(/ \d+ /, ' n ').trim());
    // Now and then several people act within a moment (their saves and drafts cross).
    await clock.advance(rnd() < 0.4 ? int(0, 200) : int(0, 2500));
    for (const x of everyone) {
      const v = x.h.manager.version(image.id);
      if (v !== null && v < x.lastVersion) failures.push(`round ${round}: ${x.name}'s version went back from ${x.lastVersion} to ${v}`);
      if (v !== null) x.lastVersion = v;
    }
  }

  // The faults stop: held requests go through, everyone is online with the image open and saves;
  // the live clients reconnect by their own backoff.
  trace.push('--- faults stop');
  for (const p of everyone) {
    p.faults = [];
    if (p.offline) {
      p.offline = false;
      p.h.online();
    }
  }
  let head = await loadDoc(people[0]!.token);
  /** Waits (in `step` ms of the clock) until every tab has the image open, its socket up, nothing unsaved and the server's version; false if it never does. */
  const settleAll = async (step: number, max: number): Promise<boolean> => {
    for (let t = 0; t < max; t += step) {
      for (const p of everyone) {
        releaseHeld(p);
        if (p.open && p.open.loading.getState().load.status === 'error') p.open.close();
        if (!p.open) openImage(p);
        else if (ready(p)) {
          p.session.link.flush();
          void p.h.manager.flush();
        }
      }
      await clock.advance(step);
      head = await loadDoc(people[0]!.token);
      if (everyone.every((p) => ready(p) && !p.held.length && p.h.manager.status().unsavedImages === 0 && p.live.connected && p.h.manager.version(image.id) === head.version)) return true;
    }
    return false;
  };
  const unsettled = () => everyone.map((p) => `${p.name} never settled: ready ${ready(p)}, held ${p.held.length}, ${JSON.stringify(p.h.manager.status())}, socket ${p.live.connected ? 'connected' : 'down'}, version ${p.h.manager.version(image.id)} of ${head.version}`);
  if (!(await settleAll(1000, 120_000))) failures.push(...unsettled());
  // Last edits, everyone at once with the network sound: fresh drafts, and shapes several touch.
  trace.push('--- last edits');
  for (let i = 0; i < everyone.length * 2; i++) {
    const p = pick(everyone);
    const id = someShape(p, 0.3);
    const what = !id || rnd() < 0.3 ? edit(p, 'draws a box', () => p.editor.execute('create', { annotation: { id: `${p.name.replace('2', '')}-${p.name}.${++p.made}`, type: 'box', class: 'car', x: int(0, 170), y: int(0, 170), width: 12, height: 12, attributes: [] } })) : edit(p, `moves ${id}`, () => p.editor.execute('move', { ids: [id], dx: int(-9, 9), dy: int(-9, 9) }));
    trace.push(`last ${p.name} ${what}`);
    await clock.advance(int(0, 400));
  }
  const settled = await settleAll(250, 60_000);
  if (!settled) failures.push(...unsettled());
  trace.push(`--- settled (head ${head.version})`);
  const onServer = new Map((head.annotations as StoredAnnotation[]).map((a) => [a.id, a]));

  // (4) Drafts: every author's save has landed and nobody is away, so no shape is shown as
  // another person's unsaved draft any more.
  for (const p of everyone) {
    const drafts = p.open?.live.getState().presence.drafts ?? new Map<string, string>();
    for (const [id, by] of drafts) {
      const author = everyone.filter((x) => x.userId === by).map((x) => x.name).join('/');
      failures.push(`${p.name} still shows ${id} as ${author}'s draft after every save landed: ${p.name} shows ${short(doc(p).get(id))}, the server holds ${short(onServer.get(id))}`);
    }
  }
  // Presence: each tab sees everyone on the image.
  const userIds = [...new Set(everyone.map((p) => p.userId))].sort().join();
  for (const p of everyone) {
    const peers = [...new Set((p.open?.live.getState().peers ?? []).map((x) => x.user_id))].sort().join();
    if (peers !== userIds) failures.push(`${p.name} sees ${peers || 'nobody'} on the image; ${userIds} are there`);
  }
  // (1) Convergence, now and again once any draft left has ended by its timeout.
  const converged = (when: string) => {
    for (const p of everyone) {
      const mine = doc(p);
      const v = p.h.manager.version(image.id);
      if (v !== head.version) failures.push(`${when}: ${p.name}'s save manager is at version ${v}; the server at ${head.version}`);
      const drafts = p.open?.live.getState().presence.drafts ?? new Map<string, string>();
      for (const id of new Set([...mine.keys(), ...onServer.keys()])) {
        if (stable(mine.get(id)) === stable(onServer.get(id))) continue;
        const same = short(mine.get(id)) === short(onServer.get(id));
        failures.push(`${when}: ${p.name}'s editor holds ${id} as ${short(mine.get(id))}, the server ${short(onServer.get(id))}${drafts.has(id) ? ' (shown as a draft)' : ''}${same ? ` (other fields: ${stable(mine.get(id))} / ${stable(onServer.get(id))})` : ''}`);
      }
    }
  };
  if (settled) converged('settled');
  await clock.advance(LIVE_DRAFT_TIMEOUT_MS + LIVE_DRAFT_LEAVE_GRACE_MS);
  head = await loadDoc(people[0]!.token);
  onServer.clear();
  for (const a of head.annotations as StoredAnnotation[]) onServer.set(a.id, a);
  converged('drafts timed out');
  // (2) and (3): a shape one person touched is as they last left it; one several touched, as one of them left it.
  for (const [id, byPerson] of intent) {
    const got = stable(onServer.get(id));
    if ([...byPerson.values()].some((shape) => stable(shape) === got)) continue;
    const wanted = [...byPerson.entries()].map(([who, shape]) => `${who}: ${short(shape)}`);
    failures.push(`${id} is ${short(onServer.get(id))} on the server; ${byPerson.size === 1 ? 'its one editor left it' : 'its editors left it'} ${wanted.join(', ')}`);
  }
  for (const id of onServer.keys()) if (!intent.has(id)) failures.push(`${id} is on the server but nobody made it`);
  // (5) versions 1..head in the history; no save applied twice.
  const entries: HistoryResponse['entries'] = [];
  for (let before: number | undefined; ; ) {
    const res = await api(server.url, 'GET', `/api/v1/annotations/history/${image.id}?project_id=${projectId}&limit=200${before ? `&before=${before}` : ''}`, { token: people[0]!.token });
    const page = res.body as HistoryResponse;
    entries.push(...page.entries);
    if (page.entries.length < 200) break;
    before = page.entries.at(-1)!.version;
  }
  const mine = entries.filter((e) => e.version > firstVersion).sort((a, b) => a.version - b.version);
  if (mine.length !== head.version - firstVersion || mine.some((e, i) => e.version !== firstVersion + i + 1)) failures.push(`the history holds versions ${mine.map((e) => e.version).join(',')} up to ${head.version}`);
  const made = new Map<string, number[]>();
  for (const [version, bodies] of answered) if (bodies.size === 1) for (const b of bodies) made.set(b, [...(made.get(b) ?? []), version]);
  for (const [body, versions] of made) if (versions.length > 1) failures.push(`a save applied ${versions.length} times (versions ${versions.join(', ')}): ${body.slice(0, 300)}`);

  if (verbose) console.log(`seed ${seed}: head ${head.version}, ${onServer.size} shapes, ${JSON.stringify(Object.fromEntries([...seen].sort()))}`);
  if (failures.length) {
    console.log(`live-chaos seed ${seed}, ${rounds} rounds: ${failures.length} failure(s)\n${failures.join('\n')}\n--- trace${verbose ? '' : ' (last 120)'}\n${trace.slice(verbose ? 0 : -120).join('\n')}`);
  }
  expect(failures, `seed ${seed} (LIVE_CHAOS_SEEDS=${seed} LIVE_CHAOS_ROUNDS=${rounds} to run it again)`).toEqual([]);
}

const SEEDS = (process.env.LIVE_CHAOS_SEEDS ?? '20261201').split(',').map(Number);
const ROUNDS = Number(process.env.LIVE_CHAOS_ROUNDS ?? 80);

describe('three people (and a second tab) co-editing one image live through a failing network', () => {
  for (const seed of SEEDS) {
    it(`converge, lose nothing and leave no draft shown (seed ${seed}, ${ROUNDS} rounds)`, () => runChaos(seed, ROUNDS), 600_000);
  }
});
