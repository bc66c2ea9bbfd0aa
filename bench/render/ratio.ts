// Shapes against the image alone (issue 35): npm run bench -- --only=render-ratio [--quick], or
// node --import tsx bench/render/ratio.ts [--rounds=N] [--steps=N] [--quick] [--impostors: also each shapes scene drawn with impostors]
// [--loose: also each shapes scene drawn without the compaction of its levels' buffers (src/workers/compaction.ts)]
// [--direct: also each shapes scene drawn without the fused path (src/workers/fused.ts): every shape drawn each frame]
// [--gesture: the zoom's steps one an animation frame (a wheel spun, a pinch), the renderer drawing the latest when it can, instead of each at rest]
// [--before=DIR[,DIR2...]: also each shapes scene drawn by other checkouts of the repository (the build before a change), served next to this one, in the same rounds]
// (--pairs=10k or 100k: one pair; BENCH_VERBOSE=1 prints each frame.) Runs Vellum's render worker on `imageOnly10k` next to `polygons10k` (the same 8000 x 6000 image
// and camera path) and `imageOnly100k` next to `polygons100k` (20,000 x 20,000), interleaved over
// N rounds, each run in a fresh page. Per scene and camera path (pan, zoom): frame time p50 / p95
// (the worker's frame until its pixels exist: a 1 px readPixels), the ratio to the image-only
// frame, per frame the draw calls and the bytes uploaded to the GPU (counted in the worker while
// measuring, gl-counter.ts), and the CPU seconds of the whole browser (every process under this
// one: page, worker, SwiftShader's GPU process) over the pan and over the zoom, per frame, with the GPU
// process's share of it (SwiftShader's drawing; the rest is the page and the worker's JS) and the load average.
// Targets: 10k polygons at most 1.2x the image-only frame, 100k at most 1.5x, on pan and zoom.
// Writes bench/results/render-ratio.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, repoRoot, startServer } from '../../tests/render/harness';
import { renderPagePath, warmRenderPage } from '../lib/render-page';
import { treeCpu } from '../lib/proc-cpu';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const quick = process.argv.includes('--quick');
/** --impostors: each shapes scene also drawn with impostors (`<scene>/impostors`, src/workers/impostors.ts), in the same rounds. */
const IMPOSTORS = process.argv.includes('--impostors');
/** --loose: each shapes scene also drawn without compaction (`<scene>/loose`), in the same rounds. */
const LOOSE = process.argv.includes('--loose');
/** --direct: each shapes scene also drawn without the fused path (`<scene>/direct`), in the same rounds. */
const DIRECT = process.argv.includes('--direct');
/** --before=DIR[,DIR2...]: each shapes scene also drawn by the checkout in DIR (`<scene>/before`; DIR2's `<scene>/before2`, ...). */
const BEFORE = arg('before')?.split(',').filter(Boolean) ?? [];
/** The scene suffix of the i-th --before checkout. */
const beforeTag = (i: number) => `before${i ? i + 1 : ''}`;
/** --gesture: the zoom path as a gesture (bench/render/page/main.ts): compare its CPU per step, frames coalesce. */
const GESTURE = process.argv.includes('--gesture');
const ROUNDS = Number(arg('rounds') ?? (quick ? 1 : 3));
const STEPS = arg('steps') ? Number(arg('steps')) : undefined;
const ALL_PAIRS = [['imageOnly10k', 'polygons10k', 1.2], ['imageOnly100k', 'polygons100k', 1.5]] as const;
/** --pairs=10k or 100k: one pair only. */
const PAIRS = ALL_PAIRS.filter(([, shapes]) => !arg('pairs') || arg('pairs')!.split(',').some((p) => shapes === `polygons${p}`));
const out = path.join(repoRoot, 'bench/results/render-ratio.json');

interface Raw { frameMs: number[]; frameStep?: number[]; draws?: number[]; uploadBytes?: number[]; points?: number[]; shapes: number; note?: string }
interface Frames { ms: number[]; draws: number[]; bytes: number[]; points: number[]; cpuMs: number; gpuMs: number; count: number; runs: number }

const q = (xs: number[], p: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))]!;
};
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

const acc = new Map<string, Frames>(); // `${scene}/${pan|zoom}`
const take = (key: string) => {
  let f = acc.get(key);
  if (!f) acc.set(key, (f = { ms: [], draws: [], bytes: [], points: [], cpuMs: 0, gpuMs: 0, count: 0, runs: 0 }));
  return f;
};

const load0 = os.loadavg();
const { server, url } = await startServer();
const befores = await Promise.all(BEFORE.map((dir) => startServer(path.resolve(dir))));
const browser = await launch();
const started = Date.now();
try {
  await warmRenderPage(browser, url);
  for (const b of befores) await warmRenderPage(browser, b.url);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [imageOnly, shapes] of PAIRS) {
      const order: string[] = [imageOnly, shapes, ...(IMPOSTORS ? [`${shapes}/impostors`] : []), ...(LOOSE ? [`${shapes}/loose`] : []), ...(DIRECT ? [`${shapes}/direct`] : []), ...befores.map((_, i) => `${shapes}/${beforeTag(i)}`)];
      for (const scene of round % 2 ? order.reverse() : order) {
        const page = await browser.newPage({ viewport: { width: 800, height: 600 }, deviceScaleFactor: 1 });
        // the browser's CPU over the path, and its GPU process's (SwiftShader) apart
        let at = { total: 0, gpu: 0 }, cpu = 0, panCpu = NaN, gpu = 0, panGpu = NaN;
        await page.exposeFunction('benchMark', (what: string) => {
          const now = treeCpu();
          if (what === 'path-start') at = now;
          else if (what === 'zoom-start') [panCpu, panGpu] = [now.total - at.total, now.gpu - at.gpu];
          else [cpu, gpu] = [now.total - at.total, now.gpu - at.gpu];
        });
        const t = Date.now();
        const bi = befores.findIndex((_, i) => scene.endsWith(`/${beforeTag(i)}`));
        await page.goto(`${bi >= 0 ? befores[bi]!.url : url}${renderPagePath}?perStep${scene.endsWith('/impostors') ? '&impostors' : ''}${scene.endsWith('/loose') ? '&loose' : ''}${scene.endsWith('/direct') ? '&direct' : ''}${GESTURE ? '&gesture' : ''}`);
        await page.waitForFunction(() => (window as unknown as { benchReady?: boolean }).benchReady, null, { timeout: 90_000 });
        const raw = await page.evaluate(([s, n]) => (window as unknown as { benchRun(s: string, r: string, n?: number): Promise<Raw> }).benchRun(s as string, 'vellum', n as number | undefined), [scene.replace(/\/(impostors|loose|direct|before\d*)$/, ''), STEPS] as const);
        await page.close();
        // BENCH_VERBOSE=1: each frame as step:ms/draws/KB uploaded
        if (process.env.BENCH_VERBOSE) console.error(`${scene} (${raw.note ?? ''}): ${raw.frameMs.map((ms, i) => `${raw.frameStep?.[i]}:${ms.toFixed(0)}/${raw.draws?.[i]}/${((raw.uploadBytes?.[i] ?? 0) / 1024).toFixed(0)}/${raw.points?.[i] ?? '-'}`).join(' ')}`);
        const steps = Math.max(...(raw.frameStep ?? [0])) + 1, half = Math.floor(steps / 2);
        raw.frameMs.forEach((ms, i) => {
          const f = take(`${scene}/${(raw.frameStep?.[i] ?? 0) < half ? 'pan' : 'zoom'}`);
          f.ms.push(ms);
          f.draws.push(raw.draws?.[i] ?? NaN);
          f.bytes.push(raw.uploadBytes?.[i] ?? NaN);
          f.points.push(raw.points?.[i] ?? NaN);
        });
        // the CPU up to the zoom's first step is the pan's, the rest the zoom's (a page without the
        // mark, --before's: the path's CPU shared between its pan and zoom frames by their count)
        for (const kind of ['pan', 'zoom']) {
          const n = raw.frameMs.filter((_, i) => ((raw.frameStep?.[i] ?? 0) < half) === (kind === 'pan')).length;
          const f = take(`${scene}/${kind}`);
          const split = (all: number, pan: number) => (Number.isNaN(pan) ? (all * n) / Math.max(1, raw.frameMs.length) : kind === 'pan' ? pan : all - pan);
          f.cpuMs += split(cpu, panCpu) * 1000;
          f.gpuMs += split(gpu, panGpu) * 1000;
          f.count += n;
          f.runs++;
        }
        console.error(`round ${round + 1} ${scene}: ${raw.frameMs.length} frames, ${cpu.toFixed(2)} CPU s over the path (GPU process ${gpu.toFixed(2)}), ${((Date.now() - t) / 1000).toFixed(0)} s, load ${os.loadavg()[0]!.toFixed(2)}`);
      }
    }
  }
} finally {
  await browser.close();
  await server.close();
  for (const b of befores) await b.server.close();
}
const load1 = os.loadavg();

const f = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const rows: Record<string, unknown>[] = [];
const lines = ['scene | path | frames | frame p50 ms | p95 ms | CPU ms/frame (browser) | CPU ms/path | GPU process share | draws/frame p50 (max) | upload KB/frame p50 (max) | dots/frame p50 (mean) | p50 ratio | p95 ratio | CPU ratio | CPU/path ratio | target', '---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---'];
for (const [imageOnly, shapes, target] of PAIRS) {
  for (const kind of ['pan', 'zoom']) {
    const base = acc.get(`${imageOnly}/${kind}`);
    for (const scene of [imageOnly, shapes, ...(IMPOSTORS ? [`${shapes}/impostors`] : []), ...(LOOSE ? [`${shapes}/loose`] : []), ...(DIRECT ? [`${shapes}/direct`] : []), ...befores.map((_, i) => `${shapes}/${beforeTag(i)}`)]) {
      const x = acc.get(`${scene}/${kind}`);
      if (!x || !base) continue;
      const row = {
        scene, path: kind, frames: x.ms.length,
        p50: q(x.ms, 0.5), p95: q(x.ms, 0.95), cpuMsPerFrame: x.cpuMs / Math.max(1, x.count),
        drawsP50: q(x.draws, 0.5), drawsMax: Math.max(...x.draws), uploadKBP50: q(x.bytes, 0.5) / 1024, uploadKBMax: Math.max(...x.bytes) / 1024,
        uploadKBMean: mean(x.bytes) / 1024,
        // point primitives (dots) submitted a frame, p50 and mean (work between frames, a texture drawn ahead, counts in the frame after it)
        dotsP50: q(x.points, 0.5), dotsMean: mean(x.points),
        ratioP50: q(x.ms, 0.5) / q(base.ms, 0.5), ratioP95: q(x.ms, 0.95) / q(base.ms, 0.95),
        ratioCpu: x.cpuMs / Math.max(1, x.count) / (base.cpuMs / Math.max(1, base.count)),
        // the same camera steps in both: the CPU of the whole path, whatever frames it took (a zoom gesture coalesces steps, a settle adds one)
        cpuMsPerPath: x.cpuMs / Math.max(1, x.runs),
        gpuShare: x.gpuMs / Math.max(1e-9, x.cpuMs),
        ratioCpuPath: x.cpuMs / Math.max(1, x.runs) / (base.cpuMs / Math.max(1, base.runs)),
        target: scene !== imageOnly ? target : null,
      };
      rows.push(row);
      lines.push([scene, kind, row.frames, f(row.p50, 2), f(row.p95, 2), f(row.cpuMsPerFrame, 1), f(row.cpuMsPerPath, 0), `${f(row.gpuShare * 100, 0)}%`, `${f(row.drawsP50, 0)} (${f(row.drawsMax, 0)})`, `${f(row.uploadKBP50, 1)} (${f(row.uploadKBMax, 0)})`, `${f(row.dotsP50, 0)} (${f(row.dotsMean, 0)})`, `${f(row.ratioP50, 2)}x`, `${f(row.ratioP95, 2)}x`, `${f(row.ratioCpu, 2)}x`, `${f(row.ratioCpuPath, 2)}x`, row.target ? `<= ${row.target}x: ${row.ratioP50 <= row.target && row.ratioP95 <= row.target ? 'met' : 'not met'}` : 'baseline'].join(' | '));
    }
  }
}
const environment = `headless Chromium, SwiftShader (software WebGL, CPU), 800x600, dpr 1; ${os.cpus().length} cores; load average ${load0.map((x) => x.toFixed(2)).join(' ')} before, ${load1.map((x) => x.toFixed(2)).join(' ')} after`;
console.log(lines.join('\n'));
console.log(`\n${environment}; ${ROUNDS} round(s)${STEPS ? `, ${STEPS} steps` : ''}; ${((Date.now() - started) / 1000).toFixed(0)} s`);
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), environment, rounds: ROUNDS, steps: STEPS ?? 'per scene', rows }, null, 2));
