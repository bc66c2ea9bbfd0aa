// Members of an organization and their roles. Rules beyond the permission table:
// - only owners make owners or change / remove an owner (admins manage admins and below);
// - an organization always keeps at least one owner: the last one cannot be demoted, removed or leave;
// - when a member's role drops, their API keys in the organization drop with it; when a member
//   goes, their keys there are revoked;
// - a member holds assignments (issue 29) only while their role may do the work: when their role
//   drops below it, or they go, the images they annotate or review are unassigned;
// - a pending invite lasts only while its inviter could still give it: when their role drops, their
//   invites above it (all of them, without members.manage) are withdrawn; when they go, all are.
import { and, asc, eq, inArray, isNull, ne, sql } from 'drizzle-orm';
import type { AppContext } from '../context';
import type { Exec } from '../db/client';
import { retryOnConflict } from '../db/errors';
import { apiKeys, organizationInvites, organizationMembers, organizations, profiles, type Role } from '../db/schema';
import { errors } from '../errors';
import { ROLE_RANK, type Member } from '../../contract/teams';
import { can, requireMember } from './access';
import { capKeyRoles, revokeKeysWhere } from './api-keys';
import { releaseAssignments } from './workflow';


/** People (not API key principals) in the organization, oldest first. */
export async function humanMembers(db: Exec, orgId: string) {
  return db
    .select({ userId: organizationMembers.userId, role: organizationMembers.role, joinedAt: organizationMembers.createdAt, email: profiles.email, fullName: profiles.fullName })
    .from(organizationMembers)
    .innerJoin(profiles, eq(profiles.id, organizationMembers.userId))
    .where(and(eq(organizationMembers.organizationId, orgId), eq(profiles.kind, 'user')))
    .orderBy(asc(organizationMembers.createdAt), asc(profiles.email));
}

function memberJson(m: Awaited<ReturnType<typeof humanMembers>>[number], callerId: string): Member {
  return { user_id: m.userId, email: m.email, full_name: m.fullName, role: m.role, joined_at: m.joinedAt.toISOString(), is_you: m.userId === callerId };
}

export async function listMembers(ctx: AppContext, userId: string, orgId: string): Promise<Member[]> {
  await requireMember(ctx.db, userId, orgId, 'members.read');
  return (await humanMembers(ctx.db, orgId)).map((m) => memberJson(m, userId));
}

async function ownerCount(tx: Exec, orgId: string): Promise<number> {
  const [row] = await tx
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(organizationMembers)
    .innerJoin(profiles, eq(profiles.id, organizationMembers.userId))
    .where(and(eq(organizationMembers.organizationId, orgId), eq(organizationMembers.role, 'owner'), eq(profiles.kind, 'user')));
  return row?.n ?? 0;
}

const LAST_OWNER = 'An organization must keep at least one owner. Make another member an owner first.';

/**
 * Serialises the changes that could take an organization's last owner away. Row locks on the two
 * members are not enough: two owners stepping each other down lock different rows, both count two
 * owners under READ COMMITTED, and both commit. FOR NO KEY UPDATE, not FOR UPDATE: the latter also
 * blocks every insert that points at the organization (an image, an issue, a usage record, a job
 * takes FOR KEY SHARE on it), so a role change waiting on an image a reviewer was rejecting
 * deadlocked with that review's new issue, and stalled the organization's uploads while it waited.
 */
async function lockOrganization(tx: Exec, orgId: string): Promise<void> {
  await tx.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, orgId)).for('no key update');
}

async function targetOf(tx: Exec, orgId: string, userId: string) {
  const [row] = await tx
    .select({ role: organizationMembers.role })
    .from(organizationMembers)
    .innerJoin(profiles, eq(profiles.id, organizationMembers.userId))
    .where(and(eq(organizationMembers.organizationId, orgId), eq(organizationMembers.userId, userId), eq(profiles.kind, 'user')))
    .for('update');
  if (!row) throw errors.notFound('Member');
  return row;
}

export async function changeRole(ctx: AppContext, callerId: string, orgId: string, targetId: string, role: Role): Promise<Member> {
  await requireMember(ctx.db, callerId, orgId, 'members.manage');
  // Run again if chosen as a deadlock's victim: the released assignments update images that a
  // team's batch writes may hold in another order.
  await retryOnConflict(() => ctx.db.transaction(async (tx) => {
    await lockOrganization(tx, orgId);
    // Read again under the lock: a caller stepped down a moment ago acts with the role they have now.
    const callerRole = await requireMember(tx, callerId, orgId, 'members.manage');
    const target = await targetOf(tx, orgId, targetId);
    if (target.role === role) return;
    if (callerRole !== 'owner' && (target.role === 'owner' || role === 'owner')) throw errors.forbidden('Only an owner can make or change an owner', 'owner_only');
    if (target.role === 'owner' && (await ownerCount(tx, orgId)) <= 1) throw errors.conflict(LAST_OWNER, 'last_owner');
    await tx.update(organizationMembers).set({ role }).where(and(eq(organizationMembers.organizationId, orgId), eq(organizationMembers.userId, targetId)));
    if (ROLE_RANK[role] < ROLE_RANK[target.role]) {
      await capKeyRoles(tx, orgId, targetId, role);
      await withdrawInvitesOf(tx, orgId, targetId, role);
    }
    // Not only on a drop in rank: a reviewer made annotator can no longer review.
    await releaseAssignments(tx, orgId, targetId, role, callerId);
  }));
  const member = (await humanMembers(ctx.db, orgId)).find((m) => m.userId === targetId);
  if (!member) throw errors.notFound('Member');
  return memberJson(member, callerId);
}

/** Removes a member (or, with targetId === callerId, leaves). */
export async function removeMember(ctx: AppContext, callerId: string, orgId: string, targetId: string): Promise<void> {
  const leaving = callerId === targetId;
  await requireMember(ctx.db, callerId, orgId, leaving ? 'org.read' : 'members.manage');
  await retryOnConflict(() => ctx.db.transaction(async (tx) => {
    await lockOrganization(tx, orgId);
    const callerRole = await requireMember(tx, callerId, orgId, leaving ? 'org.read' : 'members.manage');
    const target = await targetOf(tx, orgId, targetId);
    if (!leaving && callerRole !== 'owner' && target.role === 'owner') throw errors.forbidden('Only an owner can remove an owner', 'owner_only');
    if (target.role === 'owner' && (await ownerCount(tx, orgId)) <= 1) {
      throw errors.conflict(leaving ? 'You are the last owner of this organization. Make another member an owner before you leave.' : LAST_OWNER, 'last_owner');
    }
    await detachMember(tx, orgId, targetId, callerId);
  }));
}

/**
 * Drops the membership, the member's keys and assignments in the organization, and the organization
 * as their default. `by`: who removed them (themselves when they leave or delete their account).
 */
export async function detachMember(tx: Exec, orgId: string, userId: string, by: string = userId): Promise<void> {
  await releaseAssignments(tx, orgId, userId, null, by);
  await tx.delete(organizationMembers).where(and(eq(organizationMembers.organizationId, orgId), eq(organizationMembers.userId, userId)));
  await revokeKeysWhere(tx, and(eq(apiKeys.organizationId, orgId), eq(apiKeys.createdBy, userId))!);
  await withdrawInvitesOf(tx, orgId, userId, null);
  await tx.update(profiles).set({ defaultOrganizationId: null, updatedAt: new Date() }).where(and(eq(profiles.id, userId), eq(profiles.defaultOrganizationId, orgId)));
}

/** Withdraws the inviter's pending invites they could no longer give with `role` (null: gone). */
async function withdrawInvitesOf(tx: Exec, orgId: string, inviterId: string, role: Role | null): Promise<void> {
  const pending = and(eq(organizationInvites.organizationId, orgId), eq(organizationInvites.invitedBy, inviterId), isNull(organizationInvites.acceptedAt), isNull(organizationInvites.revokedAt));
  let where = pending;
  if (role && can(role, 'members.manage')) {
    const above = (Object.keys(ROLE_RANK) as Role[]).filter((r) => ROLE_RANK[r] > ROLE_RANK[role]);
    where = and(pending, inArray(organizationInvites.role, above));
  }
  await tx.update(organizationInvites).set({ revokedAt: new Date() }).where(where);
}

/** The member who should own the organization when `leavingId` goes: the earliest admin. */
export async function nextOwner(tx: Exec, orgId: string, leavingId: string) {
  const [row] = await tx
    .select({ userId: organizationMembers.userId, email: profiles.email })
    .from(organizationMembers)
    .innerJoin(profiles, eq(profiles.id, organizationMembers.userId))
    .where(and(eq(organizationMembers.organizationId, orgId), eq(organizationMembers.role, 'admin'), ne(organizationMembers.userId, leavingId), eq(profiles.kind, 'user'), sql`${profiles.deactivatedAt} IS NULL`))
    .orderBy(asc(organizationMembers.createdAt))
    .limit(1);
  return row ?? null;
}
