// The work of pre-label jobs, on the job queue (src/server/jobs, kind 'prelabel'), in any process
// that runs jobs.
//
// Fairness: the queue row is per organization (enqueueOnce, key: the organization), not per job.
// A claimed row works one turn for its organization (a few images of the organization's job worked
// on least recently), then goes back to the end of the queue (created_at moved to now), so every
// organization with work gets turns in order whatever the number or size of its jobs, and jobs of
// one organization take turns among themselves.
//
// Resume without doubling: a prediction's annotation id is `pl-<job id>-<n>`, and an image's row in
// prelabel_job_images turns 'done' after its save. A worker that dies between the two leaves the
// image 'todo'; the next turn finds annotations of this job on it and marks it done without
// running the model again. A job whose worker died is taken up when its lease runs out.
import { and, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { images, prelabelJobImages, prelabelJobs, projects } from '../../db/schema';
import type { JobWorkersConfig } from '../../config';
import { createJobQueue, enqueueOnce, type JobQueue, type JobRow } from '../../jobs/queue';
import { ApiError } from '../../errors';
import { nextClassColor, type ProjectClass } from '../../../contract/projects';
import { saveChanges } from '../annotations';
import { rowsOf } from '../annotations/store';
import { updateProject } from '../projects';
import { bucketFor, previewKey } from '../stored-objects';
import type { PrelabelOptions } from './jobs';
import { predictImage, predictionAnnotation, runnableModel, type RunnableModel } from './predict';

export const PRELABEL_JOB_KIND = 'prelabel';
/** Images one turn works on before the organization's row goes back to the end of the queue. */
const IMAGES_PER_TURN = 4;
const MAX_ATTEMPTS = 5;

type Job = typeof prelabelJobs.$inferSelect;

const queues = new WeakMap<AppContext, JobQueue>();

/** Queues a turn for the organization (one queue row per organization) and wakes this process's workers. */
export async function queuePrelabelTurn(ctx: AppContext, organizationId: string): Promise<void> {
  await enqueueOnce(ctx, { kind: PRELABEL_JOB_KIND, key: organizationId, payload: { organization_id: organizationId }, organizationId });
  queues.get(ctx)?.poke();
}

export function startPrelabelWorkers(ctx: AppContext, cfg: JobWorkersConfig): JobQueue {
  const queue = createJobQueue(ctx, {
    kind: PRELABEL_JOB_KIND,
    ...cfg,
    maxAttempts: MAX_ATTEMPTS,
    run: (job, signal) => runTurn(ctx, queue, job, signal),
    giveUp: (job) => giveUp(ctx, queue, job),
  });
  queues.set(ctx, queue);
  queue.start();
  return queue;
}

/** A turn that failed too often: its job fails (it is what keeps failing), and the organization's other jobs go on. */
async function giveUp(ctx: AppContext, queue: JobQueue, row: JobRow): Promise<void> {
  const organizationId = String(row.payload.organization_id);
  const job = await nextJob(ctx, organizationId);
  if (job) await finish(ctx, job.id, 'failed', 'the job was interrupted too many times');
  await queue.own(row.id, { status: 'queued', attempts: 0, lockedBy: null, lockedUntil: null, createdAt: new Date(), runAfter: new Date() });
}

/** The organization's queued or running job worked on least recently. */
async function nextJob(ctx: AppContext, organizationId: string): Promise<Job | null> {
  const [job] = await ctx.db
    .select()
    .from(prelabelJobs)
    .where(and(eq(prelabelJobs.organizationId, organizationId), sql`${prelabelJobs.status} IN ('queued', 'running')`))
    .orderBy(prelabelJobs.updatedAt, prelabelJobs.createdAt)
    .limit(1);
  return job ?? null;
}

/** Ends a job that is still queued or running (a cancelled one stays cancelled). */
async function finish(ctx: AppContext, jobId: string, status: 'done' | 'failed', error: string | null = null): Promise<void> {
  await ctx.db
    .update(prelabelJobs)
    .set({ status, error, updatedAt: new Date() })
    .where(and(eq(prelabelJobs.id, jobId), sql`${prelabelJobs.status} IN ('queued', 'running')`));
}

async function stillActive(ctx: AppContext, jobId: string): Promise<boolean> {
  const [row] = await ctx.db.select({ status: prelabelJobs.status }).from(prelabelJobs).where(eq(prelabelJobs.id, jobId)).limit(1);
  return row?.status === 'queued' || row?.status === 'running';
}

/** One turn of the organization: a few images of its next job, then back to the end of the queue (or done when it has no work left). */
async function runTurn(ctx: AppContext, queue: JobQueue, row: JobRow, signal: AbortSignal): Promise<void> {
  const organizationId = String(row.payload.organization_id);
  const job = await nextJob(ctx, organizationId);
  if (job) await workOn(ctx, job, signal);
  // Back to the end of the queue while the organization has work; completed otherwise. One
  // statement, so a job created meanwhile is never left without a queued row.
  const res = (await ctx.db.execute(sql`
    UPDATE jobs SET
      status = CASE WHEN EXISTS (SELECT 1 FROM prelabel_jobs p WHERE p.organization_id = ${organizationId} AND p.status IN ('queued', 'running')) THEN 'queued' ELSE 'completed' END,
      attempts = 0, locked_by = NULL, locked_until = NULL, created_at = now(), run_after = now(), updated_at = now()
    WHERE id = ${row.id} AND locked_by = ${queue.workerId}
    RETURNING status`)) as unknown as { rows: { status: string }[] };
  if (res.rows[0]?.status === 'queued') queue.poke();
}

/** Works on up to IMAGES_PER_TURN images of the job, stopping at a cancel; finishes the job when none is left. */
async function workOn(ctx: AppContext, job: Job, signal: AbortSignal): Promise<void> {
  await ctx.db.update(prelabelJobs).set({ status: 'running', updatedAt: new Date() }).where(and(eq(prelabelJobs.id, job.id), eq(prelabelJobs.status, 'queued')));
  let model: RunnableModel;
  try {
    model = await runnableModel(ctx, job.organizationId, job.modelId);
  } catch (err) {
    await finish(ctx, job.id, 'failed', err instanceof ApiError ? err.message : 'the model could not be loaded');
    return;
  }
  const todo = await ctx.db
    .select({ imageId: prelabelJobImages.imageId })
    .from(prelabelJobImages)
    .where(and(eq(prelabelJobImages.jobId, job.id), eq(prelabelJobImages.state, 'todo')))
    .orderBy(prelabelJobImages.seq)
    .limit(IMAGES_PER_TURN);
  for (const { imageId } of todo) {
    if (signal.aborted) throw signal.reason;
    if (!(await stillActive(ctx, job.id))) return;
    const outcome = await labelImage(ctx, job, model, imageId);
    await ctx.db
      .update(prelabelJobImages)
      .set({ state: outcome.state, predictions: outcome.predictions, reason: outcome.reason })
      .where(and(eq(prelabelJobImages.jobId, job.id), eq(prelabelJobImages.imageId, imageId)));
  }
  await ctx.db.update(prelabelJobs).set({ updatedAt: new Date() }).where(eq(prelabelJobs.id, job.id));
  if (todo.length < IMAGES_PER_TURN) await finish(ctx, job.id, 'done');
  else {
    const [left] = await rowsOf<{ n: number | string }>(ctx.db, sql`SELECT count(*) AS n FROM prelabel_job_images WHERE job_id = ${job.id} AND state = 'todo'`);
    if (Number(left?.n ?? 0) === 0) await finish(ctx, job.id, 'done');
  }
}

/** A stored object's bytes (the original image, for the built-in detector). */
async function objectBytes(ctx: AppContext, bucket: string, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await ctx.storage.getBody(bucket, key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

interface Outcome {
  state: 'done' | 'skipped';
  predictions: number;
  reason: string | null;
}

const idPrefix = (jobId: string) => `pl-${jobId}-`;

/** Predicts one image and saves what the project can hold, through the normal save path. */
async function labelImage(ctx: AppContext, job: Job, model: RunnableModel, imageId: string): Promise<Outcome> {
  const opts = job.options as unknown as PrelabelOptions;
  const [image] = await ctx.db.select().from(images).where(and(eq(images.id, imageId), eq(images.projectId, job.projectId))).limit(1);
  if (!image) return { state: 'skipped', predictions: 0, reason: 'the image was deleted' };
  // Saved before a crash, not marked: done, without running the model again.
  const [saved] = await rowsOf<{ n: number | string }>(ctx.db, sql`SELECT count(*) AS n FROM annotations WHERE image_id = ${imageId} AND starts_with(id, ${idPrefix(job.id)})`);
  if (Number(saved?.n ?? 0) > 0) return { state: 'done', predictions: Number(saved!.n), reason: null };
  if (opts.skip_annotated && image.annotationCount > 0) return { state: 'skipped', predictions: 0, reason: `already annotated (${image.annotationCount} annotations)` };
  if (!image.imageWidth || !image.imageHeight) return { state: 'skipped', predictions: 0, reason: 'the image has no known size' };
  try {
    const bucket = await bucketFor(ctx, image.organizationId);
    const key = previewKey(image, 'original');
    const raw = await predictImage(
      ctx,
      model,
      {
        width: image.imageWidth,
        height: image.imageHeight,
        bytes: () => objectBytes(ctx, bucket, key),
        url: async () => new URL((await ctx.storage.signedDownloadUrl(bucket, key, { expiresInSeconds: 3600 })).url, ctx.config.publicUrl).toString(),
      },
      { minScore: opts.min_score, maxPerImage: opts.max_per_image },
    );
    const { names, dropped } = await classesFor(ctx, job, model, raw.map((p) => p.modelClass));
    const upserts: Record<string, unknown>[] = [];
    raw.forEach((p, i) => {
      const name = names.get(p.modelClass);
      if (!name) return;
      const a = predictionAnnotation(p, `${idPrefix(job.id)}${i}`, name, { model_id: model.id, score: Math.round(p.score * 1000) / 1000, pending: true }, { width: image.imageWidth!, height: image.imageHeight! });
      if (a) upserts.push(a);
    });
    if (upserts.length > 0) {
      await saveChanges(ctx, job.createdBy, { image_id: image.id, project_id: job.projectId, image_filename: image.filename, upserts, removed_ids: [] });
    }
    const reason = dropped.size ? `predictions of classes the project lacks were left out: ${[...dropped].map(([c, n]) => `${c} (${n})`).join(', ').slice(0, 500)}` : null;
    return { state: 'done', predictions: upserts.length, reason };
  } catch (err) {
    ctx.log.warn({ err, job: job.id, imageId }, 'pre-label: an image failed');
    return { state: 'skipped', predictions: 0, reason: (err instanceof Error ? err.message : String(err)).slice(0, 500) };
  }
}

/**
 * The project class of each model class (class_map, else the same name), adding the missing ones
 * (box tool) when the job asks to; the rest are dropped, counted per model class.
 */
async function classesFor(ctx: AppContext, job: Job, model: RunnableModel, modelClasses: string[]): Promise<{ names: Map<string, string>; dropped: Map<string, number> }> {
  const opts = job.options as unknown as PrelabelOptions;
  const [project] = await ctx.db.select({ classes: projects.classes }).from(projects).where(eq(projects.id, job.projectId)).limit(1);
  const existing: ProjectClass[] = project?.classes ?? [];
  const have = new Set(existing.map((c) => c.name));
  const names = new Map<string, string>();
  const dropped = new Map<string, number>();
  const missing = new Set<string>();
  for (const mc of modelClasses) {
    const target = opts.class_map[mc] ?? mc;
    if (have.has(target)) names.set(mc, target);
    else if (opts.create_missing_classes) missing.add(target);
    else dropped.set(mc, (dropped.get(mc) ?? 0) + 1);
  }
  if (missing.size > 0) {
    // Detectors draw boxes, an ONNX segment model masks; an HTTP model may answer boxes, polygons or masks.
    const tools: ProjectClass['tools'] =
      model.source === 'builtin' || (model.source === 'onnx' && model.kind === 'detect') ? ['box'] : model.source === 'onnx' ? ['box', 'mask'] : ['box', 'polygon', 'mask'];
    const added: ProjectClass[] = [];
    for (const name of missing) added.push({ name, color: nextClassColor([...existing, ...added].map((c) => c.color)), tools });
    await updateProject(ctx, job.createdBy, job.projectId, { classes: [...existing, ...added] });
    for (const mc of modelClasses) {
      const target = opts.class_map[mc] ?? mc;
      if (missing.has(target)) names.set(mc, target);
    }
  }
  return { names, dropped };
}
