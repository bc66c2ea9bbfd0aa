// Magic Image Edit, built-in provider: images per second at 1 and 12 MP for a few prompts, next to
// the floor any edit pays in the same run (decode + encode of the same image with sharp, nothing
// else), and the cost of carrying labels through a rotation (1,000 polygons and 20 masks).
// Run: node --import tsx bench/image-edit.bench.ts [--quick]   (or npm run bench -- --only=image-edit)
// Prints a table and writes bench/results/image-edit.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { runSteps } from '../src/server/services/image-edit/builtin';
import { transformAnnotations } from '../src/server/services/image-edit/labels';
import { parsePrompt, type EditStep } from '../src/server/services/image-edit/vocabulary';
import { encodeMask } from '../src/contract/rle';

interface Row {
  size: string;
  prompt: string;
  median_ms: number;
  images_per_second: number;
  /** median / the decode+encode floor's median: how much the edit itself adds. */
  vs_floor: number | null;
}

async function time(fn: () => Promise<unknown>, runs: number): Promise<number> {
  await fn(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** A photo-like JPEG: gradients, texture and edges, so encoders do real work. */
async function photo(width: number, height: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  let s = 12345;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      const n = (s >>> 24) - 128;
      const i = (y * width + x) * 3;
      raw[i] = Math.max(0, Math.min(255, (x * 255) / width + n / 8));
      raw[i + 1] = Math.max(0, Math.min(255, (y * 255) / height + n / 8));
      raw[i + 2] = ((x >> 5) + (y >> 5)) % 2 ? 200 : 60;
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
}

const PROMPTS = ['make it night', 'flip horizontally and make it night', 'rotate 90', 'add rain', 'snow', 'fog', 'blur'];

function labels(width: number, height: number) {
  const anns: Record<string, unknown>[] = [];
  for (let i = 0; i < 1000; i++) {
    const x = (i * 37) % (width - 40);
    const y = (i * 91) % (height - 40);
    anns.push({ id: `p${i}`, name: 'thing', bounding_box: { x, y, w: 30, h: 30 }, polygon: { path: [[x, y], [x + 30, y], [x + 30, y + 30], [x, y + 30], [x + 15, y + 40]] } });
  }
  for (let i = 0; i < 20; i++) {
    const mask = new Uint8Array(width * height);
    const cx = ((i + 1) * width) / 22;
    for (let x = Math.floor(cx); x < cx + 200; x++) for (let y = 100; y < 400; y++) mask[x * height + y] = 1;
    anns.push({ id: `m${i}`, name: 'blob', bounding_box: { x: cx, y: 100, w: 200, h: 300 }, segmentation: { size: [height, width], counts: encodeMask(mask, height, width) } });
  }
  return anns;
}

export async function runImageEditBench({ quick = false } = {}): Promise<Row[]> {
  const sizes: [string, number, number][] = quick ? [['1 MP', 1152, 864]] : [['1 MP', 1152, 864], ['12 MP', 4000, 3000]];
  const rows: Row[] = [];
  const extra: Record<string, number> = {};
  for (const [label, w, h] of sizes) {
    const bytes = await photo(w, h);
    const runs = w * h > 4e6 ? (quick ? 2 : 3) : quick ? 3 : 7;
    const floor = await time(() => sharp(bytes).raw().toBuffer().then((raw) => sharp(raw, { raw: { width: w, height: h, channels: 3 } }).jpeg({ quality: 92 }).toBuffer()), runs);
    rows.push({ size: label, prompt: '(decode + encode only)', median_ms: floor, images_per_second: 1000 / floor, vs_floor: 1 });
    for (const prompt of PROMPTS) {
      const parsed = parsePrompt(prompt);
      if (!parsed.ok) throw new Error(parsed.error);
      const steps: EditStep[] = parsed.steps;
      const ms = await time(() => runSteps(bytes, 'image/jpeg', steps, 42), runs);
      rows.push({ size: label, prompt, median_ms: ms, images_per_second: 1000 / ms, vs_floor: ms / floor });
    }
    const anns = labels(w, h);
    extra[`labels_rotate_90_${label.replace(' ', '')}_ms`] = await time(async () => transformAnnotations(anns, ['rotate_90'], w, h), runs);
  }
  console.log('\nMagic Image Edit, built-in provider (median per image; sharp uses its own threads)');
  console.log('size   | prompt                                   | ms/image | images/s | vs decode+encode');
  for (const r of rows) {
    console.log(`${r.size.padEnd(6)} | ${r.prompt.padEnd(40)} | ${r.median_ms.toFixed(1).padStart(8)} | ${r.images_per_second.toFixed(2).padStart(8)} | ${r.vs_floor === null ? '' : `${r.vs_floor.toFixed(2)}x`}`);
  }
  for (const [k, v] of Object.entries(extra)) console.log(`${k}: ${v.toFixed(1)} ms (1,000 polygons + 20 masks)`);
  const here = dirname(fileURLToPath(import.meta.url));
  mkdirSync(join(here, 'results'), { recursive: true });
  writeFileSync(
    join(here, 'results', 'image-edit.json'),
    JSON.stringify({ date: new Date().toISOString(), quick, cpus: cpus().length, cpu: cpus()[0]?.model, node: process.version, rows, labels: extra }, null, 2),
  );
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runImageEditBench({ quick: process.argv.includes('--quick') });
}
