// Running one import (a `jobs` row of kind 'import' whose payload names an `imports` row).
//
// 1. The uploaded file is copied from storage to a private temporary directory (streamed) and
//    opened as an archive (./archive.ts: unsafe names and zip bombs are refused there).
// 2. The format is the one asked for, or the first reader whose detect() says yes. The reader
//    goes through the whole dataset once without writing anything (dryRun, on an offload thread:
//    ./read-through.ts), so bad input ends the import before anything is added: never half an
//    import.
// 3. Classes the dataset declares are matched to the project's by name (case-insensitively);
//    missing ones are added (the importer's role needs classes.edit for that).
// 4. One image at a time: a project image of the same file name is matched (its bytes are not
//    uploaded again); else the archive's bytes go through exactly an upload's checks
//    (registerImage with a local file: type from bytes, pixel cap, SVG rules, thumbnail, tiles);
//    else the image is skipped, saying so. Its annotations are converted (./convert.ts), checked
//    with the one stored-annotation validator and saved like the editor's saves (saveChanges):
//    counters, history, status. Ids are derived from the import, the file and the position, so a
//    resumed import replaces what it wrote before instead of adding it twice.
// 5. As images finish the row records done/total (one write at a time, ./progress.ts) and the report of the images up to `done` (each
//    image records into its own report, merged in order); a resumed import skips the images
//    already done and counts each of the others once. Bad input ends the import as 'failed' with its message; the report of
//    what was done until then stays.
import fsp from 'node:fs/promises';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core';
import type { AppContext } from '../../context';
import { LeaseLost, StopRequested, type JobRow } from '../../jobs/queue';
import { images, imports, jobs, projects } from '../../db/schema';
import { ApiError } from '../../errors';
import type { AnnotationType, ProjectClass } from '../../../contract/projects';
import { fittingAttributes } from '../../../contract/annotations-attributes';
import { ENDED_IMPORT_STATUSES, MAX_IMPORT_ENTRY_RATIO, MAX_SHAPES_PER_IMAGE, type ImportFormat, type ImportReport } from '../../../contract/imports';
import { ReportBuilder } from './report';
import { ROOT_PATH } from '../../../contract/folders';
import { sanitizeFilename } from '../../../contract/images';
import { printableText } from '../../../contract/text';
import { storedAnnotationIssue } from '../../../contract/annotation-check';
import { findSkeletonProblem, withDerivedBoxes } from '../../../contract/skeleton';
import { saveChanges } from '../annotations';
import { batchUpdate, setImageStatus } from '../images';
import { folderIdOf } from '../images/folder-path';
import { bucketFor } from '../stored-objects';
import { ensureFolderPath } from '../folders';
import { checkFilename, registerImage } from '../upload';
import { openImportFile, type OpenedArchive } from './archive';
import { dropTmpDir, freshTmpDir, ownReservation } from './resume';
import { checkClassCount, classKey, ensureClasses, type ClassTarget } from './classes';
import { importedId, refusedKeyPath, toStored } from './convert';
import { READERS, detectFormat } from '../../formats';
import { unpackLabels, type LabelParsing } from '../../formats/yolo/read';
import { timeSlice } from '../../offload/slice';
import { offload, OffloadCrashed } from '../../offload/pool';
import { importFolderPath, type ReadThrough } from './read-through';
import { ImportInputError, type ImportedAnnotation, type ImportedImage } from '../../formats/reader';
import { notifyProjectChanged } from '../../live/notify';
import { progressWriter } from './progress';

export type ImportRow = typeof imports.$inferSelect;
/** Images imported at once. */
const IMAGES_AT_ONCE = 3;
/**
 * How far past `done` (the images finished in order) a run may start an image while an earlier
 * one is still running: a run that dies leaves at most this many images added but not counted in
 * its saved report, which a resumed run imports again.
 */
const MAX_AHEAD = 4 * IMAGES_AT_ONCE;
/**
 * Annotations saved per version when an image brings many. With PGlite the database runs on the
 * event loop: one save of 10,000 shapes held it about 2 s (max event-loop delay importing a
 * 10,000-box image), saves of 1,000 about 0.25 s.
 */
const SAVE_CHUNK = 1_000;
/**
 * How long converting an image's shapes holds the event loop before it lets others run. A request
 * awaits the database a dozen times or more (a save: access, image, project, version, the
 * transaction's statements), and each answer may wait for the slice running when it arrives: a
 * short slice keeps that sum small (the default 15 ms of offload/slice.ts is for exports).
 */
const CONVERT_SLICE_MS = 5;
export interface ImportJobPayload {
  import_id: string;
}

interface Run {
  ctx: AppContext;
  row: ImportRow;
  userId: string;
  report: ReportBuilder;
  tmpDir: string;
  archive: OpenedArchive;
  /** The local copy of the upload (the dry run's thread opens it again). */
  file: string;
  /** classKey (the stored name, lower case) -> the project's class. */
  classes: Map<string, ProjectClass>;
  folders: Set<string>;
  /** Per lower-case file name, the end of the latest image creation under it (see sameName). */
  names: Map<string, Promise<void>>;
  /** A run of this import stopped before (kill -9, a lost lease): this one picks it up. */
  resumed: boolean;
  /** Whether the import was cancelled, and when that was last asked. */
  cancel: { seen: boolean; checkedAt: number };
  signal: AbortSignal;
  /** Image state the importer's role may not change ('stage', 'archive state'), warned about once. */
  stateRefused: Set<string>;
  /** True while this run's claim of the job stands (`heldBy`): every write of the import row carries it. */
  held: SQL;
}

/**
 * The condition that `job`'s claim still stands: the job is locked by the worker and with the
 * attempt that claimed it. A run whose lease lapsed and whose job another run took (another
 * process, or this one again after a stall) writes nothing more to the import: its progress would
 * go back, it would end an import the other run is still doing, and drop the upload that run reads.
 */
function heldBy(job: JobRow): SQL {
  return sql`EXISTS (SELECT 1 FROM ${jobs} WHERE ${jobs.id} = ${job.id} AND ${jobs.lockedBy} = ${job.lockedBy} AND ${jobs.attempts} = ${job.attempts})`;
}

/** Throws LeaseLost when this run's claim of the job no longer stands (the queue then leaves the job to its new holder). */
async function ensureHeld(ctx: AppContext, held: SQL): Promise<void> {
  const res = (await ctx.db.execute(sql`SELECT ${held} AS held`)) as unknown as { rows: { held: boolean }[] };
  if (!res.rows[0]?.held) throw new LeaseLost();
}

async function downloadStaged(ctx: AppContext, row: ImportRow, file: string): Promise<void> {
  const bucket = await bucketFor(ctx, row.organizationId);
  const { body } = await ctx.storage.get(bucket, row.stagingKey);
  await pipeline(body, fs.createWriteStream(file, { mode: 0o600 }));
}

/** Class type from the geometry (masks are drawn as polygons). */
function typeOf(a: ImportedAnnotation): AnnotationType {
  const t = a.shape.type;
  return t === 'mask' ? 'polygon' : t === 'skeleton' ? 'keypoint' : t;
}

/** The classes an image's shapes name, each once with the type of its first shape (10,000 shapes name a few classes). */
function classesOf(img: ImportedImage): { name: string; type: AnnotationType }[] {
  const types = new Map<string, AnnotationType>();
  for (const a of img.annotations) if (!types.has(a.class)) types.set(a.class, typeOf(a));
  return [...types].map(([name, type]) => ({ name, type }));
}

/** The project's classes the import may add to (./classes.ts). */
function classTarget(r: Run, persist: () => Promise<void>): ClassTarget {
  return { ctx: r.ctx, userId: r.userId, projectId: r.row.projectId, classes: r.classes, report: r.report, created: r.report.report.classes_created, persist };
}

/**
 * The project folder of a dataset's sub-folder, checked with the folder rules (the dry run calls
 * this for every folder, so a name the rules refuse fails the import before anything is added).
 */
function folderPathFor(r: Run, sub: string | undefined, where: string): string {
  return importFolderPath(r.row.folderPath, sub, where);
}

async function folderFor(r: Run, sub: string | undefined, where = 'the dataset'): Promise<string> {
  const folder = folderPathFor(r, sub, where);
  if (folder !== ROOT_PATH && !r.folders.has(folder)) {
    await ensureFolderPath(r.ctx, r.row.projectId, folder);
    r.folders.add(folder);
  }
  return folder;
}

/** The project image an imported one goes to: matched by file name, or created from the archive's bytes; null when skipped. */
async function targetImage(r: Run, img: ImportedImage, index: number): Promise<typeof images.$inferSelect | null> {
  const name = sanitizeFilename(img.fileName);
  // Labels alone attach to the project's image of that name, wherever it is; an image the archive
  // carries is matched only in the folder it goes to (a resumed import finds what it made), so
  // train/a.jpg and val/a.jpg stay two images (the second stored as a_1.jpg).
  const folder = img.entry ? await folderFor(r, img.folder, img.entry) : null;
  const [found] = name
    ? await r.ctx.db
        .select()
        .from(images)
        .where(and(eq(images.projectId, r.row.projectId), sql`lower(${images.filename}) = ${name.toLowerCase()}`, folder === null ? undefined : eq(images.virtualFolderPath, folder)))
        .limit(1)
    : [];
  if (found) {
    r.report.report.images_matched += 1;
    return found;
  }
  if (!img.entry || folder === null) {
    r.report.skip(img.fileName, 'no image of this name in the project, and the archive does not hold it');
    return null;
  }
  // Images of one name (train/a.png, val/a.png) are stored one after the other: check-filename
  // gives a caller its own reservation again, so two at once would both be handed "a.png".
  const entry = img.entry;
  return sameName(r, (name || img.fileName).toLowerCase(), () => createImage(r, { ...img, entry }, folder, name, index));
}

/** Runs `fn` after every earlier call for the same key has ended. */
async function sameName<T>(r: Run, key: string, fn: () => Promise<T>): Promise<T> {
  const before = r.names.get(key) ?? Promise.resolve();
  const run = before.then(fn, fn);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  r.names.set(key, tail);
  try {
    return await run;
  } finally {
    if (r.names.get(key) === tail) r.names.delete(key);
  }
}

async function createImage(r: Run, img: ImportedImage & { entry: string }, folder: string, name: string, index: number): Promise<typeof images.$inferSelect | null> {
  const local = path.join(r.tmpDir, `image-${index}${path.extname(img.entry).toLowerCase().replace(/[^.a-z0-9]/g, '')}`);
  await pipeline(await r.archive.open(img.entry), fs.createWriteStream(local, { mode: 0o600 }));
  try {
    // A resumed run takes back the name it was handed before it stopped (./resume.ts).
    const own = r.resumed ? await ownReservation(r.ctx, r.row, r.userId, name || img.fileName) : null;
    const unique_filename = own ?? (await checkFilename(r.ctx, r.userId, r.row.projectId, name || img.fileName)).unique_filename;
    const { image } = await registerImage(r.ctx, r.userId, r.row.projectId, { filename: unique_filename, folder_path: folder }, undefined, { localFile: local });
    if (unique_filename !== img.fileName) r.report.warn(`${img.fileName} was stored as ${unique_filename}`);
    r.report.report.images_created += 1;
    const [row] = await r.ctx.db.select().from(images).where(eq(images.id, image.id)).limit(1);
    return row ?? null;
  } catch (err) {
    if (err instanceof ApiError) {
      r.report.skip(img.entry, err.message);
      return null;
    }
    throw err;
  } finally {
    await fsp.rm(local, { force: true });
  }
}

/**
 * The stored annotations of one image, SAVE_CHUNK at a time, each converted and checked on its own
 * (a bad one is skipped with its reason, not the image).
 */
async function* storedChunks(r: Run, img: ImportedImage, size: { width: number; height: number }, budget: number): AsyncGenerator<Record<string, unknown>[]> {
  // Converting and checking 10,000 shapes holds the loop for a while: it pauses every CONVERT_SLICE_MS (offload/slice.ts).
  const slice = timeSlice(CONVERT_SLICE_MS);
  const file = img.entry ?? img.fileName;
  const stored = img.stored ?? [];
  // At most `budget` shapes: the rest are counted, never converted (a 5 KB zip of one YOLO line
  // repeated must not become 100,000 saved boxes).
  let taken = 0;
  let capped = false;
  const overBudget = (seen: number): boolean => {
    if (capped) return true;
    if (taken < budget) return false;
    capped = true;
    const rest = stored.length + img.annotations.length - seen;
    if (rest > 0) r.report.skip(file, `${rest} shape${rest === 1 ? '' : 's'} left out: at most ${MAX_SHAPES_PER_IMAGE.toLocaleString('en-US')} are kept per image`);
    return true;
  };
  if (img.width && img.height && (img.width !== size.width || img.height !== size.height)) {
    r.report.warn(`${file}: the dataset says ${img.width}x${img.height} pixels, the image has ${size.width}x${size.height}`);
  }
  const ids = new Set<string>();
  let chunk: Record<string, unknown>[] = [];
  const accept = (s: unknown, where: string) => {
    const refused = refusedKeyPath(s);
    if (refused) return r.report.skip(where, `the key "${refused.slice(0, 200)}" is refused, as the API refuses it`);
    withDerivedBoxes([s]);
    const issue = storedAnnotationIssue(s);
    const rec = s as { id?: unknown; name?: unknown };
    if (issue) return r.report.skip(where, issue.message);
    const cls = r.classes.get(classKey(String(rec.name)));
    if (!cls) return r.report.skip(where, `unknown class "${String(rec.name).slice(0, 100)}"`);
    // A skeleton class holds skeletons of its points only, and only it holds skeletons (the save would refuse the whole chunk).
    const skeleton = findSkeletonProblem([s], new Map([[String(rec.name), cls]]));
    if (skeleton) return r.report.skip(where, skeleton.message.replace(/^Annotation 0( \(id [^)]*\))?: /, ''));
    if (ids.has(rec.id as string)) return r.report.skip(where, `id "${String(rec.id).slice(0, 100)}" appears twice`);
    ids.add(rec.id as string);
    // Attributes that do not fit the class's definitions are left out (the shape is kept), saying which.
    const attrs = fittingAttributes((s as { attributes?: unknown }).attributes, cls);
    for (const name of attrs.dropped) r.report.warn(`${where}: attribute "${name.slice(0, 100)}" does not fit the definition of class "${cls.name}"; left out`);
    // Copied only when something changes (most shapes: converted already under the class's own name).
    const shape = s as Record<string, unknown>;
    chunk.push(shape.name === cls.name && !attrs.dropped.length ? shape : { ...shape, name: cls.name, ...(attrs.dropped.length ? { attributes: attrs.kept } : {}) });
    taken += 1;
  };
  for (const [i, s] of stored.entries()) {
    if (overBudget(i)) break;
    if (slice.due()) await slice.pause();
    accept(s, `${file} #${i + 1}`);
    if (chunk.length >= SAVE_CHUNK) {
      yield chunk;
      chunk = [];
    }
  }
  const hashed = await idsOf(r, img, file);
  for (const [i, a] of img.annotations.entries()) {
    if (overBudget(stored.length + i)) break;
    if (slice.due()) await slice.pause();
    const where = `${file} #${i + 1}`;
    const cls = r.classes.get(classKey(a.class));
    if (!cls) {
      r.report.skip(where, `unknown class "${a.class.slice(0, 100)}"`);
      continue;
    }
    const c = toStored(a, a.id ?? hashed[i] ?? importedId(r.row.id, file, i), cls.name, size, Boolean(img.normalized));
    if (!c.ok) {
      r.report.skip(where, c.reason);
      continue;
    }
    if (c.clipped) r.report.clipped += 1;
    accept(c.stored, where);
    if (chunk.length >= SAVE_CHUNK) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length) yield chunk;
}

/** Below this many shapes an image's ids are hashed in-line (posting a task costs more). */
const IDS_OFF_THREAD_FROM = 1_000;

/**
 * The imported ids of an image's shapes, by position: a SHA-256 each (importedId), hashed on an
 * offload thread for images of many shapes (10,000 took about 10 ms of the event loop). Empty
 * when few; positions past the per-image cap are hashed in-line if ever reached.
 */
async function idsOf(r: Run, img: ImportedImage, file: string): Promise<string[]> {
  const count = Math.min(img.annotations.length, 2 * MAX_SHAPES_PER_IMAGE);
  if (count < IDS_OFF_THREAD_FROM || img.annotations.every((a) => a.id !== undefined)) return [];
  // A thread that fails leaves the hashing to the loop below (the same ids).
  return offload('importedIds', [r.row.id, file, count]).catch(() => []);
}

async function importImage(r: Run, img: ImportedImage, index: number): Promise<void> {
  const target = await targetImage(r, img, index);
  if (!target) return;
  const size = { width: target.imageWidth ?? 0, height: target.imageHeight ?? 0 };
  if (!size.width || !size.height) {
    r.report.skip(img.fileName, 'the image size is unknown, so its annotations cannot be placed');
    return;
  }
  // In versions of SAVE_CHUNK shapes: one save of a large image held the loop (PGlite) and several times its size at once.
  // The image's own shapes count towards the cap (they stay; the import adds beside them).
  const budget = Math.max(0, MAX_SHAPES_PER_IMAGE - (target.annotationCount ?? 0));
  for await (const chunk of storedChunks(r, img, size, budget)) {
    await saveChanges(r.ctx, r.userId, { image_id: target.id, project_id: r.row.projectId, image_filename: target.filename, upserts: chunk, removed_ids: [] });
    r.report.report.annotations_created += chunk.length;
  }
  await keepImageState(r, img, target);
}

/**
 * The stage and archive flag a Vellum document records, set on the image (as the API sets them:
 * counters and workflow events). A role that may import but not stage or archive (an annotator)
 * leaves them as they are, with one warning per import instead of failing it.
 */
async function keepImageState(r: Run, img: ImportedImage, target: typeof images.$inferSelect): Promise<void> {
  const refused = (err: unknown, what: string) => {
    if (!(err instanceof ApiError && err.status === 403)) throw err;
    if (!r.stateRefused.has(what)) r.report.warn(`Your role cannot change images' ${what}: the dataset's ${what} was not applied`);
    r.stateRefused.add(what);
  };
  if (img.status && img.status !== target.status) await setImageStatus(r.ctx, r.userId, target.id, { status: img.status }).catch((err) => refused(err, 'stage'));
  if (img.archived !== undefined && img.archived !== target.isArchived) {
    await batchUpdate(r.ctx, r.userId, { image_ids: [target.id], project_id: r.row.projectId, updates: { is_archived: img.archived } }).catch((err) => refused(err, 'archive state'));
  }
}

/**
 * Writes the import row while this run's claim stands (`held`; `running`: only while the import
 * runs); throws LeaseLost when nothing was written because the claim no longer stands.
 */
async function save(ctx: AppContext, id: string, held: SQL, set: PgUpdateSetSource<typeof imports>, running = false): Promise<void> {
  const where = and(eq(imports.id, id), running ? eq(imports.status, 'running') : undefined, held);
  const written = await ctx.db.update(imports).set({ ...set, updatedAt: new Date() }).where(where).returning({ id: imports.id });
  if (written.length === 0) await ensureHeld(ctx, held);
}

function finalReport(r: Run): ImportReport {
  if (r.report.clipped > 0) r.report.warn(`${r.report.clipped} box${r.report.clipped === 1 ? ' was' : 'es were'} partly outside the image and clipped to it`);
  return r.report.report;
}

/**
 * Reads the whole dataset once without writing anything, so input that ends the import (malformed
 * JSON or XML deep in a file, an unreadable entry, a folder name the rules refuse, more classes
 * than a project may have) ends it before the first image or class is added: a bad archive is
 * reported, never half imported. The reading runs on an offload thread (./read-through.ts), so a
 * large archive never holds the request thread. Returns the number of images.
 */
async function dryRun(r: Run, format: ImportFormat): Promise<number> {
  let found: ReadThrough;
  try {
    found = await offload('importReadThrough', [r.file, r.row.filename, format, r.row.folderPath, await fsp.mkdtemp(path.join(r.tmpDir, 'check-'))]);
  } catch (err) {
    if (r.signal.aborted) throw r.signal.reason;
    const e = err as Error;
    if (e?.name === 'ImportInputError') throw new ImportInputError(e.message);
    // The dry run only reads the local copy of the upload: whatever else it throws (a stack
    // overflow on input nested past a reader's guard, a parser's own limit, a thread that ran out
    // of memory) would throw again on every retry, so it fails the import once, saying so,
    // instead of being retried as a crash.
    r.ctx.log.warn({ err, importId: r.row.id }, 'import: reading the dataset failed');
    const why = err instanceof OffloadCrashed ? 'its reading stopped: the file may be too large or too deeply nested' : String(e?.message ?? err).slice(0, 300);
    throw new ImportInputError(`The dataset could not be read (${why})`);
  }
  if (r.signal.aborted) throw r.signal.reason;
  for (const s of found.skipped) r.report.reading.skip(s.file, s.reason);
  for (const w of found.warnings) r.report.reading.warn(w);
  // Set, not added: before the first image nothing else counts past the cap, and a run resumed
  // before its first image may hold this same count from the run that died.
  r.report.report.skipped_more = found.skippedMore;
  r.report.report.warnings_more = found.warningsMore;
  // Every class the import would add, so a project it would take past its class limit fails now.
  checkClassCount([...r.classes.values()], found.classKeys);
  // The folder chosen when the import was made must still be there: renamed, moved or deleted
  // since, its images went to a new folder of the old name (ensureFolderPath makes what is missing).
  if (r.row.folderPath !== ROOT_PATH && !(await folderIdOf(r.ctx.db, r.row.projectId, r.row.folderPath))) {
    throw new ImportInputError(`The folder ${r.row.folderPath} no longer exists: it was renamed, moved or deleted after the import was made. Import again into the folder as it is now.`);
  }
  return found.images;
}

/** YOLO label files parsed on an offload thread in the real run (the dry run's thread parses in-line): 10,000 lines a file stay off the event loop. */
const labelsOffThread: LabelParsing = {
  parse: async (text, names, pose) => unpackLabels(await offload('yoloLabels', [text, [...names], pose]), names),
  classTypes: (text, names, pose) => offload('yoloClassTypes', [text, [...names], pose]),
};

/** How often a running import looks whether it was asked to stop (POST /imports/{id}/cancel). */
const CANCEL_CHECK_MS = 250;

/** True once a stop was asked for (or the import ended elsewhere); asks the database at most every CANCEL_CHECK_MS. */
async function cancelled(r: Run): Promise<boolean> {
  if (r.cancel.seen) return true;
  if (Date.now() - r.cancel.checkedAt < CANCEL_CHECK_MS) return false;
  r.cancel.checkedAt = Date.now();
  const [row] = await r.ctx.db.select({ status: imports.status, asked: imports.cancelRequestedAt }).from(imports).where(eq(imports.id, r.row.id)).limit(1);
  r.cancel.seen = !row || row.status !== 'running' || row.asked !== null;
  return r.cancel.seen;
}

/**
 * Ends an import that was asked to stop and whose run stopped before it could end it: a worker
 * that died (its lease lapsed, or it was interrupted too many times) or a server that stopped
 * cleanly. It is never resumed. `exact` is the report of a run that finished its images in flight
 * (a clean stop); otherwise the saved one stands, and since it counts the images up to `done` only,
 * while those past it (at most MAX_AHEAD) may have been added, the report says so. Returns whether it ended the import.
 */
export async function endStoppedCancel(ctx: AppContext, id: string, exact?: ImportReport): Promise<boolean> {
  const [row] = await ctx.db.select().from(imports).where(eq(imports.id, id)).limit(1);
  if (!row || row.status !== 'running' || row.cancelRequestedAt === null) return false;
  const report = new ReportBuilder(exact ?? (row.report as Partial<ImportReport>));
  const unsure = Math.min(MAX_AHEAD, Math.max(0, row.total - row.done));
  if (!exact && unsure > 0) {
    report.warn(`The server stopped while this import was being cancelled: up to ${unsure} image${unsure === 1 ? '' : 's'} it was adding then may be in the project, with their annotations, without being counted here`);
  }
  const [ended] = await ctx.db
    .update(imports)
    .set({ status: 'cancelled', report: report.report as unknown as Record<string, unknown>, updatedAt: new Date() })
    .where(and(eq(imports.id, id), eq(imports.status, 'running')))
    .returning();
  if (!ended) return false;
  await dropTmpDir(ctx, id);
  await dropUpload(ctx, ended);
  await notifyProjectChanged(ctx, ended.projectId);
  return true;
}

async function readDataset(r: Run, format: ImportFormat): Promise<void> {
  const reader = READERS.find((x) => x.format === format)!;
  // Asked to stop while the upload was copied: nothing was added, and reading it all through would only delay the end.
  if (await cancelled(r)) return;
  // A resumed import was read through before it began.
  const total = r.row.done === 0 ? await dryRun(r, format) : r.row.total;
  if (await cancelled(r)) return;
  const data = await reader.read(r.archive, { report: r.report.reading, tmpDir: await fsp.mkdtemp(path.join(r.tmpDir, 'read-')), signal: r.signal, yoloLabels: labelsOffThread });
  let index = 0;
  const skipTo = r.row.done;
  let done = skipTo;
  // Progress is written one write at a time, with the state as it is when the write starts
  // (./progress.ts): writes issued together could commit out of order and take `done` back.
  const progress = progressWriter();
  const saveProgress = () => progress.save(() => save(r.ctx, r.row.id, r.held, { done, total: Math.max(total, index), report: r.report.report as unknown as Record<string, unknown> }));
  const classes = classTarget(r, saveProgress);
  await ensureClasses(classes, data.classes);
  for (const f of data.folders ?? []) await folderFor(r, f);
  await save(r.ctx, r.row.id, r.held, { format, total: Math.max(total, skipTo) });
  // IMAGES_AT_ONCE images are imported at once (an image's checks, thumbnail and save wait on the
  // database, storage and sharp's threads); `done` only counts an image once every one before it
  // is done, so a resumed import never skips one that was still running. Each image records into
  // its own report, merged into the run's as `done` passes it: the saved report holds only what
  // images up to `done` brought, so an image finished out of order is not counted twice by a run
  // that resumes after `done` (created, then matched, its annotations again).
  const running = new Set<Promise<void>>();
  /** The reports of images started and not yet merged, in order. */
  const parts = new Map<number, ReportBuilder>();
  const finished = new Set<number>();
  let failure: unknown = null;
  const settle = async (i: number) => {
    finished.add(i);
    while (finished.delete(done + 1)) {
      done += 1;
      r.report.merge(parts.get(done)!);
      parts.delete(done);
    }
    await saveProgress();
  };
  try {
    for await (const img of data.images) {
      if (r.signal.aborted) throw r.signal.reason;
      if (await cancelled(r)) break;
      index += 1;
      if (index <= skipTo) continue;
      // Classes first, one image at a time: two images must not add the same class twice.
      await ensureClasses(classes, classesOf(img));
      const i = index;
      const part = new ReportBuilder(null);
      parts.set(i, part);
      const task: Promise<void> = importImage({ ...r, report: part }, img, i)
        .then(() => settle(i))
        .catch((err: unknown) => void (failure ??= err))
        .finally(() => running.delete(task));
      running.add(task);
      while (!failure && (running.size >= IMAGES_AT_ONCE || index - done >= MAX_AHEAD)) {
        await Promise.race(running);
        // After waiting on an image, the next one starts only after a fresh look for a cancel (a
        // cancel asked for while images were held must not let new ones start).
        r.cancel.checkedAt = 0;
      }
      if (failure) throw failure;
    }
  } finally {
    await Promise.all(running);
    // However the run ends (its last image, a cancel, a failure, a stop), its report counts every
    // image it touched, in order; only the saved progress waits for `done`.
    for (const part of parts.values()) r.report.merge(part);
  }
  if (failure) throw failure;
}

/** Runs the import of `job`; bad input ends it as failed with its message, anything else is retried by the queue. */
export async function processImport(ctx: AppContext, job: JobRow, signal: AbortSignal): Promise<void> {
  const { import_id: id } = job.payload as unknown as ImportJobPayload;
  const [found] = await ctx.db.select().from(imports).where(eq(imports.id, id)).limit(1);
  // A run that stopped while a cancel was pending is not picked up again: the import ends now.
  if (found?.status === 'running' && found.cancelRequestedAt !== null && (await endStoppedCancel(ctx, id))) return;
  // Only a queued or running import starts (a cancel may have ended a queued one since it was read).
  const [row] = found
    ? await ctx.db
        .update(imports)
        .set({ status: 'running', updatedAt: new Date() })
        .where(and(eq(imports.id, id), inArray(imports.status, ['queued', 'running'])))
        .returning()
    : [];
  if (!row) {
    if (found && (ENDED_IMPORT_STATUSES as readonly string[]).includes(found.status)) await dropUpload(ctx, found);
    return;
  }
  const resumed = found!.status === 'running';
  const tmpDir = await freshTmpDir(ctx, id);
  const report = new ReportBuilder(row.report as Partial<ImportReport>);
  let archive: OpenedArchive | null = null;
  const held = heldBy(job);
  // Set when the job was taken by another run: the directory is the import's, and that run's now.
  let lost = false;
  // The temporary files go before the import is said to have ended.
  const cleanUp = async () => {
    archive?.close();
    archive = null;
    if (!lost) await fsp.rm(tmpDir, { recursive: true, force: true });
  };
  try {
    const file = path.join(tmpDir, 'upload');
    await downloadStaged(ctx, row, file);
    archive = await openImportFile(file, row.filename, report.reading);
    const format = row.format !== 'auto' ? (row.format as ImportFormat) : await detectFormat(archive);
    if (!format) throw new ImportInputError(unrecognised(archive));
    const project = await ctx.db.select({ classes: projects.classes }).from(projects).where(eq(projects.id, row.projectId)).limit(1);
    const classes = new Map((project[0]?.classes ?? []).map((c) => [classKey(c.name), c]));
    const r: Run = { ctx, row, userId: row.createdBy!, report, tmpDir, archive, file, classes, folders: new Set(), names: new Map(), resumed, cancel: { seen: false, checkedAt: 0 }, signal, stateRefused: new Set(), held };
    await readDataset(r, format);
    await ensureHeld(ctx, held);
    await cleanUp();
    // Every image in flight has been added and counted: only now does the import end, as
    // 'cancelled' if a stop was asked for at any time before this write (the report is final).
    await save(ctx, id, held, { status: sql`case when ${imports.cancelRequestedAt} is null then 'done' else 'cancelled' end`, report: finalReport(r) as unknown as Record<string, unknown> }, true);
    await dropUpload(ctx, row);
  } catch (err) {
    lost = err instanceof LeaseLost || (signal.aborted && signal.reason instanceof LeaseLost);
    // A server stopping cleanly has let the images in flight finish: a cancel asked for ends here, exactly counted.
    if (signal.aborted && signal.reason instanceof StopRequested) await endStoppedCancel(ctx, id, report.report);
    if (signal.aborted) throw err;
    const known = err instanceof ImportInputError || err instanceof ApiError;
    if (!known) throw err;
    await cleanUp();
    await save(ctx, id, held, { status: 'failed', error: printableText(err.message), report: report.report as unknown as Record<string, unknown> }, true).catch((lease: unknown) => {
      lost = true;
      throw lease;
    });
    await dropUpload(ctx, row);
  } finally {
    await cleanUp();
    await notifyProjectChanged(ctx, row.projectId); // the Data tabs watching the project reload (src/server/live/notify.ts)
  }
}

/** Why no reader knows the archive, naming the entries left unread for their compression ratio (often the very annotation file). */
function unrecognised(archive: OpenedArchive): string {
  const base = 'The format could not be recognised: expected a COCO, YOLO, Pascal VOC, CVAT or Vellum dataset';
  if (archive.refused.length === 0) return base;
  const n = archive.refused.length;
  const names = archive.refused.slice(0, 3).map((p) => `"${p.slice(0, 200)}"`).join(', ');
  return `${base}. ${n} entr${n === 1 ? 'y was' : 'ies were'} not read because ${n === 1 ? 'it' : 'they'} would expand more than ${MAX_IMPORT_ENTRY_RATIO} times ${n === 1 ? 'its' : 'their'} compressed size: ${names}${n > 3 ? ' ...' : ''}`;
}

/** The uploaded file is not kept once the import has ended. */
export async function dropUpload(ctx: AppContext, row: ImportRow): Promise<void> {
  const bucket = await bucketFor(ctx, row.organizationId).catch(() => null);
  if (bucket) await ctx.storage.delete(bucket, row.stagingKey).catch(() => undefined);
}
