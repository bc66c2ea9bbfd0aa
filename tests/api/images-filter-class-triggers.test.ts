// The triggers behind the class filter, under statements no single API call makes but imports, the
// start-up move of old documents and future batch paths can: one statement over the annotation rows
// of several images that adds, renames, moves rows between images and removes names, some of which
// other rows of the image still hold. After each statement images.class_names must equal the
// sorted distinct names of the image's rows (0014_image_class_names_one_pass.sql), and
// image_class_stats a recount of the images (0015_image_class_stats.sql). Runs on PGlite and
// PostgreSQL.
import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { api, onboardedUser, sharedServer, type TestServer } from './harness';
import { createProject, png, uploadImage, type Member } from '../fixtures/datasets';
import { rowsOf } from '../../src/server/services/annotations/store';

let server: TestServer;
let owner: Member;
let projectId: string;
const ids: string[] = [];

const exec = (statement: string) => server.built.ctx.database.exec(statement);

/** Each image's class_names and the names its rows hold, sorted and distinct. */
async function classLists() {
  return rowsOf<{ id: string; stored: string[]; recounted: string[] }>(
    server.built.ctx.db,
    sql`SELECT i.id, i.class_names AS stored,
               coalesce((SELECT array_agg(DISTINCT a.name ORDER BY a.name) FROM annotations a WHERE a.image_id = i.id), '{}') AS recounted
        FROM images i WHERE i.project_id = ${projectId} ORDER BY i.filename`,
  );
}

/** image_class_stats' rows of the project, and the same counts made from the images. */
async function classCounts() {
  const key = (r: { class_name: string; is_archived: boolean; virtual_folder_path: string; n: number | string }) => `${r.class_name}|${r.is_archived}|${r.virtual_folder_path}|${Number(r.n)}`;
  const kept = await rowsOf<{ class_name: string; is_archived: boolean; virtual_folder_path: string; n: number | string }>(
    server.built.ctx.db,
    sql`SELECT class_name, is_archived, virtual_folder_path, image_count AS n FROM image_class_stats WHERE project_id = ${projectId}`,
  );
  const counted = await rowsOf<{ class_name: string; is_archived: boolean; virtual_folder_path: string; n: number | string }>(
    server.built.ctx.db,
    sql`SELECT c AS class_name, is_archived, virtual_folder_path, count(*) AS n FROM images CROSS JOIN LATERAL unnest(class_names) c WHERE project_id = ${projectId} GROUP BY 1, 2, 3`,
  );
  return { kept: kept.map(key).sort(), counted: counted.map(key).sort() };
}

async function expectConsistent(want: string[][]) {
  const lists = await classLists();
  for (const l of lists) expect(l.stored, `image ${l.id}`).toEqual(l.recounted);
  expect(lists.map((l) => l.stored)).toEqual(want);
  const { kept, counted } = await classCounts();
  expect(kept).toEqual(counted);
}

const row = (image: number, id: string, name: string, seq = 0) => `('${ids[image]}', '${id}', ${seq}, '${name}', 'box', '{}')`;

beforeAll(async () => {
  server = await sharedServer();
  owner = await onboardedUser(server);
  projectId = (await createProject(server, owner, 'Class triggers')).id;
  for (const name of ['0.png', '1.png', '2.png']) ids.push((await uploadImage(server, owner, projectId, name, await png(8, 8))).id);
}, 120_000);


describe('class_names and image_class_stats after one statement over several images', () => {
  it('an INSERT of rows of three images, names repeated', async () => {
    await exec(`INSERT INTO annotations (image_id, id, seq, name, kind, data) VALUES ${[row(0, 'a', 'car'), row(0, 'b', 'car', 1), row(0, 'c', 'person', 2), row(1, 'a', 'dog'), row(2, 'a', 'car')].join(', ')}`);
    await expectConsistent([['car', 'person'], ['dog'], ['car']]);
  });

  it('an UPDATE that renames in two images at once: a name that stays on another row, one that leaves, one that joins', async () => {
    // Image 0: one of two cars becomes a bus (car stays), the person becomes a cat (person leaves).
    // Image 1: the dog becomes a car.
    await exec(`UPDATE annotations SET name = CASE WHEN name = 'person' THEN 'cat' WHEN name = 'dog' THEN 'car' ELSE 'bus' END
                WHERE (image_id = '${ids[0]}' AND id IN ('b', 'c')) OR image_id = '${ids[1]}'`);
    await expectConsistent([['bus', 'car', 'cat'], ['car'], ['car']]);
  });

  it('an UPDATE that moves rows from one image to another', async () => {
    await exec(`UPDATE annotations SET image_id = '${ids[2]}', id = 'moved-' || id WHERE image_id = '${ids[0]}' AND name IN ('bus', 'cat')`);
    await expectConsistent([['car'], ['car'], ['bus', 'car', 'cat']]);
  });

  it('an upsert that inserts on one image and changes the name of a row of another', async () => {
    await exec(`INSERT INTO annotations (image_id, id, seq, name, kind, data) VALUES ${[row(1, 'a', 'tree'), row(0, 'z', 'person', 5)].join(', ')}
                ON CONFLICT (image_id, id) DO UPDATE SET name = excluded.name`);
    await expectConsistent([['car', 'person'], ['tree'], ['bus', 'car', 'cat']]);
  });

  it('a DELETE over several images: names leave only when no row of the image still has them', async () => {
    // Image 0's only car goes; image 2 loses its car and its cat.
    await exec(`DELETE FROM annotations WHERE (image_id = '${ids[0]}' AND id = 'a') OR (image_id = '${ids[2]}' AND name IN ('car', 'cat'))`);
    await expectConsistent([['person'], ['tree'], ['bus']]);
    // Two buses on image 2, one removed: bus stays.
    await exec(`INSERT INTO annotations (image_id, id, seq, name, kind, data) VALUES ${row(2, 'bus-2', 'bus', 9)}`);
    await exec(`DELETE FROM annotations WHERE image_id = '${ids[2]}' AND id = 'bus-2'`);
    await expectConsistent([['person'], ['tree'], ['bus']]);
    await exec(`DELETE FROM annotations WHERE image_id IN ('${ids[0]}', '${ids[1]}')`);
    await expectConsistent([[], [], ['bus']]);
  });

  it('archiving and moving images in one statement moves their counts; deleting the image removes them', async () => {
    await exec(`UPDATE images SET is_archived = (filename = '2.png'), virtual_folder_path = '/elsewhere' WHERE project_id = '${projectId}'`);
    await expectConsistent([[], [], ['bus']]);
    expect((await classCounts()).kept).toEqual(['bus|true|/elsewhere|1']);
    await exec(`DELETE FROM images WHERE id = '${ids[2]}'`);
    expect((await classCounts()).kept).toEqual([]);
  });
});

describe('concurrent saves touching the same counters', () => {
  it('two images of one folder gaining and losing the same classes in opposite orders, at once: no deadlock, counts right', async () => {
    // On PostgreSQL each save is its own transaction on its own connection; the class counters
    // (and the folder-stats rows, as both images leave 'new') are locked in key order, so one waits.
    const names = Array.from({ length: 8 }, (_, i) => `k${i}`);
    const project = (await createProject(server, owner, 'Concurrent')).id;
    const classes = [...names, 'extra'].map((name) => ({ name, type: 'box', color: '#00ff00' }));
    expect((await api(server.url, 'PATCH', `/api/v1/projects/${project}`, { token: owner.token, body: { classes } })).status).toBe(200);
    const images = [];
    for (const f of ['p.png', 'q.png']) images.push(await uploadImage(server, owner, project, f, await png(8, 8)));
    const save = (image: { id: string; filename: string }, list: string[]) =>
      api(server.url, 'POST', '/api/v1/annotations/save-data', {
        token: owner.token,
        body: { image_id: image.id, project_id: project, image_filename: image.filename, annotations: list.map((name, i) => ({ id: `s${i}`, name, bounding_box: { x: i, y: 1, w: 2, h: 2 } })) },
      });
    const orders = [names, [...names].reverse().concat('extra')];
    for (let round = 0; round < 12; round++) {
      const added = await Promise.all(images.map((image, i) => save(image, orders[(i + round) % 2]!)));
      for (const res of added) expect(res.status, JSON.stringify(res.body)).toBe(200);
      const emptied = await Promise.all(images.map((image) => save(image, [])));
      for (const res of emptied) expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    await Promise.all(images.map((image, i) => save(image, orders[i]!)));
    const stats = await api(server.url, 'GET', `/api/v1/annotations/stats/${project}`, { token: owner.token });
    expect(stats.body.images_by_class).toEqual({ ...Object.fromEntries(names.map((n) => [n, 2])), extra: 1 });
  }, 120_000);
});
