// "Continue with Google" through the embedded service, with a local OpenID provider in Google's
// place: supabase-js signInWithOAuth (PKCE) -> /authorize -> provider -> /callback -> redirect_to
// with ?code -> exchangeCodeForSession.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { decodeJwt } from 'jose';
import { api, startServer, uniqueEmail, type TestServer } from './harness';
import { startOidcProvider, type TestAccount, type TestOidcProvider } from './support/oidc-provider';

let server: TestServer;
let idp: TestOidcProvider;
let accounts = 0;

function client(): SupabaseClient {
  const store = new Map<string, string>();
  return createClient(server.url, server.built.ctx.auth.anonKey, {
    auth: {
      persistSession: false,
      autoRefreshToken: false,
      detectSessionInUrl: false,
      flowType: 'pkce',
      storage: { getItem: (k) => store.get(k) ?? null, setItem: (k, v) => void store.set(k, v), removeItem: (k) => void store.delete(k) },
    },
    realtime: { transport: WebSocket as never },
  });
}

function googleAccount(overrides: Partial<TestAccount> = {}): TestAccount {
  accounts += 1;
  return { sub: `google-sub-${Date.now()}-${accounts}`, email: uniqueEmail('google'), email_verified: true, name: 'Katherine Johnson', picture: 'https://example.com/k.png', ...overrides };
}

/** Follows redirects the way a browser would (cookies per host), until the app's own pages (any
 * URL under `stopAt` that is not the auth service). */
async function browse(start: string, stopAt: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = start;
  for (let hop = 0; hop < 20; hop++) {
    if (url.startsWith(stopAt) && !url.startsWith(`${server.url}/auth/v1/`)) return new URL(url);
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const cookie of res.headers.getSetCookie()) {
      const pair = cookie.split(';')[0];
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (!value || /expires=Thu, 01 Jan 1970/i.test(cookie)) jar.delete(name);
      else jar.set(name, value);
    }
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) throw new Error(`stuck at ${url}: ${res.status} ${await res.text()}`);
    url = new URL(location, url).href;
  }
  throw new Error('too many redirects');
}

async function signInWithGoogle(sb: SupabaseClient, redirectTo = `${server.url}/welcome`) {
  const { data, error } = await sb.auth.signInWithOAuth({ provider: 'google', options: { redirectTo } });
  expect(error).toBeNull();
  const landing = await browse(data.url!, server.url + '/welcome');
  return landing;
}

beforeAll(async () => {
  idp = await startOidcProvider({ account: googleAccount() });
  server = await startServer({ GOOGLE_CLIENT_ID: idp.clientId, GOOGLE_CLIENT_SECRET: idp.clientSecret, GOOGLE_ISSUER: idp.issuer });
  idp.configure(`${server.url}/auth/v1/callback`);
});
afterAll(async () => {
  await server?.stop();
  await idp?.stop();
});

describe('Google sign-in (PKCE)', () => {
  it('creates the user from the provider claims and answers a session for the code', async () => {
    const account = googleAccount();
    idp.account = account;
    const sb = client();
    const { data } = await sb.auth.signInWithOAuth({ provider: 'google', options: { redirectTo: `${server.url}/welcome` } });
    const authorize = new URL(data.url!);
    expect(authorize.pathname).toBe('/auth/v1/authorize');
    expect(authorize.searchParams.get('code_challenge')).toBeTruthy();

    // The hop to the provider carries our own PKCE, nonce and state, not the browser's.
    const toProvider = await fetch(data.url!, { redirect: 'manual' });
    expect(toProvider.status).toBe(302);
    const providerUrl = new URL(toProvider.headers.get('location')!);
    expect(providerUrl.origin).toBe(idp.issuer);
    expect(providerUrl.searchParams.get('client_id')).toBe(idp.clientId);
    expect(providerUrl.searchParams.get('redirect_uri')).toBe(`${server.url}/auth/v1/callback`);
    expect(providerUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(providerUrl.searchParams.get('code_challenge')).not.toBe(authorize.searchParams.get('code_challenge'));
    expect(providerUrl.searchParams.get('nonce')).toBeTruthy();
    expect(providerUrl.searchParams.get('state')).toBeTruthy();

    const landing = await browse(providerUrl.href, server.url + '/welcome');
    const code = landing.searchParams.get('code');
    expect(code).toBeTruthy();
    const { data: exchanged, error } = await sb.auth.exchangeCodeForSession(code!);
    expect(error).toBeNull();
    expect(exchanged.user).toMatchObject({
      email: account.email,
      app_metadata: { provider: 'google', providers: ['google'] },
      user_metadata: { full_name: 'Katherine Johnson', name: 'Katherine Johnson', avatar_url: 'https://example.com/k.png', sub: account.sub, email_verified: true },
    });
    expect(exchanged.user!.email_confirmed_at).toBeTruthy();
    expect(exchanged.user!.identities).toEqual([expect.objectContaining({ provider: 'google', id: account.sub })]);
    const claims = decodeJwt(exchanged.session!.access_token);
    expect((claims.amr as { method: string }[])[0].method).toBe('oauth');

    const verified = await server.built.ctx.auth.verifyAccessToken(exchanged.session!.access_token);
    expect(verified).toMatchObject({ id: exchanged.user!.id, email: account.email, userMetadata: expect.objectContaining({ full_name: 'Katherine Johnson' }) });
    expect((await api(server.url, 'GET', '/api/v1/users/me', { token: exchanged.session!.access_token })).status).toBe(200);

    // The same Google account later: the same user.
    const again = client();
    const code2 = (await signInWithGoogle(again)).searchParams.get('code')!;
    const second = await again.auth.exchangeCodeForSession(code2);
    expect(second.error).toBeNull();
    expect(second.data.user!.id).toBe(exchanged.user!.id);
  });

  it('links Google to an existing password account with the same verified address', async () => {
    const email = uniqueEmail('both');
    const pw = client();
    const signed = await pw.auth.signUp({ email, password: 'my password', options: { data: { full_name: 'Dorothy Vaughan' } } });
    expect(signed.error).toBeNull();
    idp.account = googleAccount({ email: email.toUpperCase() });

    const sb = client();
    const code = (await signInWithGoogle(sb)).searchParams.get('code')!;
    const { data, error } = await sb.auth.exchangeCodeForSession(code);
    expect(error).toBeNull();
    expect(data.user!.id).toBe(signed.data.user!.id);
    expect(data.user!.app_metadata.providers).toEqual(['email', 'google']);
    expect(data.user!.user_metadata.full_name).toBe('Dorothy Vaughan');
    expect((await client().auth.signInWithPassword({ email, password: 'my password' })).error).toBeNull();
  });

  it('refuses to link when the provider has not verified the address', async () => {
    const email = uniqueEmail('unverified');
    expect((await client().auth.signUp({ email, password: 'my password' })).error).toBeNull();
    idp.account = googleAccount({ email, email_verified: false });
    const landing = await signInWithGoogle(client());
    expect(landing.searchParams.get('code')).toBeNull();
    expect(landing.searchParams.get('error_code')).toBe('provider_email_needs_verification');
  });

  it('exchanges a code once, and only with the verifier that asked for it', async () => {
    idp.account = googleAccount();
    const sb = client();
    const code = (await signInWithGoogle(sb)).searchParams.get('code')!;

    const wrong = await api(server.url, 'POST', '/auth/v1/token?grant_type=pkce', { body: { auth_code: code, code_verifier: 'w'.repeat(64) }, headers: { 'x-supabase-api-version': '2024-01-01' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('bad_code_verifier');

    expect((await sb.auth.exchangeCodeForSession(code)).error).toBeNull();
    const reused = await api(server.url, 'POST', '/auth/v1/token?grant_type=pkce', { body: { auth_code: code, code_verifier: 'w'.repeat(64) }, headers: { 'x-supabase-api-version': '2024-01-01' } });
    expect(reused.status).toBe(404);
    expect(reused.body.code).toBe('flow_state_not_found');
  });

  it('sends foreign redirect_to addresses to the site URL instead', async () => {
    idp.account = googleAccount();
    const sb = client();
    const { data } = await sb.auth.signInWithOAuth({ provider: 'google', options: { redirectTo: 'https://evil.example/steal' } });
    const landing = await browse(data.url!, server.url);
    expect(landing.origin).toBe(server.url);
    expect((await sb.auth.exchangeCodeForSession(landing.searchParams.get('code')!)).error).toBeNull();
  });

  it('reports provider refusals and forged state back to the app', async () => {
    const sb = client();
    const { data } = await sb.auth.signInWithOAuth({ provider: 'google', options: { redirectTo: `${server.url}/welcome` } });
    const toProvider = await fetch(data.url!, { redirect: 'manual' });
    const state = new URL(toProvider.headers.get('location')!).searchParams.get('state')!;

    const denied = await fetch(`${server.url}/auth/v1/callback?state=${state}&error=access_denied&error_description=The+user+said+no`, { redirect: 'manual' });
    const deniedTo = new URL(denied.headers.get('location')!);
    expect(deniedTo.pathname).toBe('/welcome');
    expect(deniedTo.searchParams.get('error')).toBe('access_denied');
    expect(deniedTo.searchParams.get('error_description')).toBe('The user said no');
    // The flow is spent.
    const replay = await fetch(`${server.url}/auth/v1/callback?state=${state}&code=whatever`, { redirect: 'manual' });
    expect(new URL(replay.headers.get('location')!).searchParams.get('error_code')).toBe('bad_oauth_state');

    const forged = await fetch(`${server.url}/auth/v1/callback?state=00000000-0000-4000-8000-000000000000&code=abc`, { redirect: 'manual' });
    const forgedTo = new URL(forged.headers.get('location')!);
    expect(forgedTo.origin).toBe(server.url);
    expect(forgedTo.searchParams.get('error_code')).toBe('bad_oauth_state');
  });

  it('supports the implicit flow for clients without PKCE', async () => {
    idp.account = googleAccount();
    const landing = await browse(`${server.url}/auth/v1/authorize?provider=google&redirect_to=${encodeURIComponent(server.url + '/welcome')}`, server.url + '/welcome');
    const fragment = new URLSearchParams(landing.hash.slice(1));
    expect(fragment.get('token_type')).toBe('bearer');
    const token = fragment.get('access_token')!;
    expect((await server.built.ctx.auth.verifyAccessToken(token)).email).toBe(idp.account.email);
    expect(fragment.get('refresh_token')).toBeTruthy();
  });

  it('lists Google as enabled in the settings', async () => {
    const res = await api(server.url, 'GET', '/auth/v1/settings');
    expect(res.body.external.google).toBe(true);
    const config = await api(server.url, 'GET', '/api/v1/config');
    expect(config.body.googleEnabled).toBe(true);
  });
});
