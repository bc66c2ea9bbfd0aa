// Ten people take the next image at once (issue 29): none receives an image another one received,
// every unassigned image is handed out once, and each claim is recorded. Runs on PGlite, and on
// PostgreSQL when DATABASE_URL is set (the claim is one UPDATE over a row picked FOR UPDATE SKIP
// LOCKED, which only a real concurrent server puts to the test).
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedServer, type TestServer } from './harness';
import { createProject, png, uploadImage } from '../fixtures/datasets';
import { join, team, type Person } from './workflow-fixture';

let server: TestServer;
let t: Awaited<ReturnType<typeof team>>;
let takers: Person[];

beforeAll(async () => {
  server = await sharedServer();
  t = await team(server);
  takers = [t.annotator, t.annotator2];
  while (takers.length < 10) takers.push(await join(server, t.owner, 'annotator'));
}, 180_000);

describe(`queue/next with ten takers at once (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('never gives two people the same unassigned image, and hands out each one once', { timeout: 120_000 }, async () => {
    const project = await createProject(server, t.owner);
    const bytes = await png(16, 16);
    const images: string[] = [];
    for (let i = 0; i < 14; i++) images.push((await uploadImage(server, t.owner, project.id, `race-${i}.png`, bytes)).id);
    const take = (p: Person) => t.call(p, 'POST', `/api/v1/projects/${project.id}/queue/next`, { role: 'annotate' });

    for (let round = 0; round < 2; round++) {
      // Each round every taker first finishes what they hold, so the queue must claim a new image.
      const held = await Promise.all(takers.map((p) => t.call(p, 'GET', `/api/v1/projects/${project.id}/images?assignee=me&status=new`)));
      for (const [i, res] of held.entries()) for (const img of res.body.images) await t.call(takers[i]!, 'POST', `/api/v1/images/${img.id}/submit`);
      const answers = await Promise.all(takers.map(take));
      const got = answers.filter((a) => a.status === 200).map((a, i) => ({ image: a.body.image.id as string, assignee: a.body.image.assignee_id as string, taker: takers[answers.indexOf(a)]!.userId, i }));
      for (const a of answers) expect([200, 204]).toContain(a.status);
      expect(new Set(got.map((g) => g.image)).size).toBe(got.length);
      for (const g of got) expect(g.assignee).toBe(g.taker);
      expect(got.length).toBe(round === 0 ? 10 : 4);
    }
    // Every image was claimed by exactly one person, as the server holds it.
    const all = await t.call(t.owner, 'GET', `/api/v1/projects/${project.id}/images?limit=100`);
    expect(all.body.images.filter((i: { assignee_id: string | null }) => i.assignee_id === null)).toEqual([]);
    expect(new Set(all.body.images.map((i: { id: string }) => i.id))).toEqual(new Set(images));
    for (const id of images) {
      const claims = (await t.call(t.owner, 'GET', `/api/v1/images/${id}/activity`)).body.events.filter((e: { type: string }) => e.type === 'assign');
      expect(claims).toHaveLength(1);
    }
  });
});
