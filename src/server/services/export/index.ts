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
//   QUEUE_AHEAD entries wait in the queue (ZipSink.room), so a slow client slows the producer down
//   instead of buffering the dataset;
// - image files are piped from storage, at most QUEUE_AHEAD open at a time;
// - COCO needs one JSON document whose `images` and `annotations` lists span the whole export: both
//   lists are spooled to temporary files during the single pass and streamed into
//   annotations.json at the end (the export's temp directory is removed afterwards, also on abort).
// bench/export.bench.ts measures time and peak memory at 1k, 5k and 10k images.
//
// Zip layout (both formats):
//   images/<folder path>/<filename>             only with include_images
//   README.txt                                  what is inside, what was left out and why
// vellum (lossless, for a later import):
//   annotations/<folder path>/<filename>.json   {image, annotations (exactly as stored), version}
//   vellum.json                                 manifest: project, classes, folders, counts
// coco:
//   annotations.json                            {info, licenses, categories, images, annotations}
//
// Selection: scope 'selected' (image_ids of the project, archived or not), 'all_complete' (complete
// and not archived; the default), 'current_filters' (the images list's filters, same meaning as
// GET /projects/{id}/images: one folder when folder_path is given, not archived unless is_archived
// says otherwise). A request with image_ids and no scope is 'selected' (the SPA's call).
// Permission 'images.export': every role, viewers included (they can read all of it anyway).
// Selected ids of another organization's images answer 404 'Image not found'; ids of the
// organization's other projects are not part of the selection.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { once } from 'node:events';
import { and, asc, eq, gt, gte, ilike, inArray, lte, sql, type SQL } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { annotationDocuments, folders, images } from '../../db/schema';
import { readAnnotationsOf } from '../annotations';
import { errors } from '../../http/errors';
import { canonicalMime } from '../../../contract/images';
import { DEFAULT_EXPORT_SCOPE, VELLUM_EXPORT_VERSION, type ExportFormat, type ExportRequest, type ExportScope } from '../../../contract/export';
import { ObjectNotFoundError } from '../../storage/types';
import { loadKernelsNode, type Kernels } from '../../../kernels/node';
import { bucketFor, containsPattern, folderPathOrThrow, projectInOrg, refuseForeignImages, type ImageRow, type ProjectRow } from '../images';
import { toCoco } from './coco';
import { ZipWriter } from './zip';

export const EXPORT_BATCH_ROWS = 500;
/** Images whose annotations are fetched together: at most this many annotations, or images. */
const DOC_CHUNK_SHAPES = 15_000;
const DOC_CHUNK_ROWS = 100;
/** Zip entries queued ahead of the writer. */
const QUEUE_AHEAD = 4;

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

function selection(project: ProjectRow, req: ExportRequest): { scope: ExportScope; where: SQL } {
  const ids = req.image_ids ?? [];
  const scope: ExportScope = req.scope ?? (ids.length > 0 ? 'selected' : DEFAULT_EXPORT_SCOPE);
  const base = eq(images.projectId, project.id);
  if (scope === 'selected') {
    if (ids.length === 0) throw errors.badRequest(NO_SELECTION_MESSAGE, 'no_selection');
    return { scope, where: and(base, inArray(images.id, [...new Set(ids)]))! };
  }
  if (scope === 'all_complete') return { scope, where: and(base, eq(images.status, 'complete'), eq(images.isArchived, false))! };
  const f = req.filters ?? { is_archived: 'false' as const };
  const where: SQL[] = [base];
  const archived = f.is_archived ?? 'false';
  if (archived !== 'all') where.push(eq(images.isArchived, archived === 'true'));
  if (f.folder_path !== undefined) where.push(eq(images.virtualFolderPath, folderPathOrThrow(f.folder_path, 'filters.folder_path')));
  if (f.status) where.push(eq(images.status, f.status));
  if (f.search) where.push(ilike(images.filename, containsPattern(f.search)));
  if (f.mime_type) {
    const mime = canonicalMime(f.mime_type.includes('/') ? f.mime_type : `image/${f.mime_type === 'svg' ? 'svg+xml' : f.mime_type}`);
    if (!mime) throw errors.badRequest(`Unknown mime_type "${f.mime_type.slice(0, 100)}"`, 'invalid_mime_type');
    where.push(eq(images.mimeType, mime));
  }
  if (f.min_file_size !== undefined) where.push(gte(images.fileSize, f.min_file_size));
  if (f.max_file_size !== undefined) where.push(lte(images.fileSize, f.max_file_size));
  return { scope, where: and(...where)! };
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

/** One zip entry waiting for the writer: its whole content, or a stream of it (an image file). */
interface Pending {
  path: string;
  data: Buffer | Readable;
  compress: boolean;
}

/**
 * The zip being written into the response, with a bounded queue: room() waits while QUEUE_AHEAD
 * entries are waiting, so a slow client slows the producer down instead of buffering the dataset.
 */
class ZipSink {
  readonly out: PassThrough = new PassThrough();
  aborted = false;
  private failure: Error | null = null;
  private readonly zip: ZipWriter;
  /** Entries not yet written, the one being written first; their streams are destroyed when the client goes away. */
  private readonly queue: Pending[] = [];
  private pumping = false;
  private wake: (() => void) | null = null;

  constructor(tmpDir: string) {
    this.zip = new ZipWriter({ write: (chunk) => this.write(chunk), centralDirectoryPath: path.join(tmpDir, 'central-directory.bin') });
    this.out.on('close', () => {
      this.aborted = !this.out.writableFinished || this.aborted;
      if (this.aborted) {
        for (const e of this.queue) if (!Buffer.isBuffer(e.data)) e.data.destroy();
        this.queue.length = 0;
        this.zip.abandon();
      }
      this.notify();
    });
  }

  private notify(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  private check(): void {
    if (this.failure) throw this.failure;
    if (this.aborted) throw new ExportAborted();
  }

  private fail(err: Error): void {
    if (this.failure || this.aborted) return;
    this.failure = err;
    for (const e of this.queue) if (!Buffer.isBuffer(e.data)) e.data.destroy();
    this.out.destroy(err);
    this.notify();
  }

  /** Writes to the response, waiting while its buffer is full. */
  private async write(chunk: Buffer): Promise<void> {
    this.check();
    if (this.out.write(chunk)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.out.off('drain', done);
        this.out.off('close', done);
        resolve();
      };
      this.out.on('drain', done);
      this.out.on('close', done);
    });
    this.check();
  }

  private pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    void (async () => {
      while (this.queue.length > 0 && !this.aborted && !this.failure) {
        const e = this.queue[0]!;
        try {
          await this.zip.add(e.path, e.data, e.compress);
        } catch (err) {
          if (!this.aborted) this.fail(err as Error);
          break;
        }
        this.queue.shift();
        this.notify();
      }
      this.pumping = false;
      this.notify();
    })();
  }

  async room(): Promise<void> {
    while (this.queue.length >= QUEUE_AHEAD && !this.aborted && !this.failure) await new Promise<void>((resolve) => (this.wake = resolve));
    this.check();
  }

  add(data: Buffer | Readable, entryPath: string, compress: boolean): void {
    this.check();
    // A stream that fails while it waits ends the export at once (and never goes unhandled).
    if (!Buffer.isBuffer(data)) data.on('error', (err) => this.fail(err));
    this.queue.push({ path: entryPath, data, compress });
    this.pump();
  }

  async addText(entryPath: string, text: string | Buffer): Promise<void> {
    await this.room();
    this.add(typeof text === 'string' ? Buffer.from(text) : text, entryPath, true);
  }

  /** Writes what is queued, the central directory and the end records, and ends the response. */
  async end(): Promise<void> {
    while ((this.queue.length > 0 || this.pumping) && !this.aborted && !this.failure) await new Promise<void>((resolve) => (this.wake = resolve));
    this.check();
    await this.zip.finish();
    this.out.end();
    if (this.out.writableFinished || this.out.destroyed) return;
    // Finished, or closed early by a client that went away: either ends the wait.
    await new Promise<void>((resolve) => {
      this.out.once('finish', resolve);
      this.out.once('close', resolve);
    });
  }
}

class ExportAborted extends Error {
  constructor() {
    super('export aborted by the client');
  }
}

/** Appends JSON items, comma-separated, to a temporary file, respecting the file stream's backpressure. */
class Spool {
  private readonly file: fs.WriteStream;
  count = 0;
  constructor(readonly filePath: string) {
    this.file = fs.createWriteStream(filePath);
  }
  async push(text: string): Promise<void> {
    const ok = this.file.write(this.count === 0 ? text : `,\n${text}`);
    this.count += 1;
    if (!ok) await once(this.file, 'drain');
  }
  async close(): Promise<void> {
    this.file.end();
    await once(this.file, 'close');
  }
}

let kernelsPromise: Promise<Kernels> | null = null;
function kernels(): Promise<Kernels> {
  kernelsPromise ??= loadKernelsNode().catch((err: unknown) => {
    kernelsPromise = null;
    throw err;
  });
  return kernelsPromise;
}

interface RunState {
  ctx: AppContext;
  tmp: string;
  project: ProjectRow;
  format: ExportFormat;
  scope: ExportScope;
  includeImages: boolean;
  classFilter: Set<string> | null;
  name: string;
  bucket: string | null;
  where: SQL;
  first: Row[];
  kernels: Kernels | null;
}

/**
 * Validates the request, checks access and that something matches; then returns the file name and
 * the zip stream, which fills as it is read. Errors found before the first byte are ApiErrors.
 */
export async function prepareExport(ctx: AppContext, userId: string, req: ExportRequest): Promise<PreparedExport> {
  if (req.class_filter && req.class_filter.length === 0) throw errors.badRequest('Please select at least one class to export', 'no_classes_selected');
  if (req.name !== undefined && req.name.trim() === '') throw errors.badRequest('Export name must not be empty', 'invalid_export_name');
  const project = await projectInOrg(ctx, userId, req.project_id, 'images.export');
  const { scope, where } = selection(project, req);
  // Another organization's image among the selected ids: 404, as for the image itself.
  if (scope === 'selected') await refuseForeignImages(ctx.db, project.organizationId, req.image_ids ?? []);
  const first = await readBatch(ctx, where, null);
  if (first.length === 0) throw errors.badRequest(NO_IMAGES_MESSAGE, 'nothing_to_export');
  const bucket = req.include_images ? await bucketFor(ctx, project.organizationId) : null;
  let k: Kernels | null = null;
  if (req.format === 'coco') {
    try {
      k = await kernels();
    } catch (err) {
      ctx.log.error({ err }, 'could not load the wasm kernels for a COCO export');
      throw errors.unavailable('COCO export is not available right now (geometry kernels missing)');
    }
  }
  const name = (req.name ?? project.name).trim() || 'export';
  const filename = `${safeFileName(name)}_${req.format}.zip`;
  // The zip's central directory and COCO's spools; run() removes it when the zip has ended or was abandoned.
  const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'vellum-export-'));
  const sink = new ZipSink(tmp);
  const state: RunState = { ctx, tmp, project, format: req.format, scope, includeImages: req.include_images, classFilter: req.class_filter ? new Set(req.class_filter) : null, name, bucket, where, first, kernels: k };
  void run(state, sink).catch((err: unknown) => {
    if (err instanceof ExportAborted) return;
    ctx.log.error({ err, projectId: project.id }, 'export failed while streaming');
    sink.out.destroy(err as Error);
  });
  return { filename, stream: sink.out };
}

/** README lists stop after this many lines each ('... and N more'): memory stays bounded. */
export const README_LIST_MAX = 10_000;

function note(list: string[], line: string): void {
  if (list.length < README_LIST_MAX) list.push(line);
}

function listed(lines: string[], list: string[], total: number): void {
  lines.push(...list);
  if (total > list.length) lines.push(`... and ${total - list.length} more`);
}

interface Report {
  images: number;
  annotations: number;
  polylines: string[]; // README lines (at most README_LIST_MAX each)
  polylineLines: number;
  polylineCount: number;
  missingFiles: string[];
  missingCount: number;
  invalid: string[];
  invalidCount: number;
}

async function run(s: RunState, sink: ZipSink): Promise<void> {
  try {
    const report: Report = { images: 0, annotations: 0, polylines: [], polylineLines: 0, polylineCount: 0, missingFiles: [], missingCount: 0, invalid: [], invalidCount: 0 };
    const coco = s.format === 'coco' ? new CocoWriter(s, s.tmp) : null;
    let batch = s.first;
    while (batch.length > 0) {
      for (const chunk of docChunks(batch)) {
        // Every image is asked for: the counter only sizes the chunks, it never decides what is exported.
        const docs = await readAnnotationsOf(s.ctx.db, chunk.map((r) => r.image.id), s.classFilter);
        for (const { image, version } of chunk) {
          if (sink.aborted) throw new ExportAborted();
          const kept = docs.get(image.id) ?? [];
          docs.delete(image.id);
          const rel = relativeImagePath(image);
          report.images += 1;
          if (coco) {
            await coco.image(image, rel, kept, report);
          } else {
            report.annotations += kept.length;
            await sink.addText(`annotations/${rel}.json`, JSON.stringify(vellumImageDocument(image, kept, version), null, 2));
          }
          if (s.includeImages && s.bucket) await addImageFile(s, sink, image, rel, report);
        }
      }
      if (batch.length < EXPORT_BATCH_ROWS) break;
      batch = await readBatch(s.ctx, s.where, batch[batch.length - 1]!.image.filename);
    }
    if (coco) {
      await coco.finish(sink);
    } else {
      await sink.addText('vellum.json', JSON.stringify(await vellumManifest(s, report), null, 2));
    }
    await sink.addText('README.txt', readme(s, report));
    await sink.end();
  } finally {
    await fsp.rm(s.tmp, { recursive: true, force: true }).catch(() => undefined);
  }
}

async function addImageFile(s: RunState, sink: ZipSink, image: ImageRow, rel: string, report: Report): Promise<void> {
  await sink.room();
  let body: Readable;
  try {
    body = (await s.ctx.storage.get(s.bucket!, image.gcsPath)).body;
  } catch (err) {
    if (!(err instanceof ObjectNotFoundError)) throw err;
    report.missingCount += 1;
    note(report.missingFiles, `images/${rel}`);
    return;
  }
  // Image formats are compressed already: stored, not deflated again.
  sink.add(body, `images/${rel}`, image.mimeType === 'image/svg+xml' || image.mimeType === 'image/bmp');
}

// --- vellum format

export function vellumImageDocument(image: ImageRow, annotations: unknown[], version: number) {
  return {
    image: {
      id: image.id,
      filename: image.filename,
      folder: image.virtualFolderPath,
      width: image.imageWidth,
      height: image.imageHeight,
      status: image.status,
      is_edited: image.isEdited,
      is_archived: image.isArchived,
      mime_type: image.mimeType,
      file_size: image.fileSize,
    },
    annotations,
    version,
  };
}

async function vellumManifest(s: RunState, report: Report) {
  const folderRows = await s.ctx.db.select({ path: folders.fullPath, name: folders.name }).from(folders).where(eq(folders.projectId, s.project.id)).orderBy(asc(folders.fullPath));
  return {
    format: 'vellum',
    version: VELLUM_EXPORT_VERSION,
    exported_at: new Date().toISOString(),
    name: s.name,
    project: {
      name: s.project.name,
      description: s.project.description,
      classes: s.project.classes.filter((c) => !s.classFilter || s.classFilter.has(c.name)).map(({ name, type, color }) => ({ name, type, color })),
      annotation_types: s.project.annotationTypes,
    },
    folders: folderRows.map((f) => f.path),
    scope: s.scope,
    class_filter: s.classFilter ? [...s.classFilter] : null,
    include_images: s.includeImages,
    image_count: report.images,
    annotation_count: report.annotations,
  };
}

// --- COCO

class CocoWriter {
  private readonly imagesSpool: Spool;
  private readonly annotationsSpool: Spool;
  private readonly categories = new Map<string, { id: number; name: string; supercategory: string; keypoints?: string[]; skeleton?: number[][] }>();
  private nextImageId = 1;
  private nextAnnotationId = 1;

  constructor(
    private readonly s: RunState,
    tmp: string,
  ) {
    this.imagesSpool = new Spool(path.join(tmp, 'images.jsonl'));
    this.annotationsSpool = new Spool(path.join(tmp, 'annotations.jsonl'));
    for (const c of s.project.classes) {
      if (s.classFilter && !s.classFilter.has(c.name)) continue;
      this.category(c.name, c.type === 'keypoint');
    }
  }

  private category(name: string, keypoint: boolean) {
    let c = this.categories.get(name);
    if (!c) {
      c = { id: this.categories.size + 1, name, supercategory: '' };
      this.categories.set(name, c);
    }
    if (keypoint && !c.keypoints) {
      c.keypoints = ['point'];
      c.skeleton = [];
    }
    return c;
  }

  async image(image: ImageRow, rel: string, annotations: unknown[], report: Report): Promise<void> {
    const id = this.nextImageId++;
    const size = image.imageWidth && image.imageHeight ? { width: image.imageWidth, height: image.imageHeight } : null;
    await this.imagesSpool.push(JSON.stringify({ id, file_name: `images/${rel}`, width: image.imageWidth ?? 0, height: image.imageHeight ?? 0 }));
    const polylines = new Map<string, number>();
    for (const raw of annotations) {
      if (!raw || typeof raw !== 'object') continue;
      const a = raw as Record<string, unknown>;
      const className = String(a.name ?? '');
      let converted;
      try {
        converted = toCoco(a, size, this.s.kernels!);
      } catch (err) {
        converted = { kind: 'invalid' as const, reason: (err as Error).message };
      }
      if (converted.kind === 'polyline') {
        polylines.set(className, (polylines.get(className) ?? 0) + 1);
        continue;
      }
      if (converted.kind === 'invalid') {
        report.invalidCount += 1;
        note(report.invalid, `images/${rel}\t${className}\t${String(a.id ?? '')}\t${converted.reason}`);
        continue;
      }
      const category = this.category(className, converted.kind === 'keypoint');
      report.annotations += 1;
      await this.annotationsSpool.push(JSON.stringify({ id: this.nextAnnotationId++, image_id: id, category_id: category.id, ...converted.body }));
    }
    for (const [cls, n] of polylines) {
      report.polylineCount += n;
      report.polylineLines += 1;
      note(report.polylines, `images/${rel}\t${cls}\t${n}`);
    }
  }

  async finish(sink: ZipSink): Promise<void> {
    await this.imagesSpool.close();
    await this.annotationsSpool.close();
    const info = { description: this.s.name, version: '1.0', year: new Date().getUTCFullYear(), contributor: 'Vellum', date_created: new Date().toISOString() };
    const head = `{"info":${JSON.stringify(info)},"licenses":[],"categories":${JSON.stringify([...this.categories.values()])},\n"images":[\n`;
    const imagesPath = this.imagesSpool.filePath;
    const annotationsPath = this.annotationsSpool.filePath;
    async function* body() {
      yield Buffer.from(head);
      for await (const chunk of fs.createReadStream(imagesPath)) yield chunk as Buffer;
      yield Buffer.from('\n],\n"annotations":[\n');
      for await (const chunk of fs.createReadStream(annotationsPath)) yield chunk as Buffer;
      yield Buffer.from('\n]}\n');
    }
    await sink.room();
    // The spools are read while the entry is written; run() removes them only after the zip ended.
    sink.add(Readable.from(body()), 'annotations.json', true);
  }
}

function readme(s: RunState, report: Report): string {
  const lines: string[] = [];
  lines.push(`${s.name} - exported from Vellum project "${s.project.name}" on ${new Date().toISOString()}`);
  lines.push(`Format: ${s.format}. Scope: ${s.scope}. Images: ${report.images}. Annotations: ${report.annotations}.`);
  lines.push(`Classes: ${s.classFilter ? [...s.classFilter].join(', ') : 'all'}. Image files included: ${s.includeImages ? 'yes' : 'no'}.`);
  lines.push('');
  if (s.format === 'coco') {
    lines.push('Layout: annotations.json (COCO instances: info, licenses, categories, images, annotations)');
    lines.push('        images/<folder path>/<filename> (when image files are included; file_name in annotations.json is this path)');
    lines.push('');
    lines.push('Shapes: boxes as bbox with the box as a polygon segmentation; polygons as polygon segmentations (area by shoelace);');
    lines.push('polygons with holes and masks as compressed RLE (pycocotools format, iscrowd 0, area from the mask);');
    lines.push("keypoints as keypoints [x, y, 2] in categories with keypoints ['point'] (bbox [x, y, 0, 0], area 0,");
    lines.push('segmentation the point as a zero-area polygon [[x, y, x, y, x, y]] so segm tooling loads it).');
    lines.push('');
    if (report.polylineCount > 0) {
      lines.push(`Polylines: COCO has no open paths, so ${report.polylineCount} polyline annotation(s) were left out:`);
      lines.push('image\tclass\tcount');
      listed(lines, report.polylines, report.polylineLines);
    } else {
      lines.push('Polylines: none left out.');
    }
  } else {
    lines.push('Layout: vellum.json (manifest: project, classes, folders, counts)');
    lines.push('        annotations/<folder path>/<filename>.json ({image, annotations exactly as stored, version})');
    lines.push('        images/<folder path>/<filename> (when image files are included)');
  }
  if (report.invalidCount) {
    lines.push('');
    lines.push(`Annotations that could not be converted (${report.invalidCount}):`);
    listed(lines, report.invalid, report.invalidCount);
  }
  if (report.missingCount) {
    lines.push('');
    lines.push(`Image files missing from storage, not included (${report.missingCount}):`);
    listed(lines, report.missingFiles, report.missingCount);
  }
  return `${lines.join('\n')}\n`;
}
