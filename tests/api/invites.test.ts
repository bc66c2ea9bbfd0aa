// Invites (issue 6): a link for one address and one role, single use, expiring after 7 days,
// accepted after signing in (a new user signs up first).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, signUp, startServer, uniqueEmail, type TestServer } from './harness';
import { invite, joinAs } from './team-harness';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  server.built.ctx.now = undefined;
  await server?.stop();
});

const accept = (token: string, userToken: string) => api(server.url, 'POST', `/api/v1/invites/${token}/accept`, { token: userToken });

describe('invites', () => {
  it('a new user signs up with the invited address, sees the invite, accepts it and joins with its role, without onboarding', async () => {
    const owner = await onboardedUser(server);
    const email = uniqueEmail('invitee');
    const created = await api(server.url, 'POST', `/api/v1/organizations/${owner.org.id}/invites`, { token: owner.token, body: { email: email.toUpperCase(), role: 'reviewer' } });
    expect(created.status).toBe(200);
    expect(created.body.invite).toMatchObject({ email, role: 'reviewer', status: 'pending' });
    expect(created.body.invite_url).toMatch(new RegExp(`^${server.url}/invite/[A-Za-z0-9_-]{43}$`));
    expect(created.body.email_sent).toBe(false);
    const days = (Date.parse(created.body.invite.expires_at) - Date.parse(created.body.invite.created_at)) / 86_400_000;
    expect(days).toBe(7);
    const token = created.body.invite_url.split('/invite/')[1];

    const listed = await api(server.url, 'GET', `/api/v1/organizations/${owner.org.id}/invites`, { token: owner.token });
    expect(listed.body.invites.map((i: { email: string }) => i.email)).toEqual([email]);

    const user = await signUp(server, { email });
    const before = await api(server.url, 'GET', '/api/v1/users/me', { token: user.token });
    expect(before.body.needs_onboarding).toBe(true);
    const preview = await api(server.url, 'GET', `/api/v1/invites/${token}`, { token: user.token });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ organization_name: `Org ${owner.org.slug}`, role: 'reviewer', email, status: 'pending', for_you: true, already_member: false });

    const res = await accept(token, user.token);
    expect(res.status).toBe(200);
    expect(res.body.organization).toMatchObject({ id: owner.org.id, user_role: 'reviewer' });
    const me = await api(server.url, 'GET', '/api/v1/users/me', { token: user.token });
    expect(me.body.needs_onboarding).toBe(false);
    expect(me.body.profile.default_organization_id).toBe(owner.org.id);
    expect(me.body.profile.organization_members).toEqual([{ role: 'reviewer', organization: expect.objectContaining({ id: owner.org.id }) }]);
    // Accepted invites leave the pending list.
    expect((await api(server.url, 'GET', `/api/v1/organizations/${owner.org.id}/invites`, { token: owner.token })).body.invites).toEqual([]);
  });

  it('an existing user with their own organization accepts and keeps both', async () => {
    const owner = await onboardedUser(server);
    const other = await onboardedUser(server);
    const token = await invite(server, owner.token, owner.org.id, other.email, 'annotator');
    expect((await accept(token, other.token)).status).toBe(200);
    const me = await api(server.url, 'GET', '/api/v1/users/me', { token: other.token });
    expect(me.body.profile.default_organization_id).toBe(other.org.id);
    expect(me.body.profile.organization_members.map((m: { role: string }) => m.role).sort()).toEqual(['annotator', 'owner']);
  });

  it('is single use', async () => {
    const owner = await onboardedUser(server);
    const user = await signUp(server);
    const token = await invite(server, owner.token, owner.org.id, user.email, 'viewer');
    expect((await accept(token, user.token)).status).toBe(200);
    const again = await accept(token, user.token);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ success: false, code: 'invite_used', error: 'This invite has already been used' });
    const preview = await api(server.url, 'GET', `/api/v1/invites/${token}`, { token: user.token });
    expect(preview.body).toMatchObject({ status: 'accepted', already_member: true });
  });

  it('works only for the invited address', async () => {
    const owner = await onboardedUser(server);
    const invited = uniqueEmail('right');
    const wrong = await signUp(server);
    const token = await invite(server, owner.token, owner.org.id, invited, 'annotator');
    const preview = await api(server.url, 'GET', `/api/v1/invites/${token}`, { token: wrong.token });
    expect(preview.body.for_you).toBe(false);
    const res = await accept(token, wrong.token);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'invite_wrong_email' });
    expect(res.body.error).toContain(invited);
    expect((await api(server.url, 'GET', `/api/v1/projects/organization/${owner.org.id}`, { token: wrong.token })).status).toBe(404);
    // Still usable by the right person.
    const right = await signUp(server, { email: invited });
    expect((await accept(token, right.token)).status).toBe(200);
  });

  it('expires after 7 days', async () => {
    const owner = await onboardedUser(server);
    const user = await signUp(server);
    const token = await invite(server, owner.token, owner.org.id, user.email, 'annotator');
    const realNow = Date.now();
    server.built.ctx.now = () => new Date(realNow + 7 * 86_400_000 + 60_000);
    try {
      const res = await accept(token, user.token);
      expect(res.status).toBe(410);
      expect(res.body).toMatchObject({ success: false, code: 'invite_expired' });
      expect((await api(server.url, 'GET', `/api/v1/invites/${token}`, { token: user.token })).body.status).toBe('expired');
    } finally {
      server.built.ctx.now = undefined;
    }
    server.built.ctx.now = () => new Date(realNow + 6 * 86_400_000);
    try {
      expect((await accept(token, user.token)).status).toBe(200);
    } finally {
      server.built.ctx.now = undefined;
    }
  });

  it('a new invite for the same address replaces the old link; a withdrawn invite cannot be used', async () => {
    const owner = await onboardedUser(server);
    const user = await signUp(server);
    const first = await invite(server, owner.token, owner.org.id, user.email, 'viewer');
    const second = await invite(server, owner.token, owner.org.id, user.email, 'annotator');
    expect((await accept(first, user.token)).body.code).toBe('invite_revoked');
    const list = await api(server.url, 'GET', `/api/v1/organizations/${owner.org.id}/invites`, { token: owner.token });
    expect(list.body.invites).toHaveLength(1);
    const del = await api(server.url, 'DELETE', `/api/v1/organizations/${owner.org.id}/invites/${list.body.invites[0].id}`, { token: owner.token });
    expect(del.status).toBe(200);
    expect((await accept(second, user.token)).status).toBe(409);
  });

  it('only owners and admins invite, never above their own role; members are not invited twice', async () => {
    const owner = await onboardedUser(server);
    const admin = await joinAs(server, owner.token, owner.org.id, 'admin');
    const annotator = await joinAs(server, owner.token, owner.org.id, 'annotator');
    const post = (token: string, body: unknown) => api(server.url, 'POST', `/api/v1/organizations/${owner.org.id}/invites`, { token, body });
    expect((await post(annotator.token, { email: uniqueEmail(), role: 'viewer' })).status).toBe(403);
    const ceiling = await post(admin.token, { email: uniqueEmail(), role: 'owner' });
    expect(ceiling.status).toBe(403);
    expect(ceiling.body.code).toBe('role_ceiling');
    expect((await post(admin.token, { email: uniqueEmail(), role: 'admin' })).status).toBe(200);
    const dup = await post(owner.token, { email: annotator.email, role: 'viewer' });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('already_member');
    const bad = await post(owner.token, { email: 'not an address', role: 'viewer' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('Please enter a valid email address');
    const stranger = await onboardedUser(server);
    expect((await post(stranger.token, { email: uniqueEmail(), role: 'viewer' })).status).toBe(404);
  });

  it('unknown or malformed links answer 404 / 400; links need a signed-in user', async () => {
    const user = await signUp(server);
    expect((await accept('x'.repeat(43), user.token)).status).toBe(404);
    expect((await accept('short', user.token)).status).toBe(400);
    expect((await api(server.url, 'POST', `/api/v1/invites/${'x'.repeat(43)}/accept`)).status).toBe(401);
  });
});
