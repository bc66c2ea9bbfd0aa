// One database job queue for background work that must outlive a request and a process (issue 16:
// image edits, tile pyramids and the account purge; imports are next). A job is a `jobs` row of one
// `kind`. Workers in every server process claim queued jobs with FOR UPDATE SKIP LOCKED and hold
// them by a lease (locked_until) renewed as a heartbeat. A process that stops cleanly hands its jobs
// back at once (not counted as an attempt); one that crashes loses them when the lease runs out,
// and another process (or the restarted one) claims them again. A job claimed more than
// `maxAttempts` times is given up. Finished jobs are kept `retentionDays`, then deleted by a sweep.
// Work that must be done once per thing (one pyramid per image, one purge per account) is enqueued
// with enqueueOnce: its row id is derived from the kind and the thing, so there is one row at most.
// An idle worker does not poll: it sleeps until the next job falls due (a queued job's run_after, a
// running one's lease end) and is woken sooner by this process's pokes and by the database, which
// announces new and re-queued rows on JOBS_CHANNEL; pollMs only bounds the sleep.
import os from 'node:os';
import { createHash, randomUUID } from 'node:crypto';
import { and, asc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { AppContext } from '../context';
import type { JobOutcome } from '../metrics';
import { jobs } from '../db/schema';

export type JobRow = typeof jobs.$inferSelect;
type JobUpdate = Partial<typeof jobs.$inferInsert>;

/** The signal's reason when the process stops: the job is handed back and resumes elsewhere. */
export class StopRequested extends Error {}
/** The signal's reason when another worker took the job (our lease ran out): stop touching it. */
export class LeaseLost extends Error {}

/** The id of the one job of `kind` for `key` (a name-based UUID: the same kind and key give the same id). */
export function jobIdFor(kind: string, key: string): string {
  const h = createHash('sha1').update(`${kind}:${key}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/**
 * Queues the job of `kind` for `key` unless it is queued or running already (its id is
 * jobIdFor(kind, key), so two processes asking at once make one row). A finished one (completed,
 * failed, cancelled) is queued again, from its first attempt. Returns the id and whether this call
 * queued it.
 */
export async function enqueueOnce(
  ctx: Pick<AppContext, 'db'>,
  job: { kind: string; key: string; payload: Record<string, unknown>; organizationId?: string | null },
): Promise<{ id: string; queued: boolean }> {
  const id = jobIdFor(job.kind, job.key);
  const rows = await ctx.db
    .insert(jobs)
    .values({ id, kind: job.kind, organizationId: job.organizationId ?? null, payload: job.payload, status: 'queued' })
    .onConflictDoUpdate({
      target: jobs.id,
      set: { status: 'queued', attempts: 0, progress: 0, result: null, error: null, runAfter: sql`now()`, lockedBy: null, lockedUntil: null, updatedAt: new Date() },
      setWhere: inArray(jobs.status, ['completed', 'failed', 'cancelled']),
    })
    .returning({ id: jobs.id });
  return { id, queued: rows.length === 1 };
}

export interface JobQueueOptions {
  kind: string;
  /** Jobs run at once in this process; 0 runs none (the API still enqueues). */
  concurrency: number;
  /**
   * The longest an idle worker waits before looking anyway. A job is normally taken at once: this
   * process pokes the queue when it queues one, the database announces new and re-queued rows
   * (JOBS_CHANNEL), and the queue sleeps only until the next job falls due. The look is the net
   * under a notification lost with a dropped connection.
   */
  pollMs: number;
  leaseMs: number;
  /** A job claimed more times than this without finishing is given up (see giveUp). */
  maxAttempts: number;
  /** Finished jobs are kept this long (7 by default). */
  retentionDays?: number;
  /** How often this process deletes finished jobs past their retention (hourly by default; the first run comes a minute after start). */
  sweepIntervalMs?: number;
  /** Runs a claimed job to its end (it records its own result with `own`); throwing retries it in 5 s. */
  run(job: JobRow, signal: AbortSignal): Promise<void>;
  /** A job past maxAttempts: record why it ended. */
  giveUp(job: JobRow): Promise<void>;
  /** Before a finished job past retention is deleted: clean up what it left; returns objects removed. */
  beforeDelete?(job: Pick<JobRow, 'id' | 'payload'>, now: Date): Promise<number>;
}

export interface JobQueue {
  readonly workerId: string;
  /** Stopping or stopped: no new jobs are taken. */
  readonly stopping: boolean;
  start(): void;
  /** Stops taking jobs, interrupts running ones and hands them back. */
  stop(): Promise<void>;
  /** Look for work now (after a job was enqueued). */
  poke(): void;
  /** Updates a job this worker holds; false when the lease is no longer ours. */
  own(jobId: string, set: JobUpdate): Promise<boolean>;
  /** Deletes finished jobs of this kind older than the retention (by ctx.now). */
  sweep(): Promise<{ jobs: number; objects: number }>;
  /** Queued and running jobs of one organization. */
  counts(organizationId: string): Promise<{ queued: number; running: number }>;
}

/** Deletes finished jobs of `opts.kind` past their retention (by ctx.now), after opts.beforeDelete. */
async function sweepFinished(ctx: AppContext, opts: JobQueueOptions): Promise<{ jobs: number; objects: number }> {
  const now = ctx.now?.() ?? new Date();
  const cutoff = new Date(now.getTime() - (opts.retentionDays ?? 7) * 24 * 60 * 60 * 1000);
  let swept = 0, objects = 0;
  for (;;) {
    const old = await ctx.db
      .select({ id: jobs.id, payload: jobs.payload })
      .from(jobs)
      .where(and(eq(jobs.kind, opts.kind), inArray(jobs.status, ['completed', 'failed', 'cancelled']), lt(jobs.updatedAt, cutoff)))
      .orderBy(asc(jobs.updatedAt))
      .limit(200);
    if (old.length === 0) break;
    for (const job of old) {
      if (opts.beforeDelete) objects += await opts.beforeDelete(job, now);
      // Rows of other tables that belong to the job go with it (ON DELETE CASCADE).
      swept += (await ctx.db.delete(jobs).where(eq(jobs.id, job.id)).returning({ id: jobs.id })).length;
    }
    if (old.length < 200) break;
  }
  if (swept) ctx.log.info({ jobs: swept, objects }, `${opts.kind.replace(/_/g, ' ')}: finished jobs past their retention deleted`);
  return { jobs: swept, objects };
}

async function countsOf(ctx: AppContext, kind: string, organizationId: string): Promise<{ queued: number; running: number }> {
  const res = (await ctx.db.execute(sql`
    SELECT count(*) FILTER (WHERE status = 'queued') AS queued, count(*) FILTER (WHERE status = 'running') AS running
    FROM jobs WHERE kind = ${kind} AND organization_id = ${organizationId} AND status IN ('queued', 'running')`)) as unknown as { rows: { queued: number | string; running: number | string }[] };
  return { queued: Number(res.rows[0]?.queued ?? 0), running: Number(res.rows[0]?.running ?? 0) };
}

/** A job whose `run` returned: what it recorded, completed when it recorded nothing. */
function outcomeOf(status: string | undefined): JobOutcome {
  return status === 'failed' || status === 'cancelled' ? status : 'completed';
}

/** A look's answer: the job claimed, or none and when the next one of the kind falls due (ms from now, by the database's clock; null: none is queued or running elsewhere). */
interface Look {
  job: JobRow | null;
  dueInMs: number | null;
}

/**
 * Claims the oldest runnable job of `kind` (queued and due, or running with its lease run out) for
 * `workerId`, but none of `busy`: the jobs this worker is still running. One of them whose lease ran
 * out while its run stalled is still that run's; claimed again under the same worker id, it would
 * run twice with both runs' writes accepted as the holder's. When there is none, the same statement
 * says when the next falls due: a queued job's `run_after`, a running one's lease end (a worker that
 * died loses its job then), so the queue sleeps until then instead of polling.
 */
async function claimOne(ctx: AppContext, kind: string, workerId: string, leaseMs: number, busy: string[]): Promise<Look> {
  const notBusy = busy.length > 0 ? sql`AND id NOT IN (${sql.join(busy.map((id) => sql`${id}`), sql`, `)})` : sql``;
  const res = (await ctx.db.execute(sql`
    WITH claimed AS (
      UPDATE jobs SET status = 'running', locked_by = ${workerId},
        locked_until = now() + (${leaseMs}::double precision * interval '1 millisecond'), attempts = attempts + 1, updated_at = now()
      WHERE id = (
        SELECT id FROM jobs
        WHERE kind = ${kind} AND ((status = 'queued' AND run_after <= now()) OR (status = 'running' AND locked_until < now())) ${notBusy}
        ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING id)
    SELECT (SELECT id FROM claimed) AS id,
      CASE WHEN NOT EXISTS (SELECT 1 FROM claimed) THEN (
        SELECT ceil(extract(epoch FROM min(CASE WHEN status = 'queued' THEN run_after ELSE locked_until END) - now()) * 1000)
        FROM jobs WHERE kind = ${kind} AND status IN ('queued', 'running') ${notBusy}) END AS due_in_ms`)) as unknown as {
    rows: { id: string | null; due_in_ms: number | string | null }[];
  };
  const id = res.rows[0]?.id;
  const due = res.rows[0]?.due_in_ms;
  if (!id) return { job: null, dueInMs: due === null || due === undefined ? null : Number(due) };
  const [row] = await ctx.db.select().from(jobs).where(eq(jobs.id, id)).limit(1);
  return { job: row ?? null, dueInMs: null };
}

/** What migration 0028's triggers notify, with the job's kind, when a row of `jobs` may have become claimable. */
export const JOBS_CHANNEL = 'vellum_jobs';

/**
 * One LISTEN a database for all the queues of a process (on PostgreSQL each is a connection of its
 * own): a notification pokes the queues of its kind, a reconnect all of them (it may have missed
 * some). Started with the first queue, stopped with the last.
 */
class JobBell {
  private readonly byKind = new Map<string, Set<() => void>>();
  private stopListening: Promise<(() => Promise<void>) | null> | null = null;

  constructor(private readonly ctx: AppContext) {}

  add(kind: string, ring: () => void): () => Promise<void> {
    const rings = this.byKind.get(kind) ?? new Set();
    this.byKind.set(kind, rings.add(ring));
    this.stopListening ??= this.ctx.database
      .listen(JOBS_CHANNEL, (k) => this.ring(this.byKind.get(k)), () => this.ring(...this.byKind.values()))
      .catch((err: unknown) => {
        this.ctx.log.warn({ err }, 'job queues: cannot listen for new jobs; they are found by polling');
        return null;
      });
    return async () => {
      rings.delete(ring);
      if (rings.size === 0) this.byKind.delete(kind);
      if (this.byKind.size > 0 || !this.stopListening) return;
      const stop = this.stopListening;
      this.stopListening = null;
      await (await stop)?.();
    };
  }

  private ring(...sets: (Set<() => void> | undefined)[]): void {
    for (const set of sets) for (const ring of set ?? []) ring();
  }
}

const bells = new WeakMap<AppContext['database'], JobBell>();

/** Hears the database announce jobs of `kind` (none without a database that can listen: a test's own). */
function listenForJobs(ctx: AppContext, kind: string, ring: () => void): () => Promise<void> {
  if (!ctx.database?.listen) return async () => undefined;
  let bell = bells.get(ctx.database);
  if (!bell) bells.set(ctx.database, (bell = new JobBell(ctx)));
  return bell.add(kind, ring);
}

/** The shortest sleep when a job is due but could not be claimed (another process is claiming it). */
const MIN_SLEEP_MS = 100;

// Long because it is one closure: the claiming loop, each job's run, the lease checks and the
// sweeps share the running map and the stopping flag, which start(), stop() and poke() also read.
export function createJobQueue(ctx: AppContext, opts: JobQueueOptions): JobQueue {
  const workerId = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  const label = opts.kind.replace(/_/g, ' ');
  /** Started and not stopped. */
  let started = false;
  /** The next look when nothing wakes the queue sooner: when the next job falls due, at most pollMs away. */
  let wake: NodeJS.Timeout | null = null;
  let unlisten: (() => Promise<void>) | null = null;
  let sweepTimers: NodeJS.Timeout[] = [];
  let stopping = false;
  /** The claiming loop while it runs (stop waits for it: a job it claims after the stop is handed back). */
  let ticking: Promise<void> | null = null;
  let again = false;
  /** Jobs this worker runs, with the status their own `run` gave them last (completed, failed, cancelled), for the metrics. */
  const ended = new Map<string, string>();
  ctx.metrics?.jobKind(opts.kind);

  function tick(): Promise<void> {
    if (ticking) {
      again = true;
      return ticking;
    }
    ticking = claimLoop().finally(() => {
      ticking = null;
      // A poke that landed after the loop's last look at `again` (a job queued meanwhile) would
      // otherwise sleep until the next job falls due or the next poll: look again now (queue.test.ts).
      if (again && !stopping) void tick();
    });
    return ticking;
  }

  /** The next look in `ms` (at most pollMs: a notification lost with a dropped connection is found then). */
  function sleep(ms: number): void {
    clearTimeout(wake ?? undefined);
    if (stopping || !started) return void (wake = null);
    wake = setTimeout(() => void tick(), Math.min(opts.pollMs, Math.max(MIN_SLEEP_MS, ms)));
    wake.unref();
  }

  async function claimLoop(): Promise<void> {
    try {
      do {
        again = false;
        while (!stopping && running.size < opts.concurrency) {
          const { job, dueInMs } = await claimOne(ctx, opts.kind, workerId, opts.leaseMs, [...running.keys()]);
          // Nothing to take now: sleep until the next job falls due (a new one wakes the queue sooner).
          if (!job) {
            if (!again) sleep(dueInMs ?? opts.pollMs);
            break;
          }
          if (stopping) {
            await handBack(job.id);
            break;
          }
          const abort = new AbortController();
          const done = runJob(job, abort).finally(() => {
            running.delete(job.id);
            if (!stopping) void tick();
          });
          running.set(job.id, { abort, done });
        }
      } while (again && !stopping);
    } catch (err) {
      if (!stopping) ctx.log.warn({ err }, `${label}: claiming a job failed; trying again in a second`);
      sleep(1000);
    }
  }

  /** Gives a job this worker holds back to the queue at once; a clean stop is not an attempt. */
  async function handBack(jobId: string): Promise<void> {
    await ctx.db
      .update(jobs)
      .set({ status: 'queued', lockedBy: null, lockedUntil: null, attempts: sql`greatest(${jobs.attempts} - 1, 0)`, updatedAt: new Date() })
      .where(and(eq(jobs.id, jobId), eq(jobs.lockedBy, workerId)))
      .catch((e: unknown) => ctx.log.warn({ err: e, job: jobId }, `${label}: could not hand the job back; its lease will expire`));
  }

  async function own(jobId: string, set: JobUpdate): Promise<boolean> {
    if (set.status && ended.has(jobId)) ended.set(jobId, set.status);
    const rows = await ctx.db
      .update(jobs)
      .set({ ...set, updatedAt: new Date() })
      .where(and(eq(jobs.id, jobId), eq(jobs.lockedBy, workerId)))
      .returning({ id: jobs.id });
    return rows.length === 1;
  }

  async function runJob(job: JobRow, abort: AbortController): Promise<void> {
    const heartbeat = setInterval(() => {
      own(job.id, { lockedUntil: new Date(Date.now() + opts.leaseMs) })
        .then((mine) => {
          if (!mine) abort.abort(new LeaseLost());
        })
        .catch((err: unknown) => ctx.log.warn({ err, job: job.id }, `${label}: heartbeat failed`));
    }, Math.max(250, Math.floor(opts.leaseMs / 3)));
    heartbeat.unref();
    const startedAt = performance.now();
    ended.set(job.id, 'running');
    let outcome: JobOutcome;
    try {
      if (job.attempts > opts.maxAttempts) {
        await opts.giveUp(job);
        outcome = 'gave_up';
        return;
      }
      await opts.run(job, abort.signal);
      outcome = outcomeOf(ended.get(job.id));
    } catch (err) {
      const reason: unknown = abort.signal.aborted ? abort.signal.reason : err;
      if (reason instanceof StopRequested) {
        // Handed back: the next process to look resumes it at once.
        outcome = 'handed_back';
        await handBack(job.id);
      } else if (reason instanceof LeaseLost) {
        outcome = 'lease_lost';
        ctx.log.warn({ job: job.id }, `${label}: lease lost to another worker`);
      } else {
        outcome = 'error';
        ctx.log.error({ err, job: job.id }, `${label}: job failed unexpectedly; it will be retried`);
        await own(job.id, { status: 'queued', lockedBy: null, lockedUntil: null, runAfter: new Date(Date.now() + 5000) }).catch(() => undefined);
      }
    } finally {
      clearInterval(heartbeat);
      ended.delete(job.id);
      ctx.metrics?.jobEnded(opts.kind, outcome!, (performance.now() - startedAt) / 1000);
    }
  }

  const sweep = () => sweepFinished(ctx, opts);

  function runSweep(): void {
    sweep().catch((err: unknown) => ctx.log.warn({ err }, `${label}: retention sweep failed; it runs again later`));
  }

  return {
    workerId,
    get stopping() {
      return stopping;
    },
    start() {
      if (opts.concurrency === 0 || started) return;
      stopping = false;
      started = true;
      unlisten = listenForJobs(ctx, opts.kind, () => void tick());
      sweepTimers = [setTimeout(runSweep, 60_000), setInterval(runSweep, opts.sweepIntervalMs ?? 3_600_000)];
      for (const t of sweepTimers) t.unref();
      void tick();
    },
    async stop() {
      stopping = true;
      started = false;
      clearTimeout(wake ?? undefined);
      await unlisten?.();
      unlisten = null;
      for (const t of sweepTimers) clearTimeout(t);
      sweepTimers = [];
      await ticking; // a job claimed meanwhile is handed back, or is in `running`
      for (const r of running.values()) r.abort.abort(new StopRequested());
      await Promise.allSettled([...running.values()].map((r) => r.done));
    },
    poke() {
      if (!stopping && started) void tick();
    },
    own,
    sweep,
    counts: (organizationId) => countsOf(ctx, opts.kind, organizationId),
  };
}
