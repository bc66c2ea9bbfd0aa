// queue/next's ground-truth draw comes from the context (issue 36 §2): `ctx.random` when set (a test
// or a seeded run), else Math.random. At gt_rate 0.5 a draw of 0.75 is no ground-truth turn and one of
// 0.25 is, through the real route, each queue/next drawing once. The count of many seeded draws is
// src/server/services/quality/gt-draw.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedServer, type TestServer } from './harness';
import { team } from './workflow-fixture';

let server: TestServer;
let t: Awaited<ReturnType<typeof team>>;
let gtImage: { id: string; filename: string };

beforeAll(async () => {
  server = await sharedServer();
  t = await team(server);
  expect((await t.call(t.owner, 'PATCH', `/api/v1/projects/${t.project.id}`, { classes: [{ name: 'car', type: 'box', color: '#FFADAD' }] })).status).toBe(200);
  gtImage = await t.newImage();
  const annotations = [{ id: 'A', name: 'car', bounding_box: { x: 0, y: 0, w: 10, h: 10 } }];
  expect((await t.call(t.owner, 'POST', '/api/v1/annotations/save-data', { image_id: gtImage.id, project_id: t.project.id, image_filename: gtImage.filename, annotations })).status).toBe(200);
  expect((await t.call(t.owner, 'POST', `/api/v1/images/${gtImage.id}/submit`)).status).toBe(200);
  expect((await t.call(t.reviewer, 'POST', `/api/v1/images/${gtImage.id}/review`, { decision: 'accept' })).status).toBe(200);
  expect((await t.call(t.reviewer, 'POST', `/api/v1/images/${gtImage.id}/ground-truth`, { enabled: true })).status).toBe(200);
  await t.newImage();
  await t.newImage();
  expect((await t.call(t.owner, 'PATCH', `/api/v1/projects/${t.project.id}`, { gt_rate: 0.5 })).status).toBe(200);
}, 120_000);


describe('the queue\'s ground-truth draw', () => {
  it('is the context\'s random when one is set: 0.75 at rate 0.5 is no turn, 0.25 is', async () => {
    const draws: number[] = [];
    const drawing = (u: number) => () => (draws.push(u), u);
    const next = (who: { token: string }) => t.call(who, 'POST', `/api/v1/projects/${t.project.id}/queue/next`, { role: 'annotate' });
    try {
      server.built.ctx.random = drawing(0.75);
      const plain = await next(t.annotator);
      expect(plain.status).toBe(200);
      expect(plain.body.image.id).not.toBe(gtImage.id);
      server.built.ctx.random = drawing(0.25);
      const turn = await next(t.annotator2);
      expect(turn.body.image.id).toBe(gtImage.id);
      expect(draws).toEqual([0.75, 0.25]);
    } finally {
      server.built.ctx.random = undefined;
    }
  });
});
