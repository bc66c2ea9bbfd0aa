// Account lifecycle (DELETE /users/me): the account is deactivated at once (sessions ended, API
// keys revoked, old tokens refused), organizations where the user is the only member are scheduled
// for deletion, organizations with other members are left (ownership passing to the earliest admin
// when the user was their last owner; refused when nobody could take it). Signing in again within
// the grace period reactivates the account; after it, the purge removes everything (a job per
// account on the job queue: services/account-purge.ts).
import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { AppContext } from '../context';
import { accountDeletions, apiKeys, organizationMembers, organizations, profiles } from '../db/schema';
import { errors } from '../errors';
import type { AuthUser } from '../auth/types';
import { ACCOUNT_GRACE_DAYS } from '../../contract/teams';
import type { z } from 'zod';
import type { DeleteAccountResponse, FinalBilling } from '../../contract/teams';
import { ensureProfile } from './profiles';
import { detachMember, humanMembers, nextOwner } from './members';
import { revokeKeysWhere } from './api-keys';
import { usageSummary } from './usage';
import { retryOnConflict } from '../db/errors';

const GRACE_MS = ACCOUNT_GRACE_DAYS * 86_400_000;
const ACTIVE_CACHE_MS = 10_000;

/** The app's clock; tests move it with ctx.now. */
export function nowOf(ctx: AppContext): Date {
  return ctx.now?.() ?? new Date();
}

// Users known to be active, so that the guard does not read their profile on every request.
// Deactivation in this process drops the entry at once (and ends the sessions in embedded mode).
const activeUntil = new Map<string, number>();

function issuedAtMs(token: string): number | null {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { iat?: unknown };
    return typeof payload.iat === 'number' ? payload.iat * 1000 : null;
  } catch {
    return null;
  }
}

/** The guard's check after a token verified: refuse a deactivated account's tokens, reactivate on a new sign-in. */
export async function checkDeactivation(ctx: AppContext, user: AuthUser, token: string): Promise<void> {
  const until = activeUntil.get(user.id);
  if (until && until > Date.now()) return;
  const [row] = await ctx.db.select({ deactivatedAt: profiles.deactivatedAt, kind: profiles.kind }).from(profiles).where(eq(profiles.id, user.id)).limit(1);
  if (row?.kind === 'api_key') throw errors.unauthorized('Invalid or expired token', 'bad_jwt');
  if (!row?.deactivatedAt) {
    if (activeUntil.size > 50_000) activeUntil.clear();
    activeUntil.set(user.id, Date.now() + ACTIVE_CACHE_MS);
    return;
  }
  // Embedded identity ended every session at deletion, so only a session opened since (a new
  // sign-in) reactivates; it is read past the session cache, which in another server process may
  // still hold a deleted session for a few seconds. Hosted identity cannot be told to end sessions:
  // tokens issued before the deletion are refused.
  const signedInSince = ctx.auth.sessionIsLive
    ? Boolean(user.sessionId) && (await ctx.auth.sessionIsLive(user.sessionId!, user.id))
    : (issuedAtMs(token) ?? 0) >= row.deactivatedAt.getTime();
  if (!signedInSince) throw errors.unauthorized('This account has been deleted. Sign in again to reactivate it.', 'account_deactivated');
  if (nowOf(ctx).getTime() - row.deactivatedAt.getTime() > GRACE_MS) throw errors.unauthorized('This account has been deleted', 'account_deleted');
  await reactivate(ctx, user.id);
}

async function reactivate(ctx: AppContext, userId: string): Promise<void> {
  const now = nowOf(ctx);
  await ctx.db.transaction(async (tx) => {
    const [del] = await tx.select().from(accountDeletions).where(eq(accountDeletions.userId, userId)).for('update');
    let restored = 0;
    if (del?.organizationIds.length) {
      const rows = await tx
        .update(organizations)
        .set({ deletionScheduledAt: null, updatedAt: now })
        .where(and(inArray(organizations.id, del.organizationIds), isNotNull(organizations.deletionScheduledAt)))
        .returning({ id: organizations.id });
      restored = rows.length;
    }
    const message = `Welcome back! Your account has been reactivated${restored ? ` and ${restored} organization(s) restored` : ''}.`;
    await tx.update(profiles).set({ deactivatedAt: null, reactivatedAt: now, reactivationMessage: message, updatedAt: now }).where(eq(profiles.id, userId));
    await tx.delete(accountDeletions).where(eq(accountDeletions.userId, userId));
  });
}

export async function clearReactivationMessage(ctx: AppContext, userId: string): Promise<void> {
  await ctx.db.update(profiles).set({ reactivationMessage: null, updatedAt: new Date() }).where(eq(profiles.id, userId));
}

type Billing = z.infer<typeof FinalBilling>;

export async function deleteAccount(ctx: AppContext, user: AuthUser, token: string): Promise<z.infer<typeof DeleteAccountResponse>> {
  await ensureProfile(ctx.db, user);
  const memberships = await ctx.db
    .select({ org: organizations, role: organizationMembers.role })
    .from(organizationMembers)
    .innerJoin(organizations, eq(organizations.id, organizationMembers.organizationId))
    .where(and(eq(organizationMembers.userId, user.id), sql`${organizations.deletionScheduledAt} IS NULL`));

  type Plan = { orgId: string; name: string; outcome: Billing['outcome']; newOwner: { userId: string; email: string } | null };
  const plans: Plan[] = [];
  const blocked: string[] = [];
  for (const m of memberships) {
    const others = (await humanMembers(ctx.db, m.org.id)).filter((h) => h.userId !== user.id);
    if (!others.length) plans.push({ orgId: m.org.id, name: m.org.name, outcome: 'scheduled_for_deletion', newOwner: null });
    else if (m.role === 'owner' && !others.some((o) => o.role === 'owner')) {
      const next = await nextOwner(ctx.db, m.org.id, user.id);
      if (next) plans.push({ orgId: m.org.id, name: m.org.name, outcome: 'ownership_transferred', newOwner: next });
      else blocked.push(`"${m.org.name}"`);
    } else plans.push({ orgId: m.org.id, name: m.org.name, outcome: 'left', newOwner: null });
  }
  if (blocked.length) {
    throw errors.conflict(
      `You are the only owner of ${blocked.join(', ')}, and no admin there could take it over. Make another member an admin or owner (or remove the other members), then delete your account.`,
      'ownership_transfer_required',
    );
  }

  // Final billing: what each organization used, computed before anything changes.
  const finalBilling: Billing[] = [];
  for (const p of plans) {
    const usage = await usageSummary(ctx, user.id, p.orgId);
    finalBilling.push({
      organization_id: p.orgId,
      organization_name: p.name,
      outcome: p.outcome,
      new_owner_email: p.newOwner?.email ?? null,
      annotations_total: usage.annotations.total,
      annotations_by_type: usage.annotations.by_type,
      storage_bytes: usage.storage.total_bytes,
      image_count: usage.storage.image_count,
      project_count: usage.storage.by_project.length,
    });
  }

  const now = nowOf(ctx);
  const purgeAfter = new Date(now.getTime() + GRACE_MS);
  const scheduled = plans.filter((p) => p.outcome === 'scheduled_for_deletion').map((p) => p.orgId);
  await retryOnConflict(() => ctx.db.transaction(async (tx) => {
    for (const p of plans) {
      if (p.newOwner) {
        await tx.update(organizationMembers).set({ role: 'owner' }).where(and(eq(organizationMembers.organizationId, p.orgId), eq(organizationMembers.userId, p.newOwner.userId)));
      }
      if (p.outcome !== 'scheduled_for_deletion') await detachMember(tx, p.orgId, user.id);
    }
    if (scheduled.length) await tx.update(organizations).set({ deletionScheduledAt: purgeAfter, updatedAt: now }).where(inArray(organizations.id, scheduled));
    await revokeKeysWhere(tx, eq(apiKeys.createdBy, user.id));
    await tx.update(profiles).set({ deactivatedAt: now, reactivatedAt: null, reactivationMessage: null, updatedAt: now }).where(eq(profiles.id, user.id));
    await tx
      .insert(accountDeletions)
      .values({ userId: user.id, requestedAt: now, purgeAfter, organizationIds: scheduled, finalBilling })
      .onConflictDoUpdate({ target: accountDeletions.userId, set: { requestedAt: now, purgeAfter, organizationIds: scheduled, finalBilling } });
  }));
  activeUntil.delete(user.id);
  await endSessions(ctx, user, token);

  return {
    success: true,
    message: `Account successfully deleted. Final billing data has been calculated for ${plans.length} organization(s).`,
    organizations_processed: plans.length,
    final_billing: finalBilling,
    purge_after: purgeAfter.toISOString(),
  };
}

/** Ends every session of the account where the identity service can (embedded), so its tokens stop at once. */
async function endSessions(ctx: AppContext, user: AuthUser, token: string): Promise<void> {
  if (!ctx.auth.endAllSessions) return; // hosted: the guard refuses tokens issued before the deletion
  try {
    await ctx.auth.endAllSessions(token);
  } catch (err) {
    ctx.log.warn({ err, userId: user.id }, 'could not end the sessions of a deleted account');
  }
}
