// `npm run bench -- --only=load [--duration=<seconds>] [--quick]` with DATABASE_URL or --pg <url>:
// the load a team makes (issue 15 item 7). A real server in a child process on a throwaway
// database of that PostgreSQL server; an organization of 50 annotators and 5 uploaders joined by
// invite; a project of 300 images in 4 folders with 3-12 shapes each. Then, for 5 minutes (60 s
// with --quick), 50 annotators at once (Data tab pages and thumbnail URLs, the editor's calls on
// opening an image, a small change saved every 2 s with 409s rebased as the editor does, the next
// image now and then) and 5 people uploading PNGs (check-filename, upload-url, PUT, register) and
// exporting COCO. Before the load, the baseline: the same calls made by one user one at a time
// (30 rounds). Per route: count, req/s, p50 / p95 / p99, 409s, errors, and load p95 / single
// p95; the server's CPU and RSS, sampled from /proc each second; the CPU of the run's PostgreSQL
// backends (when on this machine) and what pg_stat_activity shows them doing; the load average at
// start and end. Prints a markdown table and writes bench/results/load.json. More options:
// --annotators=<n>, --uploaders=<n>, --max-requests=<n>, --server-cpu-prof=<dir> (the server's
// CPU profile, written when it stops).
//
// Bounded: 55 virtual users, one request at a time each, 30 s per request (120 s for an export),
// at most --max-requests (default 200 a second of the run, plus 20,000) in all, and only to loopback addresses:
// the server's URL and every signed URL followed are checked.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { arg, percentile } from './lib/seed';
import { LoadClient, RequestCapReached, type Sample } from './lib/load/http';
import { Annotator, Uploader, random, type Clock } from './lib/load/people';
import { sampleDatabase, sampleProcess, sampleWaits, startChildServer, type ProcessSamples } from './lib/load/server';
import { isLoopback } from './lib/load/http';
import { seedTeam } from './lib/load/seed';

const here = path.dirname(fileURLToPath(import.meta.url));
const quick = process.argv.includes('--quick');
const option = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const DURATION_S = Number(option('duration') ?? (quick ? 60 : 300));
const ANNOTATORS = Number(option('annotators') ?? 50);
const UPLOADERS = Number(option('uploaders') ?? 5);
const BASELINE_ROUNDS = 30;
const MAX_REQUESTS = Number(option('max-requests') ?? 200 * DURATION_S + 20_000);
const TIMEOUT_MS = 30_000;

const pgUrl = arg('pg') ?? (process.env.DATABASE_URL || undefined);
if (!pgUrl) {
  console.log('load: skipped. It runs against PostgreSQL: give DATABASE_URL=postgres://... or --pg postgres://user@127.0.0.1:5432/postgres (a database is created on that server for the run and dropped after).');
  process.exit(0);
}
if (!(DURATION_S > 0) || !(ANNOTATORS >= 1) || !(UPLOADERS >= 1)) throw new Error('--duration, --annotators and --uploaders must be positive numbers');

const f1 = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(1));
const loadavg = () => os.loadavg().map((l) => Number(l.toFixed(2)));

interface RouteStats {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  conflicts: number;
  /** p95 of the 409 answers alone (they are in p50 / p95 / p99 too). */
  conflictP95: number | null;
  errors: number;
  timeouts: number;
  network: number;
}

function routeStats(samples: Sample[]): RouteStats {
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
  const count = (o: Sample['outcome']) => samples.filter((s) => s.outcome === o).length;
  const conflictMs = samples.filter((s) => s.outcome === 'conflict').map((s) => s.ms).sort((a, b) => a - b);
  return {
    n: ms.length,
    p50: percentile(ms, 50),
    p95: percentile(ms, 95),
    p99: percentile(ms, 99),
    conflicts: count('conflict'),
    conflictP95: conflictMs.length ? percentile(conflictMs, 95) : null,
    errors: count('error'),
    timeouts: count('timeout'),
    network: count('network'),
  };
}

function summary(samples: ProcessSamples) {
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  return { cpuMeanPct: Number(mean(samples.cpu).toFixed(1)), cpuMaxPct: Number(Math.max(0, ...samples.cpu).toFixed(1)), rssStartMb: Number((samples.rssMb[0] ?? 0).toFixed(1)), rssMaxMb: Number(Math.max(0, ...samples.rssMb).toFixed(1)), seconds: samples.cpu.length };
}

const loadBefore = loadavg();
const startedAt = new Date().toISOString();
console.log(`load: ${ANNOTATORS} annotators + ${UPLOADERS} uploaders for ${DURATION_S} s on PostgreSQL; ${os.cpus().length} CPUs, load average at start ${loadBefore.join(' ')}`);
const profileDir = option('server-cpu-prof');
const server = await startChildServer(pgUrl, profileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(profileDir)}`] : []);
let report: Record<string, unknown>;
try {
  const team = await seedTeam(server, { annotators: ANNOTATORS, uploaders: UPLOADERS, folders: 4, imagesPerFolder: 75 }, (m) => console.log(`load: ${m}`));
  const { world } = team;

  // Baseline: one user, one call at a time, nothing cached, no pauses.
  const single = new LoadClient({ timeoutMs: TIMEOUT_MS, maxRequests: 100_000 });
  const calm: Clock = { until: Infinity, think: false, stopped: false };
  const a = new Annotator(single, world, team.annotators[0]!, random(1), calm);
  const u = new Uploader(single, world, team.uploaders[0]!, random(2), calm, '/incoming-1', 'single');
  const baselineSampler = sampleProcess(server.pid);
  const b0 = performance.now();
  for (let i = 0; i < BASELINE_ROUNDS; i++) {
    const folder = world.folders[i % world.folders.length]!;
    a.forget();
    await a.projectPage();
    const list = await a.dataTab(folder, true);
    const opened = await a.open(list[(i * 7) % list.length]!);
    if (!opened) throw new Error('baseline: could not open an image');
    await a.saveChange(opened.image, false);
    await a.saveChange(opened.image, true);
    await u.uploadOne();
    await u.refreshList();
    await u.exportFolder(folder);
  }
  const baselineSeconds = (performance.now() - b0) / 1000;
  const baselineServer = summary(baselineSampler.stop());
  single.close();
  console.log(`load: baseline ${single.sent} requests one at a time in ${baselineSeconds.toFixed(0)} s`);

  // The load.
  const client = new LoadClient({ timeoutMs: TIMEOUT_MS, maxRequests: MAX_REQUESTS });
  const loadAtStart = loadavg();
  const sampler = sampleProcess(server.pid);
  const dbSampler = isLoopback(pgUrl.replace(/^postgres(ql)?:/, 'http:')) ? sampleDatabase(server.dbName) : null;
  const waitSampler = await sampleWaits(server.dbUrl, server.dbName);
  const progress = setInterval(() => console.log(`load: ${((performance.now() - t0) / 1000).toFixed(0)} s, ${client.sent} requests, ${client.recorder.failures.length} failures`), 30_000);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const clock: Clock = { until: t0 + DURATION_S * 1000, think: true, stopped: false };
  const annotators = team.annotators.map((token, i) => new Annotator(client, world, token, random(1000 + i), clock));
  const uploaders = team.uploaders.map((token, i) => new Uploader(client, world, token, random(2000 + i), clock, `/incoming-${i + 1}`, `up${i + 1}`));
  let capReached = false;
  const crashes: string[] = [];
  const stagger = random(99);
  // People arrive over the first 5 s, each then working until the end.
  await Promise.all(
    [...annotators, ...uploaders].map(async (p) => {
      await new Promise((r) => setTimeout(r, stagger() * 5000));
      try {
        await p.run();
      } catch (err) {
        if (err instanceof RequestCapReached) {
          capReached = true;
          clock.stopped = true;
        } else crashes.push(err instanceof Error ? (err.stack ?? err.message) : String(err));
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(progress);
  const serverSamples = summary(sampler.stop());
  const dbCpu = dbSampler?.stop() ?? [];
  const waits = await waitSampler.stop();
  const database = dbCpu.length ? { cpuMeanPct: Number((dbCpu.reduce((x, y) => x + y, 0) / dbCpu.length).toFixed(1)), cpuMaxPct: Number(Math.max(...dbCpu).toFixed(1)) } : null;
  const loadAtEnd = loadavg();
  client.close();
  if (crashes.length) console.error(`load: ${crashes.length} virtual users stopped on an exception:\n${crashes.slice(0, 3).join('\n')}`);

  const routes = [...new Set([...client.recorder.routes.keys(), ...single.recorder.routes.keys()])];
  const rows = routes.map((route) => {
    const load = routeStats(client.recorder.routes.get(route) ?? []);
    const base = routeStats(single.recorder.routes.get(route) ?? []);
    return { route, load: { ...load, perSecond: Number((load.n / seconds).toFixed(2)) }, single: base, p95Ratio: base.n && load.n ? Number((load.p95 / base.p95).toFixed(2)) : null };
  });
  rows.sort((x, y) => y.load.n - x.load.n);
  const total = rows.reduce((acc, r) => ({ n: acc.n + r.load.n, failed: acc.failed + r.load.errors + r.load.timeouts + r.load.network, conflicts: acc.conflicts + r.load.conflicts }), { n: 0, failed: 0, conflicts: 0 });
  const people = {
    saves: annotators.reduce((s, p) => s + p.stats.saves, 0),
    conflicts: annotators.reduce((s, p) => s + p.stats.conflicts, 0),
    conflictsOnSharedImages: annotators.reduce((s, p) => s + p.stats.conflictsShared, 0),
    savesGivenUp: annotators.reduce((s, p) => s + p.stats.givenUp, 0),
    opens: annotators.reduce((s, p) => s + p.stats.opens, 0),
    uploads: uploaders.reduce((s, p) => s + p.stats.uploads, 0),
    exports: uploaders.reduce((s, p) => s + p.stats.exports, 0),
    exportMb: Number((uploaders.reduce((s, p) => s + p.stats.exportBytes, 0) / 1024 / 1024).toFixed(2)),
  };

  const table = [
    '| route | requests | req/s | p50 | p95 | p99 | 409 (normal: rebased and sent again) | errors | single p50 / p95 / p99 (n) | load p95 / single p95 |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => {
      const err = r.load.errors + r.load.timeouts + r.load.network;
      const errText = err ? `${err} (${r.load.errors} non-2xx, ${r.load.timeouts} timeouts, ${r.load.network} network)` : '0';
      const base = r.single.n ? `${f1(r.single.p50)} / ${f1(r.single.p95)} / ${f1(r.single.p99)} ms (${r.single.n})` : '';
      const ld = r.load.n ? [String(r.load.n), r.load.perSecond.toFixed(2), `${f1(r.load.p50)} ms`, `${f1(r.load.p95)} ms`, `${f1(r.load.p99)} ms`, r.load.conflicts ? `${r.load.conflicts} (p95 ${f1(r.load.conflictP95!)} ms)` : '0', errText] : ['0', '', '', '', '', '', ''];
      return `| \`${r.route}\` | ${ld.join(' | ')} | ${base} | ${r.p95Ratio === null ? '' : `${r.p95Ratio.toFixed(1)}x`} |`;
    }),
  ].join('\n');
  console.log(`\n${table}\n`);
  console.log(
    `load: ${total.n} requests in ${seconds.toFixed(0)} s (${(total.n / seconds).toFixed(1)} req/s), ${total.failed} errors, ${total.conflicts} 409s (${people.conflictsOnSharedImages} on the ${world.shared.length} shared images); ${people.saves} saves committed, ${people.savesGivenUp} given up after 5 conflicts, ${people.opens} images opened, ${people.uploads} uploads, ${people.exports} exports (${people.exportMb} MB)${capReached ? '; STOPPED AT THE REQUEST CAP' : ''}`,
  );
  console.log(`load: server CPU mean ${serverSamples.cpuMeanPct}% / max ${serverSamples.cpuMaxPct}% of one core, RSS ${serverSamples.rssStartMb} MB at the start of the load, max ${serverSamples.rssMaxMb} MB; load generator CPU ${(((cpu.user + cpu.system) / 1e6 / seconds) * 100).toFixed(1)}%${database ? `; PostgreSQL backends of the run's database CPU mean ${database.cpuMeanPct}% / max ${database.cpuMaxPct}%` : ''}`);
  console.log(`load: load average at start ${loadBefore.join(' ')}, at the start of the load ${loadAtStart.join(' ')}, at the end ${loadAtEnd.join(' ')}`);
  console.log(
    `load: PostgreSQL, ${(waits.active / Math.max(1, waits.samples)).toFixed(2)} statements running on average (pg_stat_activity every 250 ms); most seen:\n${waits.waits
      .slice(0, 8)
      .map((w) => `  ${((w.count / Math.max(1, waits.active)) * 100).toFixed(1)}% ${w.event}: ${w.query}`)
      .join('\n')}`,
  );
  if (client.recorder.failures.length) console.log(`load: first failures:\n${client.recorder.failures.slice(0, 10).map((x) => `  ${x.route} ${x.status} ${x.body}`).join('\n')}`);

  report = {
    when: startedAt,
    quick,
    durationSeconds: DURATION_S,
    measuredSeconds: Number(seconds.toFixed(1)),
    cpus: os.cpus().length,
    loadavg: { start: loadBefore, loadStart: loadAtStart, end: loadAtEnd },
    team: { annotators: ANNOTATORS, uploaders: UPLOADERS, images: team.images.length, shapes: team.shapes, folders: world.folders },
    bounds: { virtualUsers: ANNOTATORS + UPLOADERS, timeoutMs: TIMEOUT_MS, maxRequests: MAX_REQUESTS, capReached },
    totals: { requests: total.n, perSecond: Number((total.n / seconds).toFixed(1)), errors: total.failed, responses409: total.conflicts, ...people },
    server: { load: serverSamples, baseline: baselineServer },
    database: { ...database, waits: { ...waits, waits: waits.waits.slice(0, 30) } },
    loadGeneratorCpuPct: Number((((cpu.user + cpu.system) / 1e6 / seconds) * 100).toFixed(1)),
    baseline: { rounds: BASELINE_ROUNDS, requests: single.sent, seconds: Number(baselineSeconds.toFixed(1)) },
    routes: rows,
    failures: client.recorder.failures,
    crashes,
  };
} finally {
  await server.stop();
}
fs.mkdirSync(path.join(here, 'results'), { recursive: true });
fs.writeFileSync(path.join(here, 'results', 'load.json'), JSON.stringify(report, null, 2));
console.log('load: wrote bench/results/load.json');
process.exit(0);
