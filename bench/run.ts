// `npm run bench`: every benchmark, each against its baseline measured in the same run. Prints
// tables and writes JSON under bench/results/. Options: --quick (smaller scenes), --only=<name>
// (engine, kernels, dataset, export, annotations, render, segmentation, image-edit, load, first-load,
// editor-switch, import, live, heavy-work). The dataset, export, render, segmentation, load, first-load, editor-switch, live and heavy-work
// benchmarks start servers and Chromium; they run when their scripts exist (first-load and
// editor-switch measure the build in dist/app: `npm run build` first).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAndWriteEngineBench } from './engine.bench';
import { runKernelsBench } from './kernels.bench';

const here = path.dirname(fileURLToPath(import.meta.url));
const quick = process.argv.includes('--quick');
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const want = (name: string) => !only || only === name;

if (want('engine')) await runAndWriteEngineBench(quick);
if (want('kernels')) await runKernelsBench({ quick });
if (want('image-edit')) await (await import('./image-edit.bench')).runImageEditBench({ quick });

// Benchmarks that run as their own scripts (they own servers or browsers).
for (const [name, file] of [['dataset', 'dataset.bench.ts'], ['export', 'export.bench.ts'], ['annotations', 'annotations.bench.ts'], ['render', 'render/run.ts'], ['segmentation', 'segmentation.bench.ts'], ['load', 'load.bench.ts'], ['first-load', 'first-load.bench.ts'], ['editor-switch', 'editor-switch.bench.ts'], ['import', 'import.bench.ts'], ['live', 'live.bench.ts'], ['heavy-work', 'heavy-work.bench.ts']] as const) {
  if (!want(name)) continue;
  const full = path.join(here, file);
  if (!fs.existsSync(full)) continue;
  const { spawnSync } = await import('node:child_process');
  console.log(`\n== ${name} (${file})`);
  const res = spawnSync(process.execPath, ['--import', 'tsx', full, ...process.argv.slice(2)], { stdio: 'inherit' });
  if (res.status !== 0) {
    console.error(`${name} benchmark failed (exit ${res.status})`);
    process.exitCode = 1;
  }
}
