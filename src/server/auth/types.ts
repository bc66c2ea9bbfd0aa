// What the rest of the server needs from identity, whichever mode runs it:
// - embedded: our GoTrue-compatible service at /auth/v1 (src/server/auth/embedded/...)
// - supabase: hosted Supabase Auth; we only verify its tokens.
import type { FastifyInstance } from 'fastify';

export interface AuthUser {
  id: string;
  email: string;
  /** GoTrue's session_id claim; null for tokens without one (for example service tokens). */
  sessionId: string | null;
  role: string;
  userMetadata: Record<string, unknown>;
}

/** A GoTrue session as /auth/v1/token answers it. */
export interface AuthSession {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  expires_at: number;
  refresh_token: string;
  user: Record<string, unknown>;
}

/** Who is calling, for session records and sign-in throttling (pass request.ip and the user agent). */
export interface ClientInfo {
  ip?: string | null;
  userAgent?: string | null;
}

export interface AuthProvider {
  mode: 'embedded' | 'supabase';
  /** What the SPA passes to createClient(url, anonKey). */
  supabaseUrl: string;
  anonKey: string;
  /** Verifies a bearer access token for the product API. Throws ApiError 401 when it is missing, bad, expired or signed out. */
  verifyAccessToken(token: string): Promise<AuthUser>;
  /** Embedded mode: whether the session is live in the database, past any cache (a deletion in
   * another server process is seen at once). Hosted mode cannot know and has no such check. */
  sessionIsLive?(sessionId: string, userId: string): Promise<boolean>;
  /** Thin wrappers used by POST /api/v1/auth/signup and /auth/signin. Throw ApiError with GoTrue's message. */
  signUp(input: { email: string; password: string; full_name: string }, client?: ClientInfo): Promise<{ user: Record<string, unknown>; session: AuthSession | null }>;
  signIn(input: { email: string; password: string }, client?: ClientInfo): Promise<AuthSession>;
  /** Mounts /auth/v1 (embedded mode only). */
  registerRoutes(app: FastifyInstance): Promise<void>;
  /** Embedded mode: ends every session of the token's account at once (account deletion), so its
   * tokens stop working. Hosted mode cannot be told to; the guard refuses tokens issued before the
   * deletion instead. */
  endAllSessions?(accessToken: string): Promise<void>;
  /** Deactivates an account: its sessions end and its tokens stop working. */
  deleteUser(userId: string): Promise<void>;
  close(): Promise<void>;
}
