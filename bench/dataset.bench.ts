// Image list latency on a large project, over HTTP, next to a trivial route in the same run.
//
//   node --import tsx bench/dataset.bench.ts                 # embedded PGlite
//   node --import tsx bench/dataset.bench.ts --pg <url>      # PostgreSQL (a fresh database is created on that server;
//                                                            # DATABASE_URL is used when --pg is absent)
//   options: --images 100000 --folders 1000 --runs 300, --quick (20k images, 200 folders, 100 runs)
//
// Builds one project with N images across F folders by direct bulk INSERTs (20% at the root, 20% in
// one large folder, the rest spread over the other folders), then times GET /projects/{id}/images
// with limit 200 for the default, a filtered and a sorted query (plus a few more), and GET /health.
// Prints a table and writes bench/results/dataset.json. Target: p95 under 25 ms for a page of 200
// on PostgreSQL.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { api, onboardedUser, startServer } from '../tests/api/harness';

function arg(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

// --pg wins; else DATABASE_URL (as bench/run.ts and CI set it); else embedded PGlite.
const pgUrl = arg('pg') ?? (process.env.DATABASE_URL || undefined);
const quick = process.argv.includes('--quick'); // bench/run.ts --quick: a smaller project, fewer runs
const IMAGES = Number(arg('images', quick ? '20000' : '100000'));
const FOLDERS = Number(arg('folders', quick ? '200' : '1000'));
const RUNS = Number(arg('runs', quick ? '100' : '300'));
const WARMUP = 30;
const LIMIT = 200;

function percentile(sorted: number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

async function main() {
  if (pgUrl) process.env.DATABASE_URL = pgUrl; // the harness creates a throwaway database on that server
  else delete process.env.DATABASE_URL;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vellum-bench-'));
  const server = await startServer({}, dataDir);
  try {
    const user = await onboardedUser(server);
    const created = await api(server.url, 'POST', '/api/v1/projects', { token: user.token, body: { organization_id: user.org.id, name: 'Bench dataset' } });
    const project = created.body.project as { id: string; gcs_path: string };
    const database = server.built.ctx.database;

    // --- data: folders f0000..f0099 at the root, the rest nested one level below them ("f0003/s0042").
    const t0 = performance.now();
    const topLevel = Math.max(1, Math.min(100, FOLDERS));
    await database.exec(`
      INSERT INTO folders (id, project_id, name, full_path, parent_folder_path, parent_folder_id)
      SELECT gen_random_uuid(), '${project.id}', 'f' || lpad(g::text, 4, '0'), '/f' || lpad(g::text, 4, '0'), '/', NULL
      FROM generate_series(0, ${topLevel - 1}) g;
      INSERT INTO folders (id, project_id, name, full_path, parent_folder_path, parent_folder_id)
      SELECT gen_random_uuid(), '${project.id}', 's' || lpad(g::text, 4, '0'),
             p.full_path || '/s' || lpad(g::text, 4, '0'), p.full_path, p.id
      FROM generate_series(${topLevel}, ${FOLDERS - 1}) g
      JOIN folders p ON p.project_id = '${project.id}' AND p.full_path = '/f' || lpad((g % ${topLevel})::text, 4, '0');
    `);
    // Images: 20% at the root, 20% in /f0000 (one large folder), the rest spread over every other folder.
    await database.exec(`
      INSERT INTO images (id, project_id, organization_id, filename, gcs_uri, gcs_path, thumbnail_path, status, virtual_folder_path,
                          file_size, mime_type, image_width, image_height, annotation_count, is_archived, created_at, updated_at)
      SELECT gen_random_uuid(), '${project.id}', '${user.org.id}', 'img_' || lpad(g::text, 6, '0') || CASE WHEN g % 4 = 0 THEN '.jpg' ELSE '.png' END,
             'gs://${user.org.gcs_bucket_name}/${project.gcs_path}/images/img_' || g, '${project.gcs_path}/images/img_' || g,
             '${project.gcs_path}/thumbnails/img_' || g || '.webp',
             (ARRAY['new','annotating','complete'])[1 + (g * 7) % 3],
             CASE WHEN g % 5 = 0 THEN '/' WHEN g % 5 = 1 OR cardinality(p.a) = 0 THEN '/f0000' ELSE p.a[1 + g % cardinality(p.a)] END,
             10000 + (g::bigint * 7919) % 5000000, CASE WHEN g % 4 = 0 THEN 'image/jpeg' ELSE 'image/png' END, 1920, 1080,
             (g * 13) % 50, g % 50 = 7, now() - make_interval(secs => ${IMAGES} - g), now() - make_interval(secs => (g * 31) % ${IMAGES})
      FROM generate_series(0, ${IMAGES - 1}) g
      CROSS JOIN (SELECT coalesce(array_agg(full_path ORDER BY full_path), '{}') AS a FROM folders WHERE project_id = '${project.id}' AND full_path <> '/f0000') p;
      INSERT INTO annotation_documents (image_id, project_id) SELECT id, project_id FROM images WHERE project_id = '${project.id}';
      UPDATE projects SET
        image_count = (SELECT count(*) FROM images WHERE project_id = '${project.id}' AND NOT is_archived),
        archived_images = (SELECT count(*) FROM images WHERE project_id = '${project.id}' AND is_archived),
        completed_image_count = (SELECT count(*) FROM images WHERE project_id = '${project.id}' AND NOT is_archived AND status = 'complete'),
        total_size = (SELECT coalesce(sum(file_size), 0) FROM images WHERE project_id = '${project.id}'),
        annotation_count = (SELECT coalesce(sum(annotation_count), 0) FROM images WHERE project_id = '${project.id}')
      WHERE id = '${project.id}';
    `);
    // Separate statements: VACUUM cannot run inside the implicit transaction of a multi-statement query.
    await database.exec('VACUUM ANALYZE images');
    await database.exec('VACUUM ANALYZE folders');
    const seedMs = performance.now() - t0;

    const base = `/api/v1/projects/${project.id}/images?org_id=${user.org.id}&limit=${LIMIT}`;
    const cases: { name: string; path: string; token?: string }[] = [
      { name: 'health (baseline)', path: '/api/v1/health' },
      { name: 'list: root folder, default sort', path: `${base}&folder_path=/` },
      { name: 'list: root, status + mime filter', path: `${base}&folder_path=/&status=complete&mime_type=image/png` },
      { name: 'list: root, sort file_size asc', path: `${base}&folder_path=/&sort_by=file_size&sort_order=asc` },
      { name: 'list: root, sort status desc', path: `${base}&folder_path=/&sort_by=status&sort_order=desc` },
      { name: 'list: small folder, default', path: `${base}&folder_path=/f0001/s0101` },
      { name: 'list: root, search "img_01"', path: `${base}&folder_path=/&search=img_01` },
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
    console.log(`\nDataset list benchmark: ${IMAGES} images, ${FOLDERS} folders, ${database_kind}, limit ${LIMIT}, ${RUNS} runs each (seeded in ${(seedMs / 1000).toFixed(1)} s, load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs)\n`);
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

    const outDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');
    fs.mkdirSync(outDir, { recursive: true });
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
      seed_seconds: +(seedMs / 1000).toFixed(1),
      target_p95_ms: target,
      worst_list_p95_ms: +listP95.toFixed(2),
      results,
    };
    fs.writeFileSync(path.join(outDir, 'dataset.json'), `${JSON.stringify(out, null, 2)}\n`);
    console.log(`wrote ${path.relative(process.cwd(), path.join(outDir, 'dataset.json'))}`);
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
