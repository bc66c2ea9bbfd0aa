// The account purge as jobs (services/account-purge.ts): every process looks for accounts past
// their grace period and queues one 'account_purge' job per account; the workers of two app
// instances on one database never both purge an account, and a purge whose worker died is taken
// up again once its lease ran out. (What a purge removes: account-deletion.test.ts.)
import { and, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, startServer, type TestServer } from './harness';
import { accountDeletions, authUsers, jobs, organizations, profiles } from '../../src/server/db/schema';
import { PURGE_JOB_KIND, startAccountPurge, type AccountPurge } from '../../src/server/services/account-purge';
import { jobIdFor } from '../../src/server/jobs/queue';
import type { AuthProvider } from '../../src/server/auth/types';

const ENV = { ACCOUNT_PURGE_INTERVAL_SECONDS: '1' };
let first: TestServer;
/** The second instance: another server on the same PostgreSQL database, or on PGlite (one process
 * per database) a second set of purge workers over the first server's database. */
let second: TestServer | null = null;
let secondPurge: AccountPurge | null = null;

beforeAll(async () => {
  first = await startServer(ENV);
  const db = first.config.database;
  if (db.kind === 'postgres') second = await startServer({ ...ENV, DATABASE_URL: db.url }, first.config.dataDir);
  else secondPurge = startAccountPurge(first.built.ctx, { concurrency: 1, pollMs: 50, leaseMs: 60_000, intervalMs: 1000 });
}, 60_000);
afterAll(async () => {
  await secondPurge?.stop();
  await second?.stop();
  await first?.stop();
});

const db = () => first.built.ctx.db;
const until = async (what: () => Promise<boolean>, ms = 30_000) => {
  const end = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** Users who deleted their account, with the grace period moved into the past. */
async function dueAccounts(n: number) {
  const users = [];
  for (let i = 0; i < n; i++) {
    const user = await onboardedUser(first);
    expect((await api(first.url, 'DELETE', '/api/v1/users/me', { token: user.token })).status).toBe(200);
    users.push(user);
  }
  return users;
}
const makeDue = (ids: string[]) => db().update(accountDeletions).set({ purgeAfter: new Date(Date.now() - 60_000) }).where(inArray(accountDeletions.userId, ids));
const purgeJobsOf = (userId: string) => db().select().from(jobs).where(and(eq(jobs.kind, PURGE_JOB_KIND), sql`${jobs.payload}->>'user_id' = ${userId}`));

/** Records every identity deletion, and whether two ever overlapped for one account. */
function watch(auth: AuthProvider, calls: Map<string, number>, overlaps: string[], busy: Set<string>) {
  const deleteUser = auth.deleteUser.bind(auth);
  auth.deleteUser = async (userId) => {
    if (busy.has(userId)) overlaps.push(userId);
    busy.add(userId);
    calls.set(userId, (calls.get(userId) ?? 0) + 1);
    try {
      await new Promise((r) => setTimeout(r, 150)); // a slow identity service widens any race
      await deleteUser(userId);
    } finally {
      busy.delete(userId);
    }
  };
}

describe('account purge jobs', () => {
  it('two app instances on one database purge each due account once, never both at once', async () => {
    const users = await dueAccounts(4);
    const calls = new Map<string, number>();
    const overlaps: string[] = [];
    const busy = new Set<string>();
    watch(first.built.ctx.auth, calls, overlaps, busy);
    if (second) watch(second.built.ctx.auth, calls, overlaps, busy);
    await makeDue(users.map((u) => u.userId));

    const ids = users.map((u) => u.userId);
    await until(async () => (await db().select().from(profiles).where(inArray(profiles.id, ids))).length === 0);
    // Let the next looks of both instances pass: the accounts are no longer due, nothing runs again.
    await new Promise((r) => setTimeout(r, 1500));
    expect(overlaps).toEqual([]);
    expect(ids.map((id) => calls.get(id))).toEqual([1, 1, 1, 1]);
    for (const user of users) {
      const rows = await purgeJobsOf(user.userId);
      expect(rows).toEqual([expect.objectContaining({ id: jobIdFor(PURGE_JOB_KIND, user.userId), status: 'completed', lockedBy: null })]);
      expect(await db().select().from(organizations).where(eq(organizations.id, user.org.id))).toEqual([]);
      const [identity] = await db().select().from(authUsers).where(eq(authUsers.id, user.userId));
      expect(identity?.deletedAt).not.toBeNull();
      expect(await first.built.ctx.storage.bucketExists(user.org.gcs_bucket_name)).toBe(false);
    }
  }, 60_000);

  it('a purge whose worker died is taken up again once its lease ran out', async () => {
    const [user] = await dueAccounts(1);
    // A worker claimed it, removed the organization, and died before the rest.
    const id = jobIdFor(PURGE_JOB_KIND, user!.userId);
    await db().insert(jobs).values({ id, kind: PURGE_JOB_KIND, payload: { user_id: user!.userId }, status: 'running', attempts: 1, lockedBy: 'crashed-host:1:dead', lockedUntil: new Date(Date.now() + 1500) });
    await db().delete(organizations).where(eq(organizations.id, user!.org.id));
    await makeDue([user!.userId]);

    // While the dead worker's lease lasts, nobody else touches the account (the looks find its job running).
    await new Promise((r) => setTimeout(r, 1000));
    expect(await db().select().from(profiles).where(eq(profiles.id, user!.userId))).toHaveLength(1);
    expect((await purgeJobsOf(user!.userId))).toEqual([expect.objectContaining({ status: 'running', lockedBy: 'crashed-host:1:dead' })]);

    await until(async () => (await db().select().from(profiles).where(eq(profiles.id, user!.userId))).length === 0);
    await until(async () => (await purgeJobsOf(user!.userId))[0]?.status === 'completed');
    expect(await purgeJobsOf(user!.userId)).toEqual([expect.objectContaining({ status: 'completed', attempts: 2, lockedBy: null })]);
    const [identity] = await db().select().from(authUsers).where(eq(authUsers.id, user!.userId));
    expect(identity?.deletedAt).not.toBeNull();
  }, 60_000);
});
