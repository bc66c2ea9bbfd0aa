// Vitest setup file, on only when VITEST_CPU_LOG names a file (vitest.config.ts): appends a line
// per test file with the CPU seconds its worker spent from the file's first import to its last
// afterAll, child processes included (a spawned server, Chromium), and the wall seconds, then a
// line per test (its hooks' share in the file's). A worker runs one file, and a file one test, at
// a time, so the worker's CPU over a span is that file's or test's. Sort the log to find where a
// run's CPU goes (tests/README.md, "Where the time goes").
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { appendCpuLine } from './cpu-log-line';

const TICKS_PER_SECOND = 100;

/** utime + stime + cutime + cstime of a process (reaped children included), in ticks. */
function ownTicks(pid: number | 'self'): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  } catch {
    return 0; // gone meanwhile
  }
}

function childrenOf(pid: number | 'self'): number[] {
  let tasks: string[];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((tid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });
}

/** This process and its live descendants: a child still running counts on both sides of a span. */
function treeTicks(pid: number | 'self' = 'self'): number {
  return ownTicks(pid) + childrenOf(pid).reduce((sum, child) => sum + treeTicks(child), 0);
}

/** Appends the line for the span since `since`. */
function logSpan(since: { ticks: number; wall: number }, what: string): void {
  appendCpuLine((treeTicks() - since.ticks) / TICKS_PER_SECOND, (performance.now() - since.wall) / 1000, what);
}

const now = () => ({ ticks: treeTicks(), wall: performance.now() });
const fileStart = now();
// This file's hooks run first before and last after the test file's own (vitest's 'stack' order),
// so the spans between them are the file's import, its beforeAll hooks and its afterAll hooks.
let mark = fileStart;
let firstTest = true;

beforeAll(() => {
  logSpan(fileStart, `${expect.getState().testPath ?? '?'} [import]`);
  mark = now();
});
beforeEach(() => {
  if (firstTest) logSpan(mark, `${expect.getState().testPath ?? '?'} [beforeAll]`);
  firstTest = false;
  mark = now();
});
afterEach(() => {
  const { testPath, currentTestName } = expect.getState();
  logSpan(mark, `${testPath ?? '?'} > ${currentTestName ?? '?'}`);
  mark = now();
});
afterAll(() => {
  const file = expect.getState().testPath ?? '?';
  logSpan(mark, `${file} [afterAll]`);
  logSpan(fileStart, file);
});
