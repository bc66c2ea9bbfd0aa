// A brush stroke on a 4096 x 4096 mask (issue 33): what each pointer move costs, frame by frame.
// Per move: the kernel paints the segment into the mask's runs (main thread, the engine's brush),
// the scene diff copies the counts (pack.ts), and the render worker's mask layer updates the
// texture: in place, the changed columns only (src/workers/mask-layer.ts). The baseline is what
// the worker did before: decode the whole bounding box and upload it again on every move.
// The GPU is a stand-in that copies each upload into a texel array (as texSubImage2D copies its
// data); real upload and draw time is not in these figures. Target: every move under 16 ms.
// Run: node --import tsx bench/brush.bench.ts [--quick]. Writes bench/results/brush.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Regl } from 'regl';
import { buildKernels } from '../assembly/build.mjs';
import { loadKernelsNodeSync, type Kernels } from '../src/kernels/node';
import type { Shape } from '../src/workers/cells';
import { MaskLayer, cropMask } from '../src/workers/mask-layer';

const SIZE = 4096;

/** regl's texture and buffer APIs with uploads copied into texel arrays. */
function copyingRegl(): Regl {
  const regl = {
    texture(opts: { width: number; height: number }) {
      const texels = new Uint8Array(opts.width * opts.height);
      return Object.assign(() => undefined, {
        subimage(img: { width: number; height: number; data: Uint8Array }, x: number, y: number) {
          for (let r = 0; r < img.height; r++) texels.set(img.data.subarray(r * img.width, (r + 1) * img.width), (y + r) * opts.width + x);
        },
        destroy() {},
      });
    },
    buffer: () => Object.assign(() => undefined, { destroy() {} }),
  };
  return regl as unknown as Regl;
}

interface Stats { p50: number; p95: number; max: number; moves: number }

function stats(times: number[]): Stats {
  const t = [...times].sort((a, b) => a - b);
  const q = (p: number) => t[Math.min(t.length - 1, Math.ceil(p * t.length) - 1)]!;
  return { p50: q(0.5), p95: q(0.95), max: t[t.length - 1]!, moves: t.length };
}

/**
 * The stroke, one point per pointer move (7-12 image px apart): the eraser cuts a wavy line
 * through the disc; the brush paints from its edge outwards, past its box (the block grows).
 */
function strokePoints(moves: number, mode: 'paint' | 'erase'): [number, number][] {
  if (mode === 'erase') return Array.from({ length: moves }, (_, i) => [700 + i * (2700 / moves), 2048 + 400 * Math.sin(i / 25)] as [number, number]);
  return Array.from({ length: moves }, (_, i) => {
    const a = (i / moves) * Math.PI;
    const r = 1500 + (i / moves) * 500;
    return [2048 + r * Math.cos(a), 2048 + r * Math.sin(a) * 0.99] as [number, number];
  });
}

function run(k: Kernels, moves: number, radius: number, mode: 'paint' | 'erase', inPlace: boolean) {
  // The mask: a disc of radius 1500 (a 3000 x 3000 box).
  let counts = Array.from(k.paintStroke({ size: [SIZE, SIZE], counts: [SIZE * SIZE] }, [[2048, 2048]], 1500));
  const shapes = new Map<string, Shape>();
  const layer = new MaskLayer(copyingRegl(), 2048, 16384, undefined, shapes, () => {});
  layer.useKernels(k);
  const s = { id: 'm', z: 0, type: 4, color: 0, slot: 0, mask: null, bounds: [0, 0, 0, 0], chunk: null, label: '' } as unknown as Shape;
  shapes.set('m', s);
  layer.add(s, { index: 0, size: [SIZE, SIZE], counts });
  layer.decode();
  layer.draws();
  const pts = strokePoints(moves, mode);
  const firstUpload = layer.uploadedTexels;
  let uploaded = 0;
  const paint: number[] = [], worker: number[] = [], total: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 1; i < pts.length; i++) {
    const t0 = performance.now();
    counts = Array.from(k.paintStroke({ size: [SIZE, SIZE], counts }, [pts[i - 1]!, pts[i]!], radius, mode));
    const sent = counts.slice(); // pack.ts copies the counts into the diff
    const t1 = performance.now();
    if (inPlace) {
      layer.drop(s);
      layer.add(s, { index: 0, size: [SIZE, SIZE], counts: sent });
      layer.decode();
      layer.draws();
    } else {
      const { rect, data } = cropMask(k, { size: [SIZE, SIZE], counts: sent });
      const copy = new Uint8Array(rect[2] * rect[3]);
      copy.set(data); // the whole box uploaded again
      uploaded += data.length;
    }
    const t2 = performance.now();
    paint.push(t1 - t0);
    worker.push(t2 - t1);
    total.push(t2 - t0);
  }
  const cpu = process.cpuUsage(cpu0);
  if (inPlace) uploaded = layer.uploadedTexels - firstUpload;
  return { paint: stats(paint), worker: stats(worker), total: stats(total), cpuSeconds: (cpu.user + cpu.system) / 1e6, uploadedTexels: uploaded };
}

export async function runBrushBench({ quick = false } = {}) {
  await buildKernels({ quiet: true });
  const k = loadKernelsNodeSync();
  const moves = quick ? 120 : 400;
  const load = loadavg()[0]!;
  const rows = [];
  for (const [mode, radius] of [['erase', 10], ['erase', 40], ['paint', 20]] as const) {
    for (const inPlace of [true, false]) {
      const r = run(k, moves, radius, mode, inPlace);
      rows.push({ mode, radius, method: inPlace ? 'in place (changed columns)' : 'baseline: whole box again', ...r });
    }
  }
  console.log(`brush stroke on a ${SIZE} x ${SIZE} mask (a 3000 x 3000 disc), ${moves} moves; load ${load.toFixed(1)} on ${cpus().length} cores`);
  console.log('stroke  radius  method                        paint p50/p95  worker p50/p95/max     total p95  CPU s  texels uploaded');
  for (const r of rows) {
    console.log(`${r.mode.padEnd(6)}  ${String(r.radius).padStart(6)}  ${r.method.padEnd(28)}  ${r.paint.p50.toFixed(2)}/${r.paint.p95.toFixed(2)} ms  ${r.worker.p50.toFixed(2)}/${r.worker.p95.toFixed(2)}/${r.worker.max.toFixed(1)} ms  ${r.total.p95.toFixed(2)} ms  ${r.cpuSeconds.toFixed(2)}  ${(r.uploadedTexels / 1e6).toFixed(1)} M`);
  }
  const out = join(dirname(fileURLToPath(import.meta.url)), 'results', 'brush.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), load, loadAfter: loadavg()[0], cores: cpus().length, moves, rows }, null, 2) + '\n');
  return rows;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await runBrushBench({ quick: process.argv.includes('--quick') });
}
