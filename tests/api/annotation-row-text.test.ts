// The rows a save writes (services/annotations/store.ts, applyChange): the json_to_recordset
// parameter is built from each shape's own text, so ids and class names that JSON must escape
// (quotes, backslashes, control and line-separator characters, non-BMP letters) must still land in
// the right columns: load-data gives every shape back exactly, the change log holds it, the stats
// count it under its class and kind, and a second save of the same text writes no change.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, projectWithImage, sharedServer, type TestServer } from './harness';
import type { Member } from '../fixtures/datasets';

let server: TestServer;
let owner: Member;
let project: { id: string };
let img: { id: string; filename: string };

const ODD_CLASS = 'say "hi" \\ back\u2028slash 😀';
const CLASSES = [
  { name: ODD_CLASS, type: 'box', color: '#FFADAD' },
  { name: 'road', type: 'polygon', color: '#CAFFBF' },
];

const SHAPES = [
  { id: 'q"uote\\back\nline\u2028sep\u{1F600}', name: ODD_CLASS, bounding_box: { x: 1, y: 2, w: 3, h: 4 }, attributes: [] },
  { id: 'plain', name: 'road', bounding_box: { x: 0, y: 0, w: 10, h: 10 }, polygon: { path: [[0, 0], [10, 0], [10, 10]] }, note: 'tab\there' },
];

beforeAll(async () => {
  server = await sharedServer();
  const made = await projectWithImage(server, { classes: CLASSES, filename: 'odd.png' });
  ({ owner, project } = made);
  img = { id: made.image.id, filename: made.image.filename };
}, 120_000);

const saveChanges = (upserts: unknown[], base_version: number) =>
  api(server.url, 'POST', '/api/v1/annotations/save-changes', { token: owner.token, body: { image_id: img.id, project_id: project.id, image_filename: img.filename, base_version, upserts, removed_ids: [] } });

describe('the rows a save writes', () => {
  it('stores ids and class names JSON must escape in their columns, and gives every shape back exactly', async () => {
    const first = await saveChanges(SHAPES, 0);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ version: 1, new_count: 2 });

    const loaded = await api(server.url, 'GET', `/api/v1/annotations/load-data/${img.id}?project_id=${project.id}`, { token: owner.token });
    expect(loaded.body.annotations).toEqual(SHAPES);

    const log = await api(server.url, 'GET', `/api/v1/annotations/changes/${img.id}?since=0`, { token: owner.token });
    expect(log.body).toMatchObject({ since: 0, version: 1, removed_ids: [] });
    expect(log.body.upserts).toEqual(SHAPES);

    const stats = await api(server.url, 'GET', `/api/v1/annotations/stats/${project.id}`, { token: owner.token });
    expect(stats.body).toMatchObject({ total_annotations: 2, by_type: { box: 1, polygon: 1 }, by_class: { [ODD_CLASS]: 1, road: 1 } });
  });

  it('writes nothing for a shape saved again unchanged, and the changed one alone', async () => {
    const moved = { ...SHAPES[0], bounding_box: { x: 5, y: 2, w: 3, h: 4 } };
    const res = await saveChanges([moved, SHAPES[1]], 1);
    expect(res.status).toBe(200);
    const log = await api(server.url, 'GET', `/api/v1/annotations/changes/${img.id}?since=1`, { token: owner.token });
    expect(log.body.upserts).toEqual([moved]);
    const loaded = await api(server.url, 'GET', `/api/v1/annotations/load-data/${img.id}?project_id=${project.id}`, { token: owner.token });
    expect(loaded.body.annotations).toEqual([moved, SHAPES[1]]);
  });
});
