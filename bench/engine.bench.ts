// Editor engine micro-benchmarks (issue 4). Each figure sits next to a baseline measured in the
// same run, so the ratio means something on any machine:
// - hit-test at 100k shapes: the engine's spatial index vs a linear scan with the same exact tests;
// - move / undo / redo of 1,000 shapes in a 100k-shape document: the engine's patches vs copying
//   the whole document once (what a snapshot-per-step history would pay);
// - triangulating 10k polygons of 20 vertices with earcut (the render worker's per-change work).
// Run: node --import tsx bench/engine.bench.ts [--quick]
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import earcut from 'earcut';
import { Editor } from '../src/engine';
import type { EditorAnnotation } from '../src/engine';

export interface EngineRow {
  name: string;
  median: number;
  p95: number;
  p99: number;
  baseline?: { name: string; median: number };
  /** engine median / baseline median (below 1: the engine is faster). */
  ratio?: number;
  target?: string;
  met?: boolean;
}

function stats(times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
  return { median: q(0.5), p95: q(0.95), p99: q(0.99) };
}

function time(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

/** A deterministic pseudo-random generator, so every run draws the same scene. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

function polygon(rand: () => number, cx: number, cy: number, r: number, n = 20): [number, number][] {
  return Array.from({ length: n }, (_, i) => {
    const a = (i / n) * Math.PI * 2;
    const rr = r * (0.7 + 0.3 * rand());
    return [cx + Math.cos(a) * rr, cy + Math.sin(a) * rr] as [number, number];
  });
}

export function makeScene(count: number, imageSize = 20_000, seed = 1): EditorAnnotation[] {
  const rand = rng(seed);
  const out: EditorAnnotation[] = [];
  for (let i = 0; i < count; i++) {
    const x = rand() * (imageSize - 100);
    const y = rand() * (imageSize - 100);
    const id = `a${i}`;
    if (i % 2 === 0) out.push({ id, class: 'car', type: 'polygon', points: polygon(rand, x + 30, y + 30, 25) });
    else out.push({ id, class: 'person', type: 'box', x, y, width: 20 + rand() * 60, height: 20 + rand() * 60 });
  }
  return out;
}

/** Point-in-polygon / in-box, the same exact tests the engine applies after its index query. */
function linearHit(shapes: EditorAnnotation[], x: number, y: number): string | null {
  for (let i = shapes.length - 1; i >= 0; i--) {
    const a = shapes[i]!;
    if (a.type === 'box') {
      if (x >= a.x && x <= a.x + a.width && y >= a.y && y <= a.y + a.height) return a.id;
    } else if (a.type === 'polygon') {
      let inside = false;
      const p = a.points;
      for (let j = 0, k = p.length - 1; j < p.length; k = j++) {
        const [xi, yi] = p[j]!;
        const [xk, yk] = p[k]!;
        if (yi > y !== yk > y && x < ((xk - xi) * (y - yi)) / (yk - yi) + xi) inside = !inside;
      }
      if (inside) return a.id;
    }
  }
  return null;
}

export async function runEngineBench({ quick = false }: { quick?: boolean } = {}): Promise<EngineRow[]> {
  const rows: EngineRow[] = [];
  const N = quick ? 20_000 : 100_000;
  const scene = makeScene(N);
  const editor = new Editor({ viewport: { width: 1600, height: 1000 }, image: { width: 20_000, height: 20_000 } });

  const load = time(() => editor.load(scene.map((a) => ({ ...a }))));
  rows.push({ name: `load ${N} shapes`, ...stats([load]) });

  // Hit-testing: the first query builds the index; measure steady-state queries after it.
  const rand = rng(7);
  const points = Array.from({ length: quick ? 500 : 2000 }, () => [rand() * 20_000, rand() * 20_000] as const);
  const build = time(() => editor.hitTest(10, 10));
  rows.push({ name: `spatial index build (${N})`, ...stats([build]) });
  const hits = points.map(([x, y]) => time(() => editor.hitTest(x, y)));
  const linear = points.slice(0, 200).map(([x, y]) => time(() => linearHit(scene, x, y)));
  const h = stats(hits);
  const l = stats(linear);
  rows.push({ name: `hit-test at ${N} shapes`, ...h, baseline: { name: 'linear scan', median: l.median }, ratio: h.median / l.median, target: 'p99 < 0.1 ms', met: h.p99 < 0.1 });

  // Move 1,000 shapes, then undo and redo it, against copying the whole document once.
  const ids = editor.getOrderedIds().slice(0, 1000);
  const moveT: number[] = [];
  const undoT: number[] = [];
  const redoT: number[] = [];
  for (let i = 0; i < (quick ? 5 : 15); i++) {
    moveT.push(time(() => editor.execute('move', { ids, dx: 5, dy: 3 })));
    undoT.push(time(() => editor.undo()));
    redoT.push(time(() => editor.redo()));
  }
  const docJson = editor.getDocument();
  const copyT = Array.from({ length: 3 }, () => time(() => structuredClone(docJson)));
  const copy = stats(copyT);
  for (const [name, t] of [['move 1,000 shapes', moveT], ['undo the 1,000-shape move', undoT], ['redo the 1,000-shape move', redoT]] as const) {
    const s = stats(t);
    rows.push({ name: `${name} (of ${N})`, ...s, baseline: { name: 'copy the document', median: copy.median }, ratio: s.median / copy.median, ...(name.startsWith('move') ? {} : { target: '< 16 ms', met: s.median < 16 }) });
  }

  // Triangulation of 10k 20-vertex polygons, as the renderer does after a load.
  const polys = makeScene(quick ? 4000 : 20_000).filter((a) => a.type === 'polygon').slice(0, quick ? 2000 : 10_000);
  const flat = polys.map((p) => (p.type === 'polygon' ? p.points.flat() : []));
  const tri = time(() => {
    for (const f of flat) earcut(f);
  });
  rows.push({ name: `earcut ${flat.length} polygons x 20 vertices`, ...stats([tri]) });
  return rows;
}

export function printEngineRows(rows: EngineRow[]): void {
  const fmt = (n: number | undefined) => (n === undefined ? '' : n < 1 ? n.toFixed(4) : n.toFixed(1));
  console.log('\nEditor engine (ms)');
  console.table(
    rows.map((r) => ({
      benchmark: r.name,
      median: fmt(r.median),
      p99: fmt(r.p99),
      baseline: r.baseline ? `${r.baseline.name}: ${fmt(r.baseline.median)}` : '',
      ratio: r.ratio === undefined ? '' : r.ratio.toPrecision(3),
      target: r.target ? `${r.target} ${r.met ? 'met' : 'NOT met'}` : '',
    })),
  );
}

export async function runAndWriteEngineBench(quick: boolean): Promise<EngineRow[]> {
  const rows = await runEngineBench({ quick });
  printEngineRows(rows);
  const out = join(dirname(fileURLToPath(import.meta.url)), 'results', 'engine.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), node: process.version, cpu: cpus()[0]?.model, cores: cpus().length, quick, rows }, null, 2) + '\n');
  console.log(`wrote ${out}`);
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runAndWriteEngineBench(process.argv.includes('--quick'));
}
