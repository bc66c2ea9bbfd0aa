// Magic Image Edit jobs (spec sections 3, 4 "Image edit job", 7 "Image edit").
//
// A job is a `jobs` row of kind 'image_edit' with one image_edit_items row per source image
// (0004_image_edit.sql), run by the database job queue (src/server/jobs/queue.ts: claims, leases,
// hand-back on stop, attempts, retention). A job interrupted anywhere resumes in another process
// or the restarted one: items already generated or registered are never done twice, because each
// step is recorded on the item before the next.
//
// A job runs in two phases, which the progress texts of spec section 8 follow:
//   1. generating: each pending image is edited by the provider and the bytes stored under a fresh
//      name (street_1_edit_night.png) reserved for the job's creator;
//   2. registering: each generated image is registered as a new image of the job's folder through
//      the upload service (thumbnail, sidecar, is_edited), and the source's labels are carried over.
// One image's failure is recorded on its item and counted in failed_count; the rest go on.
import { randomInt, randomUUID } from 'node:crypto';
import { and, asc, eq, gt, inArray, isNotNull, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { createJobQueue, LeaseLost, StopRequested, type JobRow } from '../../jobs/queue';
import { annotationDocuments, imageEditItems, images, jobs, projects, uploadReservations } from '../../db/schema';
import { ApiError, apiError, errors } from '../../http/errors';
import { MAX_UPLOAD_BYTES } from '../../../contract/images';
import {
  EDIT_SEED_LIMIT,
  type EditedImage,
  type ImageEditHealthResponse,
  type ImageEditRequest,
  type ImageEditResult,
  type ImageEditStartResponse,
  type ImageEditStatus,
  type ImageEditStatusResponse,
} from '../../../contract/image-edit';
import { requireMember } from '../access';
import { readAnnotations, saveData } from '../annotations';
import {
  bucketFor,
  deleteKeys,
  filenameLockKey,
  folderPathOrThrow,
  imageKey,
  projectInOrg,
  requireFolder,
  setImageStatus,
  sidecarKey,
  thumbnailKey,
  withKeyLock,
  type ProjectRow,
} from '../images';
import { checkFilename, registerImage } from '../upload';
import { createBuiltinProvider } from './builtin';
import { scaleAnnotations, transformAnnotations } from './labels';
import { EditFailure, type EditProvider } from './provider';
import { createRemoteProvider } from './remote';
import { isGeoStep, type GeoStep } from './vocabulary';

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
/**
 * A stored copy waits for phase 2 under an upload reservation of its name; while the job runs the
 * reservation is pushed this far ahead after every image, so the orphan sweep (which deletes
 * unregistered objects older than an hour whose reservation lapsed) never takes a copy of a long job.
 */
const OUTPUT_HOLD_MS = 2 * 60 * 60 * 1000;

interface JobPayload {
  project_id: string;
  prompt: string;
  negative_prompt: string | null;
  num_inference_steps: number;
  guidance_scale: number;
  true_cfg_scale: number;
  seed: number;
  folder_path: string;
  provider: string;
  total: number;
}

type ItemRow = typeof imageEditItems.$inferSelect;

export function createProvider(ctx: Pick<AppContext, 'config'>): EditProvider {
  return ctx.config.imageEdit.provider === 'remote' ? createRemoteProvider(ctx.config.imageEdit) : createBuiltinProvider();
}

function messageOf(err: unknown): string {
  if (err instanceof EditFailure || err instanceof ApiError) return err.message;
  return 'An unexpected error stopped this image';
}

const stemOf = (filename: string) => {
  const dot = filename.lastIndexOf('.');
  return dot > 0 ? filename.slice(0, dot) : filename;
};
const EXT: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif' };

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
    run: processJob,
    giveUp: (job) => finish(job, 'The edit was interrupted too many times'),
    beforeDelete: dropLeftovers,
  });

  async function readObject(bucket: string, key: string, signal: AbortSignal): Promise<Buffer> {
    const { body } = await ctx.storage.get(bucket, key);
    const chunks: Buffer[] = [];
    let size = 0;
    const onAbort = () => body.destroy(new StopRequested());
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      for await (const chunk of body) {
        size += (chunk as Buffer).length;
        if (size > MAX_UPLOAD_BYTES) throw new EditFailure('The image file is larger than the upload limit');
        chunks.push(chunk as Buffer);
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    return Buffer.concat(chunks);
  }

  async function updateItem(jobId: string, position: number, set: Partial<typeof imageEditItems.$inferInsert>): Promise<void> {
    await ctx.db
      .update(imageEditItems)
      .set({ ...set, updatedAt: new Date() })
      .where(and(eq(imageEditItems.jobId, jobId), eq(imageEditItems.position, position)));
  }

  async function loadItems(jobId: string): Promise<ItemRow[]> {
    return ctx.db.select().from(imageEditItems).where(eq(imageEditItems.jobId, jobId)).orderBy(asc(imageEditItems.position));
  }

  /** Keeps the names of stored, not yet registered copies reserved for the job's creator (see OUTPUT_HOLD_MS). */
  async function holdOutputs(job: JobRow, items: ItemRow[]): Promise<void> {
    const names = items.filter((i) => i.status === 'generated' && i.outputFilename).map((i) => i.outputFilename!);
    const userId = job.createdBy;
    if (names.length === 0 || !userId) return;
    const projectId = (job.payload as unknown as JobPayload).project_id;
    const until = new Date(Date.now() + OUTPUT_HOLD_MS);
    await ctx.db
      .insert(uploadReservations)
      .values(names.map((filename) => ({ projectId, filename, reservedBy: userId, expiresAt: until })))
      .onConflictDoUpdate({
        target: [uploadReservations.projectId, uploadReservations.filename],
        set: { expiresAt: sql`greatest(${uploadReservations.expiresAt}, excluded.expires_at)` },
        setWhere: eq(uploadReservations.reservedBy, userId),
      });
  }

  async function touch(job: JobRow, signal: AbortSignal): Promise<void> {
    const items = await loadItems(job.id);
    await holdOutputs(job, items);
    const total = items.length || 1;
    const generated = items.filter((i) => i.status !== 'pending').length;
    const settled = items.filter((i) => i.status === 'registered' || i.status === 'failed').length;
    if (!(await queue.own(job.id, { progress: Math.min(99, Math.round((100 * (generated + settled)) / (2 * total))) }))) throw new LeaseLost();
    if (signal.aborted) throw signal.reason;
  }

  async function processJob(job: JobRow, signal: AbortSignal): Promise<void> {
    const p = job.payload as unknown as JobPayload;
    const userId = job.createdBy;
    const [project] = await ctx.db.select().from(projects).where(eq(projects.id, p.project_id)).limit(1);
    if (!project || !userId) {
      await failPending(job, 'The project no longer exists');
      await finish(job, null);
      return;
    }
    let bucket: string;
    try {
      bucket = await bucketFor(ctx, project.organizationId);
    } catch (err) {
      await failPending(job, messageOf(err));
      await finish(job, null);
      return;
    }
    const plan = provider.plan(p.prompt);

    // Phase 1: generate.
    for (const item of await loadItems(job.id)) {
      if (item.status !== 'pending') continue;
      if (signal.aborted) throw signal.reason;
      try {
        if (!plan.ok) throw new EditFailure(plan.error);
        const [src] = await ctx.db
          .select()
          .from(images)
          .where(and(eq(images.id, item.sourceImageId), eq(images.projectId, project.id)))
          .limit(1);
        if (!src) throw new EditFailure('The image was deleted before it could be edited');
        const bytes = await readObject(bucket, src.gcsPath, signal);
        const out = await provider.edit({
          bytes,
          mime: src.mimeType,
          filename: src.filename,
          width: src.imageWidth ?? 0,
          height: src.imageHeight ?? 0,
          prompt: p.prompt,
          negativePrompt: p.negative_prompt,
          steps: p.num_inference_steps,
          guidance: p.guidance_scale,
          trueCfg: p.true_cfg_scale,
          seed: p.seed,
          signal,
        });
        if (signal.aborted) throw signal.reason;
        const desired = `${stemOf(src.filename)}_edit_${plan.slug}.${EXT[out.mime] ?? 'png'}`;
        const { unique_filename } = await checkFilename(ctx, userId, project.id, desired);
        await ctx.storage.put(bucket, imageKey(project, unique_filename), out.bytes, { contentType: out.mime });
        await updateItem(job.id, item.position, { status: 'generated', outputFilename: unique_filename, outputMime: out.mime, labelMode: out.labelMode, transforms: out.transforms });
      } catch (err) {
        if (signal.aborted) throw signal.reason;
        if (!(err instanceof EditFailure) && !(err instanceof ApiError)) ctx.log.error({ err, job: job.id, image: item.sourceFilename }, 'image edit: unexpected failure');
        await updateItem(job.id, item.position, { status: 'failed', error: messageOf(err) });
      }
      await touch(job, signal);
    }

    // Phase 2: register and carry the labels.
    for (const item of await loadItems(job.id)) {
      if (item.status !== 'generated') continue;
      if (signal.aborted) throw signal.reason;
      try {
        const registration = await registerOne(project, p, userId, item);
        await updateItem(job.id, item.position, { status: 'registered', resultImageId: registration.image_id, registration: registration as unknown as Record<string, unknown> });
      } catch (err) {
        if (signal.aborted) throw signal.reason;
        if (!(err instanceof EditFailure) && !(err instanceof ApiError)) ctx.log.error({ err, job: job.id, image: item.sourceFilename }, 'image edit: registration failed');
        await updateItem(job.id, item.position, { status: 'failed', error: `Registering the edited image failed: ${messageOf(err)}` });
      }
      await touch(job, signal);
    }
    await finish(job, null);
  }

  async function registerOne(project: ProjectRow, p: JobPayload, userId: string, item: ItemRow): Promise<EditedImage> {
    const filename = item.outputFilename!;
    // Registered before an interruption? Then only the labels may be missing.
    let [row] = await ctx.db
      .select()
      .from(images)
      .where(and(eq(images.projectId, project.id), eq(images.filename, filename)))
      .limit(1);
    if (!row) {
      const folder = folderPathOrThrow(p.folder_path);
      const registered = await registerImage(ctx, userId, project.id, { filename, folder_path: folder, is_edited: true }, undefined, { storedByServer: true });
      [row] = await ctx.db.select().from(images).where(eq(images.id, registered.image.id)).limit(1);
      if (!row) throw new EditFailure('The edited image disappeared while it was registered');
    }
    const [src] = await ctx.db.select().from(images).where(eq(images.id, item.sourceImageId)).limit(1);
    const source = await readAnnotations(ctx.db, item.sourceImageId);
    const [ownDoc] = await ctx.db.select({ version: annotationDocuments.version }).from(annotationDocuments).where(eq(annotationDocuments.imageId, row.id)).limit(1);
    let carried = (ownDoc?.version ?? 0) > 0 ? await readAnnotations(ctx.db, row.id) : [];
    if (src && source.length > 0 && (ownDoc?.version ?? 0) === 0) {
      const w = src.imageWidth ?? row.imageWidth ?? 0;
      const h = src.imageHeight ?? row.imageHeight ?? 0;
      const steps = (item.transforms ?? []).filter(isGeoStep) as GeoStep[];
      let next = item.labelMode === 'exact' ? transformAnnotations(source, steps, w, h) : source;
      // The frame after the steps; a copy of another size (generative output, rasterised SVG) is scaled onto it.
      const swapped = steps.filter((s) => s === 'rotate_90' || s === 'rotate_270').length % 2 === 1;
      const [tw, th] = item.labelMode === 'exact' && swapped ? [h, w] : [w, h];
      if (row.imageWidth && row.imageHeight && tw && th) next = scaleAnnotations(next, tw, th, row.imageWidth, row.imageHeight);
      try {
        await saveData(ctx, userId, { image_id: row.id, project_id: project.id, annotations: next, image_filename: row.filename, base_version: 0 });
        carried = next;
        // Exact labels of a complete image are complete too; a generative copy waits in review ('annotating').
        if (item.labelMode === 'exact' && src.status === 'complete') {
          await setImageStatus(ctx, userId, row.id, { status: 'complete' }).catch(() => undefined);
        }
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        if (err.code !== 'version_conflict') ctx.log.warn({ err: err.message, image: row.filename }, 'image edit: labels could not be carried over');
      }
      [row] = await ctx.db.select().from(images).where(eq(images.id, row.id)).limit(1);
      if (!row) throw new EditFailure('The edited image was deleted while it was registered');
    }
    return {
      image_id: row.id,
      source_filename: item.sourceFilename,
      filename: row.filename,
      gcs_path: row.gcsPath,
      gcs_uri: row.gcsUri,
      folder_path: row.virtualFolderPath,
      file_size: row.fileSize,
      mime_type: row.mimeType,
      width: row.imageWidth ?? 0,
      height: row.imageHeight ?? 0,
      annotation_created: carried.length > 0,
      annotation_count: carried.length,
    };
  }

  async function failPending(job: JobRow, message: string): Promise<void> {
    await ctx.db
      .update(imageEditItems)
      .set({ status: 'failed', error: message, updatedAt: new Date() })
      .where(and(eq(imageEditItems.jobId, job.id), inArray(imageEditItems.status, ['pending', 'generated'])));
  }

  async function finish(job: JobRow, forcedError: string | null): Promise<void> {
    if (forcedError) await failPending(job, forcedError);
    const items = await loadItems(job.id);
    const result = resultOf(job, items);
    const failures = result.failures.map((f) => f.error);
    const distinct = [...new Set(failures)];
    const error =
      result.successful_count > 0
        ? null
        : forcedError ?? (distinct.length === 1 ? distinct[0]! : `All ${result.total_count} images failed: ${distinct.slice(0, 3).join('; ')}`);
    await queue.own(job.id, {
      status: result.successful_count > 0 ? 'completed' : 'failed',
      progress: 100,
      result: result as unknown as Record<string, unknown>,
      error,
      lockedBy: null,
      lockedUntil: null,
    });
  }

  function resultOf(job: JobRow, items: ItemRow[]): ImageEditResult {
    const p = job.payload as unknown as JobPayload;
    const registered = items.filter((i) => i.status === 'registered');
    const failed = items.filter((i) => i.status === 'failed');
    return {
      successful_count: registered.length,
      total_count: items.length,
      failed_count: failed.length,
      needs_frontend_registration: false,
      registration_data: registered.map((i) => i.registration as unknown as EditedImage),
      virtual_folder_path: p.folder_path,
      // An item that failed after its copy was stored failed at registration.
      failures: failed.map((i) => ({ filename: i.sourceFilename, error: i.error ?? 'Failed', stage: i.outputFilename ? ('register' as const) : ('edit' as const) })),
    };
  }

  // --- retention

  /**
   * The stored copy of an item that never became an image (its registration failed): deleted
   * unless an image or a live upload reservation now holds that name (it may have been reused).
   */
  async function dropLeftover(project: ProjectRow, bucket: string, filename: string, now: Date): Promise<number> {
    return withKeyLock(filenameLockKey(project.id, filename), async () => {
      const [row] = await ctx.db.select({ id: images.id }).from(images).where(and(eq(images.projectId, project.id), eq(images.filename, filename))).limit(1);
      if (row) return 0;
      const [held] = await ctx.db
        .select({ filename: uploadReservations.filename })
        .from(uploadReservations)
        .where(and(eq(uploadReservations.projectId, project.id), eq(uploadReservations.filename, filename), gt(uploadReservations.expiresAt, now)))
        .limit(1);
      if (held) return 0;
      const keys: string[] = [];
      for (const key of [imageKey(project, filename), sidecarKey(project, filename), thumbnailKey(project, filename)]) {
        if (await ctx.storage.head(bucket, key)) keys.push(key);
      }
      return deleteKeys(ctx, bucket, keys);
    });
  }

  /** Before a finished job is deleted: the stored copies of its items that never became images. */
  async function dropLeftovers(job: Pick<JobRow, 'id' | 'payload'>, now: Date): Promise<number> {
    const leftovers = await ctx.db
      .select({ filename: imageEditItems.outputFilename })
      .from(imageEditItems)
      .where(and(eq(imageEditItems.jobId, job.id), eq(imageEditItems.status, 'failed'), isNotNull(imageEditItems.outputFilename)));
    const projectId = (job.payload as Partial<JobPayload>).project_id;
    const [project] = leftovers.length && projectId ? await ctx.db.select().from(projects).where(eq(projects.id, projectId)).limit(1) : [];
    if (!project) return 0;
    const bucket = await bucketFor(ctx, project.organizationId).catch(() => null);
    let objects = 0;
    for (const { filename } of bucket ? leftovers : []) objects += await dropLeftover(project, bucket!, filename!, now);
    return objects;
  }

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
      const items = await loadItems(job.id);
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
