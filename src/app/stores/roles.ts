// Roles in words and as a value to follow, without React: what the editor session
// (src/app/editor-session/access.ts) and the pages (./permissions.ts) both say about a role.
import type { Role } from '../../contract/account';
import { ROLE_LABEL } from '../../contract/permissions';

/** The member's role in one organization, read now and followed (null: not a member, or not known yet). */
export interface RoleSource {
  role(): Role | null;
  /** `listener` runs after anything the role is read from changed (the role itself may not have). */
  subscribe(listener: () => void): () => void;
}

/** A role's name as people read it ('Viewer'), 'member' before one is known. */
export const roleLabel = (role: Role | null): string => (role ? ROLE_LABEL[role] : 'member');

/** Why a role may not do something: `Your role (Viewer) cannot move images`. */
export const deniedReason = (roleLabel: string, action: string) => `Your role (${roleLabel}) cannot ${action}`;
