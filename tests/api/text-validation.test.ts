// Issue 15 item 4: a string PostgreSQL cannot hold (NUL, an unpaired surrogate) is refused with
// 400 at validation on every route that stores text, so one bad annotation can no longer break a
// project's stats; and a seeded fuzz of real-world Unicode round-trips byte for byte.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';

let server: TestServer;
let owner: Member;
let project: { id: string };
let image: { id: string; filename: string };

const CLASSES = [{ name: 'car', type: 'box', color: '#FFADAD' }];
const box = { x: 1, y: 2, w: 3, h: 4 };

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
  project = await createProject(server, owner);
  const patch = await api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { classes: CLASSES } });
  if (patch.status !== 200) throw new Error(JSON.stringify(patch.body));
  const img = await uploadImage(server, owner, project.id, 'repro.png', await png(8, 8));
  image = { id: img.id, filename: img.filename };
}, 120_000);

const saveData = (img: { id: string; filename: string }, annotations: unknown[]) =>
  api(server.url, 'POST', '/api/v1/annotations/save-data', { token: owner.token, body: { image_id: img.id, project_id: project.id, image_filename: img.filename, annotations } });
const stats = () => api(server.url, 'GET', `/api/v1/annotations/stats/${project.id}`, { token: owner.token });

describe('a NUL or an unpaired surrogate in an annotation', () => {
  it.each([
    ['a NUL', 'a\u0000b'],
    ['a lone high surrogate', '\ud800'],
    ['a lone low surrogate', 'x\udc00y'],
  ])('%s in attributes is refused by save-data with 400 naming the annotation, and the project stats keep answering 200', async (_what, bad) => {
    const res = await saveData(image, [{ id: 'a1', name: 'car', bounding_box: box, attributes: [bad] }]);
    const after = await stats();
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/Annotation 0 \(id "a1"\).*NUL characters or unpaired surrogates/);
    expect(after.status).toBe(200);
  });
});

// --- every text-storing route refuses unstorable text, and stores real-world Unicode exactly

/** mulberry32: a small seeded PRNG, so every run draws the same strings. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = prng(0x15_04);
const pick = <T,>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;

// Pieces a string is built from, each a whole grapheme or sequence (never a split surrogate pair).
const SOLID = [
  'a', 'Z', '7', 'é', 'ß', 'Ω', 'Ж', '漢', '字', 'か', '한', 'ก', 'ע', 'ب', '𝔘', '𠜎', '𓀀', '😀', '👍🏽', '👨‍👩‍👧‍👦', '🏳️‍🌈', '🇫🇷', 'e\u0301', 'a\u0308\u0323', 'ﬁ', '\u00bd',
];
const INNER = [...SOLID, ' ', 'שלום', 'مرحبا', '\u200f', '\u200d', '\u00a0', '-', '_', '.', '(', ')', '\u0915\u094d\u0937'];
// Storable but not allowed in every field: control characters and bidi overrides (free text only).
const FREE_ONLY = ['\t', '\n', '\u0001', '\u007f', '\u202e', '\u2066', '\ufeff', '"', '\\', '/', '<', '%'];
const BAD = ['\u0000', '\ud800', '\udbff', '\udc00', '\udfff'];

/** A string of at most `max` UTF-16 units (exactly `max` when `full`), starting and ending with a non-space piece. */
function text(max: number, opts: { full?: boolean; free?: boolean } = {}): string {
  const target = opts.full ? max : 1 + Math.floor(rand() * Math.min(max, 40));
  const pool = opts.free ? [...INNER, ...FREE_ONLY] : INNER;
  const first = pick(SOLID);
  let s = first.length <= target ? first : 'a';
  for (;;) {
    const room = target - s.length;
    if (room <= 0) break;
    const last = pick(SOLID);
    if (room <= 2) {
      s += last.length <= room ? last : 'b'.repeat(room);
      break;
    }
    const piece = pick(pool);
    if (piece.length < room - 1) s += piece;
    else s += 'c';
  }
  return s;
}

/** `good` with one unstorable character put in at a random place (between pairs, never inside one). */
function spoiled(good: string): string {
  const cps = Array.from(good);
  const at = Math.floor(rand() * (cps.length + 1));
  return [...cps.slice(0, at), pick(BAD), ...cps.slice(at)].join('');
}

/** A random JSON value holding random text, in values and in keys. */
function jsonValue(depth = 0): unknown {
  const r = rand();
  if (depth >= 3 || r < 0.4) return text(60, { free: true });
  if (r < 0.5) return Math.round(rand() * 1e6) / 100;
  if (r < 0.55) return rand() < 0.5;
  if (r < 0.6) return null;
  if (r < 0.8) return Array.from({ length: 1 + Math.floor(rand() * 3) }, () => jsonValue(depth + 1));
  return Object.fromEntries(Array.from({ length: 1 + Math.floor(rand() * 3) }, (_, i) => [`${i}${text(20, { free: true })}`, jsonValue(depth + 1)]));
}

/** Exactly the same UTF-8 bytes (and so the same UTF-16 units). */
function expectSameText(got: unknown, sent: string, what: string) {
  expect(typeof got, what).toBe('string');
  expect(Buffer.from(got as string, 'utf8').equals(Buffer.from(sent, 'utf8')), `${what}: ${JSON.stringify(got)} !== ${JSON.stringify(sent)}`).toBe(true);
}

const FUZZ_ROUNDS = 6;

describe('a NUL in text the server only looks up', () => {
  // Found by a fuzz of every route in the OpenAPI document: these reached the database as query
  // parameters, which refuse NUL, and answered 500.
  it('answers 400 on the list\'s search and class filter, sign-in and assisted segmentation\'s image name', async () => {
    for (const q of ['search=a%00b', 'class=car%00', 'class=car&class=%00']) {
      const res = await api(server.url, 'GET', `/api/v1/projects/${project.id}/images?${q}`, { token: owner.token });
      expect(res.status, q).toBe(400);
      expect(res.body).toMatchObject({ success: false, code: 'validation_failed' });
      expect(res.body.error, q).toMatch(/NUL characters/);
    }
    expect((await api(server.url, 'GET', `/api/v1/projects/${project.id}/images?search=repro&class=car`, { token: owner.token })).status).toBe(200);

    const signIn = await api(server.url, 'POST', '/api/v1/auth/signin', { body: { email: 'a\u0000owner@example.com', password: 'x' } });
    expect(signIn.status).toBe(400);
    expect(signIn.body.error).toMatch(/e-mail address must not contain NUL/);

    const grant = await api(server.url, 'POST', '/auth/v1/token?grant_type=password', { body: { email: 'a\u0000owner@example.com', password: 'x' }, headers: { apikey: server.built.ctx.auth.anonKey } });
    // GoTrue's own shape; the e-mail reached its lookup, and the error handler's net answered.
    expect(grant.status).toBe(400);
    expect(grant.body).toMatchObject({ error_code: 'validation_failed', msg: expect.stringMatching(/NUL characters/) });

    const segment = await api(server.url, 'POST', '/api/v1/auto-annotate/sam2/process-image', { token: owner.token, body: { project_id: project.id, image_name: 'repro\u0000.png' } });
    expect(segment.status).toBe(400);
    expect(segment.body.error).toMatch(/image_name must not contain NUL/);
  });
});

describe('fuzz: random Unicode through every text-storing route', () => {
  const get = (path: string, token = owner.token) => api(server.url, 'GET', path, { token });
  const send = (method: string, path: string, body: unknown, token = owner.token) => api(server.url, method, path, { token, body });
  const expect400 = (res: { status: number; body: any }, what: string) => {
    expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(400);
    expect(res.body.error, what).toMatch(/NUL characters or unpaired surrogates/);
  };

  let classNames: string[] = [];

  it('class names (PATCH project), project names and descriptions', async () => {
    const names = Array.from({ length: 8 }, (_, i) => `${i}${text(99, { full: i < 2 })}`);
    classNames = names;
    const classes = names.map((name, i) => ({ name, type: i % 2 ? 'polygon' : 'box', color: '#A0C4FF' }));
    const patched = await send('PATCH', `/api/v1/projects/${project.id}`, { classes });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const back = (await get(`/api/v1/projects/${project.id}`)).body.project;
    names.forEach((n, i) => expectSameText(back.classes[i].name, n, `class ${i}`));
    for (const n of names.slice(0, 3)) expect400(await send('PATCH', `/api/v1/projects/${project.id}`, { classes: [...classes, { name: spoiled(n.slice(2) || 'x'), type: 'box', color: '#A0C4FF' }] }), 'class name');

    for (let i = 0; i < FUZZ_ROUNDS; i++) {
      const name = text(200, { full: i === 0 });
      const description = text(2000, { full: i === 1, free: true });
      const created = await send('POST', '/api/v1/projects', { organization_id: owner.org.id, name, description });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const read = (await get(`/api/v1/projects/${created.body.project.id}`)).body.project;
      expectSameText(read.name, name, 'project name');
      expectSameText(read.description, description, 'project description');
      const renamed = text(200, { full: i === 2 });
      expect((await send('PATCH', `/api/v1/projects/${created.body.project.id}`, { name: renamed })).status).toBe(200);
      expectSameText((await get(`/api/v1/projects/${created.body.project.id}`)).body.project.name, renamed, 'renamed project');
      expect400(await send('POST', '/api/v1/projects', { organization_id: owner.org.id, name: spoiled(name) }), 'project name');
      expect400(await send('POST', '/api/v1/projects', { organization_id: owner.org.id, name, description: spoiled(description) }), 'project description');
      expect400(await send('PATCH', `/api/v1/projects/${created.body.project.id}`, { description: spoiled(description) }), 'project description (PATCH)');
    }
  });

  it('annotations: ids, class names, attributes and extra keys through save-data, save-changes, batch-save-data and save-segmentation', async () => {
    const annotation = (i: number) => ({
      id: `${i}${text(100, { free: true })}`,
      name: pick(classNames),
      bounding_box: { x: i, y: 1, w: 2, h: 3 },
      attributes: Array.from({ length: 1 + Math.floor(rand() * 3) }, () => jsonValue()),
      [`extra ${text(20)}`]: jsonValue(),
    });
    const load = async () => {
      const res = await get(`/api/v1/annotations/load-data/${image.id}?project_id=${project.id}`);
      expect(res.status).toBe(200);
      return res.body as { annotations: Record<string, unknown>[]; version: number };
    };
    const body = (annotations: unknown[]) => ({ image_id: image.id, project_id: project.id, image_filename: image.filename, annotations });
    const same = (got: unknown, sent: unknown) => expect(Buffer.from(JSON.stringify(got)).equals(Buffer.from(JSON.stringify(sent))), `${JSON.stringify(got)}\n!==\n${JSON.stringify(sent)}`).toBe(true);

    for (let round = 0; round < FUZZ_ROUNDS; round++) {
      const list = Array.from({ length: 5 }, (_, i) => annotation(round * 10 + i));
      const saved = await send('POST', '/api/v1/annotations/save-data', body(list));
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
      same((await load()).annotations, list);

      // One bad string anywhere in an annotation: 400 naming it, and nothing changes.
      const victim = structuredClone(list[2]!) as Record<string, any>;
      const where = pick(['id', 'name', 'attribute', 'attribute key', 'extra', 'extra key'] as const);
      if (where === 'id') victim.id = spoiled(victim.id);
      else if (where === 'name') victim.name = spoiled(victim.name);
      else if (where === 'attribute') victim.attributes.push({ deep: [1, spoiled(text(10))] });
      else if (where === 'attribute key') victim.attributes.push({ [spoiled('key')]: 1 });
      else if (where === 'extra') victim.note = spoiled(text(30));
      else victim[spoiled('extra')] = true;
      const refused = await send('POST', '/api/v1/annotations/save-data', body([list[0], list[1], victim]));
      expect400(refused, `save-data, bad ${where}`);
      expect(refused.body.error).toMatch(/^Annotation 2 /);

      const { version } = await load();
      const upsert = annotation(round * 10 + 9);
      const changed = await send('POST', '/api/v1/annotations/save-changes', { image_id: image.id, project_id: project.id, image_filename: image.filename, base_version: version, upserts: [upsert], removed_ids: [list[0]!.id] });
      expect(changed.status, JSON.stringify(changed.body)).toBe(200);
      same((await load()).annotations, [...list.slice(1), upsert]);
      expect400(await send('POST', '/api/v1/annotations/save-changes', { image_id: image.id, project_id: project.id, image_filename: image.filename, base_version: version + 1, upserts: [{ ...upsert, attributes: [spoiled('x')] }] }), 'save-changes');

      // A batch: the bad entry fails alone.
      const good = annotation(round * 10 + 8);
      const batch = await send('POST', '/api/v1/annotations/batch-save-data', {
        saves: [body([{ ...good, attributes: [{ [spoiled('k')]: 1 }] }]), body([good])],
      });
      expect(batch.status, JSON.stringify(batch.body)).toBe(200);
      expect(batch.body.results.map((r: { status: string }) => r.status)).toEqual(['error', 'saved']);
      expect(batch.body.results[0].error).toMatch(/NUL characters or unpaired surrogates/);
      same((await load()).annotations, [good]);
    }

    // save-segmentation: class_name and metadata are stored with the mask.
    const seg = (extra: Record<string, unknown>) =>
      send('POST', '/api/v1/auto-annotate/sam2/save-segmentation', {
        project_id: project.id, image_name: image.filename, class_name: classNames[0], vellum_annotation: { polygon: { path: [[1, 1], [6, 1], [6, 6], [1, 6]], holes: [] } }, ...extra,
      });
    const metadata = { tool_used: text(100), [`k${text(30)}`]: jsonValue() };
    const segSaved = await seg({ metadata });
    expect(segSaved.status, JSON.stringify(segSaved.body)).toBe(200);
    const stored = (await load()).annotations.at(-1)!;
    expectSameText(stored.name, classNames[0]!, 'segmentation class');
    same((stored.metadata as Record<string, unknown>)[Object.keys(metadata)[1]!], metadata[Object.keys(metadata)[1]!]);
    expectSameText((stored.metadata as Record<string, unknown>).tool_used, metadata.tool_used, 'tool_used');
    expect400(await seg({ class_name: spoiled(classNames[0]!) }), 'save-segmentation class_name');
    expect400(await seg({ metadata: { note: spoiled('note') } }), 'save-segmentation metadata');
    expect400(await seg({ metadata: { [spoiled('key')]: 1 } }), 'save-segmentation metadata key');
  });

  it('folder names (create, rename) and image filenames (register)', async () => {
    const nfc = (s: string) => s.normalize('NFC');
    for (let i = 0; i < FUZZ_ROUNDS; i++) {
      const name = nfc(`${i}${text(99, { full: i === 0 })}`);
      const made = await send('POST', '/api/folders/create', { project_id: project.id, name });
      expect(made.status, JSON.stringify(made.body)).toBe(200);
      expectSameText(made.body.folder.name, name, 'folder name');
      const renamed = nfc(`${i}r${text(98, { full: i === 1 })}`);
      const ren = await api(server.url, 'PATCH', `/api/folders/${made.body.folder.id}/name?name=${encodeURIComponent(renamed)}`, { token: owner.token });
      expect(ren.status, JSON.stringify(ren.body)).toBe(200);
      const tree = (await get(`/api/folders/list/${project.id}`)).body.folders as { name: string; full_path: string }[];
      const found = tree.find((f) => f.name.startsWith(`${i}r`));
      expectSameText(found?.name, renamed, 'renamed folder');
      expectSameText(found?.full_path, `/${renamed}`, 'folder path');
      const bad = await send('POST', '/api/folders/create', { project_id: project.id, name: spoiled(name) });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('invalid_folder_name');
      const badRename = await api(server.url, 'PATCH', `/api/folders/${made.body.folder.id}/name?name=${encodeURIComponent(spoiled(renamed).replace(/[\ud800-\udfff]/g, '\u0000'))}`, { token: owner.token });
      expect(badRename.status).toBe(400);
    }

    const { sanitizeFilename } = await import('../../src/contract/images');
    const bytes = await png(4, 4);
    for (let i = 0; i < 3; i++) {
      // The longest one is MAX_FILENAME_LENGTH (200) characters, mostly ASCII: the local storage driver
      // refuses a key segment over 255 bytes, which 200 astral or CJK characters exceed (reported, not fixed here).
      const head = nfc(`${i}${text(12)}`);
      const stem = i === 0 ? head + 'x'.repeat(196 - Array.from(head).length) : `${i}${text(60)}`;
      const filename = sanitizeFilename(nfc(`${stem}.png`));
      if (i === 0) expect(Array.from(filename)).toHaveLength(200);
      const img = await uploadImage(server, owner, project.id, filename, bytes);
      expectSameText(img.filename, filename, 'filename');
      expectSameText((await get(`/api/v1/images/${img.id}`)).body.image.filename, filename, 'filename read back');
      const bad = await send('POST', `/api/v1/projects/${project.id}/images/register?org_id=${owner.org.id}`, { filename: spoiled(filename), folder_path: '/' });
      expect400(bad, 'register filename');
      expect400(await send('POST', `/api/v1/projects/${project.id}/images/upload-url?org_id=${owner.org.id}`, { filename: spoiled(filename), content_type: 'image/png' }), 'upload-url filename');
    }
  });

  it('organization names, full names, API key names and invite e-mails', async () => {
    for (let i = 0; i < FUZZ_ROUNDS; i++) {
      const orgName = text(200, { full: i === 0 });
      const slug = `fuzz-${i}-${Math.floor(rand() * 1e9).toString(36)}`;
      const org = await send('POST', '/api/v1/organizations', { name: orgName, slug });
      expect(org.status, JSON.stringify(org.body)).toBe(200);
      expectSameText((await get(`/api/v1/organizations/${org.body.organization.id}`)).body.organization?.name ?? (await get(`/api/v1/organizations/${org.body.organization.id}`)).body.name, orgName, 'organization name');
      expect400(await send('POST', '/api/v1/organizations', { name: spoiled(orgName), slug: `${slug}-x` }), 'organization name');

      const fullName = text(200, { full: i === 1 });
      expect((await send('PATCH', '/api/v1/users/me', { full_name: fullName })).status).toBe(200);
      expectSameText((await get('/api/v1/users/me')).body.profile.full_name, fullName, 'full name');
      expect400(await send('PATCH', '/api/v1/users/me', { full_name: spoiled(fullName) }), 'full name');

      const keyName = text(100, { full: i === 2 });
      const key = await send('POST', '/api/v1/api-keys', { organization_id: owner.org.id, name: keyName });
      expect(key.status, JSON.stringify(key.body)).toBe(200);
      const keys = (await get(`/api/v1/api-keys?organization_id=${owner.org.id}`)).body.api_keys as { id: string; name: string }[];
      expectSameText(keys.find((k) => k.id === key.body.api_key.id)?.name, keyName, 'API key name');
      expect400(await send('POST', '/api/v1/api-keys', { organization_id: owner.org.id, name: spoiled(keyName) }), 'API key name');
    }
    const invite = await send('POST', `/api/v1/organizations/${owner.org.id}/invites`, { email: 'fuzz\u0000@example.com', role: 'viewer' });
    expect(invite.status).toBe(400);
  });

  it('leaves stats, the image list and the export answering 200', async () => {
    const stats = await get(`/api/v1/annotations/stats/${project.id}`);
    expect(stats.status, JSON.stringify(stats.body)).toBe(200);
    for (const name of Object.keys(stats.body.by_class)) expect(classNames).toContain(name);
    const list = await get(`/api/v1/projects/${project.id}/images?limit=100`);
    expect(list.status).toBe(200);
    expect(list.body.images.length).toBeGreaterThanOrEqual(4);
    const exp = await fetch(`${server.url}/api/v1/annotations/export`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: project.id, scope: 'current_filters', filters: {} }),
    });
    expect(exp.status, await exp.clone().text()).toBe(200);
    expect((await exp.arrayBuffer()).byteLength).toBeGreaterThan(0);
    const coco = await fetch(`${server.url}/api/v1/annotations/export`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: project.id, scope: 'current_filters', filters: {}, format: 'coco' }),
    });
    expect(coco.status).toBe(200);
    await coco.arrayBuffer();
  });
});
