// Main-thread controller for the editor canvas. It subscribes to the Editor, turns its changes
// into small messages (packed scene diffs, view state, camera) and sends them to the render
// worker, which draws on the canvas through an OffscreenCanvas. Where workers cannot render
// (no OffscreenCanvas/WebGL in workers) the same Renderer runs on the main thread instead.
//
// During a pan or zoom the main thread posts only the camera (3 numbers).
import * as Comlink from 'comlink';
import { SceneTracker, type CameraState, type Editor, type ViewState } from '../engine';
import { defaultClassColor, packScene, parseColor, sceneTransferables, splitDiff } from './pack';
import type { ImageSourceMsg, PackedScene, RenderStats, RenderView, RendererOptions, TileLevel } from './protocol';
import type { RenderWorkerExposed } from './render.worker';
import { Renderer } from './renderer';

export type ImageSourceInput =
  | ImageBitmap
  | Blob
  | string
  | { pattern: { width: number; height: number } }
  | { tiles: { width: number; height: number; tileSize: number; levels: TileLevel[] } }
  | { none: { width: number; height: number } }
  | null;

export interface CreateRendererOptions {
  canvas: HTMLCanvasElement;
  editor: Editor;
  /** The image: an ImageBitmap (transferred to the worker: do not use it afterwards), a Blob, a URL, a generated pattern (benchmarks), or null. */
  imageSource?: ImageSourceInput;
  /** Class colour (CSS hex) for a class name; default: the palette colour picked from a hash of the name. */
  classColor?: (className: string) => string;
  /** 'auto' (default) uses the worker when the browser can render in workers. */
  mode?: 'auto' | 'worker' | 'main';
  /** Observe the canvas's CSS size and resize the drawing buffer (default true). */
  autoResize?: boolean;
  tileSize?: number;
  maxTiles?: number;
  maxTextureSize?: number;
  /** Upserts per posted message (keeps main-thread tasks short on load). */
  batchSize?: number;
}

export interface RendererHandle {
  readonly backend: 'worker' | 'main';
  /** Resolves when the renderer is initialised and the image source is open. */
  readonly ready: Promise<void>;
  /** CSS size of the canvas (and device pixel ratio, default window.devicePixelRatio). */
  resize(width: number, height: number, dpr?: number): void;
  setImage(source: ImageSourceInput): Promise<void>;
  /** Class colours changed: re-send the scene with the new colours. */
  refreshColors(): void;
  /** Resolves after everything sent so far is drawn and no tile or mask is still loading. */
  idle(): Promise<RenderStats>;
  stats(): Promise<RenderStats>;
  /** Benchmarks: finish the GPU in each frame and collect frame times. */
  setMeasure(on: boolean): Promise<void>;
  frameTimes(clear?: boolean): Promise<number[]>;
  dispose(): void;
}

/** True when this browser can run WebGL on an OffscreenCanvas (a proxy for "in a worker"). */
export function canRenderInWorker(canvas?: HTMLCanvasElement): boolean {
  try {
    if (typeof OffscreenCanvas === 'undefined' || typeof Worker === 'undefined') return false;
    if (canvas && typeof canvas.transferControlToOffscreen !== 'function') return false;
    return Boolean(new OffscreenCanvas(1, 1).getContext('webgl'));
  } catch {
    return false;
  }
}

interface Backend {
  setImage(s: ImageSourceMsg): Promise<void>;
  applyScene(s: PackedScene): void;
  setView(v: RenderView): void;
  setCamera(c: CameraState): void;
  resize(w: number, h: number, dpr: number): void;
  idle(): Promise<RenderStats>;
  stats(): Promise<RenderStats>;
  setMeasure(on: boolean): Promise<void>;
  frameTimes(clear: boolean): Promise<number[]>;
  dispose(): void;
}

function workerBackend(canvas: HTMLCanvasElement, options: RendererOptions): { backend: Backend; ready: Promise<void> } {
  const worker = new Worker(new URL('./render.worker.ts', import.meta.url), { type: 'module', name: 'vellum-render' });
  const remote = Comlink.wrap<RenderWorkerExposed>(worker);
  const offscreen = canvas.transferControlToOffscreen();
  const ready = remote.init(Comlink.transfer(offscreen, [offscreen]), options).then(() => undefined);
  const backend: Backend = {
    setImage: (s) => (s.kind === 'bitmap' ? remote.setImage(Comlink.transfer(s, [s.bitmap])) : remote.setImage(s)),
    applyScene: (s) => void remote.applyScene(Comlink.transfer(s, sceneTransferables(s))),
    setView: (v) => void remote.setView(v),
    setCamera: (c) => void remote.setCamera(c),
    resize: (w, h, dpr) => void remote.resize(w, h, dpr),
    idle: () => remote.idle(),
    stats: () => remote.stats(),
    setMeasure: (on) => remote.setMeasure(on),
    frameTimes: (clear) => remote.frameTimes(clear),
    dispose: () => {
      void remote.dispose().finally(() => worker.terminate());
      remote[Comlink.releaseProxy]();
    },
  };
  return { backend, ready };
}

function mainBackend(canvas: HTMLCanvasElement, options: RendererOptions): { backend: Backend; ready: Promise<void> } {
  const r = new Renderer(canvas, options, 'main');
  const backend: Backend = {
    setImage: (s) => r.setImage(s),
    applyScene: (s) => r.applyScene(s),
    setView: (v) => r.setView(v),
    setCamera: (c) => r.setCamera(c),
    resize: (w, h, dpr) => r.resize(w, h, dpr),
    idle: () => r.idle(),
    stats: async () => r.stats(),
    setMeasure: async (on) => {
      r.measure = on;
    },
    frameTimes: async (clear) => {
      const out = r.frameTimes.slice();
      if (clear) r.frameTimes.length = 0;
      return out;
    },
    dispose: () => r.dispose(),
  };
  return { backend, ready: Promise.resolve() };
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
  if ('tiles' in src) return { kind: 'tiles', ...src.tiles };
  return { kind: 'none', ...(src as { none: { width: number; height: number } }).none };
}

function flatDrawing(view: ViewState, colorOf: (cls: string) => number): RenderView['drawing'] {
  const d = view.drawing;
  if (!d) return null;
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
  };
  const useWorker = opts.mode === 'worker' || (opts.mode !== 'main' && canRenderInWorker(canvas));
  const { backend, ready: initReady } = useWorker ? workerBackend(canvas, options) : mainBackend(canvas, options);
  const colorCache = new Map<string, number>();
  const colorOf = (cls: string) => {
    let c = colorCache.get(cls);
    if (c === undefined) {
      c = parseColor((opts.classColor ?? defaultClassColor)(cls));
      colorCache.set(cls, c);
    }
    return c;
  };
  const batch = opts.batchSize ?? 2_000;
  let tracker = new SceneTracker(editor);
  let disposed = false;

  // Scene sync: a pull of at most `batch` shapes per task, each packed and posted in its own
  // task, so loading 100k shapes never blocks the main thread for long.
  let syncScheduled = false;
  let resetting = false;
  let sending: Promise<void> = Promise.resolve();
  const sync = () => {
    syncScheduled = false;
    if (disposed) return;
    const diff = tracker.pull(batch);
    if (diff.more) {
      syncScheduled = true;
      setTimeout(sync, 0);
    }
    if (diff.reset) resetting = true;
    if (resetting && !diff.more) {
      // the whole scene is out: build the engine's hit-test index in slices meanwhile
      resetting = false;
      const warm = () => {
        if (!disposed && !editor.prepareIndex(8)) setTimeout(warm, 0);
      };
      setTimeout(warm, 0);
    }
    if (!diff.reset && !diff.upserts.length && !diff.removed.length) return;
    const parts = splitDiff(diff, batch);
    sending = sending.then(async () => {
      for (let i = 0; i < parts.length; i++) {
        if (disposed) return;
        if (i > 0) await new Promise((r) => setTimeout(r, 0));
        const p = parts[i]!;
        backend.applyScene(packScene(p, p.items, colorOf));
      }
    });
  };
  const scheduleSync = () => {
    if (syncScheduled) return;
    syncScheduled = true;
    queueMicrotask(sync);
  };
  const sendView = () => {
    const v = editor.getView();
    backend.setView({
      selected: [...v.selected],
      hidden: [...v.hidden],
      hovered: v.hovered,
      transparency: v.transparency,
      drawing: flatDrawing(v, colorOf),
      marquee: v.marquee,
    });
  };
  let cameraScheduled = false;
  const sendCamera = () => {
    cameraScheduled = false;
    if (!disposed) backend.setCamera(editor.getCamera());
  };
  const unsubscribe = editor.subscribe((c) => {
    if (c.document) scheduleSync();
    if (c.view) sendView();
    if (c.camera && !cameraScheduled) {
      cameraScheduled = true;
      queueMicrotask(sendCamera);
    }
  });

  let ready = initReady.then(() => backend.setImage(toSourceMsg(opts.imageSource, editor)));
  sync();
  sendView();
  backend.setCamera(editor.getCamera());

  let observer: ResizeObserver | null = null;
  if (opts.autoResize !== false && typeof ResizeObserver !== 'undefined') {
    observer = new ResizeObserver((entries) => {
      const box = entries[0]?.contentRect;
      if (box && box.width > 0 && box.height > 0) backend.resize(box.width, box.height, devicePixelRatio || 1);
    });
    observer.observe(canvas);
  }

  return {
    backend: useWorker ? 'worker' : 'main',
    get ready() {
      return ready;
    },
    resize: (w, h, dpr = devicePixelRatio || 1) => backend.resize(w, h, dpr),
    setImage(source) {
      ready = ready.then(() => backend.setImage(toSourceMsg(source, editor)));
      return ready;
    },
    refreshColors() {
      colorCache.clear();
      tracker.dispose();
      tracker = new SceneTracker(editor);
      scheduleSync();
    },
    async idle() {
      await ready;
      while (syncScheduled && !disposed) await new Promise((r) => setTimeout(r, 4));
      await sending;
      return backend.idle();
    },
    stats: () => backend.stats(),
    setMeasure: (on) => backend.setMeasure(on),
    frameTimes: (clear = false) => backend.frameTimes(clear),
    dispose() {
      if (disposed) return;
      disposed = true;
      observer?.disconnect();
      unsubscribe();
      tracker.dispose();
      backend.dispose();
    },
  };
}
