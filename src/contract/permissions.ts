// Who may do what in an organization: the permission table (README "Roles"). The server enforces
// it (src/server/services/access.ts); the SPA hides or disables what the current role may not do
// (src/app/stores/permissions.ts). Add a permission here, then use it in requireMember().
import type { Role } from './account';

export type Permission =
  | 'org.read'
  | 'org.manage'
  | 'project.create'
  | 'project.update'
  | 'project.delete'
  | 'classes.edit'
  | 'images.read'
  | 'images.upload'
  | 'images.organize'
  | 'images.stage'
  | 'images.archive'
  | 'images.delete'
  | 'images.export'
  | 'images.edit'
  | 'images.assign'
  | 'images.review'
  | 'issues.write'
  | 'usage.record'
  | 'annotations.read'
  | 'annotations.write'
  | 'members.read'
  | 'members.manage'
  | 'billing.manage'
  | 'api_keys.create'
  | 'api_keys.manage';

/** The permission table (see README "Roles"). Issue 6 extends it to every action. */
export const PERMISSION_TABLE: Record<Permission, readonly Role[]> = {
  'org.read': ['owner', 'admin', 'annotator', 'reviewer', 'viewer'],
  'org.manage': ['owner', 'admin'],
  'project.create': ['owner', 'admin'],
  'project.update': ['owner', 'admin'],
  'project.delete': ['owner', 'admin'],
  'classes.edit': ['owner', 'admin'],
  // Datasets (issue 3): annotators and above upload and file images into folders, reviewers and
  // above change stages and archive, owners and admins delete for good; viewers read.
  'images.read': ['owner', 'admin', 'annotator', 'reviewer', 'viewer'],
  'images.upload': ['owner', 'admin', 'reviewer', 'annotator'],
  'images.organize': ['owner', 'admin', 'reviewer', 'annotator'],
  'images.stage': ['owner', 'admin', 'reviewer'],
  'images.archive': ['owner', 'admin', 'reviewer'],
  'images.delete': ['owner', 'admin'],
  'images.export': ['owner', 'admin', 'reviewer', 'annotator', 'viewer'], // export reveals nothing a viewer cannot read
  'usage.record': ['owner', 'admin', 'reviewer', 'annotator'],
  // Magic Image Edit (issue 8): makes new images, so the same roles as upload.
  'images.edit': ['owner', 'admin', 'reviewer', 'annotator'],
  // Workflow (issue 29): owners, admins and reviewers assign images and accept or reject what was
  // submitted; the image's assignee submits it (anyone with annotations.write submits an unassigned
  // image, and images.stage holders any image). Whoever may write annotations opens, comments on
  // and resolves issues; every member reads them (images.read). The assignee must hold
  // annotations.write and the reviewer images.review (invalid_assignee otherwise).
  'images.assign': ['owner', 'admin', 'reviewer'],
  'images.review': ['owner', 'admin', 'reviewer'],
  'issues.write': ['owner', 'admin', 'reviewer', 'annotator'],
  // Annotations (issue 5): every member loads them, annotators and above save them.
  'annotations.read': ['owner', 'admin', 'annotator', 'reviewer', 'viewer'],
  'annotations.write': ['owner', 'admin', 'reviewer', 'annotator'],
  // Teams (issue 6): every member sees who is in the organization; owners and admins invite,
  // change roles and remove (only owners touch owners: see services/members.ts); the plan is the
  // owners'. Anyone may make a key for their own scripts (its role never above theirs); owners
  // and admins see and revoke every key of the organization.
  'members.read': ['owner', 'admin', 'annotator', 'reviewer', 'viewer'],
  'members.manage': ['owner', 'admin'],
  'billing.manage': ['owner'],
  'api_keys.create': ['owner', 'admin', 'annotator', 'reviewer', 'viewer'],
  'api_keys.manage': ['owner', 'admin'],
};

export const PERMISSIONS = Object.keys(PERMISSION_TABLE) as Permission[];

/** A role's name as people read it. */
export const ROLE_LABEL: Record<Role, string> = { owner: 'Owner', admin: 'Admin', reviewer: 'Reviewer', annotator: 'Annotator', viewer: 'Viewer' };

export function roleCan(role: Role, permission: Permission): boolean {
  return PERMISSION_TABLE[permission].includes(role);
}

/** What each permission lets a person do, in the words of the Members card's role guide. */
export const PERMISSION_PHRASE: Record<Permission, string> = {
  'org.read': 'see the organization and its projects',
  'images.read': 'see images, their issues and activity',
  'annotations.read': 'see annotations',
  'members.read': 'see the members',
  'images.export': 'export datasets',
  'api_keys.create': 'make API keys for their own scripts',
  'images.upload': 'upload images',
  'images.organize': 'make folders and move images',
  'images.edit': 'make edited copies (Magic Image Edit)',
  'annotations.write': 'annotate and submit for review',
  'usage.record': 'annotate and submit for review',
  'issues.write': 'open, comment on and resolve issues',
  'images.stage': 'change stages',
  'images.archive': 'archive and restore images',
  'images.assign': 'assign images to annotators and reviewers',
  'images.review': 'accept or reject what was submitted',
  'project.create': 'create, rename and delete projects',
  'project.update': 'create, rename and delete projects',
  'project.delete': 'create, rename and delete projects',
  'classes.edit': 'edit classes',
  'images.delete': 'delete images for good',
  'members.manage': 'invite people, change roles and remove members',
  'org.manage': 'repair storage, register and delete models',
  'api_keys.manage': "see and revoke everyone's API keys",
  'billing.manage': 'manage the plan and billing',
};

/** The roles from the least to the most trusted: each holds every permission of the one before. */
const ROLES_UP: readonly Role[] = ['viewer', 'annotator', 'reviewer', 'admin', 'owner'];

/**
 * The role guide: each role with what it may do beyond the role before it, read from the table
 * (so it cannot drift from what the server enforces).
 */
export function roleGuide(): { role: Role; adds: string[] }[] {
  const seen = new Set<string>();
  return ROLES_UP.map((role) => {
    const adds: string[] = [];
    for (const p of Object.keys(PERMISSION_PHRASE) as Permission[]) {
      const phrase = PERMISSION_PHRASE[p];
      if (roleCan(role, p) && !seen.has(phrase)) {
        seen.add(phrase);
        adds.push(phrase);
      }
    }
    return { role, adds };
  });
}
