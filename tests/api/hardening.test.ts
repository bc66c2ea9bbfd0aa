// Issue 15 item 6: the gaps found by reading the code, each with a test that failed before its fix.
// The auth guard decides on the route (not the raw URL), access tokens must carry an expiry,
// assisted segmentation needs annotations.write, the image-edit queue is shown per organization,
// and signed GET URLs live at most an hour.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { SignJWT, decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, startServer, type TestServer } from './harness';
import { joinAs } from './team-harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';
import { jobs } from '../../src/server/db/schema';
import { JOB_KIND } from '../../src/server/services/image-edit';

let server: TestServer;
let owner: Member & { email: string };
let other: Member & { email: string };
let project: { id: string };
let image: { id: string; filename: string };
/** Reached only by a caller the guard let through: it does not check the caller itself. */
const PROBE = '/api/v1/hardening-probe';

beforeAll(async () => {
  // No edit workers: queued jobs stay queued, so the health counts are what the test put there.
  server = await startServer({ IMAGE_EDIT_CONCURRENCY: '0' }, undefined, {
    beforeListen: (app) => {
      app.get(PROBE, async () => ({ reached: true }));
    },
  });
  owner = await onboardedUser(server);
  other = await onboardedUser(server);
  project = await createProject(server, owner);
  image = await uploadImage(server, owner, project.id, 'scene.png', await png(64, 48));
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

describe('the auth guard decides on the route, not on the raw URL', () => {
  it('a percent-encoded /%61pi/v1/... path without a token answers 401 like the plain path and never reaches the handler', async () => {
    const plain = await api(server.url, 'GET', PROBE);
    expect(plain.status).toBe(401);
    for (const p of ['/%61pi/v1/hardening-probe', '/%61%70%69/v1/hardening-probe', '/api/v1/hardening%2Dprobe', '/%61pi/v1/hardening-probe?x=1']) {
      const res = await api(server.url, 'GET', p);
      expect(res.status, p).toBe(401);
      expect(res.body, p).toMatchObject({ code: plain.body.code });
      expect(JSON.stringify(res.body), p).not.toContain('reached');
    }
    // A real route: the guard's answer (no_token), not the handler's own fallback.
    const real = await api(server.url, 'GET', `/api/v1/projects/${project.id}`);
    const encoded = await api(server.url, 'GET', `/%61pi/v1/projects/${project.id}`);
    expect(encoded.status).toBe(401);
    expect(encoded.body).toMatchObject({ code: real.body.code });
    expect(real.body.code).toBe('no_token');
  });

  it('an API key on a session-only route through an encoded path is refused as on the plain path (403), not let in unchecked', async () => {
    const key = await api(server.url, 'POST', '/api/v1/api-keys', { token: owner.token, body: { name: 'k', organization_id: owner.org.id, role: 'viewer' } });
    expect(key.status).toBe(200);
    const plain = await api(server.url, 'GET', '/api/v1/users/me', { token: key.body.key });
    const encoded = await api(server.url, 'GET', '/%61pi/v1/users/me', { token: key.body.key });
    expect(plain.status).toBe(403);
    expect(encoded.status).toBe(403);
    expect(encoded.body.code).toBe('api_key_not_allowed');
  });

  it('still serves the public routes and the app without a token', async () => {
    expect((await api(server.url, 'GET', '/api/v1/health')).status).toBe(200);
    expect((await api(server.url, 'GET', '/%61pi/v1/health')).status).toBe(200);
    expect((await api(server.url, 'GET', '/api/v1/no-such-route')).status).toBe(404);
  });
});

describe('access tokens must carry an expiry', () => {
  /** The owner's own token, re-signed with the server's secret; `exp` dropped unless kept. */
  async function resigned(token: string, keepExp: boolean): Promise<string> {
    const secret = JSON.parse(fs.readFileSync(path.join(server.config.dataDir, 'secrets.json'), 'utf8')).jwt_secret as string;
    const { exp, ...claims } = decodeJwt(token);
    const payload = keepExp ? { ...claims, exp } : claims;
    return new SignJWT(payload).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(secret));
  }

  it('a token signed with the server secret but without exp is refused: 401 on the API, bad_jwt on /auth/v1/user', async () => {
    const withExp = await resigned(owner.token, true);
    expect((await api(server.url, 'GET', '/api/v1/users/me', { token: withExp })).status).toBe(200); // the re-signing itself is sound
    const noExp = await resigned(owner.token, false);
    expect(decodeJwt(noExp).exp).toBeUndefined();
    const res = await api(server.url, 'GET', '/api/v1/users/me', { token: noExp });
    expect(res.status).toBe(401);
    expect((await api(server.url, 'GET', `/api/v1/projects/${project.id}`, { token: noExp })).status).toBe(401);
    // GoTrue's own convention for a token it cannot accept: 403 bad_jwt (it answered 200 with the user).
    const gotrue = await api(server.url, 'GET', '/auth/v1/user', { token: noExp, headers: { apikey: server.built.ctx.auth.anonKey } });
    expect(gotrue.status).toBe(403);
    expect(gotrue.body.error_code).toBe('bad_jwt');
  });
});

describe('assisted segmentation needs annotations.write', () => {
  it('a viewer is refused process-image and get-mask with 403; an annotator may call them', async () => {
    const viewer = await joinAs(server, owner.token, owner.org.id, 'viewer');
    const annotator = await joinAs(server, owner.token, owner.org.id, 'annotator');
    const base = '/api/v1/auto-annotate/sam2';
    const process = { project_id: project.id, image_name: image.filename };
    const mask = { ...process, x: 5, y: 5 };
    expect((await api(server.url, 'POST', `${base}/process-image`, { token: viewer.token, body: process })).status).toBe(403);
    expect((await api(server.url, 'POST', `${base}/get-mask`, { token: viewer.token, body: mask })).status).toBe(403);
    expect((await api(server.url, 'POST', `${base}/process-image`, { token: annotator.token, body: process })).status).toBe(200);
    expect((await api(server.url, 'POST', `${base}/get-mask`, { token: annotator.token, body: mask })).status).toBe(200);
    // Refused every time, not only until a look-up is remembered.
    expect((await api(server.url, 'POST', `${base}/get-mask`, { token: viewer.token, body: mask })).status).toBe(403);
  }, 60_000);
});

describe('the image-edit queue is shown per organization', () => {
  it('/image-edit/health counts only the caller organization\'s jobs; another organization\'s org_id answers 404', async () => {
    const db = server.built.ctx.db;
    const job = (organizationId: string, createdBy: string, status: 'queued' | 'running') => ({
      id: randomUUID(),
      kind: JOB_KIND,
      organizationId,
      createdBy,
      status,
      payload: {},
      lockedBy: status === 'running' ? 'elsewhere' : null,
      lockedUntil: status === 'running' ? new Date(Date.now() + 3_600_000) : null,
    });
    await db.insert(jobs).values([job(owner.org.id, owner.userId, 'queued'), job(owner.org.id, owner.userId, 'queued'), job(owner.org.id, owner.userId, 'running')]);
    await db.insert(jobs).values([job(other.org.id, other.userId, 'queued'), job(other.org.id, other.userId, 'queued'), job(other.org.id, other.userId, 'queued')]);
    await db.insert(jobs).values([job(other.org.id, other.userId, 'running'), job(other.org.id, other.userId, 'running')]);

    const mine = await api(server.url, 'GET', '/api/v1/image-edit/health', { token: owner.token });
    expect(mine.status).toBe(200);
    expect(mine.body.queue).toEqual({ queued: 2, running: 1 });
    const theirs = await api(server.url, 'GET', '/api/v1/image-edit/health', { token: other.token });
    expect(theirs.body.queue).toEqual({ queued: 3, running: 2 });
    // The same shape as before: provider, vocabulary, workers...
    expect(mine.body).toMatchObject({ status: 'healthy', provider: 'builtin', workers: 0 });

    const explicit = await api(server.url, 'GET', `/api/v1/image-edit/health?org_id=${other.org.id}`, { token: other.token });
    expect(explicit.body.queue).toEqual({ queued: 3, running: 2 });
    expect((await api(server.url, 'GET', `/api/v1/image-edit/health?org_id=${other.org.id}`, { token: owner.token })).status).toBe(404);
    // A person in no organization sees an empty queue.
    const loner = await api(server.url, 'POST', '/auth/v1/signup', { body: { email: `loner-${Date.now()}@example.com`, password: 'correct horse battery' }, headers: { apikey: server.built.ctx.auth.anonKey } });
    const none = await api(server.url, 'GET', '/api/v1/image-edit/health', { token: loner.body.access_token });
    expect(none.status).toBe(200);
    expect(none.body.queue).toEqual({ queued: 0, running: 0 });
  });
});

describe('signed GET URLs live at most an hour', () => {
  const HOUR_MS = 3_600_000;
  const within = (expiresAt: string) => {
    const ms = Date.parse(expiresAt) - Date.now();
    expect(ms).toBeGreaterThan(HOUR_MS - 120_000);
    expect(ms).toBeLessThanOrEqual(HOUR_MS + 2_000);
  };

  it('a signed-url asked for 7 days expires within one hour, and says so in expires_at', async () => {
    for (const variant of ['original', 'thumbnail']) {
      const res = await api(server.url, 'GET', `/api/v1/images/${image.id}/signed-url?org_id=${owner.org.id}&variant=${variant}&expiration_minutes=10080`, { token: owner.token });
      expect(res.status).toBe(200);
      within(res.body.expires_at);
      expect((await fetch(res.body.signed_url)).status).toBe(200);
    }
  });

  it('batch-signed-urls asked for 7 days expire within one hour', async () => {
    const res = await api(server.url, 'POST', `/api/v1/images/batch-signed-urls?org_id=${owner.org.id}`, {
      token: owner.token,
      body: { image_ids: [image.id], expiration_minutes: 10080, variant: 'thumbnail' },
    });
    expect(res.status).toBe(200);
    within(res.body.expires_at);
  });

  it('a shorter lifetime than an hour is kept as asked', async () => {
    const res = await api(server.url, 'GET', `/api/v1/images/${image.id}/signed-url?expiration_minutes=5`, { token: owner.token });
    const ms = Date.parse(res.body.expires_at) - Date.now();
    expect(ms).toBeLessThanOrEqual(5 * 60_000 + 2_000);
    expect(ms).toBeGreaterThan(4 * 60_000);
  });
});
