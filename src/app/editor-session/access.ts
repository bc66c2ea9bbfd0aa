// What the member's role lets them do in the editor, without React: a role without
// annotations.write gets the same screen read only (the engine refuses edits, the session's
// commands that edit do nothing, nothing is saved), and the stage picker only shows the stage
// without images.stage. The role is the member's in the project's organization, read from a
// RoleSource (src/app/stores/permissions.ts `memberRole`) and followed: a role changed elsewhere
// reaches an open editor. The server still decides (403).
import type { Role } from '../../contract/account';
import { roleCan } from '../../contract/permissions';
import { deniedReason, roleLabel, type RoleSource } from '../stores/roles';

export type { RoleSource };

export interface EditorAccess {
  /** A role without annotations.write (or no role): the same screen, read only. */
  readOnly: boolean;
  /** Why this role may not edit (null when it may). */
  viewOnlyReason: string | null;
  /** Why this role may not set the image's stage (null when it may). */
  stageDeniedReason: string | null;
}

export function editorAccess(role: Role | null): EditorAccess {
  const label = roleLabel(role);
  const readOnly = !role || !roleCan(role, 'annotations.write');
  return {
    readOnly,
    viewOnlyReason: readOnly ? deniedReason(label, 'edit annotations') : null,
    stageDeniedReason: role && roleCan(role, 'images.stage') ? null : deniedReason(label, 'set the stage'),
  };
}

/** The access of the role a source gives, the same object while the role stays (for useSyncExternalStore). */
export class RoleAccess {
  private last: { role: Role | null; access: EditorAccess } | null = null;

  constructor(private readonly source: RoleSource) {}

  get = (): EditorAccess => {
    const role = this.source.role();
    if (!this.last || this.last.role !== role) this.last = { role, access: editorAccess(role) };
    return this.last.access;
  };

  /** `listener` runs when the role's access changed (not on every change of what the role is read from). */
  subscribe = (listener: () => void): (() => void) => {
    let seen = this.get();
    return this.source.subscribe(() => {
      const now = this.get();
      if (now === seen) return;
      seen = now;
      listener();
    });
  };
}
