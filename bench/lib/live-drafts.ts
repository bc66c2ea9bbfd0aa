// Part 3 of bench/live.bench.ts (issue 35 §1): drafts. One author and PEOPLE-1 others on one image,
// each the editor screen's live side headless: the app's LiveClient on a `ws` socket, a LiveImage
// (src/app/sync/live/liveImage.ts) on an engine Editor, its save link and save manager (fake
// IndexedDB). The author's manager saves over HTTP (save-changes, the app's outcomes), on the app's
// schedule (debounce 2 s, ceiling SAVE_MAX_WAIT_MS); the others' refuse to save (they never should).
// The author draws a box every DRAW_EVERY_MS with a user command (Editor.paste: undoable, seen by
// the save link as the user's edit), for SHAPES boxes. Measured, in one run:
//  - command -> each other person's Editor holding the box (the document the render worker draws
//    from; no GPU here), p50/p95 over every receiver and box;
//  - change -> save: the author's command to the answer of the save that carried the box;
//  - server CPU per relayed draft next to a save: the server processes' CPU (/proc) over DRAFT_PROBE
//    drafts sent alone, then over the same number of one-shape saves, with the same people joined
//    (on PostgreSQL the database's own work, in its backends, is not counted).
// With several server processes (PostgreSQL), the author is on the first and the others take the
// processes in turn from the second: with two, a draft crosses processes (vellum_live_peers).
// The clients run in this process too: their CPU competes with the measurement on a loaded machine.
import { IDBFactory } from 'fake-indexeddb';
import { api } from '../../tests/api/harness';
import { Editor, storedToEditor, type EditorAnnotation } from '../../src/engine';
import type { StoredAnnotation } from '../../src/contract/annotations';
import type { LiveClient } from '../../src/app/sync/live/client';
import { LiveImage } from '../../src/app/sync/live/liveImage';
import { createManager } from '../../src/app/sync/save/manager';
import { openIndexedDbStore } from '../../src/app/sync/save/store';
import { EditorSaveLink } from '../../src/app/sync/save/link';
import { outcomeOf, type SaveTransport } from '../../src/app/sync/save/transport';

export const DRAW_EVERY_MS = 1500;
const DRAFT_PROBE = 200;

export interface DraftDeps {
  appLiveClient: (base: string, token: string, log: (m: string) => void) => LiveClient;
  cpuMsOf: (pid: number) => number;
  load: () => [number, number, number];
  pct: (values: number[], p: number) => number;
  round: (x: number, d?: number) => number;
  sleep: (ms: number) => Promise<unknown>;
}

interface Person {
  token: string;
  userId: string;
}

export interface DraftRow {
  scenario: string;
  people: number;
  shapes: number;
  receipts: number;
  missing: number;
  draftP50Ms: number;
  draftP95Ms: number;
  draftMaxMs: number;
  changeToSaveP50Ms: number;
  changeToSaveP95Ms: number;
  changeToSaveMaxMs: number;
  saves: number;
  serverCpuMsPerDraft: number;
  serverCpuMsPerSave: number;
  peersSaved: number;
  loadBefore: [number, number, number];
  loadAfter: [number, number, number];
}

/** The app's save manager as a headless editor screen has it: fake IndexedDB, real timers, the app's debounce (2 s) and retries. */
export function headlessManager(transport: SaveTransport, userId: string, tabId: string, logs: string[]) {
  return createManager({
    transport,
    openStore: (id) => openIndexedDbStore(id, new IDBFactory()),
    currentUser: async () => userId,
    now: () => Date.now(),
    setTimer: (fn, ms) => setTimeout(fn, ms),
    clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
    onOnline: () => () => undefined,
    onAuthChange: () => () => undefined,
    tabId,
    debounceMs: 2000,
    maxRetries: 5,
    baseRetryMs: 1000,
    maxRetryMs: 30_000,
    log: (m) => logs.push(m),
  });
}

/** One person's editor on the image: Editor, save link, save manager, LiveImage; the author's saves go over HTTP. */
async function person(deps: DraftDeps, base: string, who: Person, projectId: string, image: { id: string; filename: string }, author: boolean) {
  const logs: string[] = [];
  /** Ids carried by each save, with when each save was answered (the author's change -> save). */
  const savedAt = new Map<string, number>();
  let saves = 0;
  let refusedSaves = 0;
  const transport: SaveTransport = {
    async save(body) {
      if (!author) {
        refusedSaves++;
        return { kind: 'refused', status: 400, message: 'only the author saves' };
      }
      const res = await fetch(`${base}/api/v1/annotations/save-changes`, { method: 'POST', headers: { authorization: `Bearer ${who.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const text = await res.text();
      const at = performance.now();
      if (res.status === 200) {
        saves++;
        for (const a of (body as { upserts?: StoredAnnotation[] }).upserts ?? []) if (!savedAt.has(a.id)) savedAt.set(a.id, at);
        return { kind: 'saved', res: JSON.parse(text) };
      }
      return outcomeOf(res.status, text);
    },
    saveBatch: async (bodies) => bodies.map(() => ({ kind: 'refused', status: 400, message: 'no batch here' }) as const),
    refreshAuth: async () => true,
    load: async () => null,
  };
  const manager = headlessManager(transport, who.userId, `bench-${who.userId}`, logs);
  const editor = new Editor({ viewport: { width: 1000, height: 800 }, image: { width: 1000, height: 800 } });
  const link = new EditorSaveLink(editor, manager, { log: (m) => logs.push(m) });
  const stopLink = link.start();
  const loaded = await api(base, 'GET', `/api/v1/annotations/load-data/${image.id}?project_id=${projectId}`, { token: who.token });
  if (loaded.status !== 200) throw new Error(`load-data: ${loaded.status}`);
  const ref = { imageId: image.id, projectId, imageFilename: image.filename };
  await link.load(loaded.body.annotations);
  await manager.open(ref, loaded.body);
  link.attach(ref);
  const live = deps.appLiveClient(base, who.token, (m) => logs.push(m));
  const image$ = new LiveImage({ imageId: image.id, projectId, readOnly: false, link, saver: manager, live, documentReady: () => true, reopen: () => logs.push('reopen asked') });
  /** When this editor first held each shape (performance.now()). */
  const heldAt = new Map<string, number>();
  const stopWatch = editor.subscribe((c) => {
    if (!c.document) return;
    const at = performance.now();
    for (const id of c.document.all ? editor.getOrderedIds() : c.document.ids) if (!heldAt.has(id) && editor.getAnnotation(id)) heldAt.set(id, at);
  });
  const connected = new Promise<void>((resolve) => live.onConnection((on) => on && resolve()));
  const stopImage = image$.start();
  await connected;
  return {
    editor,
    live,
    heldAt,
    savedAt,
    logs,
    saves: () => saves,
    refusedSaves: () => refusedSaves,
    async dispose() {
      await manager.flush().catch(() => undefined);
      stopImage();
      stopWatch();
      stopLink();
      live.dispose();
      manager.dispose();
    },
  };
}

const boxShape = (id: string, i: number): EditorAnnotation => storedToEditor({ id, name: 'car', bounding_box: { x: 20 + ((i * 37) % 900), y: 20 + ((i * 53) % 700), w: 30, h: 30 }, attributes: [] } as StoredAnnotation);

/** SHAPES boxes drawn every DRAW_EVERY_MS by the author with PEOPLE-1 others on the image, then the CPU probe. */
// Long because it sets up the people, runs the drawing, then the CPU probe on the same people, in one place for one row.
export async function draftRun(deps: DraftDeps, scenario: string, servers: { url: string; pid: number }[], people: Person[], projectId: string, image: { id: string; filename: string }, shapes: number): Promise<DraftRow> {
  const loadBefore = deps.load();
  const base = servers[0]!.url;
  const serversCpuMs = () => servers.reduce((ms, s) => ms + deps.cpuMsOf(s.pid), 0);
  const [authorWho, ...othersWho] = people;
  const author = await person(deps, base, authorWho!, projectId, image, true);
  const others = [];
  for (const [k, who] of othersWho.entries()) others.push(await person(deps, servers[(k + 1) % servers.length]!.url, who, projectId, image, false));
  await deps.sleep(500); // everyone joined
  const drawnAt = new Map<string, number>();
  for (let i = 0; i < shapes; i++) {
    const t = performance.now();
    const [id] = author.editor.paste([boxShape(`draft-${people.length}-${i}`, i)], 0); // fresh ids, as a paste makes
    if (!id) throw new Error('the paste made no shape');
    drawnAt.set(id, t);
    await deps.sleep(Math.max(0, t + DRAW_EVERY_MS - performance.now()));
  }
  // The last save: at most the ceiling after the last box, and its answer.
  const until = performance.now() + 15_000;
  while (author.savedAt.size < shapes && performance.now() < until) await deps.sleep(100);
  const receipts: number[] = [];
  let missing = 0;
  for (const o of others) {
    for (const [drawn, t] of drawnAt) {
      const at = o.heldAt.get(drawn);
      if (at === undefined) missing++;
      else receipts.push(at - t);
    }
  }
  const toSave = [...drawnAt].flatMap(([id, t]) => (author.savedAt.has(id) ? [author.savedAt.get(id)! - t] : []));

  // Server CPU: DRAFT_PROBE drafts alone (each relayed to every other person), then as many one-shape saves.
  const probeBox = (i: number) => ({ id: 'probe', name: 'car', bounding_box: { x: 10 + (i % 800), y: 10, w: 20, h: 20 }, attributes: [] }) as StoredAnnotation;
  await deps.sleep(300);
  let cpu0 = serversCpuMs();
  for (let i = 0; i < DRAFT_PROBE; i++) {
    author.live.sendDraft(image.id, 0, [probeBox(i)], []);
    await deps.sleep(55); // under the server's 20 a second
  }
  await deps.sleep(300);
  const draftCpu = serversCpuMs() - cpu0;
  const head = await api(base, 'GET', `/api/v1/annotations/load-data/${image.id}?project_id=${projectId}`, { token: authorWho!.token });
  let version = head.body.version as number;
  cpu0 = serversCpuMs();
  for (let i = 0; i < DRAFT_PROBE; i++) {
    const res = await api(base, 'POST', '/api/v1/annotations/save-changes', { token: authorWho!.token, body: { image_id: image.id, project_id: projectId, image_filename: image.filename, base_version: version, upserts: [probeBox(i)], removed_ids: [] } });
    if (res.status !== 200) throw new Error(`probe save ${i}: ${res.status}`);
    version = res.body.version;
    await deps.sleep(5);
  }
  await deps.sleep(300);
  const saveCpu = serversCpuMs() - cpu0;

  const peersSaved = others.reduce((n, o) => n + o.refusedSaves(), 0);
  await author.dispose();
  for (const o of others) await o.dispose();
  return {
    scenario,
    people: people.length,
    shapes,
    receipts: receipts.length,
    missing,
    draftP50Ms: deps.round(deps.pct(receipts, 50)),
    draftP95Ms: deps.round(deps.pct(receipts, 95)),
    draftMaxMs: deps.round(receipts.length ? Math.max(...receipts) : NaN),
    changeToSaveP50Ms: deps.round(deps.pct(toSave, 50)),
    changeToSaveP95Ms: deps.round(deps.pct(toSave, 95)),
    changeToSaveMaxMs: deps.round(toSave.length ? Math.max(...toSave) : NaN),
    saves: author.saves(),
    serverCpuMsPerDraft: deps.round(draftCpu / DRAFT_PROBE, 3),
    serverCpuMsPerSave: deps.round(saveCpu / DRAFT_PROBE, 3),
    peersSaved,
    loadBefore,
    loadAfter: deps.load(),
  };
}
