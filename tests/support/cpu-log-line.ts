// One line of the VITEST_CPU_LOG file (tests/support/vitest-cpu-log.ts, and the API harness's
// server starts and stops): `cpu wall load pid what`, tab-separated. Nothing when the variable is unset.
import fs from 'node:fs';

export function appendCpuLine(cpuSeconds: number, wallSeconds: number, what: string): void {
  const log = process.env.VITEST_CPU_LOG;
  if (!log) return;
  const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
  fs.appendFileSync(log, `${cpuSeconds.toFixed(2)}\t${wallSeconds.toFixed(1)}\t${load}\t${process.pid}\t${what}\n`);
}
