// Project analytics latency (issue 36 §1) on PostgreSQL: GET /projects/{id}/analytics on a project
// of 100k images and 2M change rows, next to GET /health in the same run.
//
//   node --import tsx bench/analytics.bench.ts --pg <url>     # DATABASE_URL when --pg is absent
//   options: --images 100000 --changes 2000000 --members 20 --runs 200, --reseed (drop the kept
//   database and seed again), --keep-db NAME (default vellum_bench_analytics), --quick (fewer runs),
//   --save-cost-only (the save path with the triggers on and off, nothing else)
//
// The rows are made once, into the kept database, and reused by later runs. They go in the way a
// busy year would put them: 100k images (bench/lib/seed.ts), then the change rows in batches of
// 100k INSERT statements into annotation_changes (each shape class one of five, members in turn,
// saves a few minutes apart over 365 days), then a submit and a review event per image, so the
// triggers of 0020_analytics.sql keep the rollups as the writes would; the seeding time of each
// part is printed. Then the timed calls: 30 days by day (the tab's default), 365 days by week and
// by day, and /health. Target: p95 under 300 ms. Last, what the triggers add to the writes they
// ride on (EXPLAIN ANALYZE, rolled back), and the save path over HTTP with the triggers on and off
// in alternating blocks (--save-shapes 10000: a whole-list replace and a one-shape save on a list of
// that size). Writes bench/results/analytics.json
// (ANALYTICS_BENCH_OUT picks another file).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { api } from '../tests/api/harness';
import { rowsOf } from '../src/server/services/annotations/store';
import { arg, percentile, seedProject, type BenchServer } from './lib/seed';
import { keptServer } from './lib/kept-db';
import { randomUUID } from 'node:crypto';
import { createProject } from '../tests/fixtures/datasets';

const quick = process.argv.includes('--quick');
const IMAGES = Number(arg('images', '100000'));
const CHANGES = Number(arg('changes', '2000000'));
const MEMBERS = Number(arg('members', '20'));
const RUNS = Number(arg('runs', quick ? '50' : '200'));
const WARMUP = 20;
const BATCH = 100_000;
const DB_NAME = arg('keep-db', 'vellum_bench_analytics')!;
const PROJECT_NAME = 'Bench analytics';

const timed = async (label: string, work: () => Promise<unknown>) => {
  const t0 = performance.now();
  await work();
  const s = (performance.now() - t0) / 1000;
  console.log(`  ${label}: ${s.toFixed(1)} s (load ${os.loadavg()[0]!.toFixed(1)})`);
  return s;
};

/** 100k images, MEMBERS annotators, CHANGES change rows and two events per image, through the triggers. */
async function seed(bench: BenchServer): Promise<string> {
  const { server, user } = bench;
  const created = await api(server.url, 'POST', '/api/v1/projects', { token: user.token, body: { organization_id: user.org.id, name: PROJECT_NAME } });
  if (created.status !== 200) throw new Error(`create project: ${created.status}`);
  const project = created.body.project as { id: string; gcs_path: string };
  const database = server.built.ctx.database;
  console.log(`seeding ${IMAGES} images, ${CHANGES} change rows, ${MEMBERS} members into ${DB_NAME} (once):`);
  await timed('images', () => seedProject(bench, project, { images: IMAGES, folders: 100 }));
  await timed('members', () =>
    database.exec(`
      INSERT INTO profiles (id, email, full_name) SELECT ('00000000-0000-4000-8000-' || lpad(m::text, 12, '0'))::uuid, 'member' || m || '@example.com', 'Member ' || lpad(m::text, 2, '0') FROM generate_series(1, ${MEMBERS}) m;
      INSERT INTO organization_members (organization_id, user_id, role) SELECT '${user.org.id}', ('00000000-0000-4000-8000-' || lpad(m::text, 12, '0'))::uuid, 'annotator' FROM generate_series(1, ${MEMBERS}) m;
    `),
  );
  // Change number c of image g (c = 1..perImage): version c, by member (g % MEMBERS) + 1, at a day
  // spread over the year and c * 2 minutes into the session; version 1 adds two shapes, the others
  // edit one, and every fifth also removes one (the change log's shape, not a consistent document).
  const perImage = Math.ceil(CHANGES / IMAGES);
  const classes = `(ARRAY['car','building','person','road','sign'])`;
  await timed(`change rows (${Math.ceil(CHANGES / BATCH)} statements of ${BATCH})`, async () => {
    for (let first = 0; first < CHANGES; first += BATCH) {
      await database.exec(`
        INSERT INTO annotation_changes (image_id, version, user_id, created_at, upserts, removed_ids, before, added, changed, removed)
        SELECT i.id, c, ('00000000-0000-4000-8000-' || lpad((i.n % ${MEMBERS} + 1)::text, 12, '0'))::uuid,
               now() - make_interval(days => i.n % 365) + make_interval(mins => c * 2 + (i.n % 7) * 30),
               CASE WHEN c = 1 THEN json_build_array(json_build_object('id', 's1', 'name', ${classes}[1 + i.n % 5]), json_build_object('id', 's2', 'name', ${classes}[1 + (i.n + 1) % 5]))
                    ELSE json_build_array(json_build_object('id', 's1', 'name', ${classes}[1 + i.n % 5])) END,
               CASE WHEN c % 5 = 0 THEN json_build_array('s2') ELSE '[]'::json END,
               CASE WHEN c = 1 THEN '[]'::json
                    WHEN c % 5 = 0 THEN json_build_array(json_build_object('id', 's1', 'name', ${classes}[1 + i.n % 5]), json_build_object('id', 's2', 'name', ${classes}[1 + (i.n + 1) % 5]))
                    ELSE json_build_array(json_build_object('id', 's1', 'name', ${classes}[1 + i.n % 5])) END,
               CASE WHEN c = 1 THEN 2 ELSE 0 END, CASE WHEN c = 1 THEN 0 ELSE 1 END, CASE WHEN c % 5 = 0 THEN 1 ELSE 0 END
        FROM (SELECT id, substring(filename from 5 for 6)::int AS n FROM images WHERE project_id = '${project.id}') i
        CROSS JOIN generate_series(1, ${perImage}) c
        WHERE i.n * ${perImage} + c - 1 >= ${first} AND i.n * ${perImage} + c - 1 < ${Math.min(first + BATCH, CHANGES)};
      `);
    }
  });
  await timed('events (submit, then accept or reject, per image)', () =>
    database.exec(`
      INSERT INTO image_events (image_id, type, user_id, from_value, to_value, created_at)
      SELECT i.id, 'status', ('00000000-0000-4000-8000-' || lpad((i.n % ${MEMBERS} + 1)::text, 12, '0'))::uuid, 'annotating', 'review', now() - make_interval(days => i.n % 365) + interval '2 hours'
      FROM (SELECT id, substring(filename from 5 for 6)::int AS n FROM images WHERE project_id = '${project.id}') i;
      INSERT INTO image_events (image_id, type, user_id, from_value, to_value, created_at)
      SELECT i.id, 'status', '${user.userId}', 'review', CASE WHEN i.n % 4 = 0 THEN 'annotating' ELSE 'complete' END, now() - make_interval(days => i.n % 365) + interval '3 hours'
      FROM (SELECT id, substring(filename from 5 for 6)::int AS n FROM images WHERE project_id = '${project.id}') i;
    `),
  );
  await database.exec(`UPDATE projects SET description = 'seeded' WHERE id = '${project.id}'`);
  await database.exec('VACUUM ANALYZE analytics_member_days');
  await database.exec('VACUUM ANALYZE analytics_stage_days');
  return project.id;
}

/**
 * What the rollup triggers add to the writes they ride on, as EXPLAIN ANALYZE times them (the
 * trigger's time against the whole statement's; median of `n`), each write rolled back so the kept
 * database stays as seeded.
 */
async function triggerCosts(bench: BenchServer, projectId: string, n: number) {
  const db = bench.server.built.ctx.db;
  const [img] = await rowsOf<{ id: string }>(db, sql`SELECT id FROM images WHERE project_id = ${projectId} ORDER BY id LIMIT 1`);
  const member = '00000000-0000-4000-8000-000000000001';
  const writes: { write: string; statement: string }[] = [
    { write: 'change row of a one-shape save', statement: `INSERT INTO annotation_changes (image_id, version, user_id, created_at, upserts, removed_ids, before, added, changed, removed) VALUES ('${img!.id}', 900001, '${member}', now(), '[{"id":"x","name":"car"}]', '[]', '[]', 1, 0, 0)` },
    {
      write: 'change row of a 1,000-shape save',
      statement: `INSERT INTO annotation_changes (image_id, version, user_id, created_at, upserts, removed_ids, before, added, changed, removed)
        SELECT '${img!.id}', 900002, '${member}', now(), (SELECT json_agg(json_build_object('id', 'k' || k, 'name', 'car', 'bounding_box', json_build_object('x', k, 'y', 1, 'w', 5, 'h', 5))) FROM generate_series(1, 1000) k), '[]', '[]', 1000, 0, 0`,
    },
    { write: 'submit event', statement: `INSERT INTO image_events (image_id, type, user_id, from_value, to_value) VALUES ('${img!.id}', 'status', '${member}', 'annotating', 'review')` },
    { write: 'accept event (finds the submitter)', statement: `INSERT INTO image_events (image_id, type, user_id, from_value, to_value) VALUES ('${img!.id}', 'status', '${bench.user.userId}', 'review', 'complete')` },
    { write: 'image stage change', statement: `UPDATE images SET status = CASE WHEN status = 'complete' THEN 'review' ELSE 'complete' END WHERE id = '${img!.id}'` },
    { write: "a save's image update (no stage move)", statement: `UPDATE images SET annotation_count = annotation_count + 1 WHERE id = '${img!.id}'` },
    // A bulk update of 20k rows: the trigger groups old and new rows, whatever changed.
    { write: '20k images updated, no stage move', statement: `UPDATE images SET updated_at = updated_at WHERE project_id = '${projectId}' AND filename < 'img_020000'` },
    { write: '20k images moved to another stage', statement: `UPDATE images SET status = CASE WHEN status = 'complete' THEN 'review' ELSE 'complete' END WHERE project_id = '${projectId}' AND filename < 'img_020000'` },
  ];
  const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);
  const out: { write: string; statement_p50_ms: number; rollup_trigger_p50_ms: number }[] = [];
  for (const w of writes) {
    const runs = w.write.startsWith('20k') ? Math.min(n, 3) : n;
    const statement: number[] = [];
    const trigger: number[] = [];
    for (let i = 0; i < runs; i++) {
      await db
        .transaction(async (tx) => {
          const [row] = await rowsOf<Record<string, unknown>>(tx, sql.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${w.statement}`));
          const raw = Object.values(row ?? {})[0];
          const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw)[0] as { 'Execution Time': number; Triggers?: { 'Trigger Name': string; Time: number }[] };
          statement.push(plan['Execution Time']);
          trigger.push((plan.Triggers ?? []).filter((t) => /analytics/.test(t['Trigger Name'])).reduce((sum, t) => sum + t.Time, 0));
          throw new RolledBack();
        })
        .catch((err: unknown) => {
          if (!(err instanceof RolledBack)) throw err;
        });
    }
    out.push({ write: w.write, statement_p50_ms: +median(statement).toFixed(3), rollup_trigger_p50_ms: +median(trigger).toFixed(3) });
  }
  return out;
}

class RolledBack extends Error {}

/**
 * The save path with the rollup triggers on and off, alternating blocks in one run, over HTTP on
 * a project of its own: a whole-list save-data that changes every shape of a SHAPES-shape list,
 * and a one-shape save-changes on it. Wall time per save and this process's CPU (server and client).
 */
async function saveCost(bench: BenchServer, shapes: number, blocks: number, perBlock: number) {
  const { server, user } = bench;
  const project = await createProject(server, user as unknown as Parameters<typeof createProject>[1], `Save cost ${Date.now().toString(36)}`);
  const classes = await api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: user.token, body: { classes: [{ name: 'car', type: 'box', color: '#F07575' }] } });
  if (classes.status !== 200) throw new Error(`classes: ${classes.status}`);
  // The image row alone (the kept database's bucket lives in a data directory of an earlier run).
  const image = { id: randomUUID(), filename: 'save-cost.png' };
  const database = server.built.ctx.database;
  await database.exec(`INSERT INTO images (id, project_id, organization_id, filename, gcs_uri, gcs_path, mime_type, image_width, image_height)
      VALUES ('${image.id}', '${project.id}', '${user.org.id}', '${image.filename}', 'gs://none/x.png', 'none/x.png', 'image/png', 4000, 4000);
    INSERT INTO annotation_documents (image_id, project_id) VALUES ('${image.id}', '${project.id}');`);
  const setTriggers = (on: boolean) =>
    database.exec(`ALTER TABLE annotation_changes ${on ? 'ENABLE' : 'DISABLE'} TRIGGER annotation_changes_analytics;
      ALTER TABLE images ${on ? 'ENABLE' : 'DISABLE'} TRIGGER images_analytics_update;`);
  let round = 0;
  const list = () => {
    round += 1;
    return Array.from({ length: shapes }, (_, i) => ({ id: `s${i}`, name: 'car', bounding_box: { x: (i % 50) + (round % 7), y: Math.floor(i / 50) % 40, w: 3, h: 3 } }));
  };
  const call = async (path: string, body: unknown) => {
    const res = await api(server.url, 'POST', path, { token: user.token, body });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    return res.body as { version: number };
  };
  let version = (await call('/api/v1/annotations/save-data', { image_id: image.id, project_id: project.id, image_filename: image.filename, annotations: list() })).version;
  const samples: Record<string, { ms: number[]; cpu: number[] }> = {};
  const time = async (key: string, work: () => Promise<void>) => {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await work();
    const cpu = process.cpuUsage(cpu0);
    (samples[key] ??= { ms: [], cpu: [] }).ms.push(performance.now() - t0);
    samples[key].cpu.push((cpu.user + cpu.system) / 1000);
  };
  try {
    for (let b = 0; b < blocks * 2; b++) {
      const on = b % 2 === 0;
      await setTriggers(on);
      for (let i = 0; i < perBlock; i++) {
        await time(`${on ? 'on' : 'off'}|whole list of ${shapes}, every shape changed (save-data)`, async () => {
          version = (await call('/api/v1/annotations/save-data', { image_id: image.id, project_id: project.id, image_filename: image.filename, annotations: list() })).version;
        });
        await time(`${on ? 'on' : 'off'}|one shape moved on ${shapes} (save-changes)`, async () => {
          const upserts = [{ id: 's0', name: 'car', bounding_box: { x: 100 + i, y: 1, w: 3, h: 3 } }];
          version = (await call('/api/v1/annotations/save-changes', { image_id: image.id, project_id: project.id, image_filename: image.filename, base_version: version, upserts, removed_ids: [] })).version;
        });
      }
    }
  } finally {
    await setTriggers(true);
  }
  const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);
  const writes = [...new Set(Object.keys(samples).map((k) => k.split('|')[1]!))];
  return writes.map((w) => {
    const on = samples[`on|${w}`]!;
    const off = samples[`off|${w}`]!;
    return {
      save: w,
      triggers_on_p50_ms: +median(on.ms).toFixed(1),
      triggers_off_p50_ms: +median(off.ms).toFixed(1),
      ratio: +(median(on.ms) / median(off.ms)).toFixed(2),
      cpu_on_ms: +median(on.cpu).toFixed(1),
      cpu_off_ms: +median(off.cpu).toFixed(1),
    };
  });
}

async function main() {
  // The history sweep would drop the seeded change rows older than ANNOTATION_HISTORY_DAYS (90 by
  // default; the rollups stay): 0 keeps them all, so the project keeps its 2M rows from run to run.
  const { bench, project } = await keptServer({
    name: DB_NAME,
    email: 'bench-analytics@example.com',
    organizationName: 'Bench analytics',
    organizationSlug: 'bench-analytics',
    seededProject: sql`p.name = ${PROJECT_NAME} AND p.description = 'seeded'`,
    env: { ANNOTATION_HISTORY_DAYS: '0' },
  });
  const kept = project?.id ?? null;
  const { server, user } = bench;
  try {
    const projectId = kept ?? (await seed(bench));
    const [counts] = await rowsOf<{ images: string; changes: string; member_days: string; stage_days: string }>(
      server.built.ctx.db,
      sql`SELECT (SELECT count(*) FROM images WHERE project_id = ${projectId}) AS images,
                 (SELECT count(*) FROM annotation_changes c JOIN images i ON i.id = c.image_id WHERE i.project_id = ${projectId}) AS changes,
                 (SELECT count(*) FROM analytics_member_days WHERE project_id = ${projectId}) AS member_days,
                 (SELECT count(*) FROM analytics_stage_days WHERE project_id = ${projectId}) AS stage_days`,
    );
    console.log(`project: ${counts!.images} images, ${counts!.changes} change rows; rollups: ${counts!.member_days} member-day rows, ${counts!.stage_days} stage-day rows`);
    const saveCostOnly = process.argv.includes('--save-cost-only');
    const day = 86_400_000;
    const today = new Date().toISOString().slice(0, 10);
    const yearAgo = new Date(Date.now() - 364 * day).toISOString().slice(0, 10);
    const base = `/api/v1/projects/${projectId}/analytics?org_id=${user.org.id}`;
    const cases = [
      { name: 'health (baseline)', path: '/api/v1/health' },
      { name: 'analytics: 30 days by day (default)', path: base },
      { name: 'analytics: 365 days by week', path: `${base}&from=${yearAgo}&to=${today}&bucket=week` },
      { name: 'analytics: 365 days by day', path: `${base}&from=${yearAgo}&to=${today}&bucket=day` },
    ];
    await fetch(`${server.url}/api/v1/health`).catch(() => undefined);
    const results: { name: string; p50: number; p95: number; cpu_ms_per_call: number; members: number; buckets: number; load: number }[] = [];
    for (const c of saveCostOnly ? [] : cases) {
      let members = 0;
      let buckets = 0;
      const once = async () => {
        const start = performance.now();
        const res = await fetch(`${server.url}${c.path}`, { headers: c.path.includes('/health') ? {} : { authorization: `Bearer ${user.token}` } });
        const body = (await res.json()) as { members?: unknown[]; buckets?: unknown[] };
        const ms = performance.now() - start;
        if (res.status !== 200) throw new Error(`${c.name}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
        members = body.members?.length ?? 0;
        buckets = body.buckets?.length ?? 0;
        return ms;
      };
      for (let i = 0; i < WARMUP; i++) await once();
      const times: number[] = [];
      // CPU of this process (the server and the client; PostgreSQL's own is not in it) per call.
      const cpu0 = process.cpuUsage();
      for (let i = 0; i < RUNS; i++) times.push(await once());
      const cpu = process.cpuUsage(cpu0);
      times.sort((a, b) => a - b);
      results.push({ name: c.name, p50: +percentile(times, 50).toFixed(2), p95: +percentile(times, 95).toFixed(2), cpu_ms_per_call: +((cpu.user + cpu.system) / 1000 / RUNS).toFixed(2), members, buckets, load: +os.loadavg()[0]!.toFixed(1) });
    }
    if (results.length) console.table(results);
    const worst = Math.max(0, ...results.filter((r) => !r.name.startsWith('health')).map((r) => r.p95));
    if (results.length) console.log(`analytics p95 worst ${worst.toFixed(1)} ms (target < 300 ms), ${RUNS} runs each, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} cores`);
    const writes = saveCostOnly ? [] : await triggerCosts(bench, projectId, quick ? 5 : 20);
    if (writes.length) {
      console.log('\nthe rollup triggers inside the writes (EXPLAIN ANALYZE, rolled back):');
      console.table(writes);
    }
    const SAVE_SHAPES = Number(arg('save-shapes', '10000'));
    const saves = await saveCost(bench, SAVE_SHAPES, quick ? 2 : 4, quick ? 2 : 3);
    console.log(`\nthe save path with the rollup triggers on and off (alternating blocks, p50; load ${os.loadavg()[0]!.toFixed(1)}):`);
    console.table(saves);
    const out = process.env.ANALYTICS_BENCH_OUT ?? path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'analytics.json');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), images: Number(counts!.images), changes: Number(counts!.changes), runs: RUNS, results, writes, saves }, null, 2));
  } finally {
    await bench.stop();
  }
}

if (!(arg('pg') ?? process.env.DATABASE_URL)) console.log('analytics bench: skipped (PostgreSQL only: --pg <url> or DATABASE_URL)');
else await main();
