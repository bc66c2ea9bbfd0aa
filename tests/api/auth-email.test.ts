// E-mail confirmation (SMTP_URL set): sign-up mails a link, password sign-in waits for it, and the
// link completes the sign-up (PKCE code or implicit tokens). A local SMTP server catches the mail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { sql } from 'drizzle-orm';
import { api, startServer, uniqueEmail, type TestServer } from './harness';
import { startMailCatcher, type MailCatcher } from './support/mail-catcher';

let server: TestServer;
let catcher: MailCatcher;

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

const linkFor = (to: string) => catcher.linkFor(to);

async function open(link: string): Promise<URL> {
  const res = await fetch(link, { redirect: 'manual' });
  expect(res.status).toBe(303);
  return new URL(res.headers.get('location')!);
}

beforeAll(async () => {
  catcher = await startMailCatcher();
  server = await startServer(catcher.smtpEnv);
});
afterAll(async () => {
  await server?.stop();
  await catcher?.close();
});

describe('sign-up with e-mail confirmation', () => {
  it('mails a link, refuses sign-in until it is opened, then completes with a PKCE code', async () => {
    const settings = await api(server.url, 'GET', '/auth/v1/settings');
    expect(settings.body.mailer_autoconfirm).toBe(false);

    const email = uniqueEmail('confirm');
    const sb = client();
    const { data, error } = await sb.auth.signUp({ email, password: 'confirm me', options: { data: { full_name: 'Mae Jemison' }, emailRedirectTo: `${server.url}/welcome` } });
    expect(error).toBeNull();
    expect(data.session).toBeNull();
    expect(data.user).toMatchObject({ email, user_metadata: { full_name: 'Mae Jemison' } });
    expect(data.user!.confirmation_sent_at).toBeTruthy();
    expect(data.user!.email_confirmed_at).toBeUndefined();

    const early = await client().auth.signInWithPassword({ email, password: 'confirm me' });
    expect(early.error).toMatchObject({ code: 'email_not_confirmed', message: 'Email not confirmed', status: 400 });
    // Wrong password still says invalid credentials, not "unconfirmed".
    expect((await client().auth.signInWithPassword({ email, password: 'wrong password' })).error?.code).toBe('invalid_credentials');

    const again = await client().auth.signUp({ email, password: 'confirm me' });
    expect(again.error).toMatchObject({ code: 'over_email_send_rate_limit', status: 429 });

    const link = linkFor(email);
    const landing = await open(link);
    expect(`${landing.origin}${landing.pathname}`).toBe(`${server.url}/welcome`);
    const code = landing.searchParams.get('code');
    expect(code).toBeTruthy();
    const exchanged = await sb.auth.exchangeCodeForSession(code!);
    expect(exchanged.error).toBeNull();
    expect(exchanged.data.user!.email_confirmed_at).toBeTruthy();
    expect(exchanged.data.user!.identities![0].identity_data).toMatchObject({ email_verified: true });
    expect((await server.built.ctx.auth.verifyAccessToken(exchanged.data.session!.access_token)).email).toBe(email);

    expect((await client().auth.signInWithPassword({ email, password: 'confirm me' })).error).toBeNull();

    // A link works once.
    const reused = await open(link);
    expect(reused.searchParams.get('error_code')).toBe('otp_expired');
  });

  it('does not reveal a confirmed address on a repeated sign-up, and mails nothing', async () => {
    const email = uniqueEmail('known');
    const first = await client().auth.signUp({ email, password: 'first password' });
    await open(linkFor(email));
    const before = catcher.mails.length;
    const repeat = await client().auth.signUp({ email, password: 'other password' });
    expect(repeat.error).toBeNull();
    expect(repeat.data.session).toBeNull();
    expect(repeat.data.user!.email).toBe(email);
    expect(repeat.data.user!.id).not.toBe(first.data.user!.id);
    expect(catcher.mails.length).toBe(before);
    // And the real account keeps its password.
    expect((await client().auth.signInWithPassword({ email, password: 'other password' })).error?.code).toBe('invalid_credentials');
  });

  it('answers tokens in the fragment for clients without PKCE', async () => {
    const email = uniqueEmail('implicit');
    const res = await api(server.url, 'POST', `/auth/v1/signup?redirect_to=${encodeURIComponent(server.url + '/done')}`, { body: { email, password: 'implicit pw' } });
    expect(res.status).toBe(200);
    expect(res.body.access_token).toBeUndefined();
    const landing = await open(linkFor(email));
    expect(landing.pathname).toBe('/done');
    const fragment = new URLSearchParams(landing.hash.slice(1));
    expect(fragment.get('type')).toBe('signup');
    expect((await server.built.ctx.auth.verifyAccessToken(fragment.get('access_token')!)).email).toBe(email);
  });

  it('confirms a new e-mail address before switching to it', async () => {
    const email = uniqueEmail('old');
    const sb = client();
    await sb.auth.signUp({ email, password: 'changing pw' });
    await open(linkFor(email));
    expect((await sb.auth.signInWithPassword({ email, password: 'changing pw' })).error).toBeNull();

    const next = uniqueEmail('new');
    const updated = await sb.auth.updateUser({ email: next }, { emailRedirectTo: `${server.url}/settings` });
    expect(updated.error).toBeNull();
    expect(updated.data.user).toMatchObject({ email, new_email: next });
    expect((await client().auth.signInWithPassword({ email: next, password: 'changing pw' })).error?.code).toBe('invalid_credentials');

    const landing = await open(linkFor(next));
    expect(landing.pathname).toBe('/settings');
    expect(landing.searchParams.get('code')).toBeTruthy();
    expect((await client().auth.signInWithPassword({ email: next, password: 'changing pw' })).error).toBeNull();
    expect((await client().auth.signInWithPassword({ email, password: 'changing pw' })).error?.code).toBe('invalid_credentials');
  });
});

describe('when the mail cannot be sent', () => {
  it('fails the sign-up and keeps no half-made account', async () => {
    const broken = await startServer({ SMTP_URL: 'smtp://127.0.0.1:1' });
    try {
      const email = uniqueEmail('nomail');
      const res = await api(broken.url, 'POST', '/auth/v1/signup', { body: { email, password: 'no mail pw' }, headers: { 'x-supabase-api-version': '2024-01-01' } });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ code: 'unexpected_failure', message: 'Error sending confirmation email' });
      const rows = (await broken.built.ctx.db.execute(sql`SELECT count(*)::int AS n FROM auth_users WHERE email = ${email}`)) as unknown as { rows: { n: number }[] };
      expect(rows.rows[0].n).toBe(0);
    } finally {
      await broken.stop();
    }
  });
});
