// Uploads are one-shot (issue 15, item 1), on the local driver and on the S3 driver against a real
// S3-compatible server: an upload URL writes a staging object of its own, register copies the bytes
// it checked to the image's key, and nothing a later PUT sends is ever read or served.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, sharedServer, startServer, type TestServer } from './harness';
import { joinAs } from './team-harness';
import { S3_ACCESS_KEY, S3_SECRET_KEY, startS3Server, type S3TestServer } from './storage-s3-server';
import { createProject, keysUnder, png, register, type Member } from '../fixtures/datasets';
import { sweepOrphans } from '../../src/server/services/upload';

const CLEAN_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><rect width="20" height="10" fill="#36c"/></svg>';
const SCRIPT_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="4000" onload="alert(document.domain)"><script>alert(1)</script></svg>';

interface Rig {
  server: TestServer;
  owner: Member;
  project: { id: string; gcs_path: string };
  stop(): Promise<void>;
}

async function localRig(): Promise<Rig> {
  const server = await sharedServer();
  const owner = await onboardedUser(server);
  const project = await createProject(server, owner);
  return { server, owner, project, stop: async () => {} }; // the worker's server outlives the file
}

async function s3Rig(): Promise<Rig> {
  process.env.AWS_ACCESS_KEY_ID = S3_ACCESS_KEY;
  process.env.AWS_SECRET_ACCESS_KEY = S3_SECRET_KEY;
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
  const s3: S3TestServer = await startS3Server({ buckets: ['vellum-uploads'] });
  const server = await startServer({ STORAGE_URL: `s3://vellum-uploads?endpoint=${s3.endpoint}&region=us-east-1&forcePathStyle=true` });
  const owner = await onboardedUser(server);
  const project = await createProject(server, owner);
  return {
    server,
    owner,
    project,
    async stop() {
      await server.stop();
      await s3.stop();
    },
  };
}

const put = (url: string, contentType: string, body: string | Buffer) =>
  fetch(url, { method: 'PUT', headers: { 'content-type': contentType }, body: typeof body === 'string' ? body : new Uint8Array(body) });

describe.each([
  ['local driver', localRig],
  ['S3 driver', s3Rig],
])('one-shot uploads, %s', (_name, makeRig) => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await makeRig();
  }, 60_000);
  afterAll(async () => {
    await rig?.stop();
  });

  const uploadUrl = (user: Member, filename: string, contentType: string, minutes?: number) =>
    api(rig.server.url, 'POST', `/api/v1/projects/${rig.project.id}/images/upload-url?org_id=${user.org.id}`, {
      token: user.token,
      body: { filename, content_type: contentType, folder_path: '/', ...(minutes ? { expiration_minutes: minutes } : {}) },
    });
  const original = async (imageId: string) => {
    const signed = await api(rig.server.url, 'GET', `/api/v1/images/${imageId}/signed-url?org_id=${rig.owner.org.id}`, { token: rig.owner.token });
    return (await fetch(signed.body.signed_url)).text();
  };

  it('a second PUT to an upload URL after register cannot replace the checked image: it serves and measures the first bytes', async () => {
    const { server, owner, project } = rig;
    // The reproduction: a 7-day URL, a clean SVG registered, then an SVG with script PUT to the same URL.
    const url = await uploadUrl(owner, 'a.svg', 'image/svg+xml', 10080);
    expect(url.status).toBe(200);
    expect(url.body.gcs_path).toBe(`${project.gcs_path}/images/a.svg`);
    expect((await put(url.body.upload_url, 'image/svg+xml', CLEAN_SVG)).status).toBe(200);
    const registered = await register(server, owner, project.id, 'a.svg', { gcs_path: url.body.gcs_path, gcs_bucket: url.body.gcs_bucket, gcs_uri: url.body.gcs_uri });
    expect(registered.status).toBe(200);
    const image = registered.body.image;
    expect(image.file_size).toBe(CLEAN_SVG.length);

    const second = await put(url.body.upload_url, 'image/svg+xml', SCRIPT_SVG);
    // Refused, or taken into staging where nothing reads it: either way the image is unchanged.
    expect([200, 403]).toContain(second.status);
    expect(await original(image.id)).toBe(CLEAN_SVG);
    const row = await api(server.url, 'GET', `/api/v1/images/${image.id}?org_id=${owner.org.id}`, { token: owner.token });
    expect(row.body.image ?? row.body).toMatchObject({ file_size: CLEAN_SVG.length, image_width: 20, image_height: 10 });
    // Registering the name again does not pick up the new bytes either.
    expect((await register(server, owner, project.id, 'a.svg')).status).toBe(409);

    // The sweep removes what the second PUT left in staging, and only that.
    const bucket = owner.org.gcs_bucket_name;
    if (second.status === 200) expect(await keysUnder(server, bucket, `${project.gcs_path}/staging/`)).toHaveLength(1);
    await sweepOrphans(server.built.ctx, { minAgeMs: 0, now: new Date(Date.now() + 1000) });
    expect(await keysUnder(server, bucket, `${project.gcs_path}/staging/`)).toEqual([]);
    expect(await original(image.id)).toBe(CLEAN_SVG);
  }, 60_000);

  it('an upload URL writes only a staging object of its own, never the image key', async () => {
    const { server, owner, project } = rig;
    const url = await uploadUrl(owner, 'b.png', 'image/png');
    const signed = new URL(url.body.upload_url);
    expect(decodeURIComponent(signed.pathname)).toContain(`/${project.gcs_path}/staging/`);
    expect(decodeURIComponent(signed.pathname)).not.toContain('/images/');
    // The same credential aimed at the image's key is refused (the token or the signature names the staging key).
    const aimed = new URL(signed);
    aimed.pathname = signed.pathname.replace(/\/staging\/[^/]+$/, `/images/b.png`);
    expect(aimed.pathname).not.toBe(signed.pathname);
    expect((await put(aimed.toString(), 'image/png', await png(4, 4))).status).toBe(403);
    expect(await keysUnder(server, owner.org.gcs_bucket_name, `${project.gcs_path}/images/b.png`)).toEqual([]);
    // Two URLs for two files never share a staging object.
    const other = await uploadUrl(owner, 'c.png', 'image/png');
    expect(new URL(other.body.upload_url).pathname).not.toBe(signed.pathname);
  });

  it('upload URLs live at most 60 minutes, whatever is asked, one at a time or in a batch', async () => {
    const { server, owner, project } = rig;
    const minutesLeft = (iso: string) => (Date.parse(iso) - Date.now()) / 60_000;
    const one = await uploadUrl(owner, 'week.png', 'image/png', 10080);
    expect(one.status).toBe(200);
    expect(minutesLeft(one.body.expires_at)).toBeLessThanOrEqual(60.1);
    expect(minutesLeft(one.body.expires_at)).toBeGreaterThan(58);
    const amz = new URL(one.body.upload_url).searchParams.get('X-Amz-Expires');
    if (amz) expect(Number(amz)).toBeLessThanOrEqual(3600);
    const batch = await api(server.url, 'POST', `/api/v1/projects/${project.id}/images/batch-upload-urls?org_id=${owner.org.id}`, {
      token: owner.token,
      body: { files: [{ filename: 'w1.png', content_type: 'image/png', folder_path: '/' }], expiration_minutes: 10080 },
    });
    expect(batch.status).toBe(200);
    expect(minutesLeft(batch.body.urls[0].expires_at)).toBeLessThanOrEqual(60.1);
  });

  it("another member cannot register someone else's staged upload, and register before the PUT finds nothing", async () => {
    const { server, owner, project } = rig;
    const url = await uploadUrl(owner, 'mine.png', 'image/png');
    expect((await register(server, owner, project.id, 'mine.png')).body.code).toBe('object_not_found');
    expect((await put(url.body.upload_url, 'image/png', await png(6, 6))).status).toBe(200);
    const annotator = await joinAs(server, owner.token, owner.org.id, 'annotator');
    const theirs = await register(server, { ...annotator, org: owner.org }, project.id, 'mine.png');
    expect(theirs.status).toBe(400);
    expect(theirs.body.code).toBe('object_not_found');
    // The owner's own register still works, and the staging object is gone after it.
    expect((await register(server, owner, project.id, 'mine.png')).status).toBe(200);
    const staged = decodeURIComponent(new URL(url.body.upload_url).pathname).split('/staging/')[1];
    expect((await keysUnder(server, owner.org.gcs_bucket_name, `${project.gcs_path}/staging/`)).some((k) => k.endsWith(staged))).toBe(false);
  }, 60_000);

  it('a refused upload leaves nothing in staging or under images, and the same URL can be used again for a good file', async () => {
    const { server, owner, project } = rig;
    const url = await uploadUrl(owner, 'retry.svg', 'image/svg+xml');
    expect((await put(url.body.upload_url, 'image/svg+xml', SCRIPT_SVG)).status).toBe(200);
    const refused = await register(server, owner, project.id, 'retry.svg');
    expect(refused.status).toBe(415);
    const bucket = owner.org.gcs_bucket_name;
    const staged = decodeURIComponent(new URL(url.body.upload_url).pathname).split('/staging/')[1];
    expect((await keysUnder(server, bucket, `${project.gcs_path}/staging/`)).some((k) => k.endsWith(staged))).toBe(false);
    expect(await keysUnder(server, bucket, `${project.gcs_path}/images/retry.svg`)).toEqual([]);
    expect((await put(url.body.upload_url, 'image/svg+xml', CLEAN_SVG)).status).toBe(200);
    const ok = await register(server, owner, project.id, 'retry.svg');
    expect(ok.status).toBe(200);
    expect(await original(ok.body.image.id)).toBe(CLEAN_SVG);
  }, 60_000);
});
