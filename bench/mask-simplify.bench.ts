// Masks to polygons (issue 32 section 3): how close the simplified polygons stay to the mask and
// how many vertices they keep, on the 160 real object masks of ../shared/datasets/seg-dev.
// Run: node --import tsx bench/mask-simplify.bench.ts [--quick]   (--quick: every 4th mask)
// Per tolerance (0, 0.5, 1, 1.5, 2 px) and per method: mean and min IoU of the rasterised polygons
// (the kernels' own rasteriser, pixel centres) with the mask, vertices as a share of the exact
// staircase's (tolerance 0), and time per mask. Methods:
// - "midpoints + DP": what ships (wasm): the edge midpoints of the staircase (real corners kept),
//   Douglas-Peucker.
// - "corners + DP": what shipped before: Douglas-Peucker on the staircase's corners (TypeScript
//   reference on the wasm trace, so its time is not comparable).
// - "midpoints + Visvalingam": drops the vertex of the smallest triangle while that area is under
//   tolerance^2 (TypeScript on the wasm trace).
// Target: mean IoU >= 0.97 with at most a fifth of the staircase's vertices at the default
// (MASK_POLYGON_TOLERANCE). Writes bench/results/mask-simplify.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { buildKernels } from '../assembly/build.mjs';
import { midpointRingRef, simplifyRingRef, type Pt } from '../assembly/reference/contours';
import { loadKernelsNodeSync, MASK_POLYGON_TOLERANCE, type Kernels, type Polygon } from '../src/kernels/node';
import { SEG_DEV_DIR } from './lib/segmentation-quality';

const TOLERANCES = [0, 0.5, 1, 1.5, 2];
/** Visvalingam's parameter is an area, so it also runs at 3 and 4 px to compare at the same vertex count. */
const EXTRA: Record<string, number[]> = { 'midpoints + Visvalingam (TS)': [3, 4] };

interface Mask {
  name: string;
  data: Uint8Array; // column-major, 0/1
  h: number;
  w: number;
}

export interface SimplifyRow {
  method: string;
  tolerance: number;
  meanIou: number;
  minIou: number;
  /** simplified vertices over the exact staircase's, summed over all masks */
  vertexRatio: number;
  /** the same ratio, averaged per mask */
  meanVertexRatio: number;
  /** the conversion alone (not the IoU check), wall and CPU (user + system) */
  msPerMask: number;
  cpuMsPerMask: number;
}

type Method = (k: Kernels, m: Mask, exact: Polygon[], tolerance: number) => Polygon[];

/** Applies a TypeScript ring simplification to every ring of the exact trace (outer rings keep >= 3 vertices). */
function perRing(simplify: (ring: Pt[], tolerance: number, outer: boolean) => Pt[]): Method {
  return (_k, _m, exact, tolerance) =>
    exact
      .map((p) => ({
        path: simplify(p.path, tolerance, true),
        holes: p.holes.map((r) => simplify(r, tolerance, false)).filter((r) => r.length >= 3),
      }))
      .filter((p) => p.path.length >= 3);
}

/** Visvalingam-Whyatt on a closed ring: removes the smallest-area vertex while its triangle is under tolerance^2. */
function visvalingam(ring: Pt[], tolerance: number, outer: boolean): Pt[] {
  const n = ring.length;
  if (tolerance <= 0 || n <= 3) return ring.slice();
  const prev = Int32Array.from({ length: n }, (_, i) => (i + n - 1) % n);
  const next = Int32Array.from({ length: n }, (_, i) => (i + 1) % n);
  const alive = new Uint8Array(n).fill(1);
  const tri = (i: number) => {
    const [ax, ay] = ring[prev[i]!]!, [bx, by] = ring[i]!, [cx, cy] = ring[next[i]!]!;
    return Math.abs((bx - ax) * (cy - ay) - (cx - ax) * (by - ay)) / 2;
  };
  const area = Float64Array.from({ length: n }, (_, i) => tri(i));
  const limit = tolerance * tolerance;
  let count = n;
  while (count > (outer ? 3 : 0)) {
    let best = -1;
    for (let i = 0; i < n; i++) if (alive[i] && (best < 0 || area[i]! < area[best]!)) best = i;
    if (area[best]! >= limit) break;
    alive[best] = 0;
    count--;
    const p = prev[best]!, q = next[best]!;
    next[p] = q;
    prev[q] = p;
    area[p] = tri(p);
    area[q] = tri(q);
  }
  return ring.filter((_, i) => alive[i]);
}

const METHODS: Record<string, Method> = {
  'midpoints + DP (wasm, shipped)': (k, m, _exact, tolerance) => k.maskToPolygons(m.data, m.h, m.w, { tolerance }),
  'corners + DP (before; TS)': perRing((ring, tolerance, outer) => simplifyRingRef(ring, tolerance, outer)),
  'midpoints + Visvalingam (TS)': perRing((ring, tolerance, outer) => visvalingam(tolerance > 0 ? midpointRingRef(ring) : ring, tolerance, outer)),
};

const vertices = (polys: Polygon[]) => polys.reduce((s, p) => s + p.path.length + p.holes.reduce((a, r) => a + r.length, 0), 0);

function iou(a: Uint8Array, b: Uint8Array): number {
  let inter = 0, union = 0;
  for (let i = 0; i < a.length; i++) {
    inter += a[i]! & b[i]!;
    union += a[i]! | b[i]!;
  }
  return union ? inter / union : 1;
}

async function loadMasks(step: number): Promise<Mask[] | null> {
  const dir = path.join(SEG_DEV_DIR, 'masks');
  if (!fs.existsSync(dir)) return null;
  const names = fs.readdirSync(dir).filter((n) => n.endsWith('.png')).sort().filter((_, i) => i % step === 0);
  const out: Mask[] = [];
  for (const name of names) {
    const { data, info } = await sharp(path.join(dir, name)).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
    const h = info.height, w = info.width, col = new Uint8Array(h * w);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) col[x * h + y] = data[y * w + x]! >= 128 ? 1 : 0;
    out.push({ name, data: col, h, w });
  }
  return out;
}

/** Runs the benchmark, prints the table, writes bench/results/mask-simplify.json; null when seg-dev is absent. */
export async function runMaskSimplifyBench({ quick = false }: { quick?: boolean } = {}): Promise<SimplifyRow[] | null> {
  await buildKernels({ quiet: true });
  const masks = await loadMasks(quick ? 4 : 1);
  if (!masks) {
    console.log(`mask-simplify: skipped, ${SEG_DEV_DIR} is absent`);
    return null;
  }
  const k = loadKernelsNodeSync();
  const exact = masks.map((m) => k.maskToPolygons(m.data, m.h, m.w));
  const exactVertices = exact.map(vertices);
  const totalExact = exactVertices.reduce((a, b) => a + b, 0);
  const loadBefore = os.loadavg();
  const rows: SimplifyRow[] = [];
  for (const [method, fn] of Object.entries(METHODS)) {
    for (const tolerance of [...TOLERANCES, ...(EXTRA[method] ?? [])]) {
      let sumIou = 0, minIou = 1, sumVertices = 0, sumRatio = 0, ms = 0, cpuUs = 0;
      masks.forEach((m, i) => {
        const cpu0 = process.cpuUsage(), t0 = performance.now();
        const polys = fn(k, m, exact[i]!, tolerance);
        ms += performance.now() - t0;
        const cpu = process.cpuUsage(cpu0);
        cpuUs += cpu.user + cpu.system;
        const x = iou(k.polygonsToMask(polys, m.h, m.w), m.data);
        const v = vertices(polys);
        sumIou += x;
        minIou = Math.min(minIou, x);
        sumVertices += v;
        sumRatio += v / exactVertices[i]!;
      });
      const round = (v: number, d: number) => Math.round(v * 10 ** d) / 10 ** d;
      rows.push({
        method,
        tolerance,
        meanIou: round(sumIou / masks.length, 4),
        minIou: round(minIou, 4),
        vertexRatio: round(sumVertices / totalExact, 3),
        meanVertexRatio: round(sumRatio / masks.length, 3),
        msPerMask: round(ms / masks.length, 2),
        cpuMsPerMask: round(cpuUs / 1000 / masks.length, 2),
      });
    }
  }
  const loadAfter = os.loadavg();
  console.log(`mask-simplify: ${masks.length} seg-dev masks, ${totalExact} staircase vertices; default tolerance ${MASK_POLYGON_TOLERANCE} px; load ${loadBefore.map((l) => l.toFixed(1)).join(' ')} -> ${loadAfter.map((l) => l.toFixed(1)).join(' ')}`);
  console.table(rows);
  const shipped = rows.find((r) => r.method.startsWith('midpoints + DP') && r.tolerance === MASK_POLYGON_TOLERANCE)!;
  const met = shipped.meanIou >= 0.97 && shipped.vertexRatio <= 0.2;
  console.log(`target (mean IoU >= 0.97, vertices <= 1/5 of the staircase's) at ${MASK_POLYGON_TOLERANCE} px: IoU ${shipped.meanIou}, vertices ${shipped.vertexRatio}: ${met ? 'met' : 'NOT met'}`);
  const out = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'mask-simplify.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), cpu: os.cpus()[0]?.model, masks: masks.length, staircaseVertices: totalExact, loadBefore, loadAfter, rows }, null, 2) + '\n');
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runMaskSimplifyBench({ quick: process.argv.includes('--quick') });
}
