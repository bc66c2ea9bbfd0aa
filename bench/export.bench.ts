// Dataset export over HTTP: time and peak memory as the dataset grows, next to a trivial route.
//
//   node --import tsx bench/export.bench.ts                  # embedded PGlite
//   node --import tsx bench/export.bench.ts --pg <url>       # PostgreSQL (DATABASE_URL when --pg is absent)
//   options: --sizes 1000,5000,10000 --runs 1, --quick (sizes 500,2000, no repeat),
//            --variants yolo,voc (only these, by name)
//
// One server in this process (embedded PGlite or PostgreSQL, local storage). For each size a project
// is seeded by bulk INSERTs (bench/lib/seed.ts): every image complete, in 1 folder per 100 images, with
// a 5-shape annotation document (3 boxes, 2 twelve-vertex polygons, an attribute); every image row
// points at one stored JPEG (a 1024 x 768 photo-like picture), so "with images" moves real bytes
// through storage, zip and socket without writing 10k files first. Each project is exported through
// POST /api/v1/annotations/export in the vellum and COCO formats, without and with image files, and
// in the YOLO and VOC formats without (their image files are written as vellum's and COCO's); the
// client reads the zip as it arrives, keeps only its last 64 KiB and checks the entry count in the
// zip's end record. Time is wall time to the last byte, and this process's CPU time for the same
// export (steadier than wall time on a busy machine).
//
// Memory: the server runs in this process, so its memory is this process's. Before each export: two
// full GCs, then the baseline (process.memoryUsage()); during it, samples every 10 ms (RSS, V8 heap
// used, external + array buffers), once a second a full GC and the heap still in use after it
// (live heap: what the export holds, garbage aside; costs a few % of the time) and, on Linux, the
// kernel's exact peak RSS (VmHWM, reset through /proc/self/clear_refs before each export).
// Reported: peak over the baseline per size, and the ratio of the peak at the largest size to the
// smallest (flat: ~1.0): heap over its baseline, RSS itself (RSS rarely shrinks, so after the
// warm-up its part over the baseline is often ~0). PGlite's WebAssembly memory is part of the RSS.
// Baselines in the same run: GET /api/v1/health (latency of a trivial route) and, for the exports
// with image files, reading the same stored file from storage 1,000 times (per image). Writes
// bench/results/export.json (EXPORT_BENCH_OUT picks another file). Target: memory flat as the
// dataset grows.
//
// --throughput (issue 32 section 6; sizes 1000,10000 unless --sizes): image bytes streamed by a COCO
// export with include_images, against a plain `cat` of the same files in the same run. The images
// are real photographs: the 160 JPEGs of ../shared/datasets/seg-dev/images (SEG_DEV_DIR; 52-379 KiB,
// 161 KiB on average; the run is skipped with a message when they are absent), each stored once and
// hard-linked in turn under the images' keys, so every image has its own stored file (the bytes are
// in the page cache for both the export and cat: this measures the pipeline, not the disk). `cat`
// reads exactly those files through xargs into a pipe
// counted by wc, as the export streams into a socket. The zip is read by curl in a process of its
// own (a browser is not in the server's process either); --in-process-client reads it here with
// node:http instead, as the runs before 29 Nov 2026 14:20 did, its CPU then counted as the export's.
// Reported: image MB/s, zip MB/s, CPU seconds (the export: this process, server and database; the
// client: curl's and tail's; cat: its children's user + system), export CPU ms per MB of image
// bytes, the export / cat ratio, and the export's peak RSS at each size. Target: >= 50 MB/s of
// image bytes, peak RSS flat from 1k to 10k. EXPORT_CPU_PROF=<dir> writes a CPU profile of each
// measured export (cpuProfile).
// Writes bench/results/export-throughput.json.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import inspector from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import type { ExportFormat } from '../src/contract/export';
import { moveDocumentsToRows } from '../src/server/db/annotation-rows';
import { arg, benchServer, createBenchProject, percentile, seedProject, type BenchServer } from './lib/seed';

const quick = process.argv.includes('--quick');
const throughputMode = process.argv.includes('--throughput');
/** --throughput reads the zip with curl in a process of its own unless --in-process-client (the client in this process, its CPU counted as the export's, as before 29 Nov 2026 14:20). */
const inProcessClient = process.argv.includes('--in-process-client');
const SIZES = (arg('sizes', throughputMode ? '1000,10000' : quick ? '500,2000' : '1000,5000,10000') ?? '').split(',').map(Number).filter((n) => n > 0);
const RUNS = Number(arg('runs', '1'));
const SHAPES = 5;
const MB = 1024 * 1024;

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const CLASSES = [
  { name: 'car', type: 'box', color: '#ff6b6b' },
  { name: 'building', type: 'polygon', color: '#4ecdc4' },
  { name: 'person', type: 'box', color: '#ffe66d' },
  { name: 'road', type: 'polygon', color: '#95e1d3' },
  { name: 'sign', type: 'box', color: '#f38181' },
];

interface Variant {
  name: string;
  format: ExportFormat;
  includeImages: boolean;
}
const ONLY = arg('variants')?.split(',');
const VARIANTS: Variant[] = (
  [
    { name: 'vellum', format: 'vellum', includeImages: false },
    { name: 'coco', format: 'coco', includeImages: false },
    { name: 'yolo', format: 'yolo', includeImages: false },
    { name: 'voc', format: 'voc', includeImages: false },
    { name: 'vellum + images', format: 'vellum', includeImages: true },
    { name: 'coco + images', format: 'coco', includeImages: true },
  ] satisfies Variant[]
).filter((v) => !ONLY || ONLY.includes(v.name));

interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
}
const memory = (): Memory => {
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external + m.arrayBuffers };
};

/** The kernel's peak RSS of this process, reset by resetPeakRss(); null where /proc is not there. */
function peakRss(): number | null {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1];
    return kb ? Number(kb) * 1024 : null;
  } catch {
    return null;
  }
}
function resetPeakRss(): boolean {
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 2; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface ExportRun {
  ms: number;
  cpuMs: number; // this process's CPU time (server, database, and the client when it runs here; libuv threads included)
  clientCpuMs: number | null; // the client's, when it is a process of its own (curl)
  bytes: number;
  entries: number;
  baseline: Memory;
  peak: Memory; // sampled maxima
  peakRssKernel: number | null;
  liveHeap: number; // largest heap used right after a full GC during the export
  retainedHeap: number; // heap used after the export and two GCs, over the baseline
}

/** Total entries from the zip's end records (the last 64 KiB hold them; ZIP64's when the classic one says 0xffff). */
function zipEntries(tail: Buffer): number {
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) !== 0x06054b50) continue;
    const n = tail.readUInt16LE(i + 10);
    const zip64 = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x06, 0x06]), i);
    return n === 0xffff && zip64 >= 0 ? Number(tail.readBigUInt64LE(zip64 + 32)) : n;
  }
  return -1;
}

/** Reads the export with curl in a process of its own, as a browser would on its own machine: the bytes, the zip's last 64 KiB, curl's and tail's CPU. */
async function curlExport(url: string, token: string, payload: string): Promise<{ bytes: number; tail: Buffer; cpuMs: number }> {
  const tailFile = path.join(os.tmpdir(), `vellum-export-bench-${process.pid}.tail`);
  const script = `set -o pipefail; curl -sS --fail -X POST -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' --data-binary @- -w '%{stderr}%{size_download}' "$URL" | tail -c 65536 > "$TAIL"; code=$?; times; exit $code`;
  const child = spawn('bash', ['-c', script], { env: { ...process.env, TOKEN: token, URL: url, TAIL: tailFile }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdin.end(payload);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`curl export exited with ${code}: ${err.slice(0, 300)}`);
  const tail = fs.readFileSync(tailFile);
  fs.rmSync(tailFile, { force: true });
  return { bytes: Number(/(\d+)\s*$/.exec(err)?.[1] ?? NaN), tail, cpuMs: childrenCpuMs(out) };
}

/** The children's user + system time from the `times` builtin's last line (e.g. "0m1.230s 0m0.310s"). */
function childrenCpuMs(timesOutput: string): number {
  const lines = timesOutput.trim().split('\n');
  const seconds = (t: string) => {
    const m = /(\d+)m([\d.]+)s/.exec(t);
    return m ? Number(m[1]) * 60 + Number(m[2]) : 0;
  };
  const children = lines[lines.length - 1]!.split(/\s+/);
  return (seconds(children[0]!) + seconds(children[1]!)) * 1000;
}

/**
 * `liveHeap: false` skips the once-a-second full GC (the throughput run: it would cost the export
 * seconds of CPU). `client: 'curl'` reads the zip in a process of its own (curlExport), so this
 * process's CPU is the server's and the database's alone.
 */
async function exportOnce(bench: BenchServer, projectId: string, v: Variant, opts: { liveHeap?: boolean; client?: 'in-process' | 'curl' } = {}): Promise<ExportRun> {
  await settle();
  const baseline = memory();
  const kernelPeak = resetPeakRss();
  const peak = { ...baseline };
  const sample = () => {
    const m = memory();
    peak.rss = Math.max(peak.rss, m.rss);
    peak.heapUsed = Math.max(peak.heapUsed, m.heapUsed);
    peak.external = Math.max(peak.external, m.external);
  };
  // process.memoryUsage() costs ~0.3 ms: every 10 ms it was 4% of a throughput run's CPU. There
  // the kernel's VmHWM gives the exact peak RSS, so the heap is sampled every 100 ms.
  const timer = setInterval(sample, opts.client === 'curl' ? 100 : 10);
  // Once a second a full GC, then the heap in use: what the export holds live, garbage aside.
  let liveHeap = baseline.heapUsed;
  const liveTimer = setInterval(() => {
    if (opts.liveHeap === false) return;
    gc();
    liveHeap = Math.max(liveHeap, process.memoryUsage().heapUsed);
  }, 1000);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let bytes = 0;
  let recent: Buffer[] = []; // the last chunks, at least 64 KiB of them (the zip's end records)
  let clientCpuMs: number | null = null;
  try {
    const payload = JSON.stringify({ project_id: projectId, format: v.format, include_images: v.includeImages, name: 'bench' });
    if (opts.client === 'curl') {
      const got = await curlExport(`${bench.server.url}/api/v1/annotations/export`, bench.user.token, payload);
      bytes = got.bytes;
      recent = [got.tail];
      clientCpuMs = got.cpuMs;
    }
    // node:http rather than fetch: the client shares this process, and web streams cost it more.
    else await new Promise<void>((resolve, reject) => {
      const req = http.request(`${bench.server.url}/api/v1/annotations/export`, { method: 'POST', headers: { authorization: `Bearer ${bench.user.token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } }, (res) => {
        let kept = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          recent.push(chunk);
          kept += chunk.length;
          while (kept - recent[0]!.length >= 65536) kept -= recent.shift()!.length;
        });
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`export ${v.name}: ${res.statusCode} ${Buffer.concat(recent).toString().slice(0, 300)}`))));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
  } finally {
    clearInterval(timer);
    clearInterval(liveTimer);
  }
  const tail = Buffer.concat(recent);
  recent = [];
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  sample();
  const peakRssKernel = kernelPeak ? peakRss() : null;
  await settle();
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, clientCpuMs, bytes, entries: zipEntries(tail), baseline, peak, peakRssKernel, liveHeap, retainedHeap: memory().heapUsed - baseline.heapUsed };
}

async function healthLatency(bench: BenchServer, runs: number): Promise<{ p50: number; p95: number }> {
  const times: number[] = [];
  for (let i = 0; i < runs + 20; i++) {
    const t = performance.now();
    const res = await fetch(`${bench.server.url}/api/v1/health`);
    await res.arrayBuffer();
    if (i >= 20) times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95) };
}

/** Baseline for the exports with image files: the same object read from storage n times, one after another, and thrown away. */
async function storageRead(bench: BenchServer, bucket: string, key: string, n: number): Promise<{ ms_per_image: number; cpu_ms_per_image: number; images_per_s: number }> {
  const storage = bench.server.built.ctx.storage;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const { body } = await storage.get(bucket, key);
    for await (const chunk of body) void chunk;
  }
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { ms_per_image: +(ms / n).toFixed(3), cpu_ms_per_image: +((cpu.user + cpu.system) / 1000 / n).toFixed(3), images_per_s: Math.round(n / (ms / 1000)) };
}

/** A 1024 x 768 JPEG with photo-like detail (smoothed noise), so its size is a photo's, not a flat colour's. */
async function photo(): Promise<Buffer> {
  const w = 256, h = 192;
  const raw = Buffer.alloc(w * h * 3);
  let s = 12345;
  for (let i = 0; i < raw.length; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    raw[i] = (i % 3) * 60 + (s % 80);
  }
  return sharp(raw, { raw: { width: w, height: h, channels: 3 } }).resize(1024, 768, { kernel: 'cubic' }).jpeg({ quality: 85 }).toBuffer();
}

interface Row {
  size: number;
  variant: string;
  runs: number;
  ms: number; // median
  cpu_ms: number; // of the same run
  images_per_s: number;
  /** with image files: time per image / one storage read of the file (the baseline) */
  vs_storage_read: number | null;
  zip_mb: number;
  entries: number;
  expected_entries: number;
  peak_rss_over_baseline_mb: number;
  peak_rss_source: 'VmHWM' | 'sampled';
  peak_rss_mb: number;
  peak_heap_over_baseline_mb: number;
  live_heap_over_baseline_mb: number;
  peak_external_over_baseline_mb: number;
  retained_heap_mb: number;
  baseline_rss_mb: number;
  baseline_heap_mb: number;
  load_average: number;
}

// Long because it reads as the benchmark's script on one server: seed each size, warm up, measure
// the baselines (/health, a storage read), export each variant at each size, then print the table
// and the memory ratios and write the rows.
async function main() {
  const bench = await benchServer();
  try {
    const ctx = bench.server.built.ctx;
    const bucket = bench.user.org.gcs_bucket_name;
    const jpeg = await photo();
    const objectKey = 'bench/shared/photo.jpg';
    await ctx.storage.put(bucket, objectKey, jpeg, { contentType: 'image/jpeg', contentLength: jpeg.length });

    const projects: { size: number; id: string }[] = [];
    let seedSeconds = 0;
    for (const size of SIZES) {
      const project = await createBenchProject(bench, `Export ${size}`, CLASSES);
      seedSeconds += await seedProject(bench, project, { images: size, folders: Math.max(1, Math.round(size / 100)), statuses: 'complete', shapes: SHAPES, objectKey });
      // seedProject writes documents in the old one-list layout; exports read annotation rows, as
      // start-up leaves them (without this move the zips held no annotations at all).
      const t0 = performance.now();
      await moveDocumentsToRows(ctx.database);
      seedSeconds += (performance.now() - t0) / 1000;
      projects.push({ size, id: project.id });
    }
    console.log(`seeded ${SIZES.join(' + ')} images (${SHAPES} shapes each) in ${seedSeconds.toFixed(1)} s; image file ${(jpeg.length / 1024).toFixed(0)} KiB; database ${ctx.database.kind}`);

    // Warm-up: JIT, the COCO kernels, PGlite's caches; not measured.
    for (const v of VARIANTS) await exportOnce(bench, projects[0]!.id, v);
    const health = await healthLatency(bench, 200);
    const floor = await storageRead(bench, bucket, objectKey, 1000);

    const rows: Row[] = [];
    for (const v of VARIANTS) {
      for (const { size, id } of projects) {
        const runs: ExportRun[] = [];
        for (let r = 0; r < RUNS; r++) runs.push(await exportOnce(bench, id, v));
        const med = [...runs].sort((a, b) => a.ms - b.ms)[Math.floor((runs.length - 1) / 2)]!;
        // Memory: the worst run (a peak is a peak).
        const rssOver = (run: ExportRun) => Math.max(run.peakRssKernel ?? 0, run.peak.rss) - run.baseline.rss;
        const worst = runs.reduce((a, b) => (rssOver(b) > rssOver(a) ? b : a));
        const row: Row = {
          size,
          variant: v.name,
          runs: runs.length,
          ms: Math.round(med.ms),
          cpu_ms: Math.round(med.cpuMs),
          images_per_s: Math.round(size / (med.ms / 1000)),
          vs_storage_read: v.includeImages ? +(med.ms / size / floor.ms_per_image).toFixed(1) : null,
          zip_mb: +(med.bytes / MB).toFixed(1),
          entries: med.entries,
          // vellum: one JSON per image, vellum.json, README.txt; coco: annotations.json, README.txt;
          // yolo: one label file per image, data.yaml, README.txt; voc: one XML per image, ImageSets/Main/default.txt, README.txt
          expected_entries: (v.format === 'coco' ? 0 : size) + (v.includeImages ? size : 0) + 2,
          peak_rss_over_baseline_mb: +(rssOver(worst) / MB).toFixed(1),
          peak_rss_source: worst.peakRssKernel !== null ? 'VmHWM' : 'sampled',
          peak_rss_mb: +((worst.baseline.rss + rssOver(worst)) / MB).toFixed(1),
          peak_heap_over_baseline_mb: +(Math.max(...runs.map((r) => r.peak.heapUsed - r.baseline.heapUsed)) / MB).toFixed(1),
          live_heap_over_baseline_mb: +(Math.max(...runs.map((r) => r.liveHeap - r.baseline.heapUsed)) / MB).toFixed(1),
          peak_external_over_baseline_mb: +(Math.max(...runs.map((r) => r.peak.external - r.baseline.external)) / MB).toFixed(1),
          retained_heap_mb: +(Math.max(...runs.map((r) => r.retainedHeap)) / MB).toFixed(1),
          baseline_rss_mb: +(worst.baseline.rss / MB).toFixed(0),
          baseline_heap_mb: +(worst.baseline.heapUsed / MB).toFixed(0),
          load_average: +os.loadavg()[0].toFixed(1),
        };
        if (row.entries !== row.expected_entries) throw new Error(`${v.name} at ${size}: ${row.entries} zip entries, expected ${row.expected_entries}`);
        rows.push(row);
        console.log(`  ${v.name.padEnd(16)} ${String(size).padStart(6)}: ${(row.ms / 1000).toFixed(2)} s (CPU ${(row.cpu_ms / 1000).toFixed(2)} s), ${row.images_per_s} images/s, ${row.zip_mb} MB, peak RSS +${row.peak_rss_over_baseline_mb} MB, heap +${row.peak_heap_over_baseline_mb} MB (live +${row.live_heap_over_baseline_mb} MB) (load ${row.load_average})`);
      }
    }

    const smallest = SIZES[0]!, largest = SIZES[SIZES.length - 1]!;
    const ratios = VARIANTS.map((v) => {
      const a = rows.find((r) => r.variant === v.name && r.size === smallest)!;
      const b = rows.find((r) => r.variant === v.name && r.size === largest)!;
      return {
        variant: v.name,
        // Peak RSS itself (baseline included): RSS rarely shrinks, so after the warm-up the part over
        // the baseline is often ~0 and a ratio of two near-zero figures says nothing.
        rss_ratio: +(b.peak_rss_mb / a.peak_rss_mb).toFixed(2),
        rss_over_baseline_mb: [a.peak_rss_over_baseline_mb, b.peak_rss_over_baseline_mb],
        heap_ratio: +(b.peak_heap_over_baseline_mb / Math.max(a.peak_heap_over_baseline_mb, 0.1)).toFixed(2),
        live_heap_over_baseline_mb: [a.live_heap_over_baseline_mb, b.live_heap_over_baseline_mb],
        time_per_image_ratio: +((b.ms / largest) / (a.ms / smallest)).toFixed(2),
        cpu_per_image_ratio: +((b.cpu_ms / largest) / (a.cpu_ms / smallest)).toFixed(2),
      };
    });

    console.log(`\nExport benchmark: ${ctx.database.kind}, sizes ${SIZES.join(', ')}, ${RUNS} run(s) each, load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs`);
    console.log(`GET /health (baseline, same run): p50 ${health.p50.toFixed(2)} ms, p95 ${health.p95.toFixed(2)} ms`);
    console.log(`storage read of the ${(jpeg.length / 1024).toFixed(0)} KiB file (baseline for the exports with files): ${floor.ms_per_image} ms per image (CPU ${floor.cpu_ms_per_image} ms), ${floor.images_per_s} images/s\n`);
    const header = ['variant', 'images', 'time s', 'CPU s', 'images/s', 'vs read', 'zip MB', 'peak RSS MB', 'peak RSS +MB', 'peak heap +MB', 'live heap +MB', 'retained heap MB'];
    const table = rows.map((r) => [r.variant, String(r.size), (r.ms / 1000).toFixed(2), (r.cpu_ms / 1000).toFixed(2), String(r.images_per_s), r.vs_storage_read === null ? '' : `${r.vs_storage_read}x`, r.zip_mb.toFixed(1), r.peak_rss_mb.toFixed(0), r.peak_rss_over_baseline_mb.toFixed(1), r.peak_heap_over_baseline_mb.toFixed(1), r.live_heap_over_baseline_mb.toFixed(1), r.retained_heap_mb.toFixed(1)]);
    const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
    const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
    console.log(line(header));
    console.log(widths.map((w) => '-'.repeat(w)).join('  '));
    for (const r of table) console.log(line(r));
    console.log(`\npeak memory over baseline at ${largest} / at ${smallest} images (flat: ~1.0):`);
    for (const r of ratios) console.log(`  ${r.variant.padEnd(16)} peak RSS ${r.rss_ratio}x (over baseline ${r.rss_over_baseline_mb.join(' -> ')} MB), heap over baseline ${r.heap_ratio}x (live ${r.live_heap_over_baseline_mb.join(' -> ')} MB); time per image ${r.time_per_image_ratio}x, CPU per image ${r.cpu_per_image_ratio}x`);

    const outFile = process.env.EXPORT_BENCH_OUT ?? path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'export.json');
    fs.mkdirSync(path.dirname(outFile), { recursive: true });
    const out = {
      benchmark: 'export',
      date: new Date().toISOString(),
      database: ctx.database.kind,
      node: process.version,
      cpus: os.cpus().length,
      // Other work on the machine inflates times: compare runs with similar load.
      load_average_1m: +os.loadavg()[0].toFixed(2),
      sizes: SIZES,
      shapes_per_image: SHAPES,
      image_file_bytes: jpeg.length,
      runs: RUNS,
      seed_seconds: +seedSeconds.toFixed(1),
      health_ms: { p50: +health.p50.toFixed(2), p95: +health.p95.toFixed(2) },
      storage_read: floor,
      target: 'peak memory over baseline flat as the dataset grows (ratio largest / smallest ~1.0)',
      ratios,
      results: rows,
    };
    fs.writeFileSync(outFile, `${JSON.stringify(out, null, 2)}\n`);
    console.log(`wrote ${path.relative(process.cwd(), outFile)}`);
  } finally {
    await bench.stop();
  }
}

/** `cat` of the files into a pipe counted by `wc -c`: wall time, the children's CPU time, bytes. */
async function catFiles(files: string[]): Promise<{ ms: number; cpuMs: number; bytes: number }> {
  const t0 = performance.now();
  // `times` prints the shell's and then its children's user and system time (e.g. "0m1.230s").
  const child = spawn('sh', ['-c', 'xargs -0 cat | wc -c; times'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stdin.end(files.join('\0'));
  await new Promise<void>((resolve, reject) => child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`cat exited with ${code}`)))));
  const ms = performance.now() - t0;
  return { ms, cpuMs: childrenCpuMs(out), bytes: Number(out.trim().split('\n')[0]) };
}

/**
 * EXPORT_CPU_PROF=<dir>: a V8 CPU profile of the measured export alone (seeding and cat left out),
 * written as <dir>/export-<size>.cpuprofile (open it in Chrome DevTools or speedscope).
 * EXPORT_HEAP_PROF=<dir>: the same export's allocations, sampled every 32 KiB (what the garbage
 * collector has to clear), as <dir>/export-<size>.heapprofile.
 */
async function cpuProfile(size: number): Promise<() => Promise<void>> {
  const cpuDir = process.env.EXPORT_CPU_PROF;
  const heapDir = process.env.EXPORT_HEAP_PROF;
  if (!cpuDir && !heapDir) return async () => undefined;
  const session = new inspector.Session();
  session.connect();
  if (cpuDir) {
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  if (heapDir) await session.post('HeapProfiler.startSampling', { samplingInterval: 32 * 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  return async () => {
    if (cpuDir) {
      const { profile } = await session.post('Profiler.stop');
      fs.mkdirSync(cpuDir, { recursive: true });
      fs.writeFileSync(path.join(cpuDir, `export-${size}.cpuprofile`), JSON.stringify(profile));
    }
    if (heapDir) {
      const { profile } = await session.post('HeapProfiler.stopSampling');
      fs.mkdirSync(heapDir, { recursive: true });
      fs.writeFileSync(path.join(heapDir, `export-${size}.heapprofile`), JSON.stringify(profile));
    }
    session.disconnect();
  };
}

/** The real photographs of --throughput (160 COCO val2017 JPEGs, 52-379 KiB), by path: never copied into the repo. */
const SEG_DEV_IMAGES = path.join(process.env.SEG_DEV_DIR ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../shared/datasets/seg-dev'), 'images');

/**
 * The photographs, each put into storage once (bench/photos/<name>, with its sidecar); null when
 * the folder is absent.
 */
async function storedPhotos(ctx: BenchServer['server']['built']['ctx'], root: string, bucket: string): Promise<{ file: string; meta: string; bytes: number }[] | null> {
  if (!fs.existsSync(SEG_DEV_IMAGES)) return null;
  const names = fs.readdirSync(SEG_DEV_IMAGES).filter((n) => /\.jpe?g$/i.test(n)).sort();
  const stored = [];
  for (const name of names) {
    const bytes = fs.readFileSync(path.join(SEG_DEV_IMAGES, name));
    const key = `bench/photos/${name}`;
    await ctx.storage.put(bucket, key, bytes, { contentType: 'image/jpeg', contentLength: bytes.length });
    stored.push({ file: path.join(root, bucket, ...key.split('/')), meta: path.join(root, '.meta', bucket, ...key.split('/')), bytes: bytes.length });
  }
  return stored.length > 0 ? stored : null;
}

// Long because it reads as the throughput run's script: the photographs hard-linked under the
// images' keys in turn, then per size the export (memory sampled by exportOnce) and cat of the same files.
async function throughput() {
  const bench = await benchServer();
  try {
    const ctx = bench.server.built.ctx;
    const storage = ctx.storage as unknown as { root?: string };
    if (!storage.root) throw new Error('--throughput needs the local storage driver (hard links to the stored photographs)');
    const bucket = bench.user.org.gcs_bucket_name;
    const photos = await storedPhotos(ctx, storage.root, bucket);
    if (!photos) {
      console.log(`export --throughput: ${SEG_DEV_IMAGES} is absent (the real photographs it streams), skipped`);
      return;
    }
    const v: Variant = { name: 'coco + images', format: 'coco', includeImages: true };
    const rows = [];
    for (const size of SIZES) {
      const project = await createBenchProject(bench, `Throughput ${size}`, CLASSES);
      const seeded = await seedProject(bench, project, { images: size, folders: Math.max(1, Math.round(size / 100)), statuses: 'complete', shapes: SHAPES });
      await moveDocumentsToRows(ctx.database);
      // Image g gets photograph g mod 160: each photograph under size / 160 keys, all in the export.
      const files: string[] = [];
      let imageBytes = 0;
      for (let g = 0; g < size; g++) {
        const key = `${project.gcs_path}/images/img_${g}`;
        const file = path.join(storage.root, bucket, ...key.split('/'));
        const meta = path.join(storage.root, '.meta', bucket, ...key.split('/'));
        if (g === 0) {
          fs.mkdirSync(path.dirname(file), { recursive: true });
          fs.mkdirSync(path.dirname(meta), { recursive: true });
        }
        const photo = photos[g % photos.length]!;
        fs.linkSync(photo.file, file);
        fs.linkSync(photo.meta, meta);
        files.push(file);
        imageBytes += photo.bytes;
      }
      console.log(`seeded ${size} images with ${size} linked files (${photos.length} photographs, ${(imageBytes / MB).toFixed(1)} MB) in ${seeded.toFixed(1)} s`);
      if (rows.length === 0) await exportOnce(bench, project.id, v); // warm-up, not measured
      await catFiles(files); // warm the page cache's directory entries as the warm-up export did
      const loadBefore = os.loadavg()[0];
      const stopProfile = await cpuProfile(size);
      const run = await exportOnce(bench, project.id, v, { liveHeap: false, client: inProcessClient ? 'in-process' : 'curl' });
      await stopProfile();
      const cat = await catFiles(files);
      if (cat.bytes !== imageBytes) throw new Error(`cat read ${cat.bytes} bytes, expected ${imageBytes}`);
      if (run.entries !== size + 2) throw new Error(`export of ${size}: ${run.entries} zip entries, expected ${size + 2}`);
      const imageMb = imageBytes / MB;
      const peakRss = Math.max(run.peakRssKernel ?? 0, run.peak.rss);
      const row = {
        images: size,
        image_mb: +imageMb.toFixed(1),
        export_s: +(run.ms / 1000).toFixed(2),
        export_cpu_s: +(run.cpuMs / 1000).toFixed(2),
        client: inProcessClient ? 'in-process' : 'curl',
        client_cpu_s: run.clientCpuMs === null ? null : +(run.clientCpuMs / 1000).toFixed(2),
        export_cpu_ms_per_image_mb: +(run.cpuMs / imageMb).toFixed(1),
        export_image_mb_per_s: +(imageMb / (run.ms / 1000)).toFixed(1),
        export_zip_mb_per_s: +(run.bytes / MB / (run.ms / 1000)).toFixed(1),
        // per CPU second: what one idle core would do, steadier than wall time on a busy machine
        export_image_mb_per_cpu_s: +(imageMb / (run.cpuMs / 1000)).toFixed(1),
        cat_s: +(cat.ms / 1000).toFixed(2),
        cat_cpu_s: +(cat.cpuMs / 1000).toFixed(2),
        cat_mb_per_s: +(imageMb / (cat.ms / 1000)).toFixed(1),
        cat_mb_per_cpu_s: +(imageMb / Math.max(cat.cpuMs / 1000, 0.01)).toFixed(1),
        export_over_cat_time: +(run.ms / cat.ms).toFixed(1),
        peak_rss_mb: +(peakRss / MB).toFixed(0),
        peak_rss_over_baseline_mb: +((peakRss - run.baseline.rss) / MB).toFixed(1),
        peak_rss_source: run.peakRssKernel !== null ? 'VmHWM' : 'sampled',
        peak_heap_over_baseline_mb: +((run.peak.heapUsed - run.baseline.heapUsed) / MB).toFixed(1),
        load_before: +loadBefore.toFixed(1),
        load_after: +os.loadavg()[0].toFixed(1),
      };
      rows.push(row);
      console.log(row);
    }
    const [a, b] = [rows[0]!, rows[rows.length - 1]!];
    console.log(`\nExport throughput (COCO + images, ${ctx.database.kind}, ${photos.length} seg-dev photographs in turn, ${(photos.reduce((n, p) => n + p.bytes, 0) / photos.length / 1024).toFixed(0)} KiB on average, ${os.cpus().length} CPUs):`);
    console.table(rows.map((r) => ({ images: r.images, 'image MB': r.image_mb, 'export MB/s': r.export_image_mb_per_s, 'cat MB/s': r.cat_mb_per_s, 'export MB/CPU s': r.export_image_mb_per_cpu_s, 'cat MB/CPU s': r.cat_mb_per_cpu_s, 'export / cat time': r.export_over_cat_time, 'export CPU s': r.export_cpu_s, 'export CPU ms/MB': r.export_cpu_ms_per_image_mb, 'client CPU s': r.client_cpu_s ?? 'in export', 'cat CPU s': r.cat_cpu_s, 'peak RSS MB': r.peak_rss_mb, 'over baseline MB': r.peak_rss_over_baseline_mb, load: `${r.load_before} -> ${r.load_after}` })));
    console.log(`peak RSS at ${b.images} / at ${a.images} images: ${(b.peak_rss_mb / a.peak_rss_mb).toFixed(2)}x; target >= 50 MB/s of image bytes: ${rows.every((r) => r.export_image_mb_per_s >= 50) ? 'met' : 'NOT met'}`);
    const outFile = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'export-throughput.json');
    fs.mkdirSync(path.dirname(outFile), { recursive: true });
    fs.writeFileSync(outFile, `${JSON.stringify({ benchmark: 'export --throughput', date: new Date().toISOString(), database: ctx.database.kind, cpus: os.cpus().length, images_from: 'seg-dev (160 COCO val2017 photographs, hard-linked in turn)', photographs: photos.length, photograph_bytes_mean: Math.round(photos.reduce((n, p) => n + p.bytes, 0) / photos.length), load_average: os.loadavg().map((l) => +l.toFixed(1)), rows }, null, 2)}\n`);
    console.log(`wrote ${path.relative(process.cwd(), outFile)}`);
  } finally {
    await bench.stop();
  }
}

(throughputMode ? throughput() : main()).catch((err) => {
  console.error(err);
  process.exit(1);
});
