// The product API client (spec section 7). One function per call, typed by the zod schemas in
// src/contract. Failures throw ApiRequestError ('API Error: {status} {body}') carrying the
// server's parsed {error, code} so screens can show the server's message.
import { z } from 'zod';
import {
  CurrentUserResponse,
  DebugResponse,
  FixBucketResponse,
  OnboardingResponse,
  OrganizationResponse,
  OrganizationsResponse,
  Profile,
} from '../../contract/account';
import { DeleteProjectResponse, ProjectResponse, ProjectsResponse, type AnnotationType, type ProjectClass } from '../../contract/projects';
import {
  BatchDeleteResponse,
  BatchMoveResponse,
  BatchSignedUrlsResponse,
  BatchUpdateResponse,
  CheckFilenameResponse,
  ListImagesResponse,
  RegisterImageResponse,
  UpdateStatusResponse,
  UploadUrlResult,
  type ImageStatus,
  type ListSortField,
} from '../../contract/images';
import { DeleteFolderResponse, FolderResponse, ListFoldersResponse, RelocateFolderResponse } from '../../contract/folders';
import type { Role } from '../../contract/account';
import {
  AcceptInviteResponse,
  ApiKeysResponse,
  ClearReactivationResponse,
  CreateApiKeyResponse,
  CreateInviteResponse,
  DeleteAccountResponse,
  DeleteApiKeyResponse,
  InvitePreviewResponse,
  InvitesResponse,
  MemberResponse,
  MembersResponse,
  RemoveMemberResponse,
} from '../../contract/teams';
import { CreateImportResponse, ImportJob, ListImportsResponse, StartImportResponse, type ImportFormat } from '../../contract/imports';
import { RecordAnnotationUsageResponse, UsageSummaryResponse, type UsageAnnotationType } from '../../contract/usage';
import { AnnotationStatsResponse } from '../../contract/annotation-api';
import { PreferencesResponse, type UserPreferences } from '../../contract/preferences';
import { getConfig, getSupabase, loadConfig } from './supabase';
import { nextTask } from '../../engine';

const BASE = '/api/v1';

const ProfileEnvelope = z.object({ profile: Profile });

export class ApiRequestError extends Error {
  readonly status: number;
  readonly body: string;
  /** The server's readable message, when the body was the standard error shape. */
  readonly error: string | null;
  readonly code: string | null;
  readonly data: Record<string, unknown> | null;

  constructor(status: number, body: string) {
    super(`API Error: ${status} ${body}`);
    this.name = 'ApiRequestError';
    this.status = status;
    this.body = body;
    let data: Record<string, unknown> | null = null;
    try {
      const parsed: unknown = JSON.parse(body);
      if (parsed && typeof parsed === 'object') data = parsed as Record<string, unknown>;
    } catch {
      /* not JSON */
    }
    this.data = data;
    this.error = typeof data?.error === 'string' ? data.error : typeof data?.message === 'string' ? data.message : null;
    this.code = typeof data?.code === 'string' ? data.code : null;
  }
}

export function isApiError(err: unknown): err is ApiRequestError {
  return err instanceof ApiRequestError;
}

/** The server's message for a failed call, else the fallback (never a raw 'API Error: ...'). */
export function serverMessage(err: unknown, fallback: string): string {
  if (isApiError(err) && err.error && err.status < 500) return err.error;
  return fallback;
}

/** True for the failures the session treats as 'not signed in yet' (spec section 8). */
export function isAuthFailure(err: unknown): boolean {
  if (isApiError(err) && err.status === 401) return true;
  const message = err instanceof Error ? err.message : String(err);
  return message.includes('Invalid or expired token');
}

/** The headers every product API call carries: the anon key and, when signed in, the access token. */
export async function authHeaders(): Promise<Record<string, string>> {
  const config = getConfig() ?? (await loadConfig());
  const headers: Record<string, string> = { apikey: config.supabaseAnonKey };
  const supabase = await getSupabase();
  const { data } = await supabase.auth.getSession();
  if (data.session?.access_token) headers.authorization = `Bearer ${data.session.access_token}`;
  return headers;
}

function checked<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  // Keep working with what the server sent, but say loudly that the contract drifted.
  console.warn(`Unexpected response shape for ${what}`, parsed.error.issues);
  return value as z.infer<S>;
}

type RefusalListener = (status: 403 | 404) => void;
const refusalListeners = new Set<RefusalListener>();

/**
 * Listens to the product API refusing a call (403, 404) from any caller: the surest sign that the
 * member's role or membership changed. /users/me is left out (it is how the change is read).
 */
export function onApiRefusal(listener: RefusalListener): () => void {
  refusalListeners.add(listener);
  return () => refusalListeners.delete(listener);
}

/** fetch for the product API: every call of the app goes through it, so refusals are heard. */
export async function apiFetch(url: string, init?: RequestInit): Promise<Response> {
  const res = await fetch(url, init);
  if ((res.status === 403 || res.status === 404) && !url.startsWith(`${BASE}/users/me`)) {
    for (const listener of refusalListeners) listener(res.status);
  }
  return res;
}

/** Folders (/api/folders) and batch images (/api/images/batch) live outside /api/v1 (spec section 7). */
const apiUrl = (path: string): string => (path.startsWith('/api/') ? path : `${BASE}${path}`);

export async function request<S extends z.ZodType>(method: string, path: string, schema: S, body?: unknown, init: { signal?: AbortSignal } = {}): Promise<z.infer<S>> {
  const url = apiUrl(path);
  const headers: Record<string, string> = { accept: 'application/json', ...(await authHeaders()) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await apiFetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: init.signal });
  const text = await res.text();
  if (!res.ok) throw new ApiRequestError(res.status, text);
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    throw new ApiRequestError(res.status, text);
  }
  return checked(schema, json, `${method} ${path}`);
}

/**
 * A GET whose successful body the caller parses itself (a large document parsed in slices, so
 * JSON.parse of megabytes is not one long main-thread task). Failures throw ApiRequestError as
 * request() does.
 */
export async function requestText(path: string, init: { signal?: AbortSignal } = {}): Promise<string> {
  const res = await apiFetch(apiUrl(path), { method: 'GET', headers: { accept: 'application/json', ...(await authHeaders()) }, signal: init.signal });
  const text = await readTextInChunks(res);
  if (!res.ok) throw new ApiRequestError(res.status, text);
  return text;
}

/**
 * The body as text, decoded chunk by chunk as it arrives: Response.text() decodes a 10 MB body in
 * one main-thread task of 100-250 ms, a chunk of the stream costs well under a millisecond.
 */
const READ_SLICE_MS = 6;

async function readTextInChunks(res: Response): Promise<string> {
  if (!res.body) return res.text();
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let sliceStart = performance.now();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(decoder.decode(value, { stream: true }));
    // Chunks already received resolve reads at once, all inside one task: hand the thread back
    // now and then, so a 10 MB body that arrived in one go is still read in short tasks.
    if (performance.now() - sliceStart > READ_SLICE_MS) {
      await nextTask();
      sliceStart = performance.now();
    }
  }
  parts.push(decoder.decode());
  return parts.join('');
}

const enc = encodeURIComponent;

export const api = {
  // Account and organization
  getMe: () => request('GET', '/users/me', CurrentUserResponse),
  updateMe: (patch: { full_name?: string; default_organization_id?: string }) =>
    request('PATCH', '/users/me', ProfileEnvelope, patch),
  getPreferences: () => request('GET', '/users/me/preferences', PreferencesResponse),
  savePreferences: (preferences: UserPreferences) => request('PUT', '/users/me/preferences', PreferencesResponse, preferences),
  onboarding: (input: { full_name: string; organization_name: string; organization_slug: string }) =>
    request('POST', '/users/onboarding', OnboardingResponse, input),
  listOrganizations: () => request('GET', '/organizations', OrganizationsResponse),
  getOrganization: (id: string) => request('GET', `/organizations/${enc(id)}`, OrganizationResponse),
  fixBucket: (id: string) => request('POST', `/organizations/${enc(id)}/fix-bucket`, FixBucketResponse),
  debugOrganization: (id: string) => request('GET', `/organizations/${enc(id)}/debug`, DebugResponse),

  // Projects
  listProjects: (orgId: string) => request('GET', `/projects/organization/${enc(orgId)}`, ProjectsResponse),
  createProject: (input: { organization_id: string; name: string; description: string | null; annotation_types: AnnotationType[]; classes: ProjectClass[] }) =>
    request('POST', '/projects', ProjectResponse, input),
  getProject: (id: string) => request('GET', `/projects/${enc(id)}`, ProjectResponse),
  updateProject: (id: string, patch: { name?: string; description?: string | null; classes?: ProjectClass[] }) =>
    request('PATCH', `/projects/${enc(id)}`, ProjectResponse, patch),
  deleteProject: (id: string) => request('DELETE', `/projects/${enc(id)}`, DeleteProjectResponse),

  // Usage (spec section 7 'Projects and usage'): the editor records the annotations it creates.
  recordAnnotationUsage: (input: { organization_id: string; project_id: string; image_id?: string | null; annotation_type: UsageAnnotationType; annotation_count: number }) =>
    request('POST', '/usage/annotation', RecordAnnotationUsageResponse, input),

  // Images
  listImages: (projectId: string, q: ListImagesParams) => request('GET', `/projects/${enc(projectId)}/images?${query(q)}`, ListImagesResponse),
  /** Shapes per kind and class, images per class (issue 32: the Data tab's class panel); archived images left out. */
  annotationStats: (projectId: string) => request('GET', `/annotations/stats/${enc(projectId)}`, AnnotationStatsResponse),
  checkFilename: (projectId: string, orgId: string, filename: string) =>
    request('POST', `/projects/${enc(projectId)}/images/check-filename?org_id=${enc(orgId)}`, CheckFilenameResponse, { filename }),
  uploadUrl: (projectId: string, orgId: string, file: { filename: string; content_type: string; folder_path: string }) =>
    request('POST', `/projects/${enc(projectId)}/images/upload-url?org_id=${enc(orgId)}`, UploadUrlResult, { ...file, expiration_minutes: 15 }),
  registerImage: (
    projectId: string,
    orgId: string,
    input: { filename: string; gcs_bucket: string; gcs_path: string; gcs_uri: string; folder_path: string; file_size: number; mime_type: string; width: number | null; height: number | null },
  ) => request('POST', `/projects/${enc(projectId)}/images/register?org_id=${enc(orgId)}`, RegisterImageResponse, input),
  updateImageStatus: (imageId: string, orgId: string, status: ImageStatus) =>
    request('PATCH', `/images/${enc(imageId)}/status?org_id=${enc(orgId)}`, UpdateStatusResponse, { status }),
  batchSignedUrls: (orgId: string, imageIds: string[], variant: 'original' | 'thumbnail' = 'thumbnail') =>
    request('POST', `/images/batch-signed-urls?org_id=${enc(orgId)}`, BatchSignedUrlsResponse, { image_ids: imageIds, expiration_minutes: 60, variant }),

  // Folders (base /api/folders)
  listFolders: (projectId: string, orgId: string) => request('GET', `/api/folders/list/${enc(projectId)}?org_id=${enc(orgId)}`, ListFoldersResponse),
  createFolder: (projectId: string, parentPath: string, name?: string) =>
    request('POST', '/api/folders/create', FolderResponse, { project_id: projectId, parent_folder_path: parentPath, name: name ?? null }),
  renameFolder: (folderId: string, name: string) => request('PATCH', `/api/folders/${enc(folderId)}/name?name=${enc(name)}`, RelocateFolderResponse),
  moveFolder: (folderId: string, targetParentPath: string) =>
    request('POST', `/api/folders/${enc(folderId)}/move`, RelocateFolderResponse, { target_parent_path: targetParentPath }),
  deleteFolder: (folderId: string) => request('DELETE', `/api/folders/${enc(folderId)}?contents=refuse`, DeleteFolderResponse),

  // Batch images (base /api/images/batch)
  batchMove: (projectId: string, imageIds: string[], targetFolderPath: string) =>
    request('POST', '/api/images/batch/move', BatchMoveResponse, { image_ids: imageIds, target_folder_path: targetFolderPath, project_id: projectId }),
  batchUpdate: (projectId: string, imageIds: string[], updates: { status?: ImageStatus; is_archived?: boolean; cycle?: true }) =>
    request('PATCH', '/api/images/batch/update', BatchUpdateResponse, { image_ids: imageIds, project_id: projectId, updates }),
  batchDelete: (projectId: string, imageIds: string[]) =>
    request('DELETE', '/api/images/batch/delete', BatchDeleteResponse, { image_ids: imageIds, project_id: projectId, delete_gcs_files: true }),

  // Dataset imports (issue 17)
  createImport: (projectId: string, input: { filename: string; size: number; format: 'auto' | ImportFormat; folder_path: string }) =>
    request('POST', `/projects/${enc(projectId)}/imports`, CreateImportResponse.extend({ content_type: z.string() }), input),
  startImport: (importId: string) => request('POST', `/imports/${enc(importId)}/start`, StartImportResponse),
  getImport: (importId: string, signal?: AbortSignal) => request('GET', `/imports/${enc(importId)}`, ImportJob, undefined, { signal }),
  listImports: (projectId: string) => request('GET', `/projects/${enc(projectId)}/imports`, ListImportsResponse),
};

export interface ListImagesParams {
  org_id: string;
  folder_path?: string;
  page: number;
  limit: number;
  sort_by: ListSortField;
  sort_order: 'asc' | 'desc';
  status?: ImageStatus;
  /** File-name search (every folder when folder_path is absent). */
  search?: string;
  is_archived?: 'true' | 'false' | 'all';
  /** A member's id, 'me' or 'none' (issue 29). */
  assignee?: string;
  /** Annotation filters (issue 32): classes (any of them; repeated in the query), with or without annotations, a count range. */
  class?: string[];
  has_annotations?: 'true' | 'false';
  min_annotations?: number;
  max_annotations?: number;
  /** Images with (or without) a model's pending predictions (issue 34). */
  has_pending_predictions?: 'true' | 'false';
  /** Keyset paging: the images after this one in the same filters and order (pagination.nextCursor). */
  after?: string;
}

/** A query string; a list repeats its key (class=a&class=b). */
function query(params: object): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (Array.isArray(v)) for (const one of v) q.append(k, String(one));
    else if (v !== undefined && v !== null) q.set(k, String(v));
  }
  return q.toString();
}

// Teams (issue 6): members, invites, API keys, usage, account deletion.
export const teamApi = {
  listMembers: (orgId: string) => request('GET', `/organizations/${enc(orgId)}/members`, MembersResponse),
  changeRole: (orgId: string, userId: string, role: Role) => request('PATCH', `/organizations/${enc(orgId)}/members/${enc(userId)}`, MemberResponse, { role }),
  removeMember: (orgId: string, userId: string) => request('DELETE', `/organizations/${enc(orgId)}/members/${enc(userId)}`, RemoveMemberResponse),
  leave: (orgId: string) => request('POST', `/organizations/${enc(orgId)}/leave`, RemoveMemberResponse),
  listInvites: (orgId: string) => request('GET', `/organizations/${enc(orgId)}/invites`, InvitesResponse),
  createInvite: (orgId: string, email: string, role: Role) => request('POST', `/organizations/${enc(orgId)}/invites`, CreateInviteResponse, { email, role }),
  revokeInvite: (orgId: string, inviteId: string) => request('DELETE', `/organizations/${enc(orgId)}/invites/${enc(inviteId)}`, RemoveMemberResponse),
  previewInvite: (token: string) => request('GET', `/invites/${enc(token)}`, InvitePreviewResponse),
  acceptInvite: (token: string) => request('POST', `/invites/${enc(token)}/accept`, AcceptInviteResponse),
  listApiKeys: (orgId: string) => request('GET', `/api-keys?organization_id=${enc(orgId)}`, ApiKeysResponse),
  createApiKey: (orgId: string, name: string, role?: Role) => request('POST', '/api-keys', CreateApiKeyResponse, { organization_id: orgId, name, ...(role ? { role } : {}) }),
  deleteApiKey: (id: string) => request('DELETE', `/api-keys/${enc(id)}`, DeleteApiKeyResponse),
  usageSummary: (orgId: string) => request('GET', `/usage/summary/${enc(orgId)}`, UsageSummaryResponse),
  deleteAccount: () => request('DELETE', '/users/me', DeleteAccountResponse),
  clearReactivation: () => request('DELETE', '/users/me/reactivation', ClearReactivationResponse),
};
