// What the current member may do, from their role in the current organization and the permission
// table the server enforces (src/contract/permissions.ts). The UI hides or disables the rest; the
// server still decides (403).
import type { Permission } from '../../contract/permissions';
import { roleCan } from '../../contract/permissions';
import { useSession } from './session';

export type { Permission };

/** True when the current organization membership's role allows `permission`. */
export function useCan(permission: Permission): boolean {
  return useSession((s) => (s.currentOrganization ? roleCan(s.currentOrganization.user_role, permission) : false));
}

/** Why a control is disabled, for tooltips. */
export function useRoleLabel(): string {
  return useSession((s) => s.currentOrganization?.user_role ?? 'member');
}

export const NOT_ALLOWED = (role: string) => `Your role (${role}) does not allow this`;
