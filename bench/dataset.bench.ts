// Image list latency on a large project, over HTTP, next to a trivial route in the same run.
//
//   node --import tsx bench/dataset.bench.ts                 # embedded PGlite
//   node --import tsx bench/dataset.bench.ts --pg <url>      # PostgreSQL (a fresh database is created on that server;
//                                                            # DATABASE_URL is used when --pg is absent)
//   options: --images 100000 --folders 1000 --runs 300, --quick (20k images, 200 folders, 100 runs)
//
// Builds one project with N images across F folders by direct bulk INSERTs (bench/lib/seed.ts: 20% at
// the root, 20% in one large folder, the rest spread over the other folders), then times
// GET /projects/{id}/images with limit 200 for the default, a filtered and a sorted query (plus a
// few more), and GET /health. Prints a table and writes bench/results/dataset.json
// (DATASET_BENCH_OUT picks another file). Target: p95 under 25 ms for a page of 200 on PostgreSQL.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { arg, benchServer, createBenchProject, percentile, seedProject } from './lib/seed';

const quick = process.argv.includes('--quick'); // bench/run.ts --quick: a smaller project, fewer runs
const IMAGES = Number(arg('images', quick ? '20000' : '100000'));
const FOLDERS = Number(arg('folders', quick ? '200' : '1000'));
const RUNS = Number(arg('runs', quick ? '100' : '300'));
const WARMUP = 30;
const LIMIT = 200;

async function main() {
  const bench = await benchServer();
  const { server, user } = bench;
  try {
    const project = await createBenchProject(bench, 'Bench dataset');
    const database = server.built.ctx.database;
    const seedSeconds = await seedProject(bench, project, { images: IMAGES, folders: FOLDERS });

    const base = `/api/v1/projects/${project.id}/images?org_id=${user.org.id}&limit=${LIMIT}`;
    const cases: { name: string; path: string; token?: string }[] = [
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
      { name: `folders: tree of ${FOLDERS}`, path: `/api/folders/list/${project.id}` },
    ];
    const results: { name: string; path: string; items: number; p50: number; p95: number; mean: number; ratio_p95_to_health: number }[] = [];
    let healthP95 = 0;
    for (const c of cases) {
      let items = 0;
      const once = async () => {
        const start = performance.now();
        const res = await fetch(`${server.url}${c.path}`, { headers: c.path.startsWith('/api/v1/health') ? {} : { authorization: `Bearer ${user.token}` } });
        const body = (await res.json()) as { images?: unknown[]; folders?: unknown[] };
        const ms = performance.now() - start;
        if (res.status !== 200) throw new Error(`${c.name}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
        items = body.images?.length ?? body.folders?.length ?? 0;
        return ms;
      };
      for (let i = 0; i < WARMUP; i++) await once();
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) times.push(await once());
      times.sort((a, b) => a - b);
      const p95 = percentile(times, 95);
      if (c.name.startsWith('health')) healthP95 = p95;
      results.push({
        name: c.name,
        path: c.path.replace(project.id, '{project}').replace(user.org.id, '{org}'),
        items,
        p50: +percentile(times, 50).toFixed(2),
        p95: +p95.toFixed(2),
        mean: +(times.reduce((s, t) => s + t, 0) / times.length).toFixed(2),
        ratio_p95_to_health: +(p95 / (healthP95 || p95)).toFixed(1),
      });
    }

    const database_kind = database.kind;
    console.log(`\nDataset list benchmark: ${IMAGES} images, ${FOLDERS} folders, ${database_kind}, limit ${LIMIT}, ${RUNS} runs each (seeded in ${seedSeconds.toFixed(1)} s, load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs)\n`);
    const header = ['case', 'items', 'p50 ms', 'p95 ms', 'mean ms', 'p95 / health'];
    const rows = results.map((r) => [r.name, String(r.items), r.p50.toFixed(2), r.p95.toFixed(2), r.mean.toFixed(2), `${r.ratio_p95_to_health}x`]);
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
    console.log(line(header));
    console.log(widths.map((w) => '-'.repeat(w)).join('  '));
    for (const r of rows) console.log(line(r));
    const listP95 = Math.max(...results.filter((r) => r.name.startsWith('list: root') && !r.name.includes('page 50') && !r.name.includes('search')).map((r) => r.p95));
    const target = 25;
    console.log(`\nworst p95 of the default / filtered / sorted root-folder pages: ${listP95.toFixed(2)} ms (target < ${target} ms on PostgreSQL)${database_kind === 'postgres' ? (listP95 < target ? ': met' : ': NOT met') : ''}`);

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
      images: IMAGES,
      folders: FOLDERS,
      limit: LIMIT,
      runs: RUNS,
      seed_seconds: +seedSeconds.toFixed(1),
      target_p95_ms: target,
      worst_list_p95_ms: +listP95.toFixed(2),
      results,
    };
    fs.writeFileSync(outFile, `${JSON.stringify(out, null, 2)}\n`);
    console.log(`wrote ${path.relative(process.cwd(), outFile)}`);
  } finally {
    await bench.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
