// Dataset import (issue 17): a generated COCO zip of N images with 20 annotations each, imported
// through the API (reserve, PUT, start, poll until done), next to the baseline a user has without
// import: uploading the same images one by one (upload-url, PUT, register; 4 in flight, as the
// browser does), in the same run and the same server.
//
//   node --import tsx bench/import.bench.ts                 # sizes 1000,10000 (200,000 annotations at 10k)
//   options: --sizes 1000,10000, --dense 10000, --quick (sizes 200,1000, dense 5000), --pg <url> (PostgreSQL; else embedded PGlite)
//
// Then one image with --dense boxes: a lone COCO JSON imported onto an image already in the
// project, next to saving the same boxes through save-changes (the editor's path, 20,000 a call).
// An import keeps at most MAX_SHAPES_PER_IMAGE shapes of one image, so --dense stops there.
//
// The images are one 640x480 JPEG (a smooth photo-like picture) stored under N names: the import
// runs every image through an upload's checks (type from bytes, decode, thumbnail), so the bytes'
// content matters little; the annotations are 12 boxes and 8 twelve-vertex polygons per image over
// 5 categories. The zip is written to a temp file before anything is measured (yazl, images
// stored, JSON deflated).
//
// Memory: the server runs in this process. Before each run two full GCs, then the kernel's peak
// RSS (VmHWM) is reset through /proc/self/clear_refs; reported is the peak over the RSS before the
// run, and the ratio of that peak at the largest size to the smallest (flat in the dataset size:
// ~1). Time is wall time; CPU is this process's (server, database and client). Writes
// bench/results/import.json.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import yazl from 'yazl';
import { api } from '../tests/api/harness';
import { MAX_SHAPES_PER_IMAGE } from '../src/contract/imports';
import { arg, benchServer, createBenchProject, type BenchServer } from './lib/seed';

const quick = process.argv.includes('--quick');
const SIZES = (arg('sizes', quick ? '200,1000' : '1000,10000') ?? '').split(',').map(Number).filter((n) => n > 0);
const BOXES = 12;
const POLYGONS = 8;
const MB = 1024 * 1024;
const UPLOADS_IN_FLIGHT = 4;

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

function peakRss(): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1];
  return Number(kb ?? 0) * 1024;
}
function resetPeakRss(): void {
  fs.writeFileSync('/proc/self/clear_refs', '5');
}
async function settle(): Promise<void> {
  for (let i = 0; i < 2; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function photo(): Promise<Buffer> {
  const w = 640, h = 480;
  const px = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 3;
      px[i] = (x * 255) / w;
      px[i + 1] = (y * 255) / h;
      px[i + 2] = 128 + 100 * Math.sin((x + y) / 40);
    }
  }
  return sharp(px, { raw: { width: w, height: h, channels: 3 } }).jpeg({ quality: 85 }).toBuffer();
}

/** Writes the COCO JSON for n images, streamed, and returns its path. */
async function writeCoco(dir: string, n: number): Promise<string> {
  const file = path.join(dir, `instances_${n}.json`);
  const out = fs.createWriteStream(file);
  const write = (s: string) => (out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r())));
  await write('{"info":{"description":"bench"},"categories":[');
  await write(['car', 'person', 'sign', 'building', 'road'].map((name, i) => `{"id":${i + 1},"name":"${name}"}`).join(','));
  await write('],"images":[');
  for (let i = 0; i < n; i++) await write(`${i ? ',' : ''}{"id":${i + 1},"file_name":"img_${i}.jpg","width":640,"height":480}`);
  await write('],"annotations":[');
  let id = 1;
  for (let i = 0; i < n; i++) {
    const parts: string[] = [];
    for (let b = 0; b < BOXES; b++) {
      const x = (b * 47 + i) % 560, y = (b * 31) % 400;
      parts.push(`{"id":${id++},"image_id":${i + 1},"category_id":${(b % 3) + 1},"bbox":[${x},${y},60,40],"area":2400,"iscrowd":0}`);
    }
    for (let p = 0; p < POLYGONS; p++) {
      const cx = 60 + ((p * 71 + i) % 520), cy = 60 + ((p * 53) % 360);
      const ring = Array.from({ length: 12 }, (_, k) => [cx + 40 * Math.cos((k * Math.PI) / 6), cy + 40 * Math.sin((k * Math.PI) / 6)].map((v) => v.toFixed(1)).join(',')).join(',');
      parts.push(`{"id":${id++},"image_id":${i + 1},"category_id":${(p % 2) + 4},"segmentation":[[${ring}]],"bbox":[${cx - 40},${cy - 40},80,80],"area":5000,"iscrowd":0}`);
    }
    await write(`${i ? ',' : ''}${parts.join(',')}`);
  }
  await write(']}');
  out.end();
  await new Promise<void>((r) => out.on('close', () => r()));
  return file;
}

async function writeZip(dir: string, n: number, jpeg: Buffer): Promise<string> {
  const json = await writeCoco(dir, n);
  const file = path.join(dir, `coco_${n}.zip`);
  const zip = new yazl.ZipFile();
  zip.addFile(json, 'annotations/instances_default.json', { compress: true });
  for (let i = 0; i < n; i++) zip.addBuffer(jpeg, `images/default/img_${i}.jpg`, { compress: false });
  zip.end();
  await new Promise<void>((resolve, reject) => zip.outputStream.pipe(fs.createWriteStream(file)).on('close', resolve).on('error', reject));
  fs.rmSync(json);
  return file;
}

function putFile(url: string, file: string, contentType: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'PUT', headers: { 'content-type': contentType, 'content-length': fs.statSync(file).size } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    fs.createReadStream(file).pipe(req);
  });
}

interface Measured {
  seconds: number;
  cpuSeconds: number;
  peakOverBaselineMb: number;
  /** Largest V8 heap in use right after a full GC (taken every 2 s), over the one before the run: what the code holds, garbage and the embedded database's wasm memory aside. */
  liveHeapOverBaselineMb: number;
}

async function measure(fn: () => Promise<void>): Promise<Measured> {
  await settle();
  const before = process.memoryUsage();
  let liveHeap = before.heapUsed;
  const liveTimer = setInterval(() => {
    gc();
    liveHeap = Math.max(liveHeap, process.memoryUsage().heapUsed);
  }, 2000);
  resetPeakRss();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  try {
    await fn();
  } finally {
    clearInterval(liveTimer);
  }
  const cpu = process.cpuUsage(cpu0);
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, peakOverBaselineMb: (peakRss() - before.rss) / MB, liveHeapOverBaselineMb: (liveHeap - before.heapUsed) / MB };
}

async function importZip(bench: BenchServer, zipFile: string, n: number): Promise<void> {
  const { server, user } = bench;
  const project = await createBenchProject(bench, `import ${n} ${Date.now()}`);
  const created = await api(server.url, 'POST', `/api/v1/projects/${project.id}/imports`, { token: user.token, body: { filename: 'dataset.zip', size: fs.statSync(zipFile).size } });
  if (created.status !== 201) throw new Error(`create import: ${created.status} ${JSON.stringify(created.body)}`);
  if ((await putFile(created.body.upload_url, zipFile, created.body.content_type)) !== 200) throw new Error('PUT of the archive failed');
  const started = await api(server.url, 'POST', `/api/v1/imports/${created.body.import_id}/start`, { token: user.token });
  if (started.status !== 202) throw new Error(`start: ${started.status} ${JSON.stringify(started.body)}`);
  for (;;) {
    await new Promise((r) => setTimeout(r, 250));
    const job = await api(server.url, 'GET', `/api/v1/imports/${created.body.import_id}`, { token: user.token });
    if (job.body.status === 'failed') throw new Error(`import failed: ${job.body.error}`);
    if (job.body.status === 'done') {
      const r = job.body.report;
      if (r.images_created !== n || r.annotations_created !== n * (BOXES + POLYGONS)) throw new Error(`import incomplete: ${JSON.stringify(r).slice(0, 300)}`);
      return;
    }
  }
}

async function uploadAll(bench: BenchServer, jpegFile: string, n: number): Promise<void> {
  const { server, user } = bench;
  const project = await createBenchProject(bench, `upload ${n} ${Date.now()}`);
  let next = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= n) return;
      const filename = `img_${i}.jpg`;
      const url = await api(server.url, 'POST', `/api/v1/projects/${project.id}/images/upload-url?org_id=${user.org.id}`, { token: user.token, body: { filename, content_type: 'image/jpeg', folder_path: '/' } });
      if (url.status !== 200) throw new Error(`upload-url: ${url.status}`);
      if ((await putFile(url.body.upload_url, jpegFile, 'image/jpeg')) !== 200) throw new Error('PUT failed');
      const reg = await api(server.url, 'POST', `/api/v1/projects/${project.id}/images/register?org_id=${user.org.id}`, { token: user.token, body: { filename, folder_path: '/' } });
      if (reg.status !== 200) throw new Error(`register: ${reg.status} ${JSON.stringify(reg.body)}`);
    }
  };
  await Promise.all(Array.from({ length: UPLOADS_IN_FLIGHT }, worker));
}

/** A lone COCO JSON with `count` boxes on one image already in the project (the "100,000 annotations on one image" case). */
async function denseImage(bench: BenchServer, tmp: string, jpegFile: string, count: number): Promise<{ import: Measured; save: Measured }> {
  const { server, user } = bench;
  const boxes = (offset: number, n: number) => Array.from({ length: n }, (_, k) => ({ x: ((offset + k) * 7) % 600, y: ((offset + k) * 13) % 440, w: 20, h: 15 }));
  const file = path.join(tmp, 'dense.json');
  const annotations = boxes(0, count).map((b, k) => ({ id: k + 1, image_id: 1, category_id: 1 + (k % 3), bbox: [b.x, b.y, b.w, b.h], area: 300, iscrowd: 0 }));
  fs.writeFileSync(file, JSON.stringify({ images: [{ id: 1, file_name: 'dense.jpg', width: 640, height: 480 }], categories: [{ id: 1, name: 'car' }, { id: 2, name: 'person' }, { id: 3, name: 'sign' }], annotations }));
  const setup = async (label: string) => {
    const project = await createBenchProject(bench, `${label} ${Date.now()}`, ['car', 'person', 'sign'].map((name) => ({ name, type: 'box', color: '#FFADAD' })));
    const url = await api(server.url, 'POST', `/api/v1/projects/${project.id}/images/upload-url?org_id=${user.org.id}`, { token: user.token, body: { filename: 'dense.jpg', content_type: 'image/jpeg', folder_path: '/' } });
    await putFile(url.body.upload_url, jpegFile, 'image/jpeg');
    const reg = await api(server.url, 'POST', `/api/v1/projects/${project.id}/images/register?org_id=${user.org.id}`, { token: user.token, body: { filename: 'dense.jpg', folder_path: '/' } });
    return { projectId: project.id, imageId: reg.body.image.id as string };
  };
  const forImport = await setup('dense import');
  const imported = await measure(async () => {
    const created = await api(server.url, 'POST', `/api/v1/projects/${forImport.projectId}/imports`, { token: user.token, body: { filename: 'dense.json', size: fs.statSync(file).size } });
    await putFile(created.body.upload_url, file, created.body.content_type);
    await api(server.url, 'POST', `/api/v1/imports/${created.body.import_id}/start`, { token: user.token });
    for (;;) {
      await new Promise((r) => setTimeout(r, 250));
      const job = await api(server.url, 'GET', `/api/v1/imports/${created.body.import_id}`, { token: user.token });
      if (job.body.status === 'failed') throw new Error(`dense import failed: ${job.body.error}`);
      if (job.body.status === 'done') {
        if (job.body.report.annotations_created !== count) throw new Error(`dense import wrote ${job.body.report.annotations_created}`);
        return;
      }
    }
  });
  fs.rmSync(file);
  // Baseline: the same shapes saved through save-changes, the editor's path, in bodies under its 8 MB limit.
  const forSave = await setup('dense save');
  const saved = await measure(async () => {
    let version = 0;
    for (let offset = 0; offset < count; offset += 20_000) {
      const upserts = boxes(offset, Math.min(20_000, count - offset)).map((b, k) => ({ id: `s${offset + k}`, name: ['car', 'person', 'sign'][(offset + k) % 3], bounding_box: b }));
      const res = await api(server.url, 'POST', '/api/v1/annotations/save-changes', { token: user.token, body: { image_id: forSave.imageId, project_id: forSave.projectId, image_filename: 'dense.jpg', base_version: version, upserts, removed_ids: [] } });
      if (res.status !== 200) throw new Error(`save-changes: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      version = res.body.version;
    }
  });
  return { import: imported, save: saved };
}

const here = path.dirname(fileURLToPath(import.meta.url));
process.env.IMPORT_POLL_MS = '100';
const bench = await benchServer();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vellum-import-bench-'));
const DENSE = Math.min(MAX_SHAPES_PER_IMAGE, Number(arg('dense', quick ? '5000' : String(MAX_SHAPES_PER_IMAGE))));
/** The one-image row (an array, filled inside try: eslint reads a `let` assigned there as unused). */
const denseRows: { import: Measured; save: Measured; load: number[] }[] = [];
const rows: { images: number; annotations: number; zipMb: number; import: Measured; upload: Measured; load: number[] }[] = [];
try {
  const jpeg = await photo();
  const jpegFile = path.join(tmp, 'photo.jpg');
  fs.writeFileSync(jpegFile, jpeg);
  for (const n of SIZES) {
    const zipFile = await writeZip(tmp, n, jpeg);
    const zipMb = fs.statSync(zipFile).size / MB;
    const imported = await measure(() => importZip(bench, zipFile, n));
    fs.rmSync(zipFile);
    const uploaded = await measure(() => uploadAll(bench, jpegFile, n));
    rows.push({ images: n, annotations: n * (BOXES + POLYGONS), zipMb, import: imported, upload: uploaded, load: os.loadavg() });
    console.log(`${n} images: import ${imported.seconds.toFixed(1)} s (peak +${imported.peakOverBaselineMb.toFixed(0)} MB), upload ${uploaded.seconds.toFixed(1)} s (peak +${uploaded.peakOverBaselineMb.toFixed(0)} MB), load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  }
  const dense = await denseImage(bench, tmp, jpegFile, DENSE);
  denseRows.push({ ...dense, load: os.loadavg() });
  console.log(`one image, ${DENSE.toLocaleString()} annotations: import ${dense.import.seconds.toFixed(1)} s (peak +${dense.import.peakOverBaselineMb.toFixed(0)} MB), save-changes ${dense.save.seconds.toFixed(1)} s (peak +${dense.save.peakOverBaselineMb.toFixed(0)} MB)`);
} finally {
  await bench.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
}

console.log(`\nImport of a COCO zip vs uploading the same images (${os.cpus().length} cores, ${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`);
console.log('| images | annotations | zip MB | import s | upload s | import / upload time | import peak RSS over start | import live heap over start | upload peak RSS over start | upload live heap over start | load (1/5/15 min) |');
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
for (const r of rows) {
  console.log(`| ${r.images.toLocaleString()} | ${r.annotations.toLocaleString()} | ${r.zipMb.toFixed(0)} | ${r.import.seconds.toFixed(1)} | ${r.upload.seconds.toFixed(1)} | ${(r.import.seconds / r.upload.seconds).toFixed(2)} | ${r.import.peakOverBaselineMb.toFixed(0)} MB | ${r.import.liveHeapOverBaselineMb.toFixed(1)} MB | ${r.upload.peakOverBaselineMb.toFixed(0)} MB | ${r.upload.liveHeapOverBaselineMb.toFixed(1)} MB | ${r.load.map((l) => l.toFixed(2)).join(' / ')} |`);
}
if (rows.length > 1) {
  const [a, b] = [rows[0]!, rows[rows.length - 1]!];
  console.log(`\nImport at ${b.images.toLocaleString()} images / at ${a.images.toLocaleString()} (the dataset grew ${b.images / a.images}x; flat: ~1): peak RSS ${(Math.max(1, b.import.peakOverBaselineMb) / Math.max(1, a.import.peakOverBaselineMb)).toFixed(2)}, live heap ${(Math.max(1, b.import.liveHeapOverBaselineMb) / Math.max(1, a.import.liveHeapOverBaselineMb)).toFixed(2)}`);
}
const denseRow = denseRows[0];
if (denseRow) {
  console.log(`\nOne image with ${DENSE.toLocaleString()} boxes: import of a lone COCO JSON vs the same boxes through save-changes (20,000 per call)`);
  console.log('| path | s | peak RSS over start | load (1/5/15 min) |');
  console.log('|---|---:|---:|---|');
  console.log(`| import | ${denseRow.import.seconds.toFixed(1)} | ${denseRow.import.peakOverBaselineMb.toFixed(0)} MB | ${denseRow.load.map((l) => l.toFixed(2)).join(' / ')} |`);
  console.log(`| save-changes | ${denseRow.save.seconds.toFixed(1)} | ${denseRow.save.peakOverBaselineMb.toFixed(0)} MB | |`);
}
const out = process.env.IMPORT_BENCH_OUT ?? path.join(here, 'results', 'import.json');
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), cores: os.cpus().length, database: process.env.DATABASE_URL ? 'postgres' : 'pglite', rows, dense: denseRow ?? null }, null, 2));
