// Dataset export: POST /api/v1/annotations/export answers a zip that is written while it is sent.
//
// Memory stays flat whatever the project's size:
// - image rows are read in keyset batches of 500 (by filename, unique in a project); annotation
//   documents for a batch in chunks bounded by their stored size, so a batch of dense images never
//   sits in memory at once;
// - the zip is written straight into the response by ZipWriter (./zip.ts), one entry after another;
//   each entry's central directory record goes to a temporary file as soon as the entry is done,
//   so nothing per entry stays in memory (yazl, used before, kept every entry and its source stream
//   until the end: ~3 KB of heap per entry, +86 MB of RSS at 10k images with their files); at most
//   a few entries wait in the queue (ZipSink.room, ./sink.ts), so a slow client slows the producer
//   down instead of buffering the dataset;
// - image files up to 8 MiB are read whole (one read into one buffer), a few ahead of the one being
//   written (QUEUE_AHEAD); larger ones are piped from storage;
// - what must span the whole export but is written at its end (COCO's images and annotations
//   lists, VOC's image set) is spooled to temporary files during the single pass (the export's temp
//   directory is removed afterwards, also on abort); YOLO's and VOC's renamings are decided by
//   one query before the first byte (formats/write-common.ts sharedStems).
// bench/export.bench.ts measures time and peak memory at 1k, 5k and 10k images.
//
// Time: the loop over images and each writer's loop over an image's annotations pause on the
// export's time slice (../../offload/slice.ts) every 15 ms, so a 10k-image export or an image of
// 10,000 shapes never holds the event loop for long (bench/heavy-work.bench.ts). Zipping itself
// (deflate, CRC) runs in zlib on libuv's threads.
//
// This file selects the images and runs the loop; each format's layout is its writer's, looked up in
// ../../formats/index.ts WRITERS (see the header of each): formats/vellum/write.ts (lossless, for a
// later import), formats/coco/write.ts (annotations.json), formats/yolo/write.ts (Ultralytics:
// data.yaml, images/, labels/), formats/voc/write.ts (Pascal VOC: Annotations/, JPEGImages/,
// ImageSets/Main/default.txt). Every zip has a README.txt: what is inside, what was left out and why.
// Training options: `split` (./split.ts decides each image's split before the first byte; the
// writers lay the splits out), `yolo_task`, `mask_format`. `progress_id` makes the run count its
// images for GET /annotations/export/progress (./progress.ts).
//
// Selection: scope 'selected' (image_ids of the project, archived or not), 'all_complete' (complete
// and not archived; the default), 'all' (every image not archived, in every folder: the dialog's
// "All images" at the root), 'current_filters' (the images list's filters, by the module the list
// uses, ../image-filter.ts: one folder when folder_path is given, with its sub-folders when
// include_subfolders is true, not archived unless is_archived says otherwise). A request with
// image_ids and no scope is 'selected' (the SPA's call). POST /annotations/export/count answers how
// many images the same request would export (the dialog shows it before the export starts);
// README.txt states the scope in words and the count.
// Permission 'images.export': every role, viewers included (they can read all of it anyway).
// Selected ids of another organization's images answer 404 'Image not found'; ids of the
// organization's other projects are not part of the selection.
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { and, asc, count, eq, gt, inArray, sql, type SQL } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { annotationDocuments, images } from '../../db/schema';
import { readAnnotationsOf } from '../annotations';
import { errors } from '../../errors';
import { DEFAULT_EXPORT_SCOPE, type ExportCountResponse, type ExportRequest, type ExportScope } from '../../../contract/export';
import { ObjectNotFoundError } from '../../storage/types';
import { loadKernelsNode, type Kernels } from '../../../kernels/node';
import { projectInOrg } from '../access';
import { refuseForeignImages, type ImageRow, type ProjectRow } from '../images';
import { bucketFor } from '../stored-objects';
import { imageFilter } from '../image-filter';
import { WRITERS } from '../../formats';
import { ExportAborted, ZipSink } from './sink';
import { newReport, type FormatWriter, type Report, type RunState } from '../../formats/write-common';
import { timeSlice } from '../../offload/slice';
import { checkSplit, planSplit, splitReadme } from './split';
import { endTracking, trackExport, type ExportProgress } from './progress';

export { README_LIST_MAX } from '../../formats/write-common';

export const EXPORT_BATCH_ROWS = 500;
/** Images whose annotations are fetched together: at most this many annotations, or images. */
const DOC_CHUNK_SHAPES = 15_000;
const DOC_CHUNK_ROWS = 100;

export const NO_IMAGES_MESSAGE = 'No images to export with the current selection';
export const NO_SELECTION_MESSAGE = 'Please select images to export';

export interface PreparedExport {
  filename: string;
  stream: Readable;
}

type Row = { image: ImageRow; version: number };

/** A name safe as a file name on every platform: no separators, reserved or control characters. */
export function safeFileName(name: string): string {
  // eslint-disable-next-line no-control-regex
  const cleaned = name.replace(/[\u0000-\u001f\u007f<>:"/\\|?*]+/g, '_').trim();
  return cleaned.replace(/^\.+/, '_') || 'export';
}

/** Content-Disposition for a download: an ASCII fallback plus the UTF-8 name (RFC 6266 / 5987). */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

/** Path of an image inside the zip, below `images/` or `annotations/`: '<folder path>/<filename>'. */
export function relativeImagePath(row: Pick<ImageRow, 'virtualFolderPath' | 'filename'>): string {
  const folder = row.virtualFolderPath === '/' ? '' : `${row.virtualFolderPath.replace(/^\/+/, '')}/`;
  return `${folder}${row.filename}`;
}

function selection(project: ProjectRow, req: ExportRequest, userId: string): { scope: ExportScope; where: SQL; describe: string } {
  const ids = req.image_ids ?? [];
  const scope: ExportScope = req.scope ?? (ids.length > 0 ? 'selected' : DEFAULT_EXPORT_SCOPE);
  const base = eq(images.projectId, project.id);
  if (scope === 'selected') {
    if (ids.length === 0) throw errors.badRequest(NO_SELECTION_MESSAGE, 'no_selection');
    return { scope, where: and(base, inArray(images.id, [...new Set(ids)]))!, describe: 'the images selected' };
  }
  if (scope === 'all_complete') return { scope, where: and(base, eq(images.status, 'complete'), eq(images.isArchived, false))!, describe: 'every complete image not archived, in every folder' };
  if (scope === 'all') return { scope, where: and(base, eq(images.isArchived, false))!, describe: 'every image not archived, in every folder' };
  // The images list's filters, by the list's own module: the same images for the same filters.
  const { where, described } = imageFilter(project.id, req.filters ?? { is_archived: 'false' }, userId, 'filters.folder_path');
  return { scope, where, describe: `the images filtered: ${described.join(', ')}` };
}

/** The request's project (access checked) and images; the ids of a selection are checked to be the organization's (404). */
async function selectImages(ctx: AppContext, userId: string, req: ExportRequest) {
  const project = await projectInOrg(ctx, userId, req.project_id, 'images.export');
  const selected = selection(project, req, userId);
  // Another organization's image among the selected ids: 404, as for the image itself.
  if (selected.scope === 'selected') await refuseForeignImages(ctx.db, project.organizationId, req.image_ids ?? []);
  return { project, ...selected };
}

/** POST /annotations/export/count: how many images the same request would export, without starting it. */
export async function countExport(ctx: AppContext, userId: string, req: ExportRequest): Promise<ExportCountResponse> {
  const { scope, where } = await selectImages(ctx, userId, req);
  return { success: true, scope, image_count: await countOf(ctx, where) };
}

async function countOf(ctx: AppContext, where: SQL): Promise<number> {
  const [row] = await ctx.db.select({ n: count() }).from(images).where(where);
  return Number(row?.n ?? 0);
}

async function readBatch(ctx: AppContext, where: SQL, after: string | null): Promise<Row[]> {
  return ctx.db
    .select({ image: images, version: sql<number>`coalesce(${annotationDocuments.version}, 0)`.mapWith(Number) })
    .from(images)
    .leftJoin(annotationDocuments, eq(annotationDocuments.imageId, images.id))
    .where(after === null ? where : and(where, gt(images.filename, after)))
    .orderBy(asc(images.filename))
    .limit(EXPORT_BATCH_ROWS);
}

/** Splits a batch into chunks whose annotations are fetched together. */
function docChunks(rows: Row[]): Row[][] {
  const chunks: Row[][] = [];
  let current: Row[] = [];
  let shapes = 0;
  for (const r of rows) {
    if (current.length > 0 && (shapes + r.image.annotationCount > DOC_CHUNK_SHAPES || current.length >= DOC_CHUNK_ROWS)) {
      chunks.push(current);
      current = [];
      shapes = 0;
    }
    current.push(r);
    shapes += r.image.annotationCount;
  }
  if (current.length) chunks.push(current);
  return chunks;
}

let kernelsPromise: Promise<Kernels> | null = null;
function kernels(): Promise<Kernels> {
  kernelsPromise ??= loadKernelsNode().catch((err: unknown) => {
    kernelsPromise = null;
    throw err;
  });
  return kernelsPromise;
}

/**
 * Validates the request, checks access and that something matches; then returns the file name and
 * the zip stream, which fills as it is read. Errors found before the first byte are ApiErrors.
 */
export async function prepareExport(ctx: AppContext, userId: string, req: ExportRequest): Promise<PreparedExport> {
  if (req.class_filter && req.class_filter.length === 0) throw errors.badRequest('Please select at least one class to export', 'no_classes_selected');
  if (req.name !== undefined && req.name.trim() === '') throw errors.badRequest('Export name must not be empty', 'invalid_export_name');
  if (req.split) checkSplit(req.split);
  const { project, scope, where, describe } = await selectImages(ctx, userId, req);
  const first = await readBatch(ctx, where, null);
  if (first.length === 0) throw errors.badRequest(NO_IMAGES_MESSAGE, 'nothing_to_export');
  const bucket = req.include_images ? await bucketFor(ctx, project.organizationId) : null;
  let k: Kernels | null = null;
  const format = WRITERS[req.format];
  if (format.needsKernels) {
    try {
      k = await kernels();
    } catch (err) {
      ctx.log.error({ err }, `could not load the wasm kernels for a ${req.format} export`);
      throw errors.unavailable(`${format.name} export is not available right now (geometry kernels missing)`);
    }
  }
  const name = (req.name ?? project.name).trim() || 'export';
  const filename = `${safeFileName(name)}_${req.format}.zip`;
  // The zip's central directory and the writers' spools; run() removes it when the zip has ended or was abandoned.
  const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'vellum-export-'));
  const sink = new ZipSink(tmp);
  const classFilter = req.class_filter ? new Set(req.class_filter) : null;
  const s: RunState = {
    ctx,
    tmp,
    project,
    format: req.format,
    scope,
    scopeText: describe,
    includeImages: req.include_images,
    predictions: { include: req.include_predictions, leftOut: 0 },
    classFilter,
    name,
    where,
    kernels: k,
    sink,
    report: newReport(),
    slice: timeSlice(),
    split: null,
    yoloTask: req.yolo_task,
    maskFormat: req.mask_format ?? 'rle',
  };
  let writer: FormatWriter;
  try {
    if (req.split) s.split = await planSplit(s, req.split);
    writer = await format.create(s);
  } catch (err) {
    sink.out.destroy();
    await fsp.rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    throw err;
  }
  const progress = req.progress_id ? trackExport(project.id, req.progress_id, s.split ? s.split.names.reduce((n, k) => n + s.split!.counts[k], 0) : await countOf(ctx, where)) : null;
  void run(s, writer, first, bucket, progress).then(
    () => endTracking(project.id, req.progress_id, progress, 'done'),
    (err: unknown) => {
      endTracking(project.id, req.progress_id, progress, err instanceof ExportAborted ? 'cancelled' : 'failed');
      if (err instanceof ExportAborted) return;
      ctx.log.error({ err, projectId: project.id }, 'export failed while streaming');
      sink.out.destroy(err as Error);
    },
  );
  return { filename, stream: sink.out };
}

async function run(s: RunState, writer: FormatWriter, first: Row[], bucket: string | null, progress: ExportProgress | null): Promise<void> {
  const { sink, report } = s;
  try {
    let batch = first;
    while (batch.length > 0) {
      for (const chunk of docChunks(batch)) {
        // Every image is asked for: the counter only sizes the chunks, it never decides what is exported.
        const docs = await readAnnotationsOf(s.ctx.db, chunk.map((r) => r.image.id), s.classFilter);
        for (const { image, version } of chunk) {
          if (sink.aborted) throw new ExportAborted();
          if (s.slice.due()) await s.slice.pause();
          const kept = withoutPending(s, docs.get(image.id) ?? []);
          docs.delete(image.id);
          const rel = relativeImagePath(image);
          report.images += 1;
          await writer.image(image, rel, kept, version);
          if (s.includeImages && bucket) await addImageFile(s, bucket, image, writer.imagePath(image, rel));
          if (progress) progress.imagesWritten = report.images;
        }
      }
      if (batch.length < EXPORT_BATCH_ROWS) break;
      batch = await readBatch(s.ctx, s.where, batch[batch.length - 1]!.image.filename);
    }
    await writer.finish();
    await sink.drained(); // the image files read ahead are written, or known to be missing, before README.txt lists them
    await sink.addText('README.txt', readme(s, writer));
    await sink.end(() => {
      if (progress) progress.state = 'done';
    });
  } finally {
    await fsp.rm(s.tmp, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * An image file up to this size is read whole, in one read into one buffer, and written as one
 * piece (a larger one is streamed): the files queued ahead (QUEUE_AHEAD in ./sink.ts) bound the
 * memory this takes.
 */
const WHOLE_FILE_MAX = 8 * 1024 * 1024;

/** Queues an image file, read while the entries before it are written; a file gone from storage is reported missing. */
async function addImageFile(s: RunState, bucket: string, image: ImageRow, entryPath: string): Promise<void> {
  await s.sink.room();
  const read = s.ctx.storage.getBytes(bucket, image.gcsPath, WHOLE_FILE_MAX).catch((err: unknown) => {
    if (err instanceof ObjectNotFoundError) return null;
    throw err;
  });
  // Image formats are compressed already: stored, not deflated again.
  s.sink.addFile(entryPath, read, image.mimeType === 'image/svg+xml' || image.mimeType === 'image/bmp', () => s.report.missing.add(entryPath));
}

/** The annotations an export writes: pending model predictions (issue 34) only when the request includes them. */
function withoutPending(s: RunState, list: Record<string, unknown>[]): Record<string, unknown>[] {
  if (s.predictions.include) return list;
  const kept = list.filter((a) => (a.source as { pending?: unknown } | undefined)?.pending !== true);
  s.predictions.leftOut += list.length - kept.length;
  return kept;
}

function readme(s: RunState, writer: FormatWriter): string {
  const report: Report = s.report;
  const lines: string[] = [];
  lines.push(`${s.name} - exported from Vellum project "${s.project.name}" on ${new Date().toISOString()}`);
  lines.push(`Format: ${s.format}. Scope: ${s.scope} (${s.scopeText}). Images: ${report.images}. Annotations: ${report.annotations}.`);
  lines.push(`Classes: ${s.classFilter ? [...s.classFilter].join(', ') : 'all'}. Image files included: ${s.includeImages ? 'yes' : 'no'}.`);
  lines.push(
    s.predictions.include
      ? 'Model predictions not yet reviewed (pending): included, with their source {model_id, score, pending}.'
      : `Model predictions not yet reviewed (pending): left out (${s.predictions.leftOut}); export with include_predictions to include them. Accepted predictions are exported.`,
  );
  lines.push(...splitReadme(s.split));
  lines.push('');
  lines.push(...writer.readme());
  if (report.invalid.count) {
    lines.push('');
    lines.push(`Annotations that could not be converted (${report.invalid.count}):`);
    report.invalid.list(lines);
  }
  if (report.missing.count) {
    lines.push('');
    lines.push(`Image files missing from storage, not included (${report.missing.count}):`);
    report.missing.list(lines);
  }
  return `${lines.join('\n')}\n`;
}
