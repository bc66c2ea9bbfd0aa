// Image list latency on a large project, over HTTP, next to a trivial route in the same run.
//
//   node --import tsx bench/dataset.bench.ts                 # embedded PGlite
//   node --import tsx bench/dataset.bench.ts --pg <url>      # PostgreSQL (a fresh database is created on that server;
//                                                            # DATABASE_URL is used when --pg is absent)
//   options: --images 100000 --folders 1000 --runs 300, --quick (20k images, 200 folders, 100 runs)
//   node --import tsx bench/dataset.bench.ts --million --pg <url>   # 1M images (issue 35 §3), see below
//   --keep-db NAME: seed into database NAME on the --pg server once and reuse it on later runs
//   --explain: instead of timing, one request of each case with the queries it sent, each run again under
//   EXPLAIN (ANALYZE) 30 times (bench/lib/request-queries.ts): where a page's time goes in the database
//   --in-process-client: time the calls with fetch in the server's process (before 30 Nov 2026 06:30 UTC
//   always; now a client in a process of its own times each call to its last byte, as a browser would)
//   --fetch-client: that client times with fetch (30 Nov 06:30 UTC to 1 Dec 00:30) instead of node:http
//
// --million (PostgreSQL only): one project of 1,000,000 images in 1,000 folders, no annotation rows,
// seeded once into the kept database vellum_bench_1m (--keep-db picks another; about 20 minutes on a
// loaded 2-core machine) and reused; the pages timed are the default sort, the filename sort, a stage
// filter and a folder, each at page 1 and deep (OFFSET 100,000 against the cursor `after=` of the
// same page). Target: p95 under 10 ms. --reseed drops the kept project's database first.
//
// Builds one project with N images across F folders by direct bulk INSERTs (bench/lib/seed.ts: 20% at
// the root, 20% in one large folder, the rest spread over the other folders), then times
// GET /projects/{id}/images with limit 200 for the default, a filtered and a sorted query (plus a
// few more), and GET /health. Prints a table and writes bench/results/dataset.json
// (DATASET_BENCH_OUT picks another file). Target: p95 under 25 ms for a page of 200 on PostgreSQL.
//
// Annotation filters (issue 32 §4): the images get 0-5 annotation rows each (a sixth none; classes
// car, building, person, road, sign; 'rare' on one image in 997), written in one INSERT so the
// class_names trigger fills images.class_names as a save would, then the class, has_annotations and
// annotation-count pages are timed like the others. Last, the cost of that trigger inside a save:
// save-changes of one box, of 1,000 new boxes and the removal of those 1,000, through HTTP, in
// blocks with the trigger on and off (ALTER TABLE ... DISABLE TRIGGER), alternating; wall time per
// save, and this process's CPU (which holds the database itself on PGlite). Then the trigger's own
// time as the database reports it (EXPLAIN ANALYZE's Triggers) for the same three writes, against
// the statement's time: steadier than wall times on a loaded machine. Before those, list totals as
// the database times them: a one-class total, the count of the images it replaced against the sum
// over image_class_stats (0015), and a total only a count gives (several classes, a class with a
// count range), every match against the count that stops at the cap (LIST_TOTAL_CAP: the table's
// "total" column says "10000+" where a page's total was capped). Then the price of
// image_class_stats' trigger on images (0015) in bulk updates of one folder's 20k images: a change
// that moves no count and an archive / restore. --no-save-cost skips the save and bulk-update parts.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { api } from '../tests/api/harness';
import { rowsOf } from '../src/server/services/annotations/store';
import { DEFAULT_LIST_TOTAL_CAP } from '../src/contract/images';
import { arg, benchServer, createBenchProject, percentile, seedProject, type BenchServer } from './lib/seed';
import { keptServer } from './lib/kept-db';
import { explainRequest } from './lib/request-queries';

const quick = process.argv.includes('--quick'); // bench/run.ts --quick: a smaller project, fewer runs
const IMAGES = Number(arg('images', process.argv.includes('--million') ? '1000000' : quick ? '20000' : '100000'));
const FOLDERS = Number(arg('folders', quick ? '200' : '1000'));
const RUNS = Number(arg('runs', quick ? '100' : '300'));
const WARMUP = 30;
const LIMIT = 200;
const CLASSES = ['car', 'building', 'person', 'road', 'sign', 'rare'];
const SAVE_BLOCKS = Number(arg('save-blocks', quick ? '4' : '8'));
const SAVES_PER_BLOCK = Number(arg('saves-per-block', quick ? '5' : '10'));
const MILLION = process.argv.includes('--million');
const KEEP_DB = arg('keep-db', MILLION ? 'vellum_bench_1m' : undefined);

/** A server on the kept database `name` (bench/lib/kept-db.ts) and the project seeded there before, if any. */
const keptDataset = (name: string) =>
  keptServer({
    name,
    email: `bench-${name.replace(/_/g, '-')}@example.com`,
    organizationName: `Bench ${name}`,
    organizationSlug: `bench-${name.replace(/_/g, '-')}`,
    seededProject: sql`p.name = 'Bench dataset' AND p.image_count > 0`,
  });

/** Annotation rows for every image of the project (image number g: g % 6 boxes, classes by g), counts to match. */
async function seedAnnotations(bench: BenchServer, projectId: string): Promise<number> {
  const database = bench.server.built.ctx.database;
  const t0 = performance.now();
  await database.exec(`
    INSERT INTO annotations (image_id, id, seq, name, kind, data)
    SELECT i.id, 'b' || j, j,
           CASE WHEN j = 0 AND i.n % 997 = 3 THEN 'rare' ELSE (ARRAY['car','building','person','road','sign'])[1 + (i.n + j * 2) % 5] END,
           'box', json_build_object('id', 'b' || j, 'name', 'x', 'bounding_box', json_build_object('x', 10 * j, 'y', 10, 'w', 40, 'h', 30))
    FROM (SELECT id, substring(filename from 5 for 6)::int AS n FROM images WHERE project_id = '${projectId}') i
    CROSS JOIN LATERAL generate_series(0, i.n % 6 - 1) j;
    UPDATE images SET annotation_count = substring(filename from 5 for 6)::int % 6 WHERE project_id = '${projectId}';
  `);
  await database.exec('VACUUM ANALYZE images');
  await database.exec('VACUUM ANALYZE annotations');
  return (performance.now() - t0) / 1000;
}

/** The timed pages: `base` is the list URL with the org and the page size. */
function listCases(base: string, projectId: string): { name: string; path: string }[] {
  return [
    { name: 'health (baseline)', path: '/api/v1/health' },
    { name: 'list: root folder, default sort', path: `${base}&folder_path=/` },
    { name: 'list: root, status + mime filter', path: `${base}&folder_path=/&status=complete&mime_type=image/png` },
    { name: 'list: root, sort file_size asc', path: `${base}&folder_path=/&sort_by=file_size&sort_order=asc` },
    { name: 'list: root, sort status desc', path: `${base}&folder_path=/&sort_by=status&sort_order=desc` },
    { name: 'list: small folder, default', path: `${base}&folder_path=/f0001/s0101` },
    { name: 'list: root, search "img_01"', path: `${base}&folder_path=/&search=img_01` },
    // The Data tab's search looks through every folder (no folder_path).
    { name: 'list: whole project, search "img_01"', path: `${base}&search=img_01` },
    { name: 'list: whole project, default', path: `${base}` },
    { name: 'list: root, page 50', path: `${base}&folder_path=/&page=50` },
    { name: 'list: whole project, page 20', path: `${base}&page=20` },
    // Annotation filters: the Data tab's class filter looks through every folder.
    { name: 'list: whole project, class car', path: `${base}&class=car` },
    { name: 'list: whole project, class rare (~100 images)', path: `${base}&class=rare` },
    { name: 'list: whole project, class road or sign', path: `${base}&class=road&class=sign` },
    { name: 'list: whole project, class car, sort annotations desc', path: `${base}&class=car&sort_by=annotation_count&sort_order=desc` },
    { name: 'list: whole project, class car, page 20', path: `${base}&class=car&page=20` },
    { name: 'list: whole project, class road or sign, page 20', path: `${base}&class=road&class=sign&page=20` },
    { name: 'list: root, class person', path: `${base}&folder_path=/&class=person` },
    { name: 'list: whole project, no annotations', path: `${base}&has_annotations=false` },
    { name: 'list: root, 2 to 4 annotations', path: `${base}&folder_path=/&min_annotations=2&max_annotations=4` },
    { name: 'list: whole project, class car, 3+ annotations', path: `${base}&class=car&min_annotations=3` },
    { name: `folders: tree of ${FOLDERS}`, path: `/api/folders/list/${projectId}` },
  ];
}

/**
 * The 1M pages (issue 35 §3): default sort, filename sort, a stage filter and a folder, each at page
 * 1 and at OFFSET 100,000 by page number against the same page by its cursor (after=, the id of
 * the image before it, found by the numbered page before it).
 */
async function millionCases(bench: BenchServer, base: string): Promise<{ name: string; path: string }[]> {
  const lists: [string, string][] = [
    ['default sort', ''],
    ['filename sort', '&sort_by=filename&sort_order=asc'],
    ['stage complete', '&status=complete'],
    ['folder /f0000 (200k)', '&folder_path=/f0000'],
  ];
  const deepPage = 100_000 / LIMIT + 1;
  const cases = [{ name: 'health (baseline)', path: '/api/v1/health' }];
  for (const [name, query] of lists) {
    const before = await api(bench.server.url, 'GET', `${base}${query}&page=${deepPage - 1}`, { token: bench.user.token });
    if (before.status !== 200 || !before.body.pagination?.nextCursor) throw new Error(`${name}: no cursor at page ${deepPage - 1}: ${before.status} ${JSON.stringify(before.body).slice(0, 200)}`);
    cases.push(
      { name: `1M: ${name}, page 1`, path: `${base}${query}` },
      { name: `1M: ${name}, page ${deepPage} by OFFSET`, path: `${base}${query}&page=${deepPage}` },
      { name: `1M: ${name}, page ${deepPage} by after=`, path: `${base}${query}&page=${deepPage}&after=${before.body.pagination.nextCursor as string}` },
    );
  }
  return cases;
}

/** The timed pages as a table. */
function printTable(results: { name: string; items: number; total: string; p50: number; p95: number; mean: number; ratio_p95_to_health: number }[]) {
  const header = ['case', 'items', 'total', 'p50 ms', 'p95 ms', 'mean ms', 'p95 / health'];
  const rows = results.map((r) => [r.name, String(r.items), r.total, r.p50.toFixed(2), r.p95.toFixed(2), r.mean.toFixed(2), `${r.ratio_p95_to_health}x`]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}

const isAnnotationFilter = (name: string) => /class|annotations/.test(name);

/** --in-process-client: time the pages with fetch in this process (the server's), as runs before 30 Nov 2026 06:30 UTC did. */
const IN_PROCESS_CLIENT = process.argv.includes('--in-process-client');

/**
 * --fetch-client: the client in its own process times with `fetch` (undici), as runs from 30 Nov 2026
 * 06:30 UTC to 1 Dec 00:30 did. Its JavaScript streams and decompression cost 3.9-4.1 ms of CPU a
 * page of 200 against 1.3 for node:http with one synchronous decompression (load 2), and its p50 was
 * 1.5-2 ms higher: the measure was half client. A browser reads and decompresses natively.
 */
const FETCH_CLIENT = process.argv.includes('--fetch-client');

/**
 * Times `runs` calls of `url` (after `warmup`) from a client in a process of its own, as a browser
 * is: in this process the client's gunzip and JSON.parse of each 144 KB page ran on the server's
 * thread inside the timed interval (about as much CPU as the server's own work for the page). Each
 * call is timed to its last byte, decompressed (node:http on one keep-alive socket, one synchronous
 * call: the least a client can do; or `fetch` with --fetch-client), then its JSON is read, outside
 * the time, for the items and total.
 */
function timeInClient(url: string, headers: Record<string, string>, warmup: number, runs: number): Promise<{ times: number[]; status: number; body: string; items: number; total: string }> {
  const code = `(async () => {
    const [url, headers, warmup, runs, useFetch] = JSON.parse(process.argv[1]);
    const http = require('node:http'), zlib = require('node:zlib');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const viaHttp = () => new Promise((resolve, reject) => {
      http.get(url, { agent, headers }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const raw = Buffer.concat(chunks), enc = res.headers['content-encoding'];
          resolve({ status: res.statusCode, buf: enc === 'br' ? zlib.brotliDecompressSync(raw) : enc === 'gzip' ? zlib.gunzipSync(raw) : enc === 'deflate' ? zlib.inflateSync(raw) : raw });
        });
      }).on('error', reject);
    });
    const viaFetch = async () => { const res = await fetch(url, { headers }); return { status: res.status, buf: Buffer.from(await res.arrayBuffer()) }; };
    const times = [];
    let res;
    for (let i = 0; i < warmup + runs; i++) {
      const start = performance.now();
      res = await (useFetch ? viaFetch() : viaHttp());
      if (i >= warmup) times.push(performance.now() - start);
      if (res.status !== 200) break;
    }
    agent.destroy();
    const body = res.buf.toString();
    let items = 0, total = '';
    try {
      const j = JSON.parse(body);
      items = j.images?.length ?? j.folders?.length ?? 0;
      total = j.pagination ? j.pagination.totalItems + (j.pagination.totalCapped ? '+' : '') : '';
    } catch {}
    process.stdout.write(JSON.stringify({ times, status: res.status, body: body.slice(0, 300), items, total }));
  })().catch((err) => { console.error(err); process.exit(1); });`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', code, JSON.stringify([url, headers, warmup, runs, FETCH_CLIENT])], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (rc) => (rc === 0 ? resolve(JSON.parse(out)) : reject(new Error(`client exited with ${rc}`))));
  });
}

/** One case's timed calls (after the warm-up), by a client in its own process or, with --in-process-client, in this one. */
async function timeCase(bench: BenchServer, c: { name: string; path: string }): Promise<{ times: number[]; items: number; total: string }> {
  const headers: Record<string, string> = c.path.startsWith('/api/v1/health') ? {} : { authorization: `Bearer ${bench.user.token}` };
  if (!IN_PROCESS_CLIENT) {
    const timed = await timeInClient(`${bench.server.url}${c.path}`, { 'accept-encoding': 'gzip, deflate, br', ...headers }, WARMUP, RUNS);
    if (timed.status !== 200) throw new Error(`${c.name}: ${timed.status} ${timed.body}`);
    return timed;
  }
  let items = 0;
  let total = '';
  const once = async () => {
    const start = performance.now();
    const res = await fetch(`${bench.server.url}${c.path}`, { headers }).catch((err: unknown) => {
      throw new Error(`${c.name}: ${String(err)} (${String((err as { cause?: unknown }).cause)}) after ${(performance.now() - start).toFixed(0)} ms`);
    });
    const body = (await res.json()) as { images?: unknown[]; folders?: unknown[]; pagination?: { totalItems: number; totalCapped: boolean } };
    const ms = performance.now() - start;
    if (res.status !== 200) throw new Error(`${c.name}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    items = body.images?.length ?? body.folders?.length ?? 0;
    total = body.pagination ? `${body.pagination.totalItems}${body.pagination.totalCapped ? '+' : ''}` : '';
    return ms;
  };
  for (let i = 0; i < WARMUP; i++) await once();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await once());
  return { times, items, total };
}

async function main() {
  const kept = KEEP_DB ? await keptDataset(KEEP_DB) : null;
  const bench = kept?.bench ?? (await benchServer());
  const { server, user } = bench;
  try {
    let project = kept?.project ?? null;
    let seedSeconds = 0;
    if (!project) {
      project = await createBenchProject(bench, 'Bench dataset', CLASSES.map((name) => ({ name, type: 'box', color: '#3366cc' })));
      seedSeconds = (await seedProject(bench, project, { images: IMAGES, folders: FOLDERS })) + (MILLION ? 0 : await seedAnnotations(bench, project.id));
    } else console.log(`reusing the project seeded in database ${KEEP_DB}`);
    const database = server.built.ctx.database;

    const base = `/api/v1/projects/${project.id}/images?org_id=${user.org.id}&limit=${LIMIT}`;
    const cases = MILLION ? await millionCases(bench, base) : listCases(base, project.id);
    const results: { name: string; path: string; items: number; total: string; p50: number; p95: number; mean: number; ratio_p95_to_health: number }[] = [];
    // A keep-alive socket from before the seeding may be closed by the server by now (on PGlite the
    // seeding held the event loop for minutes, and the first call then met ECONNRESET): one call to
    // spend it.
    await fetch(`${server.url}/api/v1/health`).catch(() => undefined);
    if (process.argv.includes('--explain')) {
      const dbUrl = new URL(arg('pg') ?? process.env.DATABASE_URL!);
      if (KEEP_DB) dbUrl.pathname = `/${KEEP_DB}`;
      for (const c of cases.filter((x) => !x.name.startsWith('health'))) {
        for (let i = 0; i < 5; i++) await fetch(`${server.url}${c.path}`, { headers: { authorization: `Bearer ${user.token}` } }).then((r) => r.arrayBuffer()); // warm
        console.log(`\n${c.name} (load ${os.loadavg()[0].toFixed(1)})`);
        for (const line of await explainRequest(`${server.url}${c.path}`, { authorization: `Bearer ${user.token}`, 'accept-encoding': 'gzip, deflate, br' }, dbUrl.toString(), 30)) console.log(line);
      }
      return;
    }
    let healthP95 = 0;
    for (const c of cases) {
      const { times, items, total } = await timeCase(bench, c);
      times.sort((a, b) => a - b);
      const p95 = percentile(times, 95);
      if (c.name.startsWith('health')) healthP95 = p95;
      results.push({
        name: c.name,
        path: c.path.replace(project.id, '{project}').replace(user.org.id, '{org}'),
        items,
        total,
        p50: +percentile(times, 50).toFixed(2),
        p95: +p95.toFixed(2),
        mean: +(times.reduce((s, t) => s + t, 0) / times.length).toFixed(2),
        ratio_p95_to_health: +(p95 / (healthP95 || p95)).toFixed(1),
      });
    }

    const database_kind = database.kind;
    console.log(`\nDataset list benchmark: ${IMAGES} images, ${FOLDERS} folders, ${database_kind}, limit ${LIMIT}, ${RUNS} runs each, client ${IN_PROCESS_CLIENT ? 'in the server\'s process' : `in its own process (${FETCH_CLIENT ? 'fetch' : 'node:http'})`} (seeded in ${seedSeconds.toFixed(1)} s, load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs)\n`);
    printTable(results);
    const listP95 = MILLION ? 0 : Math.max(...results.filter((r) => r.name.startsWith('list: root') && !r.name.includes('page 50') && !r.name.includes('search') && !isAnnotationFilter(r.name)).map((r) => r.p95));
    const filterP95 = MILLION ? 0 : Math.max(...results.filter((r) => isAnnotationFilter(r.name)).map((r) => r.p95));
    const target = MILLION ? 10 : 25;
    const verdict = (p95: number) => (database_kind === 'postgres' ? (p95 < target ? ': met' : ': NOT met') : '');
    if (MILLION) {
      // Page 1 and the keyset pages are the target; the OFFSET pages show what keyset paging saves.
      const millionP95 = Math.max(...results.filter((r) => r.name.startsWith('1M:') && !r.name.includes('by OFFSET')).map((r) => r.p95));
      console.log(`\nworst p95 of the 1M pages (page 1 and after=): ${millionP95.toFixed(2)} ms (target < ${target} ms on PostgreSQL)${verdict(millionP95)}`);
    } else {
      console.log(`\nworst p95 of the default / filtered / sorted root-folder pages: ${listP95.toFixed(2)} ms (target < ${target} ms on PostgreSQL)${verdict(listP95)}`);
      console.log(`worst p95 of the annotation-filter pages: ${filterP95.toFixed(2)} ms (target < ${target} ms on PostgreSQL)${verdict(filterP95)}`);
    }
    const projectId = project.id;
    const totalCost = MILLION ? null : await totalsCost(bench, projectId);
    const saveCost = MILLION || process.argv.includes('--no-save-cost') ? null : await measureSaveCost(bench, projectId);
    const bulkCost = MILLION || process.argv.includes('--no-save-cost') ? null : await classStatsBulkCost(bench, projectId);

    const outFile = process.env.DATASET_BENCH_OUT ?? path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'dataset.json');
    fs.mkdirSync(path.dirname(outFile), { recursive: true });
    const out = {
      benchmark: 'dataset',
      date: new Date().toISOString(),
      database: database_kind,
      node: process.version,
      cpus: os.cpus().length,
      // Other work on the machine inflates tail latencies: compare runs with similar load.
      load_average_1m: +os.loadavg()[0].toFixed(2),
      client: IN_PROCESS_CLIENT ? 'in the server process' : `own process, ${FETCH_CLIENT ? 'fetch' : 'node:http'}`,
      images: IMAGES,
      folders: FOLDERS,
      limit: LIMIT,
      runs: RUNS,
      seed_seconds: +seedSeconds.toFixed(1),
      target_p95_ms: target,
      worst_list_p95_ms: +listP95.toFixed(2),
      worst_annotation_filter_p95_ms: +filterP95.toFixed(2),
      results,
      total_database_ms: totalCost,
      save_cost_of_class_names_trigger: saveCost,
      bulk_update_cost_of_class_stats_trigger: bulkCost,
    };
    fs.writeFileSync(outFile, `${JSON.stringify(out, null, 2)}\n`);
    console.log(`wrote ${path.relative(process.cwd(), outFile)}`);
  } finally {
    await bench.stop();
  }
}

type SaveKind = '1 box moved' | '1,000 boxes added' | '1,000 boxes removed';

/**
 * save-changes through HTTP on one image with the class_names trigger on and off, in alternating
 * blocks: per kind of save and per state, the median wall time and this process's CPU per save.
 */
async function measureSaveCost(bench: BenchServer, projectId: string) {
  const { server, user } = bench;
  const database = server.built.ctx.database;
  const list = await api(server.url, 'GET', `/api/v1/projects/${projectId}/images?org_id=${user.org.id}&limit=1&folder_path=/f0001&sort_by=filename`, { token: user.token });
  const image = list.body.images[0] as { id: string; filename: string };
  let version = (await api(server.url, 'GET', `/api/v1/annotations/history/${image.id}?limit=1`, { token: user.token })).body.version as number;
  const box = (id: string, name: string, x: number) => ({ id, name, bounding_box: { x, y: 20, w: 30, h: 30 } });
  const save = async (upserts: unknown[], removed_ids: string[] = []) => {
    const res = await api(server.url, 'POST', '/api/v1/annotations/save-changes', {
      token: user.token,
      body: { image_id: image.id, project_id: projectId, image_filename: image.filename, base_version: version, upserts, removed_ids },
    });
    if (res.status !== 200) throw new Error(`save-changes: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    version = res.body.version;
  };
  const samples: Record<string, { wall: number[]; cpu: number[] }> = {};
  const timed = async (kind: SaveKind, on: boolean, run: () => Promise<void>) => {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await run();
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const key = `${kind} | trigger ${on ? 'on' : 'off'}`;
    (samples[key] ??= { wall: [], cpu: [] }).wall.push(wall);
    samples[key].cpu.push((cpu.user + cpu.system) / 1000);
  };
  const setTrigger = (on: boolean) =>
    database.exec(['insert', 'update', 'delete'].map((op) => `ALTER TABLE annotations ${on ? 'ENABLE' : 'DISABLE'} TRIGGER annotations_class_names_${op};`).join('\n'));
  const thousand = Array.from({ length: 1000 }, (_, k) => k);
  let n = 0;
  for (let block = 0; block < SAVE_BLOCKS * 2; block++) {
    const on = block % 4 === 0 || block % 4 === 3; // on, off, off, on, ...: neither state always goes first
    await setTrigger(on);
    for (let i = 0; i < SAVES_PER_BLOCK; i++) {
      n++;
      await timed('1 box moved', on, () => save([box('moving', 'car', 10 + (n % 50))]));
      await timed('1,000 boxes added', on, () => save(thousand.map((k) => box(`k${n}-${k}`, CLASSES[k % 5]!, k % 500))));
      await timed('1,000 boxes removed', on, () => save([], thousand.map((k) => `k${n}-${k}`)));
    }
  }
  await setTrigger(true);
  const explained = await triggerTimes(bench, image.id);
  const rows = Object.entries(samples).map(([key, s]) => ({ save: key, saves: s.wall.length, wall_p50_ms: +median(s.wall).toFixed(2), cpu_p50_ms: +median(s.cpu).toFixed(2) }));
  console.log(`\nclass_names trigger inside a save (save-changes over HTTP, ${SAVE_BLOCKS * 2} alternating blocks of ${SAVES_PER_BLOCK}; CPU is this process's, the database's too on PGlite)\n`);
  for (const r of rows) console.log(`${r.save.padEnd(36)} ${String(r.saves).padStart(4)} saves  wall p50 ${r.wall_p50_ms.toFixed(2).padStart(8)} ms  cpu p50 ${r.cpu_p50_ms.toFixed(2).padStart(8)} ms`);
  console.log(`\nthe trigger's time inside the write statement (EXPLAIN ANALYZE, median of ${SAVE_BLOCKS * SAVES_PER_BLOCK})\n`);
  for (const r of explained) console.log(`${r.write.padEnd(22)} statement ${r.statement_p50_ms.toFixed(2).padStart(8)} ms  of which the trigger ${r.trigger_p50_ms.toFixed(2).padStart(8)} ms`);
  return { http: rows, explained };
}

const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);

/** The class_names trigger's time and the whole statement's, as EXPLAIN ANALYZE reports them, for the rows a save writes. */
async function triggerTimes(bench: BenchServer, imageId: string) {
  const db = bench.server.built.ctx.db;
  const explain = async (statement: string) => {
    const [row] = await rowsOf<Record<string, unknown>>(db, sql.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`));
    const raw = Object.values(row ?? {})[0];
    const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw)[0] as { 'Execution Time': number; Triggers?: { 'Trigger Name': string; Time: number }[] };
    const trigger = (plan.Triggers ?? []).filter((t) => t['Trigger Name'].startsWith('annotations_class_names')).reduce((sum, t) => sum + t.Time, 0);
    return { statement: plan['Execution Time'], trigger };
  };
  const upsert = `ON CONFLICT (image_id, id) DO UPDATE SET seq = excluded.seq, name = excluded.name, kind = excluded.kind, data = excluded.data`;
  const samples: Record<string, { statement: number[]; trigger: number[] }> = {};
  const add = (write: string, t: { statement: number; trigger: number }) => {
    (samples[write] ??= { statement: [], trigger: [] }).statement.push(t.statement);
    samples[write].trigger.push(t.trigger);
  };
  for (let n = 0; n < SAVE_BLOCKS * SAVES_PER_BLOCK; n++) {
    add('1 box moved', await explain(`INSERT INTO annotations (image_id, id, seq, name, kind, data) VALUES ('${imageId}', 'moving', 0, 'car', 'box', '{"x": ${n}}') ${upsert}`));
    add('1,000 boxes added', await explain(`INSERT INTO annotations (image_id, id, seq, name, kind, data)
      SELECT '${imageId}', 'e${n}-' || k, 100000 + k, (ARRAY['car','building','person','road','sign'])[1 + k % 5], 'box', '{}' FROM generate_series(0, 999) k ${upsert}`));
    add('1,000 boxes removed', await explain(`DELETE FROM annotations WHERE image_id = '${imageId}' AND id LIKE 'e${n}-%'`));
  }
  return Object.entries(samples).map(([write, t]) => ({ write, statement_p50_ms: +median(t.statement).toFixed(3), trigger_p50_ms: +median(t.trigger).toFixed(3) }));
}

/**
 * Two ways to a list's total as the database times them (EXPLAIN ANALYZE's execution time, 100
 * runs each, the two interleaved; steadier than HTTP times on a loaded machine). A one-class total:
 * the count of every matching image the list made before 0014, against the sum over
 * image_class_stats it makes now. A total only a count gives (several classes, a class with a
 * count range): the count of every match before, against the count that stops at the cap now.
 */
async function totalsCost(bench: BenchServer, projectId: string) {
  const db = bench.server.built.ctx.db;
  const where = `project_id = '${projectId}' AND NOT is_archived`;
  const stats = (w: string) => `SELECT coalesce(sum(image_count), 0) FROM image_class_stats WHERE ${where} AND ${w}`;
  const every = (w: string) => `SELECT count(*) FROM images WHERE ${where} AND ${w}`;
  const capped = (w: string) => `SELECT count(*) FROM (SELECT 1 FROM images WHERE ${where} AND ${w} LIMIT ${DEFAULT_LIST_TOTAL_CAP + 1}) m`;
  const cases: [string, string, string][] = [
    ['class car', every(`class_names && ARRAY['car']::text[]`), stats(`class_name = 'car'`)],
    ['class road', every(`class_names && ARRAY['road']::text[]`), stats(`class_name = 'road'`)],
    ['root folder, class person', every(`virtual_folder_path = '/' AND class_names && ARRAY['person']::text[]`), stats(`virtual_folder_path = '/' AND class_name = 'person'`)],
    ['class road or sign', every(`class_names && ARRAY['road','sign']::text[]`), capped(`class_names && ARRAY['road','sign']::text[]`)],
    ['class car, 3+ annotations', every(`class_names && ARRAY['car']::text[] AND annotation_count >= 3`), capped(`class_names && ARRAY['car']::text[] AND annotation_count >= 3`)],
  ];
  const executionMs = async (statement: string) => {
    const [row] = await rowsOf<Record<string, unknown>>(db, sql.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`));
    const raw = Object.values(row ?? {})[0];
    return ((typeof raw === 'string' ? JSON.parse(raw) : raw)[0] as { 'Execution Time': number })['Execution Time'];
  };
  const rows = [];
  for (const [name, before, now] of cases) {
    const counted: number[] = [];
    const summed: number[] = [];
    for (let n = 0; n < 100; n++) {
      counted.push(await executionMs(before));
      summed.push(await executionMs(now));
    }
    counted.sort((a, b) => a - b);
    summed.sort((a, b) => a - b);
    rows.push({ total: name, now: now.includes('image_class_stats') ? 'image_class_stats' : `count up to ${DEFAULT_LIST_TOTAL_CAP + 1}`, count_p50: +percentile(counted, 50).toFixed(3), count_p95: +percentile(counted, 95).toFixed(3), now_p50: +percentile(summed, 50).toFixed(3), now_p95: +percentile(summed, 95).toFixed(3) });
  }
  console.log(`
a list's total in the database (EXPLAIN ANALYZE execution time, 100 runs each, load ${os.loadavg()[0].toFixed(1)}): count of every match / how the list finds it now
`);
  for (const r of rows) console.log(`${r.total.padEnd(28)} count p50 ${r.count_p50.toFixed(2).padStart(8)} p95 ${r.count_p95.toFixed(2).padStart(8)} ms   ${r.now.padEnd(20)} p50 ${r.now_p50.toFixed(3).padStart(7)} p95 ${r.now_p95.toFixed(3).padStart(7)} ms`);
  return rows;
}

/**
 * The price of image_class_stats' trigger on images (0015) in bulk updates of the 20k images of one
 * folder, as EXPLAIN ANALYZE reports it: a change that moves no count (updated_at) and an archive
 * and restore (every annotated image's classes move). Median of 10, an even number, so the archive ends as it was.
 */
async function classStatsBulkCost(bench: BenchServer, projectId: string) {
  const db = bench.server.built.ctx.db;
  const where = `WHERE project_id = '${projectId}' AND virtual_folder_path = '/f0000'`;
  const writes: [string, string][] = [
    ['20k images touched, no count moves', `UPDATE images SET updated_at = updated_at + interval '1 second' ${where}`],
    ['20k images archived or restored', `UPDATE images SET is_archived = NOT is_archived ${where}`],
  ];
  const rows = [];
  for (const [write, statement] of writes) {
    const samples = { statement: [] as number[], trigger: [] as number[], folderStats: [] as number[] };
    for (let n = 0; n < 10; n++) {
      const [row] = await rowsOf<Record<string, unknown>>(db, sql.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement}`));
      const raw = Object.values(row ?? {})[0];
      const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw)[0] as { 'Execution Time': number; Triggers?: { 'Trigger Name': string; Time: number }[] };
      samples.statement.push(plan['Execution Time']);
      const triggerMs = (name: string) => (plan.Triggers ?? []).filter((t) => t['Trigger Name'] === name).reduce((sum, t) => sum + t.Time, 0);
      samples.trigger.push(triggerMs('images_class_stats_update'));
      samples.folderStats.push(triggerMs('images_stats_update'));
    }
    rows.push({ write, statement_p50_ms: +median(samples.statement).toFixed(2), trigger_p50_ms: +median(samples.trigger).toFixed(2), folder_stats_trigger_p50_ms: +median(samples.folderStats).toFixed(2) });
  }
  console.log(`\nimage_class_stats' trigger in bulk updates of one folder's images (EXPLAIN ANALYZE, median of 10; an even number of runs leaves the archive as it was)\n`);
  for (const r of rows) console.log(`${r.write.padEnd(36)} statement ${r.statement_p50_ms.toFixed(2).padStart(9)} ms  of which the trigger ${r.trigger_p50_ms.toFixed(2).padStart(8)} ms (folder stats' ${r.folder_stats_trigger_p50_ms.toFixed(2)} ms)`);
  return rows;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
