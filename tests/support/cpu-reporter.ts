// A Playwright reporter that prints the CPU seconds (user + sys) each test and each spec file
// used, read from a cgroup v1 cpuacct directory (E2E_CPU_CGROUP) that holds the whole run: the
// runner, its workers, the server and Chromium. Exact with one worker (E2E_WORKERS=1); with two,
// a test's figure includes what the other worker did meanwhile. Without E2E_CPU_CGROUP it prints
// nothing. Used to find where the e2e suite's time goes (tests/README.md, "Where the time goes").
import fs from 'node:fs';
import path from 'node:path';
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';

function cpuSeconds(dir: string): number {
  return Number(fs.readFileSync(path.join(dir, 'cpuacct.usage'), 'utf8')) / 1e9;
}

export default class CpuReporter implements Reporter {
  private readonly dir = process.env.E2E_CPU_CGROUP;
  private readonly started = new Map<string, number>();
  private readonly perFile = new Map<string, { cpu: number; tests: number }>();
  private readonly atStart = this.dir ? cpuSeconds(this.dir) : 0;

  onTestBegin(test: TestCase) {
    if (this.dir) this.started.set(test.id, cpuSeconds(this.dir));
  }

  onTestEnd(test: TestCase, result: TestResult) {
    if (!this.dir) return;
    const cpu = cpuSeconds(this.dir) - (this.started.get(test.id) ?? 0);
    const file = path.basename(test.location.file);
    const entry = this.perFile.get(file) ?? { cpu: 0, tests: 0 };
    this.perFile.set(file, { cpu: entry.cpu + cpu, tests: entry.tests + 1 });
    console.log(`cpu ${cpu.toFixed(1).padStart(6)} s  ${(result.duration / 1000).toFixed(1).padStart(6)} s wall  ${result.status.padEnd(8)} ${file} > ${test.title}`);
  }

  onEnd(_result: FullResult) {
    if (!this.dir) return;
    const rows = [...this.perFile].sort((a, b) => b[1].cpu - a[1].cpu);
    console.log('\ncpu per spec file (tests only; the run adds the server start and browser launch):');
    for (const [file, { cpu, tests }] of rows) console.log(`${cpu.toFixed(1).padStart(7)} s  ${String(tests).padStart(3)} tests  ${file}`);
    console.log(`${(cpuSeconds(this.dir) - this.atStart).toFixed(1).padStart(7)} s  the whole run`);
  }
}
