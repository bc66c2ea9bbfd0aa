// Pre-label jobs from the request side (issue 34 §2): create (the images it covers are fixed at
// once, in one statement), read its progress and report, cancel. Owners, admins and reviewers
// (images.review); another organization's project, model or job answers 404. The work itself runs
// on the job queue (runner.ts): a request never waits for a model.
import { randomUUID } from 'node:crypto';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { prelabelJobs } from '../../db/schema';
import { errors } from '../../errors';
import { PRELABEL_MAX_SKIPPED_LISTED, type PrelabelJob, type PrelabelRequest } from '../../../contract/prelabel';
import { roleCan } from '../../../contract/permissions';
import { projectFor, requireMember } from '../access';
import { folderPathOrThrow, underPath } from '../images/folder-path';
import { images } from '../../db/schema';
import { rowsOf } from '../annotations/store';
import { runnableModel } from './predict';
import { queuePrelabelTurn } from './runner';

type JobRow = typeof prelabelJobs.$inferSelect;

/** The options a job keeps (the request without its scope). */
export interface PrelabelOptions {
  class_map: Record<string, string>;
  create_missing_classes: boolean;
  min_score: number;
  max_per_image: number;
  skip_annotated: boolean;
}

/** Starts a job: checks the caller, the model and the class map, fixes the images, queues the work. */
export async function createPrelabelJob(ctx: AppContext, userId: string, projectId: string, body: PrelabelRequest): Promise<{ job_id: string }> {
  const project = await projectFor(ctx, userId, projectId, 'images.review');
  // Reviewers may pre-label, but adding classes is an owner's or admin's: said with its own code, so the page can say why.
  if (body.create_missing_classes) {
    const role = await requireMember(ctx.db, userId, project.organizationId, 'images.review', 'Project');
    if (!roleCan(role, 'classes.edit')) {
      throw errors.forbidden(`Your role (${role}) may pre-label images but not add classes to the project: leave "create missing classes" off, or ask an owner or admin`, 'classes_edit_required');
    }
  }
  const model = await runnableModel(ctx, project.organizationId, body.model_id);
  const modelClasses = new Set(model.classes);
  const foreign = Object.keys(body.class_map ?? {}).find((c) => !modelClasses.has(c));
  if (foreign !== undefined) throw errors.badRequest(`class_map: "${foreign.slice(0, 100)}" is not one of the model's classes`, 'validation_failed');

  const scope = [eq(images.projectId, project.id)];
  if (body.image_ids) {
    const ids = [...new Set(body.image_ids)];
    const found = await ctx.db.select({ id: images.id }).from(images).where(and(eq(images.projectId, project.id), inArray(images.id, ids)));
    if (found.length !== ids.length) throw errors.notFound('Image');
    scope.push(inArray(images.id, ids));
  } else {
    scope.push(eq(images.isArchived, false));
    if (body.folder_path !== undefined) scope.push(underPath(images.virtualFolderPath, folderPathOrThrow(body.folder_path)));
  }
  const options: PrelabelOptions = {
    class_map: body.class_map ?? {},
    create_missing_classes: body.create_missing_classes,
    min_score: body.min_score,
    max_per_image: body.max_per_image,
    skip_annotated: body.skip_annotated,
  };
  const id = randomUUID();
  await ctx.db.transaction(async (tx) => {
    await tx.insert(prelabelJobs).values({ id, organizationId: project.organizationId, projectId: project.id, modelId: model.id, createdBy: userId, options: { ...options } });
    const chosen = tx
      .select({ jobId: sql`${id}::uuid`.as('job_id'), imageId: images.id, seq: sql<number>`(row_number() OVER (ORDER BY ${images.virtualFolderPath}, ${images.filename}, ${images.id}))::integer`.as('seq') })
      .from(images)
      .where(and(...scope));
    await tx.execute(sql`INSERT INTO prelabel_job_images (job_id, image_id, seq) ${chosen}`);
    await tx.execute(sql`UPDATE prelabel_jobs SET total = (SELECT count(*) FROM prelabel_job_images WHERE job_id = ${id}) WHERE id = ${id}`);
  });
  await queuePrelabelTurn(ctx, project.organizationId);
  return { job_id: id };
}

/** The job row, for a caller who may run jobs in its organization; 404 otherwise. */
async function jobFor(ctx: AppContext, userId: string, jobId: string): Promise<JobRow> {
  const [row] = await ctx.db.select().from(prelabelJobs).where(eq(prelabelJobs.id, jobId)).limit(1);
  if (!row) throw errors.notFound('Pre-label job');
  await requireMember(ctx.db, userId, row.organizationId, 'images.review', 'Pre-label job');
  return row;
}

/** The job as the API answers it: its state, progress and report. */
export async function prelabelJobJson(ctx: AppContext, row: JobRow): Promise<PrelabelJob> {
  const [counts] = await rowsOf<{ done: number | string; images: number | string; predictions: number | string; skipped: number | string }>(
    ctx.db,
    sql`SELECT count(*) FILTER (WHERE state <> 'todo') AS done, count(*) FILTER (WHERE state = 'done') AS images,
               coalesce(sum(predictions), 0) AS predictions, count(*) FILTER (WHERE reason IS NOT NULL) AS skipped
        FROM prelabel_job_images WHERE job_id = ${row.id}`,
  );
  const skipped = await rowsOf<{ image_id: string; filename: string | null; reason: string }>(
    ctx.db,
    sql`SELECT p.image_id, i.filename, p.reason FROM prelabel_job_images p LEFT JOIN images i ON i.id = p.image_id
        WHERE p.job_id = ${row.id} AND p.reason IS NOT NULL ORDER BY p.seq LIMIT ${PRELABEL_MAX_SKIPPED_LISTED}`,
  );
  return {
    id: row.id,
    project_id: row.projectId,
    model_id: row.modelId,
    status: row.status,
    progress: { done: Number(counts?.done ?? 0), total: row.total },
    report: { images: Number(counts?.images ?? 0), predictions: Number(counts?.predictions ?? 0), skipped, skipped_total: Number(counts?.skipped ?? 0) },
    ...(row.error ? { error: row.error } : {}),
    created_at: row.createdAt.toISOString(),
  };
}

export async function getPrelabelJob(ctx: AppContext, userId: string, jobId: string): Promise<PrelabelJob> {
  return prelabelJobJson(ctx, await jobFor(ctx, userId, jobId));
}

/** Stops a queued or running job: the worker sees it before its next image (what it saved stays). 409 prelabel_finished once it ended. */
export async function cancelPrelabelJob(ctx: AppContext, userId: string, jobId: string): Promise<PrelabelJob> {
  const row = await jobFor(ctx, userId, jobId);
  const [updated] = await ctx.db
    .update(prelabelJobs)
    .set({ status: 'cancelled', updatedAt: new Date() })
    .where(and(eq(prelabelJobs.id, row.id), inArray(prelabelJobs.status, ['queued', 'running'])))
    .returning();
  if (!updated) throw errors.conflict(`The job has already ended (${row.status})`, 'prelabel_finished');
  return prelabelJobJson(ctx, updated);
}
