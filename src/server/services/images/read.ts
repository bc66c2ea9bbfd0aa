// Reading images: the list of a project (filters, sort, page, total), one image, and the
// metadata of every image of a project by filename.
import { and, asc, count, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { folders, imageClassStats, imageFolderStats, images } from '../../db/schema';
import type { Image, ListImagesQuery } from '../../../contract/images';
import { imageFor, projectFor, projectInOrg } from '../access';
import { imageFilter } from '../image-filter';
import { folderIdOf } from './folder-path';
import { imageJson, imageJsonWithFolder } from './json';

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

/**
 * The class, when a list's filters are one class plus at most a folder and the archive filter: its
 * total is then in image_class_stats (kept by triggers on images, 0015_image_class_stats.sql), a few
 * rows to add up instead of counting every image of a common class (half of 100k: 25-45 ms).
 */
function oneClassOnly(q: ListImagesQuery, mime: string | null): string | undefined {
  const classes = new Set(q.class ?? []);
  if (classes.size !== 1 || q.status || mime || q.search !== undefined || q.min_file_size !== undefined || q.max_file_size !== undefined) return undefined;
  if (q.assignee || q.reviewer || q.has_open_issues || q.has_annotations || q.min_annotations !== undefined || q.max_annotations !== undefined) return undefined;
  return [...classes][0];
}

/** Images having `className` in the project, by the archive filter, in one folder or all. */
async function classImageCount(ctx: AppContext, projectId: string, className: string, archived: ListImagesQuery['is_archived'], folderPath: string | undefined): Promise<number> {
  const [row] = await ctx.db
    .select({ n: sql<number>`coalesce(sum(${imageClassStats.imageCount}), 0)`.mapWith(Number) })
    .from(imageClassStats)
    .where(
      and(
        eq(imageClassStats.projectId, projectId),
        eq(imageClassStats.className, className),
        archived === 'all' ? undefined : eq(imageClassStats.isArchived, archived === 'true'),
        folderPath === undefined ? undefined : eq(imageClassStats.virtualFolderPath, folderPath),
      ),
    );
  return row?.n ?? 0;
}

/**
 * Folder, archive, status and mime filters: the trigger-kept folder stats hold the total, a few rows
 * to add up instead of counting a 20k-image folder.
 */
async function folderStatsCount(ctx: AppContext, projectId: string, q: ListImagesQuery, folderPath: string | undefined, mime: string | null): Promise<number> {
  const [row] = await ctx.db
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
    );
  return row?.n ?? 0;
}

export async function listImages(ctx: AppContext, userId: string, projectId: string, q: ListImagesQuery) {
  // Inputs first, so a bad one never costs a query. The filters are the export's too (../image-filter.ts).
  const { where: condition, folderPath, mime } = imageFilter(projectId, q, userId);
  // The folder stats do not know people, issues or annotations: those filters count their rows.
  const scansRows =
    q.search !== undefined ||
    q.min_file_size !== undefined ||
    q.max_file_size !== undefined ||
    !!q.assignee ||
    !!q.reviewer ||
    !!q.has_open_issues ||
    !!q.class?.length ||
    !!q.has_annotations ||
    q.min_annotations !== undefined ||
    q.max_annotations !== undefined;
  const onlyArchiveFilter = folderPath === undefined && !q.status && !mime && !scansRows && q.is_archived !== 'all';
  const countedClass = oneClassOnly(q, mime);

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
    : countedClass !== undefined
      ? classImageCount(ctx, projectId, countedClass, q.is_archived, folderPath)
      : scansRows
        ? ctx.db.select({ n: count() }).from(images).where(condition).then((r) => r[0]?.n ?? 0)
        : folderStatsCount(ctx, projectId, q, folderPath, mime);
  const [project, rows, counted] = await Promise.all([access, rowsQuery, totalQuery]);
  const total = counted ?? (q.is_archived === 'true' ? project.archivedImages : project.imageCount);
  const totalPages = Math.ceil(total / q.limit);
  return {
    images: rows.map((r) => imageJson(r.image, r.folderId)),
    pagination: { page: q.page, limit: q.limit, totalPages, totalItems: total, hasNext: q.page < totalPages, hasPrev: q.page > 1 },
  };
}

export async function getImage(ctx: AppContext, userId: string, imageId: string, orgId?: string): Promise<Image> {
  const row = await imageFor(ctx, userId, imageId, 'images.read', orgId);
  return imageJsonWithFolder(ctx.db, row);
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
