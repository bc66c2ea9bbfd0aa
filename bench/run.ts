// `npm run bench`: every benchmark, each against its baseline measured in the same run. Prints
// tables, then how long each benchmark took with the load average, and writes JSON under
// bench/results/ (this runner's own timings in run.json). Options:
//   --quick       the engine-side benchmarks only (engine, kernels, image-edit, mask-simplify, render), with smaller
//                 scenes: under 5 minutes on 2 cores. Those that start the API server, the load
//                 and live runs and the segmentation quality run only without --quick.
//   --only=<name> one benchmark (any of them, --quick makes its scenes smaller): engine, kernels,
//                 image-edit, mask-simplify, render, dataset, export, annotations, segmentation, load, first-load,
//                 editor-switch, import, live, heavy-work, brush, brush-render, compression, models, analytics,
//                 render-ratio.
// first-load and editor-switch measure the build in dist/app (`npm run build` first).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const quick = process.argv.includes('--quick');
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);

/** A benchmark runs in this process (`run`) or as a script of its own (`file`: it owns servers or browsers). */
interface Bench {
  name: string;
  /** part of --quick */
  quick?: boolean;
  run?: () => Promise<unknown>;
  file?: string;
}

const BENCHES: Bench[] = [
  { name: 'engine', quick: true, run: async () => (await import('./engine.bench')).runAndWriteEngineBench(quick) },
  { name: 'kernels', quick: true, run: async () => (await import('./kernels.bench')).runKernelsBench({ quick }) },
  { name: 'image-edit', quick: true, run: async () => (await import('./image-edit.bench')).runImageEditBench({ quick }) },
  { name: 'mask-simplify', quick: true, run: async () => (await import('./mask-simplify.bench')).runMaskSimplifyBench({ quick }) },
  { name: 'render', quick: true, file: 'render/run.ts' },
  // issue 35: shapes against the image alone (frame and CPU ratios); in the full run and --only, not in --quick
  { name: 'render-ratio', file: 'render/ratio.ts' },
  { name: 'dataset', file: 'dataset.bench.ts' },
  { name: 'export', file: 'export.bench.ts' },
  { name: 'annotations', file: 'annotations.bench.ts' },
  { name: 'segmentation', file: 'segmentation.bench.ts' },
  { name: 'load', file: 'load.bench.ts' },
  { name: 'first-load', file: 'first-load.bench.ts' },
  { name: 'editor-switch', file: 'editor-switch.bench.ts' },
  { name: 'import', file: 'import.bench.ts' },
  { name: 'live', file: 'live.bench.ts' },
  { name: 'heavy-work', file: 'heavy-work.bench.ts' },
  { name: 'brush', file: 'brush.bench.ts' },
  { name: 'brush-render', file: 'brush-render.bench.ts' },
  { name: 'compression', file: 'compression.bench.ts' },
  { name: 'models', file: 'models.bench.ts' },
  // PostgreSQL only (DATABASE_URL or --pg); seeds its kept database once (about 9 minutes on a loaded 2-core machine).
  { name: 'analytics', file: 'analytics.bench.ts' },
];

if (only && !BENCHES.some((b) => b.name === only)) {
  console.error(`--only=${only}: no such benchmark (${BENCHES.map((b) => b.name).join(', ')})`);
  process.exit(2);
}
const chosen = BENCHES.filter((b) => (only ? b.name === only : !quick || b.quick));

const load = () => Math.round(os.loadavg()[0]! * 10) / 10;
const timings: { name: string; seconds: number; loadBefore: number; loadAfter: number; ok: boolean }[] = [];
const started = performance.now();
for (const bench of chosen) {
  const t = performance.now(), loadBefore = load();
  let ok = true;
  console.log(`\n== ${bench.name}${bench.file ? ` (${bench.file})` : ''}`);
  if (bench.run) {
    await bench.run();
  } else {
    const res = spawnSync(process.execPath, ['--import', 'tsx', path.join(here, bench.file!), ...process.argv.slice(2)], { stdio: 'inherit' });
    ok = res.status === 0;
    if (!ok) {
      console.error(`${bench.name} benchmark failed (exit ${res.status})`);
      process.exitCode = 1;
    }
  }
  timings.push({ name: bench.name, seconds: Math.round((performance.now() - t) / 100) / 10, loadBefore, loadAfter: load(), ok });
}
const totalSeconds = Math.round((performance.now() - started) / 100) / 10;

console.log(`\nbench run${quick ? ' --quick' : ''}${only ? ` --only=${only}` : ''}: ${totalSeconds} s on ${os.cpus().length} cores`);
console.table(timings.map((r) => ({ benchmark: r.name, seconds: r.seconds, 'load before': r.loadBefore, 'load after': r.loadAfter, ok: r.ok })));
const out = path.join(here, 'results', 'run.json');
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), quick, only: only ?? null, cpu: os.cpus()[0]?.model, cores: os.cpus().length, totalSeconds, benches: timings }, null, 2) + '\n');
