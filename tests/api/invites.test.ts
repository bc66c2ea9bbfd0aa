// Invites (issue 6): a link for one address and one role, single use, expiring after 7 days,
// accepted after signing in (a new user signs up first).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, sharedServer, signUp, startServer, type TestServer, uniqueEmail } from './harness';
import { invite, joinAs } from './team-harness';
import { startMailCatcher, type MailCatcher } from './support/mail-catcher';

let server: TestServer;
beforeAll(async () => {
  server = await sharedServer();
});
afterAll(() => {
  if (server) server.built.ctx.now = undefined;
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

  it("an invite lasts only while its inviter could still give it: a demoted or removed inviter's pending invites are withdrawn", async () => {
    const owner = await onboardedUser(server);
    const second = await joinAs(server, owner.token, owner.org.id, 'owner');
    const sentBy = async (token: string, role: 'owner' | 'admin' | 'viewer') => {
      const user = await signUp(server);
      return { user, token: await invite(server, token, owner.org.id, user.email, role) };
    };
    const asOwner = await sentBy(second.token, 'owner');
    const asAdmin = await sentBy(second.token, 'admin');
    const asViewer = await sentBy(second.token, 'viewer');
    const byFirst = await sentBy(owner.token, 'admin');
    const setRole = (role: string) => api(server.url, 'PATCH', `/api/v1/organizations/${owner.org.id}/members/${second.userId}`, { token: owner.token, body: { role } });
    const pending = async () =>
      (await api(server.url, 'GET', `/api/v1/organizations/${owner.org.id}/invites`, { token: owner.token })).body.invites.map((i: { email: string }) => i.email).sort();

    // Made an admin: they still invite, but no longer as owner.
    expect((await setRole('admin')).status).toBe(200);
    expect(await pending()).toEqual([asAdmin.user.email, asViewer.user.email, byFirst.user.email].sort());
    const withdrawn = await accept(asOwner.token, asOwner.user.token);
    expect(withdrawn.status).toBe(409);
    expect(withdrawn.body.code).toBe('invite_revoked');
    // Made a reviewer, who does not invite: every invite they sent is withdrawn.
    expect((await setRole('reviewer')).status).toBe(200);
    expect(await pending()).toEqual([byFirst.user.email]);
    expect((await accept(asViewer.token, asViewer.user.token)).body.code).toBe('invite_revoked');
    // Removed: the same for an admin's invites.
    const admin = await joinAs(server, owner.token, owner.org.id, 'admin');
    const byAdmin = await sentBy(admin.token, 'viewer');
    expect(await pending()).toEqual([byAdmin.user.email, byFirst.user.email].sort());
    expect((await api(server.url, 'DELETE', `/api/v1/organizations/${owner.org.id}/members/${admin.userId}`, { token: owner.token })).status).toBe(200);
    expect(await pending()).toEqual([byFirst.user.email]);
    expect((await accept(byAdmin.token, byAdmin.user.token)).body.code).toBe('invite_revoked');
    // Others' invites are untouched.
    expect((await accept(byFirst.token, byFirst.user.token)).status).toBe(200);
  });

  it('unknown or malformed links answer 404 / 400; links need a signed-in user', async () => {
    const user = await signUp(server);
    expect((await accept('x'.repeat(43), user.token)).status).toBe(404);
    expect((await accept('short', user.token)).status).toBe(400);
    expect((await api(server.url, 'POST', `/api/v1/invites/${'x'.repeat(43)}/accept`)).status).toBe(401);
  });
});

describe('invites with SMTP configured', () => {
  // A local SMTP server catches what the server sends.
  let mailServer: TestServer;
  let catcher: MailCatcher;
  beforeAll(async () => {
    catcher = await startMailCatcher('Vellum <team@vellum.test>');
    mailServer = await startServer(catcher.smtpEnv);
  });
  afterAll(async () => {
    await mailServer?.stop();
    await catcher?.close();
  });

  it('mails the link to the invited address (the inviter can still copy it)', async () => {
    // Accounts need a confirmed address with SMTP on; confirm the owner's directly.
    const email = uniqueEmail('mailowner');
    const anon = { apikey: mailServer.built.ctx.auth.anonKey };
    expect((await api(mailServer.url, 'POST', '/auth/v1/signup', { body: { email, password: 'correct horse', data: { full_name: 'Mail <Owner>' } }, headers: anon })).status).toBe(200);
    const { authUsers } = await import('../../src/server/db/schema');
    const { sql } = await import('drizzle-orm');
    await mailServer.built.ctx.db.update(authUsers).set({ emailConfirmedAt: new Date() }).where(sql`lower(${authUsers.email}) = ${email}`);
    const token = (await api(mailServer.url, 'POST', '/auth/v1/token?grant_type=password', { body: { email, password: 'correct horse' }, headers: anon })).body.access_token;
    const org = (await api(mailServer.url, 'POST', '/api/v1/users/onboarding', { token, body: { full_name: 'Mail <Owner>', organization_name: 'Mail & Co', organization_slug: `mail-${Date.now().toString(36)}` } })).body.organization;
    const invited = uniqueEmail('mailed');
    const res = await api(mailServer.url, 'POST', `/api/v1/organizations/${org.id}/invites`, { token, body: { email: invited, role: 'annotator' } });
    expect(res.status).toBe(200);
    expect(res.body.email_sent).toBe(true);
    const mail = catcher.mails.find((m) => m.to.includes(invited));
    expect(mail).toBeTruthy();
    const unfolded = mail!.body.replace(/=\r?\n/g, '');
    expect(unfolded).toContain(res.body.invite_url.split('/invite/')[1]);
    expect(unfolded).toContain('Mail & Co');
    // In the HTML part, names are escaped.
    expect(unfolded).toContain('<strong>Mail &#38; Co</strong>');
    expect(unfolded).toContain('Mail &#60;Owner&#62; invited you');
    expect(unfolded).not.toMatch(/<strong>Mail & Co<\/strong>/);
  });
});
