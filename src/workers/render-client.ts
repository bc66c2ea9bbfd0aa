// Main-thread controller for the editor canvas. It subscribes to the Editor, turns its changes
// into small messages (packed scene diffs, view state, camera) and sends them to the render
// worker, which draws on the canvas through an OffscreenCanvas. The same Renderer can run on the
// main thread (`mode: 'main'`: the pixel tests compare the two), but not in the app: regl compiles
// its draw commands with `new Function`, which the page's Content-Security-Policy forbids (only
// the render worker may evaluate). Where workers cannot render, the canvas says so instead
// (`CanvasUnsupportedError`).
//
// During a pan or zoom the main thread posts only the camera (3 numbers).
import * as Comlink from 'comlink';
import { nextTask, SceneTracker, type CameraState, type Editor, type ViewState } from '../engine';
import { defaultClassColor, packScene, parseColor, sceneTransferables, splitDiff, type ScenePart } from './pack';
import type { FrameCounts, ImageSourceMsg, PackedScene, RenderDisplay, RenderIssue, RenderProposal, RenderStats, RenderView, RendererOptions, TileLevel } from './protocol';
import type { RenderWorkerExposed } from './render.worker';
import type { Renderer } from './renderer';
import { takeFrameCounts } from './gl-counter';
import { loadKernels, MASK_POLYGON_TOLERANCE } from '../kernels';

export type { RenderDisplay, RenderIssue } from './protocol';

export type ImageSourceInput =
  | ImageBitmap
  | Blob
  | string
  | { pattern: { width: number; height: number } }
  | { tiles: PyramidInput }
  | { none: { width: number; height: number } }
  | null;

/**
 * A server tile pyramid. Its URLs are signed for an hour at most: given `expiresAt` and `renew`
 * (which asks the server for the pyramid again), the renderer renews them five minutes before they
 * expire, for as long as the image is shown, so a day on one large image never meets a dead tile.
 */
export interface PyramidInput {
  width: number;
  height: number;
  tileSize: number;
  levels: TileLevel[];
  expiresAt?: string;
  renew?: () => Promise<{ levels: TileLevel[]; expiresAt: string } | null>;
}

/** When to renew signed tile URLs: five minutes before they expire (at least 30 s from now). */
export function renewDelay(expiresAt: string, now = Date.now()): number {
  const at = Date.parse(expiresAt);
  return Number.isFinite(at) ? Math.max(30_000, at - now - 5 * 60_000) : 30_000;
}

export interface CreateRendererOptions {
  canvas: HTMLCanvasElement;
  editor: Editor;
  /** The image: an ImageBitmap (transferred to the worker: do not use it afterwards), a Blob, a URL, a generated pattern (benchmarks), or null. */
  imageSource?: ImageSourceInput;
  /** Class colour (CSS hex) for a class name; default: the palette colour picked from a hash of the name. */
  classColor?: (className: string) => string;
  /** 'auto' (default): the worker where the browser can render in workers, else `CanvasUnsupportedError`; 'main' (tests): on this thread. */
  mode?: 'auto' | 'worker' | 'main';
  /** Observe the canvas's CSS size and resize the drawing buffer (default true). */
  autoResize?: boolean;
  tileSize?: number;
  maxTiles?: number;
  maxTextureSize?: number;
  /** RendererOptions.impostors (default false). */
  impostors?: boolean;
  /** RendererOptions.compaction (default true). */
  compaction?: boolean;
  /** RendererOptions.fused (default true). */
  fused?: boolean;
  /** Upserts per posted message (default 500; parts are posted in tasks of a few ms). */
  batchSize?: number;
}

/** Main-thread time per task spent pulling, packing and posting the scene. */
const SYNC_BUDGET_MS = 6;
/** Per idle slice of the hit-test index build after a new scene. */
const WARM_BUDGET_MS = 6;

export interface RendererHandle {
  /** Where it draws: 'none' where workers cannot render (each image's opening fails with CanvasUnsupportedError). */
  readonly backend: 'worker' | 'main' | 'none';
  /** Resolves when the renderer is initialised and the image source is open. */
  readonly ready: Promise<void>;
  /** CSS size of the canvas (and device pixel ratio, default window.devicePixelRatio). */
  resize(width: number, height: number, dpr?: number): void;
  setImage(source: ImageSourceInput): Promise<void>;
  /**
   * Opens the image of the document that will probably be loaded next with `key` (Editor's
   * historyKey: an image id) ahead, fitted to the view, so the swap to it is instant. Not for
   * ImageBitmap sources (they would be transferred).
   */
  preload(key: string, source: ImageSourceInput, size: { width: number; height: number }): void;
  /** New signed URLs for the tile pyramid being shown (they expire within the hour). */
  renewTiles(levels: TileLevel[]): void;
  /** Class colours changed: re-send the scene with the new colours. */
  refreshColors(): void;
  /** The annotator's display settings (labels, outline width, image adjustments). */
  setDisplay(display: RenderDisplay): void;
  /** The image's issue pins and regions (issue 29), drawn over the shapes. */
  setIssues(issues: RenderIssue[]): void;
  /** Resolves after everything sent so far is drawn and no tile or mask is still loading. */
  idle(): Promise<RenderStats>;
  stats(): Promise<RenderStats>;
  /** Benchmarks: finish the GPU in each frame and collect frame times. */
  setMeasure(on: boolean): Promise<void>;
  frameTimes(clear?: boolean): Promise<number[]>;
  /** Benchmarks (after setMeasure(true)): each frame's draw calls and bytes uploaded to the GPU. */
  frameCounts(clear?: boolean): Promise<FrameCounts>;
  dispose(): void;
}

/** The WebGL-on-OffscreenCanvas probe's answer, once asked (it does not change in a page). */
let offscreenWebgl: boolean | undefined;

/** True when this browser can run WebGL on an OffscreenCanvas (a proxy for "in a worker"). */
export function canRenderInWorker(canvas?: HTMLCanvasElement): boolean {
  try {
    if (typeof OffscreenCanvas === 'undefined' || typeof Worker === 'undefined') return false;
    if (canvas && typeof canvas.transferControlToOffscreen !== 'function') return false;
    // Creating a context is a synchronous round trip to the GPU process (tens of ms with
    // software WebGL): probe once per page, and release the probe's context at once.
    if (offscreenWebgl === undefined) {
      const gl = new OffscreenCanvas(1, 1).getContext('webgl');
      offscreenWebgl = Boolean(gl);
      gl?.getExtension('WEBGL_lose_context')?.loseContext();
    }
    return offscreenWebgl;
  } catch {
    return false;
  }
}

interface Backend {
  setImage(s: ImageSourceMsg, key?: string): Promise<number | void>;
  preload(key: string, s: ImageSourceMsg, camera: CameraState): void;
  hold(): void;
  renewTiles(levels: TileLevel[]): void;
  applyScene(s: PackedScene): void;
  setView(v: RenderView): void;
  setDisplay(d: RenderDisplay): void;
  setIssues(i: RenderIssue[]): void;
  setCamera(c: CameraState): void;
  resize(w: number, h: number, dpr: number): void;
  idle(): Promise<RenderStats>;
  stats(): Promise<RenderStats>;
  setMeasure(on: boolean): Promise<void>;
  frameTimes(clear: boolean): Promise<number[]>;
  frameCounts(clear: boolean): Promise<FrameCounts>;
  dispose(): void;
}

function workerBackend(canvas: HTMLCanvasElement, options: RendererOptions): { backend: Backend; ready: Promise<void> } {
  const worker = new Worker(new URL('./render.worker.ts', import.meta.url), { type: 'module', name: 'vellum-render' });
  const remote = Comlink.wrap<RenderWorkerExposed>(worker);
  const offscreen = canvas.transferControlToOffscreen();
  const ready = remote.init(Comlink.transfer(offscreen, [offscreen]), options).then(() => undefined);
  const backend: Backend = {
    setImage: (s, key) => (s.kind === 'bitmap' ? remote.setImage(Comlink.transfer(s, [s.bitmap]), key) : remote.setImage(s, key)),
    preload: (key, s, camera) => void remote.preload(key, s, camera),
    hold: () => void remote.hold(),
    renewTiles: (levels) => void remote.renewTiles(levels),
    applyScene: (s) => void remote.applyScene(Comlink.transfer(s, sceneTransferables(s))),
    setView: (v) => void remote.setView(v),
    setDisplay: (d) => void remote.setDisplay(d),
    setIssues: (i) => void remote.setIssues(i),
    setCamera: (c) => void remote.setCamera(c),
    resize: (w, h, dpr) => void remote.resize(w, h, dpr),
    idle: () => remote.idle(),
    stats: () => remote.stats(),
    setMeasure: (on) => remote.setMeasure(on),
    frameTimes: (clear) => remote.frameTimes(clear),
    frameCounts: (clear) => remote.frameCounts(clear),
    dispose: () => {
      void remote.dispose().finally(() => worker.terminate());
      remote[Comlink.releaseProxy]();
    },
  };
  return { backend, ready };
}

/** The browser cannot run WebGL in a worker (no OffscreenCanvas), so the editor cannot draw. */
export class CanvasUnsupportedError extends Error {
  constructor() {
    super('This browser cannot draw the editor canvas: it needs WebGL in a web worker (OffscreenCanvas). Open Vellum in a current version of Chrome, Edge, Firefox or Safari.');
    this.name = 'CanvasUnsupportedError';
  }
}

/** Where workers cannot render: nothing is drawn, and each image's opening fails with the reason. */
function unsupportedBackend(): { backend: Backend; ready: Promise<void> } {
  const none = () => undefined;
  const refused = () => Promise.reject(new CanvasUnsupportedError());
  const backend: Backend = {
    setImage: refused,
    preload: none,
    hold: none,
    renewTiles: none,
    applyScene: none,
    setView: none,
    setDisplay: none,
    setIssues: none,
    setCamera: none,
    resize: none,
    idle: refused,
    stats: refused,
    setMeasure: refused,
    frameTimes: refused,
    frameCounts: refused,
    dispose: none,
  };
  return { backend, ready: Promise.resolve() };
}

// The main-thread renderer (regl and the drawing code, about a third of the editor's JavaScript)
// is a chunk of its own, loaded only when asked for: the worker has its own copy. Calls wait for it
// and start in the order they were made, as the worker's messages do.
function mainBackend(canvas: HTMLCanvasElement, options: RendererOptions): { backend: Backend; ready: Promise<void> } {
  const made = import('./renderer').then(({ Renderer }) => new Renderer(canvas, options, 'main'));
  // Each call is a reaction to the one `made`: they run first to last, and none waits for another.
  const call = <T>(f: (r: Renderer) => T): Promise<Awaited<T>> => made.then(f) as Promise<Awaited<T>>;
  const send = (f: (r: Renderer) => void): void => {
    call(f).catch((err: unknown) => console.error('The editor canvas failed to draw.', err));
  };
  const backend: Backend = {
    setImage: (s, key) => call((r) => r.setImage(s, key)),
    preload: (key, s, camera) => send((r) => r.preload(key, s, camera)),
    hold: () => send((r) => r.hold()),
    renewTiles: (levels) => send((r) => r.renewTiles(levels)),
    applyScene: (s) => send((r) => r.applyScene(s)),
    setView: (v) => send((r) => r.setView(v)),
    setDisplay: (d) => send((r) => r.setDisplay(d)),
    setIssues: (i) => send((r) => r.setIssues(i)),
    setCamera: (c) => send((r) => r.setCamera(c)),
    resize: (w, h, dpr) => send((r) => r.resize(w, h, dpr)),
    idle: () => call((r) => r.idle()),
    stats: () => call((r) => r.stats()),
    setMeasure: (on) => call((r) => r.setMeasure(on)),
    frameCounts: (clear) => call((r) => takeFrameCounts(r, clear)),
    frameTimes: (clear) =>
      call((r) => {
        const out = r.frameTimes.slice();
        if (clear) r.frameTimes.length = 0;
        return out;
      }),
    dispose: () => send((r) => r.dispose()),
  };
  return { backend, ready: made.then(() => undefined) };
}

function toSourceMsg(src: ImageSourceInput | undefined, editor: Editor): ImageSourceMsg {
  if (src == null) {
    const size = editor.getImageSize();
    return { kind: 'none', width: size?.width ?? 0, height: size?.height ?? 0 };
  }
  if (typeof src === 'string') return { kind: 'url', url: new URL(src, location.href).href };
  if (typeof ImageBitmap !== 'undefined' && src instanceof ImageBitmap) return { kind: 'bitmap', bitmap: src };
  if (src instanceof Blob) return { kind: 'blob', blob: src };
  if ('pattern' in src) return { kind: 'pattern', ...src.pattern };
  if ('tiles' in src) {
    // Only the data goes to the worker (the renew callback stays here).
    const { width, height, tileSize, levels } = src.tiles;
    return { kind: 'tiles', width, height, tileSize, levels };
  }
  return { kind: 'none', ...(src as { none: { width: number; height: number } }).none };
}

function flatDrawing(view: ViewState, colorOf: (cls: string) => number): RenderView['drawing'] {
  const d = view.drawing;
  // (the brush's circle is the page's, at the pointer: EditorCanvas)
  // (the skeleton's next point is drawn as it is placed, and named at the pointer: EditorCanvas)
  if (!d || d.kind === 'auto' || d.kind === 'brush' || d.kind === 'skeleton') return null;
  const color = view.activeClass ? colorOf(view.activeClass) : 0x3b5bdb;
  if (d.kind === 'box') {
    const { x, y, width: w, height: h } = d.rect;
    return { closed: true, points: [x, y, x + w, y, x + w, y + h, x, y + h], color };
  }
  const points: number[] = [];
  for (const p of d.points) points.push(p[0], p[1]);
  if (d.cursor) points.push(d.cursor[0], d.cursor[1]);
  return { closed: d.kind === 'polygon' && points.length >= 6, points, color };
}

/** Auto-Annotate's preview as the renderer takes it. */
function flatProposal(view: ViewState): RenderProposal | null {
  const d = view.drawing;
  if (!d || d.kind !== 'auto') return null;
  const coords: number[] = [], ringLens: number[] = [], polyRings: number[] = [], points: number[] = [];
  for (const poly of d.mask?.polygons ?? []) {
    const rings = [poly.path, ...poly.holes].filter((r) => r.length >= 3);
    if (!rings.length || rings[0] !== poly.path) continue;
    polyRings.push(rings.length);
    for (const r of rings) {
      ringLens.push(r.length);
      for (const [x, y] of r) coords.push(x, y);
    }
  }
  for (const p of d.points) points.push(p.x, p.y, p.positive ? 1 : 0);
  return { coords, ringLens, polyRings, points, box: d.box };
}

/** Class colours as packed numbers, looked up once per class until `clear()`. */
function classColors(classColor: (className: string) => string) {
  const cache = new Map<string, number>();
  const colorOf = (cls: string) => {
    let c = cache.get(cls);
    if (c === undefined) {
      c = parseColor(classColor(cls));
      cache.set(cls, c);
    }
    return c;
  };
  return { colorOf, clear: () => cache.clear() };
}

/** The view state as the renderer takes it (sets as arrays, the drawing flattened). */
function renderView(v: ViewState, colorOf: (cls: string) => number): RenderView {
  return {
    selected: [...v.selected],
    hidden: [...v.hidden],
    hovered: v.hovered,
    transparency: v.transparency,
    drawing: flatDrawing(v, colorOf),
    marquee: v.marquee,
    proposal: flatProposal(v),
  };
}

/** The tile pyramid of an image source, if it is one. */
function tilesOf(source: ImageSourceInput | undefined): PyramidInput | null {
  return source && typeof source === 'object' && 'tiles' in source ? source.tiles : null;
}

/**
 * Scene sync: changes are pulled from the tracker and posted in packed parts of at most `part`
 * shapes, as many parts per task as fit in SYNC_BUDGET_MS, then the rest in the next task; so
 * loading 100k shapes (or moving all of them) never holds the main thread for long, whatever
 * the machine's speed. A whole new scene is pulled part by part, never read out in one go.
 */
/** Exported for its test (render-client.test.ts). */
export function sceneSync(editor: Editor, backend: Backend, colorOf: (cls: string) => number, part: number) {
  let tracker = new SceneTracker(editor);
  let disposed = false;
  let syncScheduled = false;
  let queue: ScenePart[] = [];
  let more = false;
  let resetting = false;
  // The skeleton edges each class's shapes were packed with (as text): definitions given later
  // (editor.skeletons.set, the project's classes changed) send the scene again.
  const packedEdges = new Map<string, string>();
  const edgesText = (cls: string) => editor.skeletons.of(cls)?.edges.join(';') ?? '';
  const edgesOf = (cls: string) => {
    // once per class (a change since is caught by skeletonsChanged, which sends all again)
    if (!packedEdges.has(cls)) packedEdges.set(cls, edgesText(cls));
    return editor.skeletons.of(cls)?.edges;
  };
  const warm = () => {
    // the whole scene is out: build the engine's hit-test index in slices meanwhile
    if (!disposed && !editor.prepareIndex(WARM_BUDGET_MS)) setTimeout(warm, 0);
  };
  const sync = () => {
    syncScheduled = false;
    if (disposed) return;
    const t0 = performance.now();
    for (;;) {
      let p = queue.shift();
      if (!p) {
        const diff = tracker.pull(part);
        more = Boolean(diff.more);
        if (diff.reset) resetting = true;
        if (diff.reset || diff.upserts.length || diff.removed.length) {
          queue = splitDiff(diff, part);
          p = queue.shift();
        }
      }
      if (p) backend.applyScene(packScene(p, p.items, colorOf, edgesOf));
      // Done only when a pull finds nothing more: a change made between two tasks of this sync
      // (its schedule() found one already scheduled) is pulled here, not left for the next change.
      else if (!more) break;
      if (performance.now() - t0 > SYNC_BUDGET_MS) {
        syncScheduled = true;
        void nextTask().then(sync);
        return;
      }
    }
    if (resetting) {
      resetting = false;
      setTimeout(warm, 0);
    }
  };
  const schedule = () => {
    if (syncScheduled) return;
    syncScheduled = true;
    queueMicrotask(sync);
  };
  const restart = () => {
    tracker.dispose();
    tracker = new SceneTracker(editor);
    queue = [];
    packedEdges.clear();
    schedule();
  };
  return {
    sync,
    schedule,
    /** Parts of a replaced scene: the tracker starts over. */
    dropQueued() {
      queue = [];
    },
    /** Send the whole scene again (new class colours). */
    restart,
    /** After a view change: the whole scene again if a skeleton class it was packed with has other edges now. */
    skeletonsChanged() {
      for (const [cls, was] of packedEdges) {
        if (edgesText(cls) !== was) return restart();
      }
    },
    /** True while parts are still to be posted. */
    get pending() {
      return syncScheduled && !disposed;
    },
    dispose() {
      disposed = true;
      tracker.dispose();
    },
  };
}

/** Renews the signed tile URLs of the pyramid being shown before they expire (PyramidInput):
 * `schedule(tiles)` for each image shown, `schedule(null)` to stop. */
function tileRenewal(renewTiles: (levels: TileLevel[]) => void) {
  let renewTimer: ReturnType<typeof setTimeout> | null = null;
  const schedule = (tiles: PyramidInput | null, expiresAt = tiles?.expiresAt) => {
    if (renewTimer !== null) clearTimeout(renewTimer);
    renewTimer = null;
    if (!tiles?.renew || !expiresAt) return;
    renewTimer = setTimeout(async () => {
      const next = await tiles.renew!().catch(() => null);
      if (renewTimer === null) return; // another image, or disposed, meanwhile
      if (!next) return schedule(tiles, new Date(Date.now() + 6 * 60_000).toISOString()); // try again in a minute
      renewTiles(next.levels);
      schedule(tiles, next.expiresAt);
    }, renewDelay(expiresAt));
  };
  return schedule;
}

/** Resizes the drawing buffer with the canvas's CSS size; null where ResizeObserver is missing. */
function observeResize(canvas: HTMLCanvasElement, backend: Backend): ResizeObserver | null {
  if (typeof ResizeObserver === 'undefined') return null;
  const observer = new ResizeObserver((entries) => {
    const box = entries[0]?.contentRect;
    if (box && box.width > 0 && box.height > 0) backend.resize(box.width, box.height, devicePixelRatio || 1);
  });
  observer.observe(canvas);
  return observer;
}

/** Keyed sources the client remembers (the worker keeps fewer opened: it opens the others again). */
const KEPT_SOURCES = 6;

/** The renderer drawing each editor (the last one created for it), for preloadFor(). */
const rendererOf = new WeakMap<Editor, RendererHandle>();

/**
 * Opens an image ahead in the renderer that draws `editor` (RendererHandle.preload), if there is
 * one: the screen that knows the next images is not the one that owns the canvas.
 */
export function preloadFor(editor: Editor, key: string, source: ImageSourceInput, size: { width: number; height: number }): void {
  rendererOf.get(editor)?.preload(key, source, size);
}

/** The issues last given for each editor, so a renderer created later draws them too. */
const issuesOf = new WeakMap<Editor, RenderIssue[]>();

/**
 * Draws `issues` as pins and regions on the canvas of the renderer drawing `editor` (the screen
 * that knows the image's issues is not the one that owns the canvas), now or once it is created.
 */
export function issuesFor(editor: Editor, issues: RenderIssue[]): void {
  issuesOf.set(editor, issues);
  rendererOf.get(editor)?.setIssues(issues);
}

/** The tolerance of Convert to polygons (the kernels' default for every mask-to-polygon conversion). */
export { MASK_POLYGON_TOLERANCE };

/**
 * Loads the wasm kernels on this thread and gives them to the editor's brush, eraser and mask
 * commands (editor.masks.setOps; the worker has its own instance for drawing). Returns the undo.
 */
export function plugMaskKernels(editor: Editor): () => void {
  let live = true;
  loadKernels().then(
    (k) => live && editor.masks.setOps(k),
    (err: unknown) => console.error('Mask kernels did not load: the brush and the mask commands are off.', err),
  );
  return () => {
    live = false;
    editor.masks.setOps(null);
  };
}

// Long because it is one closure: the backend, the scene sync, the image being shown and the
// swap ahead all share its state, and the handle's methods read it; pieces that stand alone
// (sceneSync, tileRenewal, observeResize, the backends) are already functions of their own.
export function createRenderer(opts: CreateRendererOptions): RendererHandle {
  const { canvas, editor } = opts;
  const dpr0 = typeof devicePixelRatio === 'number' ? devicePixelRatio : 1;
  const rect = canvas.getBoundingClientRect();
  const options: RendererOptions = {
    width: Math.max(1, rect.width || canvas.width),
    height: Math.max(1, rect.height || canvas.height),
    dpr: dpr0,
    tileSize: opts.tileSize,
    maxTiles: opts.maxTiles,
    maxTextureSize: opts.maxTextureSize,
    impostors: opts.impostors,
    compaction: opts.compaction,
    fused: opts.fused,
  };
  const mode = opts.mode === 'main' || opts.mode === 'worker' ? opts.mode : canRenderInWorker(canvas) ? 'worker' : 'none';
  const { backend, ready: initReady } = mode === 'worker' ? workerBackend(canvas, options) : mode === 'main' ? mainBackend(canvas, options) : unsupportedBackend();
  const colors = classColors((cls) => (opts.classColor ?? defaultClassColor)(cls));
  const scene = sceneSync(editor, backend, colors.colorOf, opts.batchSize ?? 500);
  let disposed = false;

  // The document the image shown belongs to (Editor.documentKey when setImage was last called):
  // another image's document coming in holds the canvas's last frame until its image is set and
  // in, so the two change in one frame (never the new shapes over the old image, or no image).
  let shownKey: string | null = editor.documentKey;
  /** The early swap to an image opened ahead, waiting for its camera to be posted. */
  let early: ReturnType<typeof setTimeout> | null = null;
  // Frames with a new image drawn: counted on the canvas (data-image-frames) and announced with a
  // 'vellum:image-frame' event (tests, the editor-switch benchmark).
  let imageFrames = 0;
  // detail.at: when the renderer drew the frame, in this page's performance.now() time.
  const imageFrame = (source: ImageSourceInput | undefined, drawnAt: number | void) => {
    if (disposed || source == null) return;
    canvas.dataset.imageFrames = String(++imageFrames);
    const at = drawnAt ? drawnAt - performance.timeOrigin : performance.now();
    canvas.dispatchEvent(new CustomEvent('vellum:image-frame', { bubbles: true, detail: { frames: imageFrames, at } }));
  };

  let cameraScheduled = false;
  const sendCamera = () => {
    cameraScheduled = false;
    if (!disposed) backend.setCamera(editor.getCamera());
  };
  const unsubscribe = editor.subscribe((c) => {
    if (c.document?.all) {
      scene.dropQueued();
      const key = editor.documentKey;
      if (key !== null && key !== shownKey) {
        // An image opened ahead for this document is shown as soon as the camera fitted to it is
        // posted (the next task), not when the screen gets round to setImage; else the frame holds.
        backend.hold();
        const source = opened.get(key);
        if (early !== null) clearTimeout(early);
        early = null;
        if (source !== undefined) {
          shownKey = key;
          early = setTimeout(() => {
            early = null;
            if (editor.documentKey === key) void show(source, key);
          }, 0);
        }
      }
    }
    if (c.document) scene.schedule();
    if (c.view) {
      scene.skeletonsChanged();
      backend.setView(renderView(editor.getView(), colors.colorOf));
    }
    if (c.camera && !cameraScheduled) {
      cameraScheduled = true;
      queueMicrotask(sendCamera);
    }
  });

  const first = initReady.then(() => backend.setImage(toSourceMsg(opts.imageSource, editor)));
  first.then((at) => imageFrame(opts.imageSource, at), () => undefined);
  let ready: Promise<void> = first.then(() => undefined);
  // A failed start reaches whoever waits on `ready` next (the screen's setImage, a task later), not
  // the page as an unhandled rejection.
  ready.catch(() => undefined);
  // Sources opened ahead by key (preload) and the ones shown with a key, most recent last.
  const opened = new Map<string, ImageSourceInput>();
  let shownSource: ImageSourceInput | undefined = opts.imageSource;
  let shown = ready;
  const show = (source: ImageSourceInput, key: string | undefined): Promise<void> => {
    scheduleRenewal(tilesOf(source));
    shownSource = source;
    if (key !== undefined && source != null && !(typeof ImageBitmap !== 'undefined' && source instanceof ImageBitmap)) {
      opened.delete(key);
      opened.set(key, source);
      while (opened.size > KEPT_SOURCES) opened.delete(opened.keys().next().value!);
    }
    const set = ready.then(() => backend.setImage(toSourceMsg(source, editor), key));
    set.then((at) => imageFrame(source, at), () => undefined);
    ready = set.then(() => undefined);
    shown = ready;
    return ready;
  };
  const renewTiles = (levels: TileLevel[]) => void ready.then(() => backend.renewTiles(levels));
  const scheduleRenewal = tileRenewal(renewTiles);
  scheduleRenewal(tilesOf(opts.imageSource));
  scene.sync();
  backend.setView(renderView(editor.getView(), colors.colorOf));
  backend.setCamera(editor.getCamera());

  const observer = opts.autoResize !== false ? observeResize(canvas, backend) : null;

  const handle: RendererHandle = {
    backend: mode,
    get ready() {
      return ready;
    },
    resize: (w, h, dpr = devicePixelRatio || 1) => backend.resize(w, h, dpr),
    setImage(source) {
      // The screen got here first: this call shows the image (once), not the early swap too.
      if (early !== null) clearTimeout(early);
      early = null;
      const key = editor.documentKey;
      // Shown already (opened ahead and swapped when its document came in).
      if (key !== null && key === shownKey && source === shownSource) return shown;
      shownKey = key;
      return show(source, key ?? undefined);
    },
    preload(key, source, size) {
      if (disposed || source == null || (typeof ImageBitmap !== 'undefined' && source instanceof ImageBitmap)) return;
      opened.delete(key);
      opened.set(key, source);
      while (opened.size > KEPT_SOURCES) opened.delete(opened.keys().next().value!);
      const msg = toSourceMsg(source, editor);
      const camera = editor.fitCamera(size);
      void ready.then(() => !disposed && backend.preload(key, msg, camera), () => undefined);
    },
    renewTiles,
    refreshColors() {
      colors.clear();
      scene.restart();
    },
    setDisplay: (d) => backend.setDisplay({ ...d }),
    setIssues: (i) => backend.setIssues(i.map((x) => ({ ...x }))),
    async idle() {
      await ready;
      while (scene.pending) await new Promise((r) => setTimeout(r, 4));
      return backend.idle();
    },
    stats: () => backend.stats(),
    setMeasure: (on) => backend.setMeasure(on),
    frameTimes: (clear = false) => backend.frameTimes(clear),
    frameCounts: (clear = false) => backend.frameCounts(clear),
    dispose() {
      if (disposed) return;
      disposed = true;
      if (early !== null) clearTimeout(early);
      scheduleRenewal(null);
      observer?.disconnect();
      unsubscribe();
      scene.dispose();
      backend.dispose();
      if (rendererOf.get(editor) === handle) rendererOf.delete(editor);
    },
  };
  rendererOf.set(editor, handle);
  const issues = issuesOf.get(editor);
  if (issues?.length) handle.setIssues(issues);
  return handle;
}
