// Members and roles (issue 6): listing, role changes, removal, leaving; an organization always
// keeps an owner; only owners touch owners.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { joinAs, teamOf } from './team-harness';

let server: TestServer;
beforeAll(async () => {
  server = await sharedServer();
});

const members = (orgId: string, token: string) => api(server.url, 'GET', `/api/v1/organizations/${orgId}/members`, { token });
const setRole = (orgId: string, userId: string, role: string, token: string) => api(server.url, 'PATCH', `/api/v1/organizations/${orgId}/members/${userId}`, { token, body: { role } });
const remove = (orgId: string, userId: string, token: string) => api(server.url, 'DELETE', `/api/v1/organizations/${orgId}/members/${userId}`, { token });
const leave = (orgId: string, token: string) => api(server.url, 'POST', `/api/v1/organizations/${orgId}/leave`, { token });

describe('members', () => {
  it('lists every person with their role, oldest first, marking the caller; API key principals are not members', async () => {
    const team = await teamOf(server);
    const key = await api(server.url, 'POST', '/api/v1/api-keys', { token: team.owner.token, body: { organization_id: team.org.id, name: 'ci' } });
    expect(key.status).toBe(200);
    const res = await members(team.org.id, team.viewer.token);
    expect(res.status).toBe(200);
    expect(res.body.members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      [team.owner.email, 'owner'],
      ...(['admin', 'reviewer', 'annotator', 'viewer'] as const).map((r) => [team.byRole[r].email, r]),
    ]);
    expect(res.body.members).toHaveLength(5);
    expect(res.body.members.filter((m: { is_you: boolean }) => m.is_you).map((m: { email: string }) => m.email)).toEqual([team.viewer.email]);
  });

  it('another organization answers 404, a bad id 400, no token 401', async () => {
    const team = await teamOf(server);
    const stranger = await onboardedUser(server);
    expect((await members(team.org.id, stranger.token)).status).toBe(404);
    expect((await members('not-a-uuid', team.owner.token)).status).toBe(400);
    expect((await api(server.url, 'GET', `/api/v1/organizations/${team.org.id}/members`)).status).toBe(401);
  });

  it('owners and admins change roles; the change takes effect on the next request', async () => {
    const team = await teamOf(server);
    const project = await api(server.url, 'POST', '/api/v1/projects', { token: team.owner.token, body: { organization_id: team.org.id, name: 'P', description: null, annotation_types: ['box'], classes: [] } });
    expect(project.status).toBe(200);
    // The annotator may not create projects; made admin by the admin, they may.
    const body = { organization_id: team.org.id, name: 'Q', description: null, annotation_types: ['box'], classes: [] };
    expect((await api(server.url, 'POST', '/api/v1/projects', { token: team.annotator.token, body })).status).toBe(403);
    const changed = await setRole(team.org.id, team.annotator.userId, 'admin', team.admin.token);
    expect(changed.status).toBe(200);
    expect(changed.body.member).toMatchObject({ email: team.annotator.email, role: 'admin' });
    expect((await api(server.url, 'POST', '/api/v1/projects', { token: team.annotator.token, body })).status).toBe(200);
    // Lower roles cannot change roles.
    for (const who of [team.reviewer, team.viewer]) expect((await setRole(team.org.id, team.annotator.userId, 'viewer', who.token)).status).toBe(403);
    // Bad roles are bad input.
    const bad = await setRole(team.org.id, team.annotator.userId, 'superuser', team.owner.token);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, code: 'validation_failed' });
  });

  it('only owners make owners or change and remove an owner', async () => {
    const team = await teamOf(server);
    const r1 = await setRole(team.org.id, team.viewer.userId, 'owner', team.admin.token);
    expect(r1.status).toBe(403);
    expect(r1.body.code).toBe('owner_only');
    expect((await setRole(team.org.id, team.owner.userId, 'viewer', team.admin.token)).status).toBe(403);
    expect((await remove(team.org.id, team.owner.userId, team.admin.token)).status).toBe(403);
    expect((await setRole(team.org.id, team.viewer.userId, 'owner', team.owner.token)).status).toBe(200);
  });

  it('an organization always keeps an owner: the last one cannot be demoted, removed or leave', async () => {
    const team = await teamOf(server);
    const demote = await setRole(team.org.id, team.owner.userId, 'admin', team.owner.token);
    expect(demote.status).toBe(409);
    expect(demote.body).toMatchObject({ success: false, code: 'last_owner' });
    expect((await remove(team.org.id, team.owner.userId, team.owner.token)).body.code).toBe('last_owner');
    const left = await leave(team.org.id, team.owner.token);
    expect(left.status).toBe(409);
    expect(left.body.error).toMatch(/last owner/);
    // With a second owner, the first may step down and then leave.
    expect((await setRole(team.org.id, team.admin.userId, 'owner', team.owner.token)).status).toBe(200);
    expect((await setRole(team.org.id, team.owner.userId, 'admin', team.owner.token)).status).toBe(200);
    expect((await leave(team.org.id, team.owner.token)).status).toBe(200);
    expect((await members(team.org.id, team.owner.token)).status).toBe(404);
    const me = await api(server.url, 'GET', '/api/v1/users/me', { token: team.owner.token });
    expect(me.body.profile.organization_members).toEqual([]);
  });

  it('two owners demoting or removing each other at the same moment leave the organization with an owner (run on PostgreSQL in CI)', async () => {
    const ownerCount = async (orgId: string, token: string) => (await members(orgId, token)).body.members.filter((m: { role: string }) => m.role === 'owner').length;
    for (let round = 0; round < 6; round++) {
      const team = await teamOf(server);
      expect((await setRole(team.org.id, team.admin.userId, 'owner', team.owner.token)).status).toBe(200);
      // Each owner steps the other down at once: demotions, removals, and a mix.
      const [a, b] =
        round % 3 === 0
          ? await Promise.all([setRole(team.org.id, team.admin.userId, 'viewer', team.owner.token), setRole(team.org.id, team.owner.userId, 'viewer', team.admin.token)])
          : round % 3 === 1
            ? await Promise.all([remove(team.org.id, team.admin.userId, team.owner.token), remove(team.org.id, team.owner.userId, team.admin.token)])
            : await Promise.all([remove(team.org.id, team.admin.userId, team.owner.token), setRole(team.org.id, team.owner.userId, 'admin', team.admin.token)]);
      const statuses = [a.status, b.status].sort();
      // One wins; the other finds the last owner (409), no membership (404) or no owner's rights (403).
      expect(statuses, `round ${round}`).not.toEqual([200, 200]);
      const survivor = a.status === 200 ? team.owner : team.admin;
      expect(await ownerCount(team.org.id, survivor.token), `round ${round}`).toBe(1);
    }
  }, 120_000);

  it('a removed member loses access at once; removing someone unknown is 404', async () => {
    const team = await teamOf(server);
    const extra = await joinAs(server, team.owner.token, team.org.id, 'annotator');
    expect((await api(server.url, 'GET', `/api/v1/projects/organization/${team.org.id}`, { token: extra.token })).status).toBe(200);
    expect((await remove(team.org.id, extra.userId, team.admin.token)).status).toBe(200);
    expect((await api(server.url, 'GET', `/api/v1/projects/organization/${team.org.id}`, { token: extra.token })).status).toBe(404);
    expect((await remove(team.org.id, extra.userId, team.admin.token)).status).toBe(404);
    // Annotators cannot remove anyone.
    expect((await remove(team.org.id, team.viewer.userId, team.annotator.token)).status).toBe(403);
  });

  it('any member may leave', async () => {
    const team = await teamOf(server);
    expect((await leave(team.org.id, team.viewer.token)).status).toBe(200);
    const list = await members(team.org.id, team.owner.token);
    expect(list.body.members.map((m: { email: string }) => m.email)).not.toContain(team.viewer.email);
  });
});
