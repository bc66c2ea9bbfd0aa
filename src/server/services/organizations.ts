// Organizations: creation (with the owner membership and the storage bucket), listing, the
// storage repair and diagnostic calls of the Settings page.
import { randomUUID } from 'node:crypto';
import { and, asc, eq, isNull } from 'drizzle-orm';
import type { AppContext } from '../context';
import { isUniqueViolation } from '../db/errors';
import { organizationMembers, organizations, profiles, type Role } from '../db/schema';
import { errors } from '../errors';
import { bucketNameFor, MESSAGES } from '../../contract/validation';
import type { Organization } from '../../contract/account';
import { organizationJson } from './profiles';
import { requireMember } from './access';

type OrgRow = typeof organizations.$inferSelect;

function withRole(org: OrgRow, role: Role): Organization {
  return { ...organizationJson(org), user_role: role };
}


/** Creates the bucket; on failure the organization stays without one ('Storage Not Configured'), which fix-bucket repairs. */
async function provisionBucket(ctx: AppContext, org: OrgRow): Promise<OrgRow> {
  const bucket = bucketNameFor(org.slug);
  try {
    await ctx.storage.createBucket(bucket);
  } catch {
    return org;
  }
  const [updated] = await ctx.db.update(organizations).set({ gcsBucketName: bucket, updatedAt: new Date() }).where(eq(organizations.id, org.id)).returning();
  return updated;
}

export async function createOrganization(ctx: AppContext, userId: string, input: { name: string; slug: string }, opts: { makeDefault?: boolean; fullName?: string } = {}): Promise<Organization> {
  const id = randomUUID();
  let org: OrgRow;
  try {
    org = await ctx.db.transaction(async (tx) => {
      const [row] = await tx.insert(organizations).values({ id, name: input.name, slug: input.slug, createdBy: userId }).returning();
      await tx.insert(organizationMembers).values({ organizationId: id, userId, role: 'owner' });
      const [profile] = await tx.select().from(profiles).where(eq(profiles.id, userId)).limit(1);
      const patch: Partial<typeof profiles.$inferInsert> = { updatedAt: new Date() };
      if (opts.makeDefault || !profile?.defaultOrganizationId) patch.defaultOrganizationId = id;
      if (opts.fullName) patch.fullName = opts.fullName;
      await tx.update(profiles).set(patch).where(eq(profiles.id, userId));
      return row;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw errors.conflict(MESSAGES.slugTaken, 'slug_taken');
    throw err;
  }
  org = await provisionBucket(ctx, org);
  return withRole(org, 'owner');
}

export async function listOrganizations(ctx: AppContext, userId: string): Promise<Organization[]> {
  const rows = await ctx.db
    .select({ org: organizations, role: organizationMembers.role })
    .from(organizationMembers)
    .innerJoin(organizations, eq(organizations.id, organizationMembers.organizationId))
    .where(and(eq(organizationMembers.userId, userId), isNull(organizations.deletionScheduledAt)))
    .orderBy(asc(organizationMembers.createdAt));
  return rows.map((r) => withRole(r.org, r.role));
}

async function orgRow(ctx: AppContext, orgId: string): Promise<OrgRow> {
  const [org] = await ctx.db.select().from(organizations).where(and(eq(organizations.id, orgId), isNull(organizations.deletionScheduledAt))).limit(1);
  if (!org) throw errors.notFound('Organization');
  return org;
}

export async function getOrganization(ctx: AppContext, userId: string, orgId: string): Promise<Organization> {
  const role = await requireMember(ctx.db, userId, orgId, 'org.read');
  return withRole(await orgRow(ctx, orgId), role);
}

export async function fixBucket(ctx: AppContext, userId: string, orgId: string): Promise<{ success: boolean; bucket: string; message: string }> {
  await requireMember(ctx.db, userId, orgId, 'org.manage');
  const org = await orgRow(ctx, orgId);
  const bucket = bucketNameFor(org.slug);
  try {
    if (!(await ctx.storage.bucketExists(bucket))) await ctx.storage.createBucket(bucket);
  } catch (err) {
    throw errors.unavailable(`Could not create the storage bucket ${bucket}: ${(err as Error).message}`);
  }
  await ctx.db.update(organizations).set({ gcsBucketName: bucket, updatedAt: new Date() }).where(eq(organizations.id, orgId));
  return { success: true, bucket, message: `Storage bucket ${bucket} is ready` };
}

export async function debugOrganization(ctx: AppContext, userId: string, orgId: string) {
  await requireMember(ctx.db, userId, orgId, 'org.read');
  const org = await orgRow(ctx, orgId);
  const expected = bucketNameFor(org.slug);
  const problems: string[] = [];
  let exists = false;
  const sample: { key: string; size: number }[] = [];
  try {
    exists = await ctx.storage.bucketExists(expected);
    if (exists) {
      for await (const obj of ctx.storage.list(expected, '')) {
        sample.push({ key: obj.key, size: obj.size });
        if (sample.length >= 20) break;
      }
    }
  } catch (err) {
    problems.push(`The storage service could not be reached: ${(err as Error).message}`);
  }
  if (!org.gcsBucketName) problems.push('The organization has no bucket recorded. Use Fix Storage Configuration.');
  else if (org.gcsBucketName !== expected) problems.push(`The recorded bucket (${org.gcsBucketName}) differs from the expected one (${expected}).`);
  if (!exists) problems.push(`The bucket ${expected} does not exist in ${ctx.storage.kind} storage.`);
  return {
    organization_id: org.id,
    slug: org.slug,
    bucket: org.gcsBucketName,
    expected_bucket: expected,
    storage_driver: ctx.storage.kind,
    bucket_exists: exists,
    object_count_sample: sample.length,
    sample_objects: sample,
    problems,
  };
}
