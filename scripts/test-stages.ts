// `npm test` and `npm run typecheck` (issue 31: npm test under 12 minutes here). Runs the test
// stages in order and stops at the first that fails. The checks (docs, the three type checks,
// eslint, and the SPA's build for the e2e suite) are mostly single-threaded, so they run side by
// side, TEST_JOBS at a time (default: the number of cores), longest first; their output is printed
// whole as each ends. Then vitest, then the e2e suite on that build (`playwright test`; run alone,
// the e2e stage builds first, as `npm run test:e2e` does). With TEST_PARALLEL=1 (stage `tests`)
// vitest and the e2e suite run at the same time, their lines prefixed as they come.
// At the end, every stage's wall time and the CPU seconds (user + sys) its processes used, with
// the load average and how busy the machine was.
//
// Usage: node --import tsx scripts/test-stages.ts [checks|typecheck|tests|unit|e2e ...]
// (default: checks, then unit, then e2e, one after the other; TEST_PARALLEL=1: checks, then unit and e2e
// together. Together was not faster in CI (900 s against 954 s: both suites are CPU-bound on 2 cores)
// and made timing-sensitive tests flaky, so it is not the default; with TEST_UNIT_NICE=10 too, on a
// clean clone of 17b9081, it took 1,136 s against CI's 1,142 s in order, and 5 API tests timed out.)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

interface Job {
  name: string;
  command: string;
}

const typecheck: Job[] = [
  { name: 'typecheck app', command: 'tsc --noEmit -p tsconfig.json' },
  { name: 'typecheck assembly', command: 'tsc --noEmit -p assembly/tsconfig.json' },
  { name: 'typecheck engine', command: 'tsc --noEmit -p src/engine/tsconfig.json' },
];

// The SPA's build for the e2e suite (`npm run test:e2e` builds it first).
const build: Job = { name: 'build', command: 'npm run -s build' };
// Longest first (measured on 2 cores: app types 33 s of CPU, eslint 23, the build 11, assembly 5,
// engine 4, docs 0.5). The build goes with the checks: in CI they left a core idle a third of
// their time (67 s of CPU in 56 s wall), and the e2e stage no longer waits for it.
const stages: Record<string, Job[]> = {
  checks: [typecheck[0]!, { name: 'lint', command: 'npm run -s lint' }, build, typecheck[1]!, typecheck[2]!, { name: 'check:docs', command: 'npm run -s check:docs' }],
  typecheck,
  unit: [{ name: 'unit', command: 'npm run test:unit' }],
  e2e: [{ name: 'e2e', command: 'npm run test:e2e' }],
};
// The e2e suite first: it is the longer, and the one to start at once. TEST_UNIT_NICE=<n> runs
// vitest beside it at that niceness, so the browser tests keep the cores they need (their timing
// made them flaky when both ran at one priority) and vitest takes what they leave idle.
const unitNice = Number(process.env.TEST_UNIT_NICE) || 0;
stages.tests = [stages.e2e![0]!, unitNice > 0 ? { name: 'unit', command: `nice -n ${Math.min(19, unitNice)} npm run test:unit` } : stages.unit![0]!];
const streamed = new Set(['tests']);

/** CPU seconds (user + sys) of this process's finished children, from /proc (Linux); null elsewhere. */
function childrenCpuSeconds(): number | null {
  try {
    // Fields after the command name: cutime and cstime are the 14th and 15th.
    const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return null;
  }
}

/**
 * The whole machine's busy and total CPU time so far (/proc/stat, Linux; null elsewhere). The
 * children's count above misses processes whose parent was killed before reaping them (Chromium's
 * helpers when Playwright closes the browser), so the machine's share busy is shown too.
 */
function machineCpu(): { busy: number; total: number } | null {
  try {
    const [, ...ticks] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
    const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: total - ticks[3]! - ticks[4]!, total };
  } catch {
    return null;
  }
}

interface Result {
  name: string;
  ok: boolean;
  wallSeconds: number;
}

/** How a job's output reaches ours: straight through, whole when it ends, or line by line with its name. */
type Output = 'inherit' | 'whole' | 'prefixed';

/** Writes `chunk` line by line, each with `prefix`; keeps an unfinished last line for the next chunk. */
function linePrefixer(prefix: string) {
  let rest = '';
  return {
    write(chunk: Buffer) {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop()!;
      for (const line of lines) process.stdout.write(`${prefix}${line}\n`);
    },
    end() {
      if (rest) process.stdout.write(`${prefix}${rest}\n`);
    },
  };
}

function run(job: Job, output: Output): Promise<Result> {
  const started = performance.now();
  return new Promise((resolve) => {
    // npm puts node_modules/.bin on the PATH of the scripts it runs; so does this, for direct runs.
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${process.cwd()}/node_modules/.bin${process.platform === 'win32' ? ';' : ':'}${process.env.PATH ?? ''}` };
    // Piped output is not a terminal; keep the colours the terminal would have shown.
    if (output !== 'inherit' && process.stdout.isTTY) env.FORCE_COLOR ??= '1';
    const child = spawn(job.command, { shell: true, env, stdio: output === 'inherit' ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    const whole: Buffer[] = [];
    const prefixed = [linePrefixer(`[${job.name}] `), linePrefixer(`[${job.name}] `)];
    child.stdout?.on('data', (b: Buffer) => (output === 'whole' ? whole.push(b) : prefixed[0]!.write(b)));
    child.stderr?.on('data', (b: Buffer) => (output === 'whole' ? whole.push(b) : prefixed[1]!.write(b)));
    child.on('close', (code) => {
      const result = { name: job.name, ok: code === 0, wallSeconds: (performance.now() - started) / 1000 };
      const status = `${job.name}: ${job.command} (${result.ok ? 'ok' : `failed, exit ${code}`}, ${result.wallSeconds.toFixed(1)} s)`;
      if (output === 'whole') process.stdout.write(`\n> ${status}\n${Buffer.concat(whole).toString()}`);
      if (output === 'prefixed') {
        for (const p of prefixed) p.end();
        process.stdout.write(`\n> ${status}\n`);
      }
      resolve(result);
    });
  });
}

/** Runs the jobs `jobs` at a time, in their order; resolves when all have ended. */
async function runAll(list: Job[], jobs: number, output: Output): Promise<Result[]> {
  const results: Result[] = [];
  let next = 0;
  const slot = async () => {
    while (next < list.length) results.push(await run(list[next++]!, output));
  };
  await Promise.all(Array.from({ length: Math.min(jobs, list.length) }, slot));
  return results;
}

async function main() {
  const names = process.argv.slice(2).length ? process.argv.slice(2) : process.env.TEST_PARALLEL === '1' ? ['checks', 'tests'] : ['checks', 'unit', 'e2e'];
  const unknown = names.filter((n) => !stages[n]);
  if (unknown.length) {
    console.error(`unknown stage ${unknown.join(', ')}: one of ${Object.keys(stages).join(', ')}`);
    process.exit(2);
  }
  const jobs = Math.max(1, Number(process.env.TEST_JOBS) || os.availableParallelism());
  const summary: string[] = [];
  const started = performance.now();
  const cpuAtStart = childrenCpuSeconds();
  let failed = false;
  let built = false;
  for (const name of names) {
    const cpuBefore = childrenCpuSeconds();
    const machineBefore = machineCpu();
    const stageStart = performance.now();
    // Once the checks built the app, the e2e suite runs on that build.
    const list = stages[name]!.map((job) => (built && job === stages.e2e![0] ? { name: 'e2e', command: 'playwright test' } : job));
    const results = streamed.has(name) ? await runAll(list, list.length, 'prefixed') : await runAll(list, jobs, list.length > 1 ? 'whole' : 'inherit');
    const cpu = cpuBefore === null ? '' : `${(childrenCpuSeconds()! - cpuBefore).toFixed(0).padStart(5)} s CPU`;
    const machineAfter = machineCpu();
    const busy = machineBefore && machineAfter ? `, machine ${Math.round((100 * (machineAfter.busy - machineBefore.busy)) / Math.max(1, machineAfter.total - machineBefore.total))}% busy` : '';
    summary.push(`${name.padEnd(10)} ${((performance.now() - stageStart) / 1000).toFixed(0).padStart(5)} s wall ${cpu}  load ${os.loadavg()[0]!.toFixed(1)}${busy}`);
    if (results.length > 1) for (const r of results) summary.push(`  ${r.name.padEnd(22)} ${r.wallSeconds.toFixed(0).padStart(4)} s wall${r.ok ? '' : '  FAILED'}`);
    built ||= list.includes(build) && results.some((r) => r.name === build.name && r.ok);
    if (results.some((r) => !r.ok)) {
      failed = true;
      summary.push(`${name} failed: ${results.filter((r) => !r.ok).map((r) => r.name).join(', ')}`);
      break;
    }
  }
  const cpuTotal = cpuAtStart === null ? '' : ` ${(childrenCpuSeconds()! - cpuAtStart).toFixed(0).padStart(5)} s CPU`;
  summary.push(`${'total'.padEnd(10)} ${((performance.now() - started) / 1000).toFixed(0).padStart(5)} s wall${cpuTotal}  (${os.availableParallelism()} cores, ${jobs} jobs at a time)`);
  console.log(`\n== test stages\n${summary.join('\n')}`);
  process.exit(failed ? 1 : 0);
}

await main();
