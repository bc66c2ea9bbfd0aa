// The permission table, walked whole (issue 6): every route the app registers (enumerated from the
// app itself), for every role, in the caller's organization (allowed or 403, as
// src/contract/permissions.ts says) and in another organization (404), without a token (401), and
// with an API key (like its role; 403 on the account's own routes; 404 in another organization).
// The routes and what each needs are listed in ./permissions.table.ts: a registered route missing
// there fails here by name.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, sharedServer, signUp, type TestServer } from './harness';
import { createProject, png, putUpload, uploadImage, type Member } from '../fixtures/datasets';
import { registeredApiRoutes } from '../../src/server/http/auth-guard';
import { roleCan } from '../../src/contract/permissions';
import { ROLES, type Role } from '../../src/contract/account';
import { ROUTES, type Caller, type Fixture, type Req, type RouteRule, type Verdict } from './permissions.table';

let server: TestServer;
let home: Fixture;
let other: Fixture;
const callers = new Map<Role, { token: string }>();
let ownerKey: string;
let viewerKey: string;

let counter = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++counter}`;

async function joinWith(owner: Member, email: string, token: string, role: Role) {
  const inv = await api(server.url, 'POST', `/api/v1/organizations/${owner.org.id}/invites`, { token: owner.token, body: { email, role } });
  if (inv.status !== 200) throw new Error(`invite: ${inv.status} ${JSON.stringify(inv.body)}`);
  const acc = await api(server.url, 'POST', `/api/v1/invites/${inv.body.invite_url.split('/invite/')[1]}/accept`, { token });
  if (acc.status !== 200) throw new Error(`accept: ${acc.status} ${JSON.stringify(acc.body)}`);
}

async function fixture(): Promise<Fixture> {
  const owner = await onboardedUser(server);
  const project = await createProject(server, owner);
  await api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { classes: [{ name: 'car', type: 'box', color: '#FFADAD' }] } });
  const bytes = await png(12, 10);
  const newImage = async () => {
    const img = await uploadImage(server, owner, project.id, `${unique('img')}.png`, bytes);
    return { id: img.id, filename: img.filename };
  };
  const newFolder = async () => {
    const res = await api(server.url, 'POST', '/api/folders/create', { token: owner.token, body: { project_id: project.id, name: unique('f'), parent_folder_path: '/' } });
    if (res.status !== 200) throw new Error(`folder: ${res.status} ${JSON.stringify(res.body)}`);
    return { id: res.body.folder.id as string, full_path: res.body.folder.full_path as string };
  };
  const image = await newImage();
  const newSavedImage = async () => {
    const img = await newImage();
    const res = await api(server.url, 'POST', '/api/v1/annotations/save-data', {
      token: owner.token,
      body: { image_id: img.id, project_id: project.id, image_filename: img.filename, annotations: [{ id: 'a1', name: 'car', bounding_box: { x: 1, y: 1, w: 5, h: 5 } }] },
    });
    if (res.status !== 200) throw new Error(`save: ${res.status} ${JSON.stringify(res.body)}`);
    return img;
  };
  const f: Fixture = {
    org: owner.org,
    ownerEmail: owner.email,
    ownerPassword: owner.password,
    ownerToken: owner.token,
    project,
    image,
    folder: await newFolder(),
    newProject: () => createProject(server, owner),
    newImage,
    newSavedImage,
    async newUpload(token = owner.token) {
      const up = await putUpload(server, { ...owner, token }, project.id, `${unique('up')}.png`, bytes);
      return { filename: up.filename, gcs_bucket: up.gcs_bucket, gcs_path: up.gcs_path, gcs_uri: up.gcs_uri, file_size: bytes.length };
    },
    newFolder,
    async newMember(role) {
      const user = await signUp(server);
      await joinWith(owner, user.email, user.token, role);
      return user;
    },
    async newInvite(email) {
      const res = await api(server.url, 'POST', `/api/v1/organizations/${owner.org.id}/invites`, { token: owner.token, body: { email: email ?? `${unique('i')}@example.com`, role: 'viewer' } });
      if (res.status !== 200) throw new Error(`invite: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: res.body.invite.id as string, token: res.body.invite_url.split('/invite/')[1] as string };
    },
    async newKey(token = owner.token) {
      const res = await api(server.url, 'POST', '/api/v1/api-keys', { token, body: { organization_id: owner.org.id, name: 'k', role: 'viewer' } });
      if (res.status !== 200) throw new Error(`key: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: res.body.api_key.id as string, key: res.body.key as string };
    },
    async newEditJob() {
      const res = await api(server.url, 'POST', '/api/v1/image-edit/edit', { token: owner.token, body: { project_id: project.id, image_names: [image.filename], prompt: 'brighter', current_folder_path: '/' } });
      if (res.status !== 200) throw new Error(`edit: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: res.body.edit_id as string };
    },
    async newImport(uploaded = true) {
      const file = Buffer.from(JSON.stringify({ images: [], annotations: [], categories: [] }));
      const res = await api(server.url, 'POST', `/api/v1/projects/${project.id}/imports`, { token: owner.token, body: { filename: `${unique('import')}.json`, size: file.length } });
      if (res.status !== 201) throw new Error(`import: ${res.status} ${JSON.stringify(res.body)}`);
      if (uploaded) {
        const put = await fetch(res.body.upload_url, { method: 'PUT', headers: { 'content-type': res.body.content_type }, body: new Uint8Array(file) });
        if (put.status !== 200) throw new Error(`import PUT: ${put.status}`);
      }
      return { id: res.body.import_id as string };
    },
    newUser: () => signUp(server),
    unique,
    async newModel() {
      const res = await api(server.url, 'POST', '/api/v1/models', { token: owner.token, body: { organization_id: owner.org.id, name: unique('model'), source: 'onnx', filename: 'model.onnx', size: 100 } });
      if (res.status !== 201) throw new Error(`model: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: res.body.model.id as string };
    },
    async newPrelabelJob() {
      const folder = await newFolder();
      const res = await api(server.url, 'POST', `/api/v1/projects/${project.id}/prelabel`, { token: owner.token, body: { model_id: 'builtin-coco-centernet', folder_path: folder.full_path } });
      if (res.status !== 202) throw new Error(`prelabel: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: res.body.job_id as string };
    },
    async newImageInReview() {
      const img = await newImage();
      const res = await api(server.url, 'PATCH', `/api/v1/images/${img.id}/status`, { token: owner.token, body: { status: 'review' } });
      if (res.status !== 200) throw new Error(`review: ${res.status} ${JSON.stringify(res.body)}`);
      return img;
    },
    async newIssue() {
      const res = await api(server.url, 'POST', `/api/v1/images/${(await newImage()).id}/issues`, { token: owner.token, body: { body: 'An issue' } });
      if (res.status !== 201) throw new Error(`issue: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: res.body.issue.id as string };
    },
  };
  return f;
}

beforeAll(async () => {
  server = await sharedServer();
  home = await fixture();
  other = await fixture();
  callers.set('owner', { token: home.ownerToken });
  for (const role of ROLES) if (role !== 'owner') callers.set(role, await home.newMember(role));
  ownerKey = (await api(server.url, 'POST', '/api/v1/api-keys', { token: home.ownerToken, body: { organization_id: home.org.id, name: 'table' } })).body.key;
  viewerKey = (await api(server.url, 'POST', '/api/v1/api-keys', { token: home.ownerToken, body: { organization_id: home.org.id, name: 'table viewer', role: 'viewer' } })).body.key;
}, 180_000);

function split(route: string): { method: string; url: string } {
  const [method, url] = route.split(' ');
  return { method, url };
}

async function call(rule: RouteRule, req: Req, token: string | null) {
  const { method, url } = split(rule.route);
  return api(server.url, method, req.path ?? url, { token: token ?? undefined, body: req.body });
}

const allowed = (rule: RouteRule, status: number) => (status >= 200 && status < 300) || (rule.ok ?? []).includes(status);
function verdictOf(rule: RouteRule, res: { status: number; body: any }): Verdict {
  if (rule.verdict) return rule.verdict(res);
  if (allowed(rule, res.status)) return 'allowed';
  // Refusals in the API's error shape only.
  if (res.body?.success !== false || typeof res.body?.code !== 'string') return 'other';
  return res.status === 403 ? 'forbidden' : res.status === 404 ? 'not_found' : 'other';
}
const show = (res: { status: number; body: unknown }) => `${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;

describe('the route table', () => {
  it('lists every route the app registers, once, and none that it does not', () => {
    const registered = registeredApiRoutes(server.built.app);
    const keys = registered.map((r) => `${r.method} ${r.url}`);
    const listed = ROUTES.map((r) => r.route);
    expect(keys.filter((k) => !listed.includes(k)), 'registered routes missing from tests/api/permissions.table.ts').toEqual([]);
    expect(listed.filter((k) => !keys.includes(k)), 'routes in the table that the app does not register').toEqual([]);
    expect(listed.filter((k, i) => listed.indexOf(k) !== i), 'routes listed twice').toEqual([]);
    const publicRoutes = registered.filter((r) => r.public).map((r) => `${r.method} ${r.url}`);
    expect(ROUTES.filter((r) => r.access === 'public').map((r) => r.route).sort(), "'public' in the table = config.public on the route").toEqual(publicRoutes.sort());
  });
});

describe.each(ROUTES.map((rule) => [rule.route, rule] as const))('%s', (_name, rule) => {
  const sessionOnly = () => registeredApiRoutes(server.built.app).find((r) => `${r.method} ${r.url}` === rule.route)?.sessionOnly ?? false;
  /** `key`: the call is made with this API key, so what the caller prepares (an upload) is made with it too. */
  const build = (f: Fixture, role: Role, sameOrg: boolean, key?: string) => {
    const c: Caller = { role, token: callers.get(role)!.token, key, home, sameOrg };
    return rule.request ? rule.request(f, c) : {};
  };

  if (rule.access === 'public') {
    it('answers without a token', async () => {
      const res = await call(rule, await build(home, 'owner', true), null);
      expect(verdictOf(rule, res), show(res)).toBe('allowed');
    });
    return;
  }

  it('needs a token (401 without)', async () => {
    const res = await call(rule, await build(home, 'owner', true), null);
    expect(res.status, show(res)).toBe(401);
    expect(res.body).toMatchObject({ success: false });
  });

  if (rule.access === 'self') {
    it('is allowed to any signed-in person', async () => {
      for (const role of ROLES) {
        const req = await build(home, role, true);
        const res = await call(rule, req, req.token ?? callers.get(role)!.token);
        expect(verdictOf(rule, res), `${rule.route} as ${role}: ${show(res)}`).toBe('allowed');
      }
    });
  } else {
    const permission = rule.access;
    it(`in the caller's organization: allowed to ${ROLES.filter((r) => roleCan(r, permission)).join(', ')}; 403 to the others`, async () => {
      for (const role of ROLES) {
        const req = await build(home, role, true);
        const res = await call(rule, req, req.token ?? callers.get(role)!.token);
        const expected = roleCan(role, permission) ? 'allowed' : 'forbidden';
        expect(verdictOf(rule, res), `${rule.route} as ${role} should be ${expected === 'allowed' ? 'allowed' : '403'}: ${show(res)}`).toBe(expected);
      }
    });

    it("in another organization: 404 for every role", async () => {
      for (const role of ROLES) {
        const req = await build(other, role, false);
        const res = await call(rule, req, req.token ?? callers.get(role)!.token);
        expect(verdictOf(rule, res), `${rule.route} as ${role} on another organization should be 404: ${show(res)}`).toBe('not_found');
      }
    });
  }

  it('with API keys: an owner’s key and an owner’s viewer key act with their own role, or get 403 on the account’s own routes', async () => {
    for (const [keyRole, key] of [
      ['owner', ownerKey],
      ['viewer', viewerKey],
    ] as const) {
      const req = await build(home, keyRole, true, key);
      if (req.token) return; // the call is made as a particular person: a key cannot stand in
      const res = await call(rule, req, key);
      if (sessionOnly()) {
        expect(res.status, show(res)).toBe(403);
        expect(res.body.code).toBe('api_key_not_allowed');
        continue;
      }
      const expected = rule.access === 'public' || rule.access === 'self' || roleCan(keyRole, rule.access) ? 'allowed' : 'forbidden';
      expect(verdictOf(rule, res), `${rule.route} with a ${keyRole} key: ${show(res)}`).toBe(expected);
    }
  });

  if (rule.access !== 'self') {
    it("with API keys on another organization's resources: 404, whatever the key's role", async () => {
      if (sessionOnly()) return; // refused before any resource is looked at (403 above)
      for (const [keyRole, key] of [
        ['owner', ownerKey],
        ['viewer', viewerKey],
      ] as const) {
        const req = await build(other, keyRole, false, key);
        if (req.token) return;
        const res = await call(rule, req, key);
        expect(verdictOf(rule, res), `${rule.route} with a ${keyRole} key on another organization should be 404: ${show(res)}`).toBe('not_found');
      }
    });
  }
});
