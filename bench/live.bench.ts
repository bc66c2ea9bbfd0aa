// `node --import tsx bench/live.bench.ts [--quick] [--edits=<n>] [--sockets=<n>] [--seconds=<n>]`:
// live co-editing (issue 20). The servers run as child processes of this script (the same file with
// --live-server-child, started through tests/api/harness's startServer), the clients run here.
//
// 1. Latency: A saves one shape (moved or added) with save-changes; B is the app's own live client
//    (src/app/sync/live/client.ts on a `ws` socket) joined to the image, whose handler is what the
//    editor screen does (useLiveImage): the save link's applyRemoteChange, i.e. the save manager's
//    remote() and then Editor.applyRemote on a headless engine Editor. Measured: from A's HTTP
//    save-changes response arriving to B's Editor holding that version (negative: B held it before
//    A's answer arrived). EDITS edits one after the other, each waiting for B. The baseline is the
//    save's own HTTP round trip in the same run. Rows: PGlite in one server process; PostgreSQL with
//    two server processes, A's save on one and B's socket on the other (skipped with a message when
//    DATABASE_URL is not set).
// 2. Load: SOCKETS people (one socket each, the app's live client) on one image, each saving its own
//    shape every 2 s (staggered evenly) for SECONDS; the latency from each save's acknowledgement to
//    every other socket's receipt (the handler called with it), p50/p95 over all receivers, the
//    server processes' CPU (/proc/<pid>/stat; on PostgreSQL the postgres backends too) and the load
//    average. On PostgreSQL the sockets and their saves alternate between the two processes.
// 3. Drafts (issue 35, bench/lib/live-drafts.ts): the author draws a box every 1.5 s with 2 and
//    with 20 people on the image; command -> each other person's Editor holding it (target p95
//    < 150 ms), change -> save (target p95 <= 3.5 s), server CPU per relayed draft next to a save.
//    PGlite in one process; with DATABASE_URL, PostgreSQL with one process and with two (the
//    author on one, the others on the other: each draft crosses processes).
//    `--drafts-only` runs this part alone; `--draft-shapes=<n>` (20), `--draft-people=2,20`.
// Writes bench/results/live.json (bench/results/live-drafts.json with --drafts-only).
import { execSync, fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { api, onboardedUser, startServer, type TestServer } from '../tests/api/harness';
import { joinAs } from '../tests/api/team-harness';
import { createProject, png, uploadImage } from '../tests/fixtures/datasets';
import { Editor } from '../src/engine';
import type { StoredAnnotation } from '../src/contract/annotations';
import { LIVE_PATH } from '../src/contract/live';
import { LiveClient, type ApplyResult, type LiveChange, type LiveImageHandler, type LiveSocket } from '../src/app/sync/live/client';
import { conflictBackoffMs } from '../src/app/sync/save/scheduler';
import { EditorSaveLink } from '../src/app/sync/save/link';
import type { SaveTransport } from '../src/app/sync/save/transport';
import { draftRun, DRAW_EVERY_MS, headlessManager, type DraftRow } from './lib/live-drafts';

const here = path.dirname(fileURLToPath(import.meta.url));
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const quick = process.argv.includes('--quick');
const EDITS = Number(arg('edits') ?? (quick ? 50 : 200));
const WARMUP = 10;
/** Load runs, by sockets on the image (the last is the 50; the smaller one shows how it scales). */
const SOCKET_COUNTS = (arg('sockets') ?? (quick ? '10,20' : '10,50')).split(',').map(Number);
const SOCKETS = Math.max(...SOCKET_COUNTS);
const SECONDS = Number(arg('seconds') ?? (quick ? 10 : 30));
const SAVE_EVERY_MS = 2000;
const DRAFTS_ONLY = process.argv.includes('--drafts-only');
const DRAFT_SHAPES = Number(arg('draft-shapes') ?? 20);
const DRAFT_PEOPLE = (arg('draft-people') ?? '2,20').split(',').map(Number);
const SECRET = 'live-bench-secret-0123456789abcdef0123456789';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
function pct(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}
const box = (id: string, x: number, y = 10): StoredAnnotation => ({ id, name: 'car', bounding_box: { x, y, w: 20, h: 20 }, attributes: [] }) as StoredAnnotation;

// ------------------------------------------------------------------ the server processes

interface Session {
  token: string;
  userId: string;
}
interface Seed {
  owner: Session;
  users: Session[];
  projectId: string;
  latencyImage: { id: string; filename: string };
  loadImages: { id: string; filename: string }[];
}
interface ChildReady {
  url: string;
  pid: number;
  dbUrl: string | null;
  seed?: Seed;
}

async function runChild(): Promise<void> {
  const role = process.env.LIVE_BENCH_ROLE!;
  const users = Number(process.env.LIVE_BENCH_USERS ?? '2');
  let server: TestServer;
  if (role === 'secondary') {
    server = await startServer({ SUPABASE_JWT_SECRET: SECRET, DATABASE_URL: process.env.LIVE_BENCH_DB!, PUBLIC_URL: process.env.LIVE_BENCH_PUBLIC_URL! });
  } else {
    server = await startServer({ SUPABASE_JWT_SECRET: SECRET });
  }
  let seed: Seed | undefined;
  if (role === 'primary') {
    const owner = await onboardedUser(server);
    const project = await createProject(server, owner);
    const patched = await api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { classes: [{ name: 'car', type: 'box', color: '#FFADAD' }] } });
    if (patched.status !== 200) throw new Error(`classes: ${patched.status}`);
    const latencyImage = await uploadImage(server, owner, project.id, 'latency.png', await png(1000, 800));
    const loadImages: { id: string; filename: string }[] = [];
    for (let k = 0; k < Number(process.env.LIVE_BENCH_LOAD_IMAGES ?? '1'); k++) {
      const im = await uploadImage(server, owner, project.id, `load${k}.png`, await png(1000, 800));
      loadImages.push({ id: im.id, filename: im.filename });
    }
    const others: Session[] = [];
    // Signing up hashes a password: a few at a time.
    for (let i = 1; i < users; i += 8) {
      const batch = await Promise.all(Array.from({ length: Math.min(8, users - i) }, () => joinAs(server, owner.token, owner.org.id, 'annotator')));
      others.push(...batch.map((u) => ({ token: u.token, userId: u.userId })));
    }
    const me = { token: owner.token, userId: owner.userId };
    seed = { owner: me, users: [me, ...others], projectId: project.id, latencyImage: { id: latencyImage.id, filename: latencyImage.filename }, loadImages };
  }
  const db = server.config.database;
  const ready: ChildReady = { url: server.url, pid: process.pid, dbUrl: db.kind === 'postgres' ? db.url : null, seed };
  process.send!(ready);
  process.on('message', (m) => {
    if (m === 'stop') void server.stop().finally(() => process.exit(0));
  });
}

interface Child {
  proc: ChildProcess;
  ready: ChildReady;
}
function startChild(env: Record<string, string | undefined>): Promise<Child> {
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
  for (const [k, v] of Object.entries(childEnv)) if (v === undefined) delete childEnv[k];
  const proc = fork(fileURLToPath(import.meta.url), ['--live-server-child'], { execArgv: ['--import', 'tsx'], env: childEnv as NodeJS.ProcessEnv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    proc.once('message', (m) => resolve({ proc, ready: m as ChildReady }));
    proc.once('exit', (code) => reject(new Error(`the server process exited (${code}) before it was ready`)));
  });
}
async function stopChild(c: Child): Promise<void> {
  const exited = new Promise((r) => c.proc.once('exit', r));
  c.proc.send('stop');
  await Promise.race([exited, sleep(10_000)]);
  if (c.proc.exitCode === null) c.proc.kill('SIGKILL');
}

// ------------------------------------------------------------------ CPU of other processes

const CLK_TCK = (() => {
  try {
    return Number(execSync('getconf CLK_TCK').toString().trim()) || 100;
  } catch {
    return 100;
  }
})();
/** utime + stime of a process in ms (0 when it is gone). */
function cpuMsOf(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
  } catch {
    return 0;
  }
}
/** Every process named postgres (the cluster's backends), with its CPU so far. */
function postgresCpu(): Map<number, number> {
  const out = new Map<number, number>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== 'postgres') continue;
      out.set(Number(name), cpuMsOf(Number(name)));
    } catch {
      /* gone */
    }
  }
  return out;
}
function postgresDeltaMs(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, ms] of after) sum += ms - (before.get(pid) ?? 0); // a backend started meanwhile counts whole
  return sum;
}
const load = () => os.loadavg().map((l) => round(l, 2)) as [number, number, number];

// ------------------------------------------------------------------ clients

function createSocket(url: string): LiveSocket {
  return new WebSocket(url) as unknown as LiveSocket;
}

/** The app's live client with a fixed token; GET changes over HTTP for its catch-up. */
function appLiveClient(base: string, token: string, log: (m: string) => void): LiveClient {
  return new LiveClient({
    url: `${base.replace(/^http/, 'ws')}${LIVE_PATH}`,
    createSocket,
    getToken: async () => token,
    onTokenChange: () => () => undefined,
    fetchChanges: async (imageId, projectId, since) => {
      const res = await api(base, 'GET', `/api/v1/annotations/changes/${imageId}?since=${since}&project_id=${projectId}`, { token });
      if (res.status === 410) return 'expired';
      if (res.status !== 200) throw new Error(`GET changes: ${res.status}`);
      return { version: res.body.version, base_version: res.body.since, upserts: res.body.upserts, removed_ids: res.body.removed_ids, by: null };
    },
    setTimer: (fn, ms) => setTimeout(fn, ms),
    clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
    random: Math.random,
    log: (m) => log(m),
  });
}

interface SaveResult {
  status: number;
  version: number | null;
  /** performance.now() when the answer (body included) arrived. */
  ackAt: number;
  rttMs: number;
  conflictVersion: number | null;
  /** A 200 the server applied on a newer version than its stale base: the version it was applied on (`rebased_from`). */
  rebasedFrom: number | null;
}
async function saveChanges(base: string, token: string, body: Record<string, unknown>): Promise<SaveResult> {
  const t0 = performance.now();
  const res = await fetch(`${base}/api/v1/annotations/save-changes`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  const ackAt = performance.now();
  const parsed = JSON.parse(text) as { version?: number; rebased_from?: number; current?: { version: number }; changes?: { version: number } };
  return {
    status: res.status,
    version: res.status === 200 ? parsed.version! : null,
    ackAt,
    rttMs: ackAt - t0,
    conflictVersion: res.status === 409 ? (parsed.changes?.version ?? parsed.current?.version ?? null) : null,
    rebasedFrom: res.status === 200 ? (parsed.rebased_from ?? null) : null,
  };
}

/** B: the editor screen's side, headless: save manager (fake IndexedDB), save link, engine Editor, and the app's live client. */
async function editorClient(base: string, session: Session, projectId: string, image: { id: string; filename: string }) {
  const logs: string[] = [];
  const transport: SaveTransport = {
    save: async () => ({ kind: 'refused', status: 400, message: 'B does not save in this benchmark' }),
    saveBatch: async (bodies) => bodies.map(() => ({ kind: 'refused', status: 400, message: 'B does not save' }) as const),
    refreshAuth: async () => true,
    load: async () => null,
  };
  const manager = headlessManager(transport, session.userId, 'bench-b', logs);
  const editor = new Editor({ viewport: { width: 1000, height: 800 }, image: { width: 1000, height: 800 } });
  const link = new EditorSaveLink(editor, manager, { log: (m) => logs.push(m) });
  link.start();
  const loaded = await api(base, 'GET', `/api/v1/annotations/load-data/${image.id}?project_id=${projectId}`, { token: session.token });
  if (loaded.status !== 200) throw new Error(`load-data: ${loaded.status}`);
  const ref = { imageId: image.id, projectId, imageFilename: image.filename };
  await link.load(loaded.body.annotations);
  await manager.open(ref, loaded.body);
  link.attach(ref);

  /** When B's editor came to hold each version (performance.now()). */
  const heldAt = new Map<number, number>();
  const outcomes: Record<string, number> = {};
  let waiter: { version: number; resolve: () => void } | null = null;
  const handler: LiveImageHandler = {
    version: () => manager.version(image.id),
    apply(change: LiveChange): ApplyResult {
      const kind = link.applyRemoteChange(image.id, change).kind;
      const at = performance.now();
      outcomes[kind] = (outcomes[kind] ?? 0) + 1;
      if (kind === 'applied') {
        // A catch-up brings several versions at once: each is held from now.
        for (let v = change.base_version + 1; v <= change.version; v++) if (!heldAt.has(v)) heldAt.set(v, at);
        if (waiter && change.version >= waiter.version) {
          const w = waiter;
          waiter = null;
          w.resolve();
        }
      }
      return kind;
    },
    reload: () => logs.push('reload asked (history expired)'),
  };
  const live = appLiveClient(base, session.token, (m) => logs.push(m));
  const connected = new Promise<void>((resolve) => live.onConnection((on) => on && resolve()));
  live.watch(image.id, projectId, handler);
  await connected;
  await sleep(300); // joined (the join answer carries nothing to wait on here)
  return {
    editor,
    manager,
    heldAt,
    outcomes,
    logs,
    /** Resolves once B's editor holds `version` (or rejects after timeoutMs). */
    held(version: number, timeoutMs = 5000): Promise<void> {
      if ((manager.version(image.id) ?? -1) >= version) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`B did not hold version ${version} within ${timeoutMs} ms (at ${manager.version(image.id)}; ${logs.slice(-3).join('; ')})`)), timeoutMs);
        waiter = { version, resolve: () => (clearTimeout(timer), resolve()) };
      });
    },
    dispose() {
      live.dispose();
      manager.dispose();
    },
  };
}

// ------------------------------------------------------------------ 1. latency

interface LatencyRow {
  scenario: string;
  edits: number;
  heldP50Ms: number;
  heldP95Ms: number;
  heldMaxMs: number;
  /** B's editor held the version before A's answer arrived. */
  heldBeforeAck: number;
  /** From A sending the save to B holding it (what a person sees: the save's round trip included). */
  fromSendP50Ms: number;
  fromSendP95Ms: number;
  saveRttP50Ms: number;
  saveRttP95Ms: number;
  /** held p50 / save round trip p50. */
  ratioP50: number;
  outcomes: Record<string, number>;
  consistent: boolean;
  loadBefore: number[];
  loadAfter: number[];
}

async function latency(scenario: string, saveOn: string, socketOn: string, seed: Seed): Promise<LatencyRow> {
  const img = seed.latencyImage;
  const a = seed.owner;
  const b = seed.users[1]!;
  const loadBefore = load();
  const B = await editorClient(socketOn, b, seed.projectId, img);
  let version = B.manager.version(img.id)!;
  const shapes: { id: string; x: number }[] = [];
  const held: number[] = [];
  const rtts: number[] = [];
  const fromSend: number[] = [];
  let before = 0;
  for (let i = 0; i < WARMUP + EDITS; i++) {
    // Even edits add a shape (up to 60), the others move one.
    let shape: { id: string; x: number };
    if (i % 2 === 0 && shapes.length < 60) shapes.push((shape = { id: `s${i}`, x: 10 + (i % 900) }));
    else {
      shape = shapes[i % shapes.length]!;
      shape.x = (shape.x + 7) % 950;
    }
    const res = await saveChanges(saveOn, a.token, { image_id: img.id, project_id: seed.projectId, image_filename: img.filename, base_version: version, upserts: [box(shape.id, shape.x, 10 + (Number(shape.id.slice(1)) % 700))], removed_ids: [] });
    if (res.status !== 200) throw new Error(`save ${i}: ${res.status}`);
    version = res.version!;
    await B.held(version);
    const at = B.heldAt.get(version)!;
    if (i >= WARMUP) {
      held.push(at - res.ackAt);
      rtts.push(res.rttMs);
      fromSend.push(at - (res.ackAt - res.rttMs));
      if (at < res.ackAt) before++;
    }
    await sleep(5);
  }
  // B's editor holds what the server holds.
  const server = await api(saveOn, 'GET', `/api/v1/annotations/load-data/${img.id}?project_id=${seed.projectId}`, { token: a.token });
  const want = new Map((server.body.annotations as StoredAnnotation[]).map((s) => [s.id, (s as { bounding_box: { x: number } }).bounding_box.x]));
  const consistent = B.editor.getOrderedIds().length === want.size && B.editor.getOrderedIds().every((id) => (B.editor.getAnnotation(id) as { x?: number } | undefined)?.x === want.get(id));
  B.dispose();
  const p50 = pct(held, 50);
  return {
    scenario,
    edits: held.length,
    heldP50Ms: round(p50),
    heldP95Ms: round(pct(held, 95)),
    heldMaxMs: round(Math.max(...held)),
    heldBeforeAck: before,
    fromSendP50Ms: round(pct(fromSend, 50)),
    fromSendP95Ms: round(pct(fromSend, 95)),
    saveRttP50Ms: round(pct(rtts, 50)),
    saveRttP95Ms: round(pct(rtts, 95)),
    ratioP50: round(p50 / pct(rtts, 50), 2),
    outcomes: B.outcomes,
    consistent,
    loadBefore,
    loadAfter: load(),
  };
}

// ------------------------------------------------------------------ 2. load

interface LoadRow {
  scenario: string;
  sockets: number;
  seconds: number;
  /** Saves the sockets meant to make (one every 2 s each). */
  intended: number;
  saves: number;
  /** Saves made on a stale base that the server applied on the head (no 409: their shapes were untouched). */
  rebased: number;
  conflicts: number;
  /** Saves dropped after 5 conflicts in a row (the app's save manager stops there too: MAX_CONFLICT_ROUNDS). */
  gaveUp: number;
  failedSaves: number;
  receipts: number;
  missing: number;
  receiptP50Ms: number;
  receiptP95Ms: number;
  receiptMaxMs: number;
  /** Receipts before the author had its answer. */
  receiptBeforeAck: number;
  saveRttP50Ms: number;
  saveRttP95Ms: number;
  /** receipt p95 / save round trip p50 under the same load. */
  ratioP95: number;
  /** CPU of each server process over the run, % of one core. */
  serverCpuPct: number[];
  postgresCpuPct: number | null;
  /** This process (the SOCKETS clients), % of one core. */
  clientsCpuPct: number;
  catchUps: number;
  loadBefore: number[];
  loadAfter: number[];
  cpus: number;
}

// Long because one run's sockets, savers, receipts and CPU samplers share their counters until
// the row is written; split, each part would take and return all of them.
async function loadRun(scenario: string, servers: Child[], seed: Seed, sockets: number, image: { id: string; filename: string }): Promise<LoadRow> {
  const img = image;
  const users = seed.users.slice(0, sockets);
  if (users.length < sockets) throw new Error(`only ${users.length} users seeded`);
  const receipts = new Map<number, Map<number, number>>(); // version -> client -> at
  const acks = new Map<number, { at: number; author: number }>();
  let catchUps = 0;
  const logs: string[] = [];
  const clients = users.map((u, i) => {
    const base = servers[i % servers.length]!.ready.url;
    let held = -1;
    const handler: LiveImageHandler = {
      version: () => (held < 0 ? null : held),
      apply(change) {
        if (change.version <= held) return 'known';
        if (change.base_version !== held) return 'gap';
        const at = performance.now();
        if (change.version - change.base_version > 1 || change.by === null) catchUps++;
        for (let v = change.base_version + 1; v <= change.version; v++) {
          let m = receipts.get(v);
          if (!m) receipts.set(v, (m = new Map()));
          if (!m.has(i)) m.set(i, at);
        }
        held = change.version;
        return 'applied';
      },
      reload: () => logs.push('reload'),
    };
    const live = appLiveClient(base, u.token, (m) => logs.push(m));
    /**
     * The socket's own save answered: as the app's save manager, the client holds its version from
     * now, and a rebased answer brings the versions it skipped (received now, if not already).
     */
    const ownSaved = (version: number, rebasedFrom: number | null, at: number) => {
      if (version <= held) return;
      for (let v = held + 1; v <= (rebasedFrom ?? held); v++) {
        let m = receipts.get(v);
        if (!m) receipts.set(v, (m = new Map()));
        if (!m.has(i)) m.set(i, at);
      }
      held = version;
    };
    return { i, base, user: u, live, handler, setHeld: (v: number) => (held = v), held: () => held, ownSaved };
  });
  // Everyone holds the current version, then joins.
  const start = await api(servers[0]!.ready.url, 'GET', `/api/v1/annotations/load-data/${img.id}?project_id=${seed.projectId}`, { token: seed.owner.token });
  for (const c of clients) c.setHeld(start.body.version);
  await Promise.all(
    clients.map(async (c) => {
      const connected = new Promise<void>((resolve) => c.live.onConnection((on) => on && resolve()));
      c.live.watch(img.id, seed.projectId, c.handler);
      await connected;
    }),
  );
  await sleep(1500); // joins answered, presence settled

  const loadBefore = load();
  const cpu0 = servers.map((s) => cpuMsOf(s.ready.pid));
  const pg0 = servers[0]!.ready.dbUrl ? postgresCpu() : null;
  const me0 = process.cpuUsage();
  const t0 = performance.now();
  const rtts: number[] = [];
  let saves = 0;
  let rebased = 0;
  let conflicts = 0;
  let failed = 0;
  let intended = 0;
  let gaveUp = 0;
  const until = t0 + SECONDS * 1000;
  await Promise.all(
    clients.map(async (c) => {
      await sleep((c.i * SAVE_EVERY_MS) / clients.length);
      let tick = 0;
      let next = performance.now();
      while (next < until) {
        tick++;
        intended++;
        let base = c.held();
        for (let attempt = 0; ; attempt++) {
          if (attempt > 5) {
            gaveUp++;
            break;
          }
          const res = await saveChanges(c.base, c.user.token, { image_id: img.id, project_id: seed.projectId, image_filename: img.filename, base_version: base, upserts: [box(`u${c.i}`, (tick * 13) % 950, 10 + c.i * 12)], removed_ids: [] });
          rtts.push(res.rttMs);
          if (res.status === 200) {
            saves++;
            if (res.rebasedFrom !== null) rebased++;
            c.ownSaved(res.version!, res.rebasedFrom, res.ackAt);
            acks.set(res.version!, { at: res.ackAt, author: c.i });
            break;
          }
          if (res.status === 409 && res.conflictVersion !== null) {
            conflicts++;
            base = Math.max(res.conflictVersion, c.held());
            // As the app's save manager does: at once after one conflict, then a growing random wait.
            const wait = conflictBackoffMs(attempt + 1);
            if (wait > 0) await sleep(wait);
            continue;
          }
          failed++;
          break;
        }
        next += SAVE_EVERY_MS;
        const wait = next - performance.now();
        if (wait > 0) await sleep(wait);
      }
    }),
  );
  await sleep(2000); // the last changes reach everyone
  const wall = performance.now() - t0;
  const cpu1 = servers.map((s) => cpuMsOf(s.ready.pid));
  const pg1 = pg0 ? postgresCpu() : null;
  const me = process.cpuUsage(me0);
  const loadAfter = load();
  for (const c of clients) c.live.dispose();

  const lat: number[] = [];
  let missing = 0;
  let beforeAck = 0;
  for (const [version, ack] of acks) {
    const got = receipts.get(version);
    for (const c of clients) {
      if (c.i === ack.author) continue;
      const at = got?.get(c.i);
      if (at === undefined) {
        missing++;
        continue;
      }
      lat.push(at - ack.at);
      if (at < ack.at) beforeAck++;
    }
  }
  if (logs.length) console.log(`  (client log: ${logs.length} lines, e.g. ${logs.slice(0, 3).join(' | ')})`);
  return {
    scenario,
    sockets: clients.length,
    seconds: SECONDS,
    intended,
    saves,
    rebased,
    conflicts,
    gaveUp,
    failedSaves: failed,
    receipts: lat.length,
    missing,
    receiptP50Ms: round(pct(lat, 50)),
    receiptP95Ms: round(pct(lat, 95)),
    receiptMaxMs: round(Math.max(...lat)),
    receiptBeforeAck: beforeAck,
    saveRttP50Ms: round(pct(rtts, 50)),
    saveRttP95Ms: round(pct(rtts, 95)),
    ratioP95: round(pct(lat, 95) / pct(rtts, 50), 2),
    serverCpuPct: servers.map((_, k) => round(((cpu1[k]! - cpu0[k]!) / wall) * 100)),
    postgresCpuPct: pg0 && pg1 ? round((postgresDeltaMs(pg0, pg1) / wall) * 100) : null,
    clientsCpuPct: round(((me.user + me.system) / 1000 / wall) * 100),
    catchUps,
    loadBefore,
    loadAfter,
    cpus: os.cpus().length,
  };
}

// ------------------------------------------------------------------ main

function table(rows: Record<string, unknown>[]): void {
  if (rows.length === 0) return;
  const keys = Object.keys(rows[0]!);
  const cell = (v: unknown) => (Array.isArray(v) ? v.join('/') : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
  const widths = keys.map((k) => Math.max(k.length, ...rows.map((r) => cell(r[k]).length)));
  console.log(keys.map((k, i) => k.padEnd(widths[i]!)).join(' | '));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const r of rows) console.log(keys.map((k, i) => cell(r[k]).padEnd(widths[i]!)).join(' | '));
}

/** Prints a row as soon as it is measured. */
function progress<T>(row: T): T {
  console.log(`  ${JSON.stringify(row)}`);
  return row;
}

/** Part 3 alone or after the others: one PGlite server process, then (DATABASE_URL set) PostgreSQL with one and with two processes; a fresh image per row. */
async function draftsPart(): Promise<DraftRow[]> {
  const rows: DraftRow[] = [];
  const deps = { appLiveClient, cpuMsOf, load, pct, round, sleep };
  const images = DRAFT_PEOPLE.length * (process.env.DATABASE_URL ? 2 : 1);
  const runs = async (scenario: string, servers: Child[], offset: number) => {
    const seed = servers[0]!.ready.seed!;
    const at = servers.map((c) => ({ url: c.ready.url, pid: c.ready.pid }));
    for (const [k, n] of DRAFT_PEOPLE.entries()) rows.push(progress(await draftRun(deps, scenario, at, seed.users.slice(0, n), seed.projectId, seed.loadImages[offset + k]!, DRAFT_SHAPES)));
  };
  const one = await startChild({ LIVE_BENCH_ROLE: 'primary', LIVE_BENCH_USERS: String(Math.max(...DRAFT_PEOPLE)), LIVE_BENCH_LOAD_IMAGES: String(DRAFT_PEOPLE.length), DATABASE_URL: undefined });
  try {
    await runs('PGlite, one process', [one], 0);
  } finally {
    await stopChild(one);
  }
  if (process.env.DATABASE_URL) {
    const a = await startChild({ LIVE_BENCH_ROLE: 'primary', LIVE_BENCH_USERS: String(Math.max(...DRAFT_PEOPLE)), LIVE_BENCH_LOAD_IMAGES: String(images) });
    let b: Child | null = null;
    try {
      await runs('PostgreSQL, one process', [a], 0);
      b = await startChild({ LIVE_BENCH_ROLE: 'secondary', LIVE_BENCH_DB: a.ready.dbUrl!, LIVE_BENCH_PUBLIC_URL: a.ready.url });
      await runs('PostgreSQL, two processes (author on 1, others on 2)', [a, b], DRAFT_PEOPLE.length);
    } finally {
      if (b) await stopChild(b);
      await stopChild(a);
    }
  } else {
    console.log('PostgreSQL drafts rows skipped: DATABASE_URL is not set');
  }
  console.log(`\nDrafts: a box drawn every ${DRAW_EVERY_MS / 1000} s, ${DRAFT_SHAPES} boxes; command -> each other person's Editor holds it (target p95 < 150 ms); change -> its save's answer (target p95 <= 3.5 s); server processes' CPU per relayed draft vs per one-shape save`);
  table(
    rows.map((r) => ({
      scenario: r.scenario,
      people: r.people,
      receipts: r.receipts,
      missing: r.missing,
      draft_p50_ms: r.draftP50Ms,
      draft_p95_ms: r.draftP95Ms,
      draft_max_ms: r.draftMaxMs,
      save_p50_ms: r.changeToSaveP50Ms,
      save_p95_ms: r.changeToSaveP95Ms,
      save_max_ms: r.changeToSaveMaxMs,
      saves: r.saves,
      cpu_ms_per_draft: r.serverCpuMsPerDraft,
      cpu_ms_per_save: r.serverCpuMsPerSave,
      peers_saved: r.peersSaved,
      load_before: r.loadBefore,
      load_after: r.loadAfter,
    })),
  );
  return rows;
}

async function main(): Promise<void> {
  if (DRAFTS_ONLY) {
    console.log(`live drafts: ${DRAFT_PEOPLE.join(' and ')} people, ${DRAFT_SHAPES} boxes; ${os.cpus().length} CPUs, load ${load().join(' ')}`);
    const drafts = await draftsPart();
    const out = path.join(here, 'results/live-drafts.json');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version }, drafts }, null, 2));
    console.log(`\nwrote ${path.relative(process.cwd(), out)}`);
    return;
  }
  const latencyRows: LatencyRow[] = [];
  const loadRows: LoadRow[] = [];
  const skipped: string[] = [];
  const users = Math.max(SOCKETS, 2);
  console.log(`live co-editing: ${EDITS} edits, ${SOCKET_COUNTS.join(' and ')} sockets x ${SECONDS} s; ${os.cpus().length} CPUs, load ${load().join(' ')}`);

  // PGlite: one server process.
  {
    const one = await startChild({ LIVE_BENCH_ROLE: 'primary', LIVE_BENCH_USERS: String(users), LIVE_BENCH_LOAD_IMAGES: String(SOCKET_COUNTS.length), DATABASE_URL: undefined });
    try {
      const seed = one.ready.seed!;
      latencyRows.push(progress(await latency('PGlite, one process', one.ready.url, one.ready.url, seed)));
      for (const [k, n] of SOCKET_COUNTS.entries()) loadRows.push(progress(await loadRun('PGlite, one process', [one], seed, n, seed.loadImages[k]!)));
    } finally {
      await stopChild(one);
    }
  }

  // PostgreSQL: two server processes on one database.
  if (!process.env.DATABASE_URL) {
    const msg = 'PostgreSQL rows skipped: DATABASE_URL is not set (e.g. DATABASE_URL=postgres://user@127.0.0.1:5432/postgres)';
    skipped.push(msg);
    console.log(msg);
  } else {
    const a = await startChild({ LIVE_BENCH_ROLE: 'primary', LIVE_BENCH_USERS: String(users), LIVE_BENCH_LOAD_IMAGES: String(SOCKET_COUNTS.length) });
    let b: Child | null = null;
    try {
      b = await startChild({ LIVE_BENCH_ROLE: 'secondary', LIVE_BENCH_DB: a.ready.dbUrl!, LIVE_BENCH_PUBLIC_URL: a.ready.url });
      const seed = a.ready.seed!;
      latencyRows.push(progress(await latency('PostgreSQL, two processes (save on 1, socket on 2)', a.ready.url, b.ready.url, seed)));
      latencyRows.push(progress(await latency('PostgreSQL, one process (save and socket on 1)', a.ready.url, a.ready.url, seed)));
      for (const [k, n] of SOCKET_COUNTS.entries()) loadRows.push(progress(await loadRun('PostgreSQL, two processes (sockets and saves alternate)', [a, b], seed, n, seed.loadImages[k]!)));
    } finally {
      if (b) await stopChild(b);
      await stopChild(a);
    }
  }

  console.log(`\nLatency: A's save-changes answer -> B's engine Editor holds the change (${EDITS} edits, one at a time; baseline: the save's HTTP round trip)`);
  table(latencyRows.map((r) => ({ scenario: r.scenario, p50_ms: r.heldP50Ms, p95_ms: r.heldP95Ms, max_ms: r.heldMaxMs, before_ack: r.heldBeforeAck, from_send_p50_ms: r.fromSendP50Ms, from_send_p95_ms: r.fromSendP95Ms, save_rtt_p50_ms: r.saveRttP50Ms, 'p50/rtt': r.ratioP50, consistent: r.consistent, load_before: r.loadBefore, load_after: r.loadAfter })));
  console.log(`\nLoad: ${SOCKET_COUNTS.join(' / ')} sockets on one image, each saving every ${SAVE_EVERY_MS / 1000} s (staggered) for ${SECONDS} s: save answer -> every other socket's receipt (target p95 < 150 ms)`);
  table(
    loadRows.map((r) => ({
      scenario: r.scenario,
      sockets: r.sockets,
      'saves ok/meant': `${r.saves}/${r.intended}`,
      rebased: r.rebased,
      conflicts: r.conflicts,
      gave_up: r.gaveUp,
      receipts: r.receipts,
      missing: r.missing,
      p50_ms: r.receiptP50Ms,
      p95_ms: r.receiptP95Ms,
      max_ms: r.receiptMaxMs,
      save_rtt_p50_ms: r.saveRttP50Ms,
      'p95/rtt': r.ratioP95,
      server_cpu_pct: r.serverCpuPct,
      postgres_cpu_pct: r.postgresCpuPct ?? '-',
      clients_cpu_pct: r.clientsCpuPct,
      load_before: r.loadBefore,
      load_after: r.loadAfter,
    })),
  );
  const drafts = await draftsPart();
  const out = path.join(here, 'results/live.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version }, edits: EDITS, sockets: SOCKET_COUNTS, seconds: SECONDS, latency: latencyRows, load: loadRows, drafts, skipped }, null, 2));
  console.log(`\nwrote ${path.relative(process.cwd(), out)}`);
}

if (process.argv.includes('--live-server-child')) await runChild();
else await main();
