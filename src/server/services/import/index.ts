// Dataset imports (issue 17): the service the routes call, and its job queue.
//
// create -> the client PUTs its archive to the upload URL (a key under the project's imports/,
// which the upload orphan sweep leaves alone) -> start queues a `jobs` row of kind 'import' ->
// a queue worker in any server process runs it (./run.ts) -> get/list report progress and the
// result. Roles: images.upload and annotations.write (and classes.edit when the dataset brings
// classes the project lacks, checked when they are added). Another organization's project or
// import answers 404.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { and, desc, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { createJobQueue } from '../../jobs/queue';
import { imports, jobs } from '../../db/schema';
import { apiError, errors } from '../../errors';
import { emptyImportReport, MAX_IMPORT_BYTES, type CreateImportRequest, type ImportJob, type ImportReport } from '../../../contract/imports';
import { addUploadGate } from '../../storage/local-routes';
import { projectInOrg, requireMember } from '../access';
import { folderPathOrThrow, requireFolder } from '../images';
import { bucketFor } from '../stored-objects';
import { MAX_UPLOAD_URL_MINUTES } from '../upload';
import { dropUpload, endStoppedCancel, processImport, type ImportJobPayload, type ImportRow } from './run';
import { sweepImportTmp } from './resume';

export const IMPORT_JOB_KIND = 'import';
/** An import claimed this many times without finishing (crashes, lost leases) is failed. */
const MAX_ATTEMPTS = 3;
const RETENTION_DAYS = 30;
const RETENTION_SWEEP_INTERVAL_MS = 60 * 60 * 1000;
/** Imports listed per project. */
const LIST_LIMIT = 50;
/** A reserved import never started is dropped (with whatever was uploaded) this long after it was reserved. */
export const ABANDONED_IMPORT_MS = 24 * 60 * 60 * 1000;

const CONTENT_TYPES: Record<string, string> = { '.zip': 'application/zip', '.json': 'application/json', '.xml': 'application/xml' };

export interface ImportService {
  start(): void;
  stop(): Promise<void>;
  create(userId: string, projectId: string, body: CreateImportRequest): Promise<{ import_id: string; upload_url: string; expires_at: string; content_type: string }>;
  begin(userId: string, importId: string): Promise<{ import_id: string; status: ImportJob['status'] }>;
  get(userId: string, importId: string): Promise<ImportJob>;
  /**
   * Cancels a queued import at once; asks a running one to stop (it stays 'running', with
   * cancel_requested, until its worker has finished the images in flight and written its report:
   * ./run.ts). Asking again while it stops answers the import. What it added stays.
   */
  cancel(userId: string, importId: string): Promise<ImportJob>;
  list(userId: string, projectId: string): Promise<{ imports: ImportJob[] }>;
}

export function importJson(row: ImportRow): ImportJob {
  const report = { ...emptyImportReport(), ...(row.report as Partial<ImportReport>) };
  return {
    import_id: row.id,
    project_id: row.projectId,
    filename: row.filename,
    status: row.status,
    cancel_requested: row.cancelRequestedAt !== null,
    format: row.format as ImportJob['format'],
    folder_path: row.folderPath,
    progress: { done: row.done, total: row.total },
    report,
    ...(row.error ? { error: row.error } : {}),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/**
 * Deletes imports reserved more than ABANDONED_IMPORT_MS ago and never started, with their
 * uploaded files (the upload orphan sweep does not look under imports/). Returns how many.
 */
export async function sweepAbandonedImports(ctx: AppContext, now: Date = ctx.now?.() ?? new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - ABANDONED_IMPORT_MS);
  const rows = await ctx.db.delete(imports).where(and(eq(imports.status, 'uploading'), lt(imports.createdAt, cutoff))).returning();
  for (const row of rows) await dropUpload(ctx, row);
  return rows.length;
}

/** Upload keys of imports: `<project path>/imports/<import id>.<zip|json|xml>`. */
const IMPORT_UPLOAD_KEY = /\/imports\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.(zip|json|xml)$/;
const gated = new WeakSet<object>();

/** An import's upload URL takes bytes only while the import waits for them (the local driver asks; see sweepEndedUploads for S3). */
function gateImportUploads(ctx: AppContext): void {
  if (gated.has(ctx.storage)) return;
  gated.add(ctx.storage);
  addUploadGate(ctx.storage, async (_bucket, key) => {
    const id = IMPORT_UPLOAD_KEY.exec(key)?.[1];
    if (!id) return null;
    const [row] = await ctx.db.select({ status: imports.status, stagingKey: imports.stagingKey }).from(imports).where(eq(imports.id, id)).limit(1);
    if (!row || row.stagingKey !== key) return 'No import waits for this upload';
    return row.status === 'uploading' ? null : `The import is ${row.status}: its upload URL no longer accepts uploads`;
  });
}

/**
 * Deletes the uploaded file of every import that has ended and whose upload URL may still have
 * been used after it ended (created within URL lifetime + the sweep interval, twice over): an S3
 * presigned PUT cannot be refused, so what arrives late is removed here. Returns how many.
 */
export async function sweepEndedUploads(ctx: AppContext, now: Date = new Date()): Promise<number> {
  const since = new Date(now.getTime() - 2 * (MAX_UPLOAD_URL_MINUTES * 60_000 + RETENTION_SWEEP_INTERVAL_MS));
  const rows = await ctx.db.select().from(imports).where(and(inArray(imports.status, ['done', 'failed', 'cancelled']), gt(imports.createdAt, since)));
  for (const row of rows) await dropUpload(ctx, row);
  return rows.length;
}

// Long because it is the service object: each route's method (create, begin, get, cancel, list)
// shares the config and context it closes over.
export function createImportService(ctx: AppContext): ImportService {
  const cfg = ctx.config.imports;
  gateImportUploads(ctx);
  const queue = createJobQueue(ctx, {
    kind: IMPORT_JOB_KIND,
    concurrency: cfg.concurrency,
    pollMs: cfg.pollMs,
    leaseMs: cfg.leaseMs,
    maxAttempts: MAX_ATTEMPTS,
    retentionDays: RETENTION_DAYS,
    sweepIntervalMs: RETENTION_SWEEP_INTERVAL_MS,
    run: async (job, signal) => {
      await processImport(ctx, job, signal);
      await queue.own(job.id, { status: 'completed', progress: 100 });
    },
    giveUp: async (job) => {
      const { import_id: id } = job.payload as unknown as ImportJobPayload;
      await ctx.db.update(jobs).set({ status: 'failed', error: 'interrupted too many times', updatedAt: new Date() }).where(eq(jobs.id, job.id));
      // One that was asked to stop ends as asked, with its report, rather than as failed.
      if (await endStoppedCancel(ctx, id)) return;
      const [row] = await ctx.db
        .update(imports)
        .set({ status: 'failed', error: 'The import was interrupted too many times (the server stopped while it ran); what it did is in the report', updatedAt: new Date() })
        .where(and(eq(imports.id, id), inArray(imports.status, ['queued', 'running'])))
        .returning();
      if (row) await dropUpload(ctx, row);
    },
  });

  /** The import and the caller's right to see it; 404 for another organization's. */
  async function importFor(userId: string, importId: string): Promise<ImportRow> {
    const [row] = await ctx.db.select().from(imports).where(eq(imports.id, importId)).limit(1);
    if (!row) throw errors.notFound('Import');
    await requireMember(ctx.db, userId, row.organizationId, 'images.read', 'Import');
    return row;
  }

  let sweeper: NodeJS.Timeout | null = null;
  return {
    start: () => {
      queue.start();
      const sweepTmp = () => sweepImportTmp(ctx).catch((err: unknown) => ctx.log.warn({ err }, 'import: sweeping temporary directories failed; it runs again later'));
      void sweepTmp();
      sweeper = setInterval(() => {
        sweepAbandonedImports(ctx).catch((err: unknown) => ctx.log.warn({ err }, 'import: sweeping abandoned imports failed; it runs again later'));
        sweepEndedUploads(ctx).catch((err: unknown) => ctx.log.warn({ err }, 'import: sweeping the uploads of ended imports failed; it runs again later'));
        void sweepTmp();
      }, RETENTION_SWEEP_INTERVAL_MS);
      sweeper.unref();
    },
    stop: () => {
      if (sweeper) clearInterval(sweeper);
      return queue.stop();
    },

    async create(userId, projectId, body) {
      const project = await projectInOrg(ctx, userId, projectId, 'images.upload');
      await requireMember(ctx.db, userId, project.organizationId, 'annotations.write', 'Project');
      const ext = path.extname(body.filename).toLowerCase();
      const contentType = CONTENT_TYPES[ext];
      if (!contentType) throw errors.unsupportedType(`"${body.filename.slice(0, 200)}" is not a .zip, .json or .xml file`);
      const folderPath = folderPathOrThrow(body.folder_path ?? '');
      await requireFolder(ctx.db, project.id, folderPath);
      const bucket = await bucketFor(ctx, project.organizationId);
      const id = randomUUID();
      const stagingKey = `${project.gcsPath}/imports/${id}${ext}`;
      // The size declared here is the most the URL takes (the local driver checks it at PUT; start checks it for S3).
      const signed = await ctx.storage.signedUploadUrl(bucket, stagingKey, { expiresInSeconds: MAX_UPLOAD_URL_MINUTES * 60, contentType, maxBytes: body.size });
      await ctx.db.insert(imports).values({
        id,
        organizationId: project.organizationId,
        projectId: project.id,
        createdBy: userId,
        filename: path.basename(body.filename),
        size: body.size,
        format: body.format,
        folderPath,
        stagingKey,
        report: emptyImportReport() as unknown as Record<string, unknown>,
      });
      return { import_id: id, upload_url: signed.url, expires_at: signed.expiresAt.toISOString(), content_type: contentType };
    },

    async begin(userId, importId) {
      const row = await importFor(userId, importId);
      await requireMember(ctx.db, userId, row.organizationId, 'images.upload', 'Import');
      await requireMember(ctx.db, userId, row.organizationId, 'annotations.write', 'Import');
      if (row.status !== 'uploading') throw apiError('import_started', `The import is already ${row.status}`);
      const bucket = await bucketFor(ctx, row.organizationId);
      const info = await ctx.storage.head(bucket, row.stagingKey);
      if (!info) throw errors.badRequest(`No uploaded file found for "${row.filename}": PUT it to the upload URL before starting`, 'object_not_found');
      if (info.size > MAX_IMPORT_BYTES) throw errors.tooLarge(`The file is ${info.size} bytes; at most ${MAX_IMPORT_BYTES} are accepted`);
      if (info.size > row.size) {
        await dropUpload(ctx, row);
        throw apiError('import_size_mismatch', `The uploaded file is ${info.size} bytes; the import was reserved for ${row.size}. Reserve a new import with the file's size`);
      }
      const started = await ctx.db.transaction(async (tx) => {
        const [claimed] = await tx
          .update(imports)
          .set({ status: 'queued', updatedAt: new Date() })
          .where(and(eq(imports.id, row.id), eq(imports.status, 'uploading')))
          .returning();
        if (!claimed) return false;
        const payload: ImportJobPayload = { import_id: row.id };
        await tx.insert(jobs).values({ id: randomUUID(), kind: IMPORT_JOB_KIND, organizationId: row.organizationId, payload: payload as unknown as Record<string, unknown>, status: 'queued', createdBy: userId });
        return true;
      });
      if (!started) throw apiError('import_started', 'The import has already started');
      queue.poke();
      return { import_id: row.id, status: 'queued' };
    },

    async get(userId, importId) {
      return importJson(await importFor(userId, importId));
    },

    async cancel(userId, importId) {
      const row = await importFor(userId, importId);
      await requireMember(ctx.db, userId, row.organizationId, 'images.upload', 'Import');
      await requireMember(ctx.db, userId, row.organizationId, 'annotations.write', 'Import');
      const now = new Date();
      // Queued: nothing is in flight, so it ends now (a worker that claims its job finds it ended).
      const [queued] = await ctx.db
        .update(imports)
        .set({ status: 'cancelled', cancelRequestedAt: now, updatedAt: now })
        .where(and(eq(imports.id, row.id), eq(imports.status, 'queued')))
        .returning();
      if (queued) {
        await dropUpload(ctx, queued);
        return importJson(queued);
      }
      // Running: only asked; the worker stops at its next image, finishes those in flight, writes
      // its report, then sets 'cancelled' (./run.ts). The first request's time is kept.
      const [asked] = await ctx.db
        .update(imports)
        .set({ cancelRequestedAt: sql`coalesce(${imports.cancelRequestedAt}, now())`, updatedAt: now })
        .where(and(eq(imports.id, row.id), eq(imports.status, 'running')))
        .returning();
      if (asked) return importJson(asked);
      const [current] = await ctx.db.select({ status: imports.status }).from(imports).where(eq(imports.id, row.id)).limit(1);
      throw apiError('import_not_active', `The import is ${current?.status ?? row.status}; only a queued or running import can be cancelled`);
    },

    async list(userId, projectId) {
      const project = await projectInOrg(ctx, userId, projectId, 'images.read');
      const rows = await ctx.db.select().from(imports).where(eq(imports.projectId, project.id)).orderBy(desc(imports.createdAt)).limit(LIST_LIMIT);
      return { imports: rows.map(importJson) };
    },
  };
}
