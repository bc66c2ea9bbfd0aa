// Hosted mode (SUPABASE_URL): a second server treats the first one's embedded /auth/v1 as if it
// were hosted Supabase Auth. It must verify those tokens, forward the product's auth wrappers, and
// delete accounts through the admin API.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { api, startServer, uniqueEmail, type TestServer } from './harness';
import { loadConfig } from '../../src/server/config';
import { createAuth, type EmbeddedAuthProvider } from '../../src/server/auth';
import type { Db } from '../../src/server/db/client';

const SECRET = 'shared-jwt-secret-between-hosted-and-product-0123456789';
let hosted: TestServer; // plays hosted Supabase
let product: TestServer; // the Vellum server configured for it
let hostedAuth: EmbeddedAuthProvider;

function client() {
  return createClient(hosted.url, hostedAuth.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false, flowType: 'pkce' },
    realtime: { transport: WebSocket as never },
  });
}

beforeAll(async () => {
  hosted = await startServer({ SUPABASE_JWT_SECRET: SECRET });
  hostedAuth = hosted.built.ctx.auth as EmbeddedAuthProvider;
  product = await startServer({
    SUPABASE_URL: hosted.url,
    SUPABASE_ANON_KEY: hostedAuth.anonKey,
    SUPABASE_JWT_SECRET: SECRET,
    SUPABASE_SERVICE_ROLE_KEY: hostedAuth.serviceRoleKey,
  });
});
afterAll(async () => {
  await product?.stop();
  await hosted?.stop();
});

describe('hosted Supabase Auth', () => {
  it('points the SPA at the hosted service and serves no /auth/v1 itself', async () => {
    const config = await api(product.url, 'GET', '/api/v1/config');
    expect(config.body).toMatchObject({ supabaseUrl: hosted.url, supabaseAnonKey: hostedAuth.anonKey, authMode: 'supabase' });
    expect((await api(product.url, 'GET', '/auth/v1/settings')).status).toBe(404);
  });

  it('accepts access tokens issued by the hosted service and refuses others', async () => {
    const email = uniqueEmail('hosted');
    const { data, error } = await client().auth.signUp({ email, password: 'hosted password', options: { data: { full_name: 'Mary Jackson' } } });
    expect(error).toBeNull();
    const token = data.session!.access_token;

    const user = await product.built.ctx.auth.verifyAccessToken(token);
    expect(user).toMatchObject({ id: data.user!.id, email, role: 'authenticated', userMetadata: { full_name: 'Mary Jackson' } });
    expect((await api(product.url, 'GET', '/api/v1/users/me', { token })).status).toBe(200);

    expect((await api(product.url, 'GET', '/api/v1/users/me', { token: hostedAuth.anonKey })).status).toBe(401);
    const forged = await new SignJWT({ sub: data.user!.id, role: 'authenticated', email })
      .setProtectedHeader({ alg: 'HS256' })
      .setAudience('authenticated')
      .setIssuer(`${hosted.url}/auth/v1`)
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode('a-different-secret-a-different-secret-0123'));
    expect((await api(product.url, 'GET', '/api/v1/users/me', { token: forged })).status).toBe(401);
  });

  it('forwards sign-up and sign-in to the hosted service, with its errors', async () => {
    const email = uniqueEmail('wrapped');
    const { session } = await product.built.ctx.auth.signUp({ email, password: 'wrapped password', full_name: 'Annie Easley' });
    expect(session).not.toBeNull();
    expect(session!.user).toMatchObject({ email, user_metadata: { full_name: 'Annie Easley' } });

    const signedIn = await product.built.ctx.auth.signIn({ email, password: 'wrapped password' });
    expect((await hostedAuth.verifyAccessToken(signedIn.access_token)).email).toBe(email);

    await expect(product.built.ctx.auth.signIn({ email, password: 'wrong password' })).rejects.toMatchObject({ status: 400, code: 'invalid_credentials', message: 'Invalid login credentials' });
    await expect(product.built.ctx.auth.signUp({ email, password: 'wrapped password', full_name: 'Again' })).rejects.toMatchObject({ status: 422, code: 'user_already_exists' });
    await expect(product.built.ctx.auth.signUp({ email: uniqueEmail(), password: '123', full_name: 'Weak' })).rejects.toMatchObject({ status: 422, code: 'weak_password' });
  });

  it('deletes accounts through the hosted admin API', async () => {
    const email = uniqueEmail('gone');
    const { data } = await client().auth.signUp({ email, password: 'soon deleted' });
    await product.built.ctx.auth.deleteUser(data.user!.id);
    // The hosted service no longer knows the account.
    expect((await client().auth.signInWithPassword({ email, password: 'soon deleted' })).error?.code).toBe('invalid_credentials');
    await expect(hostedAuth.verifyAccessToken(data.session!.access_token)).rejects.toMatchObject({ status: 401 });
    // Deleting again is not an error.
    await product.built.ctx.auth.deleteUser(data.user!.id);
  });

  it('says clearly that deleting accounts needs the service role key', async () => {
    const config = loadConfig({ DATA_DIR: '/nonexistent', SUPABASE_URL: hosted.url, SUPABASE_ANON_KEY: hostedAuth.anonKey, SUPABASE_JWT_SECRET: SECRET });
    const auth = await createAuth(config, undefined as unknown as Db);
    await expect(auth.deleteUser('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ status: 503, code: 'auth_admin_not_configured' });
  });

  it('verifies asymmetric tokens against the project JWKS', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    const jwksServer = http.createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
    try {
      const jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/auth/v1/.well-known/jwks.json`;
      const url = 'https://project.supabase.example';
      const config = loadConfig({ DATA_DIR: '/nonexistent', SUPABASE_URL: url, SUPABASE_ANON_KEY: 'anon', SUPABASE_JWKS_URL: jwksUrl });
      const auth = await createAuth(config, undefined as unknown as Db);
      const sign = (claims: Record<string, unknown>, iss = `${url}/auth/v1`) =>
        new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setAudience('authenticated').setIssuer(iss).setExpirationTime('10m').sign(privateKey);
      const sub = '11111111-1111-4111-8111-111111111111';
      const user = await auth.verifyAccessToken(await sign({ sub, role: 'authenticated', email: 'x@example.com', session_id: '22222222-2222-4222-8222-222222222222' }));
      expect(user).toMatchObject({ id: sub, email: 'x@example.com', sessionId: '22222222-2222-4222-8222-222222222222' });
      await expect(auth.verifyAccessToken(await sign({ sub, role: 'authenticated' }, 'https://other.example/auth/v1'))).rejects.toMatchObject({ status: 401 });
      await expect(auth.verifyAccessToken(await sign({ sub, role: 'anon' }))).rejects.toMatchObject({ status: 401 });
    } finally {
      await new Promise<void>((resolve) => jwksServer.close(() => resolve()));
    }
  });
});
