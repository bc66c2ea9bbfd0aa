// The team and its project, made through the API as people make them: an owner's organization,
// members joined through invites (tests/api/team-harness.ts), a project with classes, folders,
// images uploaded by the upload flow (tests/fixtures/datasets.ts) and a few annotations on each.
import { performance } from 'node:perf_hooks';
import { api, onboardedUser } from '../../../tests/api/harness';
import { joinAs } from '../../../tests/api/team-harness';
import { createProject, png, uploadImage } from '../../../tests/fixtures/datasets';
import { runPool } from '../../../src/app/lib/pool';
import { newShape, random, type ImageRef, type World } from './people';
import type { ChildServer } from './server';

export interface SeedOptions {
  annotators: number;
  uploaders: number;
  folders: number;
  imagesPerFolder: number;
}

export interface Team {
  world: World;
  annotators: string[];
  uploaders: string[];
  images: ImageRef[];
  shapes: number;
}

const CLASSES = [
  { name: 'car', type: 'box', color: '#FFADAD' },
  { name: 'person', type: 'box', color: '#A0C4FF' },
  { name: 'building', type: 'polygon', color: '#CAFFBF' },
  { name: 'road sign', type: 'polygon', color: '#FDFFB6' },
];
const COLORS = ['#3366cc', '#cc6633', '#33cc66', '#999999', '#663399', '#cccc33', '#336666', '#aa3344'];

async function ok(res: { status: number; body: unknown }, what: string) {
  if (res.status !== 200) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  return res.body as Record<string, any>;
}

export async function seedTeam(server: ChildServer, opts: SeedOptions, log: (m: string) => void): Promise<Team> {
  const t0 = performance.now();
  const srv = server.asTestServer;
  const owner = await onboardedUser(srv);
  const project = await createProject(srv, owner, 'Street scenes');
  await ok(await api(srv.url, 'PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: { classes: CLASSES } }), 'set classes');
  const folders = Array.from({ length: opts.folders }, (_, i) => `street-${i + 1}`);
  const incoming = Array.from({ length: opts.uploaders }, (_, i) => `incoming-${i + 1}`);
  for (const name of [...folders, ...incoming]) await ok(await api(srv.url, 'POST', '/api/folders/create', { token: owner.token, body: { project_id: project.id, name } }), `create folder ${name}`);

  const pngs = await Promise.all(COLORS.map(async (c) => ({ bytes: await png(640, 480, c), width: 640, height: 480 })));
  const rnd = random(11);
  const jobs = folders.flatMap((f, fi) => Array.from({ length: opts.imagesPerFolder }, (_, i) => ({ folder: `/${f}`, name: `frame-${fi + 1}-${String(i + 1).padStart(4, '0')}.png`, shapes: 3 + Math.floor(rnd() * 10) })));
  const images: ImageRef[] = new Array(jobs.length);
  let shapes = 0;
  const seeded = await runPool(jobs, 4, async (job, i) => {
    const bytes = pngs[i % pngs.length]!.bytes;
    const img = await uploadImage(srv, owner, project.id, job.name, bytes, { folder: job.folder });
    const upserts = Array.from({ length: job.shapes }, () => newShape(rnd, CLASSES.map((c) => c.name)));
    await ok(await api(srv.url, 'POST', '/api/v1/annotations/save-changes', { token: owner.token, body: { image_id: img.id, project_id: project.id, image_filename: img.filename, base_version: 0, upserts, removed_ids: [] } }), 'seed annotations');
    images[i] = { id: img.id, filename: img.filename, virtual_folder_path: job.folder };
    shapes += job.shapes;
  });
  if (seeded.failures.length) throw new Error(`seeding images: ${String(seeded.failures[0]!.error)}`);
  log(`seeded ${images.length} images (${shapes} shapes) in ${folders.length} folders in ${((performance.now() - t0) / 1000).toFixed(0)} s`);

  // Members, four joining at a time (sign-up hashes a password: each costs the server ~0.1 s of CPU).
  const roles = [...Array.from({ length: opts.annotators }, () => 'annotator' as const), ...Array.from({ length: opts.uploaders }, () => 'reviewer' as const)];
  const tokens: string[] = new Array(roles.length);
  const joined = await runPool(roles, 4, async (role, i) => {
    tokens[i] = (await joinAs(srv, owner.token, owner.org.id, role)).token;
  });
  if (joined.failures.length) throw new Error(`joining members: ${String(joined.failures[0]!.error)}`);
  log(`${opts.annotators} annotators and ${opts.uploaders} uploaders joined through invites; ${((performance.now() - t0) / 1000).toFixed(0)} s in all`);

  return {
    world: { url: server.url, orgId: owner.org.id, projectId: project.id, folders: folders.map((f) => `/${f}`), classes: CLASSES.map((c) => c.name), shared: images.slice(0, 8), pngs },
    annotators: tokens.slice(0, opts.annotators),
    uploaders: tokens.slice(opts.annotators),
    images,
    shapes,
  };
}
