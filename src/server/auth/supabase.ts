// Hosted Supabase Auth (SUPABASE_URL): the SPA talks to it directly; we verify its access tokens
// (HS256 secret or the project's JWKS) and call its HTTP API for the product's auth wrappers.
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { Config } from '../config';
import { ApiError, apiError, errors } from '../errors';
import type { AuthProvider, AuthSession, AuthUser } from './types';

type HostedConfig = Extract<Config['auth'], { kind: 'supabase' }>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function createSupabaseAuth(cfg: HostedConfig): AuthProvider {
  const base = `${cfg.url}/auth/v1`;
  const issuer = base;
  const secret = cfg.jwtSecret ? new TextEncoder().encode(cfg.jwtSecret) : null;
  const jwks: JWTVerifyGetKey | null = !secret && cfg.jwksUrl ? createRemoteJWKSet(new URL(cfg.jwksUrl), { cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000 }) : null;

  async function call(method: string, path: string, body: unknown, key = cfg.anonKey): Promise<Record<string, unknown>> {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: { apikey: key, authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-supabase-api-version': '2024-01-01' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
    } catch {
      throw errors.unavailable('The identity service cannot be reached');
    }
    const text = await res.text();
    let data: unknown = null;
    try {
      data = text ? JSON.parse(text) : {};
    } catch {
      /* not JSON */
    }
    if (!res.ok) {
      // GoTrue's error shapes (see gotrue-errors.ts), passed on with the same status and code.
      const d = isObject(data) ? data : {};
      const code = typeof d.code === 'string' ? d.code : typeof d.error_code === 'string' ? d.error_code : typeof d.error === 'string' ? d.error : 'auth_error';
      const message =
        typeof d.msg === 'string' ? d.msg : typeof d.message === 'string' ? d.message : typeof d.error_description === 'string' ? d.error_description : `Identity service error ${res.status}`;
      const status = res.status >= 500 ? 502 : res.status;
      throw new ApiError(status, code, message, isObject(d.weak_password) ? { weak_password: d.weak_password } : {});
    }
    return isObject(data) ? data : {};
  }

  const asSession = (d: Record<string, unknown>): AuthSession | null =>
    typeof d.access_token === 'string' && typeof d.refresh_token === 'string'
      ? {
          access_token: d.access_token,
          token_type: 'bearer',
          expires_in: Number(d.expires_in ?? 3600),
          expires_at: Number(d.expires_at ?? Math.floor(Date.now() / 1000) + Number(d.expires_in ?? 3600)),
          refresh_token: d.refresh_token,
          user: isObject(d.user) ? d.user : {},
        }
      : null;

  return {
    mode: 'supabase',
    supabaseUrl: cfg.url,
    anonKey: cfg.anonKey,

    async verifyAccessToken(token: string): Promise<AuthUser> {
      let payload: Record<string, unknown>;
      try {
        // A token without `exp` would never stop working: refused like an expired one.
        const opts = { audience: 'authenticated', issuer, requiredClaims: ['exp'] };
        payload = secret ? (await jwtVerify(token, secret, { ...opts, algorithms: ['HS256'] })).payload : (await jwtVerify(token, jwks!, opts)).payload;
      } catch {
        throw errors.unauthorized('Invalid or expired token', 'bad_jwt');
      }
      if (payload.role !== 'authenticated' || typeof payload.sub !== 'string' || !payload.sub) throw errors.unauthorized('Invalid or expired token', 'bad_jwt');
      return {
        id: payload.sub,
        email: typeof payload.email === 'string' ? payload.email : '',
        sessionId: typeof payload.session_id === 'string' ? payload.session_id : null,
        role: 'authenticated',
        userMetadata: isObject(payload.user_metadata) ? payload.user_metadata : {},
      };
    },

    async signUp(input) {
      const d = await call('POST', '/signup', { email: input.email, password: input.password, data: { full_name: input.full_name } });
      const session = asSession(d);
      return { user: session ? session.user : d, session };
    },

    async signIn(input) {
      const session = asSession(await call('POST', '/token?grant_type=password', { email: input.email, password: input.password }));
      if (!session) throw errors.unavailable('The identity service answered without a session');
      return session;
    },

    async registerRoutes() {
      // The hosted service serves /auth/v1 itself.
    },

    async deleteUser(userId: string) {
      if (!cfg.serviceRoleKey) {
        throw apiError('auth_admin_not_configured', 'Deleting accounts with hosted Supabase Auth needs SUPABASE_SERVICE_ROLE_KEY in the server configuration');
      }
      try {
        await call('DELETE', `/admin/users/${encodeURIComponent(userId)}`, {}, cfg.serviceRoleKey);
      } catch (err) {
        // Already gone is what we wanted.
        if (err instanceof ApiError && err.status === 404) return;
        throw err;
      }
    },

    async close() {},
  };
}
