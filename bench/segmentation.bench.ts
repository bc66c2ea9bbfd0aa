// Assisted segmentation: latency over HTTP and mask quality against OpenCV's GrabCut in the same run.
//
//   node --import tsx bench/segmentation.bench.ts [--quick] [--quality | --latency]
//        [--methods=vellum,grabcut] [--images=N] [--no-box] [--box-alone] [--verbose]
//
// Latency: a real server (embedded PGlite, local storage), seg-dev photographs enlarged to 1, 12 and
// 48 MP uploaded through the normal flow; process-image timed on fresh images (cache miss: storage
// read, decode, embedding), get-mask timed over annotator sessions (the protocol's clicks until
// IoU 0.90 or 20, the previous mask from the second click on; p50, p95).
// Quality: real photographs with object masks (../shared/datasets/seg-dev), the standard click
// protocol, the built-in segmenter and OpenCV's GrabCut with the same clicks, and GrabCut with a
// box first (./lib/segmentation-quality.ts). --images=N takes N of the 160 spread over the set (GrabCut
// takes 0.5-2 s a click, so the side-by-side table uses 40). --box-alone runs only the box, no
// clicks, on all 160 for both methods, and replaces only the 'box alone' rows of the last results. Targets (issue 18): NoC@85 and NoC@90 at least
// 25% below GrabCut's, IoU after one click above it, under 5% harmful clicks, get-mask p50 < 50 ms,
// process-image < 1 s at 12 MP. Writes bench/results/segmentation.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { buildKernels } from '../assembly/build.mjs';
import { api, onboardedUser, startServer } from '../tests/api/harness';
import { createProject, uploadImage } from '../tests/fixtures/datasets';
import { firstClick, iou, nextClick, syntheticImage } from '../tests/fixtures/segmentation';
import { decodeRle } from '../src/contract/rle';
import { loadSegDev, segDevQuality, type QualityRow } from './lib/segmentation-quality';

const here = path.dirname(fileURLToPath(import.meta.url));
const quick = process.argv.includes('--quick');

function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}
const median = (v: number[]) => percentile(v, 50);
const round = (v: number, d = 1) => Math.round(v * 10 ** d) / 10 ** d;

// ---------------------------------------------------------------- latency over HTTP

interface LatencyRow {
  megapixels: number;
  width: number;
  height: number;
  process_image_ms: { median: number; runs: number[] };
  get_mask_ms: { p50: number; p95: number; runs: number };
  /** CPU time of this process (server and client share it) per call: what the call costs on this CPU whatever else runs */
  process_image_cpu_ms: { median: number };
  get_mask_cpu_ms: { p50: number; p95: number };
  load_average: number;
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
};

interface LatencyImage {
  bytes: Buffer;
  /** the object's mask at the photograph's own size, row-major 0/1, for the protocol's clicks */
  truth: Uint8Array;
  /** the photograph's own size (clicks are chosen there and scaled up) */
  w: number;
  h: number;
}

/**
 * Real photographs from seg-dev enlarged to the row's size (the object's mask kept at the
 * photograph's size), so get-mask is timed on photo content with the protocol's clicks. Without
 * seg-dev, generated images stand in (with their disc as the object).
 */
async function latencyImages(count: number, width: number, height: number): Promise<LatencyImage[]> {
  // The same photographs at every size (the first of five spread over the set), so rows compare.
  const samples = (await loadSegDev({ limit: 5 }))?.slice(0, count);
  if (samples) {
    return Promise.all(
      samples.map(async (s) => ({
        bytes: await sharp(Buffer.from(s.rgb), { raw: { width: s.width, height: s.height, channels: 3 } }).resize(width, height, { fit: 'fill', kernel: 'cubic' }).jpeg({ quality: 90 }).toBuffer(),
        truth: s.truth,
        w: s.width,
        h: s.height,
      })),
    );
  }
  // Generated at <= 2 MP and enlarged: the same kind of content at any size.
  const f = Math.max(1, Math.sqrt((width * height) / 2e6));
  const gw = Math.round(width / f), gh = Math.round(height / f);
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const img = syntheticImage(i + 1, gw, gh);
      return { bytes: await sharp(Buffer.from(img.rgb), { raw: { width: gw, height: gh, channels: 3 } }).resize(width, height, { kernel: 'cubic' }).jpeg({ quality: 88 }).toBuffer(), truth: img.truth, w: gw, h: gh };
    }),
  );
}

/** get-mask's RLE (column-major, full size) sampled down to the photograph's own size, row-major. */
function maskAtPhotoSize(rle: { size: [number, number]; counts: string }, w: number, h: number): Uint8Array {
  const full = decodeRle(rle);
  const [H, W] = rle.size;
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const Y = Math.min(H - 1, Math.floor(((y + 0.5) * H) / h));
    for (let x = 0; x < w; x++) out[y * w + x] = full[Math.min(W - 1, Math.floor(((x + 0.5) * W) / w)) * H + Y]!;
  }
  return out;
}

async function latency(): Promise<LatencyRow[]> {
  const server = await startServer();
  const rows: LatencyRow[] = [];
  try {
    const user = await onboardedUser(server);
    const project = await createProject(server, user);
    const sizes: [number, number, number, number][] = [
      [1, 1280, 800, quick ? 3 : 5],
      [12, 4000, 3000, quick ? 2 : 3],
      [48, 8000, 6000, quick ? 1 : 2],
    ];
    const post = (p: string, body: unknown) => api(server.url, 'POST', `/api/v1/auto-annotate/sam2/${p}`, { token: user.token, body });
    await post('warmup', undefined);
    for (let i = 0; i < 50; i++) {
      if ((await api(server.url, 'GET', '/api/v1/auto-annotate/sam2/health', { token: user.token })).body.status === 'healthy') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const [mp, w, h, copies] of sizes) {
      const images = await latencyImages(copies, w, h);
      const names: string[] = [];
      const ids: string[] = [];
      for (const [c, img] of images.entries()) {
        const name = `photo-${mp}mp-${c}.jpg`;
        ids.push((await uploadImage(server, user, project.id, name, img.bytes)).id);
        names.push(name);
      }
      const processRuns: number[] = [], processCpu: number[] = [];
      // Let registration's background work finish first (thumbnails; tile pyramids above 4096 px,
      // which at 48 MP take seconds of libvips CPU and would otherwise land in the timed calls).
      await new Promise((r) => setTimeout(r, 1000));
      for (const id of ids) {
        for (let i = 0; i < 600; i++) {
          const tiles = await api(server.url, 'GET', `/api/v1/images/${id}/tiles`, { token: user.token });
          if (tiles.status !== 200 || tiles.body.status !== 'pending') break;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      for (const name of names) {
        const t = performance.now(), c = process.cpuUsage();
        const res = await post('process-image', { project_id: project.id, image_name: name });
        processRuns.push(performance.now() - t);
        processCpu.push(cpuMs(c));
        if (res.status !== 200 || res.body.status !== 'success') throw new Error(`process-image: ${res.status} ${JSON.stringify(res.body)}`);
      }
      // Annotator sessions as the editor runs them and as the quality protocol counts them: the
      // protocol's clicks (chosen at the photograph's size, scaled up) with the previous mask from
      // the second click on, until IoU 0.90 or 20 clicks, over the processed photographs in turn
      // until enough calls are timed.
      const maskRuns: number[] = [], maskCpu: number[] = [];
      const n = quick ? 20 : 60;
      let calls = 0;
      for (let k = 0; calls < n + 5; k++) {
        const img = images[k % images.length]!, name = names[k % names.length]!;
        const sx = w / img.w, sy = h / img.h;
        const pos: [number, number][] = [], neg: [number, number][] = [];
        let click: { x: number; y: number; positive: boolean } | null = firstClick(img.truth, img.w, img.h);
        for (let c = 0; c < 20 && click && calls < n + 5; c++, calls++) {
          (click.positive ? pos : neg).push([Math.min(w - 1, (click.x + 0.5) * sx), Math.min(h - 1, (click.y + 0.5) * sy)]);
          const t = performance.now(), cpu = process.cpuUsage();
          const res = await post('get-mask', { project_id: project.id, image_name: name, positive_points: pos, negative_points: neg, use_previous_mask: c > 0 });
          if (res.status !== 200) throw new Error(`get-mask: ${res.status} ${JSON.stringify(res.body)}`);
          if (calls >= 5) {
            // the first few warm the JIT
            maskRuns.push(performance.now() - t);
            maskCpu.push(cpuMs(cpu));
          }
          const got = maskAtPhotoSize(res.body.mask, img.w, img.h);
          click = iou(got, img.truth) >= 0.9 ? null : nextClick(got, img.truth, img.w, img.h);
        }
      }
      rows.push({
        megapixels: mp,
        width: w,
        height: h,
        process_image_ms: { median: round(median(processRuns)), runs: processRuns.map((v) => round(v)) },
        get_mask_ms: { p50: round(percentile(maskRuns, 50)), p95: round(percentile(maskRuns, 95)), runs: maskRuns.length },
        process_image_cpu_ms: { median: round(median(processCpu)) },
        get_mask_cpu_ms: { p50: round(percentile(maskCpu, 50)), p95: round(percentile(maskCpu, 95)) },
        load_average: round(os.loadavg()[0]!, 1),
      });
      console.log(rows.at(-1));
    }
  } finally {
    await server.stop();
  }
  return rows;
}

async function main() {
  await buildKernels({ quiet: true });
  console.log(`== segmentation (${os.cpus()[0]?.model ?? 'cpu'} x ${os.cpus().length})`);
  // --quality / --latency run one half (the other half's figures then come from the last full run).
  const onlyQuality = process.argv.includes('--quality'), onlyLatency = process.argv.includes('--latency');
  const out = process.env.SEGMENTATION_BENCH_OUT ?? path.join(here, 'results', 'segmentation.json');
  const last = fs.existsSync(out) ? JSON.parse(fs.readFileSync(out, 'utf8')) : null;
  const latencyRows: LatencyRow[] = onlyQuality ? (last?.latency ?? []) : await latency();
  const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const boxAlone = process.argv.includes('--box-alone');
  const measured = onlyLatency
    ? null
    : ((await segDevQuality({ methods: (arg('methods') ?? 'vellum,grabcut').split(','), box: !process.argv.includes('--no-box'), boxAlone, limit: Number(arg('images') ?? 0) || undefined, verbose: process.argv.includes('--verbose') })) ?? []);
  const lastRows: QualityRow[] = last?.quality ?? [];
  const qualityRows: QualityRow[] = !measured
    ? lastRows
    : boxAlone
      ? [...lastRows.filter((r) => r.prompt !== 'box alone'), ...measured]
      : [...measured, ...lastRows.filter((r) => r.prompt === 'box alone')];
  const ours = qualityRows.find((r) => r.method === 'Vellum built-in' && r.prompt === 'clicks');
  const grab = qualityRows.find((r) => r.method === 'OpenCV GrabCut' && r.prompt === 'clicks');
  const twelve = latencyRows.find((r) => r.megapixels === 12);
  const verdict = {
    get_mask_p50_under_50ms: latencyRows.length ? latencyRows.every((r) => r.get_mask_ms.p50 < 50) : null,
    get_mask_cpu_p50_under_50ms: latencyRows.length ? latencyRows.every((r) => r.get_mask_cpu_ms?.p50 < 50) : null,
    process_image_12mp_under_1s: twelve ? twelve.process_image_ms.median < 1000 : null,
    process_image_12mp_cpu_under_1s: twelve ? twelve.process_image_cpu_ms?.median < 1000 : null,
    noc85_ratio_to_grabcut: ours && grab ? round(ours.noc85 / grab.noc85, 2) : null,
    noc90_ratio_to_grabcut: ours && grab ? round(ours.noc90 / grab.noc90, 2) : null,
    noc_25_percent_below_grabcut: ours && grab ? ours.noc85 <= 0.75 * grab.noc85 && ours.noc90 <= 0.75 * grab.noc90 : null,
    iou_1_above_grabcut: ours && grab ? ours.iou_1 > grab.iou_1 : null,
    harmful_clicks_under_5_percent: ours ? ours.harmful_click_share < 0.05 : null,
  };
  console.log('\nprocess-image and get-mask over HTTP (built-in backend)');
  console.table(
    latencyRows.map((r) => ({
      MP: r.megapixels,
      size: `${r.width}x${r.height}`,
      'process-image ms': r.process_image_ms.median,
      'process-image cpu ms': r.process_image_cpu_ms?.median,
      'get-mask p50 ms': r.get_mask_ms.p50,
      'get-mask p95 ms': r.get_mask_ms.p95,
      'get-mask cpu p50 ms': r.get_mask_cpu_ms?.p50,
      load: r.load_average,
    })),
  );
  console.log(`quality (seg-dev, ${qualityRows[0]?.images ?? 0} photographs)`);
  console.table(qualityRows.map(({ per_image: _, ms_per_click, load_average, ...r }) => ({ ...r, 'ms/click p50': ms_per_click.p50, 'ms/click mean': ms_per_click.mean, load: load_average.join(' > ') })));
  console.log(verdict);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), cpu: os.cpus()[0]?.model, cores: os.cpus().length, quick, latency: latencyRows, quality: qualityRows, verdict }, null, 2) + '\n');
  console.log(`wrote ${out}`);
}

await main();
