// The upload flow of spec section 7: check-filename -> upload-url -> PUT to the signed URL ->
// register. Uploads are one-shot: an upload URL writes a staging object of its own (a random key
// under <project>/staging/), never the image's key, and lives at most an hour. Register trusts
// nothing the client says about the file: it downloads the staged object, checks its bytes,
// measures it, writes those checked bytes to the image's key (which no signed URL can write), makes
// the thumbnail and the annotation sidecar, and inserts the row, the empty annotation document and
// the counters in one transaction. A PUT after that lands in staging, where nothing reads it. A
// failed register leaves nothing behind; the orphan sweep catches what a crash leaves.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { and, eq, gt, inArray, isNotNull, lt, or, sql } from 'drizzle-orm';
import type { AppContext } from '../context';
import { isUniqueViolation, retryOnConflict } from '../db/errors';
import { annotationDocuments, images, organizations, projects, uploadReservations } from '../db/schema';
import { ApiError, apiError, errors } from '../errors';
import { InvalidObjectNameError } from '../storage/types';
import {
  canonicalMime,
  extensionOf,
  fitFilename,
  MAX_SVG_BYTES,
  MAX_UPLOAD_BYTES,
  mimeForFilename,
  sanitizeFilename,
  type Image,
  type ImageMimeType,
  type UploadUrlResult,
} from '../../contract/images';
import { adjustCounters, filenameLockKey, folderPathOrThrow, imageJson, requireFolder, withKeyLock, type ProjectRow } from './images';
import { bucketFor, deleteKeys, gcsUri, imageKey, sidecarKey, thumbnailKey } from './stored-objects';
import { projectInOrg } from './access';
import { detectImageType, ImageCheckError, inspectImage, makeThumbnail, svgProblem } from './thumbnails';
import { needsTiles, queueTiles } from './tiles';

/** A name handed out stays held this long after its upload URL expires, so the client can still register. */
const RESERVATION_GRACE_MS = 60 * 60 * 1000;
/** check-filename holds the name it returns for this long. */
const CHECK_RESERVATION_MS = 60 * 60 * 1000;
export const ORPHAN_MIN_AGE_MS = 60 * 60 * 1000;
/** Upload URLs live at most this long, whatever is asked: a leaked one is worthless soon. */
export const MAX_UPLOAD_URL_MINUTES = 60;

const ACCEPTED = 'jpeg, jpg, png, gif, webp, bmp or svg';

/** The filename exactly as given if it is safe and an accepted image type; 400/415 otherwise. */
function checkedFilename(raw: string): { filename: string; mime: ImageMimeType } {
  const filename = sanitizeFilename(raw);
  if (!filename) throw errors.badRequest('The filename is empty once unsafe characters are removed', 'invalid_filename');
  if (filename !== raw) throw errors.badRequest(`Invalid filename "${raw.slice(0, 200)}": use check-filename to get a safe one (suggested "${filename}")`, 'invalid_filename', { suggested_filename: filename });
  const mime = mimeForFilename(filename);
  if (!mime) throw errors.unsupportedType(`"${filename}" is not an accepted image type: use ${ACCEPTED}`);
  return { filename, mime };
}

/** Names (lower case) already used by an image or held by a live reservation of someone else, among `candidates`. */
async function takenNames(ctx: AppContext, projectId: string, candidates: string[], userId: string | null): Promise<Set<string>> {
  const lowered = candidates.map((c) => c.toLowerCase());
  const used = await ctx.db
    .select({ name: sql<string>`lower(${images.filename})` })
    .from(images)
    .where(and(eq(images.projectId, projectId), inArray(sql`lower(${images.filename})`, lowered)));
  const held = await ctx.db
    .select({ name: sql<string>`lower(${uploadReservations.filename})`, by: uploadReservations.reservedBy })
    .from(uploadReservations)
    .where(and(eq(uploadReservations.projectId, projectId), inArray(sql`lower(${uploadReservations.filename})`, lowered), gt(uploadReservations.expiresAt, new Date())));
  const taken = new Set(used.map((u) => u.name));
  for (const h of held) if (userId === null || h.by !== userId) taken.add(h.name);
  return taken;
}

/** Holds a name for `userId` until `until`. False when an image or someone else's live reservation has it. */
async function reserve(ctx: AppContext, projectId: string, filename: string, userId: string, until: Date): Promise<boolean> {
  if ((await takenNames(ctx, projectId, [filename], userId)).size > 0) return false;
  // Replace an expired or our own reservation of the same name (any case); keep the longer expiry.
  await ctx.db
    .delete(uploadReservations)
    .where(
      and(
        eq(uploadReservations.projectId, projectId),
        sql`lower(${uploadReservations.filename}) = ${filename.toLowerCase()}`,
        sql`${uploadReservations.filename} <> ${filename}`,
        or(lt(uploadReservations.expiresAt, new Date()), eq(uploadReservations.reservedBy, userId)),
      ),
    );
  const inserted = await ctx.db
    .insert(uploadReservations)
    .values({ projectId, filename, reservedBy: userId, expiresAt: until })
    .onConflictDoUpdate({
      target: [uploadReservations.projectId, uploadReservations.filename],
      set: { reservedBy: userId, expiresAt: sql`greatest(${uploadReservations.expiresAt}, excluded.expires_at)` },
      // Only take over a reservation that is ours or has expired.
      setWhere: or(eq(uploadReservations.reservedBy, userId), lt(uploadReservations.expiresAt, new Date())),
    })
    .returning({ filename: uploadReservations.filename });
  return inserted.length === 1;
}

function withSuffix(filename: string, n: number): string {
  const dot = filename.lastIndexOf('.');
  const stem = dot > 0 ? filename.slice(0, dot) : filename;
  return fitFilename(stem, `_${n}${dot > 0 ? filename.slice(dot) : ''}`);
}

/** check-filename: a safe name not used in the project (cat.png -> cat_1.png), held for the caller for an hour. */
export async function checkFilename(ctx: AppContext, userId: string, projectId: string, raw: string, orgId?: string) {
  const project = await projectInOrg(ctx, userId, projectId, 'images.upload', orgId);
  const base = sanitizeFilename(raw);
  if (!base) throw errors.badRequest('The filename is empty once unsafe characters are removed', 'invalid_filename');
  if (!mimeForFilename(base)) throw errors.unsupportedType(`"${base}" is not an accepted image type: use ${ACCEPTED}`);
  const until = new Date(Date.now() + CHECK_RESERVATION_MS);
  // Probe candidates a hundred at a time: the first free one wins (the reservation settles races).
  for (let start = 0; start < 100_000; start += 100) {
    const candidates = start === 0 ? [base, ...Array.from({ length: 99 }, (_, i) => withSuffix(base, i + 1))] : Array.from({ length: 100 }, (_, i) => withSuffix(base, start + i));
    // Every caller's reservations count here, their own too: two files of one drop get two names.
    const taken = await takenNames(ctx, project.id, candidates, null);
    for (const candidate of candidates) {
      if (taken.has(candidate.toLowerCase())) continue;
      if (await reserve(ctx, project.id, candidate, userId, until)) return { unique_filename: candidate, original_filename: raw, changed: candidate !== raw };
    }
  }
  throw errors.conflict('Could not find a free filename; rename the file', 'filename_taken');
}

interface UploadInput {
  filename: string;
  content_type: string;
  folder_path: string;
}

/** Where an upload URL's bytes land: a key of its own that only that URL writes and only register reads. */
function stagingKey(project: Pick<ProjectRow, 'gcsPath'>, filename: string): string {
  return `${stagingPrefix(project)}${randomUUID()}.${extensionOf(filename)}`;
}
const stagingPrefix = (project: Pick<ProjectRow, 'gcsPath'>) => `${project.gcsPath}/staging/`;

async function uploadUrlFor(ctx: AppContext, userId: string, project: ProjectRow, bucket: string, input: UploadInput, askedMinutes: number): Promise<UploadUrlResult> {
  const expirationMinutes = Math.min(askedMinutes, MAX_UPLOAD_URL_MINUTES);
  const { filename, mime } = checkedFilename(input.filename);
  const declared = canonicalMime(input.content_type);
  if (!declared) throw errors.unsupportedType(`Content type "${input.content_type.slice(0, 100)}" is not accepted: use ${ACCEPTED}`);
  if (declared !== mime) throw apiError('content_type_mismatch', `Content type ${input.content_type} does not match the extension of "${filename}" (${mime})`);
  const folderPath = folderPathOrThrow(input.folder_path);
  await requireFolder(ctx.db, project.id, folderPath);
  const until = new Date(Date.now() + expirationMinutes * 60_000 + RESERVATION_GRACE_MS);
  if (!(await reserve(ctx, project.id, filename, userId, until))) {
    throw errors.conflict(`"${filename}" is already used in this project: call check-filename for a free name`, 'filename_taken');
  }
  // The result names the image's key (where register puts the checked file); the URL writes staging.
  const key = imageKey(project, filename);
  const staging = stagingKey(project, filename);
  await ctx.db
    .update(uploadReservations)
    .set({ stagingKey: staging })
    .where(and(eq(uploadReservations.projectId, project.id), eq(uploadReservations.filename, filename), eq(uploadReservations.reservedBy, userId)));
  const signed = await ctx.storage.signedUploadUrl(bucket, staging, { expiresInSeconds: expirationMinutes * 60, contentType: input.content_type, maxBytes: MAX_UPLOAD_BYTES });
  return {
    upload_url: signed.url,
    gcs_uri: gcsUri(bucket, key),
    gcs_path: key,
    gcs_bucket: bucket,
    filename,
    content_type: input.content_type,
    folder_path: folderPath,
    max_bytes: MAX_UPLOAD_BYTES,
    expires_at: signed.expiresAt.toISOString(),
  };
}

export async function createUploadUrl(ctx: AppContext, userId: string, projectId: string, input: UploadInput & { expiration_minutes: number }, orgId?: string) {
  const project = await projectInOrg(ctx, userId, projectId, 'images.upload', orgId);
  const bucket = await bucketFor(ctx, project.organizationId);
  return uploadUrlFor(ctx, userId, project, bucket, input, input.expiration_minutes);
}

export async function createBatchUploadUrls(ctx: AppContext, userId: string, projectId: string, body: { files: UploadInput[]; expiration_minutes: number }, orgId?: string) {
  const project = await projectInOrg(ctx, userId, projectId, 'images.upload', orgId);
  const bucket = await bucketFor(ctx, project.organizationId);
  const urls: UploadUrlResult[] = [];
  const failed: { filename: string; error: string; code: string }[] = [];
  const seen = new Set<string>();
  for (const file of body.files) {
    try {
      // Two entries with one name in a batch would share one object: the second one fails.
      if (seen.has(file.filename.toLowerCase())) throw errors.conflict(`"${file.filename}" appears twice in this batch`, 'filename_taken');
      seen.add(file.filename.toLowerCase());
      urls.push(await uploadUrlFor(ctx, userId, project, bucket, file, body.expiration_minutes));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      failed.push({ filename: file.filename, error: err.message, code: err.code });
    }
  }
  return { urls, failed };
}

// --- register

export interface RegisterInput {
  filename: string;
  gcs_bucket?: string;
  gcs_path?: string;
  gcs_uri?: string;
  folder_path: string;
  is_edited?: boolean;
}

/** The staging object the caller's latest upload URL for this name writes, if any. */
async function stagedKeyOf(ctx: AppContext, projectId: string, filename: string, userId: string): Promise<string | null> {
  const [row] = await ctx.db
    .select({ stagingKey: uploadReservations.stagingKey })
    .from(uploadReservations)
    .where(and(eq(uploadReservations.projectId, projectId), eq(uploadReservations.filename, filename), eq(uploadReservations.reservedBy, userId)))
    .limit(1);
  return row?.stagingKey ?? null;
}

/** Downloads the object to a temp file; returns its size and first bytes. Refuses more than MAX_UPLOAD_BYTES. */
async function download(ctx: AppContext, bucket: string, key: string, file: string): Promise<{ size: number; head: Buffer }> {
  const { body } = await ctx.storage.get(bucket, key);
  let size = 0;
  const headChunks: Buffer[] = [];
  let headBytes = 0;
  body.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (headBytes < 4096) {
      headChunks.push(chunk.subarray(0, 4096 - headBytes));
      headBytes += Math.min(chunk.length, 4096 - headBytes);
    }
    if (size > MAX_UPLOAD_BYTES) body.destroy(new ImageCheckError(413, 'file_too_large', `The file is larger than the ${MAX_UPLOAD_BYTES / 1024 / 1024} MB allowed`));
  });
  await pipeline(body, fs.createWriteStream(file, { mode: 0o600 }));
  return { size, head: Buffer.concat(headChunks) };
}

function sidecarJson(key: string, filename: string, width: number, height: number): Buffer {
  return Buffer.from(JSON.stringify({ image_path: key, filename, width, height, stage: 'New', annotations: [] }, null, 2));
}


async function rowExists(ctx: AppContext, projectId: string, filename: string): Promise<boolean> {
  const [row] = await ctx.db
    .select({ id: images.id })
    .from(images)
    .where(and(eq(images.projectId, projectId), sql`lower(${images.filename}) = ${filename.toLowerCase()}`))
    .limit(1);
  return Boolean(row);
}

/** Size and first bytes of a local file (an import's image), as `download` gives them for a stored one. */
async function measureLocal(file: string): Promise<{ size: number; head: Buffer }> {
  const handle = await fsp.open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size > MAX_UPLOAD_BYTES) throw new ImageCheckError(413, 'file_too_large', `The file is ${size} bytes; at most ${MAX_UPLOAD_BYTES} are allowed`);
    const head = Buffer.alloc(Math.min(4096, size));
    await handle.read(head, 0, head.length, 0);
    return { size, head };
  } finally {
    await handle.close();
  }
}

/**
 * `opts.storedByServer` (image edits): the file is already at the image's key, written by the
 * server. `opts.localFile` (imports): the bytes are in this local file; they are checked like an
 * upload's and then stored at the image's key.
 */
export async function registerImage(ctx: AppContext, userId: string, projectId: string, input: RegisterInput, orgId?: string, opts: { storedByServer?: boolean; localFile?: string } = {}): Promise<{ success: true; image: Image }> {
  const project = await projectInOrg(ctx, userId, projectId, 'images.upload', orgId);
  const bucket = await bucketFor(ctx, project.organizationId);
  // An unsafe name never reaches storage, not even to clean up.
  const filename = sanitizeFilename(input.filename);
  if (!filename || filename !== input.filename) throw errors.badRequest(`Invalid filename "${input.filename.slice(0, 200)}"`, 'invalid_filename');
  const key = imageKey(project, filename);
  const thumbKey = thumbnailKey(project, filename);
  const jsonKey = sidecarKey(project, filename);

  return withKeyLock(filenameLockKey(project.id, filename), async () => {
    // The name belongs to a registered image: its files are not ours to touch.
    if (await rowExists(ctx, project.id, filename)) throw errors.conflict(`"${filename}" is already registered in this project`, 'filename_taken');
    // Bytes from a browser come from the staging object of the caller's upload URL; the image's key
    // holds only what the server wrote (checked bytes, or an image edit's output).
    const staged = opts.storedByServer || opts.localFile ? null : await stagedKeyOf(ctx, project.id, filename, userId);
    const source = staged ?? key;
    const tmpDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'vellum-register-'));
    try {
      const { mime } = checkedFilename(filename);
      if (input.gcs_bucket !== undefined && input.gcs_bucket !== bucket) throw errors.badRequest(`gcs_bucket must be this organization's bucket (${bucket})`, 'invalid_location');
      if (input.gcs_path !== undefined && input.gcs_path !== key) throw errors.badRequest(`gcs_path must be ${key} for "${filename}"`, 'invalid_location');
      if (input.gcs_uri !== undefined && input.gcs_uri !== gcsUri(bucket, key)) throw errors.badRequest(`gcs_uri must be ${gcsUri(bucket, key)} for "${filename}"`, 'invalid_location');
      const folderPath = folderPathOrThrow(input.folder_path);
      await requireFolder(ctx.db, project.id, folderPath);

      let local = opts.localFile;
      let measured: { size: number; head: Buffer };
      if (local) measured = await measureLocal(local);
      else {
        const info = await ctx.storage.head(bucket, source);
        if (!info) throw errors.badRequest(`No uploaded file found for "${filename}": PUT it to the upload URL before registering`, 'object_not_found');
        if (info.size > MAX_UPLOAD_BYTES) throw new ImageCheckError(413, 'file_too_large', `The file is ${info.size} bytes; at most ${MAX_UPLOAD_BYTES} are allowed`);
        local = path.join(tmpDir, `upload.${extensionOf(filename)}`);
        measured = await download(ctx, bucket, source, local);
      }
      const { size, head } = measured;

      const detected = detectImageType(head);
      if (!detected) throw new ImageCheckError(415, 'unsupported_media_type', `"${filename}" is not a ${ACCEPTED} image (its bytes match none of them)`);
      if (detected !== mime) throw new ImageCheckError(415, 'type_mismatch', `"${filename}" claims to be ${mime} but its bytes are ${detected}`);
      if (mime === 'image/svg+xml') {
        if (size > MAX_SVG_BYTES) throw new ImageCheckError(413, 'file_too_large', `SVG files may be at most ${MAX_SVG_BYTES / 1024 / 1024} MB`);
        const problem = svgProblem(await fsp.readFile(local, 'utf8'));
        if (problem) throw new ImageCheckError(415, 'unsafe_svg', `The SVG was refused because ${problem}`);
      }
      const { width, height } = await inspectImage(local, mime);
      // The image is the bytes just checked, from our own copy: a later PUT to the upload URL
      // changes only the staging object, which nothing reads once the name is registered.
      if (staged || opts.localFile) await ctx.storage.put(bucket, key, fs.createReadStream(local), { contentType: mime, contentLength: size });
      if (staged) await ctx.storage.delete(bucket, staged).catch(() => undefined);
      const thumbnail = await makeThumbnail(local, mime);
      if (thumbnail) await ctx.storage.put(bucket, thumbKey, thumbnail, { contentType: 'image/webp' });
      await ctx.storage.put(bucket, jsonKey, sidecarJson(key, filename, width, height), { contentType: 'application/json' });

      const id = randomUUID();
      // The folder is held while the image goes into it (a rename or delete at once waits), and a
      // deadlock's victim (saves and moves of the project at once) is run again.
      const { row, folderId } = await retryOnConflict(() => ctx.db.transaction(async (tx) => {
        const folderId = await requireFolder(tx, project.id, folderPath, { lock: true });
        const [inserted] = await tx
          .insert(images)
          .values({
            id,
            projectId: project.id,
            organizationId: project.organizationId,
            filename,
            gcsUri: gcsUri(bucket, key),
            gcsPath: key,
            thumbnailPath: thumbnail ? thumbKey : null,
            thumbnailSize: thumbnail?.length ?? 0,
            status: 'new',
            virtualFolderPath: folderPath,
            fileSize: size,
            mimeType: mime,
            imageWidth: width,
            imageHeight: height,
            isEdited: input.is_edited ?? false,
          })
          .returning();
        await tx.insert(annotationDocuments).values({ imageId: id, projectId: project.id, version: 0, updatedBy: userId });
        await adjustCounters(tx, project.id, [], [inserted]);
        await tx.delete(uploadReservations).where(and(eq(uploadReservations.projectId, project.id), sql`lower(${uploadReservations.filename}) = ${filename.toLowerCase()}`));
        return { row: inserted, folderId };
      }));
      // A large image's tile pyramid is queued now (a job), so the editor finds it ready.
      if (needsTiles(row)) await queueTiles(ctx, row).catch((err: unknown) => ctx.log.warn({ err, imageId: row.id }, 'could not queue the tile pyramid; the first tiles request will'));
      return { success: true as const, image: imageJson(row, folderId) };
    } catch (err) {
      // Nothing half-done: unless a row owns the name (a racing register won), remove every file of it.
      if (!(await rowExists(ctx, project.id, filename).catch(() => true))) await deleteKeys(ctx, bucket, [key, thumbKey, jsonKey, ...(staged ? [staged] : [])]);
      if (isUniqueViolation(err)) throw errors.conflict(`"${filename}" is already registered in this project`, 'filename_taken');
      if (err instanceof ImageCheckError) throw apiError(err.code, err.message);
      if (err instanceof InvalidObjectNameError) throw errors.badRequest(err.message, 'invalid_filename');
      throw err;
    } finally {
      await fsp.rm(tmpDir, { recursive: true, force: true });
    }
  });
}

// --- orphan sweep

/** The image filename an object under images/ or thumbnails/ belongs to. */
function ownerFilename(project: ProjectRow, key: string): string | null {
  const imagesPrefix = `${project.gcsPath}/images/`;
  const thumbsPrefix = `${project.gcsPath}/thumbnails/`;
  if (key.startsWith(imagesPrefix)) {
    const name = key.slice(imagesPrefix.length);
    // Image names always end in an image extension, so "<name>.json" is always a sidecar.
    return name.endsWith('.json') ? name.slice(0, -5) : name;
  }
  if (key.startsWith(thumbsPrefix)) {
    const name = key.slice(thumbsPrefix.length);
    return name.endsWith('.webp') ? name.slice(0, -5) : name;
  }
  return null;
}

/**
 * Deletes objects under each project's images/ and thumbnails/ that are older than `minAgeMs` and
 * belong to no image row (and to no live reservation: an upload in progress), and staged uploads
 * that no live upload URL writes. Also drops expired reservations. Safe to run in several processes at once (deletes are idempotent).
 */
export async function sweepOrphans(ctx: AppContext, opts: { minAgeMs?: number; now?: Date } = {}): Promise<{ scanned: number; deleted: string[] }> {
  const now = opts.now ?? new Date();
  const cutoff = now.getTime() - (opts.minAgeMs ?? ORPHAN_MIN_AGE_MS);
  const result = { scanned: 0, deleted: [] as string[] };
  await ctx.db.delete(uploadReservations).where(lt(uploadReservations.expiresAt, new Date(now.getTime() - RESERVATION_GRACE_MS)));
  const rows = await ctx.db
    .select({ project: projects, bucket: organizations.gcsBucketName })
    .from(projects)
    .innerJoin(organizations, eq(organizations.id, projects.organizationId))
    .where(isNotNull(organizations.gcsBucketName));
  for (const { project, bucket } of rows) {
    if (!bucket) continue;
    const old = new Map<string, string[]>(); // filename -> its old keys
    for (const prefix of [`${project.gcsPath}/images/`, `${project.gcsPath}/thumbnails/`]) {
      for await (const obj of ctx.storage.list(bucket, prefix)) {
        result.scanned += 1;
        if (obj.lastModified.getTime() > cutoff) continue;
        const owner = ownerFilename(project, obj.key);
        if (owner === null) continue;
        old.set(owner, [...(old.get(owner) ?? []), obj.key]);
      }
    }
    result.deleted.push(...(await sweepStaging(ctx, project, bucket, cutoff, now)));
    const names = [...old.keys()];
    for (let i = 0; i < names.length; i += 500) {
      const chunk = names.slice(i, i + 500);
      const owned = await ctx.db.select({ filename: images.filename }).from(images).where(and(eq(images.projectId, project.id), inArray(images.filename, chunk)));
      const held = await ctx.db
        .select({ filename: uploadReservations.filename })
        .from(uploadReservations)
        .where(and(eq(uploadReservations.projectId, project.id), inArray(uploadReservations.filename, chunk), gt(uploadReservations.expiresAt, now)));
      const keep = new Set([...owned, ...held].map((r) => r.filename));
      for (const name of chunk) {
        if (keep.has(name)) continue;
        await withKeyLock(filenameLockKey(project.id, name), async () => {
          if (await rowExists(ctx, project.id, name)) return; // registered meanwhile
          const keys = old.get(name)!;
          await deleteKeys(ctx, bucket, keys);
          result.deleted.push(...keys);
        });
      }
    }
  }
  return result;
}

/** Deletes staged uploads older than the cutoff that no live upload URL writes: what a second PUT or an abandoned upload left. */
async function sweepStaging(ctx: AppContext, project: ProjectRow, bucket: string, cutoff: number, now: Date): Promise<string[]> {
  const old: string[] = [];
  for await (const obj of ctx.storage.list(bucket, stagingPrefix(project))) if (obj.lastModified.getTime() <= cutoff) old.push(obj.key);
  if (old.length === 0) return [];
  const live = await ctx.db
    .select({ key: uploadReservations.stagingKey })
    .from(uploadReservations)
    .where(and(eq(uploadReservations.projectId, project.id), isNotNull(uploadReservations.stagingKey), gt(uploadReservations.expiresAt, now)));
  const keep = new Set(live.map((r) => r.key));
  const doomed = old.filter((k) => !keep.has(k));
  await deleteKeys(ctx, bucket, doomed);
  return doomed;
}

/** Runs the sweep every `intervalMs` (first run after `firstDelayMs`); the timer never keeps the process alive. Returns a stop function. */
export function startOrphanSweeper(ctx: AppContext, opts: { intervalMs?: number; firstDelayMs?: number } = {}): () => void {
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      const { deleted } = await sweepOrphans(ctx);
      if (deleted.length) ctx.log.info({ count: deleted.length }, 'orphan sweep removed stored objects without an image');
    } catch (err) {
      ctx.log.warn({ err }, 'orphan sweep failed; it runs again later');
    } finally {
      running = false;
    }
  };
  const first = setTimeout(run, opts.firstDelayMs ?? 5 * 60_000);
  const every = setInterval(run, opts.intervalMs ?? 30 * 60_000);
  first.unref();
  every.unref();
  return () => {
    clearTimeout(first);
    clearInterval(every);
  };
}
