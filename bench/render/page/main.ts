// Render benchmark page. window.benchRun(scene, renderer) loads one generated scene into one
// renderer (Vellum's worker renderer, Konva, or an SVG DOM renderer), runs the scripted pan and
// zoom, and returns timings. The runner (bench/render/run.ts) opens a fresh page per run.
import Konva from 'konva';
import { Editor, type CameraState, type EditorAnnotation } from '../../../src/engine';
import { defaultClassColor } from '../../../src/workers/pack';
import { createRenderer } from '../../../src/workers/render-client';
import { benchScenes, type BenchScene } from '../../lib/render/scenes';
import { cameraPath, VH, VW } from './path';
import { benchProfile, glCosts } from './profile';
import { fusedProfile } from './fused-profile';
import { gestureShots } from './gesture-shots';

let heapAtStart: number | null = null;
const heapAfterLoad = (r: Result) => {
  const h = heap();
  r.heapDeltaBytes = h !== null && heapAtStart !== null ? h - heapAtStart : null;
};

interface Result {
  scene: string;
  renderer: string;
  shapes: number;
  loadMs: number;
  engineLoadMs?: number;
  longestLoadTaskMs: number;
  longTasks: number;
  frameMs: number[];
  mainMs: number[];
  intervalMs: number[];
  heapDeltaBytes: number | null;
  workerHeapBytes?: number | null;
  gpuBytes?: number;
  /** Vellum with ?perStep: the frames of each camera step (a step can draw more than one). */
  frameSteps?: string[];
  /** Vellum with ?perStep: the camera step of each frame in frameMs. */
  frameStep?: number[];
  /** Vellum: each frame's draw calls and bytes uploaded to the GPU (the worker's counters, measuring on). */
  draws?: number[];
  uploadBytes?: number[];
  /** Vellum: each frame's point primitives submitted (the dots pass, culled or drawn; work between frames counts in the next frame). */
  points?: number[];
  /** Konva: the layer.draw() call alone (recording; the raster after it is in frameMs). */
  drawCallMs?: number[];
  note?: string;
}

/** ?perStep: Vellum's frames are collected after each camera step (one more round trip each). */
const perStep = new URLSearchParams(location.search).has('perStep');
const nextFrame = () => new Promise<number>((r) => requestAnimationFrame(r));
const heap = () => (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? null;

function watchLongTasks(): () => { longest: number; count: number } {
  const entries: PerformanceEntry[] = [];
  let obs: PerformanceObserver | null = null;
  try {
    obs = new PerformanceObserver((l) => entries.push(...l.getEntries()));
    obs.observe({ type: 'longtask', buffered: false });
  } catch { /* not supported */ }
  return () => {
    if (obs) entries.push(...obs.takeRecords());
    obs?.disconnect();
    return { longest: entries.reduce((m, e) => Math.max(m, e.duration), 0), count: entries.length };
  };
}

function colorOf(cls: string): string {
  return defaultClassColor(cls);
}

function fillCss(hex: string, alpha: number): string {
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255},${(n >> 8) & 255},${n & 255},${alpha})`;
}

/** A small stand-in of the image for the baselines (they cannot hold a 20k x 20k bitmap). */
function overviewCanvas(W: number, H: number): HTMLCanvasElement {
  const k = Math.min(1, 2048 / Math.max(W, H));
  const c = document.createElement('canvas');
  c.width = Math.round(W * k);
  c.height = Math.round(H * k);
  const g = c.getContext('2d')!;
  const grad = g.createLinearGradient(0, 0, c.width, c.height);
  grad.addColorStop(0, '#5b6b7f');
  grad.addColorStop(1, '#a7b3c2');
  g.fillStyle = grad;
  g.fillRect(0, 0, c.width, c.height);
  return c;
}

function maskCanvas(a: Extract<EditorAnnotation, { type: 'segmentation' }>): HTMLCanvasElement {
  const [H] = a.rle.size;
  const counts = a.rle.counts as number[];
  const c = document.createElement('canvas');
  c.width = Math.max(1, a.width);
  c.height = Math.max(1, a.height);
  const g = c.getContext('2d')!;
  const img = g.createImageData(c.width, c.height);
  let pos = 0;
  for (let i = 0; i < counts.length; i++) {
    const len = counts[i]!;
    if (i % 2 === 1) {
      for (let p = pos; p < pos + len; p++) {
        const x = Math.floor(p / H) - a.x, y = (p % H) - a.y;
        if (x < 0 || y < 0 || x >= c.width || y >= c.height) continue;
        const o = (y * c.width + x) * 4;
        img.data[o] = 0x3b; img.data[o + 1] = 0x5b; img.data[o + 2] = 0xdb; img.data[o + 3] = 128;
      }
    }
    pos += len;
  }
  g.putImageData(img, 0, 0);
  return c;
}

async function runVellum(scene: BenchScene, stage: HTMLElement, r: Result): Promise<void> {
  const canvas = document.createElement('canvas');
  stage.append(canvas);
  // The long-task window covers the engine's load too (loadAsync: in slices, as the editor
  // screen loads a document), then the renderer's.
  const stopLong = watchLongTasks();
  const t0 = performance.now();
  const editor = new Editor({ viewport: { width: VW, height: VH }, image: scene.image });
  await editor.loadAsync(scene.annotations);
  r.engineLoadMs = performance.now() - t0;
  const path = cameraPath(scene);
  editor.setCamera(path[0]!);
  const t1 = performance.now();
  // ?impostors: zoomed-out cells drawn from impostor textures (off by default); ?loose: no compaction of the levels' buffers;
  // ?direct: no fused path (every shape drawn each frame); to compare in the same run
  const query = new URLSearchParams(location.search);
  const client = createRenderer({ canvas, editor, imageSource: { pattern: scene.image }, mode: 'worker', tileSize: 512, impostors: query.has('impostors'), compaction: !query.has('loose'), fused: !query.has('direct') });
  await client.idle();
  r.loadMs = performance.now() - t1;
  heapAfterLoad(r);
  const lt = stopLong();
  r.longestLoadTaskMs = lt.longest;
  r.longTasks = lt.count;
  await client.setMeasure(true);
  // one measured frame first, so GPU work still queued from the load is not billed to the pan
  editor.setCamera({ ...path[0]!, x: path[0]!.x + 0.5 });
  await client.idle();
  editor.setCamera(path[0]!);
  await client.idle();
  await client.frameTimes(true);
  await client.frameCounts(true);
  const marks = window as unknown as { benchMark?: (what: string) => Promise<void> };
  await marks.benchMark?.('path-start');
  // ?gesture: the zoom's steps come one an animation frame, as a wheel spun or a pinch gives them
  // (the renderer draws the latest when it can), and the path waits for the renderer once, at the
  // end; without it each step waits until the renderer is idle (a zoom step at rest, as a key press)
  const gesture = query.has('gesture'), half = Math.floor(path.length / 2);
  let last = await nextFrame();
  for (const [step, cam] of path.entries()) {
    if (step === half) await marks.benchMark?.('zoom-start'); // the pan's CPU apart from the zoom's
    const m0 = performance.now();
    editor.setCamera(cam);
    await Promise.resolve(); // the client posts the camera from a microtask
    r.mainMs.push(performance.now() - m0);
    if (gesture && step >= half && step < path.length - 1) {
      await nextFrame();
      continue;
    }
    await client.idle();
    const now = await nextFrame();
    r.intervalMs.push(now - last);
    last = now;
    if (perStep) {
      const ft = await client.frameTimes(true);
      r.frameMs.push(...ft);
      (r.frameSteps ??= []).push(ft.map((x) => x.toFixed(1)).join('+'));
      (r.frameStep ??= []).push(...ft.map(() => step));
    }
  }
  await marks.benchMark?.('path-end');
  if (!perStep) r.frameMs = await client.frameTimes(true);
  const counts = await client.frameCounts(true);
  r.draws = counts.draws;
  r.uploadBytes = counts.uploadBytes;
  r.points = (counts as { points?: number[] }).points;
  const st = await client.stats();
  r.gpuBytes = st.gpuBytes;
  r.workerHeapBytes = st.heapBytes;
  r.note = `mask decode ${st.maskDecodeMs.toFixed(0)} ms, kernels ${st.kernelsLoadMs.toFixed(0)} ms, image ${st.imageLoadMs.toFixed(0)} ms, frames ${st.frames}, scene ${st.lastSceneMs.toFixed(0)} ms, cell buffers ${st.buildMs.toFixed(0)} ms, cells ${st.chunks} (${st.culledChunks} culled last), compactions ${st.compactions}, fused textures ${st.fusedRenders} (${st.fusedScrolls} scrolled in a frame, ${st.fusedAhead} drawn ahead between frames, ${st.fusedAheadLate} of them finished in a frame), fused frames ${st.fusedFrames} (${st.fusedScaledFrames} scaled)`;
  client.dispose();
}

async function runKonva(scene: BenchScene, stage: HTMLElement, r: Result): Promise<void> {
  const div = document.createElement('div');
  stage.append(div);
  const stopLong = watchLongTasks();
  const t1 = performance.now();
  const kstage = new Konva.Stage({ container: div, width: VW, height: VH });
  const layer = new Konva.Layer({ listening: false });
  kstage.add(layer);
  layer.add(new Konva.Image({ image: overviewCanvas(scene.image.width, scene.image.height), x: 0, y: 0, width: scene.image.width, height: scene.image.height }));
  for (const a of scene.annotations) {
    const color = colorOf(a.class);
    const common = { fill: fillCss(color, 0.5), stroke: color, strokeWidth: 1.5, strokeScaleEnabled: false, perfectDrawEnabled: false, listening: false, shadowForStrokeEnabled: false };
    if (a.type === 'box') layer.add(new Konva.Rect({ x: a.x, y: a.y, width: a.width, height: a.height, ...common }));
    else if (a.type === 'polygon') layer.add(new Konva.Line({ points: a.points.flat(), closed: true, ...common }));
    else if (a.type === 'segmentation') layer.add(new Konva.Image({ image: maskCanvas(a), x: a.x, y: a.y, width: a.width, height: a.height, listening: false }));
  }
  const path = cameraPath(scene);
  // layer.draw() only records: Chromium's canvas 2D is accelerated (Skia over SwiftShader here)
  // and rasterizes later. A 1 px readback waits for the raster, as Vellum's frame ends with a
  // 1 px readPixels that waits for the GPU: both frames are "until the pixels exist".
  const ctx = (layer.getCanvas() as unknown as { getContext(): { _context: CanvasRenderingContext2D } }).getContext()._context;
  const apply = (c: CameraState) => {
    kstage.position({ x: c.x, y: c.y });
    kstage.scale({ x: c.scale, y: c.scale });
    const t0 = performance.now();
    layer.draw();
    const t1 = performance.now();
    ctx.getImageData(0, 0, 1, 1);
    return t1 - t0;
  };
  apply(path[0]!);
  await nextFrame();
  r.loadMs = performance.now() - t1;
  heapAfterLoad(r);
  const lt = stopLong();
  r.longestLoadTaskMs = lt.longest;
  r.longTasks = lt.count;
  let last = await nextFrame();
  for (const cam of path) {
    const m0 = performance.now();
    const call = apply(cam);
    const dt = performance.now() - m0;
    r.mainMs.push(dt);
    r.frameMs.push(dt);
    (r.drawCallMs ??= []).push(call);
    const now = await nextFrame();
    r.intervalMs.push(now - last);
    last = now;
  }
  kstage.destroy();
}

async function runSvg(scene: BenchScene, stage: HTMLElement, r: Result): Promise<void> {
  const NS = 'http://www.w3.org/2000/svg';
  const stopLong = watchLongTasks();
  const t1 = performance.now();
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('width', String(VW));
  svg.setAttribute('height', String(VH));
  const g = document.createElementNS(NS, 'g');
  svg.append(g);
  const img = document.createElementNS(NS, 'image');
  img.setAttribute('href', overviewCanvas(scene.image.width, scene.image.height).toDataURL('image/jpeg', 0.8));
  img.setAttribute('width', String(scene.image.width));
  img.setAttribute('height', String(scene.image.height));
  img.setAttribute('preserveAspectRatio', 'none');
  g.append(img);
  const frag = document.createDocumentFragment();
  for (const a of scene.annotations) {
    const color = colorOf(a.class);
    let el: SVGElement;
    if (a.type === 'box') {
      el = document.createElementNS(NS, 'rect');
      el.setAttribute('x', String(a.x)); el.setAttribute('y', String(a.y)); el.setAttribute('width', String(a.width)); el.setAttribute('height', String(a.height));
    } else if (a.type === 'polygon') {
      el = document.createElementNS(NS, 'polygon');
      el.setAttribute('points', a.points.map((p) => `${p[0].toFixed(1)},${p[1].toFixed(1)}`).join(' '));
    } else if (a.type === 'segmentation') {
      el = document.createElementNS(NS, 'image');
      el.setAttribute('href', maskCanvas(a).toDataURL());
      el.setAttribute('x', String(a.x)); el.setAttribute('y', String(a.y)); el.setAttribute('width', String(a.width)); el.setAttribute('height', String(a.height));
      frag.append(el);
      continue;
    } else continue;
    el.setAttribute('fill', fillCss(color, 0.5));
    el.setAttribute('stroke', color);
    el.setAttribute('stroke-width', '1.5');
    el.setAttribute('vector-effect', 'non-scaling-stroke');
    frag.append(el);
  }
  g.append(frag);
  stage.append(svg);
  const path = cameraPath(scene);
  const apply = (c: CameraState) => g.setAttribute('transform', `matrix(${c.scale} 0 0 ${c.scale} ${c.x} ${c.y})`);
  apply(path[0]!);
  await nextFrame();
  await nextFrame();
  r.loadMs = performance.now() - t1;
  heapAfterLoad(r);
  const lt = stopLong();
  r.longestLoadTaskMs = lt.longest;
  r.longTasks = lt.count;
  let last = await nextFrame();
  for (const cam of path) {
    const m0 = performance.now();
    apply(cam);
    r.mainMs.push(performance.now() - m0);
    const now = await nextFrame();
    // style, layout and paint run on the main thread between the two callbacks
    r.intervalMs.push(now - last);
    r.frameMs.push(now - last);
    last = now;
  }
  svg.remove();
}

async function benchRun(sceneName: string, renderer: 'vellum' | 'konva' | 'svg', steps?: number): Promise<Result> {
  const scene = benchScenes[sceneName]!();
  if (steps) scene.steps = steps;
  const stage = document.getElementById('stage')!;
  stage.replaceChildren();
  const r: Result = { scene: sceneName, renderer, shapes: scene.annotations.length, loadMs: 0, longestLoadTaskMs: 0, longTasks: 0, frameMs: [], mainMs: [], intervalMs: [], heapDeltaBytes: null };
  await nextFrame();
  heapAtStart = heap();
  if (renderer === 'vellum') await runVellum(scene, stage, r);
  else if (renderer === 'konva') await runKonva(scene, stage, r);
  else await runSvg(scene, stage, r);
  return r;
}

Object.assign(window, { benchRun, benchProfile, fusedProfile, gestureShots, glCosts, benchReady: true });
