// A Playwright reporter that prints the CPU seconds (user + sys) each test and each spec file
// used, read from a cgroup v1 cpuacct directory (E2E_CPU_CGROUP) that holds the whole run: the
// runner, its workers, the server and Chromium. Each worker moves itself into a child cgroup of
// its own (`joinWorkerCgroup`, called from playwright.config.ts), so the Chromium it launches is
// counted there too, and the server into `server` (tests/support/e2e-server.ts): a test's own CPU
// is its worker's, exact with two workers as well, and the server's CPU while it ran is printed
// beside it (shared with the other worker's test). Without E2E_CPU_CGROUP it prints nothing.
// Used to find where the e2e suite's time goes (tests/README.md, "Where the time goes").
import fs from 'node:fs';
import path from 'node:path';
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';

function cpuSeconds(dir: string): number {
  try {
    return Number(fs.readFileSync(path.join(dir, 'cpuacct.usage'), 'utf8')) / 1e9;
  } catch {
    return 0; // not made yet (a worker or the server still starting)
  }
}

/** Moves this process (and whatever it starts later) into `<E2E_CPU_CGROUP>/<name>`. */
export function joinCpuCgroup(name: string): void {
  const root = process.env.E2E_CPU_CGROUP;
  if (!root) return;
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'cgroup.procs'), String(process.pid));
}

/** In a worker process: its cgroup is named by its parallel index, which a restarted worker keeps. */
export function joinWorkerCgroup(): void {
  const index = process.env.TEST_PARALLEL_INDEX;
  if (index !== undefined) joinCpuCgroup(`worker${index}`);
}

export default class CpuReporter implements Reporter {
  private readonly dir = process.env.E2E_CPU_CGROUP;
  private readonly started = new Map<string, { own: number; server: number }>();
  private readonly perFile = new Map<string, { cpu: number; tests: number }>();
  private readonly atStart = this.dir ? cpuSeconds(this.dir) : 0;

  private worker(result: TestResult): string {
    return path.join(this.dir ?? '', `worker${result.parallelIndex}`);
  }

  onTestBegin(test: TestCase, result: TestResult) {
    if (!this.dir) return;
    this.started.set(test.id, { own: cpuSeconds(this.worker(result)), server: cpuSeconds(path.join(this.dir, 'server')) });
  }

  onTestEnd(test: TestCase, result: TestResult) {
    if (!this.dir) return;
    const start = this.started.get(test.id) ?? { own: 0, server: 0 };
    const cpu = cpuSeconds(this.worker(result)) - start.own;
    const server = cpuSeconds(path.join(this.dir, 'server')) - start.server;
    const file = path.basename(test.location.file);
    const entry = this.perFile.get(file) ?? { cpu: 0, tests: 0 };
    this.perFile.set(file, { cpu: entry.cpu + cpu, tests: entry.tests + 1 });
    const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    console.log(
      `cpu ${cpu.toFixed(1).padStart(6)} s  server ${server.toFixed(1).padStart(5)} s  ${(result.duration / 1000).toFixed(1).padStart(6)} s wall  load ${load.padStart(5)}  ${result.status.padEnd(8)} ${file}:${test.location.line} > ${test.title}`,
    );
  }

  onEnd(_result: FullResult) {
    if (!this.dir) return;
    const rows = [...this.perFile].sort((a, b) => b[1].cpu - a[1].cpu);
    console.log("\ncpu per spec file (the workers' own: worker and its Chromium; the server is apart):");
    for (const [file, { cpu, tests }] of rows) console.log(`${cpu.toFixed(1).padStart(7)} s  ${String(tests).padStart(3)} tests  ${file}`);
    const server = cpuSeconds(path.join(this.dir, 'server'));
    console.log(`${server.toFixed(1).padStart(7)} s  the server`);
    console.log(`${(cpuSeconds(this.dir) - this.atStart).toFixed(1).padStart(7)} s  the whole run`);
  }
}
