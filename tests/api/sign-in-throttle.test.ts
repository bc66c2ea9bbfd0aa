// Sign-in throttling that holds (issue 15, item 2): X-Forwarded-For is believed only from the
// proxies TRUST_PROXY names, so a new forwarded address per attempt no longer escapes the limit
// per (address, account); and whatever the addresses, an account's failures past 20 make each
// next attempt wait twice as long (at most 5 minutes), so the owner is slowed, never locked out.
import { afterAll, describe, expect, it } from 'vitest';
import { api, signUp, startServer, type TestServer } from './harness';
import { ConfigError, loadConfig } from '../../src/server/config';

const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
});

async function server(env: Record<string, string> = {}) {
  const s = await startServer(env);
  servers.push(s);
  return s;
}

const signIn = (s: TestServer, email: string, password: string, forwardedFor?: string) =>
  api(s.url, 'POST', '/auth/v1/token?grant_type=password', { body: { email, password }, headers: { apikey: s.built.ctx.auth.anonKey, ...(forwardedFor && { 'x-forwarded-for': forwardedFor }) } });

describe('sign-in throttle', () => {
  it('a new X-Forwarded-For on each wrong password does not escape the limit: no proxy is trusted by default', async () => {
    const s = await server();
    const user = await signUp(s);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await signIn(s, user.email, 'wrong password', `203.0.113.${i + 1}`)).status);
    expect(statuses.slice(0, 10).every((st) => st === 400)).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429]);
  }, 60_000);

  it('behind a trusted proxy the forwarded address counts, and the account backs off whatever the addresses, then lets its owner in', async () => {
    const s = await server({ TRUST_PROXY: '127.0.0.1, ::1' });
    const user = await signUp(s);
    for (let i = 0; i < 20; i++) expect((await signIn(s, user.email, 'wrong password', `198.51.100.${i + 1}`)).status).toBe(400);
    // The 21st attempt, from yet another address: the account waits (1 s after 20 failures, doubling after).
    const held = await signIn(s, user.email, user.password, '192.0.2.7');
    expect(held.status).toBe(429);
    expect(held.body.error_code ?? held.body.code).toBe('over_request_rate_limit');
    expect(held.body.msg ?? held.body.message).toMatch(/Try again in 1 seconds/);
    await new Promise((r) => setTimeout(r, 1100));
    const owner = await signIn(s, user.email, user.password, '192.0.2.7');
    expect(owner.status).toBe(200);
    expect(owner.body.access_token).toBeTruthy();
  }, 60_000);

  it('TRUST_PROXY takes addresses and CIDRs, and refuses anything else in one line', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.10 ,::1, fd00::/8' }).trustProxy).toEqual(['10.0.0.0/8', '192.168.1.10', '::1', 'fd00::/8']);
    for (const bad of ['true', 'proxy.local', '10.0.0.0/33', '1.2.3.4/8/1', '::1/129']) {
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY/);
    }
  });
});
