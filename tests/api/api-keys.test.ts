// API keys (issue 6): created and checked by the server, shown once, stored as hashes; a key
// carries its creator's organization and a role no higher than the creator's; revoked keys stop
// at once; another organization's resources answer 404.
import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { joinAs } from './team-harness';
import { apiKeys } from '../../src/server/db/schema';

let server: TestServer;
beforeAll(async () => {
  server = await sharedServer();
});

const createKey = (token: string, body: Record<string, unknown>) => api(server.url, 'POST', '/api/v1/api-keys', { token, body });
const newProject = (token: string, orgId: string, name = 'Keyed') =>
  api(server.url, 'POST', '/api/v1/projects', { token, body: { organization_id: orgId, name, description: null, annotation_types: ['box'], classes: [] } });

describe('API keys', () => {
  it('are shown once, stored as a hash, recognisable by prefix, and authenticate product routes as Bearer', async () => {
    const owner = await onboardedUser(server);
    const res = await createKey(owner.token, { organization_id: owner.org.id, name: 'Nightly import' });
    expect(res.status).toBe(200);
    const key: string = res.body.key;
    expect(key).toMatch(/^vlm_[A-Za-z0-9_-]{43}$/);
    expect(res.body.api_key).toMatchObject({ name: 'Nightly import', role: 'owner', organization_id: owner.org.id, prefix: key.slice(0, 12), created_by: owner.email, last_used_at: null });
    const [row] = await server.built.ctx.db.select().from(apiKeys).where(eq(apiKeys.id, res.body.api_key.id));
    expect(row.keyHash).not.toContain(key.slice(4));
    expect(JSON.stringify(row)).not.toContain(key);

    const list = await api(server.url, 'GET', `/api/v1/api-keys?organization_id=${owner.org.id}`, { token: owner.token });
    expect(list.status).toBe(200);
    expect(list.body.api_keys).toHaveLength(1);
    expect(JSON.stringify(list.body)).not.toContain(key);

    const created = await newProject(key, owner.org.id);
    expect(created.status).toBe(200);
    const projects = await api(server.url, 'GET', `/api/v1/projects/organization/${owner.org.id}`, { token: key });
    expect(projects.body.projects.map((p: { name: string }) => p.name)).toEqual(['Keyed']);
    const images = await api(server.url, 'GET', `/api/v1/projects/${created.body.project.id}/images?org_id=${owner.org.id}&page=1&limit=10`, { token: key });
    expect(images.status).toBe(200);
    await new Promise((r) => setTimeout(r, 100));
    const after = await api(server.url, 'GET', `/api/v1/api-keys?organization_id=${owner.org.id}`, { token: owner.token });
    expect(after.body.api_keys[0].last_used_at).not.toBeNull();
  });

  it('need a name', async () => {
    const owner = await onboardedUser(server);
    for (const name of ['', '   ']) {
      const res = await createKey(owner.token, { organization_id: owner.org.id, name });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('Please enter a name for the API key');
    }
  });

  it('stop at once when revoked', async () => {
    const owner = await onboardedUser(server);
    const res = await createKey(owner.token, { organization_id: owner.org.id, name: 'temp' });
    const key = res.body.key;
    expect((await api(server.url, 'GET', `/api/v1/projects/organization/${owner.org.id}`, { token: key })).status).toBe(200);
    expect((await api(server.url, 'DELETE', `/api/v1/api-keys/${res.body.api_key.id}`, { token: owner.token })).status).toBe(200);
    const after = await api(server.url, 'GET', `/api/v1/projects/organization/${owner.org.id}`, { token: key });
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ success: false, code: 'invalid_api_key' });
    expect((await api(server.url, 'GET', `/api/v1/api-keys?organization_id=${owner.org.id}`, { token: owner.token })).body.api_keys).toEqual([]);
    expect((await api(server.url, 'DELETE', `/api/v1/api-keys/${res.body.api_key.id}`, { token: owner.token })).status).toBe(404);
  });

  it('never carry a role above the creator’s, and follow the creator down', async () => {
    const owner = await onboardedUser(server);
    const annotator = await joinAs(server, owner.token, owner.org.id, 'annotator');
    const tooHigh = await createKey(annotator.token, { organization_id: owner.org.id, name: 'x', role: 'admin' });
    expect(tooHigh.status).toBe(403);
    expect(tooHigh.body.code).toBe('role_ceiling');
    const key = (await createKey(annotator.token, { organization_id: owner.org.id, name: 'labeler' })).body;
    expect(key.api_key.role).toBe('annotator');
    // An annotator's key may not create projects (403) but may save annotations' usage etc.
    expect((await newProject(key.key, owner.org.id)).status).toBe(403);
    // An owner's viewer key cannot upload or create.
    const viewerKey = (await createKey(owner.token, { organization_id: owner.org.id, name: 'read-only', role: 'viewer' })).body;
    expect(viewerKey.api_key.role).toBe('viewer');
    expect((await newProject(viewerKey.key, owner.org.id)).status).toBe(403);
    expect((await api(server.url, 'GET', `/api/v1/projects/organization/${owner.org.id}`, { token: viewerKey.key })).status).toBe(200);
    // The owner makes the annotator a viewer: the key drops to viewer with them.
    const project = (await newProject(owner.token, owner.org.id)).body.project;
    const usage = { organization_id: owner.org.id, project_id: project.id, annotation_type: 'bbox', annotation_count: 1 };
    expect((await api(server.url, 'POST', '/api/v1/usage/annotation', { token: key.key, body: usage })).status).toBe(200);
    expect((await api(server.url, 'PATCH', `/api/v1/organizations/${owner.org.id}/members/${annotator.userId}`, { token: owner.token, body: { role: 'viewer' } })).status).toBe(200);
    expect((await api(server.url, 'POST', '/api/v1/usage/annotation', { token: key.key, body: usage })).status).toBe(403);
    const listed = await api(server.url, 'GET', `/api/v1/api-keys?organization_id=${owner.org.id}`, { token: owner.token });
    expect(listed.body.api_keys.find((k: { id: string }) => k.id === key.api_key.id).role).toBe('viewer');
    // Removed from the organization: their keys are revoked.
    expect((await api(server.url, 'DELETE', `/api/v1/organizations/${owner.org.id}/members/${annotator.userId}`, { token: owner.token })).status).toBe(200);
    expect((await api(server.url, 'GET', `/api/v1/projects/organization/${owner.org.id}`, { token: key.key })).status).toBe(401);
  });

  it("belong to one organization: another organization's resources answer 404, even the creator's other ones", async () => {
    const owner = await onboardedUser(server);
    const second = await onboardedUser(server);
    // The owner is also a member of a second organization.
    const inv = await api(server.url, 'POST', `/api/v1/organizations/${second.org.id}/invites`, { token: second.token, body: { email: owner.email, role: 'admin' } });
    expect((await api(server.url, 'POST', `/api/v1/invites/${inv.body.invite_url.split('/invite/')[1]}/accept`, { token: owner.token })).status).toBe(200);
    const otherProject = (await newProject(second.token, second.org.id, 'Theirs')).body.project;
    const key = (await createKey(owner.token, { organization_id: owner.org.id, name: 'scoped' })).body.key;
    expect((await api(server.url, 'GET', `/api/v1/projects/organization/${second.org.id}`, { token: key })).status).toBe(404);
    expect((await api(server.url, 'GET', `/api/v1/projects/${otherProject.id}`, { token: key })).status).toBe(404);
    expect((await api(server.url, 'DELETE', `/api/v1/projects/${otherProject.id}`, { token: key })).status).toBe(404);
    expect((await newProject(key, second.org.id)).status).toBe(404);
    // The creator's session still reaches both.
    expect((await api(server.url, 'GET', `/api/v1/projects/${otherProject.id}`, { token: owner.token })).status).toBe(200);
  });

  it('cannot manage the account or other keys; bad keys are 401', async () => {
    const owner = await onboardedUser(server);
    const key = (await createKey(owner.token, { organization_id: owner.org.id, name: 'k' })).body.key;
    for (const [method, path] of [
      ['GET', '/api/v1/users/me'],
      ['DELETE', '/api/v1/users/me'],
      ['GET', `/api/v1/api-keys?organization_id=${owner.org.id}`],
    ] as const) {
      const res = await api(server.url, method, path, { token: key });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.code).toBe('api_key_not_allowed');
    }
    const minted = await createKey(key, { organization_id: owner.org.id, name: 'child' });
    expect(minted.status).toBe(403);
    expect((await api(server.url, 'GET', '/api/v1/users/me', { token: owner.token })).status).toBe(200);
    for (const bad of ['vlm_nope', `vlm_${'a'.repeat(43)}`]) {
      const res = await api(server.url, 'GET', `/api/v1/projects/organization/${owner.org.id}`, { token: bad });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('invalid_api_key');
    }
  });

  it("lists: members see their own keys, owners and admins every key; only they revoke others' keys", async () => {
    const owner = await onboardedUser(server);
    const annotator = await joinAs(server, owner.token, owner.org.id, 'annotator');
    const mine = (await createKey(annotator.token, { organization_id: owner.org.id, name: 'mine' })).body.api_key;
    const ownerKey = (await createKey(owner.token, { organization_id: owner.org.id, name: 'owner key' })).body.api_key;
    const list = (token: string) => api(server.url, 'GET', `/api/v1/api-keys?organization_id=${owner.org.id}`, { token });
    expect((await list(annotator.token)).body.api_keys.map((k: { name: string }) => k.name)).toEqual(['mine']);
    expect((await list(owner.token)).body.api_keys.map((k: { name: string }) => k.name).sort()).toEqual(['mine', 'owner key']);
    expect((await api(server.url, 'DELETE', `/api/v1/api-keys/${ownerKey.id}`, { token: annotator.token })).status).toBe(404);
    expect((await api(server.url, 'DELETE', `/api/v1/api-keys/${mine.id}`, { token: owner.token })).status).toBe(200);
  });
});
