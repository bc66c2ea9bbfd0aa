// Product profiles. A profile is created the first time an authenticated user reaches the product
// API, from the token's claims, so it works the same with the embedded and the hosted identity.
import { asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { organizationMembers, organizations, profiles } from '../db/schema';
import type { AuthUser } from '../auth/types';
import type { CurrentUserResponse, Profile } from '../../contract/account';

export async function ensureProfile(db: Db, user: AuthUser): Promise<typeof profiles.$inferSelect> {
  const existing = await db.select().from(profiles).where(eq(profiles.id, user.id)).limit(1);
  if (existing[0]) return existing[0];
  const fullName = typeof user.userMetadata.full_name === 'string' && user.userMetadata.full_name.trim() ? user.userMetadata.full_name.trim() : null;
  await db.insert(profiles).values({ id: user.id, email: user.email, fullName }).onConflictDoNothing();
  const rows = await db.select().from(profiles).where(eq(profiles.id, user.id)).limit(1);
  return rows[0];
}

export function organizationJson(org: typeof organizations.$inferSelect) {
  return {
    id: org.id,
    name: org.name,
    slug: org.slug,
    subscription_tier: org.subscriptionTier,
    gcs_bucket_name: org.gcsBucketName,
    created_at: org.createdAt.toISOString(),
  };
}

export async function loadProfile(db: Db, userId: string): Promise<Profile> {
  const [profile] = await db.select().from(profiles).where(eq(profiles.id, userId)).limit(1);
  const memberships = await db
    .select({ role: organizationMembers.role, org: organizations })
    .from(organizationMembers)
    .innerJoin(organizations, eq(organizations.id, organizationMembers.organizationId))
    .where(sql`${organizationMembers.userId} = ${userId} AND ${organizations.deletionScheduledAt} IS NULL`)
    .orderBy(asc(organizationMembers.createdAt));
  const defaultOrg = memberships.some((m) => m.org.id === profile.defaultOrganizationId) ? profile.defaultOrganizationId : null;
  return {
    id: profile.id,
    email: profile.email,
    full_name: profile.fullName,
    default_organization_id: defaultOrg,
    organization_members: memberships.map((m) => ({ role: m.role, organization: organizationJson(m.org) })),
  };
}

export async function currentUser(db: Db, user: AuthUser): Promise<CurrentUserResponse> {
  const row = await ensureProfile(db, user);
  const profile = await loadProfile(db, user.id);
  return {
    profile,
    needs_onboarding: profile.organization_members.length === 0,
    was_reactivated: row.reactivatedAt !== null && row.reactivationMessage !== null,
    reactivation_message: row.reactivationMessage,
  };
}
