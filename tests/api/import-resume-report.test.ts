// The report of an import whose run died and was resumed (session 29's bug): images run three at
// once, and `done` counts only those finished in order. The saved report used to count the images
// finished past `done` too; the resumed run imports every image after `done` again, so those were
// counted twice (created by the dead run, then matched; their annotations added twice) and
// created + matched exceeded the images the project holds. The saved report now holds only what
// the images up to `done` brought (src/server/services/import/run.ts, readDataset).
// And a run whose job another run took writes nothing more to the import (run.ts, heldBy).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { onboardedUser, startServer, type TestServer } from './harness';
import JSZip from 'jszip';
import { createProject, png, type Member } from '../fixtures/datasets';
import { MAX_IMPORT_REPORT_ITEMS } from '../../src/contract/imports';
import { finishedImport, imagesOf as projectImages, startImport, until, yoloZip } from './support/imports';
import { imports, jobs, projects } from '../../src/server/db/schema';
import { IMPORT_JOB_KIND } from '../../src/server/services/import';
import { bucketFor } from '../../src/server/services/stored-objects';

let server: TestServer;
let owner: Member;

beforeAll(async () => {
  server = await startServer();
  owner = await onboardedUser(server);
}, 60_000);
afterAll(async () => server?.stop());

const imagesOf = (projectId: string) => projectImages(server, owner.token, projectId);

/**
 * Holds the storage write of one image's bytes (`key`): `release()` lets it through as it was
 * asked; `die()` fails it, so the run that was adding the image ends there without writing
 * anything more, as if its process had died.
 */
function holdWrite(server: TestServer, key: string) {
  const storage = server.built.ctx.storage;
  const put = storage.put.bind(storage);
  let release: () => void = () => undefined;
  let die: () => void = () => undefined;
  const ends = new Promise<void>((resolve, reject) => {
    release = resolve;
    die = () => reject(new Error('the process died'));
  });
  ends.catch(() => undefined); // a gate released never rejects; one that dies is awaited by the held write
  const state = { held: false };
  storage.put = async (bucket, k, body, opts) => {
    if (k !== key) return put(bucket, k, body, opts);
    state.held = true;
    try {
      await ends;
    } catch (err) {
      (body as { destroy?: () => void }).destroy?.();
      throw err;
    }
    return put(bucket, k, body, opts);
  };
  return { state, release, die, restore: () => void (storage.put = put) };
}

/** The import's job, its run taken for dead: the lease has lapsed, so the queue's next look resumes it. */
async function leaseLapses(importId: string) {
  const ctx = server.built.ctx;
  const job = (await ctx.db.select().from(jobs).where(eq(jobs.kind, IMPORT_JOB_KIND))).find((j) => (j.payload as { import_id?: string }).import_id === importId)!;
  await ctx.db.update(jobs).set({ lockedBy: 'a worker that died', lockedUntil: new Date(Date.now() - 60_000) }).where(eq(jobs.id, job.id));
  return job;
}

describe('an import resumed after its run died', () => {
  it('counts each image and annotation once: images finished past `done` by the dead run are not counted twice', async () => {
    const project = await createProject(server, owner);
    const gate = holdWrite(server, `${project.gcs_path}/images/f00.png`);
    try {
      const id = await startImport(server, owner.token, project.id, 'frames.zip', await yoloZip(3));
      // f00 is held; f01 and f02 finish after it started: done stays 0 while they are in the project.
      await until('f01 and f02 added with their boxes while f00 is held', async () => {
        const kept = await imagesOf(project.id);
        return gate.state.held && kept.length === 2 && kept.every((i) => i.annotation_count === 1);
      });
      expect((await imagesOf(project.id)).map((i) => i.filename).sort()).toEqual(['f01.png', 'f02.png']);

      // The run dies: its lease lapses (another worker may take the job) and it writes nothing more.
      const ctx = server.built.ctx;
      const job = await leaseLapses(id);
      gate.die();
      gate.restore();

      // A run picks the import up where it was saved (done 0) and imports every image after it.
      const ended = await finishedImport(server, owner.token, id);
      expect(ended.status, ended.error).toBe('done');
      expect(ended.progress).toEqual({ done: 3, total: 3 });
      const [resumedJob] = await ctx.db.select({ attempts: jobs.attempts }).from(jobs).where(eq(jobs.id, job.id));
      expect(resumedJob!.attempts).toBe(2);

      const kept = await imagesOf(project.id);
      expect(kept.map((i) => i.filename).sort()).toEqual(['f00.png', 'f01.png', 'f02.png']);
      expect(ended.report.images_created + ended.report.images_matched).toBe(kept.length);
      expect(ended.report.annotations_created).toBe(kept.reduce((n, i) => n + i.annotation_count, 0));
      expect(kept.map((i) => i.annotation_count)).toEqual([1, 1, 1]);
    } finally {
      gate.die();
      gate.restore();
    }
  }, 120_000);
});

/** A COCO zip of images i0..i2 whose JSON holds MAX_IMPORT_REPORT_ITEMS + 7 polygons of 2 points on i0: each is skipped, 7 past the report's list. */
async function cocoWithManySkips(): Promise<Buffer> {
  const images = [0, 1, 2].map((i) => ({ id: i + 1, file_name: `i${i}.png`, width: 40, height: 30 }));
  const thin = Array.from({ length: MAX_IMPORT_REPORT_ITEMS + 7 }, (_, i) => ({ id: i + 1, image_id: 1, category_id: 1, segmentation: [[1, 1, 5, 5]], bbox: [1, 1, 4, 4], area: 0, iscrowd: 0 }));
  const zip = new JSZip();
  zip.file('annotations.json', JSON.stringify({ images, categories: [{ id: 1, name: 'car' }], annotations: thin }));
  for (const img of images) zip.file(img.file_name, await png(40, 30));
  return zip.generateAsync({ type: 'nodebuffer' });
}

describe('the lines past the report\'s lists, after a resume', () => {
  // i0 held: the run dies at done 0, after the dry run's lines were saved with the progress of i1
  // and i2 (a resumed run reads the dataset through again). i1 held: it dies at done 1.
  it.each([
    ['done 0', 'i0.png', 0],
    ['done 1', 'i1.png', 1],
  ])('a run that died at %s and was resumed still counts each skipped line once', async (_, held, done) => {
    const project = await createProject(server, owner);
    const gate = holdWrite(server, `${project.gcs_path}/images/${held}`);
    try {
      const id = await startImport(server, owner.token, project.id, 'thin.zip', await cocoWithManySkips());
      const ctx = server.built.ctx;
      await until('the held image waits and the others are in', async () => gate.state.held && (await imagesOf(project.id)).length === 2);
      await until('the progress saved', async () => {
        const [row] = await ctx.db.select().from(imports).where(eq(imports.id, id));
        return row!.done === done && (row!.report as { skipped_more?: number }).skipped_more === 7;
      });
      await leaseLapses(id);
      gate.die();
      gate.restore();

      const ended = await finishedImport(server, owner.token, id);
      expect(ended.status, ended.error).toBe('done');
      expect(ended.report.skipped).toHaveLength(MAX_IMPORT_REPORT_ITEMS);
      expect(ended.report.skipped_more).toBe(7);
      expect((await imagesOf(project.id)).map((i) => i.filename).sort()).toEqual(['i0.png', 'i1.png', 'i2.png']);
    } finally {
      gate.die();
      gate.restore();
    }
  }, 120_000);
});

describe('the classes an import created, after a resume', () => {
  it('a run that died after adding a class, before any image was done, still names it in the report', async () => {
    const project = await createProject(server, owner);
    const gates = ['f00.png', 'f01.png'].map((name) => holdWrite(server, `${project.gcs_path}/images/${name}`));
    try {
      const id = await startImport(server, owner.token, project.id, 'frames.zip', await yoloZip(2));
      const ctx = server.built.ctx;
      await until('both images held, the class added', async () => {
        const [p] = await ctx.db.select({ classes: projects.classes }).from(projects).where(eq(projects.id, project.id));
        return gates.every((g) => g.state.held) && (p!.classes ?? []).some((c) => c.name === 'car');
      });
      await leaseLapses(id);
      for (const g of gates) g.die();
      for (const g of [...gates].reverse()) g.restore(); // each wraps the one before it

      // The resumed run finds the class in the project and adds none; the report still says it made it.
      const ended = await finishedImport(server, owner.token, id);
      expect(ended.status, ended.error).toBe('done');
      expect(ended.report.classes_created).toEqual(['car']);
      expect(ended.report.images_created).toBe(2);
    } finally {
      for (const g of gates) g.die();
      for (const g of [...gates].reverse()) g.restore();
    }
  }, 120_000);
});

/** The outcome the import queue records for the next run of an import job that ends (the queue's metric). */
function nextImportOutcome(server: TestServer): Promise<string> {
  const metrics = server.built.ctx.metrics!;
  const jobEnded = metrics.jobEnded.bind(metrics);
  return new Promise((resolve) => {
    metrics.jobEnded = (kind, outcome, seconds) => {
      jobEnded(kind, outcome, seconds);
      if (kind !== IMPORT_JOB_KIND) return;
      metrics.jobEnded = jobEnded;
      resolve(outcome);
    };
  });
}

describe('a run whose lease lapsed and whose job another run took', () => {
  it('writes nothing more to the import: its progress stays, it does not end it, and the upload and files stay for the other run', async () => {
    const project = await createProject(server, owner);
    const gate = holdWrite(server, `${project.gcs_path}/images/f00.png`);
    try {
      const id = await startImport(server, owner.token, project.id, 'frames.zip', await yoloZip(3));
      await until('f01 and f02 added while f00 is held', async () => gate.state.held && (await imagesOf(project.id)).length === 2);

      // Another run takes the job (another process, or this one after a stall): its claim, a later attempt.
      const ctx = server.built.ctx;
      const job = (await ctx.db.select().from(jobs).where(eq(jobs.kind, IMPORT_JOB_KIND))).find((j) => (j.payload as { import_id?: string }).import_id === id)!;
      await ctx.db.update(jobs).set({ lockedBy: 'another worker', attempts: job.attempts + 1, lockedUntil: new Date(Date.now() + 10 * 60_000) }).where(eq(jobs.id, job.id));
      const outcome = nextImportOutcome(server);
      gate.release();

      // The first run finishes the image it held, then finds the job taken and stops there.
      expect(await outcome).toBe('lease_lost');
      expect((await imagesOf(project.id)).map((i) => i.filename).sort()).toEqual(['f00.png', 'f01.png', 'f02.png']);
      const [row] = await ctx.db.select().from(imports).where(eq(imports.id, id));
      expect(row!.status).toBe('running');
      expect(row!.done).toBe(0);
      // What the other run reads is still there: the upload, and the import's temporary directory.
      expect(await ctx.storage.head(await bucketFor(ctx, row!.organizationId), row!.stagingKey)).not.toBeNull();
      expect(fs.existsSync(path.join(ctx.config.dataDir, 'tmp', 'imports', id))).toBe(true);
    } finally {
      gate.release();
      gate.restore();
    }
  }, 120_000);
});
