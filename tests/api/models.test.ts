// The model registry (issue 34) through the API: the built-in detector listed for every
// organization, an ONNX model registered, uploaded and activated (Ultralytics YOLO graphs built in
// the test with their metadata), other graphs refused with unsupported_model, HTTP endpoints with
// the SSRF guard, roles and other organizations.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, sharedServer, startServer, type TestServer } from './harness';
import { joinAs } from './team-harness';
import type { Member } from '../fixtures/datasets';
import { sam2TestModels, yoloTestModel } from '../fixtures/onnx';
import { COCO_80_CLASSES } from '../../src/server/services/models/coco';
import { models } from '../../src/server/db/schema';

let server: TestServer;
let owner: Member;

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
}, 60_000);

const list = (token: string, orgId: string) => api(server.url, 'GET', `/api/v1/models?organization_id=${orgId}`, { token });

async function uploadOnnx(user: Member, bytes: Uint8Array, name = 'My YOLO') {
  const res = await api(server.url, 'POST', '/api/v1/models', { token: user.token, body: { organization_id: user.org.id, name, source: 'onnx', filename: 'yolo.onnx', size: bytes.length } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const put = await fetch(res.body.upload_url, { method: 'PUT', headers: { 'content-type': res.body.content_type }, body: Buffer.from(bytes) });
  expect(put.status).toBe(200);
  return { id: res.body.model.id as string, created: res.body.model, activate: () => api(server.url, 'POST', `/api/v1/models/${res.body.model.id}/activate`, { token: user.token }) };
}

describe('the registry', () => {
  it('lists the built-in COCO detector for every organization, with its classes, input size and licence', async () => {
    const other = await onboardedUser(server);
    for (const u of [owner, other]) {
      const res = await list(u.token, u.org.id);
      expect(res.status).toBe(200);
      const builtin = res.body.models.find((m: any) => m.source === 'builtin');
      expect(builtin).toMatchObject({ id: 'builtin-coco-centernet', kind: 'detect', status: 'ready', input_size: 512 });
      expect(builtin.classes).toEqual(COCO_80_CLASSES);
      expect(builtin.license).toMatch(/MIT/);
    }
  });

  it('built-in models cannot be deleted', async () => {
    const res = await api(server.url, 'DELETE', '/api/v1/models/builtin-coco-centernet', { token: owner.token });
    expect(res.status).toBe(400);
  });
});

describe('an ONNX model', () => {
  it('a YOLOv8 detect export: registered pending, uploaded, activated with its classes and input size from the metadata, then listed and deleted', async () => {
    const names = ['person', "rider's bike", 'traffic light'];
    const m = await uploadOnnx(owner, yoloTestModel({ names, size: 640 }));
    expect(m.created).toMatchObject({ source: 'onnx', status: 'pending', filename: 'yolo.onnx' });
    const act = await m.activate();
    expect(act.status, JSON.stringify(act.body)).toBe(200);
    expect(act.body.model).toMatchObject({ id: m.id, kind: 'detect', status: 'ready', classes: names, input_size: 640 });
    const again = await m.activate();
    expect(again.body.model.status).toBe('ready');
    const listed = (await list(owner.token, owner.org.id)).body.models.find((x: any) => x.id === m.id);
    expect(listed).toMatchObject({ name: 'My YOLO', source: 'onnx', classes: names });
    expect(listed.created_at).toBeTruthy();
    const del = await api(server.url, 'DELETE', `/api/v1/models/${m.id}`, { token: owner.token });
    expect(del.status).toBe(200);
    expect((await list(owner.token, owner.org.id)).body.models.some((x: any) => x.id === m.id)).toBe(false);
    expect((await api(server.url, 'DELETE', `/api/v1/models/${m.id}`, { token: owner.token })).status).toBe(404);
  });

  it('YOLOv5 and segment exports are read too', async () => {
    const v5 = await uploadOnnx(owner, yoloTestModel({ names: ['cat', 'dog'], layout: 'yolov5' }));
    expect((await v5.activate()).body.model).toMatchObject({ kind: 'detect', classes: ['cat', 'dog'], input_size: 320 });
    const seg = await uploadOnnx(owner, yoloTestModel({ names: ['cell'], kind: 'segment' }));
    expect((await seg.activate()).body.model).toMatchObject({ kind: 'segment', classes: ['cell'] });
    const seg5 = await uploadOnnx(owner, yoloTestModel({ names: ['a', 'b', 'c'], kind: 'segment', layout: 'yolov5' }));
    expect((await seg5.activate()).body.model).toMatchObject({ kind: 'segment', classes: ['a', 'b', 'c'] });
  });

  it('other graphs are refused with unsupported_model, saying what was expected, and stay pending', async () => {
    const cases: [string, Uint8Array, RegExp][] = [
      ['SAM2 encoder (not YOLO)', sam2TestModels().encoder, /names/],
      ['YOLO without its metadata', yoloTestModel({ names: ['a'], metadata: false }), /names/],
      ['a pose export', yoloTestModel({ names: ['person'], task: 'pose' }), /pose/],
      ['outputs that do not match the names', yoloTestModel({ names: ['a', 'b'], extraOutputClasses: 3 }), /does not hold 2 classes/],
      ['not ONNX at all', new TextEncoder().encode('{"this": "is json, not a model"}'), /not an ONNX model/],
    ];
    for (const [what, bytes, why] of cases) {
      const m = await uploadOnnx(owner, bytes, what);
      const res = await m.activate();
      expect(res.status, what).toBe(400);
      expect(res.body.code, what).toBe('unsupported_model');
      expect(res.body.error, what).toMatch(why);
      expect(res.body.error, what).toMatch(/Expected an Ultralytics YOLOv5, YOLOv8 or YOLO11 detect or segment export/);
      const listed = (await list(owner.token, owner.org.id)).body.models.find((x: any) => x.id === m.id);
      expect(listed.status, what).toBe('pending');
    }
  });

  it('activate before the upload is 409 model_not_uploaded; a file over the declared size is refused at PUT', async () => {
    const res = await api(server.url, 'POST', '/api/v1/models', { token: owner.token, body: { organization_id: owner.org.id, name: 'later', source: 'onnx', filename: 'later.onnx', size: 100 } });
    expect(res.status).toBe(201);
    const act = await api(server.url, 'POST', `/api/v1/models/${res.body.model.id}/activate`, { token: owner.token });
    expect(act.status).toBe(409);
    expect(act.body.code).toBe('model_not_uploaded');
    const put = await fetch(res.body.upload_url, { method: 'PUT', headers: { 'content-type': res.body.content_type }, body: Buffer.alloc(1000) });
    expect(put.status).toBe(413);
  });

  it('sizes and names are validated', async () => {
    const body = { organization_id: owner.org.id, name: 'x', source: 'onnx', filename: 'x.onnx', size: 251 * 1024 * 1024 };
    expect((await api(server.url, 'POST', '/api/v1/models', { token: owner.token, body })).status).toBe(400);
    expect((await api(server.url, 'POST', '/api/v1/models', { token: owner.token, body: { ...body, size: 10, filename: 'x.pt' } })).status).toBe(400);
    expect((await api(server.url, 'POST', '/api/v1/models', { token: owner.token, body: { ...body, size: 10, name: '' } })).status).toBe(400);
  });
});

describe('an HTTP model', () => {
  const http = (user: Member, url: string, extra: Record<string, unknown> = {}) =>
    api(server.url, 'POST', '/api/v1/models', { token: user.token, body: { organization_id: user.org.id, name: 'My service', source: 'http', url, kind: 'detect', classes: ['car', 'truck'], ...extra } });

  it('a public endpoint is registered ready, its headers never answered back', async () => {
    const res = await http(owner, 'https://93.184.215.14/predict', { headers: { Authorization: 'Bearer secret-token' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.model).toMatchObject({ source: 'http', status: 'ready', kind: 'detect', classes: ['car', 'truck'], url: 'https://93.184.215.14/predict' });
    expect(res.body.upload_url).toBeUndefined();
    const listed = await list(owner.token, owner.org.id);
    expect(JSON.stringify(listed.body)).not.toContain('secret-token');
  });

  it('the SSRF guard refuses private, loopback, link-local and metadata addresses, other schemes and credentials in the URL', async () => {
    for (const url of ['http://127.0.0.1:8080/p', 'http://localhost/p', 'http://10.1.2.3/p', 'http://192.168.1.10/p', 'http://169.254.169.254/latest/meta-data', 'http://[::1]/p', 'http://[fd00::1]/p', 'http://[::ffff:127.0.0.1]/p', 'http://0.0.0.0/p']) {
      const res = await http(owner, url);
      expect(res.status, url).toBe(400);
      expect(res.body.code, url).toBe('url_not_allowed');
      expect(res.body.error, url).toMatch(/MODELS_ALLOW_PRIVATE_URLS/);
    }
    for (const url of ['file:///etc/passwd', 'ftp://93.184.215.14/x', 'https://user:pass@93.184.215.14/x', 'not a url']) {
      const res = await http(owner, url);
      expect(res.status, url).toBe(400);
      expect(res.body.code, url).toBe('url_not_allowed');
    }
  });

  it('with MODELS_ALLOW_PRIVATE_URLS=true a private address is accepted', async () => {
    const open = await startServer({ MODELS_ALLOW_PRIVATE_URLS: 'true' });
    try {
      const user = await onboardedUser(open);
      const res = await api(open.url, 'POST', '/api/v1/models', { token: user.token, body: { organization_id: user.org.id, name: 'lan', source: 'http', url: 'http://127.0.0.1:9000/predict', kind: 'segment', classes: ['cell'] } });
      expect(res.status).toBe(201);
      expect(res.body.model).toMatchObject({ kind: 'segment', url: 'http://127.0.0.1:9000/predict' });
    } finally {
      await open.stop();
    }
  });

  it('an organization may register 100 models; the next is 409 models_limit until one is deleted', async () => {
    const user = await onboardedUser(server);
    const made: string[] = [];
    for (let i = 0; i < 100; i++) {
      const res = await http(user, 'https://93.184.215.14/p', { name: `m${i}` });
      expect(res.status).toBe(201);
      made.push(res.body.model.id);
    }
    const over = await http(user, 'https://93.184.215.14/p');
    expect(over.status).toBe(409);
    expect(over.body.code).toBe('models_limit');
    expect((await api(server.url, 'DELETE', `/api/v1/models/${made[0]}`, { token: user.token })).status).toBe(200);
    expect((await http(user, 'https://93.184.215.14/p')).status).toBe(201);
  });

  it('registrations at once cannot pass the limit: at 99 models, of 8 at once exactly one is 201 and the rest 409 models_limit', async () => {
    // The limit is counted under a lock on the organization's row (registry.ts insertWithinLimit);
    // a count then an insert lets several through at 99. On PGlite statements run one at a time
    // anyway: the race shows on PostgreSQL (CI's second API run).
    const user = await onboardedUser(server);
    const rows = Array.from({ length: 99 }, (_, i) => ({ id: randomUUID(), organizationId: user.org.id, name: `m${i}`, source: 'http' as const, kind: 'detect' as const, classes: ['car'], url: 'https://93.184.215.14/p' }));
    await server.built.ctx.db.insert(models).values(rows);
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => http(user, 'https://93.184.215.14/p', { name: `race${i}` })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, ...Array(7).fill(409)]);
    expect(answers.filter((a) => a.status === 409).every((a) => a.body.code === 'models_limit')).toBe(true);
    const listed = (await list(user.token, user.org.id)).body.models.filter((m: { source: string }) => m.source !== 'builtin');
    expect(listed).toHaveLength(100);
  });

  it('bad classes and headers are 400', async () => {
    expect((await http(owner, 'https://93.184.215.14/p', { classes: [] })).status).toBe(400);
    expect((await http(owner, 'https://93.184.215.14/p', { headers: { 'Bad Header': 'x' } })).status).toBe(400);
    expect((await http(owner, 'https://93.184.215.14/p', { headers: { 'X-A': 'line\r\nbreak' } })).status).toBe(400);
  });
});

describe('roles and organizations', () => {
  it('owners and admins manage; annotators, reviewers and viewers list but may not register, activate or delete', async () => {
    const m = await uploadOnnx(owner, yoloTestModel({ names: ['a'] }));
    const admin = { ...(await joinAs(server, owner.token, owner.org.id, 'admin')), org: owner.org };
    const made = await uploadOnnx(admin as Member, yoloTestModel({ names: ['b'] }));
    expect((await made.activate()).status).toBe(200);
    for (const role of ['annotator', 'reviewer', 'viewer'] as const) {
      const u = await joinAs(server, owner.token, owner.org.id, role);
      const ls = await list(u.token, owner.org.id);
      expect(ls.status, role).toBe(200);
      expect(ls.body.models.some((x: any) => x.id === m.id), role).toBe(true);
      const create = await api(server.url, 'POST', '/api/v1/models', { token: u.token, body: { organization_id: owner.org.id, name: 'n', source: 'onnx', filename: 'n.onnx', size: 10 } });
      expect(create.status, role).toBe(403);
      expect((await api(server.url, 'POST', `/api/v1/models/${m.id}/activate`, { token: u.token })).status, role).toBe(403);
      expect((await api(server.url, 'DELETE', `/api/v1/models/${m.id}`, { token: u.token })).status, role).toBe(403);
    }
  });

  it("another organization's model is 404, and its list is not readable", async () => {
    const m = await uploadOnnx(owner, yoloTestModel({ names: ['a'] }));
    const stranger = await onboardedUser(server);
    expect((await api(server.url, 'POST', `/api/v1/models/${m.id}/activate`, { token: stranger.token })).status).toBe(404);
    expect((await api(server.url, 'DELETE', `/api/v1/models/${m.id}`, { token: stranger.token })).status).toBe(404);
    expect((await list(stranger.token, owner.org.id)).status).toBe(404);
    expect((await list(stranger.token, stranger.org.id)).body.models.some((x: any) => x.id === m.id)).toBe(false);
    const create = await api(server.url, 'POST', '/api/v1/models', { token: stranger.token, body: { organization_id: owner.org.id, name: 'n', source: 'onnx', filename: 'n.onnx', size: 10 } });
    expect(create.status).toBe(404);
  });
});
