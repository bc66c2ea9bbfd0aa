// The move from one annotation document per image to rows (0006_annotation_rows.sql and
// db/annotation-rows.ts), on a copy of a database in the old layout: a start-up that is
// interrupted part-way and started again finishes the move and loses nothing, and the moved
// images load, count, save and export as before.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { api, onboardedUser, startServer } from './harness';
import { createProject, png, uploadImage } from '../fixtures/datasets';
import { connectDatabase } from '../../src/server/db/client';
import { migrate } from '../../src/server/db/migrate';
import { MOVE_BATCH_IMAGES } from '../../src/server/db/annotation-rows';

const CLASSES = [
  { name: 'car', type: 'box', color: '#FFADAD' },
  { name: 'road', type: 'polygon', color: '#CAFFBF' },
];

/**
 * Turns a current database back into the layout before 0006: each image's rows become its document
 * again. 0024 is undone too, as it adds a column to the change log 0006 creates, and with it 0026
 * (its trigger lives on 0024's drafts table): the next start-up then runs 0006, 0024 and 0026 in
 * order, as an upgrade from before 0006 does.
 */
const DOWNGRADE = `
DROP TABLE drafts;
ALTER TABLE images DROP COLUMN overlap;
DELETE FROM schema_migrations WHERE name = '0024_consensus.sql';
DELETE FROM schema_migrations WHERE name = '0026_consensus_analytics.sql';
UPDATE annotation_documents d SET annotations = coalesce((SELECT json_agg(a.data ORDER BY a.seq) FROM annotations a WHERE a.image_id = d.image_id), '[]'::json);
DROP TABLE annotation_changes;
DROP TABLE annotations;
DROP INDEX annotation_documents_unmoved_idx;
ALTER TABLE annotation_documents DROP COLUMN next_seq;
ALTER TABLE annotation_documents ALTER COLUMN annotations SET NOT NULL;
ALTER TABLE annotation_documents ALTER COLUMN annotations SET DEFAULT '[]'::json;
DELETE FROM schema_migrations WHERE name = '0006_annotation_rows.sql';`;

const shape = (image: number, i: number) =>
  i % 3 === 2
    ? { id: `p${image}-${i}`, name: 'road', bounding_box: { x: i, y: 0, w: 5, h: 5 }, polygon: { path: [[i, 0], [i + 5, 0], [i + 5, 5]] }, sam2_area: 12.5 }
    : { id: `b${image}-${i}`, name: 'car', bounding_box: { x: i, y: image, w: 2, h: 3 }, attributes: [{ key: 'occluded', value: i % 2 === 0 }] };

describe('moving documents into rows', () => {
  it('finishes after an interrupted start-up, keeping every shape, its order and the version', { timeout: 240_000 }, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vellum-move-'));
    let server = await startServer({}, dataDir);
    const config = server.config;
    const owner = await onboardedUser(server);
    const project = await createProject(server, owner);
    await api(server.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { classes: CLASSES } });
    const saved = await uploadImage(server, owner, project.id, 'saved.png', await png(30, 30));
    const save = await api(server.url, 'POST', '/api/v1/annotations/save-data', {
      token: owner.token,
      body: { image_id: saved.id, project_id: project.id, image_filename: saved.filename, annotations: [shape(0, 0), shape(0, 2)] },
    });
    expect(save.status).toBe(200);
    await server.stop();

    // The old layout, with more documents than two batches move.
    const documents = MOVE_BATCH_IMAGES * 2 + 5;
    const old = await connectDatabase(config.database);
    await old.exec(DOWNGRADE);
    const images: { id: string; filename: string; annotations: unknown[]; version: number }[] = [];
    for (let n = 1; n <= documents; n++) {
      const filename = `old-${String(n).padStart(3, '0')}.png`;
      const annotations = Array.from({ length: n % 7 === 0 ? 0 : n * 3 }, (_, i) => shape(n, i));
      images.push({ id: randomUUID(), filename, annotations, version: n % 4 });
    }
    for (const im of images) {
      await old.db.execute(sql`INSERT INTO images (id, project_id, organization_id, filename, gcs_uri, gcs_path, mime_type, image_width, image_height, annotation_count, status)
        VALUES (${im.id}, ${project.id}, ${owner.org.id}, ${im.filename}, ${'gs://x/' + im.filename}, ${'nowhere/' + im.filename}, 'image/png', 50, 50, ${im.annotations.length}, 'annotating')`);
      await old.db.execute(sql`INSERT INTO annotation_documents (image_id, project_id, annotations, version) VALUES (${im.id}, ${project.id}, ${JSON.stringify(im.annotations)}::json, ${im.version})`);
    }
    await old.db.execute(sql`UPDATE projects SET annotation_count = annotation_count + ${images.reduce((n, im) => n + im.annotations.length, 0)} WHERE id = ${project.id}`);

    // A start-up that dies after the first batch.
    await expect(old.session((session) => migrate(session, (batch) => {
      if (batch === 1) throw new Error('killed');
    }))).rejects.toThrow('killed');
    const left = (await old.db.execute(sql`SELECT count(*)::int AS n FROM annotation_documents WHERE annotations IS NOT NULL`)) as unknown as { rows: { n: number }[] };
    expect(left.rows[0]!.n).toBeGreaterThan(0);
    expect(left.rows[0]!.n).toBeLessThan(documents + 1);
    await old.close();

    // The next start-up finishes the move.
    const env: Record<string, string> = config.database.kind === 'postgres' ? { DATABASE_URL: config.database.url } : {};
    server = await startServer(env, dataDir);
    try {
      const signIn = await api(server.url, 'POST', '/auth/v1/token?grant_type=password', { body: { email: owner.email, password: owner.password }, headers: { apikey: server.built.ctx.auth.anonKey } });
      expect(signIn.status).toBe(200);
      owner.token = signIn.body.access_token;
      const rest = (await server.built.ctx.db.execute(sql`SELECT count(*)::int AS n FROM annotation_documents WHERE annotations IS NOT NULL`)) as unknown as { rows: { n: number }[] };
      expect(rest.rows[0]!.n).toBe(0);
      const load = (id: string) => api(server.url, 'GET', `/api/v1/annotations/load-data/${id}`, { token: owner.token });
      for (const im of images) {
        const res = await load(im.id);
        expect(res.status).toBe(200);
        expect(res.body.annotations).toEqual(im.annotations);
        expect(res.body.version).toBe(im.version);
      }
      expect((await load(saved.id)).body).toMatchObject({ annotations: [shape(0, 0), shape(0, 2)], version: 1 });

      const stats = await api(server.url, 'GET', `/api/v1/annotations/stats/${project.id}`, { token: owner.token });
      const total = images.reduce((n, im) => n + im.annotations.length, 0) + 2;
      expect(stats.body.total_annotations).toBe(total);
      expect(stats.body.by_class.road).toBe(images.reduce((n, im) => n + im.annotations.filter((a) => (a as { name: string }).name === 'road').length, 0) + 1);

      // A moved image saves on its version: a new shape goes on top, a changed one keeps its place.
      const target = images[10]!;
      const first = target.annotations[0] as { id: string };
      const res = await api(server.url, 'POST', '/api/v1/annotations/save-changes', {
        token: owner.token,
        body: { image_id: target.id, project_id: project.id, image_filename: target.filename, base_version: target.version, upserts: [{ ...shape(99, 0), id: 'new' }, { ...first, name: 'road', polygon: { path: [[0, 0], [1, 0], [1, 1]] } }], removed_ids: [] },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const after = await load(target.id);
      expect(after.body.annotations.map((a: { id: string }) => a.id)).toEqual([...target.annotations.map((a) => (a as { id: string }).id), 'new']);
      expect(after.body.annotations[0].name).toBe('road');
      // The log starts at the move: changes since the moved version are there, earlier ones are not.
      expect((await api(server.url, 'GET', `/api/v1/annotations/changes/${target.id}?since=${target.version}`, { token: owner.token })).body.upserts).toHaveLength(2);
      if (target.version > 0) expect((await api(server.url, 'GET', `/api/v1/annotations/changes/${target.id}?since=${target.version - 1}`, { token: owner.token })).status).toBe(410);
    } finally {
      await server.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
