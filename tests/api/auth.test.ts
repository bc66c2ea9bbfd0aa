// The embedded identity service (/auth/v1) driven by @supabase/supabase-js itself, as the SPA uses
// it, plus the product API's view of the same tokens.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { SignJWT, decodeJwt } from 'jose';
import { eq } from 'drizzle-orm';
import { api, startServer, uniqueEmail, type TestServer } from './harness';
import { authRefreshTokens, authUsers } from '../../src/server/db/schema';
import type { EmbeddedAuthProvider } from '../../src/server/auth';
import { ApiError } from '../../src/server/errors';

const SECRET = 'test-jwt-secret-for-the-embedded-auth-service-0123456789';
let server: TestServer;
let auth: EmbeddedAuthProvider;

function client(key = auth.anonKey): SupabaseClient {
  const store = new Map<string, string>();
  return createClient(server.url, key, {
    auth: {
      persistSession: false,
      autoRefreshToken: false,
      detectSessionInUrl: false,
      flowType: 'pkce',
      storage: { getItem: (k) => store.get(k) ?? null, setItem: (k, v) => void store.set(k, v), removeItem: (k) => void store.delete(k) },
    },
    // Node 20 has no global WebSocket; realtime is never used here.
    realtime: { transport: WebSocket as never },
  });
}

async function newUser(opts: { fullName?: string; password?: string } = {}) {
  const email = uniqueEmail('auth');
  const password = opts.password ?? 'first password';
  const sb = client();
  const { data, error } = await sb.auth.signUp({ email, password, options: { data: { full_name: opts.fullName ?? 'Ada Lovelace' } } });
  expect(error).toBeNull();
  return { sb, email, password, session: data.session!, user: data.user! };
}

/** GET /api/v1/users/me: a product route behind the auth guard. */
const me = (token: string) => api(server.url, 'GET', '/api/v1/users/me', { token });

async function rejectsToken(token: string): Promise<ApiError> {
  try {
    await server.built.ctx.auth.verifyAccessToken(token);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(401);
    return err as ApiError;
  }
  throw new Error('token was accepted');
}

beforeAll(async () => {
  // The throttle test below speaks through a proxy on this machine that forwards the client's address.
  server = await startServer({ SUPABASE_JWT_SECRET: SECRET, TRUST_PROXY: '127.0.0.1, ::1' });
  auth = server.built.ctx.auth as EmbeddedAuthProvider;
});
afterAll(async () => {
  await server?.stop();
});

describe('settings and keys', () => {
  it('describes the enabled providers like GoTrue', async () => {
    const res = await api(server.url, 'GET', '/auth/v1/settings');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ external: { email: true, google: false, phone: false }, disable_signup: false, mailer_autoconfirm: true });
  });

  it('hands out an anon key and keeps the service_role key out of the SPA config', async () => {
    expect(decodeJwt(auth.anonKey)).toMatchObject({ role: 'anon', iss: 'supabase' });
    expect(decodeJwt(auth.serviceRoleKey)).toMatchObject({ role: 'service_role' });
    const config = await api(server.url, 'GET', '/api/v1/config');
    expect(config.body.supabaseAnonKey).toBe(auth.anonKey);
    expect(JSON.stringify(config.body)).not.toContain(auth.serviceRoleKey);
  });

  it('refuses API keys as user tokens', async () => {
    expect((await rejectsToken(auth.anonKey)).code).toBe('bad_jwt');
    await rejectsToken(auth.serviceRoleKey);
    expect((await me(auth.anonKey)).status).toBe(401);
  });
});

describe('sign-up', () => {
  it('creates a confirmed account with its metadata and answers a session', async () => {
    const email = `Mixed.Case-${Date.now()}@Example.COM`;
    const { data, error } = await client().auth.signUp({ email, password: 'sufficient', options: { data: { full_name: 'Grace Hopper' } } });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ email: email.toLowerCase(), aud: 'authenticated', role: 'authenticated', user_metadata: { full_name: 'Grace Hopper' }, app_metadata: { provider: 'email', providers: ['email'] } });
    expect(data.user!.email_confirmed_at).toBeTruthy();
    expect(data.user!.identities).toHaveLength(1);
    expect(data.session!.token_type).toBe('bearer');
    expect(data.session!.expires_in).toBe(3600);

    const claims = decodeJwt(data.session!.access_token);
    expect(claims).toMatchObject({
      iss: `${server.url}/auth/v1`,
      sub: data.user!.id,
      aud: 'authenticated',
      role: 'authenticated',
      email: email.toLowerCase(),
      phone: '',
      app_metadata: { provider: 'email', providers: ['email'] },
      user_metadata: { full_name: 'Grace Hopper' },
      aal: 'aal1',
      is_anonymous: false,
    });
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(claims.session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect((claims.amr as { method: string }[])[0].method).toBe('password');

    // Stored: an argon2id hash, and only a hash of the refresh token.
    const [row] = await server.built.ctx.db.select().from(authUsers).where(eq(authUsers.id, data.user!.id));
    expect(row.encryptedPassword).toMatch(/^\$argon2id\$/);
    const tokens = await server.built.ctx.db.select().from(authRefreshTokens).where(eq(authRefreshTokens.userId, data.user!.id));
    expect(tokens).toHaveLength(1);
    expect(tokens[0].tokenHash).not.toBe(data.session!.refresh_token);
    expect(tokens[0].tokenHash).toBe(createHash('sha256').update(data.session!.refresh_token).digest('hex'));

    // The product API accepts the token at once.
    const user = await auth.verifyAccessToken(data.session!.access_token);
    expect(user).toMatchObject({ id: data.user!.id, email: email.toLowerCase(), role: 'authenticated', sessionId: claims.session_id, userMetadata: { full_name: 'Grace Hopper' } });
    expect((await me(data.session!.access_token)).status).toBe(200);
  });

  it('refuses an address that is already registered, whatever its case', async () => {
    const { email } = await newUser();
    const { data, error } = await client().auth.signUp({ email: email.toUpperCase(), password: 'another one' });
    expect(error).toMatchObject({ code: 'user_already_exists', message: 'User already registered', status: 422 });
    expect(data.session).toBeNull();
  });

  it('refuses passwords shorter than 6 characters as weak', async () => {
    const { error } = await client().auth.signUp({ email: uniqueEmail(), password: '12345' });
    expect(error).toMatchObject({ code: 'weak_password', status: 422, message: 'Password should be at least 6 characters.' });
    expect((error as unknown as { reasons: string[] }).reasons).toEqual(['length']);
  });

  it('refuses malformed input with GoTrue codes', async () => {
    expect((await client().auth.signUp({ email: 'not-an-address', password: 'long enough' })).error).toMatchObject({ code: 'email_address_invalid', status: 400 });
    expect((await client().auth.signUp({ email: uniqueEmail(), password: '' })).error).toMatchObject({ code: 'validation_failed', status: 400 });
    const broken = await api(server.url, 'POST', '/auth/v1/signup', { body: '{"email":', headers: { 'x-supabase-api-version': '2024-01-01' } });
    expect(broken.status).toBe(400);
    expect(broken.body.code).toBe('bad_json');
  });
});

describe('password sign-in', () => {
  it('signs in with the right password and answers a fresh session', async () => {
    const { email, password, user } = await newUser();
    const sb = client();
    const { data, error } = await sb.auth.signInWithPassword({ email: email.toUpperCase(), password });
    expect(error).toBeNull();
    expect(data.user!.id).toBe(user.id);
    expect(data.user!.last_sign_in_at).toBeTruthy();
    expect((await sb.auth.getSession()).data.session?.access_token).toBe(data.session!.access_token);
  });

  it('answers the same error for a wrong password and an unknown address', async () => {
    const { email } = await newUser();
    const wrong = await client().auth.signInWithPassword({ email, password: 'not the password' });
    expect(wrong.error).toMatchObject({ code: 'invalid_credentials', message: 'Invalid login credentials', status: 400 });
    const unknown = await client().auth.signInWithPassword({ email: uniqueEmail('nobody'), password: 'whatever1' });
    expect(unknown.error).toMatchObject({ code: 'invalid_credentials', message: 'Invalid login credentials', status: 400 });
  });

  it('answers the pre-2024 error shape to clients that do not send the API version', async () => {
    const res = await api(server.url, 'POST', '/auth/v1/token?grant_type=password', { body: { email: uniqueEmail(), password: 'whatever1' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, error_code: 'invalid_credentials', msg: 'Invalid login credentials' });
    expect(res.headers.get('x-supabase-api-version')).toBeNull();
    const modern = await api(server.url, 'POST', '/auth/v1/token?grant_type=password', { body: { email: uniqueEmail(), password: 'whatever1' }, headers: { 'x-supabase-api-version': '2024-01-01' } });
    expect(modern.body).toEqual({ code: 'invalid_credentials', message: 'Invalid login credentials' });
    expect(modern.headers.get('x-supabase-api-version')).toBe('2024-01-01');
  });

  it('slows down repeated wrong passwords from one client, without locking others out', async () => {
    const { email, password } = await newUser();
    const from = (ip: string, pw: string) =>
      api(server.url, 'POST', '/auth/v1/token?grant_type=password', { body: { email, password: pw }, headers: { 'x-forwarded-for': ip, 'x-supabase-api-version': '2024-01-01' } });
    for (let i = 0; i < 10; i++) expect((await from('203.0.113.7', `guess number ${i}`)).body.code).toBe('invalid_credentials');
    const blocked = await from('203.0.113.7', password);
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe('over_request_rate_limit');
    expect((await from('198.51.100.20', password)).status).toBe(200);
  });

  it('backs the product API wrappers with the same messages', async () => {
    const { email, password } = await newUser();
    const session = await auth.signIn({ email, password });
    expect(session.access_token).toBeTruthy();
    await expect(auth.signIn({ email, password: 'nope nope' })).rejects.toMatchObject({ status: 400, code: 'invalid_credentials', message: 'Invalid login credentials' });
    await expect(auth.signUp({ email, password: 'long enough', full_name: 'X' })).rejects.toMatchObject({ status: 422, code: 'user_already_exists', message: 'User already registered' });
    const fresh = await auth.signUp({ email: uniqueEmail(), password: 'long enough', full_name: 'New Person' });
    expect(fresh.session).not.toBeNull();
    expect(fresh.user).toMatchObject({ user_metadata: { full_name: 'New Person' } });
  });
});

describe('the signed-in user', () => {
  it('reads and updates the user', async () => {
    const { sb, user } = await newUser({ fullName: 'Before' });
    const got = await sb.auth.getUser();
    expect(got.error).toBeNull();
    expect(got.data.user).toMatchObject({ id: user.id, user_metadata: { full_name: 'Before' } });

    const updated = await sb.auth.updateUser({ data: { full_name: 'After', team: 'blue' } });
    expect(updated.error).toBeNull();
    expect(updated.data.user!.user_metadata).toEqual({ full_name: 'After', team: 'blue' });
    // GoTrue merges metadata; null removes a key.
    const removed = await sb.auth.updateUser({ data: { team: null } });
    expect(removed.data.user!.user_metadata).toEqual({ full_name: 'After' });
    // The next token carries the new metadata.
    const refreshed = await sb.auth.refreshSession();
    expect(decodeJwt(refreshed.data.session!.access_token).user_metadata).toEqual({ full_name: 'After' });
  });

  it('changes the password and ends the other sessions', async () => {
    const { sb, email, password } = await newUser();
    const other = client();
    const otherSession = (await other.auth.signInWithPassword({ email, password })).data.session!;

    expect((await sb.auth.updateUser({ password })).error).toMatchObject({ code: 'same_password', status: 422 });
    expect((await sb.auth.updateUser({ password: 'abc' })).error).toMatchObject({ code: 'weak_password' });
    expect((await sb.auth.updateUser({ password: 'second password' })).error).toBeNull();

    expect((await client().auth.signInWithPassword({ email, password })).error?.code).toBe('invalid_credentials');
    expect((await client().auth.signInWithPassword({ email, password: 'second password' })).error).toBeNull();
    // This session lives on, the other one is over.
    expect((await sb.auth.getUser()).error).toBeNull();
    expect((await rejectsToken(otherSession.access_token)).code).toBe('session_not_found');
    expect((await other.auth.refreshSession()).error?.code).toBe('refresh_token_not_found');
  });

  it('changes the e-mail address at once when no SMTP server is configured', async () => {
    const { sb, password } = await newUser();
    const next = uniqueEmail('moved');
    const res = await sb.auth.updateUser({ email: next.toUpperCase() });
    expect(res.error).toBeNull();
    expect(res.data.user!.email).toBe(next);
    expect((await client().auth.signInWithPassword({ email: next, password })).error).toBeNull();
    const taken = await newUser();
    expect((await taken.sb.auth.updateUser({ email: next })).error).toMatchObject({ code: 'email_exists', status: 422 });
  });

  it('requires a valid bearer token on /user', async () => {
    const none = await api(server.url, 'GET', '/auth/v1/user', { headers: { 'x-supabase-api-version': '2024-01-01' } });
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('no_authorization');
    const anon = await api(server.url, 'GET', '/auth/v1/user', { token: auth.anonKey, headers: { 'x-supabase-api-version': '2024-01-01' } });
    expect(anon.status).toBe(403);
    expect(anon.body.code).toBe('bad_jwt');
  });
});

describe('refresh tokens', () => {
  it('rotates the refresh token on every use', async () => {
    const { sb, session } = await newUser();
    const first = await sb.auth.refreshSession();
    expect(first.error).toBeNull();
    expect(first.data.session!.refresh_token).not.toBe(session.refresh_token);
    expect(decodeJwt(first.data.session!.access_token).session_id).toBe(decodeJwt(session.access_token).session_id);
    const second = await sb.auth.refreshSession();
    expect(second.error).toBeNull();
    expect(second.data.session!.refresh_token).not.toBe(first.data.session!.refresh_token);
    expect((await me(second.data.session!.access_token)).status).toBe(200);
  });

  it('treats reuse of a used refresh token as theft and ends the whole session', async () => {
    const { sb, session } = await newUser();
    const rotated = (await sb.auth.refreshSession()).data.session!;

    const thief = client();
    const reuse = await thief.auth.refreshSession({ refresh_token: session.refresh_token });
    expect(reuse.error).toMatchObject({ code: 'refresh_token_already_used', message: 'Invalid Refresh Token: Already Used', status: 400 });

    // Everything derived from the session stops working: the newest refresh token and the access tokens.
    const legit = await client().auth.refreshSession({ refresh_token: rotated.refresh_token });
    expect(legit.error?.code).toBe('refresh_token_not_found');
    expect((await rejectsToken(rotated.access_token)).code).toBe('session_not_found');
    expect((await me(session.access_token)).status).toBe(401);
  });

  it('refuses unknown and missing refresh tokens', async () => {
    const unknown = await client().auth.refreshSession({ refresh_token: 'not-a-real-token' });
    expect(unknown.error).toMatchObject({ code: 'refresh_token_not_found', message: 'Invalid Refresh Token: Refresh Token Not Found' });
    const missing = await api(server.url, 'POST', '/auth/v1/token?grant_type=refresh_token', { body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'invalid_request', error_description: 'refresh_token required' });
    const grant = await api(server.url, 'POST', '/auth/v1/token?grant_type=magic', { body: {}, headers: { 'x-supabase-api-version': '2024-01-01' } });
    expect(grant.status).toBe(400);
  });
});

describe('sign-out', () => {
  it('ends every session of the user (scope global): tokens are refused at once', async () => {
    const { sb, email, password, session } = await newUser();
    const other = (await client().auth.signInWithPassword({ email, password })).data.session!;
    expect((await me(session.access_token)).status).toBe(200);

    expect((await sb.auth.signOut()).error).toBeNull();
    expect((await sb.auth.getSession()).data.session).toBeNull();

    expect((await me(session.access_token)).status).toBe(401);
    expect((await rejectsToken(session.access_token)).code).toBe('session_not_found');
    expect((await rejectsToken(other.access_token)).code).toBe('session_not_found');
    expect((await client().auth.refreshSession({ refresh_token: session.refresh_token })).error?.code).toBe('refresh_token_not_found');
    // The service itself also refuses the old token.
    const user = await api(server.url, 'GET', '/auth/v1/user', { token: session.access_token, headers: { 'x-supabase-api-version': '2024-01-01' } });
    expect(user.status).toBe(403);
    expect(user.body.code).toBe('session_not_found');
  });

  it('ends only this session (scope local) or only the others (scope others)', async () => {
    const { sb, email, password, session } = await newUser();
    const second = client();
    const secondSession = (await second.auth.signInWithPassword({ email, password })).data.session!;
    const third = (await client().auth.signInWithPassword({ email, password })).data.session!;

    expect((await second.auth.signOut({ scope: 'local' })).error).toBeNull();
    await rejectsToken(secondSession.access_token);
    expect((await me(session.access_token)).status).toBe(200);
    expect((await me(third.access_token)).status).toBe(200);

    expect((await sb.auth.signOut({ scope: 'others' })).error).toBeNull();
    await rejectsToken(third.access_token);
    expect((await me(session.access_token)).status).toBe(200);

    const bad = await api(server.url, 'POST', '/auth/v1/logout?scope=everything', { token: session.access_token, headers: { 'x-supabase-api-version': '2024-01-01' } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation_failed');
  });
});

describe('token checks', () => {
  const sign = (claims: Record<string, unknown>, opts: { secret?: string; exp?: number } = {}) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime(opts.exp ?? Math.floor(Date.now() / 1000) + 600)
      .sign(new TextEncoder().encode(opts.secret ?? SECRET));

  it('refuses expired, forged and foreign tokens', async () => {
    const { session } = await newUser();
    const claims = decodeJwt(session.access_token);
    const { exp: _exp, iat: _iat, ...rest } = claims;

    const expired = await sign(rest, { exp: Math.floor(Date.now() / 1000) - 10 });
    expect((await rejectsToken(expired)).code).toBe('bad_jwt');
    expect((await me(expired)).status).toBe(401);
    const user = await api(server.url, 'GET', '/auth/v1/user', { token: expired, headers: { 'x-supabase-api-version': '2024-01-01' } });
    expect(user.status).toBe(403);
    expect(user.body.code).toBe('bad_jwt');

    expect((await rejectsToken(await sign(rest, { secret: 'another-secret-another-secret-another-secret' }))).code).toBe('bad_jwt');
    expect((await rejectsToken(await sign({ ...rest, aud: 'somebody-else' }))).code).toBe('bad_jwt');
    expect((await rejectsToken(await sign({ ...rest, iss: 'https://elsewhere.example/auth/v1' }))).code).toBe('bad_jwt');
    expect((await rejectsToken(session.access_token.slice(0, -3) + 'abc')).code).toBe('bad_jwt');
    expect((await rejectsToken('not a jwt')).code).toBe('bad_jwt');
    // Properly signed, but for a session that never existed.
    expect((await rejectsToken(await sign({ ...rest, session_id: '00000000-0000-4000-8000-000000000000' }))).code).toBe('session_not_found');
    // Still fine: the real one.
    expect((await auth.verifyAccessToken(session.access_token)).id).toBe(claims.sub);
  });
});

describe('admin', () => {
  it('deletes a user with the service_role key; the account stops working and the address is free again', async () => {
    const { email, password, session, user } = await newUser();
    const forbidden = await api(server.url, 'DELETE', `/auth/v1/admin/users/${user.id}`, { token: session.access_token, headers: { 'x-supabase-api-version': '2024-01-01' } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe('not_admin');

    const admin = client(auth.serviceRoleKey);
    expect((await admin.auth.admin.deleteUser(user.id)).error).toBeNull();
    expect((await admin.auth.admin.deleteUser(user.id)).error).toMatchObject({ code: 'user_not_found', status: 404 });

    expect((await rejectsToken(session.access_token)).code).toBe('session_not_found');
    expect((await me(session.access_token)).status).toBe(401);
    expect((await client().auth.signInWithPassword({ email, password })).error?.code).toBe('invalid_credentials');
    expect((await client().auth.refreshSession({ refresh_token: session.refresh_token })).error?.code).toBe('refresh_token_not_found');

    const again = await client().auth.signUp({ email, password: 'a new start' });
    expect(again.error).toBeNull();
    expect(again.data.user!.id).not.toBe(user.id);
  });

  it('deleteUser() from the product side ends the sessions the same way', async () => {
    const { session, user } = await newUser();
    await auth.deleteUser(user.id);
    expect((await me(session.access_token)).status).toBe(401);
  });
});

describe('PKCE grant', () => {
  it('refuses unknown codes and incomplete requests', async () => {
    const unknown = await api(server.url, 'POST', '/auth/v1/token?grant_type=pkce', { body: { auth_code: 'b5b8d4a5-0000-4000-8000-000000000000', code_verifier: 'x'.repeat(43) }, headers: { 'x-supabase-api-version': '2024-01-01' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('flow_state_not_found');
    const incomplete = await api(server.url, 'POST', '/auth/v1/token?grant_type=pkce', { body: { auth_code: 'abc' }, headers: { 'x-supabase-api-version': '2024-01-01' } });
    expect(incomplete.status).toBe(400);
    expect(incomplete.body.code).toBe('validation_failed');
  });

  it('says Google is not enabled when it is not configured', async () => {
    const res = await api(server.url, 'GET', '/auth/v1/authorize?provider=google', { headers: { 'x-supabase-api-version': '2024-01-01' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'validation_failed', message: 'Unsupported provider: provider is not enabled' });
  });
});
