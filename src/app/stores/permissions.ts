// What the current member may do, from their role in the current organization and the permission
// table the server enforces (src/contract/permissions.ts). The server still decides (403).
//
// The one rule the pages follow for what a role may not do:
// - Header buttons (a page header's or a tab header's: Create Project, Project settings, Add,
//   New Folder, Add Class) stay where they are, disabled, with a tooltip that says why
//   (`useDenied`: "Your role (Viewer) cannot upload images"). They are the page's landmarks:
//   hiding them would shift the header and look like a missing feature.
// - Everything else is hidden: selection-toolbar actions, per-tile and per-row actions, menus,
//   drag and drop (tiles are not draggable; a desktop file drop is refused with the same note).
//   Where text promised the hidden action (an empty state, a hint), the text says who can do it.
import type { Permission } from '../../contract/permissions';
import { ROLE_LABEL, roleCan } from '../../contract/permissions';
import { deniedReason, roleLabel, type RoleSource } from './roles';
import { useSession } from './session';

export type { Permission };

/** True when the current organization membership's role allows `permission`. */
export function useCan(permission: Permission): boolean {
  return useSession((s) => (s.currentOrganization ? roleCan(s.currentOrganization.user_role, permission) : false));
}

export { deniedReason, ROLE_LABEL };

/** The current role's name as people read it ('Viewer'), 'member' before one is known. */
export function useRoleLabel(): string {
  return useSession((s) => roleLabel(s.currentOrganization?.user_role ?? null));
}

/**
 * The member's role in organization `orgId` (not necessarily the current one), for code without
 * React to read and follow (the editor session, src/app/editor-session/access.ts). It changes when
 * the profile is read again (a role changed elsewhere, a membership lost).
 */
export function memberRole(orgId: string): RoleSource {
  return {
    role: () => useSession.getState().organizations.find((o) => o.id === orgId)?.user_role ?? null,
    subscribe: (listener) => useSession.subscribe(() => listener()),
  };
}

/**
 * Null when the current role has every one of `permissions`, else the reason to show on the
 * disabled control ("Your role (Viewer) cannot upload images"). `action` completes "cannot ...".
 */
export function useDenied(permissions: Permission | readonly Permission[], action: string): string | null {
  const list = typeof permissions === 'string' ? [permissions] : permissions;
  const allowed = useSession((s) => (s.currentOrganization ? list.every((p) => roleCan(s.currentOrganization!.user_role, p)) : false));
  const role = useRoleLabel();
  return allowed ? null : deniedReason(role, action);
}
