// A brush stroke on a 4096 x 4096 mask in the real render worker (issue 33: "a stroke on a 4096²
// mask keeps frames under 16 ms in the render worker"). Serves bench/brush-render with Vite and
// runs its page in headless Chromium (SwiftShader: WebGL on the CPU, so the figures are an upper
// bound of a machine with a GPU). Per pointer move, in the worker: the scene update (the mask's
// changed columns decoded by the kernel and uploaded) plus the frame drawn after it, measured to
// a GPU finish. The engine's share on the main thread (the kernel painting the segment) is
// printed beside it. bench/brush.bench.ts compares the worker's update with the old whole-box
// upload without a browser.
// Run: /usr/bin/time node --import tsx bench/brush-render.bench.ts [--quick] (time gives the CPU
// of Node and Chromium together). Writes bench/results/brush-render.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, repoRoot, startServer } from '../tests/render/harness';

const quick = process.argv.includes('--quick');
const MOVES = quick ? 60 : 200;
const out = path.join(repoRoot, 'bench/results/brush-render.json');

interface Run { moves: number; sceneMs: number[]; frameMs: number[]; mainMs: number[]; staticFrameMs: number[]; area: [number, number] }

const q = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))] ?? NaN;
};

const loadBefore = os.loadavg()[0]!;
const cpu0 = process.cpuUsage();
const { server, url } = await startServer();
const browser = await launch();
const rows = [];
try {
  for (const [mode, size] of [['erase', 24], ['erase', 96], ['paint', 48]] as const) {
    const page = await browser.newPage({ viewport: { width: 800, height: 600 }, deviceScaleFactor: 1 });
    await page.goto(`${url}/bench/brush-render/index.html`);
    await page.waitForFunction(() => (window as unknown as { benchReady?: boolean }).benchReady, null, { timeout: 90_000 });
    const run = await page.evaluate(([m, n, s]) => (window as unknown as { brushRun(m: string, n: number, s: number): Promise<Run> }).brushRun(m as string, n as number, s as number), [mode, MOVES, size] as const);
    await page.close();
    const total = run.sceneMs.map((s, i) => s + run.frameMs[i]!);
    rows.push({
      mode, brushPx: size, moves: run.moves, areaBefore: run.area[0], areaAfter: run.area[1],
      workerP50: q(total, 0.5), workerP95: q(total, 0.95), workerMax: Math.max(...total),
      over16: total.filter((t) => t > 16).length,
      sceneP50: q(run.sceneMs, 0.5), sceneP95: q(run.sceneMs, 0.95), frameP50: q(run.frameMs, 0.5), frameP95: q(run.frameMs, 0.95),
      mainP50: q(run.mainMs, 0.5), mainP95: q(run.mainMs, 0.95),
      staticFrameP50: q(run.staticFrameMs, 0.5), staticFrameP95: q(run.staticFrameMs, 0.95),
    });
  }
} finally {
  await browser.close();
  await server.close();
}
const loadAfter = os.loadavg()[0]!;
const cpu = process.cpuUsage(cpu0);
console.log(`brush stroke on a 4096 x 4096 mask in the render worker (headless Chromium, SwiftShader); load ${loadBefore.toFixed(1)} -> ${loadAfter.toFixed(1)} on ${os.cpus().length} cores; Node CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s`);
console.log('stroke  brush  moves  worker per move p50/p95/max (ms)  moves > 16 ms  scene p50/p95  frame p50/p95  main p50/p95  frame unchanged p50/p95');
for (const r of rows) {
  console.log(`${r.mode.padEnd(6)}  ${String(r.brushPx).padStart(3)} px  ${String(r.moves).padStart(5)}  ${r.workerP50.toFixed(1)} / ${r.workerP95.toFixed(1)} / ${r.workerMax.toFixed(1)}`.padEnd(62) + `${String(r.over16).padStart(5)}        ${r.sceneP50.toFixed(1)}/${r.sceneP95.toFixed(1)}      ${r.frameP50.toFixed(1)}/${r.frameP95.toFixed(1)}     ${r.mainP50.toFixed(1)}/${r.mainP95.toFixed(1)}     ${r.staticFrameP50.toFixed(1)}/${r.staticFrameP95.toFixed(1)}`);
}
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), loadBefore, loadAfter, cores: os.cpus().length, rows }, null, 2) + '\n');
