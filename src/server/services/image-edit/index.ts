// Magic Image Edit jobs (spec sections 3, 4 "Image edit job", 7 "Image edit"): the service the
// routes call (start a job, its status, health) and its wiring to the database job queue.
//
// A job is a `jobs` row of kind 'image_edit' with one image_edit_items row per source image
// (0004_image_edit.sql), run by the job queue (src/server/jobs/queue.ts: claims, leases,
// hand-back on stop, attempts, retention). Running one job, in its two phases, is run.ts; what
// its retention removes besides the rows is retention.ts.
import { randomInt, randomUUID } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { createJobQueue } from '../../jobs/queue';
import { imageEditItems, images, jobs } from '../../db/schema';
import { apiError, errors } from '../../errors';
import {
  EDIT_SEED_LIMIT,
  type ImageEditHealthResponse,
  type ImageEditRequest,
  type ImageEditResult,
  type ImageEditStartResponse,
  type ImageEditStatus,
  type ImageEditStatusResponse,
} from '../../../contract/image-edit';
import { projectInOrg, requireMember } from '../access';
import { folderPathOrThrow, requireFolder } from '../images';
import { bucketFor } from '../stored-objects';
import { createBuiltinProvider } from './builtin';
import type { EditProvider } from './provider';
import { createRemoteProvider } from './remote';
import { dropLeftovers } from './retention';
import { finish, loadItems, processJob, resultOf, type JobPayload, type Runner } from './run';

export const JOB_KIND = 'image_edit';
/** A job claimed this many times without finishing (crashes, lost leases) is failed. */
const MAX_ATTEMPTS = 5;
/**
 * Finished jobs (completed or failed) are kept this long after they finished, so a client can
 * still read a result it polled late; then the retention sweep deletes the job, its items, and the
 * stored copies of items that never became images.
 */
export const FINISHED_JOB_RETENTION_DAYS = 7;
/** How often each server process runs the retention sweep (the first run comes a minute after start). */
export const RETENTION_SWEEP_INTERVAL_MS = 60 * 60 * 1000;



export function createProvider(ctx: Pick<AppContext, 'config'>): EditProvider {
  return ctx.config.imageEdit.provider === 'remote' ? createRemoteProvider(ctx.config.imageEdit) : createBuiltinProvider();
}


export interface ImageEditService {
  provider: EditProvider;
  start(): void;
  /** Stops taking jobs, interrupts running ones and hands them back (they resume elsewhere). */
  stop(): Promise<void>;
  createJob(userId: string, body: ImageEditRequest): Promise<ImageEditStartResponse>;
  status(userId: string, editId: string): Promise<ImageEditStatusResponse>;
  /** The provider, and the job queue of `organizationId` only (empty when null). */
  health(organizationId: string | null): Promise<ImageEditHealthResponse>;
  /** Deletes finished jobs older than FINISHED_JOB_RETENTION_DAYS (by ctx.now) with their leftover objects. */
  sweep(): Promise<{ jobs: number; objects: number }>;
}

// Long because it is the service object: its methods (createJob, status, health, sweep) share the
// config, provider and context they close over.
export function createImageEditService(ctx: AppContext, provider: EditProvider = createProvider(ctx)): ImageEditService {
  const cfg = ctx.config.imageEdit;
  const queue = createJobQueue(ctx, {
    kind: JOB_KIND,
    concurrency: cfg.concurrency,
    pollMs: cfg.pollMs,
    leaseMs: cfg.leaseMs,
    maxAttempts: MAX_ATTEMPTS,
    retentionDays: FINISHED_JOB_RETENTION_DAYS,
    sweepIntervalMs: RETENTION_SWEEP_INTERVAL_MS,
    run: (job, signal) => processJob(runner, job, signal),
    giveUp: (job) => finish(runner, job, 'The edit was interrupted too many times'),
    beforeDelete: (job, now) => dropLeftovers(ctx, job, now),
  });
  const runner: Runner = { ctx, provider, own: queue.own };

  // --- the API

  return {
    provider,
    start: () => queue.start(),
    stop: () => queue.stop(),

    async createJob(userId, body) {
      const project = await projectInOrg(ctx, userId, body.project_id, 'images.edit');
      const folder = folderPathOrThrow(body.current_folder_path, 'current_folder_path');
      await requireFolder(ctx.db, project.id, folder);
      await bucketFor(ctx, project.organizationId);
      const names = [...new Set(body.image_names)];
      const found = await ctx.db
        .select({ id: images.id, filename: images.filename })
        .from(images)
        .where(and(eq(images.projectId, project.id), eq(images.isArchived, false), inArray(images.filename, names)));
      const byName = new Map(found.map((f) => [f.filename, f]));
      const missing = names.filter((n) => !byName.has(n));
      if (missing.length) {
        const shown = missing.slice(0, 10).map((n) => `"${n.slice(0, 200)}"`).join(', ');
        throw apiError('not_found', `Image${missing.length === 1 ? '' : 's'} not found in this project: ${shown}${missing.length > 10 ? ` and ${missing.length - 10} more` : ''}`, { missing: missing.slice(0, 100) });
      }
      const seed = body.seed ?? randomInt(0, EDIT_SEED_LIMIT);
      const payload: JobPayload = {
        project_id: project.id,
        prompt: body.prompt.trim(),
        negative_prompt: body.negative_prompt?.trim() || null,
        num_inference_steps: body.num_inference_steps,
        guidance_scale: body.guidance_scale,
        true_cfg_scale: body.true_cfg_scale,
        seed,
        folder_path: folder,
        provider: provider.kind,
        total: names.length,
      };
      const id = randomUUID();
      await ctx.db.transaction(async (tx) => {
        await tx.insert(jobs).values({ id, kind: JOB_KIND, organizationId: project.organizationId, payload: payload as unknown as Record<string, unknown>, status: 'queued', createdBy: userId });
        await tx.insert(imageEditItems).values(
          names.map((n, position) => ({ jobId: id, position, sourceImageId: byName.get(n)!.id, sourceFilename: n })),
        );
      });
      queue.poke();
      return { success: true, status: 'queued', edit_id: id, total_count: names.length, seed, provider: provider.kind };
    },

    async status(userId, editId) {
      const [job] = await ctx.db.select().from(jobs).where(and(eq(jobs.id, editId), eq(jobs.kind, JOB_KIND))).limit(1);
      if (!job || !job.organizationId) throw errors.notFound('Edit job');
      await requireMember(ctx.db, userId, job.organizationId, 'images.read', 'Edit job');
      const items = await loadItems(ctx, job.id);
      const p = job.payload as unknown as JobPayload;
      const processed = items.filter((i) => i.status !== 'pending').length;
      const registered = items.filter((i) => i.status === 'registered').length;
      const failed = items.filter((i) => i.status === 'failed').length;
      let status: ImageEditStatus;
      if (job.status === 'completed') status = 'completed';
      else if (job.status === 'failed' || job.status === 'cancelled') status = 'failed';
      else if (processed === 0 && job.status === 'queued') status = 'queued';
      else status = items.some((i) => i.status === 'pending') ? 'processing' : 'registering';
      const finished = status === 'completed' || status === 'failed';
      return {
        edit_id: job.id,
        project_id: p.project_id,
        status,
        progress: finished ? 100 : job.progress,
        total_count: items.length,
        processed_count: processed,
        registered_count: registered,
        failed_count: failed,
        prompt: p.prompt,
        seed: p.seed,
        provider: p.provider,
        error: job.error,
        result: finished ? ((job.result as unknown as ImageEditResult | null) ?? resultOf(job, items)) : null,
        created_at: job.createdAt.toISOString(),
        updated_at: job.updatedAt.toISOString(),
      };
    },

    sweep: () => queue.sweep(),

    async health(organizationId) {
      // One organization's jobs: how busy the others are is none of the caller's business.
      const queued = organizationId ? await queue.counts(organizationId) : { queued: 0, running: 0 };
      const lastError = provider.lastError();
      return {
        status: lastError ? 'degraded' : 'healthy',
        provider: provider.kind,
        model: provider.model,
        endpoint: provider.endpoint,
        vocabulary: [...provider.vocabulary],
        workers: queue.stopping ? 0 : cfg.concurrency,
        queue: queued,
        last_error: lastError,
      };
    },
  };
}
