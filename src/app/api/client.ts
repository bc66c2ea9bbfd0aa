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
import { getConfig, getSupabase, loadConfig } from './supabase';

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

async function authHeaders(): Promise<Record<string, string>> {
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

export async function request<S extends z.ZodType>(method: string, path: string, schema: S, body?: unknown): Promise<z.infer<S>> {
  const headers: Record<string, string> = { accept: 'application/json', ...(await authHeaders()) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${BASE}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
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

const enc = encodeURIComponent;

export const api = {
  // Account and organization
  getMe: () => request('GET', '/users/me', CurrentUserResponse),
  updateMe: (patch: { full_name?: string; default_organization_id?: string }) =>
    request('PATCH', '/users/me', ProfileEnvelope, patch),
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
};
