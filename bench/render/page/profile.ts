// Frame-cost breakdown of Vellum's renderer (bench/render/profile.ts drives it): the Renderer on
// the page's main thread (same WebGL as the worker: SwiftShader in the GPU process), each part of
// a frame switched off in turn, over the same scripted camera path as the benchmark.
import { Editor, SceneTracker, type CameraState } from '../../../src/engine';
import { defaultClassColor, packScene, parseColor, splitDiff } from '../../../src/workers/pack';
import { Renderer } from '../../../src/workers/renderer';
import { benchScenes } from '../scenes';
import { cameraPath, VH, VW } from './path';

const q = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))]! : NaN;
};

type Parts = 'drawImage' | 'drawMask' | 'drawFill' | 'drawLine';
const PARTS: Parts[] = ['drawImage', 'drawMask', 'drawFill', 'drawLine'];

export async function benchProfile(sceneName: string, steps = 10, reps = 3, warm = true): Promise<Record<string, unknown>> {
  const scene = benchScenes[sceneName]!();
  scene.steps = steps;
  const stage = document.getElementById('stage')!;
  stage.replaceChildren();
  const canvas = document.createElement('canvas');
  canvas.width = VW;
  canvas.height = VH;
  stage.append(canvas);
  const editor = new Editor({ viewport: { width: VW, height: VH }, image: scene.image });
  await editor.loadAsync(scene.annotations);
  const r = new Renderer(canvas, { width: VW, height: VH, dpr: 1, tileSize: 512 }, 'main');
  const tracker = new SceneTracker(editor);
  const colorOf = (c: string) => parseColor(defaultClassColor(c));
  for (;;) {
    const diff = tracker.pull(500);
    for (const p of splitDiff(diff, 500)) if (p.items.length || p.reset) r.applyScene(packScene(p, p.items, colorOf));
    if (!diff.more) break;
  }
  await r.setImage({ kind: 'pattern', width: scene.image.width, height: scene.image.height });
  const path = cameraPath(scene);
  r.setCamera(path[0]!);
  await r.idle();
  await r.idle();
  if (!warm) {
    // cold: the benchmark's order (cell levels and tiles built as the path reaches them)
    r.measure = true;
    r.frameTimes.length = 0;
    const b0 = r.stats().buildMs;
    const per: string[] = [];
    for (const cam of path) {
      const before = r.stats().buildMs;
      r.setCamera(cam);
      await r.idle();
      per.push(`${r.frameTimes.map((x) => x.toFixed(1)).join('+')} (build ${(r.stats().buildMs - before).toFixed(1)})`);
      r.frameTimes.length = 0;
    }
    return { cold: per, buildMs: r.stats().buildMs - b0 };
  }
  // warm every camera (cell buffers per level, tiles)
  for (const cam of path) {
    r.setCamera(cam);
    await r.idle();
    await r.idle();
  }
  r.measure = true;
  const saved = Object.fromEntries(PARTS.map((p) => [p, (r as any)[p]]));
  const run = async (on: Parts[], pathHere: CameraState[] = path) => {
    for (const p of PARTS) (r as any)[p] = on.includes(p) ? saved[p] : () => undefined;
    const all: number[] = [];
    for (let k = 0; k < reps; k++) {
      r.frameTimes.length = 0;
      for (const cam of pathHere) {
        r.setCamera(cam);
        await r.idle();
      }
      all.push(...r.frameTimes);
    }
    return { med: +q(all, 0.5).toFixed(2), p95: +q(all, 0.95).toFixed(2), n: all.length, frames: r.frameTimes.map((x) => +x.toFixed(1)) };
  };
  const out: Record<string, unknown> = {};
  out.empty = await run([]);
  out.image = await run(['drawImage']);
  out.masks = await run(['drawMask']);
  out.fills = await run(['drawFill']);
  out.lines = await run(['drawLine']);
  out.full = await run(PARTS);
  out.stats = r.stats();
  // raw WebGL: clear + 1 px readback on a fresh context, no regl
  {
    const c2 = document.createElement('canvas');
    c2.width = VW;
    c2.height = VH;
    canvas.remove();
    stage.append(c2); // displayed, as the renderer's canvas is (its present is in the GPU process too)
    const gl = c2.getContext('webgl', { alpha: false, antialias: false, depth: false, stencil: false })!;
    const px = new Uint8Array(4);
    const ts: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now();
      gl.clearColor(0.1, 0.1, 0.2, 1);
      gl.clear(gl.COLOR_BUFFER_BIT);
      gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px);
      ts.push(performance.now() - t0);
      await new Promise((res) => requestAnimationFrame(res));
    }
    out.rawClearReadback = { med: +q(ts, 0.5).toFixed(2), p95: +q(ts, 0.95).toFixed(2) };
    gl.getExtension('WEBGL_lose_context')?.loseContext();
  }
  r.dispose();
  return out;
}
