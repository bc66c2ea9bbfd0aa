// The account, organization and project calls of spec section 7, as a client sees them.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, sharedServer, signUp, startServer, tempDir, type TestServer } from './harness';

let server: TestServer;
beforeAll(async () => {
  server = await sharedServer();
});

describe('system', () => {
  it('reports health and the SPA configuration without a token', async () => {
    const health = await api(server.url, 'GET', '/api/v1/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok', database: process.env.DATABASE_URL ? 'postgres' : 'pglite', storage: 'local', auth: 'embedded' });
    expect(health.headers.get('x-request-id')).toBeTruthy();
    const config = await api(server.url, 'GET', '/api/v1/config');
    expect(config.status).toBe(200);
    expect(config.body.supabaseUrl).toBe(server.url);
    expect(config.body.supabaseAnonKey.split('.')).toHaveLength(3);
  });

  it('serves the OpenAPI document generated from the contract', async () => {
    const doc = await api(server.url, 'GET', '/api/docs/json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/api/v1/users/onboarding', '/api/v1/projects/{id}', '/api/v1/organizations/{id}/fix-bucket']));
    expect(doc.body.paths['/api/v1/users/onboarding'].post.requestBody).toBeTruthy();
  });

  it('serves the API viewer at /api/docs', async () => {
    const res = await fetch(`${server.url}/api/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(await res.text()).toMatch(/swagger-ui/i);
  });

  it('answers unknown API routes with a JSON 404', async () => {
    const res = await api(server.url, 'GET', '/api/v1/nope');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, code: 'not_found' });
  });
});

describe('onboarding', () => {
  it('creates the first organization with its bucket and makes the user its owner', async () => {
    const user = await signUp(server, { fullName: 'Ada Lovelace' });
    const before = await api(server.url, 'GET', '/api/v1/users/me', { token: user.token });
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ needs_onboarding: true, was_reactivated: false, profile: { email: user.email, full_name: 'Ada Lovelace', organization_members: [] } });

    const slug = `acme-${Date.now().toString(36)}`;
    const res = await api(server.url, 'POST', '/api/v1/users/onboarding', { token: user.token, body: { full_name: 'Ada L.', organization_name: 'Acme Vision', organization_slug: slug } });
    expect(res.status).toBe(200);
    expect(res.body.organization).toMatchObject({ name: 'Acme Vision', slug, subscription_tier: 'free', gcs_bucket_name: `vellum-${slug}`, user_role: 'owner' });
    expect(await server.built.ctx.storage.bucketExists(`vellum-${slug}`)).toBe(true);

    const after = await api(server.url, 'GET', '/api/v1/users/me', { token: user.token });
    expect(after.body.needs_onboarding).toBe(false);
    expect(after.body.profile.full_name).toBe('Ada L.');
    expect(after.body.profile.default_organization_id).toBe(res.body.organization.id);
    expect(after.body.profile.organization_members).toEqual([{ role: 'owner', organization: expect.objectContaining({ id: res.body.organization.id, slug }) }]);
  });

  it('keeps profile changes: the name, and a default organization only among the caller\'s own', async () => {
    const user = await onboardedUser(server);
    const stranger = await onboardedUser(server);
    const second = await api(server.url, 'POST', '/api/v1/organizations', { token: user.token, body: { name: 'Second Org', slug: `second-${Date.now().toString(36)}` } });
    expect(second.status).toBe(200);
    const secondId = second.body.organization.id;

    const patch = await api(server.url, 'PATCH', '/api/v1/users/me', { token: user.token, body: { full_name: '  Grace Hopper ', default_organization_id: secondId } });
    expect(patch.status).toBe(200);
    const me = await api(server.url, 'GET', '/api/v1/users/me', { token: user.token });
    expect(me.body.profile).toMatchObject({ full_name: 'Grace Hopper', default_organization_id: secondId });

    const foreign = await api(server.url, 'PATCH', '/api/v1/users/me', { token: user.token, body: { default_organization_id: stranger.org.id } });
    expect(foreign.status).toBe(404);
    const blank = await api(server.url, 'PATCH', '/api/v1/users/me', { token: user.token, body: { full_name: '   ' } });
    expect(blank.status).toBe(400);
    expect((await api(server.url, 'GET', '/api/v1/users/me', { token: user.token })).body.profile).toMatchObject({ full_name: 'Grace Hopper', default_organization_id: secondId });
  });

  it.each([
    [{ full_name: '', organization_name: 'A', organization_slug: 'abc' }, 'Please enter your full name'],
    [{ full_name: 'A', organization_name: '  ', organization_slug: 'abc' }, 'Please enter your organization name'],
    [{ full_name: 'A', organization_name: 'A', organization_slug: '' }, 'Organization slug is required'],
    [{ full_name: 'A', organization_name: 'A', organization_slug: 'ab' }, 'Organization slug must be at least 3 characters'],
    [{ full_name: 'A', organization_name: 'A', organization_slug: 'Acme' }, 'Organization slug can only contain lowercase letters, numbers, and hyphens'],
    [{ full_name: 'A', organization_name: 'A', organization_slug: 'a_b c' }, 'Organization slug can only contain lowercase letters, numbers, and hyphens'],
  ])('refuses %j with the spec message', async (body, message) => {
    const user = await signUp(server);
    const res = await api(server.url, 'POST', '/api/v1/users/onboarding', { token: user.token, body });
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error).toContain(message);
  });

  it('answers 409 when the slug is taken', async () => {
    const first = await onboardedUser(server);
    const user = await signUp(server);
    const res = await api(server.url, 'POST', '/api/v1/users/onboarding', { token: user.token, body: { full_name: 'B', organization_name: 'Other', organization_slug: first.org.slug } });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ success: false, code: 'slug_taken' });
    expect(res.body.error).toMatch(/already taken/);
  });
});

describe('organizations', () => {
  it('lists, reads, repairs and diagnoses the caller\'s organizations only', async () => {
    const a = await onboardedUser(server);
    const b = await onboardedUser(server);
    const second = await api(server.url, 'POST', '/api/v1/organizations', { token: a.token, body: { name: 'Second', slug: `second-${Date.now().toString(36)}` } });
    expect(second.status).toBe(200);
    const list = await api(server.url, 'GET', '/api/v1/organizations', { token: a.token });
    expect(list.body.organizations.map((o: { id: string }) => o.id)).toEqual([a.org.id, second.body.organization.id]);

    expect((await api(server.url, 'GET', `/api/v1/organizations/${a.org.id}`, { token: a.token })).body.organization.user_role).toBe('owner');
    for (const path of [`/api/v1/organizations/${a.org.id}`, `/api/v1/organizations/${a.org.id}/debug`]) {
      const res = await api(server.url, 'GET', path, { token: b.token });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, code: 'not_found' });
    }
    expect((await api(server.url, 'POST', `/api/v1/organizations/${a.org.id}/fix-bucket`, { token: b.token })).status).toBe(404);

    // A lost bucket is reported by debug and recreated by fix-bucket.
    await server.built.ctx.storage.deleteBucket(a.org.gcs_bucket_name);
    const debug = await api(server.url, 'GET', `/api/v1/organizations/${a.org.id}/debug`, { token: a.token });
    expect(debug.status).toBe(200);
    expect(debug.body).toMatchObject({ bucket_exists: false, expected_bucket: a.org.gcs_bucket_name, storage_driver: 'local' });
    expect(debug.body.problems.join(' ')).toMatch(/does not exist/);
    const fix = await api(server.url, 'POST', `/api/v1/organizations/${a.org.id}/fix-bucket`, { token: a.token });
    expect(fix.body).toMatchObject({ success: true, bucket: a.org.gcs_bucket_name });
    expect(await server.built.ctx.storage.bucketExists(a.org.gcs_bucket_name)).toBe(true);
  });
});

describe('projects', () => {
  it('creates, lists, updates and deletes projects, keeping the config file in the bucket', async () => {
    const user = await onboardedUser(server);
    const create = await api(server.url, 'POST', '/api/v1/projects', {
      token: user.token,
      body: { organization_id: user.org.id, name: '  Street scenes ', description: 'Cars and people', annotation_types: ['box', 'polygon'], classes: [{ name: 'car', type: 'box', color: '#FFADAD' }] },
    });
    expect(create.status).toBe(200);
    const project = create.body.project;
    expect(project).toMatchObject({ name: 'Street scenes', description: 'Cars and people', organization_id: user.org.id, image_count: 0, completed_image_count: 0, total_size: 0, preview_images: [], annotation_types: ['box', 'polygon'] });

    const storage = server.built.ctx.storage;
    const readConfig = async (name: string) => {
      const { body } = await storage.get(user.org.gcs_bucket_name, `${project.gcs_path}/${name}.project_config.json`);
      const chunks: Buffer[] = [];
      for await (const c of body) chunks.push(c as Buffer);
      return JSON.parse(Buffer.concat(chunks).toString('utf8'));
    };
    expect((await readConfig('Street scenes')).classes).toEqual([{ name: 'car', type: 'box', tools: ['box'], color: '#FFADAD' }]);

    const list = await api(server.url, 'GET', `/api/v1/projects/organization/${user.org.id}`, { token: user.token });
    expect(list.body.projects.map((p: { id: string }) => p.id)).toEqual([project.id]);

    const classes = [{ name: 'car', type: 'box', color: '#FFADAD' }, { name: 'road', type: 'polygon', color: '#CAFFBF' }];
    const patch = await api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: user.token, body: { classes } });
    expect(patch.status).toBe(200);
    // A class given with type alone reads back with its type's tools (issue 33; a polygon class also draws masks).
    const stored = [{ ...classes[0], tools: ['box'] }, { ...classes[1], tools: ['polygon', 'mask'] }];
    expect(patch.body.project.classes).toEqual(stored);
    expect((await readConfig('Street scenes')).classes).toEqual(stored);

    const dup = await api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: user.token, body: { classes: [classes[0], { ...classes[0], color: '#000000' }] } });
    expect(dup.status).toBe(400);
    expect(dup.body.error).toMatch(/unique/);
    const badColour = await api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: user.token, body: { classes: [{ name: 'x', type: 'box', color: 'red' }] } });
    expect(badColour.status).toBe(400);
    const badType = await api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: user.token, body: { classes: [{ name: 'x', type: 'circle', color: '#FFFFFF' }] } });
    expect(badType.status).toBe(400);

    const del = await api(server.url, 'DELETE', `/api/v1/projects/${project.id}`, { token: user.token });
    expect(del.body).toMatchObject({ success: true });
    expect((await api(server.url, 'GET', `/api/v1/projects/${project.id}`, { token: user.token })).status).toBe(404);
    expect(await storage.head(user.org.gcs_bucket_name, `${project.gcs_path}/Street scenes.project_config.json`)).toBeNull();
  });

  it('hides another organization\'s projects behind 404', async () => {
    const owner = await onboardedUser(server);
    const stranger = await onboardedUser(server);
    const { body } = await api(server.url, 'POST', '/api/v1/projects', { token: owner.token, body: { organization_id: owner.org.id, name: 'Private' } });
    const id = body.project.id;
    const attempts = [
      api(server.url, 'GET', `/api/v1/projects/${id}`, { token: stranger.token }),
      api(server.url, 'PATCH', `/api/v1/projects/${id}`, { token: stranger.token, body: { name: 'Mine now' } }),
      api(server.url, 'DELETE', `/api/v1/projects/${id}`, { token: stranger.token }),
      api(server.url, 'GET', `/api/v1/projects/organization/${owner.org.id}`, { token: stranger.token }),
      api(server.url, 'POST', '/api/v1/projects', { token: stranger.token, body: { organization_id: owner.org.id, name: 'Intruder' } }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, code: 'not_found' });
    }
    expect((await api(server.url, 'GET', `/api/v1/projects/${id}`, { token: owner.token })).body.project.name).toBe('Private');
  });
});

describe('bad input', () => {
  it('answers each malformed request with a 4xx and a readable message, never a 500', async () => {
    const user = await onboardedUser(server);
    const cases: [string, string, unknown, number, RegExp][] = [
      ['POST', '/api/v1/projects', '{"organization_id":', 400, /Malformed JSON/],
      ['POST', '/api/v1/projects', { organization_id: user.org.id }, 400, /name/],
      ['POST', '/api/v1/projects', { organization_id: user.org.id, name: '   ' }, 400, /Project name is required/],
      ['POST', '/api/v1/projects', { organization_id: user.org.id, name: 'x'.repeat(201) }, 400, /at most 200/],
      ['POST', '/api/v1/projects', { organization_id: 'not-a-uuid', name: 'x' }, 400, /organization_id/],
      ['POST', '/api/v1/projects', { organization_id: user.org.id, name: 42 }, 400, /name/],
      ['GET', '/api/v1/projects/not-a-uuid', undefined, 400, /Project id must be a UUID/],
      ['PATCH', '/api/v1/users/me', { full_name: 'x', is_admin: true }, 400, /is_admin|Unrecognized/i],
      ['POST', '/api/v1/organizations', { name: 'X', slug: 'UPPER' }, 400, /lowercase letters/],
    ];
    for (const [method, path, body, status, message] of cases) {
      const res = await api(server.url, method, path, { token: user.token, body });
      expect({ path, status: res.status }).toEqual({ path, status });
      expect(res.body.success).toBe(false);
      expect(res.body.error).toMatch(message);
    }
    const huge = await api(server.url, 'POST', '/api/v1/projects', { token: user.token, body: { organization_id: user.org.id, name: 'big', description: 'x'.repeat(17 * 1024 * 1024) } });
    expect(huge.status).toBe(413);
  });

  it('refuses missing, malformed and signed-out tokens with 401', async () => {
    expect((await api(server.url, 'GET', '/api/v1/users/me')).status).toBe(401);
    expect((await api(server.url, 'GET', '/api/v1/users/me', { token: 'garbage' })).status).toBe(401);
    const user = await signUp(server);
    expect((await api(server.url, 'GET', '/api/v1/users/me', { token: user.token })).status).toBe(200);
    const out = await api(server.url, 'POST', '/auth/v1/logout', { token: user.token, headers: { apikey: server.built.ctx.auth.anonKey } });
    expect(out.status).toBe(204);
    const after = await api(server.url, 'GET', '/api/v1/users/me', { token: user.token });
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ success: false });
  });
});

describe('restart', () => {
  it('keeps every row and object when the server restarts on the same DATA_DIR', async () => {
    const own = await startServer({}, tempDir()); // its own, so it outlives the first server's stop
    const user = await onboardedUser(own);
    const created = await api(own.url, 'POST', '/api/v1/projects', { token: user.token, body: { organization_id: user.org.id, name: 'Survives', classes: [{ name: 'cat', type: 'box', color: '#FFADAD' }] } });
    expect(created.status).toBe(200);
    const env = { DATABASE_URL: own.config.database.kind === 'postgres' ? own.config.database.url : '' };
    await own.stop();
    const again = await startServer(env.DATABASE_URL ? env : {}, own.config.dataDir);
    try {
      const signIn = await api(again.url, 'POST', '/auth/v1/token?grant_type=password', { body: { email: user.email, password: user.password }, headers: { apikey: again.built.ctx.auth.anonKey } });
      expect(signIn.status).toBe(200);
      const list = await api(again.url, 'GET', `/api/v1/projects/organization/${user.org.id}`, { token: signIn.body.access_token });
      expect(list.body.projects).toEqual([expect.objectContaining({ name: 'Survives', classes: [{ name: 'cat', type: 'box', tools: ['box'], color: '#FFADAD' }] })]);
      expect(await again.built.ctx.storage.bucketExists(user.org.gcs_bucket_name)).toBe(true);
    } finally {
      await again.stop();
    }
  }, 120_000); // two server starts, each migrating its database: slow on a busy machine
});

describe('product API auth wrappers', () => {
  it('signs up, signs in and verifies over /api/v1/auth with the identity service\'s messages', async () => {
    const email = `wrapper-${Date.now().toString(36)}@example.com`;
    const up = await api(server.url, 'POST', '/api/v1/auth/signup', { body: { email, password: 'secret1', full_name: 'Wrap Per' } });
    expect(up.status).toBe(200);
    expect(up.body.session.access_token).toBeTruthy();
    expect(up.body.user.user_metadata.full_name).toBe('Wrap Per');

    const again = await api(server.url, 'POST', '/api/v1/auth/signup', { body: { email, password: 'secret1', full_name: 'Wrap Per' } });
    expect(again.status).toBeGreaterThanOrEqual(400);
    expect(again.body.error).toMatch(/already registered/);

    const bad = await api(server.url, 'POST', '/api/v1/auth/signin', { body: { email, password: 'wrong-one' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('Invalid login credentials');

    const short = await api(server.url, 'POST', '/api/v1/auth/signup', { body: { email: `x${email}`, password: '123', full_name: 'X' } });
    expect(short.status).toBe(400);
    expect(short.body.error).toContain('Password must be at least 6 characters long');

    const ok = await api(server.url, 'POST', '/api/v1/auth/signin', { body: { email, password: 'secret1' } });
    expect(ok.status).toBe(200);
    const verify = await api(server.url, 'POST', '/api/v1/auth/verify', { body: { access_token: ok.body.session.access_token } });
    expect(verify.body).toMatchObject({ success: true, valid: true, user: { email } });
    const forged = await api(server.url, 'POST', '/api/v1/auth/verify', { body: { access_token: `${ok.body.session.access_token}x` } });
    expect(forged.status).toBe(401);
  });
});
