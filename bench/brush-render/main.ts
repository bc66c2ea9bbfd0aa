// Brush benchmark page (bench/brush-render.bench.ts opens it in headless Chromium): the editor
// and the render worker as the editor screen has them, a 4096 x 4096 image with one mask (a disc
// of radius 1500), and a stroke of the eraser or the brush through Editor pointer events, one
// move at a time. After each move it waits for the worker to draw and collects, in the worker,
// the scene update's time (the mask's changed columns decoded and uploaded) and the frame's
// (measured: it ends with a 1 px readPixels, so the GPU's work, uploads included, is in it).
import { Editor } from '../../src/engine';
import { loadKernels } from '../../src/kernels';
import { createRenderer } from '../../src/workers/render-client';

const SIZE = 4096;

interface Run {
  moves: number;
  /** Per move, in the worker: the scene update (ms) and the frames drawn after it (ms). */
  sceneMs: number[];
  frameMs: number[];
  /** Per move, on the main thread: the engine's pointer move (the kernel's paint included). */
  mainMs: number[];
  /** The same scene redrawn with nothing changed (a half-pixel pan per frame): the frame's floor. */
  staticFrameMs: number[];
  area: [number, number];
}

async function brushRun(mode: 'erase' | 'paint', moves: number, size: number): Promise<Run> {
  const k = await loadKernels();
  const counts = Array.from(k.paintStroke({ size: [SIZE, SIZE], counts: [SIZE * SIZE] }, [[2048, 2048]], 1500));
  const editor = new Editor({ viewport: { width: 800, height: 600 }, image: { width: SIZE, height: SIZE } });
  editor.load([{ id: 'm', type: 'segmentation', class: 'dog', rle: { size: [SIZE, SIZE], counts: k.countsToString(counts) }, ...k.bbox({ size: [SIZE, SIZE], counts }), attributes: [] }]);
  const canvas = document.createElement('canvas');
  document.getElementById('stage')!.append(canvas);
  const client = createRenderer({ canvas, editor, imageSource: { pattern: { width: SIZE, height: SIZE } }, mode: 'worker' });
  editor.masks.setOps(k); // (the editor screen: plugMaskKernels, which loads this same instance)
  editor.fitToScreen();
  await client.idle();
  editor.select(['m']);
  editor.setTool(mode === 'erase' ? 'eraser' : 'brush');
  for (let i = 0; i < Math.round(Math.log(size / 24) / Math.log(1.25)); i++) editor.keyDown({ key: ']' });
  const maskArea = () => {
    const a = editor.getAnnotation('m');
    return a?.type === 'segmentation' ? k.area(a.rle) : 0;
  };
  const area0 = maskArea();
  // Erase: a wavy cut through the disc; paint: from its edge outwards, past its box.
  const pts = Array.from({ length: moves + 1 }, (_, i) => {
    if (mode === 'erase') return [700 + i * (2700 / moves), 2048 + 400 * Math.sin(i / 25)] as const;
    const a = (i / moves) * Math.PI, r = 1500 + (i / moves) * 500;
    return [2048 + r * Math.cos(a), 2048 + r * Math.sin(a)] as const;
  });
  const screen = (p: readonly [number, number]) => {
    const [x, y] = editor.imageToScreen(p[0], p[1]);
    return { x, y, button: 0 };
  };
  await client.setMeasure(true);
  await client.frameTimes(true);
  const run: Run = { moves, sceneMs: [], frameMs: [], mainMs: [], staticFrameMs: [], area: [area0, 0] };
  const cam = editor.getCamera();
  for (let i = 0; i < 20; i++) {
    editor.setCamera({ ...cam, x: cam.x + (i % 2 ? 0.5 : 0) });
    await client.idle();
    run.staticFrameMs.push((await client.frameTimes(true)).reduce((a, b) => a + b, 0));
  }
  editor.setCamera(cam);
  await client.idle();
  await client.frameTimes(true);
  editor.pointerDown(screen(pts[0]!));
  await client.idle();
  await client.frameTimes(true);
  for (const p of pts.slice(1)) {
    const t0 = performance.now();
    editor.pointerMove(screen(p));
    run.mainMs.push(performance.now() - t0);
    run.sceneMs.push((await client.idle()).lastSceneMs);
    const frames = await client.frameTimes(true);
    run.frameMs.push(frames.reduce((a, b) => a + b, 0));
  }
  editor.pointerUp(screen(pts[pts.length - 1]!));
  await client.idle();
  run.area[1] = maskArea();
  client.dispose();
  return run;
}

Object.assign(window, { brushRun, benchReady: true });
