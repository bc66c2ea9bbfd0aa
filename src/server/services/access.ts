// Who may do what in an organization. Every route that touches an organization's data goes
// through requireMember(): a non-member gets 404 (we never reveal that another organization's
// resource exists), a member whose role lacks the permission gets 403.
import { and, eq } from 'drizzle-orm';
import type { Exec } from '../db/client';
import { organizationMembers, type Role } from '../db/schema';
import { errors } from '../errors';
import { roleCan, type Permission } from '../../contract/permissions';

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
