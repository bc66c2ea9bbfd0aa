// Invites: an owner or admin invites an address with a role; the link /invite/<secret> is shown
// once (and mailed when SMTP is configured). It expires after 7 days, works once, and only for the
// invited address, accepted after signing in (a new user signs up first, then accepts).
import { randomUUID } from 'node:crypto';
import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import type { AppContext } from '../context';
import { organizationInvites, organizationMembers, organizations, profiles, type Role } from '../db/schema';
import { apiError, errors } from '../errors';
import { hashToken, randomToken } from '../auth/embedded/tokens';
import { Mailer, type Mail } from '../auth/embedded/mailer';
import { INVITE_TTL_DAYS, roleAtMost, type Invite } from '../../contract/teams';
import type { Organization } from '../../contract/account';
import type { AuthUser } from '../auth/types';
import { requireMember, roleIn } from './access';
import { ensureProfile, organizationJson } from './profiles';
import { nowOf } from './account';

type InviteRow = typeof organizationInvites.$inferSelect;

function statusOf(row: InviteRow, now: Date): Invite['status'] {
  if (row.acceptedAt) return 'accepted';
  if (row.revokedAt) return 'revoked';
  if (row.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'pending';
}

function inviteJson(row: InviteRow, invitedBy: string | null, now: Date): Invite {
  return {
    id: row.id,
    organization_id: row.organizationId,
    email: row.email,
    role: row.role,
    status: statusOf(row, now),
    expires_at: row.expiresAt.toISOString(),
    created_at: row.createdAt.toISOString(),
    invited_by: invitedBy,
  };
}

const mailers = new WeakMap<AppContext, Mailer | null>();
function mailerOf(ctx: AppContext): Mailer | null {
  if (!mailers.has(ctx)) {
    const auth = ctx.config.auth;
    mailers.set(ctx, auth.kind === 'embedded' && auth.smtpUrl ? new Mailer(auth.smtpUrl, auth.smtpFrom) : null);
  }
  return mailers.get(ctx) ?? null;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function inviteMail(to: string, orgName: string, inviter: string, role: Role, link: string): Mail {
  return {
    to,
    subject: `You are invited to ${orgName} on Vellum`,
    text: `${inviter} invited you to join ${orgName} on Vellum as ${role}.\n\nAccept the invitation (sign in or create an account with this address first):\n${link}\n\nThe link works once and expires in ${INVITE_TTL_DAYS} days.`,
    html: `<p>${escapeHtml(inviter)} invited you to join <strong>${escapeHtml(orgName)}</strong> on Vellum as ${escapeHtml(role)}.</p><p><a href="${escapeHtml(link)}">Accept the invitation</a> (sign in or create an account with this address first).</p><p>The link works once and expires in ${INVITE_TTL_DAYS} days.</p>`,
  };
}

export async function listInvites(ctx: AppContext, userId: string, orgId: string): Promise<Invite[]> {
  await requireMember(ctx.db, userId, orgId, 'members.manage');
  const now = nowOf(ctx);
  const rows = await ctx.db
    .select({ invite: organizationInvites, by: profiles.email })
    .from(organizationInvites)
    .leftJoin(profiles, eq(profiles.id, organizationInvites.invitedBy))
    .where(and(eq(organizationInvites.organizationId, orgId), isNull(organizationInvites.acceptedAt), isNull(organizationInvites.revokedAt)))
    .orderBy(desc(organizationInvites.createdAt))
    .limit(200);
  return rows.map((r) => inviteJson(r.invite, r.by, now));
}

export async function createInvite(ctx: AppContext, userId: string, orgId: string, input: { email: string; role: Role }): Promise<{ invite: Invite; invite_url: string; email_sent: boolean }> {
  const callerRole = await requireMember(ctx.db, userId, orgId, 'members.manage');
  if (!roleAtMost(input.role, callerRole)) throw errors.forbidden(`You cannot invite someone as ${input.role}: your role is ${callerRole}`, 'role_ceiling');
  const email = input.email.trim().toLowerCase();
  const [existing] = await ctx.db
    .select({ userId: organizationMembers.userId })
    .from(organizationMembers)
    .innerJoin(profiles, eq(profiles.id, organizationMembers.userId))
    .where(and(eq(organizationMembers.organizationId, orgId), eq(profiles.kind, 'user'), sql`lower(${profiles.email}) = ${email}`))
    .limit(1);
  if (existing) throw errors.conflict(`${email} is already a member of this organization`, 'already_member');
  const now = nowOf(ctx);
  const token = randomToken(32);
  const row = await ctx.db.transaction(async (tx) => {
    // One live invite per address: a new one replaces the old link.
    await tx
      .update(organizationInvites)
      .set({ revokedAt: now })
      .where(and(eq(organizationInvites.organizationId, orgId), eq(organizationInvites.email, email), isNull(organizationInvites.acceptedAt), isNull(organizationInvites.revokedAt)));
    const [inserted] = await tx
      .insert(organizationInvites)
      .values({ id: randomUUID(), organizationId: orgId, email, role: input.role, tokenHash: hashToken(token), invitedBy: userId, expiresAt: new Date(now.getTime() + INVITE_TTL_DAYS * 86_400_000), createdAt: now })
      .returning();
    return inserted;
  });
  const [inviter] = await ctx.db.select().from(profiles).where(eq(profiles.id, userId)).limit(1);
  const [org] = await ctx.db.select().from(organizations).where(eq(organizations.id, orgId)).limit(1);
  const inviteUrl = `${ctx.config.publicUrl}/invite/${token}`;
  let emailSent = false;
  const mailer = mailerOf(ctx);
  if (mailer) {
    try {
      await mailer.send(inviteMail(email, org.name, inviter?.fullName ?? inviter?.email ?? 'A colleague', input.role, inviteUrl));
      emailSent = true;
    } catch (err) {
      // The link still works: the inviter can copy it.
      ctx.log.warn({ err }, 'invite mail failed');
    }
  }
  return { invite: inviteJson(row, inviter?.email ?? null, now), invite_url: inviteUrl, email_sent: emailSent };
}

export async function revokeInvite(ctx: AppContext, userId: string, orgId: string, inviteId: string): Promise<void> {
  await requireMember(ctx.db, userId, orgId, 'members.manage');
  const rows = await ctx.db
    .update(organizationInvites)
    .set({ revokedAt: nowOf(ctx) })
    .where(and(eq(organizationInvites.id, inviteId), eq(organizationInvites.organizationId, orgId), isNull(organizationInvites.acceptedAt), isNull(organizationInvites.revokedAt)))
    .returning({ id: organizationInvites.id });
  if (!rows.length) throw errors.notFound('Invite');
}

async function inviteByToken(ctx: AppContext, token: string) {
  const [row] = await ctx.db
    .select({ invite: organizationInvites, org: organizations, by: profiles })
    .from(organizationInvites)
    .innerJoin(organizations, eq(organizations.id, organizationInvites.organizationId))
    .leftJoin(profiles, eq(profiles.id, organizationInvites.invitedBy))
    .where(and(eq(organizationInvites.tokenHash, hashToken(token)), isNull(organizations.deletionScheduledAt)))
    .limit(1);
  if (!row) throw errors.notFound('Invite');
  return row;
}

export async function previewInvite(ctx: AppContext, user: AuthUser, token: string) {
  const { invite, org, by } = await inviteByToken(ctx, token);
  return {
    organization_name: org.name,
    role: invite.role,
    email: invite.email,
    status: statusOf(invite, nowOf(ctx)),
    expires_at: invite.expiresAt.toISOString(),
    invited_by: by ? (by.fullName ?? by.email) : null,
    for_you: user.email.toLowerCase() === invite.email,
    already_member: (await roleIn(ctx.db, user.id, org.id)) !== null,
  };
}

export async function acceptInvite(ctx: AppContext, user: AuthUser, token: string): Promise<Organization> {
  await ensureProfile(ctx.db, user);
  const { invite, org } = await inviteByToken(ctx, token);
  const now = nowOf(ctx);
  const status = statusOf(invite, now);
  if (status === 'accepted') throw errors.conflict('This invite has already been used', 'invite_used');
  if (status === 'revoked') throw errors.conflict('This invite was withdrawn. Ask for a new one.', 'invite_revoked');
  if (status === 'expired') throw apiError('invite_expired', 'This invite has expired. Ask for a new one.');
  if (user.email.toLowerCase() !== invite.email) throw errors.forbidden(`This invite is for ${invite.email}. Sign in with that address to accept it.`, 'invite_wrong_email');
  const role = await ctx.db.transaction(async (tx) => {
    // Single use, even when two tabs accept at once.
    const claimed = await tx
      .update(organizationInvites)
      .set({ acceptedAt: now, acceptedBy: user.id })
      .where(and(eq(organizationInvites.id, invite.id), isNull(organizationInvites.acceptedAt), isNull(organizationInvites.revokedAt)))
      .returning({ id: organizationInvites.id });
    if (!claimed.length) throw errors.conflict('This invite has already been used', 'invite_used');
    const [current] = await tx
      .select({ role: organizationMembers.role })
      .from(organizationMembers)
      .where(and(eq(organizationMembers.organizationId, org.id), eq(organizationMembers.userId, user.id)))
      .limit(1);
    if (current) return current.role;
    await tx.insert(organizationMembers).values({ organizationId: org.id, userId: user.id, role: invite.role });
    await tx.update(profiles).set({ defaultOrganizationId: org.id, updatedAt: now }).where(and(eq(profiles.id, user.id), isNull(profiles.defaultOrganizationId)));
    return invite.role;
  });
  return { ...organizationJson(org), user_role: role };
}
