// Account deletion (DELETE /users/me, issue 6): deactivation at once, final billing per
// organization, ownership passing on (or a clear refusal), reactivation by signing in within 30
// days, and the purge after it (with a moved clock).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { api, onboardedUser, signUp, startServer, type TestServer } from './harness';
import { joinAs, signIn } from './team-harness';
import { purgeExpiredAccounts } from '../../src/server/services/account-purge';
import { authSessions, authUsers, organizations, profiles, projects } from '../../src/server/db/schema';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterEach(() => {
  server.built.ctx.now = undefined;
});
afterAll(async () => {
  await server?.stop();
});

const DAY = 86_400_000;
const del = (token: string) => api(server.url, 'DELETE', '/api/v1/users/me', { token });
const me = (token: string) => api(server.url, 'GET', '/api/v1/users/me', { token });

async function projectWithImage(token: string, orgId: string) {
  const project = (await api(server.url, 'POST', '/api/v1/projects', { token, body: { organization_id: orgId, name: 'Data', description: null, annotation_types: ['box'], classes: [] } })).body.project;
  const usage = await api(server.url, 'POST', '/api/v1/usage/annotation', { token, body: { organization_id: orgId, project_id: project.id, annotation_type: 'polygon', annotation_count: 7 } });
  expect(usage.status).toBe(200);
  return project;
}

describe('DELETE /users/me', () => {
  it('deactivates at once: final billing per organization, sessions and API keys stop, sole organizations are scheduled', async () => {
    const user = await onboardedUser(server);
    const project = await projectWithImage(user.token, user.org.id);
    const key = (await api(server.url, 'POST', '/api/v1/api-keys', { token: user.token, body: { organization_id: user.org.id, name: 'k' } })).body.key;
    expect((await api(server.url, 'GET', `/api/v1/projects/${project.id}`, { token: key })).status).toBe(200);

    const res = await del(user.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      message: 'Account successfully deleted. Final billing data has been calculated for 1 organization(s).',
      organizations_processed: 1,
      final_billing: [{ organization_id: user.org.id, outcome: 'scheduled_for_deletion', annotations_total: 7, annotations_by_type: { polygon: 7 }, project_count: 1 }],
    });
    expect(Date.parse(res.body.purge_after) - Date.now()).toBeGreaterThan(29 * DAY);

    // The session's token, its refresh token and the API key stop working.
    expect((await me(user.token)).status).toBe(401);
    expect((await api(server.url, 'GET', '/auth/v1/user', { token: user.token, headers: { apikey: server.built.ctx.auth.anonKey } })).status).toBe(403);
    const refresh = await api(server.url, 'POST', '/auth/v1/token?grant_type=refresh_token', { body: { refresh_token: user.refreshToken }, headers: { apikey: server.built.ctx.auth.anonKey } });
    expect(refresh.status).toBe(400);
    expect((await api(server.url, 'GET', `/api/v1/projects/${project.id}`, { token: key })).status).toBe(401);
    // The organization is scheduled, its data kept for the grace period.
    const [org] = await server.built.ctx.db.select().from(organizations).where(eq(organizations.id, user.org.id));
    expect(org.deletionScheduledAt).not.toBeNull();
  });

  it('signing in again within 30 days reactivates: was_reactivated and the message until dismissed, organization restored', async () => {
    const user = await onboardedUser(server);
    await projectWithImage(user.token, user.org.id);
    expect((await del(user.token)).status).toBe(200);
    server.built.ctx.now = () => new Date(Date.now() + 29 * DAY);
    const token = await signIn(server, user.email, user.password);
    const res = await me(token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ was_reactivated: true, reactivation_message: 'Welcome back! Your account has been reactivated and 1 organization(s) restored.', needs_onboarding: false });
    expect(res.body.profile.organization_members).toEqual([{ role: 'owner', organization: expect.objectContaining({ id: user.org.id }) }]);
    expect((await api(server.url, 'GET', `/api/v1/projects/organization/${user.org.id}`, { token })).body.projects).toHaveLength(1);
    // Still there on the next load, until dismissed.
    expect((await me(token)).body.was_reactivated).toBe(true);
    expect((await api(server.url, 'DELETE', '/api/v1/users/me/reactivation', { token })).status).toBe(200);
    expect((await me(token)).body).toMatchObject({ was_reactivated: false, reactivation_message: null });
  });

  it('a deletion made by another server process is not undone by a session this one still caches as live', async () => {
    const user = await signUp(server);
    const db = server.built.ctx.db;
    // This process has just seen the session live (its cache keeps that for a few seconds)...
    await server.built.ctx.auth.verifyAccessToken(user.token);
    // ...when another process deletes the account: the profile is deactivated, the sessions end.
    const now = new Date();
    await db.insert(profiles).values({ id: user.userId, email: user.email, deactivatedAt: now }).onConflictDoUpdate({ target: profiles.id, set: { deactivatedAt: now } });
    await db.update(authSessions).set({ revokedAt: now }).where(eq(authSessions.userId, user.userId));

    const stale = await me(user.token);
    expect(stale.status).toBe(401);
    expect(stale.body.code).toBe('account_deactivated');
    const [row] = await db.select({ deactivatedAt: profiles.deactivatedAt }).from(profiles).where(eq(profiles.id, user.userId));
    expect(row.deactivatedAt).not.toBeNull();

    // A new sign-in is what reactivates.
    const fresh = await me(await signIn(server, user.email, user.password));
    expect(fresh.status).toBe(200);
    expect(fresh.body.was_reactivated).toBe(true);
  });

  it('after the grace period the purge removes the organizations, their projects and files, the profile and the identity', async () => {
    const user = await onboardedUser(server);
    const project = await projectWithImage(user.token, user.org.id);
    const bucket = user.org.gcs_bucket_name;
    await server.built.ctx.storage.put(bucket, `${project.gcs_path}/images/a.png`, Buffer.from('x'), { contentType: 'image/png' });
    const bystander = await onboardedUser(server);
    expect((await del(user.token)).status).toBe(200);

    server.built.ctx.now = () => new Date(Date.now() + 29 * DAY);
    expect((await purgeExpiredAccounts(server.built.ctx)).accounts).toBe(0);
    server.built.ctx.now = () => new Date(Date.now() + 31 * DAY);
    const purged = await purgeExpiredAccounts(server.built.ctx);
    expect(purged.accounts).toBeGreaterThanOrEqual(1);
    const db = server.built.ctx.db;
    expect(await db.select().from(organizations).where(eq(organizations.id, user.org.id))).toEqual([]);
    expect(await db.select().from(projects).where(eq(projects.id, project.id))).toEqual([]);
    expect(await db.select().from(profiles).where(eq(profiles.id, user.userId))).toEqual([]);
    expect(await server.built.ctx.storage.bucketExists(bucket)).toBe(false);
    const [identity] = await db.select().from(authUsers).where(eq(authUsers.id, user.userId));
    expect(identity.deletedAt).not.toBeNull();
    // Signing in is no longer possible; others are untouched.
    const signin = await api(server.url, 'POST', '/auth/v1/token?grant_type=password', { body: { email: user.email, password: user.password }, headers: { apikey: server.built.ctx.auth.anonKey } });
    expect(signin.status).toBe(400);
    expect((await me(bystander.token)).status).toBe(200);
    expect(await server.built.ctx.storage.bucketExists(bystander.org.gcs_bucket_name)).toBe(true);
  });

  it('an organization with other members passes to the earliest admin and keeps its data', async () => {
    const owner = await onboardedUser(server);
    const project = await projectWithImage(owner.token, owner.org.id);
    await joinAs(server, owner.token, owner.org.id, 'viewer');
    const admin = await joinAs(server, owner.token, owner.org.id, 'admin');
    const res = await del(owner.token);
    expect(res.status).toBe(200);
    expect(res.body.final_billing).toEqual([expect.objectContaining({ organization_id: owner.org.id, outcome: 'ownership_transferred', new_owner_email: admin.email })]);
    const list = await api(server.url, 'GET', `/api/v1/organizations/${owner.org.id}/members`, { token: admin.token });
    expect(list.body.members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      [expect.any(String), 'viewer'],
      [admin.email, 'owner'],
    ]);
    expect((await api(server.url, 'GET', `/api/v1/projects/${project.id}`, { token: admin.token })).status).toBe(200);
    // Reactivating later does not take the organization back.
    const token = await signIn(server, owner.email, owner.password);
    const back = await me(token);
    expect(back.body.was_reactivated).toBe(true);
    expect(back.body.profile.organization_members).toEqual([]);
  });

  it('is refused with a clear message when nobody could own a shared organization, and nothing changes', async () => {
    const owner = await onboardedUser(server);
    const annotator = await joinAs(server, owner.token, owner.org.id, 'annotator');
    const res = await del(owner.token);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ success: false, code: 'ownership_transfer_required' });
    expect(res.body.error).toContain(`Org ${owner.org.slug}`);
    expect((await me(owner.token)).status).toBe(200);
    expect((await api(server.url, 'GET', `/api/v1/projects/organization/${owner.org.id}`, { token: annotator.token })).status).toBe(200);
  });

  it('counts every organization in the billing message; a plain member just leaves', async () => {
    const owner = await onboardedUser(server);
    const member = await onboardedUser(server);
    const inv = await api(server.url, 'POST', `/api/v1/organizations/${owner.org.id}/invites`, { token: owner.token, body: { email: member.email, role: 'annotator' } });
    await api(server.url, 'POST', `/api/v1/invites/${inv.body.invite_url.split('/invite/')[1]}/accept`, { token: member.token });
    const res = await del(member.token);
    expect(res.body.message).toBe('Account successfully deleted. Final billing data has been calculated for 2 organization(s).');
    expect(res.body.organizations_processed).toBe(2);
    expect(res.body.final_billing.map((b: { outcome: string }) => b.outcome).sort()).toEqual(['left', 'scheduled_for_deletion']);
    const members = await api(server.url, 'GET', `/api/v1/organizations/${owner.org.id}/members`, { token: owner.token });
    expect(members.body.members.map((m: { email: string }) => m.email)).toEqual([owner.email]);
  });

  it('a user without an organization can delete too; needs a token', async () => {
    const user = await signUp(server);
    const res = await del(user.token);
    expect(res.status).toBe(200);
    expect(res.body.organizations_processed).toBe(0);
    expect((await api(server.url, 'DELETE', '/api/v1/users/me')).status).toBe(401);
  });
});

describe('DELETE /users/me with hosted identity (SUPABASE_URL)', () => {
  // A second server plays hosted Supabase Auth; the product cannot end its sessions, so it refuses
  // every token issued before the deletion and lets a new sign-in reactivate.
  const SECRET = 'shared-jwt-secret-for-the-account-deletion-test-0123456789';
  let hosted: TestServer;
  let product: TestServer;
  beforeAll(async () => {
    hosted = await startServer({ SUPABASE_JWT_SECRET: SECRET });
    const hostedAuth = hosted.built.ctx.auth as unknown as { anonKey: string; serviceRoleKey: string };
    product = await startServer({ SUPABASE_URL: hosted.url, SUPABASE_ANON_KEY: hostedAuth.anonKey, SUPABASE_JWT_SECRET: SECRET, SUPABASE_SERVICE_ROLE_KEY: hostedAuth.serviceRoleKey });
  });
  afterAll(async () => {
    await product?.stop();
    await hosted?.stop();
  });

  it('refuses the tokens issued before the deletion; a later sign-in reactivates', async () => {
    const user = await signUp(hosted);
    const onboarding = await api(product.url, 'POST', '/api/v1/users/onboarding', { token: user.token, body: { full_name: 'H', organization_name: 'Hosted Org', organization_slug: `hosted-${Date.now().toString(36)}` } });
    expect(onboarding.status).toBe(200);
    expect((await api(product.url, 'DELETE', '/api/v1/users/me', { token: user.token })).status).toBe(200);
    const old = await api(product.url, 'GET', '/api/v1/users/me', { token: user.token });
    expect(old.status).toBe(401);
    expect(old.body.code).toBe('account_deactivated');
    // Tokens carry whole seconds: a new one must be issued after the deletion's second.
    await new Promise((r) => setTimeout(r, 1100));
    const fresh = await signIn(hosted, user.email, user.password);
    const back = await api(product.url, 'GET', '/api/v1/users/me', { token: fresh });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ was_reactivated: true, needs_onboarding: false });
  });
});
