// Images of a project: object keys, the JSON shape, the list query, stages, archive, deletion,
// signed URLs and the batch calls. Upload and register live in upload.ts.
//
// Project counters (kept in the same transaction as every change, see adjustCounters):
//   image_count            images not archived (what the Data view holds)
//   archived_images        archived images
//   completed_image_count  images not archived whose status is complete (progress = completed / image_count)
//   total_size             bytes of all original files, archived included (they are still stored)
//   annotation_count       sum of the images' annotation counts, archived included
import { and, asc, count, desc, eq, gt, gte, inArray, isNull, lte, ne, sql, type SQL } from 'drizzle-orm';
import type { AppContext } from '../context';
import type { Exec, Tx } from '../db/client';
import { folders, imageFolderStats, images, organizationMembers, projects } from '../db/schema';
import { errors } from '../errors';
import { canonicalMime, nextStatus, type Image, type ImageStatus, type ListImagesQuery } from '../../contract/images';
import { normalizeFolderPath, ROOT_PATH } from '../../contract/folders';
import { can, requireMember, type Permission } from './access';
import { projectFor } from './projects';
import { bucketFor, deleteKeys, getUrlSeconds, previewKey, sidecarKey, thumbnailKey } from './stored-objects';
import { deleteTiles, needsTiles } from './tiles';
import { recordEvents, statusEvents } from './workflow/events';

export { bucketFor, deleteKeys, gcsUri, getUrlSeconds, imageKey, MAX_GET_URL_SECONDS, previewKey, sidecarKey, thumbnailKey } from './stored-objects';

export type ImageRow = typeof images.$inferSelect;
export type ProjectRow = typeof projects.$inferSelect;
type Conn = Exec;



/** A per-process lock by key: register, delete and the orphan sweep never work on one filename at once. */
const locks = new Map<string, Promise<unknown>>();
export async function withKeyLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const previous = locks.get(key) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const tail = run.catch(() => undefined);
  locks.set(key, tail);
  try {
    return await run;
  } finally {
    if (locks.get(key) === tail) locks.delete(key);
  }
}
export const filenameLockKey = (projectId: string, filename: string) => `${projectId}/${filename.toLowerCase()}`;

// --- JSON

export function imageJson(row: ImageRow, folderId: string | null): Image {
  return {
    id: row.id,
    project_id: row.projectId,
    organization_id: row.organizationId,
    filename: row.filename,
    gcs_uri: row.gcsUri,
    gcs_path: row.gcsPath,
    status: row.status,
    virtual_folder_path: row.virtualFolderPath,
    folder_id: folderId,
    file_size: row.fileSize,
    mime_type: row.mimeType,
    image_width: row.imageWidth,
    image_height: row.imageHeight,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    annotation_count: row.annotationCount,
    is_archived: row.isArchived,
    is_edited: row.isEdited,
    thumbnail_path: row.thumbnailPath,
    assignee_id: row.assigneeId,
    reviewer_id: row.reviewerId,
    open_issues: row.openIssues,
  };
}

async function folderIdOf(db: Conn, projectId: string, path: string): Promise<string | null> {
  if (path === ROOT_PATH) return null;
  const [f] = await db.select({ id: folders.id }).from(folders).where(and(eq(folders.projectId, projectId), eq(folders.fullPath, path))).limit(1);
  return f?.id ?? null;
}

export async function imageJsonWithFolder(db: Conn, row: ImageRow): Promise<Image> {
  return imageJson(row, await folderIdOf(db, row.projectId, row.virtualFolderPath));
}

// --- access

/**
 * The project if the caller may `permission` in its organization (404 when not a member or when it
 * is not in the org_id the client sent, 403 when the role lacks the permission). One round trip:
 * the list call runs it on every page.
 */
export async function projectInOrg(ctx: AppContext, userId: string, projectId: string, permission: Permission, orgId?: string): Promise<ProjectRow> {
  const [row] = await ctx.db
    .select({ project: projects, role: organizationMembers.role })
    .from(projects)
    .innerJoin(organizationMembers, and(eq(organizationMembers.organizationId, projects.organizationId), eq(organizationMembers.userId, userId)))
    .where(eq(projects.id, projectId))
    .limit(1);
  if (!row || (orgId && orgId !== row.project.organizationId)) throw errors.notFound('Project');
  if (!can(row.role, permission)) throw errors.forbidden(`Your role (${row.role}) does not allow this`);
  return row.project;
}

/** The image, if the caller may `permission` in its organization; 404 otherwise (also for another organization's image). */
export async function imageFor(ctx: AppContext, userId: string, imageId: string, permission: Permission, orgId?: string): Promise<ImageRow> {
  const [row] = await ctx.db.select().from(images).where(eq(images.id, imageId)).limit(1);
  if (!row || (orgId && orgId !== row.organizationId)) throw errors.notFound('Image');
  await requireMember(ctx.db, userId, row.organizationId, permission, 'Image');
  return row;
}

/** A folder path from the client in canonical form; 400 when malformed. */
export function folderPathOrThrow(raw: string, field = 'folder_path'): string {
  const result = normalizeFolderPath(raw);
  if ('error' in result) throw errors.badRequest(`Invalid ${field}: ${result.error}`, 'invalid_folder_path');
  return result.path;
}

/** 404 unless the folder exists in the project ('/' always does). */
export async function requireFolder(db: Conn, projectId: string, path: string): Promise<string | null> {
  if (path === ROOT_PATH) return null;
  const id = await folderIdOf(db, projectId, path);
  if (!id) throw errors.notFound(`Folder ${path}`);
  return id;
}

// --- counters

export interface CounterState {
  isArchived: boolean;
  status: string;
  fileSize: number;
  annotationCount: number;
}

/** Applies what changed between `before` and `after` (rows removed: only in before; added: only in after) to the project's counters. */
export async function adjustCounters(db: Conn, projectId: string, before: CounterState[], after: CounterState[]): Promise<void> {
  const d = { images: 0, archived: 0, completed: 0, size: 0, annotations: 0 };
  const add = (s: CounterState, sign: 1 | -1) => {
    d.images += sign * (s.isArchived ? 0 : 1);
    d.archived += sign * (s.isArchived ? 1 : 0);
    d.completed += sign * (!s.isArchived && s.status === 'complete' ? 1 : 0);
    d.size += sign * s.fileSize;
    d.annotations += sign * s.annotationCount;
  };
  for (const s of before) add(s, -1);
  for (const s of after) add(s, 1);
  if (!d.images && !d.archived && !d.completed && !d.size && !d.annotations) return;
  await db
    .update(projects)
    .set({
      imageCount: sql`${projects.imageCount} + ${d.images}`,
      archivedImages: sql`${projects.archivedImages} + ${d.archived}`,
      completedImageCount: sql`${projects.completedImageCount} + ${d.completed}`,
      totalSize: sql`${projects.totalSize} + ${d.size}`,
      annotationCount: sql`${projects.annotationCount} + ${d.annotations}`,
      updatedAt: new Date(),
    })
    .where(eq(projects.id, projectId));
}

// --- list

/** Stage order for sorting by status; the same expression as the images_folder_stage_idx index. */
const STAGE_RANK = sql`(CASE ${images.status} WHEN 'new' THEN 0 WHEN 'annotating' THEN 1 WHEN 'review' THEN 2 ELSE 3 END)`;

function sortColumns(field: ListImagesQuery['sort_by'], order: 'asc' | 'desc'): SQL[] {
  const dir = order === 'asc' ? asc : desc;
  switch (field) {
    case 'filename':
      return [dir(images.filename)]; // unique in the project: no tie-breaker needed
    case 'updated_at':
      return [dir(images.updatedAt), dir(images.id)];
    case 'file_size':
      return [dir(images.fileSize), dir(images.id)];
    case 'annotation_count':
      return [dir(images.annotationCount), dir(images.id)];
    case 'mime_type':
      return [dir(images.mimeType), dir(images.id)];
    case 'status':
      return [order === 'asc' ? sql`${STAGE_RANK} asc` : sql`${STAGE_RANK} desc`, dir(images.id)];
    default:
      return [dir(images.createdAt), dir(images.id)];
  }
}

/** ILIKE pattern matching `text` anywhere, with % _ and \ taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export async function listImages(ctx: AppContext, userId: string, projectId: string, q: ListImagesQuery) {
  // Inputs first, so a bad one never costs a query.
  const folderPath = q.folder_path === undefined ? undefined : folderPathOrThrow(q.folder_path);
  let mime: string | null = null;
  if (q.mime_type) {
    mime = canonicalMime(q.mime_type.includes('/') ? q.mime_type : `image/${q.mime_type === 'svg' ? 'svg+xml' : q.mime_type}`);
    if (!mime) throw errors.badRequest(`Unknown mime_type "${q.mime_type.slice(0, 100)}"`, 'invalid_mime_type');
  }
  const where: SQL[] = [eq(images.projectId, projectId)];
  if (q.is_archived !== 'all') where.push(eq(images.isArchived, q.is_archived === 'true'));
  if (folderPath !== undefined) where.push(eq(images.virtualFolderPath, folderPath));
  if (q.status) where.push(eq(images.status, q.status));
  // Case-insensitive 'contains', as lower() LIKE lower(): half the time of ILIKE over the rows a
  // whole-project search reads (PGlite, 100k names: 52 against 105 ms).
  if (q.search) where.push(sql`lower(${images.filename}) LIKE lower(${containsPattern(q.search)})`);
  if (mime) where.push(eq(images.mimeType, mime));
  if (q.min_file_size !== undefined) where.push(gte(images.fileSize, q.min_file_size));
  if (q.max_file_size !== undefined) where.push(lte(images.fileSize, q.max_file_size));
  // Workflow filters (issue 29): a person's id, 'me' or 'none'; open issues or not.
  for (const [column, who] of [[images.assigneeId, q.assignee], [images.reviewerId, q.reviewer]] as const) {
    if (who) where.push(who === 'none' ? isNull(column) : eq(column, who === 'me' ? userId : who));
  }
  if (q.has_open_issues) where.push(q.has_open_issues === 'true' ? gt(images.openIssues, 0) : eq(images.openIssues, 0));
  const condition = and(...where);
  // The folder stats do not know people or issues: those filters count their rows.
  const scansRows = q.search !== undefined || q.min_file_size !== undefined || q.max_file_size !== undefined || !!q.assignee || !!q.reviewer || !!q.has_open_issues;
  const onlyArchiveFilter = folderPath === undefined && !q.status && !mime && !scansRows && q.is_archived !== 'all';

  // The access check, the page, the folder id and the total run at once (one round trip instead of
  // four on PostgreSQL); nothing is answered unless the access check passes.
  const access = projectInOrg(ctx, userId, projectId, 'images.read', q.org_id);
  const order = sortColumns(q.sort_by, q.sort_order);
  const offset = (q.page - 1) * q.limit;
  const rowsQuery =
    folderPath === undefined
      ? ctx.db
          .select({ image: images, folderId: folders.id })
          .from(images)
          .leftJoin(folders, and(eq(folders.projectId, images.projectId), eq(folders.fullPath, images.virtualFolderPath)))
          .where(condition)
          .orderBy(...order)
          .limit(q.limit)
          .offset(offset)
      : Promise.all([ctx.db.select().from(images).where(condition).orderBy(...order).limit(q.limit).offset(offset), folderIdOf(ctx.db, projectId, folderPath)]).then(([rows, folderId]) =>
          rows.map((image) => ({ image, folderId })),
        );
  const totalQuery: Promise<number | null> = onlyArchiveFilter
    ? Promise.resolve(null) // the project counters answer, once access has loaded the project
    : scansRows
      ? ctx.db.select({ n: count() }).from(images).where(condition).then((r) => r[0]?.n ?? 0)
      : // Folder, archive, status and mime filters: the trigger-kept stats hold the total, a few rows
        // to add up instead of counting a 20k-image folder.
        ctx.db
          .select({ n: sql<number>`coalesce(sum(${imageFolderStats.imageCount}), 0)`.mapWith(Number) })
          .from(imageFolderStats)
          .where(
            and(
              eq(imageFolderStats.projectId, projectId),
              q.is_archived === 'all' ? undefined : eq(imageFolderStats.isArchived, q.is_archived === 'true'),
              folderPath === undefined ? undefined : eq(imageFolderStats.virtualFolderPath, folderPath),
              q.status ? eq(imageFolderStats.status, q.status) : undefined,
              mime ? eq(imageFolderStats.mimeType, mime) : undefined,
            ),
          )
          .then((r) => r[0]?.n ?? 0);
  const [project, rows, counted] = await Promise.all([access, rowsQuery, totalQuery]);
  const total = counted ?? (q.is_archived === 'true' ? project.archivedImages : project.imageCount);
  const totalPages = Math.ceil(total / q.limit);
  return {
    images: rows.map((r) => imageJson(r.image, r.folderId)),
    pagination: { page: q.page, limit: q.limit, totalPages, totalItems: total, hasNext: q.page < totalPages, hasPrev: q.page > 1 },
  };
}

// --- one image

export async function getImage(ctx: AppContext, userId: string, imageId: string, orgId?: string): Promise<Image> {
  const row = await imageFor(ctx, userId, imageId, 'images.read', orgId);
  return imageJsonWithFolder(ctx.db, row);
}

/** Selects rows of one project for update (ids outside it are simply not returned). */
/**
 * 404 'Image not found', touching nothing, when any of the ids is an image of another organization
 * (as GET /images/{id} answers it). Ids of the organization's other projects, or of no image, are
 * left to the caller (the batch calls skip them and list them in skipped_ids).
 */
export async function refuseForeignImages(db: Conn, organizationId: string, ids: readonly string[]): Promise<void> {
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += 5000) {
    const [foreign] = await db
      .select({ id: images.id })
      .from(images)
      .where(and(inArray(images.id, unique.slice(i, i + 5000)), ne(images.organizationId, organizationId)))
      .limit(1);
    if (foreign) throw errors.notFound('Image');
  }
}

async function lockRows(tx: Tx, projectId: string, ids: string[]): Promise<ImageRow[]> {
  if (ids.length === 0) return [];
  return tx.select().from(images).where(and(eq(images.projectId, projectId), inArray(images.id, ids))).for('update');
}

export async function setImageStatus(ctx: AppContext, userId: string, imageId: string, change: { status: ImageStatus } | { cycle: true }, orgId?: string) {
  const found = await imageFor(ctx, userId, imageId, 'images.stage', orgId);
  return ctx.db.transaction(async (tx) => {
    const [before] = await lockRows(tx, found.projectId, [imageId]);
    if (!before) throw errors.notFound('Image');
    const status = 'status' in change ? change.status : nextStatus(before.status);
    const [after] = await tx.update(images).set({ status, updatedAt: new Date() }).where(eq(images.id, imageId)).returning();
    await adjustCounters(tx, before.projectId, [before], [after]);
    await recordEvents(tx, statusEvents(userId, [before], [after]));
    return { success: true as const, image: await imageJsonWithFolder(tx, after), previous_status: before.status };
  });
}

// --- deletion

export interface DeleteResult {
  success: true;
  deleted: number;
  deleted_ids: string[];
  skipped_ids: string[];
  files_deleted: number;
}

/**
 * Deletes images of one project: the given ids (others are skipped, never touched) or, with ids
 * null, every archived image. Rows, annotation documents (cascade) and counters change in one
 * transaction; the stored files go after the commit. A file that cannot be deleted now is an orphan
 * the sweep (upload.ts) removes later, never a row without its file.
 */
export async function deleteProjectImages(ctx: AppContext, project: ProjectRow, ids: string[] | null, opts: { deleteFiles: boolean }): Promise<DeleteResult> {
  if (ids) await refuseForeignImages(ctx.db, project.organizationId, ids);
  const bucket = await bucketFor(ctx, project.organizationId).catch(() => null);
  const removed = await ctx.db.transaction(async (tx) => {
    const rows = ids
      ? await lockRows(tx, project.id, ids)
      : await tx.select().from(images).where(and(eq(images.projectId, project.id), eq(images.isArchived, true))).for('update');
    if (rows.length === 0) return [];
    for (let i = 0; i < rows.length; i += 5000) {
      await tx.delete(images).where(inArray(images.id, rows.slice(i, i + 5000).map((r) => r.id)));
    }
    await adjustCounters(tx, project.id, rows, []);
    return rows;
  });
  let filesDeleted = 0;
  if (bucket && opts.deleteFiles) {
    const keys = removed.flatMap((r) => [r.gcsPath, sidecarKey(project, r.filename), r.thumbnailPath ?? thumbnailKey(project, r.filename)]);
    filesDeleted = await deleteKeys(ctx, bucket, keys);
    filesDeleted += await deleteTiles(ctx, bucket, removed.filter(needsTiles));
  }
  const gone = new Set(removed.map((r) => r.id));
  return {
    success: true,
    deleted: removed.length,
    deleted_ids: [...gone],
    skipped_ids: ids ? [...new Set(ids)].filter((id) => !gone.has(id)) : [],
    files_deleted: filesDeleted,
  };
}


// --- signed URLs


export async function signedImageUrl(ctx: AppContext, userId: string, imageId: string, q: { org_id?: string; expiration_minutes: number; variant: 'original' | 'thumbnail' }) {
  const row = await imageFor(ctx, userId, imageId, 'images.read', q.org_id);
  const bucket = await bucketFor(ctx, row.organizationId);
  const signed = await ctx.storage.signedDownloadUrl(bucket, previewKey(row, q.variant), { expiresInSeconds: getUrlSeconds(q.expiration_minutes) });
  return { signed_url: signed.url, expires_at: signed.expiresAt.toISOString(), variant: q.variant };
}

/** Signed URLs for the ids the caller may read (in orgId when given); the rest are listed in missing_ids. */
/**
 * Signed URLs for many images at once. Every id that exists must be readable by the caller (and of
 * org_id when given): an image of another organization answers 404 'Image not found' for the whole
 * call, as GET /images/{id} does, and nothing is signed. Ids with no image (deleted meanwhile) are
 * listed in missing_ids.
 */
export async function batchSignedUrls(ctx: AppContext, userId: string, body: { image_ids: string[]; expiration_minutes: number; variant: 'original' | 'thumbnail' }, orgId?: string) {
  const ids = [...new Set(body.image_ids)];
  const rows = await ctx.db.select().from(images).where(inArray(images.id, ids));
  const buckets = new Map<string, string>(); // organization -> bucket
  for (const orgIdOfRow of new Set(rows.map((r) => r.organizationId))) {
    if (orgId && orgId !== orgIdOfRow) throw errors.notFound('Image');
    await requireMember(ctx.db, userId, orgIdOfRow, 'images.read', 'Image');
    buckets.set(orgIdOfRow, await bucketFor(ctx, orgIdOfRow));
  }
  const signed_urls: Record<string, string> = {};
  const expiresInSeconds = getUrlSeconds(body.expiration_minutes);
  let expiresAt = new Date(Date.now() + expiresInSeconds * 1000);
  // All at once: each signature is an asynchronous HMAC; awaited one after another, a batch of 50
  // waited for 50 turns of the event loop, each behind other requests' work (bench/load.bench.ts).
  const signed = await Promise.all(rows.map((row) => ctx.storage.signedDownloadUrl(buckets.get(row.organizationId)!, previewKey(row, body.variant), { expiresInSeconds })));
  rows.forEach((row, i) => {
    signed_urls[row.id] = signed[i]!.url;
    if (signed[i]!.expiresAt < expiresAt) expiresAt = signed[i]!.expiresAt;
  });
  return { signed_urls, expires_at: expiresAt.toISOString(), missing_ids: ids.filter((id) => !(id in signed_urls)) };
}

export async function batchImageMetadata(ctx: AppContext, userId: string, projectId: string) {
  const project = await projectFor(ctx, userId, projectId, 'images.read');
  const rows = await ctx.db
    .select({
      id: images.id,
      filename: images.filename,
      width: images.imageWidth,
      height: images.imageHeight,
      gcs_uri: images.gcsUri,
      gcs_path: images.gcsPath,
      mime_type: images.mimeType,
      file_size: images.fileSize,
      status: images.status,
      virtual_folder_path: images.virtualFolderPath,
      is_archived: images.isArchived,
    })
    .from(images)
    .where(eq(images.projectId, project.id));
  const image_metadata: Record<string, (typeof rows)[number]> = {};
  for (const r of rows) image_metadata[r.filename] = r;
  return { status: 'success' as const, image_metadata };
}

// --- batch calls (/api/images/batch)

function skipped(ids: string[], touched: Iterable<string>): string[] {
  const done = new Set(touched);
  return [...new Set(ids)].filter((id) => !done.has(id));
}

export async function batchMove(ctx: AppContext, userId: string, body: { image_ids: string[]; target_folder_path: string; project_id: string }) {
  const project = await projectFor(ctx, userId, body.project_id, 'images.organize');
  const target = folderPathOrThrow(body.target_folder_path, 'target_folder_path');
  await requireFolder(ctx.db, project.id, target);
  await refuseForeignImages(ctx.db, project.organizationId, body.image_ids);
  const moved = await ctx.db
    .update(images)
    .set({ virtualFolderPath: target, updatedAt: new Date() })
    .where(and(eq(images.projectId, project.id), inArray(images.id, [...new Set(body.image_ids)])))
    .returning({ id: images.id });
  return { success: true as const, moved: moved.length, target_folder_path: target, skipped_ids: skipped(body.image_ids, moved.map((m) => m.id)) };
}

export async function batchUpdate(
  ctx: AppContext,
  userId: string,
  body: { image_ids: string[]; project_id: string; updates: { status?: ImageStatus; is_archived?: boolean; cycle?: true } },
) {
  const { updates } = body;
  const project = await projectFor(ctx, userId, body.project_id, updates.status !== undefined || updates.cycle ? 'images.stage' : 'images.archive');
  if (updates.is_archived !== undefined) await requireMember(ctx.db, userId, project.organizationId, 'images.archive', 'Project');
  await refuseForeignImages(ctx.db, project.organizationId, body.image_ids);
  return ctx.db.transaction(async (tx) => {
    const rows = await lockRows(tx, project.id, [...new Set(body.image_ids)]);
    if (rows.length === 0) return { success: true as const, updated: 0, status: updates.status ?? null, skipped_ids: skipped(body.image_ids, []) };
    let status = updates.status;
    if (updates.cycle) {
      // The first selected image (in the caller's order) decides, as in the SPA's bulk stage change.
      const first = body.image_ids.map((id) => rows.find((r) => r.id === id)).find(Boolean)!;
      status = nextStatus(first.status);
    }
    const after: ImageRow[] = [];
    for (let i = 0; i < rows.length; i += 5000) {
      const chunk = rows.slice(i, i + 5000).map((r) => r.id);
      after.push(
        ...(await tx
          .update(images)
          .set({ ...(status !== undefined && { status }), ...(updates.is_archived !== undefined && { isArchived: updates.is_archived }), updatedAt: new Date() })
          .where(inArray(images.id, chunk))
          .returning()),
      );
    }
    await adjustCounters(tx, project.id, rows, after);
    await recordEvents(tx, statusEvents(userId, rows, after));
    return { success: true as const, updated: after.length, status: status ?? null, skipped_ids: skipped(body.image_ids, after.map((r) => r.id)) };
  });
}
