// The upload flow of spec section 7 as a client runs it: check-filename, upload-url, PUT, register;
// what register refuses, and that nothing is left behind when it does.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import zlib from 'node:zlib';
import sharp from 'sharp';
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, jpeg, keysUnder, png, pngClaiming, putUpload, register, sizeOf, uploadImage, type Member } from '../fixtures/datasets';
import { annotationDocuments, images } from '../../src/server/db/schema';
import { sweepOrphans } from '../../src/server/services/upload';

let server: TestServer;
let owner: Member;
let project: { id: string; gcs_path: string };
let bucket: string;

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
  project = await createProject(server, owner);
  bucket = owner.org.gcs_bucket_name;
});

const base = () => `/api/v1/projects/${project.id}/images`;
const projectRow = async () => (await api(server.url, 'GET', `/api/v1/projects/${project.id}`, { token: owner.token })).body.project;

describe('check-filename', () => {
  it('answers the name itself when free, then a suffixed one while it is held or used', async () => {
    const first = await api(server.url, 'POST', `${base()}/check-filename?org_id=${owner.org.id}`, { token: owner.token, body: { filename: 'cat.png' } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ unique_filename: 'cat.png', original_filename: 'cat.png', changed: false });
    // The first answer holds cat.png, so a second file of the same drop gets another name.
    const second = await api(server.url, 'POST', `${base()}/check-filename`, { token: owner.token, body: { filename: 'cat.png' } });
    expect(second.body.unique_filename).toBe('cat_1.png');
    await uploadImage(server, owner, project.id, 'dog.png', await png(8, 8));
    const third = await api(server.url, 'POST', `${base()}/check-filename`, { token: owner.token, body: { filename: 'DOG.png' } });
    expect(third.body).toMatchObject({ unique_filename: 'DOG_1.png', changed: true });
  });

  it('sanitises: base name only, no control characters, bounded length with the extension kept', async () => {
    const cases: [string, RegExp | string][] = [
      ['../../etc/passwd.png', 'passwd.png'],
      ['..\\..\\win.png', 'win.png'],
      ['a\u0000b\u001fc\u202e.png', 'abc.png'],
      ['  spaced   name .png', 'spaced name .png'],
      ['what?#%.png', 'what___.png'],
      [`${'x'.repeat(500)}.jpeg`, /^x{195}\.jpeg$/],
    ];
    for (const [input, expected] of cases) {
      const res = await api(server.url, 'POST', `${base()}/check-filename`, { token: owner.token, body: { filename: input } });
      expect(res.status, input).toBe(200);
      if (typeof expected === 'string') expect(res.body.unique_filename).toBe(expected);
      else expect(res.body.unique_filename).toMatch(expected);
    }
  });

  it('refuses names that are empty once cleaned (400) or not images (415)', async () => {
    expect((await api(server.url, 'POST', `${base()}/check-filename`, { token: owner.token, body: { filename: '../..' } })).status).toBe(400);
    const txt = await api(server.url, 'POST', `${base()}/check-filename`, { token: owner.token, body: { filename: 'notes.txt' } });
    expect(txt.status).toBe(415);
    expect(txt.body).toMatchObject({ success: false, code: 'unsupported_media_type' });
    expect((await api(server.url, 'POST', `${base()}/check-filename`, { token: owner.token, body: { filename: 42 } })).status).toBe(400);
  });

  it('cuts a long name in a script of wide characters to what storage takes (bytes, not only characters), and it uploads, twice', async () => {
    const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
    const long = `${'猫'.repeat(190)}.png`; // 190 characters, 574 bytes
    const first = await api(server.url, 'POST', `${base()}/check-filename`, { token: owner.token, body: { filename: long } });
    expect(first.status).toBe(200);
    const name: string = first.body.unique_filename;
    expect(name).toMatch(/^猫+\.png$/);
    expect(bytes(name)).toBeLessThanOrEqual(240);
    expect((await uploadImage(server, owner, project.id, name, await png(4, 4))).filename).toBe(name);
    // The next one of the same name gets a suffix and still fits.
    const second = await api(server.url, 'POST', `${base()}/check-filename`, { token: owner.token, body: { filename: long } });
    expect(second.body.unique_filename).toMatch(/^猫+_1\.png$/);
    expect(bytes(second.body.unique_filename)).toBeLessThanOrEqual(240);
    expect((await uploadImage(server, owner, project.id, second.body.unique_filename, await png(4, 4))).filename).toBe(second.body.unique_filename);
  });
});

describe('upload-url', () => {
  it('answers the image key and signs a PUT (to staging) with the content type and a 200 MB cap', async () => {
    const res = await api(server.url, 'POST', `${base()}/upload-url?org_id=${owner.org.id}`, { token: owner.token, body: { filename: 'signed.png', content_type: 'image/png', folder_path: '/' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      gcs_bucket: bucket,
      gcs_path: `${project.gcs_path}/images/signed.png`,
      gcs_uri: `gs://${bucket}/${project.gcs_path}/images/signed.png`,
      filename: 'signed.png',
      max_bytes: 200 * 1024 * 1024,
    });
    // Default expiry is 15 minutes.
    const minutes = (Date.parse(res.body.expires_at) - Date.now()) / 60000;
    expect(minutes).toBeGreaterThan(13);
    expect(minutes).toBeLessThanOrEqual(15.1);
    // The URL takes exactly that content type.
    const wrongType = await fetch(res.body.upload_url, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: new Uint8Array(await png(4, 4)) });
    expect(wrongType.status).toBe(415);
    const ok = await fetch(res.body.upload_url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: new Uint8Array(await png(4, 4)) });
    expect(ok.status).toBe(200);
  });

  it('refuses bad content types, mismatched extensions, unsafe names, unknown folders and taken names', async () => {
    const call = (body: Record<string, unknown>) => api(server.url, 'POST', `${base()}/upload-url`, { token: owner.token, body: { folder_path: '/', ...body } });
    expect((await call({ filename: 'a.png', content_type: 'text/html' })).status).toBe(415);
    expect((await call({ filename: 'a.png', content_type: 'image/jpeg' })).body.code).toBe('content_type_mismatch');
    const traversal = await call({ filename: '../other-project/images/a.png', content_type: 'image/png' });
    expect(traversal.status).toBe(400);
    expect(traversal.body).toMatchObject({ code: 'invalid_filename', suggested_filename: 'a.png' });
    expect((await call({ filename: 'a.png', content_type: 'image/png', folder_path: '/nope' })).status).toBe(404);
    expect((await call({ filename: 'a.png', content_type: 'image/png', folder_path: '/../x' })).body.code).toBe('invalid_folder_path');
    expect((await call({ filename: 'a.png', content_type: 'image/png', expiration_minutes: 0 })).status).toBe(400);
    await uploadImage(server, owner, project.id, 'taken.png', await png(4, 4));
    const taken = await call({ filename: 'taken.png', content_type: 'image/png' });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('filename_taken');
  });

  it('hides other organizations\' projects (404) and needs a token (401)', async () => {
    const stranger = await onboardedUser(server);
    const res = await api(server.url, 'POST', `${base()}/upload-url`, { token: stranger.token, body: { filename: 'x.png', content_type: 'image/png' } });
    expect(res.status).toBe(404);
    expect((await api(server.url, 'POST', `${base()}/upload-url?org_id=${stranger.org.id}`, { token: owner.token, body: { filename: 'x.png', content_type: 'image/png' } })).status).toBe(404);
    expect((await api(server.url, 'POST', `${base()}/upload-url`, { body: { filename: 'x.png', content_type: 'image/png' } })).status).toBe(401);
  });
});

describe('batch-upload-urls', () => {
  it('answers urls for the good files and failed entries for the others', async () => {
    const res = await api(server.url, 'POST', `${base()}/batch-upload-urls?org_id=${owner.org.id}`, {
      token: owner.token,
      body: {
        files: [
          { filename: 'b1.png', content_type: 'image/png', folder_path: '/' },
          { filename: 'b2.jpg', content_type: 'image/jpeg' },
          { filename: 'b1.png', content_type: 'image/png' },
          { filename: 'b3.exe', content_type: 'application/octet-stream' },
          { filename: 'b4.png', content_type: 'image/png', folder_path: '/missing' },
        ],
        expiration_minutes: 30,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.urls.map((u: { filename: string }) => u.filename)).toEqual(['b1.png', 'b2.jpg']);
    expect(res.body.urls[1]).toMatchObject({ gcs_path: `${project.gcs_path}/images/b2.jpg`, content_type: 'image/jpeg', folder_path: '/' });
    expect(res.body.failed).toEqual([
      { filename: 'b1.png', error: expect.stringContaining('twice'), code: 'filename_taken' },
      { filename: 'b3.exe', error: expect.any(String), code: 'unsupported_media_type' },
      { filename: 'b4.png', error: expect.stringContaining('/missing'), code: 'not_found' },
    ]);
    expect((await api(server.url, 'POST', `${base()}/batch-upload-urls`, { token: owner.token, body: { files: [] } })).status).toBe(400);
  });
});

describe('register', () => {
  it('measures the stored file, writes thumbnail and sidecar, inserts the row, the annotation document and the counters', async () => {
    const before = await projectRow();
    const bytes = await jpeg(640, 480);
    const up = await putUpload(server, owner, project.id, 'photo.jpg', bytes);
    // The client's claims are ignored: the server measures.
    const res = await register(server, owner, project.id, 'photo.jpg', { gcs_bucket: up.gcs_bucket, gcs_path: up.gcs_path, gcs_uri: up.gcs_uri, file_size: 1, mime_type: 'image/png', width: 1, height: 1 });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const image = res.body.image;
    expect(image).toMatchObject({
      filename: 'photo.jpg',
      status: 'new',
      virtual_folder_path: '/',
      folder_id: null,
      file_size: bytes.length,
      mime_type: 'image/jpeg',
      image_width: 640,
      image_height: 480,
      annotation_count: 0,
      is_archived: false,
      is_edited: false,
      gcs_path: `${project.gcs_path}/images/photo.jpg`,
      gcs_uri: `gs://${bucket}/${project.gcs_path}/images/photo.jpg`,
      thumbnail_path: `${project.gcs_path}/thumbnails/photo.jpg.webp`,
      project_id: project.id,
      organization_id: owner.org.id,
    });
    const storage = server.built.ctx.storage;
    const thumb = await storage.get(bucket, image.thumbnail_path);
    const thumbBytes = Buffer.concat(await thumb.body.toArray());
    const meta = await sharp(thumbBytes).metadata();
    expect(meta).toMatchObject({ format: 'webp', width: 384, height: 288 });
    const sidecar = JSON.parse(Buffer.concat(await (await storage.get(bucket, `${project.gcs_path}/images/photo.jpg.json`)).body.toArray()).toString());
    expect(sidecar).toEqual({ image_path: image.gcs_path, filename: 'photo.jpg', width: 640, height: 480, stage: 'New', annotations: [] });
    const [doc] = await server.built.ctx.db.select().from(annotationDocuments).where(eq(annotationDocuments.imageId, image.id));
    expect(doc).toMatchObject({ projectId: project.id, version: 0 });
    expect((await api(server.url, 'GET', `/api/v1/annotations/load-data/${image.id}`, { token: owner.token })).body).toEqual({ annotations: [], version: 0, saved_at: null });
    const after = await projectRow();
    expect(after.image_count).toBe(before.image_count + 1);
    expect(after.total_size).toBe(before.total_size + bytes.length);
    // Registered once only.
    const again = await register(server, owner, project.id, 'photo.jpg');
    expect(again.status).toBe(409);
    expect(await storage.head(bucket, image.gcs_path)).not.toBeNull();
  });

  it('registers into an existing folder and refuses an unknown one, deleting that upload', async () => {
    const folder = await api(server.url, 'POST', '/api/folders/create', { token: owner.token, body: { project_id: project.id, name: 'shelf', parent_folder_path: '/' } });
    expect(folder.status).toBe(200);
    const image = await uploadImage(server, owner, project.id, 'in-folder.png', await png(10, 20), { folder: '/shelf' });
    expect(image).toMatchObject({ virtual_folder_path: '/shelf', folder_id: folder.body.folder.id, image_width: 10, image_height: 20 });

    await putUpload(server, owner, project.id, 'lost.png', await png(4, 4));
    const res = await register(server, owner, project.id, 'lost.png', { folder_path: '/no-such-folder' });
    expect(res.status).toBe(404);
    expect(await server.built.ctx.storage.head(bucket, `${project.gcs_path}/images/lost.png`)).toBeNull();
  });

  async function expectNothingLeft(filename: string) {
    const rows = await server.built.ctx.db.select().from(images).where(and(eq(images.projectId, project.id), eq(images.filename, filename)));
    expect(rows).toEqual([]);
    const left = [...(await keysUnder(server, bucket, `${project.gcs_path}/images/${filename}`)), ...(await keysUnder(server, bucket, `${project.gcs_path}/thumbnails/${filename}`))];
    expect(left).toEqual([]);
  }

  it('refuses a file whose bytes are not what its name says (415) and deletes it', async () => {
    const before = await projectRow();
    await putUpload(server, owner, project.id, 'fake.png', await jpeg(16, 16));
    const res = await register(server, owner, project.id, 'fake.png');
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ success: false, code: 'type_mismatch' });
    expect(res.body.error).toMatch(/image\/jpeg/);
    await expectNothingLeft('fake.png');
    await putUpload(server, owner, project.id, 'text.png', Buffer.from('hello, I am not an image at all'));
    const text = await register(server, owner, project.id, 'text.png');
    expect(text.status).toBe(415);
    await expectNothingLeft('text.png');
    expect((await projectRow()).image_count).toBe(before.image_count);
  });

  it('refuses an image beyond 20000 x 20000 pixels as a decompression bomb (413) and deletes it', async () => {
    const bomb = pngClaiming(100_000, 100_000);
    expect(bomb.length).toBeLessThan(1000);
    await putUpload(server, owner, project.id, 'bomb.png', bomb);
    const res = await register(server, owner, project.id, 'bomb.png');
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ success: false, code: 'too_many_pixels' });
    await expectNothingLeft('bomb.png');
    // Just over the limit is refused too.
    await putUpload(server, owner, project.id, 'bomb2.png', pngClaiming(20_001, 20_000));
    expect((await register(server, owner, project.id, 'bomb2.png')).status).toBe(413);
    await expectNothingLeft('bomb2.png');
  });

  it('refuses SVG with script, event handlers or external references; accepts an inert one', async () => {
    const unsafe = [
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>',
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" onload="alert(1)"><rect width="5" height="5"/></svg>',
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10"><image xlink:href="https://evil.example/x.png" width="5" height="5"/></svg>',
      '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x "boom">]><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>&x;</text></svg>',
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><a href="javascript:alert(1)"><rect width="5" height="5"/></a></svg>',
    ];
    for (const [i, svg] of unsafe.entries()) {
      const name = `unsafe${i}.svg`;
      await putUpload(server, owner, project.id, name, Buffer.from(svg));
      const res = await register(server, owner, project.id, name);
      expect(res.status, svg).toBe(415);
      expect(res.body.code).toBe('unsafe_svg');
      await expectNothingLeft(name);
    }
    const safe = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="120" height="80"><defs><linearGradient id="g"><stop offset="0" stop-color="red"/></linearGradient></defs><rect width="120" height="80" fill="url(#g)"/></svg>';
    const image = await uploadImage(server, owner, project.id, 'safe.svg', Buffer.from(safe));
    expect(image).toMatchObject({ mime_type: 'image/svg+xml', image_width: 120, image_height: 80 });
    expect(image.thumbnail_path).toBeTruthy();
  });

  it('accepts GIF, WebP and BMP (BMP has no thumbnail: the original is its preview)', async () => {
    const gif = await sharp({ create: { width: 33, height: 21, channels: 3, background: '#00ff00' } }).gif().toBuffer();
    const webp = await sharp({ create: { width: 50, height: 70, channels: 3, background: '#0000ff' } }).webp().toBuffer();
    // A 3 x 2, 24-bit BMP written by hand (sharp cannot write BMP).
    const rowBytes = 12; // 3 px * 3 bytes, padded to 4
    const bmp = Buffer.alloc(54 + rowBytes * 2);
    bmp.write('BM', 0, 'latin1');
    bmp.writeUInt32LE(bmp.length, 2);
    bmp.writeUInt32LE(54, 10);
    bmp.writeUInt32LE(40, 14);
    bmp.writeInt32LE(3, 18);
    bmp.writeInt32LE(2, 22);
    bmp.writeUInt16LE(1, 26);
    bmp.writeUInt16LE(24, 28);
    const g = await uploadImage(server, owner, project.id, 'anim.gif', gif);
    expect(g).toMatchObject({ mime_type: 'image/gif', image_width: 33, image_height: 21 });
    const w = await uploadImage(server, owner, project.id, 'pic.webp', webp);
    expect(w).toMatchObject({ mime_type: 'image/webp', image_width: 50, image_height: 70 });
    const b = await uploadImage(server, owner, project.id, 'old.bmp', bmp);
    expect(b).toMatchObject({ mime_type: 'image/bmp', image_width: 3, image_height: 2, thumbnail_path: null });
    const signed = await api(server.url, 'GET', `/api/v1/images/${b.id}/signed-url?variant=thumbnail`, { token: owner.token });
    expect(Buffer.from(await (await fetch(signed.body.signed_url)).arrayBuffer()).equals(bmp)).toBe(true);
  });

  it('answers 400 for an object that was never uploaded, and for a location that is not the project\'s', async () => {
    const res = await register(server, owner, project.id, 'never-uploaded.png');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'object_not_found' });
    expect(res.body.error).toMatch(/upload/i);
    const up = await putUpload(server, owner, project.id, 'elsewhere.png', await png(4, 4));
    const wrong = await register(server, owner, project.id, 'elsewhere.png', { gcs_path: 'projects/other/images/elsewhere.png' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('invalid_location');
    expect((await register(server, owner, project.id, '../../x.png')).body.code).toBe('invalid_filename');
    expect(up.filename).toBe('elsewhere.png');
  });

  it('leaves no row and no files when the database step fails after the thumbnail was made', async () => {
    await putUpload(server, owner, project.id, 'dbfail.png', await png(30, 30));
    const db = server.built.ctx.db;
    const original = db.transaction.bind(db);
    (db as any).transaction = async () => {
      throw new Error('simulated database failure');
    };
    let res;
    try {
      res = await register(server, owner, project.id, 'dbfail.png');
    } finally {
      (db as any).transaction = original;
    }
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ success: false, error: 'Internal server error', code: 'internal_error' });
    await expectNothingLeft('dbfail.png');
  });

  it('is refused to viewers (403) and to strangers (404)', async () => {
    const stranger = await onboardedUser(server);
    expect((await api(server.url, 'POST', `${base()}/register`, { token: stranger.token, body: { filename: 'x.png' } })).status).toBe(404);
    const viewer = await onboardedUser(server);
    const { organizationMembers } = await import('../../src/server/db/schema');
    await server.built.ctx.db.insert(organizationMembers).values({ organizationId: owner.org.id, userId: viewer.userId, role: 'viewer' });
    const res = await api(server.url, 'POST', `${base()}/upload-url`, { token: viewer.token, body: { filename: 'v.png', content_type: 'image/png' } });
    expect(res.status).toBe(403);
    // Viewers still read.
    expect((await api(server.url, 'GET', `${base()}?limit=1`, { token: viewer.token })).status).toBe(200);
  });
});

describe('orphan sweep', () => {
  it('deletes old objects under images/ and thumbnails/ that no row owns, and nothing else', async () => {
    const kept = await uploadImage(server, owner, project.id, 'kept.png', await png(12, 12));
    const storage = server.built.ctx.storage;
    // An upload never registered (its name reservation expired), a stray thumbnail and sidecar.
    await storage.put(bucket, `${project.gcs_path}/images/abandoned.png`, await png(4, 4), { contentType: 'image/png' });
    await storage.put(bucket, `${project.gcs_path}/images/abandoned.png.json`, Buffer.from('{}'), { contentType: 'application/json' });
    await storage.put(bucket, `${project.gcs_path}/thumbnails/ghost.png.webp`, Buffer.from('x'), { contentType: 'image/webp' });
    // Too young to be swept: a fresh upload may still be registered.
    const young = await sweepOrphans(server.built.ctx);
    expect(young.deleted).not.toContain(`${project.gcs_path}/images/abandoned.png`);
    expect(await storage.head(bucket, `${project.gcs_path}/images/abandoned.png`)).not.toBeNull();

    const later = new Date(Date.now() + 3 * 3600_000); // every reservation has expired by then
    const swept = await sweepOrphans(server.built.ctx, { now: later });
    expect(swept.deleted).toEqual(
      expect.arrayContaining([`${project.gcs_path}/images/abandoned.png`, `${project.gcs_path}/images/abandoned.png.json`, `${project.gcs_path}/thumbnails/ghost.png.webp`]),
    );
    expect(await storage.head(bucket, `${project.gcs_path}/images/abandoned.png`)).toBeNull();
    expect(await storage.head(bucket, `${project.gcs_path}/thumbnails/ghost.png.webp`)).toBeNull();
    // Registered images keep all their files.
    for (const key of [kept.gcs_path, kept.thumbnail_path, `${project.gcs_path}/images/kept.png.json`]) expect(await storage.head(bucket, key)).not.toBeNull();
    expect(swept.deleted.some((k) => k.includes('/kept.png'))).toBe(false);
  });
});

describe('large images', () => {
  let bigPng: Buffer;
  beforeAll(async () => {
    // Generating a 20000 x 20000 PNG takes sharp ~10 s: reuse it between runs.
    const cache = path.join(os.tmpdir(), 'vellum-test-20000x20000.png');
    if (fs.existsSync(cache)) bigPng = fs.readFileSync(cache);
    else {
      bigPng = await sharp({ create: { width: 20000, height: 20000, channels: 3, background: '#4080c0' }, limitInputPixels: false }).png({ compressionLevel: 9 }).toBuffer();
      fs.writeFileSync(cache, bigPng);
    }
  }, 120_000);

  it('registers a 20000 x 20000 PNG with a 384 px thumbnail', async () => {
    const image = await uploadImage(server, owner, project.id, 'huge.png', bigPng);
    expect(image).toMatchObject({ image_width: 20000, image_height: 20000, mime_type: 'image/png', file_size: bigPng.length });
    const thumb = Buffer.concat(await (await server.built.ctx.storage.get(bucket, image.thumbnail_path)).body.toArray());
    expect(await sharp(thumb).metadata()).toMatchObject({ format: 'webp', width: 384, height: 384 });
  }, 120_000);

  it('accepts a file close to 200 MB and refuses a larger one at the signed URL', async () => {
    // A real PNG carrying a 190 MB private ancillary chunk ("vlMp"): large on disk, small in pixels.
    // Its padding is one 1 MB part sent 190 times (streamed, never built whole in the test).
    const small = await png(64, 64);
    const iendAt = small.length - 12;
    const type = Buffer.from('vlMp', 'latin1');
    const padding: Buffer[] = new Array(190).fill(Buffer.alloc(1024 * 1024, 7));
    const len = Buffer.alloc(4);
    len.writeUInt32BE(sizeOf(padding));
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(padding.reduce((sum, part) => zlib.crc32(part, sum), zlib.crc32(type)));
    const padded = [small.subarray(0, iendAt), len, type, ...padding, crc, small.subarray(iendAt)];
    const image = await uploadImage(server, owner, project.id, 'heavy.png', padded);
    expect(image).toMatchObject({ file_size: sizeOf(padded), image_width: 64, image_height: 64 });

    // Over 200 MB: the signed URL refuses it from the Content-Length alone.
    const tooBig = await api(server.url, 'POST', `${base()}/upload-url`, { token: owner.token, body: { filename: 'toobig.png', content_type: 'image/png' } });
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(tooBig.body.upload_url, { method: 'PUT', headers: { 'content-type': 'image/png', 'content-length': String(200 * 1024 * 1024 + 1) } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(status).toBe(413);
  }, 120_000);
});
