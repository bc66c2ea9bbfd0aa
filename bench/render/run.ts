// Render benchmark runner: node --import tsx bench/render/run.ts [scene,...] [renderer,...]
// Serves bench/render/page with Vite, runs each scene through Vellum (render worker), Konva and
// an SVG DOM renderer in a fresh headless Chromium page each, prints a table and writes
// bench/results/render.json. Under SwiftShader (no GPU) absolute numbers are CPU-bound.
// A frame is timed until its pixels exist: Vellum's ends with a 1 px readPixels, Konva's
// layer.draw() with a 1 px getImageData (its canvas is accelerated: draw() only records, and the
// raster ran after the timed call; the call alone is reported as drawCall); SVG's is the
// rAF-to-rAF interval. bench/render/profile.ts splits a Vellum frame into its passes.
// BENCH_VERBOSE=1 prints every frame; BENCH_PER_STEP=1 Vellum's frames grouped by camera step.
import fs from 'node:fs';
import path from 'node:path';
import { launch, repoRoot, startServer } from '../../tests/render/harness';
import { renderPagePath, warmRenderPage } from '../lib/render-page';

// Positional: scenes and renderers; flags (`npm run bench` passes its own on: --quick, --only=).
const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const quick = process.argv.includes('--quick');
const SCENES = (positional[0] ?? 'boxes1k,polygons10k,masks500,polygons100k').split(',');
const RENDERERS = (positional[1] ?? 'vellum,konva,svg').split(',');
// --quick (without named renderers): the baselines only on the small scenes. Konva and SVG on 10k
// and 100k polygons took 6 of the render run's 9 minutes at load 20; Vellum runs every scene.
const QUICK_BASELINE_SCENES = ['boxes1k', 'masks500'];
const RUNS = SCENES.flatMap((scene) => RENDERERS.filter((r) => !quick || positional[1] || r === 'vellum' || QUICK_BASELINE_SCENES.includes(scene)).map((renderer) => [scene, renderer] as const));
const RUN_TIMEOUT = Number(process.env.BENCH_RUN_TIMEOUT ?? 300_000);
/** Override every scene's number of camera steps (BENCH_STEPS; --quick takes 4). */
const STEPS = process.env.BENCH_STEPS ? Number(process.env.BENCH_STEPS) : quick ? 4 : undefined;
const out = path.join(repoRoot, 'bench/results/render.json');

interface Raw {
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
  drawCallMs?: number[];
  frameSteps?: string[];
  note?: string;
}

const q = (xs: number[], p: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))]!;
};

function summarise(r: Raw) {
  return {
    scene: r.scene,
    renderer: r.renderer,
    shapes: r.shapes,
    loadMs: r.loadMs,
    engineLoadMs: r.engineLoadMs ?? null,
    longestLoadTaskMs: r.longestLoadTaskMs,
    longTasks: r.longTasks,
    frames: r.frameMs.length,
    frameMedianMs: q(r.frameMs, 0.5),
    frameP95Ms: q(r.frameMs, 0.95),
    drawCallMedianMs: r.drawCallMs ? q(r.drawCallMs, 0.5) : null,
    drawCallP95Ms: r.drawCallMs ? q(r.drawCallMs, 0.95) : null,
    mainPerFrameMedianMs: q(r.mainMs, 0.5),
    mainPerFrameP95Ms: q(r.mainMs, 0.95),
    intervalMedianMs: q(r.intervalMs, 0.5),
    heapDeltaMB: r.heapDeltaBytes === null ? null : r.heapDeltaBytes / 2 ** 20,
    workerHeapMB: r.workerHeapBytes == null ? null : r.workerHeapBytes / 2 ** 20,
    gpuMB: r.gpuBytes == null ? null : r.gpuBytes / 2 ** 20,
    note: r.note ?? null,
  };
}

type Row = ReturnType<typeof summarise> | { scene: string; renderer: string; error: string };

const { server, url } = await startServer();
// BENCH_CHROMIUM_ARGS: extra Chromium flags, e.g. --disable-accelerated-2d-canvas to give Konva
// Skia's CPU raster (its fastest path on a machine without a GPU; WebGL is not affected).
const extraArgs = (process.env.BENCH_CHROMIUM_ARGS ?? '').split(' ').filter(Boolean);
const browser = await launch(['--enable-precise-memory-info', '--js-flags=--expose-gc', ...extraArgs]);
const rows: Row[] = [];
const started = Date.now();
try {
  await warmRenderPage(browser, url);
  for (const [scene, renderer] of RUNS) {
    const page = await browser.newPage({ viewport: { width: 800, height: 600 }, deviceScaleFactor: 1 });
    const t = Date.now();
    try {
      await page.goto(`${url}${renderPagePath}${process.env.BENCH_PER_STEP ? '?perStep' : ''}`);
      await page.waitForFunction(() => (window as unknown as { benchReady?: boolean }).benchReady, null, { timeout: 90_000 });
      const raw = await Promise.race([
        page.evaluate(([s, r, n]) => (window as unknown as { benchRun(s: string, r: string, n?: number): Promise<Raw> }).benchRun(s as string, r as string, n as number | undefined), [scene, renderer, STEPS] as const),
        new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`timeout after ${RUN_TIMEOUT} ms`)), RUN_TIMEOUT).unref()),
      ]);
      rows.push(summarise(raw));
      if (process.env.BENCH_VERBOSE) console.error(`${scene} / ${renderer} frames: ${raw.frameMs.map((x) => x.toFixed(1)).join(' ')}`);
      if (raw.frameSteps) console.error(`${scene} / ${renderer} frames per step: ${raw.frameSteps.join(' | ')}`);
    } catch (err) {
      rows.push({ scene, renderer, error: String(err instanceof Error ? err.message : err).split('\n')[0]! });
    } finally {
      await page.close().catch(() => undefined);
    }
    console.error(`${scene} / ${renderer}: ${((Date.now() - t) / 1000).toFixed(1)} s`);
  }
} finally {
  await browser.close();
  await server.close();
}

// Runs of a subset of scenes/renderers replace only their own rows in an existing results file.
let previous: Row[] = [];
try {
  previous = (JSON.parse(fs.readFileSync(out, 'utf8')) as { rows: Row[] }).rows.filter((p) => !rows.some((r) => r.scene === p.scene && r.renderer === p.renderer));
} catch { /* first run */ }
rows.unshift(...previous);

// Ratios: baseline / Vellum (above 1 = Vellum faster or smaller).
const ok = (r: Row): r is ReturnType<typeof summarise> => !('error' in r);
const ratios: Record<string, Record<string, Record<string, number | null>>> = {};
for (const scene of new Set(rows.map((r) => r.scene))) {
  const v = rows.find((r) => r.scene === scene && r.renderer === 'vellum');
  if (!v || !ok(v)) continue;
  for (const b of rows.filter((r) => r.scene === scene && r.renderer !== 'vellum')) {
    if (!ok(b)) continue;
    const div = (x: number, y: number) => (Number.isFinite(x) && Number.isFinite(y) && y > 0 ? x / y : null);
    (ratios[scene] ??= {})[b.renderer] = {
      load: div(b.loadMs, v.loadMs),
      frameMedian: div(b.frameMedianMs, v.frameMedianMs),
      frameP95: div(b.frameP95Ms, v.frameP95Ms),
      ...(b.drawCallMedianMs != null ? { drawCallMedian: div(b.drawCallMedianMs, v.frameMedianMs), drawCallP95: div(b.drawCallP95Ms!, v.frameP95Ms) } : {}),
      mainPerFrame: div(b.mainPerFrameMedianMs, v.mainPerFrameMedianMs),
      longestLoadTask: div(b.longestLoadTaskMs, v.longestLoadTaskMs),
    };
  }
}

const f = (x: number | null | undefined, d = 1) => (x == null || !Number.isFinite(x) ? '-' : x.toFixed(d));
const header = ['scene', 'renderer', 'load ms', 'longest task', 'frame med', 'frame p95', 'main/frame', 'interval', 'heap MB', 'worker MB', 'gpu MB'];
const lines = [header.join(' | '), header.map(() => '---').join(' | ')];
for (const r of rows) {
  if (!ok(r)) lines.push([r.scene, r.renderer, `error: ${r.error}`].join(' | '));
  else lines.push([r.scene, r.renderer, f(r.loadMs, 0), f(r.longestLoadTaskMs, 0), f(r.frameMedianMs, 2), f(r.frameP95Ms, 2), f(r.mainPerFrameMedianMs, 3), f(r.intervalMedianMs, 1), f(r.heapDeltaMB), f(r.workerHeapMB), f(r.gpuMB)].join(' | '));
}
console.log(lines.join('\n'));
for (const r of rows) if (ok(r) && r.note) console.log(`${r.scene} / ${r.renderer}: ${r.note}`);
for (const r of rows) if (ok(r) && r.drawCallMedianMs != null) console.log(`${r.scene} / ${r.renderer}: layer.draw() call alone median ${f(r.drawCallMedianMs, 2)} ms, p95 ${f(r.drawCallP95Ms, 2)} ms`);
console.log('\nRatios (baseline / Vellum; > 1 means Vellum is better):');
for (const [scene, byBase] of Object.entries(ratios)) {
  for (const [base, rs] of Object.entries(byBase)) {
    console.log(`${scene} vs ${base}: ${Object.entries(rs).map(([k, v]) => `${k} ${f(v, 2)}x`).join(', ')}`);
  }
}
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, JSON.stringify({
  date: new Date().toISOString(),
  environment: `headless Chromium, SwiftShader (software WebGL), 800x600 viewport, dpr 1${extraArgs.length ? `, flags: ${extraArgs.join(' ')}` : ''}`,
  notes: [
    'Vellum frame = worker draw of one camera change incl. gl.finish(); main/frame = main-thread time to post the camera.',
    'Konva frame = layer.draw() plus a 1 px getImageData (the canvas is accelerated: draw() only records, the raster runs at the readback); drawCall = layer.draw() alone. SVG frame = rAF-to-rAF interval after changing the group transform (style, layout, paint on the main thread).',
    'Baselines draw the image as one 2048 px overview (they cannot hold a 20k x 20k bitmap); Vellum draws LOD tiles.',
  ],
  totalSeconds: (Date.now() - started) / 1000,
  steps: STEPS ?? 'per scene (bench/lib/render/scenes.ts)',
  rows,
  ratios,
}, null, 2));
console.log(`\nwrote ${path.relative(repoRoot, out)} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
