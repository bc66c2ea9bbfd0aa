// Reading images: the list of a project (filters, sort, page, total), one image, and the
// metadata of every image of a project by filename.
import { and, count, eq, sql, type SQL } from 'drizzle-orm';
import { alias, PgDialect, type AnyPgColumn } from 'drizzle-orm/pg-core';
import type { AppContext } from '../../context';
import { folders, imageClassStats, imageFolderStats, images, projects } from '../../db/schema';
import type { z } from 'zod';
import type { Image, ListImagesQuery, Pagination } from '../../../contract/images';
import { ROOT_PATH } from '../../../contract/folders';
import { imageFor, projectFieldsInOrg, projectFor } from '../access';
import { imageFilter } from '../image-filter';
import { asAttemptImage, openAttempt } from '../annotations/gt-layer';
import { imageJsonWithFolder } from './json';
import { rowsOf } from '../annotations/store';

/** Stage order for sorting by status; the same expression as the images_folder_stage_idx index. */
/** The columns a list is ordered by, of `images` or of its alias. */
type SortTable = Record<'id' | 'filename' | 'updatedAt' | 'fileSize' | 'annotationCount' | 'mimeType' | 'status' | 'createdAt', AnyPgColumn>;

const stageRank = (t: SortTable) => sql`(CASE ${t.status} WHEN 'new' THEN 0 WHEN 'annotating' THEN 1 WHEN 'review' THEN 2 ELSE 3 END)`;

/** The image a keyset page starts after, under its own name so the list's columns stay the list's. */
const cursorImage = alias(images, 'cursor_image'); // FROM names it by hand: a bare alias in sql`` renders its name only

/** What a list is ordered by, most significant first, on `t`; the id last breaks ties (filename is unique in a project). */
function sortKeys(field: ListImagesQuery['sort_by'], t: SortTable): SQL[] {
  const key = (column: AnyPgColumn) => sql`${column}`;
  switch (field) {
    case 'filename':
      return [key(t.filename)];
    case 'updated_at':
      return [key(t.updatedAt), key(t.id)];
    case 'file_size':
      return [key(t.fileSize), key(t.id)];
    case 'annotation_count':
      return [key(t.annotationCount), key(t.id)];
    case 'mime_type':
      return [key(t.mimeType), key(t.id)];
    case 'status':
      return [stageRank(t), key(t.id)];
    default:
      return [key(t.createdAt), key(t.id)];
  }
}

function sortColumns(field: ListImagesQuery['sort_by'], order: 'asc' | 'desc', t: SortTable = images): SQL[] {
  return sortKeys(field, t).map((k) => (order === 'asc' ? sql`${k} asc` : sql`${k} desc`));
}

/**
 * Whether a search is answered filter first (the matches found by the file-name trigram index,
 * 0021, then sorted) rather than by walking the order's index until a page of matches has passed:
 * when the planner expects at most a quarter of the search's scope (the same filters without the
 * search) to match, and at most 50,000 images. The walk's worst case is matches at the far end of
 * the order: it then reads the whole scope, about 3-6 us a row, while filter first reads its
 * matches at about 11-13 us a row (EXPLAIN ANALYZE, load 14), so up to a quarter of the scope it
 * costs no more than that worst case; the cap bounds it where the scope is large and the walk's
 * page comes early. Measured at load 14-15 (walk / filter first, p50): whole-project "img_01" at
 * 1M (9,800 matches, the oldest 1%) 2,700 / 35 ms; at 100k (10%) 562 / 113 ms; in the root folder
 * of 100k (20k images, 10%) 98 / 69 ms; "img_0" in that folder (every name) 0.6 / 266 ms, which
 * the fixed 50,000-match threshold alone answered filter first.
 */
const FILTER_FIRST_MAX_ROWS = 50_000;
const FILTER_FIRST_MAX_SHARE = 0.25;

/** Both estimates are the planner's (EXPLAIN, no row read), asked at once. */
async function searchFilterFirst(ctx: AppContext, matchCondition: SQL, scopeCondition: SQL): Promise<boolean> {
  const [matches, scope] = await Promise.all([estimatedMatches(ctx, matchCondition), estimatedMatches(ctx, scopeCondition)]);
  return matches <= Math.min(FILTER_FIRST_MAX_ROWS, scope * FILTER_FIRST_MAX_SHARE);
}
/** No limit in effect: only keeps the subquery a subquery. */
const FENCE_LIMIT = 2 ** 31 - 1;

/** The planner's estimate of the images passing `condition` (EXPLAIN: no row is read). */
async function estimatedMatches(ctx: AppContext, condition: SQL): Promise<number> {
  const [row] = await rowsOf<{ 'QUERY PLAN': unknown }>(ctx.db, sql`EXPLAIN (FORMAT JSON) ${ctx.db.select({ one: sql`1` }).from(images).where(condition)}`);
  const plan = typeof row?.['QUERY PLAN'] === 'string' ? JSON.parse(row['QUERY PLAN']) : row?.['QUERY PLAN'];
  return Number((plan as { Plan?: { 'Plan Rows'?: number } }[] | undefined)?.[0]?.Plan?.['Plan Rows'] ?? Infinity);
}

/**
 * The page's ids, filter first: the matching rows' sort columns in a subquery with a LIMIT (a
 * fence: PostgreSQL does not merge it into the outer query, so it finds them by the filter's own
 * index instead of walking the order's; drizzle leaves out an OFFSET 0), then the order.
 */
function filteredIds(ctx: AppContext, condition: SQL, field: ListImagesQuery['sort_by'], order: 'asc' | 'desc', limit: number, offset: number) {
  const i = images;
  const matches = ctx.db
    .select({ id: i.id, filename: i.filename, updatedAt: i.updatedAt, fileSize: i.fileSize, annotationCount: i.annotationCount, mimeType: i.mimeType, status: i.status, createdAt: i.createdAt })
    .from(i)
    .where(condition)
    .limit(FENCE_LIMIT)
    .as('matches');
  return ctx.db.select({ id: matches.id }).from(matches).orderBy(...sortColumns(field, order, matches as unknown as SortTable)).limit(limit).offset(offset).as('page_ids');
}

/**
 * The images after image `after` in the list's order (keyset paging): one row comparison on the
 * order's columns against that image's, which an index of the order reads from the right place
 * instead of skipping an OFFSET's rows. An `after` outside the project matches nothing.
 */
function afterCondition(projectId: string, after: string, field: ListImagesQuery['sort_by'], order: 'asc' | 'desc'): SQL {
  const row = sql.join(sortKeys(field, images), sql`, `);
  const cursorRow = sql.join(sortKeys(field, cursorImage), sql`, `);
  const from = sql`SELECT ${cursorRow} FROM ${images} AS ${sql.identifier('cursor_image')} WHERE ${cursorImage.id} = ${after} AND ${cursorImage.projectId} = ${projectId}`;
  return order === 'asc' ? sql`(${row}) > (${from})` : sql`(${row}) < (${from})`;
}

/**
 * The filters only the image rows know: no trigger-kept counter holds them. The one description
 * from which `totalSource` picks how a list's total is found.
 */
function rowOnlyFilters(q: ListImagesQuery): (keyof ListImagesQuery)[] {
  const active: Partial<Record<keyof ListImagesQuery, boolean>> = {
    search: q.search !== undefined,
    min_file_size: q.min_file_size !== undefined,
    max_file_size: q.max_file_size !== undefined,
    assignee: !!q.assignee,
    reviewer: !!q.reviewer,
    has_open_issues: !!q.has_open_issues,
    has_pending_predictions: !!q.has_pending_predictions,
    class: !!q.class?.length,
    has_annotations: !!q.has_annotations,
    min_annotations: q.min_annotations !== undefined,
    max_annotations: q.max_annotations !== undefined,
  };
  return (Object.keys(active) as (keyof ListImagesQuery)[]).filter((k) => active[k]);
}

/**
 * Where a list's total comes from, cheapest first: the project counters (the archive filter
 * alone), the folder stats (folder, archive, stage, mime), image_class_stats (one class, at most
 * a folder and the archive filter: 0015_image_class_stats.sql, a few rows to add up instead of
 * counting half of 100k images, 25-45 ms), else a count of the matching rows that stops at the
 * cap (`cappedCount`).
 */
type TotalSource = { kind: 'project' } | { kind: 'folder_stats' } | { kind: 'class_stats'; className: string } | { kind: 'rows' };

function totalSource(q: ListImagesQuery, folderPath: string | undefined, mime: string | null): TotalSource {
  const rowFilters = rowOnlyFilters(q);
  const stageOrMime = !!q.status || !!mime; // the folder stats know these, the class stats do not
  if (rowFilters.length === 0) return folderPath === undefined && !stageOrMime && q.is_archived !== 'all' ? { kind: 'project' } : { kind: 'folder_stats' };
  const classes = new Set(q.class);
  if (rowFilters.length === 1 && rowFilters[0] === 'class' && classes.size === 1 && !stageOrMime) return { kind: 'class_stats', className: [...classes][0]! };
  return { kind: 'rows' };
}

/** The images passing `condition`, counted up to `cap` + 1 only: more than `cap` answers cap + 1. */
async function cappedCount(ctx: AppContext, condition: SQL, cap: number): Promise<number> {
  const matches = ctx.db.select({ one: sql`1` }).from(images).where(condition).limit(cap + 1).as('matches');
  const [row] = await ctx.db.select({ n: count() }).from(matches);
  return row?.n ?? 0;
}

/** The images the stats rows matching `where` count: a subquery, asked with the access check. */
const statsSum = (stats: typeof imageClassStats | typeof imageFolderStats, where: SQL | undefined) => sql<number>`(SELECT coalesce(sum(${stats.imageCount}), 0) FROM ${stats} WHERE ${where})`.mapWith(Number);

/** Images having `className` in the project, by the archive filter, in one folder or all: a subquery, asked with the access check. */
function classStatsTotal(projectId: string, className: string, archived: ListImagesQuery['is_archived'], folderPath: string | undefined): SQL<number> {
  const where = and(
    eq(imageClassStats.projectId, projectId),
    eq(imageClassStats.className, className),
    archived === 'all' ? undefined : eq(imageClassStats.isArchived, archived === 'true'),
    folderPath === undefined ? undefined : eq(imageClassStats.virtualFolderPath, folderPath),
  );
  return statsSum(imageClassStats, where);
}

/**
 * Folder, archive, status and mime filters: the trigger-kept folder stats hold the total, a few rows
 * to add up instead of counting a 20k-image folder (a subquery, asked with the access check).
 */
function folderStatsTotal(projectId: string, q: ListImagesQuery, folderPath: string | undefined, mime: string | null): SQL<number> {
  const where = and(
    eq(imageFolderStats.projectId, projectId),
    q.is_archived === 'all' ? undefined : eq(imageFolderStats.isArchived, q.is_archived === 'true'),
    folderPath === undefined ? undefined : eq(imageFolderStats.virtualFolderPath, folderPath),
    q.status ? eq(imageFolderStats.status, q.status) : undefined,
    mime ? eq(imageFolderStats.mimeType, mime) : undefined,
  );
  return statsSum(imageFolderStats, where);
}

/**
 * The list's total where no count of rows is needed, read by the access check's query (one round
 * trip fewer): the project counters, or the folder or class stats; null for a count of rows.
 */
function statsTotal(source: TotalSource, projectId: string, q: ListImagesQuery, folderPath: string | undefined, mime: string | null): SQL<number | null> {
  switch (source.kind) {
    case 'project':
      return sql<number>`${q.is_archived === 'true' ? projects.archivedImages : projects.imageCount}`;
    case 'folder_stats':
      return folderStatsTotal(projectId, q, folderPath, mime);
    case 'class_stats':
      return classStatsTotal(projectId, source.className, q.is_archived, folderPath);
    default:
      return sql<null>`NULL`;
  }
}

/** A timestamp as `Date.toISOString` writes it (UTC, milliseconds): what `imageJson` answers. */
const isoText = (column: AnyPgColumn) => sql<string>`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The columns of an image as the API answers it (`imageJson` in json.ts: the same keys in the same
 * order, so `row_to_json` of a row is the image's JSON: `pageOf`), timestamps as the text
 * `toISOString` writes. (Session 22's row JSON, a `row_to_json` subquery per row, cost PostgreSQL
 * 2.3 ms more a page than plain columns and was taken back; `pageOf`'s one `row_to_json` of the
 * page's own row costs it about 0.9 ms more and saves the server about as much: docs/performance/image-list.md.)
 * images-list-json.test.ts holds a listed image equal to `imageJson`. `folder_id` is the caller's
 * (the folder's id column, or one id for a page in one folder).
 */
function imageColumnList(folderId: SQL | AnyPgColumn): Record<keyof Image, SQL | AnyPgColumn> {
  const i = images;
  return {
    id: i.id,
    project_id: i.projectId,
    organization_id: i.organizationId,
    filename: i.filename,
    gcs_uri: i.gcsUri,
    gcs_path: i.gcsPath,
    status: i.status,
    virtual_folder_path: i.virtualFolderPath,
    folder_id: folderId,
    file_size: i.fileSize,
    mime_type: i.mimeType,
    image_width: i.imageWidth,
    image_height: i.imageHeight,
    created_at: isoText(i.createdAt),
    updated_at: isoText(i.updatedAt),
    annotation_count: i.annotationCount,
    is_archived: i.isArchived,
    is_edited: i.isEdited,
    thumbnail_path: i.thumbnailPath,
    assignee_id: i.assigneeId,
    reviewer_id: i.reviewerId,
    open_issues: i.openIssues,
    pending_predictions: i.pendingPredictions,
    overlap: i.overlap,
  };
}

/**
 * The column list as SQL text, each column under its API name (`AS "key"`, so the driver's rows are
 * the API's objects as they come), rendered once: the columns before `folder_id` and after it.
 * Drizzle rendering these 24 columns on every request was about half of its ~1 ms of building a
 * page's queries (a CPU profile of 400 pages, 1M project). Names of the schema only, no value: a
 * column given a parameter would fail here, at start.
 */
const [COLUMNS_BEFORE_FOLDER, COLUMNS_AFTER_FOLDER] = (() => {
  const columns = Object.entries(imageColumnList(sql`NULL`));
  const at = columns.findIndex(([key]) => key === 'folder_id');
  const render = (part: typeof columns) => {
    const query = new PgDialect().sqlToQuery(sql.join(part.map(([key, column]) => sql`${column} AS ${sql.identifier(key)}`), sql`, `));
    if (query.params.length > 0) throw new Error('the image list columns must not carry parameters');
    return sql.raw(query.sql);
  };
  return [render(columns.slice(0, at)), render(columns.slice(at + 1))];
})();

/** The page's select list: the pre-rendered columns around this page's `folder_id`. */
const imageColumns = (folderId: SQL | AnyPgColumn) => ({ before: COLUMNS_BEFORE_FOLDER, folder_id: sql`${folderId}`.as('folder_id'), after: COLUMNS_AFTER_FOLDER });

/**
 * The page's rows as JSON text written by the database (`row_to_json` of each row of the page's
 * query, whose columns carry the API's keys in order: `imageColumnList`). The server copies the text
 * into the answer: the driver reads one value a row instead of 24, and nothing is stringified again
 * in Node. PostgreSQL's JSON escapes strings as JSON.stringify does (\b \f \n \r \t, other control
 * characters as lowercase \u00XX, the rest as is), and the timestamps are already `toISOString`'s
 * text; images-list-json.test.ts holds the bytes equal. The CPU moves rather than vanishes on
 * PostgreSQL: the server's main thread spends 0.65-0.95 ms less a 1M page, the backend 0.8-1.2 ms
 * more (A/B at load 6-9); on PGlite, in process, a page of 201 rows costs half (5.1 against 10 ms).
 * Per row and not one `string_agg` per page:
 * aggregating the 200 texts cost the backend 6.2-7.5 ms a page against 2.2-3.1 ms (load 0.7-0.9).
 * The outer query only projects its subquery, whose ORDER BY keeps it a subquery (PostgreSQL does
 * not pull up a sorted subquery), so the rows come in the page's order.
 */
async function pageOf(ctx: AppContext, query: { getSQL(): SQL }): Promise<string[]> {
  const page = sql.identifier('page');
  const rows = await rowsOf<{ json: string }>(ctx.db, sql`SELECT row_to_json(${page})::text AS ${sql.identifier('json')} FROM (${query.getSQL()}) AS ${page}`);
  return rows.map((row) => row.json);
}

/** The id of an image of the page (the next page's cursor): its JSON parsed, one row, not an id column read for every row. */
const idOf = (json: string): string => (JSON.parse(json) as Image).id;

/**
 * One page's images as the API answers them, up to `limit` of them. Page 1 reads its rows at once.
 * A later page picks its ids first, by the index of the order and filters, and reads whole and
 * joins to their folder only those rows (a deferred join): the rows its OFFSET skips cost an index
 * entry each instead of a table row and a folder lookup (0018 puts the class names and annotation
 * count in the newest-first indexes, so a class filter is tested there too). On 100k images page 50
 * of the whole project went from 150 to 21 ms in the database (load 14); page 1 this way cost a few
 * ms more than directly. In one folder every row has that folder's id (one lookup for the page, no
 * join).
 */
async function pageRows(ctx: AppContext, projectId: string, condition: SQL, q: ListImagesQuery, limit: number, offset: number, folderPath: string | undefined, filterFirst: boolean): Promise<string[]> {
  const order = sortColumns(q.sort_by, q.sort_order);
  const ids = filterFirst ? filteredIds(ctx, condition, q.sort_by, q.sort_order, limit, offset) : ctx.db.select({ id: images.id }).from(images).where(condition).orderBy(...order).limit(limit).offset(offset).as('page_ids');
  const direct = offset === 0 && !filterFirst;
  if (folderPath === undefined) {
    const inFolder = and(eq(folders.projectId, images.projectId), eq(folders.fullPath, images.virtualFolderPath));
    const columns = imageColumns(folders.id);
    return pageOf(
      ctx,
      direct
        ? ctx.db.select(columns).from(images).leftJoin(folders, inFolder).where(condition).orderBy(...order).limit(limit)
        : ctx.db.select(columns).from(ids).innerJoin(images, eq(images.id, ids.id)).leftJoin(folders, inFolder).orderBy(...order),
    );
  }
  const folderId = folderPath === ROOT_PATH ? sql`NULL::uuid` : sql`(SELECT ${folders.id} FROM ${folders} WHERE ${folders.projectId} = ${projectId} AND ${folders.fullPath} = ${folderPath} LIMIT 1)`;
  const columns = imageColumns(folderId);
  return pageOf(ctx, direct ? ctx.db.select(columns).from(images).where(condition).orderBy(...order).limit(limit) : ctx.db.select(columns).from(ids).innerJoin(images, eq(images.id, ids.id)).orderBy(...order));
}

/**
 * `{"images":[...],"pagination":...}` as UTF-8 bytes: each row's JSON text (the database's,
 * `pageOf`) written into one buffer. One string of the whole page would be a string of many joined
 * parts, which the compressor (or the socket) must first flatten and then encode: 1.1 ms more CPU
 * for a page of 200 than 200 small strings encoded one by one (1.76 against 0.70 ms, measured
 * alone, load 13); one buffer instead of a Buffer each and a concat saves 0.3-0.4 ms more (a real
 * 174 KB page, load 3). Same bytes as JSON.stringify of the object: images-list-json.test.ts.
 */
function listBody(rows: string[], pagination: z.infer<typeof Pagination>): Buffer {
  let body = Buffer.allocUnsafe(4096 + rows.length * 1024); // a row is ~870 bytes
  let length = 0;
  const append = (text: string) => {
    // UTF-8 takes at most 3 bytes for a UTF-16 unit (a surrogate pair's 4 bytes are 2 units)
    if (length + text.length * 3 > body.length) {
      const bigger = Buffer.allocUnsafe(Math.max(body.length * 2, length + text.length * 3));
      body.copy(bigger, 0, 0, length);
      body = bigger;
    }
    length += body.write(text, length);
  };
  append('{"images":[');
  rows.forEach((row, i) => {
    if (i > 0) append(',');
    append(row);
  });
  append(`],"pagination":${JSON.stringify(pagination)}}`);
  return body.subarray(0, length);
}

/**
 * A page of a project's images as the JSON bytes of `ListImagesResponse` (the route sends them as
 * they are: the rows' JSON comes from the database, `pageOf`, and is not walked again by the
 * response schema).
 */
export async function listImages(ctx: AppContext, userId: string, projectId: string, q: ListImagesQuery): Promise<Buffer> {
  // Inputs first, so a bad one never costs a query. The filters are the export's too (../image-filter.ts).
  const { where: condition, folderPath, mime } = imageFilter(projectId, q, userId);
  const source = totalSource(q, folderPath, mime);
  const cap = ctx.config.listTotalCap;

  // The access check (with the total, when the counters or stats hold it), the page and a count of
  // rows run at once (one round trip instead of three on PostgreSQL); nothing is answered unless the
  // access check passes. The page reads one row more than it shows: that row says whether a next
  // page exists when the total is capped.
  const access = projectFieldsInOrg(ctx, userId, projectId, 'images.read', q.org_id, { total: statsTotal(source, projectId, q, folderPath, mime) });
  // A keyset page (after=) starts after its cursor image instead of skipping rows; its total is the
  // whole list's, as a numbered page's is.
  const offset = q.after ? 0 : (q.page - 1) * q.limit;
  const pageCondition = q.after ? and(condition, afterCondition(projectId, q.after, q.sort_by, q.sort_order))! : condition;
  // A search the planner expects few matches for, against its scope, is found by its index first
  // (PostgreSQL with pg_trgm; elsewhere the estimate is of a scan, and small projects are cheap either way). The
  // estimate is chained into the page's query, so every promise here has its handler (Promise.all)
  // before anything is awaited: a refused access check never lands unhandled.
  const rowsQuery = (q.search ? searchFilterFirst(ctx, pageCondition, imageFilter(projectId, { ...q, search: undefined }, userId).where) : Promise.resolve(false)).then((filterFirst) =>
    pageRows(ctx, projectId, pageCondition, q, q.limit + 1, offset, folderPath, filterFirst),
  );
  // A numbered page at or past the cap that has rows proves the count would stop at the cap (its
  // OFFSET alone passed `cap` matches): the count runs only when such a page comes back empty. Page
  // 20 of a two-class filter at 100k (OFFSET 3,800) no longer pays a second scan beside its walk.
  const countUnlessPageHasRows = source.kind === 'rows' && !q.after && offset >= cap;
  const rowCount: Promise<number | null> = source.kind === 'rows' && !countUnlessPageHasRows ? cappedCount(ctx, condition, cap) : Promise.resolve(null);
  const [{ total: statsCounted }, fetched, rowsCounted] = await Promise.all([access, rowsQuery, rowCount]);
  const counted = countUnlessPageHasRows ? (fetched.length > 0 ? cap + 1 : await cappedCount(ctx, condition, cap)) : (rowsCounted ?? statsCounted ?? 0);
  const more = fetched.length > q.limit;
  const rows = more ? fetched.slice(0, q.limit) : fetched;
  let total = counted;
  let totalCapped = false;
  if (total > cap && source.kind === 'rows') {
    // Counting stopped at the cap. The last page knows the exact total; any other page says
    // "at least": the cap, or the images up to this page when it lies past the cap (an empty page
    // past the end knows only the cap). A keyset page does not know how many come before it.
    if (!more && rows.length > 0 && !q.after) total = offset + rows.length;
    else [total, totalCapped] = [Math.max(cap, rows.length > 0 ? offset + rows.length : 0), true];
  }
  const totalPages = Math.ceil(total / q.limit);
  const hasNext = totalCapped || q.after ? more : q.page < totalPages;
  const pagination: z.infer<typeof Pagination> = { page: q.page, limit: q.limit, totalPages, totalItems: total, totalCapped, hasNext, hasPrev: q.page > 1, nextCursor: hasNext && rows.length > 0 ? idOf(rows[rows.length - 1]!) : null };
  return listBody(rows, pagination);
}

export async function getImage(ctx: AppContext, userId: string, imageId: string, orgId?: string): Promise<Image> {
  const row = await imageFor(ctx, userId, imageId, 'images.read', orgId);
  const image = await imageJsonWithFolder(ctx.db, row);
  // A ground-truth image the caller is attempting looks to them as the queue showed it (issue 36 §2).
  return (await openAttempt(ctx.db, row.id, userId)) ? asAttemptImage(image, userId) : image;
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
