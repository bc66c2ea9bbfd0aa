// A small pool of worker threads for CPU-heavy work, so no request waits behind it (issue 30):
// `offload('task', ...args)` runs a task of ./tasks.ts on the first idle thread and resolves with
// its result. Threads start on first use, stay (unref'd, so they never keep a process alive) and
// are replaced when one dies; the task it ran fails with OffloadCrashed. See README.md.
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { TaskName, Tasks } from './tasks';
import { transferablesOf } from './transfer';

/** Threads in the pool: one less than the cores, at least 2 (so one long task never holds the queue alone), at most 4. */
export const OFFLOAD_THREADS = Math.max(2, Math.min(4, (os.availableParallelism?.() ?? os.cpus().length) - 1));

/**
 * How much lower the threads' CPU priority is than the event loop's (Linux nice steps, per
 * thread). When the cores are busy the thread that answers requests gets them first: on 2 cores a
 * 12 MP embedding would otherwise take half the CPU from the event loop, and every request with it.
 * On idle cores it changes nothing.
 */
export const OFFLOAD_NICE = 10;

/**
 * Tasks of jobs (an import's read-through and label parsing, image edits) that may run for long: together they hold
 * at most all threads but one, so a request's task (process-image) never queues behind them.
 */
const BACKGROUND_TASKS: ReadonlySet<string> = new Set(['importReadThrough', 'yoloLabels', 'yoloClassTypes', 'importedIds', 'imageEditPixels', 'detectObjects', 'detectYolo']);

/** The task's thread stopped (crash, out of memory, pool closed) before it answered. */
export class OffloadCrashed extends Error {
  override name = 'OffloadCrashed';
}

interface Job {
  id: number;
  task: TaskName;
  args: unknown[];
  transfer: ArrayBuffer[];
  /** Sticky route: every task of one route runs on the thread that ran its first (see run). */
  route?: string;
  resolve(v: unknown): void;
  reject(e: Error): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job: Job | null;
  /** Routes bound to this thread. */
  held: number;
}

const bootUrl = new URL('./boot.mjs', import.meta.url);
const entry = new URL('./worker.ts', import.meta.url).href;

/** Routes remembered at most (the oldest is forgotten first; its next task may then run on any thread). */
const MAX_ROUTES = 10_000;

export class OffloadPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  /** Route -> the thread its tasks run on. */
  private readonly routes = new Map<string, Slot>();
  private nextId = 1;
  private closed = false;

  constructor(readonly size = OFFLOAD_THREADS) {}

  /**
   * Runs `task` on a thread. `move` lists arguments whose typed arrays are moved to the thread
   * rather than copied (the caller must not use them afterwards). `route`: the tasks of one route
   * run one after the other on one thread, the one that ran its first task, so state a task keeps
   * on its thread (an image's embedding for get-mask) is there for the next; other tasks pass them
   * while that thread is busy. When that thread stops, the route starts again on any thread.
   */
  run<K extends TaskName>(task: K, args: Parameters<Tasks[K]>, move: unknown[] = [], opts: { route?: string } = {}): Promise<Awaited<ReturnType<Tasks[K]>>> {
    if (this.closed) return Promise.reject(new OffloadCrashed('The offload pool is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, task, args, transfer: transferablesOf(move), route: opts.route, resolve: resolve as (v: unknown) => void, reject });
      this.pump();
    });
  }

  /** Forgets a route (its state was dropped): its next task may run on any thread. */
  forget(route: string): void {
    const slot = this.routes.get(route);
    if (slot) slot.held -= 1;
    this.routes.delete(route);
  }

  /** The tasks running on a thread now (tests wait for one to start; metrics could count them). */
  running(): TaskName[] {
    return this.slots.flatMap((s) => (s.job ? [s.job.task] : []));
  }

  /** Stops every thread; queued and running tasks fail with OffloadCrashed. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new OffloadCrashed('The offload pool closed'));
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
  }

  /** Whether a queued job may start now: a background one only while another thread stays for requests. */
  private mayStart(job: Job): boolean {
    if (!BACKGROUND_TASKS.has(job.task)) return true;
    const background = this.slots.filter((s) => s.job && BACKGROUND_TASKS.has(s.job.task)).length;
    return background < Math.max(1, this.size - 1);
  }

  /** Starts queued jobs, first in first out, on idle threads; a routed job waits for its own thread, and the jobs behind it pass it. */
  private pump(): void {
    let i = 0;
    while (i < this.queue.length) {
      const job = this.queue[i]!;
      const bound = job.route === undefined ? undefined : this.routes.get(job.route);
      const slot = bound ?? this.idleSlot(job);
      if (!this.mayStart(job) || (slot && (!slot.ready || slot.job))) {
        i += 1;
        continue;
      }
      if (!slot) {
        if (this.slots.length < this.size) this.spawn();
        return; // a thread that becomes ready (or idle) pumps again
      }
      this.queue.splice(i, 1);
      if (job.route !== undefined && !bound) this.bind(job.route, slot);
      this.start(slot, job);
    }
  }

  /**
   * An idle thread for a job without a bound route. A job's task and a new route go to the one
   * holding the fewest routes: the tasks of a route wait while its thread runs a job's task (an
   * import's dry run may take seconds), and routes spread over the threads.
   */
  private idleSlot(job: Job): Slot | undefined {
    const idle = this.slots.filter((s) => s.ready && !s.job);
    if (idle.length <= 1 || (job.route === undefined && !BACKGROUND_TASKS.has(job.task))) return idle[0];
    return idle.reduce((a, b) => (b.held < a.held ? b : a));
  }

  private bind(route: string, slot: Slot): void {
    this.routes.set(route, slot);
    slot.held += 1;
    if (this.routes.size > MAX_ROUTES) this.forget(this.routes.keys().next().value!);
  }

  private start(slot: Slot, job: Job): void {
    slot.job = job;
    slot.worker.ref(); // a running task keeps the process alive until it answers
    try {
      slot.worker.postMessage({ id: job.id, task: job.task, args: job.args }, job.transfer);
    } catch (err) {
      slot.job = null;
      slot.worker.unref();
      job.reject(err as Error);
    }
  }

  private spawn(): void {
    const worker = new Worker(bootUrl, { workerData: { entry, nice: OFFLOAD_NICE } });
    worker.unref();
    const slot: Slot = { worker, ready: false, job: null, held: 0 };
    this.slots.push(slot);
    worker.on('message', (m: { ready?: true; id?: number; ok?: boolean; result?: unknown; error?: { name: string; message: string; code?: string } }) => {
      if (m.ready) slot.ready = true;
      else if (slot.job && m.id === slot.job.id) {
        const job = slot.job;
        slot.job = null;
        worker.unref();
        if (m.ok) job.resolve(m.result);
        else job.reject(Object.assign(new Error(m.error!.message), { name: m.error!.name, code: m.error!.code }));
      }
      this.pump();
    });
    const gone = (why: string) => {
      const i = this.slots.indexOf(slot);
      if (i < 0) return;
      this.slots.splice(i, 1);
      // What the thread held is gone with it: its routes start again elsewhere (their tasks say the state is missing).
      for (const [route, s] of this.routes) if (s === slot) this.routes.delete(route);
      slot.job?.reject(new OffloadCrashed(`The offload thread stopped: ${why}`));
      slot.job = null;
      if (!slot.ready && !this.closed) {
        // It died while starting: fail what waits rather than spawning forever.
        for (const job of this.queue.splice(0)) job.reject(new OffloadCrashed(`The offload thread could not start: ${why}`));
        return;
      }
      if (!this.closed) this.pump();
    };
    worker.on('error', (err) => gone(err.message));
    worker.on('exit', (code) => gone(`exit ${code}`));
  }
}

let shared: OffloadPool | null = null;

/** The process's pool (made on first use). */
export function offloadPool(): OffloadPool {
  shared ??= new OffloadPool();
  return shared;
}

/** Runs `task` on the process's pool (`opts.route`: see OffloadPool.run). */
export function offload<K extends TaskName>(task: K, args: Parameters<Tasks[K]>, move: unknown[] = [], opts: { route?: string } = {}): Promise<Awaited<ReturnType<Tasks[K]>>> {
  return offloadPool().run(task, args, move, opts);
}

/** Stops the process's pool (graceful shutdown; a later offload starts a new one). */
export async function closeOffloadPool(): Promise<void> {
  const pool = shared;
  shared = null;
  await pool?.close();
}
