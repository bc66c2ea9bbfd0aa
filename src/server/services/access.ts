// Who may do what in an organization. Every route that touches an organization's data goes
// through requireMember(), or one of the helpers on it below that also load the resource
// (projectFor, projectInOrg, projectFieldsInOrg, imageFor, annotatedImage): a non-member gets 404 (we never reveal
// that another organization's resource exists), a member whose role lacks the permission gets 403.
import { and, eq } from 'drizzle-orm';
import type { SelectedFields } from 'drizzle-orm/pg-core';
import type { SelectResultFields } from 'drizzle-orm/query-builders/select.types';
import type { AppContext } from '../context';
import type { Exec } from '../db/client';
import { images, organizationMembers, projects, type Role } from '../db/schema';
import { errors } from '../errors';
import { roleCan, type Permission } from '../../contract/permissions';
import type { ImageRow, ProjectRow } from './images/rows';

// The permission table lives in src/contract/permissions.ts, so that the SPA hides what a role may
// not do from the same source the server enforces.
export { PERMISSIONS, type Permission } from '../../contract/permissions';

export function can(role: Role, permission: Permission): boolean {
  return roleCan(role, permission);
}

export async function roleIn(db: Exec, userId: string, organizationId: string): Promise<Role | null> {
  const rows = await db
    .select({ role: organizationMembers.role })
    .from(organizationMembers)
    .where(and(eq(organizationMembers.organizationId, organizationId), eq(organizationMembers.userId, userId)))
    .limit(1);
  return rows[0]?.role ?? null;
}

/** The caller's role in the organization; 404 when not a member, 403 when the role lacks `permission`. */
export async function requireMember(db: Exec, userId: string, organizationId: string, permission: Permission, what = 'Organization'): Promise<Role> {
  const role = await roleIn(db, userId, organizationId);
  if (!role) throw errors.notFound(what);
  if (!can(role, permission)) throw errors.forbidden(`Your role (${role}) does not allow this`);
  return role;
}


/** The project, if the caller may `permission` in its organization; 404 otherwise. */
export async function projectFor(ctx: AppContext, userId: string, projectId: string, permission: Permission): Promise<ProjectRow> {
  const [row] = await ctx.db.select().from(projects).where(eq(projects.id, projectId)).limit(1);
  if (!row) throw errors.notFound('Project');
  await requireMember(ctx.db, userId, row.organizationId, permission, 'Project');
  return row;
}

/**
 * The project if the caller may `permission` in its organization (404 when not a member or when it
 * is not in the org_id the client sent, 403 when the role lacks the permission). One round trip.
 */
export async function projectInOrg(ctx: AppContext, userId: string, projectId: string, permission: Permission, orgId?: string): Promise<ProjectRow> {
  return (await projectFieldsInOrg(ctx, userId, projectId, permission, orgId, { project: projects })).project;
}

/**
 * projectInOrg's check, answering `fields` (columns of the project, or subqueries) instead of the
 * whole row: the check and what the caller reads with it in one query, run only for a member. The
 * image list asks its total this way on every page (services/images/read.ts).
 */
export async function projectFieldsInOrg<T extends SelectedFields>(ctx: AppContext, userId: string, projectId: string, permission: Permission, orgId: string | undefined, fields: T): Promise<SelectResultFields<T>> {
  const checked: SelectedFields = { ...fields, accessOrganizationId: projects.organizationId, accessRole: organizationMembers.role };
  const [row] = (await ctx.db
    .select(checked)
    .from(projects)
    .innerJoin(organizationMembers, and(eq(organizationMembers.organizationId, projects.organizationId), eq(organizationMembers.userId, userId)))
    .where(eq(projects.id, projectId))
    .limit(1)) as (SelectResultFields<T> & { accessOrganizationId: string; accessRole: Role })[];
  if (!row || (orgId && orgId !== row.accessOrganizationId)) throw errors.notFound('Project');
  if (!can(row.accessRole, permission)) throw errors.forbidden(`Your role (${row.accessRole}) does not allow this`);
  const { accessOrganizationId: _org, accessRole: _role, ...answer } = row;
  return answer as SelectResultFields<T>;
}

/** The image, if the caller may `permission` in its organization; 404 otherwise (also for another organization's image). */
export async function imageFor(ctx: AppContext, userId: string, imageId: string, permission: Permission, orgId?: string): Promise<ImageRow> {
  const [row] = await ctx.db.select().from(images).where(eq(images.id, imageId)).limit(1);
  if (!row || (orgId && orgId !== row.organizationId)) throw errors.notFound('Image');
  await requireMember(ctx.db, userId, row.organizationId, permission, 'Image');
  return row;
}

/** The image, if the caller may `permission` in its organization and it belongs to `projectId` (when given); 404 otherwise. */
export async function annotatedImage(ctx: AppContext, userId: string, imageId: string, projectId: string | undefined, permission: Permission): Promise<ImageRow> {
  const row = await imageFor(ctx, userId, imageId, permission);
  if (projectId && row.projectId !== projectId) throw errors.notFound('Image');
  return row;
}
