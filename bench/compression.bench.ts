// Response compression settings (src/server/http/compression.ts) measured on the body that matters
// most: a ~35 MB `load-data`-like JSON of 100k annotations. Each setting compresses the whole body
// through a zlib stream, as @fastify/compress does for a streamed reply, written in 64 KB chunks or
// one shape at a time (as is, or gathered into 64 KB as the server does), and is timed to the last
// compressed byte (median of 3). Run: `node --import tsx bench/compression.bench.ts`.
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import zlib from 'node:zlib';
import { PassThrough, Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { coalesce } from '../src/server/http/compression';

/** `count` shapes on a 20,000 px image: UUID ids, coordinates to 0.1 px, 12-vertex polygons. */
function annotations(count: number): Buffer[] {
  let seed = 1;
  const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const px = (v: number) => Math.round(v * 10) / 10;
  const list = Array.from({ length: count }, (_, i) => {
    const x = px(rnd() * 19_800);
    const y = px(rnd() * 19_800);
    const w = px(10 + rnd() * 190);
    const h = px(10 + rnd() * 190);
    return {
      id: randomUUID(),
      name: ['car', 'person', 'tree', 'building', 'sign'][i % 5],
      bounding_box: { x, y, w, h },
      polygon: { path: Array.from({ length: 12 }, () => [px(x + rnd() * w), px(y + rnd() * h)]) },
      attributes: [],
    };
  });
  // One piece per shape, as a route streaming rows one by one writes them.
  return ['{"annotations":[', ...list.map((a, i) => (i ? ',' : '') + JSON.stringify(a)), '],"version":1}'].map((p) => Buffer.from(p));
}

async function compressOnce(chunks: Buffer[], make: () => zlib.Gzip | zlib.BrotliCompress, gather: boolean): Promise<{ ms: number; bytes: number }> {
  let bytes = 0;
  const start = performance.now();
  await pipeline(
    Readable.from(chunks),
    gather ? coalesce() : new PassThrough(),
    make(),
    new Writable({
      write(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        done();
      },
    }),
  );
  return { ms: performance.now() - start, bytes };
}

const pieces = annotations(100_000);
const body = Buffer.concat(pieces);
const chunks64k: Buffer[] = [];
for (let i = 0; i < body.length; i += 65536) chunks64k.push(body.subarray(i, i + 65536));
console.log(`body: ${(body.length / 1e6).toFixed(1)} MB, 100k annotations; load before: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
const br = (q: number) => () => zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: q, [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT } });
const gzip = (level: number) => () => zlib.createGzip({ level });
const settings: [string, () => zlib.Gzip | zlib.BrotliCompress, Buffer[], boolean][] = [
  ...[1, 2, 3, 4].map((q): [string, () => zlib.BrotliCompress, Buffer[], boolean] => [`br q${q}, 64 KB writes`, br(q), chunks64k, false]),
  ...[1, 2, 3, 4, 5, 6].map((l): [string, () => zlib.Gzip, Buffer[], boolean] => [`gzip ${l}, 64 KB writes`, gzip(l), chunks64k, false]),
  // Brotli's quality 0 and 1 compress each write on its own: small writes make them useless. And
  // every write is a trip to the thread pool: the server gathers writes into 64 KB (coalesce()).
  ['br q1, a write per shape', br(1), pieces, false],
  ['br q2, a write per shape', br(2), pieces, false],
  ['gzip 1, a write per shape', gzip(1), pieces, false],
  ['br q2, a write per shape, gathered', br(2), pieces, true],
  ['gzip 1, a write per shape, gathered', gzip(1), pieces, true],
];
console.log('| setting | median ms | MB out | ratio |');
console.log('|---|---|---|---|');
for (const [name, make, chunks, gather] of settings) {
  const runs = [];
  for (let i = 0; i < 3; i++) runs.push(await compressOnce(chunks, make, gather));
  runs.sort((a, b) => a.ms - b.ms);
  const { ms, bytes } = runs[1];
  console.log(`| ${name} | ${ms.toFixed(0)} | ${(bytes / 1e6).toFixed(2)} | ${(body.length / bytes).toFixed(1)}x |`);
}
console.log(`load after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
