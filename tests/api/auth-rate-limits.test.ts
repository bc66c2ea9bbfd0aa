// Limits on sign-up, mails and token refresh (issue 15, item 2; the numbers are in
// src/server/auth/embedded/throttle.ts and README.md "Security"). A throttled request answers as
// GoTrue does: 429, over_request_rate_limit or over_email_send_rate_limit, a message the app shows
// as it is, and Retry-After. Client addresses are the socket's unless TRUST_PROXY names the proxy.
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { api, signUp, startServer, uniqueEmail, type TestServer } from './harness';
import { startMailCatcher, type MailCatcher } from './support/mail-catcher';
import { MAILS_PER_ADDRESS, MAILS_PER_RECIPIENT, REFRESHES_PER_ADDRESS, REFRESHES_PER_SESSION, SIGN_UPS_PER_ADDRESS } from '../../src/server/auth/embedded/throttle';

const servers: TestServer[] = [];
let catcher: MailCatcher | null = null;

afterEach(() => {
  vi.restoreAllMocks();
});
afterAll(async () => {
  for (const s of servers) await s.stop();
  await catcher?.close();
});

async function server(env: Record<string, string> = {}) {
  const s = await startServer(env);
  servers.push(s);
  return s;
}

// Tests whose requests name their client address (X-Forwarded-For, trusted from 127.0.0.1) share
// one server: the throttles count per address, and each test uses addresses of its own. A test
// that spends 127.0.0.1's own share, or needs another limit, starts a server of its own.
let proxied: Promise<TestServer> | null = null;
let mailing: Promise<TestServer> | null = null;
const TRUSTED = { TRUST_PROXY: '127.0.0.1, ::1' };

/** The shared server behind a trusted proxy, without mail (a sign-up is signed in at once). */
const proxiedServer = () => (proxied ??= server(TRUSTED));

/** The shared server behind a trusted proxy that mails through a local SMTP server (see `catcher`). */
function mailingServer() {
  mailing ??= startMailCatcher().then((c) => {
    catcher = c;
    return server({ ...c.smtpEnv, ...TRUSTED });
  });
  return mailing;
}

const mailsTo = (email: string) => catcher!.countTo(email);

const headersOf = (s: TestServer, forwardedFor?: string) => ({ apikey: s.built.ctx.auth.anonKey, 'x-supabase-api-version': '2024-01-01', ...(forwardedFor && { 'x-forwarded-for': forwardedFor }) });

const signUpCall = (s: TestServer, body: Record<string, unknown>, forwardedFor?: string) => api(s.url, 'POST', '/auth/v1/signup', { body, headers: headersOf(s, forwardedFor) });

/** A sign-up refused at validation (too short a password): cheap, and it still counts. */
const refusedSignUp = (s: TestServer, forwardedFor?: string) => signUpCall(s, { email: uniqueEmail('spent'), password: '123' }, forwardedFor);

const refresh = (s: TestServer, refreshToken: string, forwardedFor?: string) =>
  api(s.url, 'POST', '/auth/v1/token?grant_type=refresh_token', { body: { refresh_token: refreshToken }, headers: headersOf(s, forwardedFor) });

function expectThrottled(res: { status: number; body: any; headers: Headers }, code: string, message: RegExp, maxWaitS: number) {
  expect(res.status, JSON.stringify(res.body)).toBe(429);
  expect(res.body.code).toBe(code);
  expect(res.body.message).toMatch(message);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(maxWaitS);
}

describe('sign-up limits', () => {
  it(`sign-up from one address past ${SIGN_UPS_PER_ADDRESS.max} in an hour answers 429 with Retry-After, on both sign-up routes`, async () => {
    const s = await server();
    for (let i = 0; i < SIGN_UPS_PER_ADDRESS.max; i++) expect((await refusedSignUp(s)).status).toBe(422);
    const held = await signUpCall(s, { email: uniqueEmail('late'), password: 'a good password' });
    expectThrottled(held, 'over_request_rate_limit', /^Too many sign-ups from your network\. Try again in 60 minutes\.$/, 3600);
    expect(Number(held.headers.get('retry-after'))).toBeGreaterThan(3500);
    // The product API's wrapper is the same service, so the same count.
    const wrapped = await api(s.url, 'POST', '/api/v1/auth/signup', { body: { email: uniqueEmail('late'), password: 'a good password', full_name: 'Late Comer' } });
    expect(wrapped.status).toBe(429);
    expect(wrapped.body).toMatchObject({ success: false, code: 'over_request_rate_limit' });
    expect(wrapped.body.retry_after).toBeGreaterThan(3500);
  }, 60_000);

  it('SIGN_UPS_PER_HOUR sets the per-address sign-up limit', async () => {
    const s = await server({ SIGN_UPS_PER_HOUR: '3' });
    for (let i = 0; i < 3; i++) expect((await refusedSignUp(s)).status).toBe(422);
    expectThrottled(await signUpCall(s, { email: uniqueEmail('late'), password: 'a good password' }), 'over_request_rate_limit', /^Too many sign-ups from your network\. Try again in 60 minutes\.$/, 3600);
  });

  it('X-Forwarded-For does not escape the sign-up limit unless TRUST_PROXY names the proxy', async () => {
    const untrusting = await server();
    for (let i = 0; i < SIGN_UPS_PER_ADDRESS.max; i++) expect((await refusedSignUp(untrusting, `203.0.113.${(i % 250) + 1}`)).status).toBe(422);
    expect((await signUpCall(untrusting, { email: uniqueEmail('forged'), password: 'a good password' }, '198.51.100.200')).status).toBe(429);

    const behindProxy = await proxiedServer();
    for (let i = 0; i < SIGN_UPS_PER_ADDRESS.max; i++) expect((await refusedSignUp(behindProxy, '203.0.113.9')).status).toBe(422);
    expect((await signUpCall(behindProxy, { email: uniqueEmail('same'), password: 'a good password' }, '203.0.113.9')).status).toBe(429);
    const other = await signUpCall(behindProxy, { email: uniqueEmail('other'), password: 'a good password' }, '203.0.113.10');
    expect(other.status).toBe(200);
    expect(other.body.access_token).toBeTruthy();
  }, 60_000);
});

describe('mail limits', () => {
  it(`the confirmation mail for one address is sent at most once a minute and ${MAILS_PER_RECIPIENT.max} times an hour`, async () => {
    const s = await mailingServer();
    const email = uniqueEmail('inbox');
    const body = { email, password: 'a good password' };
    expect((await signUpCall(s, body, '192.0.2.1')).status).toBe(200);
    expect(mailsTo(email)).toBe(1);
    // At once again, from anywhere: GoTrue's answer, and when to come back.
    const soon = await signUpCall(s, body, '192.0.2.2');
    expectThrottled(soon, 'over_email_send_rate_limit', /^For security purposes, you can only request this after \d+ seconds\.$/, 60);
    expect(mailsTo(email)).toBe(1);

    // A minute later each time (the clock moved on): the mail goes again, up to the hourly share.
    const realNow = Date.now.bind(Date);
    let ahead = 0;
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + ahead);
    for (let sent = 2; sent <= MAILS_PER_RECIPIENT.max; sent++) {
      ahead += 61_000;
      const res = await signUpCall(s, body, `192.0.2.${sent + 2}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(mailsTo(email)).toBe(sent);
    }
    ahead += 61_000;
    const flooded = await signUpCall(s, body, '192.0.2.99');
    expectThrottled(flooded, 'over_email_send_rate_limit', /^Too many e-mails were sent to this address\. Try again in \d+ minutes\.$/, 3600);
    expect(mailsTo(email)).toBe(MAILS_PER_RECIPIENT.max);
  }, 60_000);

  it(`past ${MAILS_PER_ADDRESS.max} mails an hour from one address, a sign-up for a new address and one for a registered address get the same 429`, async () => {
    const s = await mailingServer();
    const known = uniqueEmail('known');
    expect((await signUpCall(s, { email: known, password: 'a good password' }, '192.0.2.50')).status).toBe(200);
    expect((await fetch(catcher!.linkFor(known), { redirect: 'manual' })).status).toBe(303);

    // Sign-ups for the registered address only pretend to mail; they count all the same.
    const before = catcher!.mails.length;
    for (let i = 0; i < MAILS_PER_ADDRESS.max; i++) expect((await signUpCall(s, { email: known, password: 'another password' }, '198.51.100.7')).status).toBe(200);
    expect(catcher!.mails.length).toBe(before);

    const unknown = uniqueEmail('unknown');
    const forKnown = await signUpCall(s, { email: known, password: 'another password' }, '198.51.100.7');
    const forUnknown = await signUpCall(s, { email: unknown, password: 'another password' }, '198.51.100.7');
    expectThrottled(forKnown, 'over_email_send_rate_limit', /^Too many e-mails were requested from your network\. Try again in \d+ minutes\.$/, 3600);
    expect(forUnknown.status).toBe(forKnown.status);
    expect(forUnknown.body).toEqual(forKnown.body);
    expect(forUnknown.headers.get('retry-after')).toBeTruthy();
    expect(mailsTo(unknown)).toBe(0);
    // Another address mails as before.
    expect((await signUpCall(s, { email: unknown, password: 'another password' }, '198.51.100.8')).status).toBe(200);
    expect(mailsTo(unknown)).toBe(1);
  }, 60_000);
});

describe('token refresh limits', () => {
  it(`refresh past ${REFRESHES_PER_ADDRESS.max} in 5 minutes from one address answers 429 and a fresh address still refreshes`, async () => {
    const s = await proxiedServer();
    const user = await signUp(s);
    for (let i = 0; i < REFRESHES_PER_ADDRESS.max; i++) expect((await refresh(s, `not-a-token-${i}`, '198.51.100.1')).status).toBe(400);
    const held = await refresh(s, user.refreshToken, '198.51.100.1');
    expectThrottled(held, 'over_request_rate_limit', /^Too many sign-in refreshes from your network\. Try again in \d+ minutes\.$/, 300);
    // The refused request spent nothing: the same token still works from another address.
    const fresh = await refresh(s, user.refreshToken, '198.51.100.2');
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(200);
    expect(fresh.body.access_token).toBeTruthy();
  }, 60_000);

  it(`one session refreshed more than ${REFRESHES_PER_SESSION.max} times in 5 minutes answers 429, and the account's other sessions still refresh`, async () => {
    const s = await proxiedServer();
    const user = await signUp(s);
    let token = user.refreshToken;
    for (let i = 0; i < REFRESHES_PER_SESSION.max; i++) {
      const res = await refresh(s, token);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      token = res.body.refresh_token;
    }
    expectThrottled(await refresh(s, token), 'over_request_rate_limit', /^This session is being refreshed too often\. Try again in \d+ (seconds|minutes)\.$/, 300);
    const other = await api(s.url, 'POST', '/auth/v1/token?grant_type=password', { body: { email: user.email, password: user.password }, headers: headersOf(s) });
    expect(other.status).toBe(200);
    expect((await refresh(s, other.body.refresh_token)).status).toBe(200);
  }, 60_000);
});
