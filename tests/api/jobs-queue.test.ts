// The database job queue (src/server/jobs/queue.ts) on its own, with a job kind of the test's: two
// workers share the queue and each job runs once; a stop hands running jobs back, unclaimed
// attempts are not counted, and the next worker finishes them; a job past its attempts is given up;
// enqueueOnce keeps one row per key. An idle worker with a minute's poll takes a job another process
// queued (a row written straight into the table) at once, one that falls due later when it does, and
// a dead worker's job when its lease runs out, and makes no claim in between.
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './harness';
import { createJobQueue, enqueueOnce, jobIdFor, type JobQueueOptions, type JobRow } from '../../src/server/jobs/queue';
import { jobs } from '../../src/server/db/schema';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

const ctx = () => server.built.ctx;
const until = async (what: () => Promise<boolean>, ms = 15_000) => {
  const end = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
};
async function enqueue(kind: string, n: number, attempts = 0): Promise<string[]> {
  const ids = Array.from({ length: n }, () => randomUUID());
  await ctx().db.insert(jobs).values(ids.map((id) => ({ id, kind, payload: {}, status: 'queued' as const, attempts })));
  return ids;
}
const rowOf = async (id: string) => (await ctx().db.select().from(jobs).where(eq(jobs.id, id)))[0]!;

function queueOf(kind: string, run: JobQueueOptions['run'], extra: Partial<JobQueueOptions> = {}) {
  const q = createJobQueue(ctx(), {
    kind,
    concurrency: 1,
    pollMs: 50,
    leaseMs: 2000,
    maxAttempts: 3,
    retentionDays: 7,
    sweepIntervalMs: 3_600_000,
    run,
    giveUp: async (job) => void (await q.own(job.id, { status: 'failed', error: 'gave up', lockedBy: null, lockedUntil: null })),
    ...extra,
  });
  return q;
}

describe('job queue', () => {
  it('two workers share the jobs of one kind: each job runs once and is recorded by the worker that holds it', async () => {
    const kind = `test_${randomUUID().slice(0, 8)}`;
    const ran: string[] = [];
    const make = () => {
      const q = queueOf(kind, async (job: JobRow) => {
        ran.push(job.id);
        await new Promise((r) => setTimeout(r, 20));
        expect(await q.own(job.id, { status: 'completed', progress: 100, lockedBy: null, lockedUntil: null })).toBe(true);
      });
      return q;
    };
    const [a, b] = [make(), make()];
    const ids = await enqueue(kind, 8);
    a.start();
    b.start();
    await until(async () => (await Promise.all(ids.map(rowOf))).every((r) => r.status === 'completed'));
    await Promise.all([a.stop(), b.stop()]);
    expect([...ran].sort()).toEqual([...ids].sort());
  });

  it('a stop hands a running job back without counting the attempt, and the next worker finishes it', async () => {
    const kind = `test_${randomUUID().slice(0, 8)}`;
    let started = false;
    const first = queueOf(kind, async (_job, signal) => {
      started = true;
      await new Promise((_r, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
    });
    const [id] = await enqueue(kind, 1);
    first.start();
    await until(async () => started);
    await first.stop();
    const handedBack = await rowOf(id!);
    expect(handedBack).toMatchObject({ status: 'queued', lockedBy: null, attempts: 0 });
    const second = queueOf(kind, async (job) => void (await second.own(job.id, { status: 'completed', lockedBy: null, lockedUntil: null })));
    second.start();
    await until(async () => (await rowOf(id!)).status === 'completed');
    await second.stop();
    expect((await rowOf(id!)).attempts).toBe(1);
  });

  it('a job whose lease ran out while its run stalled is not claimed again by the worker still running it', async () => {
    const kind = `test_${randomUUID().slice(0, 8)}`;
    const ran: string[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    // Two slots, so the worker looks for more while the first run waits; a long lease, so no heartbeat renews it meanwhile.
    const q = queueOf(
      kind,
      async (job) => {
        ran.push(job.id);
        await held;
        await q.own(job.id, { status: 'completed', lockedBy: null, lockedUntil: null });
      },
      { concurrency: 2, leaseMs: 120_000 },
    );
    const [stalled] = await enqueue(kind, 1);
    q.start();
    await until(async () => ran.length === 1);
    // The run stalls past its lease (its worker's id still on the row), then a newer job is queued.
    await ctx().db.update(jobs).set({ lockedUntil: new Date(Date.now() - 60_000) }).where(eq(jobs.id, stalled!));
    const [next] = await enqueue(kind, 1);
    await until(async () => ran.length === 2);
    expect(ran).toEqual([stalled, next]);
    expect((await rowOf(stalled!)).attempts).toBe(1);
    release();
    await until(async () => (await Promise.all([rowOf(stalled!), rowOf(next!)])).every((r) => r.status === 'completed'));
    await q.stop();
    expect(ran).toEqual([stalled, next]);
  });

  it('a job claimed more often than its attempts allow is given up, not run', async () => {
    const kind = `test_${randomUUID().slice(0, 8)}`;
    let ran = 0;
    const q = queueOf(kind, async () => void ran++);
    const [id] = await enqueue(kind, 1, 3);
    q.start();
    await until(async () => (await rowOf(id!)).status === 'failed');
    await q.stop();
    expect(ran).toBe(0);
    expect(await rowOf(id!)).toMatchObject({ error: 'gave up' });
    expect(await q.counts(randomUUID())).toEqual({ queued: 0, running: 0 });
  });

  it('enqueueOnce keeps one row per kind and key: left alone while queued or running, queued again once finished', async () => {
    const kind = `test_${randomUUID().slice(0, 8)}`;
    const key = randomUUID();
    const id = jobIdFor(kind, key);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(jobIdFor(kind, randomUUID())).not.toBe(id);
    const once = () => enqueueOnce(ctx(), { kind, key, payload: { key } });
    expect(await Promise.all([once(), once(), once()])).toEqual(expect.arrayContaining([{ id, queued: true }, { id, queued: false }]));
    expect((await Promise.all([once(), once()])).map((r) => r.queued)).toEqual([false, false]);
    expect((await ctx().db.select().from(jobs).where(eq(jobs.kind, kind))).map((r) => r.id)).toEqual([id]);
    await ctx().db.update(jobs).set({ status: 'running', attempts: 1, lockedBy: 'w', lockedUntil: new Date(Date.now() + 60_000) }).where(eq(jobs.id, id));
    expect((await once()).queued).toBe(false);
    expect(await rowOf(id)).toMatchObject({ status: 'running', lockedBy: 'w' });
    await ctx().db.update(jobs).set({ status: 'failed', error: 'boom', lockedBy: null, lockedUntil: null }).where(eq(jobs.id, id));
    expect((await once()).queued).toBe(true);
    expect(await rowOf(id)).toMatchObject({ status: 'queued', attempts: 0, error: null, payload: { key } });
  });

  it("with a minute's poll, an idle worker takes another process's job at once, a later one when it falls due, a dead worker's when its lease runs out, and looks at nothing in between", async () => {
    const kind = `test_${randomUUID().slice(0, 8)}`;
    const ran: { id: string; at: number }[] = [];
    // The database as the queue sees it, counting its claims (each look is one execute).
    let looks = 0;
    const db = ctx().db;
    const counting = new Proxy(db, { get: (t, p) => (p === 'execute' ? (...a: Parameters<typeof db.execute>) => (looks++, t.execute(...a)) : (Reflect.get(t, p, t) as unknown)) });
    const q = createJobQueue({ ...ctx(), db: counting }, {
      kind,
      concurrency: 1,
      pollMs: 60_000,
      leaseMs: 2000,
      maxAttempts: 3,
      run: async (job) => {
        ran.push({ id: job.id, at: Date.now() });
        await q.own(job.id, { status: 'completed', lockedBy: null, lockedUntil: null });
      },
      giveUp: async () => undefined,
    });
    q.start();
    await until(async () => looks > 0);
    // Queued by another process: this one hears of it from the database, not from a poke.
    const [now] = await enqueue(kind, 1);
    await until(async () => ran.length === 1, 10_000);
    // Due in 1.5 s.
    const later = randomUUID();
    const dueAt = Date.now() + 1500;
    await db.insert(jobs).values({ id: later, kind, payload: {}, status: 'queued', runAfter: new Date(dueAt) });
    await until(async () => ran.length === 2, 10_000);
    expect(ran[1]!.at).toBeGreaterThanOrEqual(dueAt - 50);
    // Running under a worker that died: its lease runs out in 1.5 s, and nobody renews it.
    const orphan = randomUUID();
    const leaseEnd = Date.now() + 1500;
    await db.insert(jobs).values({ id: orphan, kind, payload: {}, status: 'running', attempts: 1, lockedBy: 'dead-worker', lockedUntil: new Date(leaseEnd) });
    await until(async () => ran.length === 3, 10_000);
    expect(ran[2]!.at).toBeGreaterThanOrEqual(leaseEnd - 50);
    expect(ran.map((r) => r.id)).toEqual([now, later, orphan]);
    expect((await rowOf(orphan)).attempts).toBe(2);
    // Nothing left to fall due: no look for a second and a half.
    await until(async () => (await rowOf(orphan)).status === 'completed');
    await new Promise((r) => setTimeout(r, 300));
    const before = looks;
    await new Promise((r) => setTimeout(r, 1500));
    expect(looks).toBe(before);
    await q.stop();
  });
});
