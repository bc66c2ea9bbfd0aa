// The loop of one offload worker thread: runs the task each message names and posts the result
// back, moving (not copying) the typed arrays it holds. See README.md for what may run here.
import fs from 'node:fs';
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { tasks, type TaskName } from './tasks';
import { transferablesOf } from './transfer';

/** Lowers this thread's CPU priority by `nice` steps (OFFLOAD_NICE in ./pool.ts). Linux: nice is per thread, and /proc/thread-self names this one; elsewhere the thread keeps the process's priority. */
function lowerOwnPriority(nice: number): void {
  if (!(nice > 0)) return;
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) os.setPriority(tid, Math.min(19, os.getPriority(tid) + nice));
  } catch {
    // not Linux, or not allowed: the thread runs at the process's priority
  }
}

lowerOwnPriority(Number((workerData as { nice?: number } | null)?.nice ?? 0));

interface Request {
  id: number;
  task: TaskName;
  args: unknown[];
}

const port = parentPort!;

port.on('message', async ({ id, task, args }: Request) => {
  try {
    const run = tasks[task] as (...a: unknown[]) => unknown;
    if (!run) throw new Error(`Unknown offload task ${task}`);
    const result = await run(...args);
    try {
      port.postMessage({ id, ok: true, result }, transferablesOf(result));
    } catch {
      port.postMessage({ id, ok: true, result }); // a buffer that cannot move (wasm memory) is copied
    }
  } catch (err) {
    const e = err as Error;
    port.postMessage({ id, ok: false, error: { name: e?.name ?? 'Error', message: e?.message ?? String(err), code: (e as { code?: string })?.code } });
  }
});
port.postMessage({ ready: true });
