// Running one Magic Image Edit job, in the two phases the progress texts of spec section 8 follow:
//   1. generating: each pending image is edited by the provider and the bytes stored under a fresh
//      name (street_1_edit_night.png) reserved for the job's creator;
//   2. registering: each generated image is registered as a new image of the job's folder through
//      the upload service (thumbnail, sidecar, is_edited), and the source's labels are carried over.
// Each step is recorded on the job's item before the next, so a job resumed after an interruption
// never does one twice. One image's failure is recorded on its item; the rest go on.
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import type { JobQueue, JobRow } from '../../jobs/queue';
import { LeaseLost, StopRequested } from '../../jobs/queue';
import { annotationDocuments, imageEditItems, images, projects, uploadReservations } from '../../db/schema';
import { ApiError } from '../../errors';
import { MAX_UPLOAD_BYTES } from '../../../contract/images';
import type { EditedImage, ImageEditResult } from '../../../contract/image-edit';
import { readAnnotations, saveData } from '../annotations';
import { folderPathOrThrow, setImageStatus, type ProjectRow } from '../images';
import { bucketFor, imageKey } from '../stored-objects';
import { checkFilename, registerImage } from '../upload';
import { scaleAnnotations, transformAnnotations } from './labels';
import { EditFailure, type EditProvider } from './provider';
import { isGeoStep, type GeoStep } from './vocabulary';

/**
 * A stored copy waits for phase 2 under an upload reservation of its name; while the job runs the
 * reservation is pushed this far ahead after every image, so the orphan sweep (which deletes
 * unregistered objects older than an hour whose reservation lapsed) never takes a copy of a long job.
 */
const OUTPUT_HOLD_MS = 2 * 60 * 60 * 1000;

export interface JobPayload {
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

export type ItemRow = typeof imageEditItems.$inferSelect;

/** What running a job needs: the server, the provider, and the queue's update of a job this worker holds. */
export interface Runner {
  ctx: AppContext;
  provider: EditProvider;
  own: JobQueue['own'];
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

async function readObject(r: Runner, bucket: string, key: string, signal: AbortSignal): Promise<Buffer> {
  const { body } = await r.ctx.storage.get(bucket, key);
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

async function updateItem(r: Runner, jobId: string, position: number, set: Partial<typeof imageEditItems.$inferInsert>): Promise<void> {
  await r.ctx.db
    .update(imageEditItems)
    .set({ ...set, updatedAt: new Date() })
    .where(and(eq(imageEditItems.jobId, jobId), eq(imageEditItems.position, position)));
}

export async function loadItems(ctx: AppContext, jobId: string): Promise<ItemRow[]> {
  return ctx.db.select().from(imageEditItems).where(eq(imageEditItems.jobId, jobId)).orderBy(asc(imageEditItems.position));
}

/** Keeps the names of stored, not yet registered copies reserved for the job's creator (see OUTPUT_HOLD_MS). */
async function holdOutputs(r: Runner, job: JobRow, items: ItemRow[]): Promise<void> {
  const names = items.filter((i) => i.status === 'generated' && i.outputFilename).map((i) => i.outputFilename!);
  const userId = job.createdBy;
  if (names.length === 0 || !userId) return;
  const projectId = (job.payload as unknown as JobPayload).project_id;
  const until = new Date(Date.now() + OUTPUT_HOLD_MS);
  await r.ctx.db
    .insert(uploadReservations)
    .values(names.map((filename) => ({ projectId, filename, reservedBy: userId, expiresAt: until })))
    .onConflictDoUpdate({
      target: [uploadReservations.projectId, uploadReservations.filename],
      set: { expiresAt: sql`greatest(${uploadReservations.expiresAt}, excluded.expires_at)` },
      setWhere: eq(uploadReservations.reservedBy, userId),
    });
}

async function touch(r: Runner, job: JobRow, signal: AbortSignal): Promise<void> {
  const items = await loadItems(r.ctx, job.id);
  await holdOutputs(r, job, items);
  const total = items.length || 1;
  const generated = items.filter((i) => i.status !== 'pending').length;
  const settled = items.filter((i) => i.status === 'registered' || i.status === 'failed').length;
  if (!(await r.own(job.id, { progress: Math.min(99, Math.round((100 * (generated + settled)) / (2 * total))) }))) throw new LeaseLost();
  if (signal.aborted) throw signal.reason;
}

export async function processJob(r: Runner, job: JobRow, signal: AbortSignal): Promise<void> {
  const p = job.payload as unknown as JobPayload;
  const userId = job.createdBy;
  const [project] = await r.ctx.db.select().from(projects).where(eq(projects.id, p.project_id)).limit(1);
  if (!project || !userId) {
    await failPending(r, job, 'The project no longer exists');
    await finish(r, job, null);
    return;
  }
  let bucket: string;
  try {
    bucket = await bucketFor(r.ctx, project.organizationId);
  } catch (err) {
    await failPending(r, job, messageOf(err));
    await finish(r, job, null);
    return;
  }
  const plan = r.provider.plan(p.prompt);

  // Phase 1: generate.
  for (const item of await loadItems(r.ctx, job.id)) {
    if (item.status !== 'pending') continue;
    if (signal.aborted) throw signal.reason;
    try {
      if (!plan.ok) throw new EditFailure(plan.error);
      const [src] = await r.ctx.db
        .select()
        .from(images)
        .where(and(eq(images.id, item.sourceImageId), eq(images.projectId, project.id)))
        .limit(1);
      if (!src) throw new EditFailure('The image was deleted before it could be edited');
      const bytes = await readObject(r, bucket, src.gcsPath, signal);
      const out = await r.provider.edit({
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
      const { unique_filename } = await checkFilename(r.ctx, userId, project.id, desired);
      await r.ctx.storage.put(bucket, imageKey(project, unique_filename), out.bytes, { contentType: out.mime });
      await updateItem(r, job.id, item.position, { status: 'generated', outputFilename: unique_filename, outputMime: out.mime, labelMode: out.labelMode, transforms: out.transforms });
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (!(err instanceof EditFailure) && !(err instanceof ApiError)) r.ctx.log.error({ err, job: job.id, image: item.sourceFilename }, 'image edit: unexpected failure');
      await updateItem(r, job.id, item.position, { status: 'failed', error: messageOf(err) });
    }
    await touch(r, job, signal);
  }

  // Phase 2: register and carry the labels.
  for (const item of await loadItems(r.ctx, job.id)) {
    if (item.status !== 'generated') continue;
    if (signal.aborted) throw signal.reason;
    try {
      const registration = await registerOne(r, project, p, userId, item);
      await updateItem(r, job.id, item.position, { status: 'registered', resultImageId: registration.image_id, registration: registration as unknown as Record<string, unknown> });
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (!(err instanceof EditFailure) && !(err instanceof ApiError)) r.ctx.log.error({ err, job: job.id, image: item.sourceFilename }, 'image edit: registration failed');
      await updateItem(r, job.id, item.position, { status: 'failed', error: `Registering the edited image failed: ${messageOf(err)}` });
    }
    await touch(r, job, signal);
  }
  await finish(r, job, null);
}

async function registerOne(r: Runner, project: ProjectRow, p: JobPayload, userId: string, item: ItemRow): Promise<EditedImage> {
  const filename = item.outputFilename!;
  // Registered before an interruption? Then only the labels may be missing.
  let [row] = await r.ctx.db
    .select()
    .from(images)
    .where(and(eq(images.projectId, project.id), eq(images.filename, filename)))
    .limit(1);
  if (!row) {
    const folder = folderPathOrThrow(p.folder_path);
    const registered = await registerImage(r.ctx, userId, project.id, { filename, folder_path: folder, is_edited: true }, undefined, { storedByServer: true });
    [row] = await r.ctx.db.select().from(images).where(eq(images.id, registered.image.id)).limit(1);
    if (!row) throw new EditFailure('The edited image disappeared while it was registered');
  }
  const [src] = await r.ctx.db.select().from(images).where(eq(images.id, item.sourceImageId)).limit(1);
  const source = await readAnnotations(r.ctx.db, item.sourceImageId);
  const [ownDoc] = await r.ctx.db.select({ version: annotationDocuments.version }).from(annotationDocuments).where(eq(annotationDocuments.imageId, row.id)).limit(1);
  let carried = (ownDoc?.version ?? 0) > 0 ? await readAnnotations(r.ctx.db, row.id) : [];
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
      await saveData(r.ctx, userId, { image_id: row.id, project_id: project.id, annotations: next, image_filename: row.filename, base_version: 0 });
      carried = next;
      // Exact labels of a complete image are complete too; a generative copy waits in review ('annotating').
      if (item.labelMode === 'exact' && src.status === 'complete') {
        await setImageStatus(r.ctx, userId, row.id, { status: 'complete' }).catch(() => undefined);
      }
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.code !== 'version_conflict') r.ctx.log.warn({ err: err.message, image: row.filename }, 'image edit: labels could not be carried over');
    }
    [row] = await r.ctx.db.select().from(images).where(eq(images.id, row.id)).limit(1);
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

async function failPending(r: Runner, job: JobRow, message: string): Promise<void> {
  await r.ctx.db
    .update(imageEditItems)
    .set({ status: 'failed', error: message, updatedAt: new Date() })
    .where(and(eq(imageEditItems.jobId, job.id), inArray(imageEditItems.status, ['pending', 'generated'])));
}

export async function finish(r: Runner, job: JobRow, forcedError: string | null): Promise<void> {
  if (forcedError) await failPending(r, job, forcedError);
  const items = await loadItems(r.ctx, job.id);
  const result = resultOf(job, items);
  const failures = result.failures.map((f) => f.error);
  const distinct = [...new Set(failures)];
  const error =
    result.successful_count > 0
      ? null
      : forcedError ?? (distinct.length === 1 ? distinct[0]! : `All ${result.total_count} images failed: ${distinct.slice(0, 3).join('; ')}`);
  await r.own(job.id, {
    status: result.successful_count > 0 ? 'completed' : 'failed',
    progress: 100,
    result: result as unknown as Record<string, unknown>,
    error,
    lockedBy: null,
    lockedUntil: null,
  });
}

export function resultOf(job: JobRow, items: ItemRow[]): ImageEditResult {
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
