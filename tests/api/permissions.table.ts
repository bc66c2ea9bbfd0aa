// THE ROUTE TABLE: every API route the app registers, with the permission it needs (src/contract/
// permissions.ts says which roles hold it), 'self' (any signed-in person: the account's own calls)
// or 'public' (no token). tests/api/permissions.test.ts walks it for every role, in the caller's
// organization (allowed or 403) and in another one (404), and fails naming any registered route
// that is missing here.
//
// Adding a route? Add one line: the route as Fastify registers it, its access, and a `request`
// that builds a VALID call against the fixture `f` (bodies are validated before the token is
// checked, so an invalid body would answer 400 and prove nothing). `f` is either the caller's own
// organization or another one; build everything from `f` and the test does the rest. Calls that
// consume a resource (delete, move, rename) take a fresh one from `f.new...()` each time.
import { roleCan, type Permission } from '../../src/contract/permissions';
import type { Role } from '../../src/contract/account';

export interface Fixture {
  org: { id: string; slug: string };
  ownerEmail: string;
  ownerPassword: string;
  ownerToken: string;
  /** A project with classes, an image (`image`) and a folder (`folder`) in it. */
  project: { id: string };
  image: { id: string; filename: string };
  folder: { id: string; full_path: string };
  newProject(): Promise<{ id: string }>;
  newImage(): Promise<{ id: string; filename: string }>;
  /** A new image whose annotations were saved once (version 1). */
  newSavedImage(): Promise<{ id: string; filename: string }>;
  /** A file uploaded with `token` (default the owner's) waiting to be registered: register reads the caller's own upload. */
  newUpload(token?: string): Promise<{ filename: string; gcs_bucket: string; gcs_path: string; gcs_uri: string; file_size: number }>;
  newFolder(): Promise<{ id: string; full_path: string }>;
  /** A new person joined with this role (through an invite). */
  newMember(role: Role): Promise<{ userId: string; token: string; email: string }>;
  newInvite(email?: string): Promise<{ id: string; token: string }>;
  /** A key created with `token` (default the owner's). */
  newKey(token?: string): Promise<{ id: string; key: string }>;
  /** A Magic Image Edit job started by the owner. */
  newEditJob(): Promise<{ id: string }>;
  /** A dataset import reserved by the owner; `uploaded`: its file was PUT (default true). */
  newImport(uploaded?: boolean): Promise<{ id: string }>;
  /** A new image the owner moved to the review stage (issue 29). */
  newImageInReview(): Promise<{ id: string; filename: string }>;
  /** An open issue the owner pinned on a new image (issue 29). */
  newIssue(): Promise<{ id: string }>;
  /** An ONNX model the owner registered (pending: its file not uploaded). */
  newModel(): Promise<{ id: string }>;
  /** A pre-label job the owner started on a new empty folder (it ends at once: no image to run the model on). */
  newPrelabelJob(): Promise<{ id: string }>;
  /** A signed-up person with no organization. */
  newUser(): Promise<{ userId: string; token: string; email: string }>;
  unique(prefix: string): string;
}

export interface Caller {
  role: Role;
  token: string;
  /** The API key the call is made with, if it is (else `token`'s person calls). */
  key?: string;
  /** The caller's own organization (f is this one or another). */
  home: Fixture;
  sameOrg: boolean;
}

export interface Req {
  path?: string;
  body?: unknown;
  /** Call as someone else (for example a fresh user for DELETE /users/me). */
  token?: string;
}

export type Access = 'public' | 'self' | Permission;

export interface RouteRule {
  route: string;
  access: Access;
  request?: (f: Fixture, c: Caller) => Req | Promise<Req>;
  /** Statuses that also mean "allowed" (besides 2xx). */
  ok?: number[];
  /** For calls that answer item by item (200 with each item's outcome): read the outcome of the one item sent. */
  verdict?: (res: { status: number; body: any }) => Verdict;
}

export type Verdict = 'allowed' | 'forbidden' | 'not_found' | 'other';

/** batch-save-data style: results[0].status 'saved', or its error code. */
const firstResult = (res: { status: number; body: any }): Verdict => {
  const r = res.status === 200 ? res.body?.results?.[0] : null;
  if (!r) return res.status === 403 ? 'forbidden' : res.status === 404 ? 'not_found' : 'other';
  return r.status === 'saved' ? 'allowed' : r.code === 'forbidden' ? 'forbidden' : r.code === 'not_found' ? 'not_found' : 'other';
};

const q = (params: Record<string, string>) => `?${new URLSearchParams(params)}`;

export const ROUTES: RouteRule[] = [
  // System and the identity wrappers: no token.
  { route: 'GET /api/v1/health', access: 'public' },
  { route: 'GET /api/v1/health/live', access: 'public' },
  { route: 'GET /api/v1/health/ready', access: 'public' },
  { route: 'GET /api/v1/config', access: 'public' },
  { route: 'POST /api/v1/auth/signup', access: 'public', request: (f) => ({ body: { email: `${f.unique('signup')}@example.com`, password: 'correct horse', full_name: 'New Person' } }) },
  { route: 'POST /api/v1/auth/signin', access: 'public', request: (f) => ({ body: { email: f.ownerEmail, password: f.ownerPassword } }) },
  { route: 'POST /api/v1/auth/verify', access: 'public', request: (f) => ({ body: { access_token: f.ownerToken } }) },
  // The live socket authenticates in its first message (tests/api/live.test.ts); a plain GET answers 426.
  { route: 'GET /api/v1/live', access: 'public', ok: [426] },

  // The account's own calls: any signed-in person.
  { route: 'GET /api/v1/users/me', access: 'self' },
  { route: 'PATCH /api/v1/users/me', access: 'self', request: () => ({ body: { full_name: 'Renamed Person' } }) },
  { route: 'POST /api/v1/users/onboarding', access: 'self', request: async (f) => ({ token: (await f.newUser()).token, body: { full_name: 'P', organization_name: 'Onboarded', organization_slug: f.unique('onb') } }) },
  { route: 'DELETE /api/v1/users/me', access: 'self', request: async (f) => ({ token: (await f.newUser()).token }) },
  { route: 'DELETE /api/v1/users/me/reactivation', access: 'self' },
  { route: 'GET /api/v1/users/me/preferences', access: 'self' },
  { route: 'PUT /api/v1/users/me/preferences', access: 'self', request: () => ({ body: { editor_shortcuts: { enabled: false, tool_keys: { select: 'q', auto: 'm', box: 'g', polygon: 'p', polyline: 'l', keypoint: 'k', brush: 'b', eraser: 'e' } } } }) },
  { route: 'GET /api/v1/organizations', access: 'self' },
  { route: 'POST /api/v1/organizations', access: 'self', request: async (f) => ({ token: (await f.newUser()).token, body: { name: 'Another', slug: f.unique('org') } }) },
  { route: 'GET /api/v1/invites/:token', access: 'self', request: async (f) => ({ path: `/api/v1/invites/${(await f.newInvite()).token}` }) },
  {
    route: 'POST /api/v1/invites/:token/accept',
    access: 'self',
    request: async (f) => {
      const user = await f.newUser();
      return { token: user.token, path: `/api/v1/invites/${(await f.newInvite(user.email)).token}/accept` };
    },
  },

  // Organizations
  { route: 'GET /api/v1/organizations/:id', access: 'org.read', request: (f) => ({ path: `/api/v1/organizations/${f.org.id}` }) },
  { route: 'POST /api/v1/organizations/:id/fix-bucket', access: 'org.manage', request: (f) => ({ path: `/api/v1/organizations/${f.org.id}/fix-bucket` }) },
  { route: 'GET /api/v1/organizations/:id/debug', access: 'org.read', request: (f) => ({ path: `/api/v1/organizations/${f.org.id}/debug` }) },

  // Members and invites
  { route: 'GET /api/v1/organizations/:orgId/members', access: 'members.read', request: (f) => ({ path: `/api/v1/organizations/${f.org.id}/members` }) },
  {
    route: 'PATCH /api/v1/organizations/:orgId/members/:userId',
    access: 'members.manage',
    request: async (f) => ({ path: `/api/v1/organizations/${f.org.id}/members/${(await f.newMember('viewer')).userId}`, body: { role: 'annotator' } }),
  },
  { route: 'DELETE /api/v1/organizations/:orgId/members/:userId', access: 'members.manage', request: async (f) => ({ path: `/api/v1/organizations/${f.org.id}/members/${(await f.newMember('viewer')).userId}` }) },
  // Leaving: a fresh member of the caller's role and organization leaves f's organization (another one: 404).
  { route: 'POST /api/v1/organizations/:orgId/leave', access: 'org.read', request: async (f, c) => ({ token: (await c.home.newMember(c.role)).token, path: `/api/v1/organizations/${f.org.id}/leave` }) },
  { route: 'GET /api/v1/organizations/:orgId/invites', access: 'members.manage', request: (f) => ({ path: `/api/v1/organizations/${f.org.id}/invites` }) },
  { route: 'POST /api/v1/organizations/:orgId/invites', access: 'members.manage', request: (f) => ({ path: `/api/v1/organizations/${f.org.id}/invites`, body: { email: `${f.unique('inv')}@example.com`, role: 'viewer' } }) },
  { route: 'DELETE /api/v1/organizations/:orgId/invites/:inviteId', access: 'members.manage', request: async (f) => ({ path: `/api/v1/organizations/${f.org.id}/invites/${(await f.newInvite()).id}` }) },

  // API keys: everyone makes and revokes their own (never above their role); others' keys are hidden.
  { route: 'GET /api/v1/api-keys', access: 'api_keys.create', request: (f) => ({ path: `/api/v1/api-keys${q({ organization_id: f.org.id })}` }) },
  { route: 'POST /api/v1/api-keys', access: 'api_keys.create', request: (f) => ({ body: { organization_id: f.org.id, name: 'script', role: 'viewer' } }) },
  { route: 'DELETE /api/v1/api-keys/:id', access: 'api_keys.create', request: async (f, c) => ({ path: `/api/v1/api-keys/${(await f.newKey(c.sameOrg ? c.token : undefined)).id}` }) },

  // Projects
  { route: 'GET /api/v1/projects/organization/:orgId', access: 'org.read', request: (f) => ({ path: `/api/v1/projects/organization/${f.org.id}` }) },
  { route: 'POST /api/v1/projects', access: 'project.create', request: (f) => ({ body: { organization_id: f.org.id, name: 'Made', description: null, annotation_types: ['box'], classes: [] } }) },
  { route: 'GET /api/v1/projects/:id', access: 'org.read', request: (f) => ({ path: `/api/v1/projects/${f.project.id}` }) },
  { route: 'PATCH /api/v1/projects/:id', access: 'project.update', request: (f) => ({ path: `/api/v1/projects/${f.project.id}`, body: { description: 'Updated' } }) },
  { route: 'DELETE /api/v1/projects/:id', access: 'project.delete', request: async (f) => ({ path: `/api/v1/projects/${(await f.newProject()).id}` }) },

  // Images
  { route: 'GET /api/v1/projects/:id/images', access: 'images.read', request: (f) => ({ path: `/api/v1/projects/${f.project.id}/images${q({ org_id: f.org.id })}` }) },
  { route: 'DELETE /api/v1/projects/:id/images', access: 'images.delete', request: async (f) => ({ path: `/api/v1/projects/${f.project.id}/images`, body: { image_ids: [(await f.newImage()).id] } }) },
  { route: 'POST /api/v1/projects/:id/images/check-filename', access: 'images.upload', request: (f) => ({ path: `/api/v1/projects/${f.project.id}/images/check-filename${q({ org_id: f.org.id })}`, body: { filename: 'x.png' } }) },
  {
    route: 'POST /api/v1/projects/:id/images/upload-url',
    access: 'images.upload',
    request: (f) => ({ path: `/api/v1/projects/${f.project.id}/images/upload-url${q({ org_id: f.org.id })}`, body: { filename: `${f.unique('u')}.png`, content_type: 'image/png', folder_path: '/' } }),
  },
  {
    route: 'POST /api/v1/projects/:id/images/batch-upload-urls',
    access: 'images.upload',
    request: (f) => ({ path: `/api/v1/projects/${f.project.id}/images/batch-upload-urls${q({ org_id: f.org.id })}`, body: { files: [{ filename: `${f.unique('b')}.png`, content_type: 'image/png', folder_path: '/' }] } }),
  },
  {
    route: 'POST /api/v1/projects/:id/images/register',
    access: 'images.upload',
    request: async (f, c) => {
      // Those who may upload here register their own upload; for the others, the owner's waits.
      const up = await f.newUpload(c.sameOrg && roleCan(c.role, 'images.upload') ? (c.key ?? c.token) : undefined);
      return { path: `/api/v1/projects/${f.project.id}/images/register${q({ org_id: f.org.id })}`, body: { ...up, folder_path: '/', mime_type: 'image/png' } };
    },
  },
  { route: 'GET /api/v1/images/:id', access: 'images.read', request: (f) => ({ path: `/api/v1/images/${f.image.id}` }) },
  { route: 'PATCH /api/v1/images/:id/status', access: 'images.stage', request: async (f) => ({ path: `/api/v1/images/${(await f.newImage()).id}/status`, body: { status: 'complete' } }) },
  { route: 'GET /api/v1/images/:id/signed-url', access: 'images.read', request: (f) => ({ path: `/api/v1/images/${f.image.id}/signed-url` }) },
  { route: 'GET /api/v1/images/:id/tiles', access: 'images.read', request: (f) => ({ path: `/api/v1/images/${f.image.id}/tiles` }) },
  {
    route: 'POST /api/v1/images/batch-signed-urls',
    access: 'images.read',
    request: (f) => ({ path: `/api/v1/images/batch-signed-urls${q({ org_id: f.org.id })}`, body: { image_ids: [f.image.id] } }),
    // Ids the caller may not read are left out (missing_ids), never signed.
    verdict: (res) => (res.status !== 200 ? (res.status === 404 ? 'not_found' : 'other') : Object.keys(res.body.signed_urls).length === 1 ? 'allowed' : res.body.missing_ids?.length === 1 ? 'not_found' : 'other'),
  },

  // Folders (/api/folders)
  { route: 'GET /api/folders/list/:projectId', access: 'images.read', request: (f) => ({ path: `/api/folders/list/${f.project.id}` }) },
  { route: 'POST /api/folders/create', access: 'images.organize', request: (f) => ({ body: { project_id: f.project.id, name: f.unique('folder'), parent_folder_path: '/' } }) },
  { route: 'PATCH /api/folders/:folderId/name', access: 'images.organize', request: async (f) => ({ path: `/api/folders/${(await f.newFolder()).id}/name${q({ name: f.unique('renamed') })}` }) },
  { route: 'POST /api/folders/:folderId/move', access: 'images.organize', request: async (f) => ({ path: `/api/folders/${(await f.newFolder()).id}/move`, body: { target_parent_path: f.folder.full_path } }) },
  { route: 'DELETE /api/folders/:folderId', access: 'images.organize', request: async (f) => ({ path: `/api/folders/${(await f.newFolder()).id}` }) },

  // Batch images (/api/images/batch)
  { route: 'POST /api/images/batch/move', access: 'images.organize', request: async (f) => ({ body: { image_ids: [(await f.newImage()).id], target_folder_path: f.folder.full_path, project_id: f.project.id } }) },
  { route: 'PATCH /api/images/batch/update', access: 'images.stage', request: async (f) => ({ body: { image_ids: [(await f.newImage()).id], project_id: f.project.id, updates: { status: 'complete' } } }) },
  { route: 'DELETE /api/images/batch/delete', access: 'images.delete', request: async (f) => ({ body: { image_ids: [(await f.newImage()).id], project_id: f.project.id, delete_gcs_files: true } }) },

  // Usage
  { route: 'POST /api/v1/usage/annotation', access: 'usage.record', request: (f) => ({ body: { organization_id: f.org.id, project_id: f.project.id, annotation_type: 'bbox', annotation_count: 1 } }) },
  { route: 'GET /api/v1/usage/summary/:orgId', access: 'org.read', request: (f) => ({ path: `/api/v1/usage/summary/${f.org.id}` }) },

  // Annotations
  { route: 'GET /api/v1/annotations/load-data/:imageId', access: 'annotations.read', request: (f) => ({ path: `/api/v1/annotations/load-data/${f.image.id}${q({ project_id: f.project.id })}` }) },
  { route: 'GET /api/v1/annotations/load/:id', access: 'annotations.read', request: (f) => ({ path: `/api/v1/annotations/load/${f.image.id}${q({ project_id: f.project.id })}` }) },
  {
    route: 'POST /api/v1/annotations/save-data',
    access: 'annotations.write',
    request: async (f) => {
      const img = await f.newImage();
      return { body: { image_id: img.id, project_id: f.project.id, image_filename: img.filename, annotations: [{ id: 'a1', name: 'car', bounding_box: { x: 1, y: 1, w: 5, h: 5 } }] } };
    },
  },
  {
    route: 'POST /api/v1/annotations/save',
    access: 'annotations.write',
    request: async (f) => {
      const img = await f.newImage();
      return { body: { image_id: img.id, project_id: f.project.id, image_filename: img.filename, annotations: [] } };
    },
  },
  {
    route: 'POST /api/v1/annotations/save-changes',
    access: 'annotations.write',
    request: async (f) => {
      const img = await f.newImage();
      return { body: { image_id: img.id, project_id: f.project.id, image_filename: img.filename, base_version: 0, upserts: [{ id: 'a1', name: 'car', bounding_box: { x: 1, y: 1, w: 5, h: 5 } }], removed_ids: [] } };
    },
  },
  {
    route: 'POST /api/v1/annotations/batch-save-data',
    access: 'annotations.write',
    request: async (f) => {
      const img = await f.newImage();
      return { body: { saves: [{ image_id: img.id, project_id: f.project.id, image_filename: img.filename, annotations: [] }] } };
    },
    verdict: firstResult,
  },
  { route: 'PATCH /api/v1/annotations/status', access: 'images.stage', request: async (f) => ({ body: { image_id: (await f.newImage()).id, project_id: f.project.id, status: 'complete' } }) },
  { route: 'GET /api/v1/annotations/changes/:imageId', access: 'annotations.read', request: (f) => ({ path: `/api/v1/annotations/changes/${f.image.id}${q({ since: '0' })}` }) },
  { route: 'GET /api/v1/annotations/history/:imageId', access: 'annotations.read', request: (f) => ({ path: `/api/v1/annotations/history/${f.image.id}` }) },
  { route: 'GET /api/v1/annotations/version/:imageId', access: 'annotations.read', request: (f) => ({ path: `/api/v1/annotations/version/${f.image.id}${q({ version: '0' })}` }) },
  {
    route: 'POST /api/v1/annotations/restore',
    access: 'annotations.write',
    request: async (f) => {
      const img = await f.newSavedImage();
      return { body: { image_id: img.id, project_id: f.project.id, version: 0 } };
    },
  },
  { route: 'GET /api/v1/annotations/stats/:projectId', access: 'annotations.read', request: (f) => ({ path: `/api/v1/annotations/stats/${f.project.id}` }) },
  { route: 'POST /api/v1/annotations/export', access: 'images.export', request: (f) => ({ body: { project_id: f.project.id, image_ids: [f.image.id], format: 'vellum' } }) },
  { route: 'POST /api/v1/annotations/export/count', access: 'images.export', request: (f) => ({ body: { project_id: f.project.id, scope: 'all' } }) },
  { route: 'GET /api/v1/annotations/export/progress', access: 'images.export', request: (f) => ({ path: `/api/v1/annotations/export/progress${q({ project_id: f.project.id, progress_id: '00000000-0000-4000-8000-000000000000' })}` }) },

  // Assisted segmentation (/api/v1/auto-annotate/sam2)
  {
    route: 'GET /api/v1/auto-annotate/sam2/batch-image-metadata/:projectId',
    access: 'annotations.read',
    request: (f) => ({ path: `/api/v1/auto-annotate/sam2/batch-image-metadata/${f.project.id}${q({ org_id: f.org.id })}` }),
  },
  { route: 'POST /api/v1/auto-annotate/sam2/warmup', access: 'annotations.read', request: (f) => ({ path: `/api/v1/auto-annotate/sam2/warmup${q({ org_id: f.org.id })}` }) },
  { route: 'GET /api/v1/auto-annotate/sam2/health', access: 'annotations.read', request: (f) => ({ path: `/api/v1/auto-annotate/sam2/health${q({ org_id: f.org.id })}` }) },
  { route: 'POST /api/v1/auto-annotate/sam2/process-image', access: 'annotations.write', request: (f) => ({ body: { project_id: f.project.id, image_name: f.image.filename } }) },
  { route: 'POST /api/v1/auto-annotate/sam2/get-mask', access: 'annotations.write', request: (f) => ({ body: { project_id: f.project.id, image_name: f.image.filename, x: 5, y: 5 } }) },
  {
    route: 'POST /api/v1/auto-annotate/sam2/save-segmentation',
    access: 'annotations.write',
    request: async (f) => ({
      body: { project_id: f.project.id, image_name: (await f.newImage()).filename, class_name: 'car', vellum_annotation: { polygon: { path: [[1, 1], [8, 1], [8, 8], [1, 8]], holes: [] } } },
    }),
  },

  // Magic Image Edit (/api/v1/image-edit)
  { route: 'POST /api/v1/image-edit/edit', access: 'images.edit', request: (f) => ({ body: { project_id: f.project.id, image_names: [f.image.filename], prompt: 'brighter', current_folder_path: '/' } }) },
  { route: 'GET /api/v1/image-edit/status/:id', access: 'images.read', request: async (f) => ({ path: `/api/v1/image-edit/status/${(await f.newEditJob()).id}` }) },
  { route: 'GET /api/v1/image-edit/health', access: 'self' },

  // Dataset imports (issue 17)
  { route: 'POST /api/v1/projects/:project_id/imports', access: 'annotations.write', request: (f) => ({ path: `/api/v1/projects/${f.project.id}/imports`, body: { filename: 'labels.json', size: 100 } }) },
  { route: 'GET /api/v1/projects/:project_id/imports', access: 'images.read', request: (f) => ({ path: `/api/v1/projects/${f.project.id}/imports` }) },
  { route: 'POST /api/v1/imports/:import_id/start', access: 'annotations.write', request: async (f) => ({ path: `/api/v1/imports/${(await f.newImport()).id}/start` }) },
  { route: 'GET /api/v1/imports/:import_id', access: 'images.read', request: async (f) => ({ path: `/api/v1/imports/${(await f.newImport(false)).id}` }) },
  // Cancel (issue 30): the fixture's import is uploaded, not started, so a role that may cancel gets 409 import_not_active (past the role check; 200 for queued or running ones is in import-limits.test.ts).
  { route: 'POST /api/v1/imports/:import_id/cancel', access: 'annotations.write', ok: [409], request: async (f) => ({ path: `/api/v1/imports/${(await f.newImport()).id}/cancel` }) },

  // Team workflow (issue 29): assign, the queue, submit and review, activity, issues
  { route: 'POST /api/v1/images/assign', access: 'images.assign', request: async (f) => ({ body: { image_ids: [(await f.newImage()).id], reviewer_id: null } }) },
  { route: 'POST /api/v1/projects/:id/queue/next', access: 'annotations.write', request: (f) => ({ path: `/api/v1/projects/${f.project.id}/queue/next`, body: { role: 'annotate' } }) },
  { route: 'POST /api/v1/images/:id/submit', access: 'annotations.write', request: async (f) => ({ path: `/api/v1/images/${(await f.newImage()).id}/submit` }) },
  { route: 'POST /api/v1/images/:id/review', access: 'images.review', request: async (f) => ({ path: `/api/v1/images/${(await f.newImageInReview()).id}/review`, body: { decision: 'reject', comment: 'Redo it' } }) },
  { route: 'GET /api/v1/images/:id/activity', access: 'images.read', request: (f) => ({ path: `/api/v1/images/${f.image.id}/activity` }) },
  { route: 'POST /api/v1/images/:id/issues', access: 'issues.write', request: (f) => ({ path: `/api/v1/images/${f.image.id}/issues`, body: { body: 'Look here', region: { x: 1, y: 1, w: 2, h: 2 } } }) },
  { route: 'GET /api/v1/images/:id/issues', access: 'images.read', request: (f) => ({ path: `/api/v1/images/${f.image.id}/issues` }) },
  { route: 'POST /api/v1/issues/:id/comments', access: 'issues.write', request: async (f) => ({ path: `/api/v1/issues/${(await f.newIssue()).id}/comments`, body: { body: 'Agreed' } }) },
  { route: 'PATCH /api/v1/issues/:id', access: 'issues.write', request: async (f) => ({ path: `/api/v1/issues/${(await f.newIssue()).id}`, body: { status: 'resolved' } }) },

  // Models (issue 34): everyone lists, owners and admins manage. Activating the fixture's model, whose file was never uploaded, is 409 model_not_uploaded past the role check.
  { route: 'GET /api/v1/models', access: 'org.read', request: (f) => ({ path: `/api/v1/models${q({ organization_id: f.org.id })}` }) },
  { route: 'POST /api/v1/models', access: 'org.manage', request: (f) => ({ body: { organization_id: f.org.id, name: 'Detector', source: 'onnx', filename: 'yolo.onnx', size: 1000 } }) },
  { route: 'POST /api/v1/models/:id/activate', access: 'org.manage', ok: [409], request: async (f) => ({ path: `/api/v1/models/${(await f.newModel()).id}/activate` }) },
  { route: 'DELETE /api/v1/models/:id', access: 'org.manage', request: async (f) => ({ path: `/api/v1/models/${(await f.newModel()).id}` }) },
  // Pre-label jobs (issue 34): owners, admins and reviewers (images.review). The fixture's job may have ended before the cancel: 409 prelabel_finished past the role check.
  { route: 'POST /api/v1/projects/:id/prelabel', access: 'images.review', request: async (f) => ({ path: `/api/v1/projects/${f.project.id}/prelabel`, body: { model_id: 'builtin-coco-centernet', folder_path: (await f.newFolder()).full_path } }) },
  { route: 'GET /api/v1/prelabel/:job_id', access: 'images.review', request: async (f) => ({ path: `/api/v1/prelabel/${(await f.newPrelabelJob()).id}` }) },
  { route: 'POST /api/v1/prelabel/:job_id/cancel', access: 'images.review', ok: [409], request: async (f) => ({ path: `/api/v1/prelabel/${(await f.newPrelabelJob()).id}/cancel` }) },

  // Analytics (issue 36): owners, admins and reviewers see everyone, annotators themselves (annotations.write), viewers 403.
  { route: 'GET /api/v1/projects/:id/analytics', access: 'annotations.write', request: (f) => ({ path: `/api/v1/projects/${f.project.id}/analytics${q({ bucket: 'week' })}` }) },
  // Ground truth (issue 36 §2): reviewers, admins and owners mark it (images.review). Turning it off is valid on any image; on needs a complete one.
  { route: 'GET /api/v1/images/:id/ground-truth', access: 'images.review', request: (f) => ({ path: `/api/v1/images/${f.image.id}/ground-truth` }) },
  { route: 'POST /api/v1/images/:id/ground-truth', access: 'images.review', request: (f) => ({ path: `/api/v1/images/${f.image.id}/ground-truth`, body: { enabled: false } }) },
  // Consensus (issue 36 §3): reviewers, admins and owners read an image's drafts and merge them (images.review). The fixture's image is not overlapped: its merge is 409 not_overlapped past the role check.
  { route: 'GET /api/v1/images/:id/drafts', access: 'images.review', request: (f) => ({ path: `/api/v1/images/${f.image.id}/drafts` }) },
  { route: 'POST /api/v1/images/:id/merge', access: 'images.review', ok: [409], request: (f) => ({ path: `/api/v1/images/${f.image.id}/merge`, body: { annotations: [] } }) },
];
