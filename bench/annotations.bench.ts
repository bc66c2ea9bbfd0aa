// `npm run bench -- --only=annotations [--quick]`: annotation storage as a client meets it (issue
// 14), on PGlite and, when DATABASE_URL (or --pg <url>) names a server, on PostgreSQL, each against
// the whole-document storage Vellum had before (bench/lib/legacy-documents.ts) in the same run and the
// same server, through the same HTTP, auth and validation:
//   - one-shape save-changes on images of 1k, 10k and 100k shapes (p50 / p95);
//   - a 1,000-shape move saved in one request;
//   - load-data of 100k shapes: bytes on the wire and time to the last byte, plain JSON and the
//     column encoding the editor asks for (?encoding=columns), br / gzip / identity;
//   - 20 editors saving one-shape changes on one 100k-shape image (each every ~1 s, rebasing on
//     a 409 as the editor does): request and committed-edit latency, conflicts, errors.
// The documents are generated: half boxes, half 12-vertex polygons, uuid ids, coordinates at 0.1 px
// on a 20,000 x 20,000 image (about 245 bytes a shape). Prints tables, writes bench/results/annotations.json.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { api, onboardedUser, startServer, type TestServer } from '../tests/api/harness';
import { createProject, png, uploadImage } from '../tests/fixtures/datasets';
import { arg, percentile } from './lib/seed';
import { createLegacyTable, legacyRoutes, seedLegacyDocument } from './lib/legacy-documents';
import { decodeBlock, type ColumnBlock } from '../src/contract/annotation-columns';

const here = path.dirname(fileURLToPath(import.meta.url));
const quick = process.argv.includes('--quick');
const SIZES = quick ? [1_000, 10_000] : [1_000, 10_000, 100_000];
const BIG = SIZES[SIZES.length - 1]!;
const EDITORS = 20;
const EDITOR_SECONDS = quick ? 10 : 60;
const LEGACY_EDITOR_SECONDS = quick ? 5 : 20;
const CLASSES = ['car', 'building', 'person'];

let seed = 7;
const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
const r1 = (v: number) => Math.round(v * 10) / 10;

function shape(i: number): Record<string, unknown> {
  const cx = rnd() * 20_000, cy = rnd() * 20_000, r = 5 + rnd() * 40;
  const a: Record<string, unknown> = { id: randomUUID(), name: CLASSES[i % 3], bounding_box: { x: r1(cx - r), y: r1(cy - r), w: r1(2 * r), h: r1(2 * r) }, attributes: [] };
  if (i % 2 === 1) {
    a.polygon = { path: Array.from({ length: 12 }, (_, k) => [r1(cx + r * (0.7 + 0.3 * rnd()) * Math.cos((2 * Math.PI * k) / 12)), r1(cy + r * (0.7 + 0.3 * rnd()) * Math.sin((2 * Math.PI * k) / 12))]) };
  }
  return a;
}
const moved = (a: Record<string, unknown>, dx: number) => ({ ...a, bounding_box: { ...(a.bounding_box as object), x: r1((a.bounding_box as { x: number }).x + dx) } });

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** One request through node:http (no automatic decoding): status, raw bytes on the wire, time to the last byte. */
function request(url: string, method: string, token: string, body?: unknown, encoding = 'identity'): Promise<{ status: number; ms: number; wire: number; raw: Buffer; encoding: string | undefined }> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent, headers: { authorization: `Bearer ${token}`, 'accept-encoding': encoding, ...(payload && { 'content-type': 'application/json', 'content-length': payload.length }) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0, wire: raw.length, raw, encoding: res.headers['content-encoding'] as string | undefined });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}
/** JSON with sorted keys (the column encoding gives keys in the editor's order). */
const canonical = (v: unknown) => JSON.stringify(v, (_k, x) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]])) : x));
const decode = (r: { raw: Buffer; encoding: string | undefined }) =>
  JSON.parse((r.encoding === 'br' ? zlib.brotliDecompressSync(r.raw) : r.encoding === 'gzip' ? zlib.gunzipSync(r.raw) : r.raw).toString());

interface Img { id: string; filename: string; shapes: Record<string, unknown>[]; version: number }

const stats = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 50), p95: percentile(s, 95), max: s[s.length - 1] ?? 0 };
};
const f = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(1));

// Long because each storage is measured in one server's lifetime, step after step (seed, load,
// save, the editor's session) against the legacy table in the same database, and the steps share
// the server, the images and the timings they print.
async function runOn(label: string, env: Record<string, string>) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vellum-bench-ann-'));
  let server: TestServer | null = null;
  const started = await startServer(env, dataDir, { beforeListen: (app) => legacyRoutes(app, () => server!.built.ctx) });
  server = started;
  await createLegacyTable(started.built.ctx);
  const out: Record<string, unknown> = { database: label };
  try {
    const ctx = started.built.ctx;
    const user = await onboardedUser(started);
    const project = await createProject(started, user);
    await api(started.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: user.token, body: { classes: CLASSES.map((name, i) => ({ name, type: i === 1 ? 'polygon' : 'box', color: '#FFADAD' })) } });
    const url = (p: string) => `${started.url}${p}`;
    const saveChanges = (route: 'annotations' | 'bench-legacy', img: Img, upserts: unknown[], base = img.version) =>
      request(url(`/api/v1/${route}/save-changes`), 'POST', user.token, { image_id: img.id, project_id: project.id, image_filename: img.filename, base_version: base, upserts, removed_ids: [] });

    async function makeImage(n: number, name: string): Promise<{ rows: Img; legacy: Img }> {
      const shapes = Array.from({ length: n }, (_, i) => shape(i));
      const a = await uploadImage(started, user, project.id, `${name}-rows.png`, await png(64, 64));
      const b = await uploadImage(started, user, project.id, `${name}-legacy.png`, await png(64, 64));
      const rows: Img = { id: a.id, filename: a.filename, shapes, version: 0 };
      for (let i = 0; i < n; i += 5_000) {
        const res = await saveChanges('annotations', rows, shapes.slice(i, i + 5_000));
        if (res.status !== 200) throw new Error(`seed ${res.status} ${res.raw.toString().slice(0, 200)}`);
        rows.version = decode(res).version;
      }
      await seedLegacyDocument(ctx, b.id, shapes, 1);
      return { rows, legacy: { id: b.id, filename: b.filename, shapes, version: 1 } };
    }

    // One-shape edits, new and old interleaved so both meet the same machine.
    const edits: Record<string, unknown>[] = [];
    const images = new Map<number, { rows: Img; legacy: Img }>();
    for (const n of SIZES) {
      const pair = await makeImage(n, `s${n}`);
      images.set(n, pair);
      const newMs: number[] = [];
      const oldMs: number[] = [];
      const rounds = n >= 100_000 ? 30 : 30;
      const oldRounds = n >= 100_000 ? (label === 'PGlite' ? 6 : 10) : 30;
      for (let i = 0; i < rounds; i++) {
        for (const [img, route, sink] of [[pair.rows, 'annotations', newMs], [pair.legacy, 'bench-legacy', oldMs]] as const) {
          if (route === 'bench-legacy' && i >= oldRounds) continue;
          const k = Math.floor(rnd() * n);
          img.shapes[k] = moved(img.shapes[k]!, 1);
          const res = await saveChanges(route, img, [img.shapes[k]]);
          if (res.status !== 200) throw new Error(`${route} edit ${res.status}`);
          img.version += 1;
          sink.push(res.ms);
        }
      }
      const row = { shapes: n, rows: stats(newMs), legacy: stats(oldMs) };
      edits.push(row);
      console.log(`${label} one-shape edit at ${n}: rows p50 ${f(row.rows.p50)} / p95 ${f(row.rows.p95)} ms; whole document p50 ${f(row.legacy.p50)} / p95 ${f(row.legacy.p95)} ms (n ${row.legacy.n})`);
    }
    out.oneShapeEdit = edits;

    const big = images.get(BIG)!;
    // A 1,000-shape move in one request.
    const moveNew: number[] = [];
    const moveOld: number[] = [];
    for (let i = 0; i < (quick ? 3 : 8); i++) {
      for (const [img, route, sink] of [[big.rows, 'annotations', moveNew], [big.legacy, 'bench-legacy', moveOld]] as const) {
        if (route === 'bench-legacy' && BIG >= 100_000 && i >= 3) continue;
        const start = Math.floor(rnd() * (BIG - 1000));
        const upserts = [];
        for (let k = start; k < start + 1000; k++) upserts.push((img.shapes[k] = moved(img.shapes[k]!, 5)));
        const res = await saveChanges(route, img, upserts);
        if (res.status !== 200) throw new Error(`${route} move ${res.status}`);
        img.version += 1;
        sink.push(res.ms);
      }
    }
    out.move1000 = { shapes: BIG, rows: stats(moveNew), legacy: stats(moveOld) };
    console.log(`${label} 1,000-shape move at ${BIG}: rows p50 ${f(stats(moveNew).p50)} / max ${f(stats(moveNew).max)} ms; whole document p50 ${f(stats(moveOld).p50)} ms`);

    // load-data of the big image.
    const loads: Record<string, unknown>[] = [];
    for (const [route, img, encoding] of [
      ['annotations', big.rows, 'columns+br'],
      ['annotations', big.rows, 'columns+gzip'],
      ['annotations', big.rows, 'br'],
      ['annotations', big.rows, 'gzip'],
      ['annotations', big.rows, 'identity'],
      ['bench-legacy', big.legacy, 'identity'],
    ] as const) {
      const ms: number[] = [];
      let wire = 0;
      for (let i = 0; i < (quick ? 2 : 4); i++) {
        const columns = encoding.startsWith('columns+');
        const res = await request(url(`/api/v1/${route}/load-data/${img.id}${columns ? '?encoding=columns' : ''}`), 'GET', user.token, undefined, encoding.replace('columns+', ''));
        if (res.status !== 200) throw new Error(`load ${route} ${res.status}`);
        if (i === 0) {
          const doc = decode(res) as { annotations: ColumnBlock[] | Record<string, unknown>[]; version: number };
          const shapes = columns ? (doc.annotations as ColumnBlock[]).flatMap(decodeBlock) : (doc.annotations as Record<string, unknown>[]);
          if (shapes.length !== BIG || doc.version !== img.version) throw new Error(`load ${route}: ${shapes.length} shapes, version ${doc.version} (expected ${BIG}, ${img.version})`);
          if (canonical(shapes[BIG - 1]) !== canonical(img.shapes[BIG - 1])) throw new Error(`load ${route} ${encoding}: the last shape differs`);
        }
        wire = res.wire;
        ms.push(res.ms);
      }
      const row = { route: route === 'annotations' ? 'rows' : 'whole document', encoding, mb: wire / 1024 / 1024, ...stats(ms) };
      loads.push(row);
      console.log(`${label} load-data ${BIG} ${row.route} ${encoding}: ${row.mb.toFixed(2)} MB on the wire, last byte p50 ${f(row.p50)} ms`);
    }
    out.load = loads;

    // Editors at once on the big image.
    out.editors = { rows: await editors(big.rows, 'annotations', EDITOR_SECONDS), legacy: await editors(big.legacy, 'bench-legacy', LEGACY_EDITOR_SECONDS) };

    async function editors(img: Img, route: 'annotations' | 'bench-legacy', seconds: number) {
      const requests: number[] = [];
      const committed: number[] = [];
      let conflicts = 0;
      let errorCount = 0;
      let unfinished = 0;
      const until = performance.now() + seconds * 1000;
      let known = img.version;
      await Promise.all(
        Array.from({ length: EDITORS }, async () => {
          while (performance.now() < until) {
            await new Promise((r) => setTimeout(r, 500 + rnd() * 1000));
            const k = Math.floor(rnd() * img.shapes.length);
            const change = moved(img.shapes[k]!, 1);
            const t0 = performance.now();
            let base = known;
            // A save still refused 10 s after the window closed is given up (and counted).
            for (let attempt = 0; ; attempt++) {
              if (attempt > 0 && performance.now() > until + 10_000) {
                unfinished += 1;
                break;
              }
              const res = await saveChanges(route, img, [change], base);
              requests.push(res.ms);
              if (res.status === 200) {
                known = Math.max(known, decode(res).version as number);
                committed.push(performance.now() - t0);
                break;
              }
              if (res.status === 409) {
                conflicts += 1;
                const body = decode(res) as { changes?: { version: number }; current?: { version: number } };
                base = body.changes?.version ?? body.current?.version ?? (await request(url(`/api/v1/annotations/load-data/${img.id}`), 'GET', user.token).then((r) => decode(r).version as number));
                continue;
              }
              errorCount += 1;
              break;
            }
          }
        }),
      );
      img.version = known;
      const row = { seconds, editors: EDITORS, requests: stats(requests), committed: stats(committed), edits: committed.length, conflicts, errors: errorCount, unfinished };
      console.log(`${label} ${EDITORS} editors ${seconds} s on ${BIG} (${route === 'annotations' ? 'rows' : 'whole document'}): ${row.edits} edits, requests p50 ${f(row.requests.p50)} / p95 ${f(row.requests.p95)} ms, committed p95 ${f(row.committed.p95)} ms, ${conflicts} conflicts, ${errorCount} errors, ${unfinished} given up`);
      return row;
    }
  } finally {
    await started.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return out;
}

const pgUrl = arg('pg') ?? (process.env.DATABASE_URL || undefined);
const results: Record<string, unknown>[] = [];
const loadBefore = os.loadavg();
delete process.env.DATABASE_URL;
results.push(await runOn('PGlite', {}));
if (pgUrl) {
  process.env.DATABASE_URL = pgUrl;
  results.push(await runOn('PostgreSQL', {}));
} else {
  console.log('PostgreSQL skipped: give DATABASE_URL or --pg <url>');
}
const report = { when: new Date().toISOString(), quick, cpus: os.cpus().length, loadBefore, loadAfter: os.loadavg(), results };
fs.mkdirSync(path.join(here, 'results'), { recursive: true });
fs.writeFileSync(path.join(here, 'results', 'annotations.json'), JSON.stringify(report, null, 2));
console.log(`load average before ${loadBefore.map((l) => l.toFixed(1)).join(' ')}, after ${report.loadAfter.map((l) => l.toFixed(1)).join(' ')}`);
agent.destroy();
process.exit(0);
