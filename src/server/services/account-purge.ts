// The purge of deleted accounts whose grace period is over (services/account.ts deactivates and
// schedules them): their scheduled organizations (rows and stored files), keys, profile and
// identity. Each account is one job of kind 'account_purge' on the database job queue
// (src/server/jobs/queue.ts), one row per account at most (enqueueOnce), so two server processes
// never purge one account at once and a purge cut short by a crash is taken up again when its
// lease runs out. Every process looks for due accounts every ACCOUNT_PURGE_INTERVAL_SECONDS (the
// first look soon after start) and queues them; ACCOUNT_PURGE_CONCURRENCY workers per process do
// the purging. The steps can be repeated: what a previous attempt removed is simply not found.
import { and, eq, inArray, isNotNull, lte } from 'drizzle-orm';
import type { AppContext } from '../context';
import type { JobWorkersConfig } from '../config';
import { accountDeletions, apiKeys, organizations, profiles } from '../db/schema';
import { createJobQueue, enqueueOnce, type JobQueue } from '../jobs/queue';
import { nowOf } from './account';

export const PURGE_JOB_KIND = 'account_purge';
const MAX_ATTEMPTS = 5;

/** Accounts deactivated and past their purge date at `now` (at most `limit`). */
async function dueAccounts(ctx: AppContext, now: Date, limit: number, userId?: string): Promise<(typeof accountDeletions.$inferSelect)[]> {
  const rows = await ctx.db
    .select({ del: accountDeletions })
    .from(accountDeletions)
    .innerJoin(profiles, eq(profiles.id, accountDeletions.userId))
    .where(and(lte(accountDeletions.purgeAfter, now), isNotNull(profiles.deactivatedAt), userId ? eq(accountDeletions.userId, userId) : undefined))
    .limit(limit);
  return rows.map((r) => r.del);
}

/**
 * Purges one account if it is (still) due at `now`: its scheduled organizations, its identity,
 * then its profile and API key principals (which ends the account_deletions row). Returns the
 * organizations removed, or null when the account was not due (reactivated, or purged already).
 */
export async function purgeAccount(ctx: AppContext, userId: string, now: Date): Promise<number | null> {
  const [del] = await dueAccounts(ctx, now, 1, userId);
  if (!del) return null;
  let orgCount = 0;
  if (del.organizationIds.length) {
    const orgs = await ctx.db
      .select()
      .from(organizations)
      .where(and(inArray(organizations.id, del.organizationIds), isNotNull(organizations.deletionScheduledAt)));
    for (const org of orgs) {
      await ctx.db.delete(organizations).where(eq(organizations.id, org.id));
      if (org.gcsBucketName) await ctx.storage.deleteBucket(org.gcsBucketName).catch((err: unknown) => ctx.log.warn({ err, bucket: org.gcsBucketName }, 'purge: bucket removal failed'));
      orgCount += 1;
    }
  }
  // The identity before the profile: the profile's row is what makes the account due, so a crash
  // in between leaves it due and the next attempt deletes the identity (again: harmless) and the rest.
  try {
    await ctx.auth.deleteUser(del.userId);
  } catch (err) {
    ctx.log.warn({ err, userId: del.userId }, 'purge: the identity service did not delete the user');
  }
  await ctx.db.transaction(async (tx) => {
    const keys = tx.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.createdBy, del.userId));
    await tx.delete(profiles).where(and(inArray(profiles.id, keys), eq(profiles.kind, 'api_key')));
    await tx.delete(profiles).where(eq(profiles.id, del.userId));
  });
  return orgCount;
}

/** Purges every account due at `now` (by ctx.now by default) in this call, without the queue: tests that move the clock use it. */
export async function purgeExpiredAccounts(ctx: AppContext, now: Date = nowOf(ctx)): Promise<{ accounts: number; organizations: number }> {
  const due = await dueAccounts(ctx, now, 100);
  let accounts = 0, orgCount = 0;
  for (const del of due) {
    const removed = await purgeAccount(ctx, del.userId, now);
    if (removed === null) continue;
    accounts += 1;
    orgCount += removed;
  }
  return { accounts, organizations: orgCount };
}

/** Queues one purge job per account due now (real time); returns how many were queued by this call. */
export async function queueDuePurges(ctx: AppContext, now: Date = new Date()): Promise<number> {
  let queued = 0;
  for (const del of await dueAccounts(ctx, now, 1000)) {
    if ((await enqueueOnce(ctx, { kind: PURGE_JOB_KIND, key: del.userId, payload: { user_id: del.userId } })).queued) queued += 1;
  }
  return queued;
}

export interface AccountPurge {
  queue: JobQueue;
  /** Looks for due accounts now and queues them. */
  scan(): Promise<number>;
  /** Stops looking and hands running purges back to the queue. */
  stop(): Promise<void>;
}

/**
 * The purge in this process, on the real clock (tests that move ctx.now call purgeExpiredAccounts
 * themselves and do not race this): a look for due accounts soon after start and every
 * `intervalMs`, and the workers that purge them.
 */
export function startAccountPurge(ctx: AppContext, cfg: JobWorkersConfig & { intervalMs: number } = ctx.config.jobs.accountPurge): AccountPurge {
  const queue = createJobQueue(ctx, {
    kind: PURGE_JOB_KIND,
    ...cfg, // concurrency, pollMs, leaseMs
    maxAttempts: MAX_ATTEMPTS,
    async run(job) {
      const userId = String(job.payload.user_id);
      const removed = await purgeAccount(ctx, userId, new Date());
      if (removed !== null) ctx.log.info({ userId, organizations: removed }, 'account purged');
      await queue.own(job.id, { status: 'completed', progress: 100, result: { purged: removed !== null, organizations: removed ?? 0 }, lockedBy: null, lockedUntil: null });
    },
    // The account stays due: the next look queues it again, from its first attempt.
    giveUp: async (job) => void (await queue.own(job.id, { status: 'failed', error: 'the purge was interrupted too many times', lockedBy: null, lockedUntil: null })),
  });
  let looking: Promise<number> | null = null;
  const scan = () => {
    looking ??= queueDuePurges(ctx)
      .then((n) => {
        if (n) queue.poke();
        return n;
      })
      .finally(() => {
        looking = null;
      });
    return looking;
  };
  const look = () => void scan().catch((err: unknown) => ctx.log.error({ err }, 'account purge: looking for due accounts failed'));
  const every = setInterval(look, cfg.intervalMs);
  const first = setTimeout(look, Math.min(5_000, cfg.intervalMs));
  every.unref();
  first.unref();
  queue.start();
  return {
    queue,
    scan,
    async stop() {
      clearInterval(every);
      clearTimeout(first);
      await looking?.catch(() => undefined);
      await queue.stop();
    },
  };
}
