// Annotations of an image: load (streamed), save (whole list or changes only) with versions,
// batch save, the change log (changes since a version, history, an earlier version, restore),
// status and stats. The rows, the version header and the log live in ./store.ts and ./history.ts.
//
// A save is one transaction: the image row is locked (SELECT ... FOR UPDATE), so saves of one
// image run one after the other and the version check cannot race; the change is written as
// version + 1 touching only the rows it names, the image's annotation_count and status change
// with it, and the project counters follow through adjustCounters (services/images.ts).
// Annotations are stored as the client sent them (unknown keys such as sam2_area kept) once every
// one passed the stored-annotation schema.
import { and, count, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { images, projects } from '../../db/schema';
import { ApiError, errors } from '../../errors';
import { describePath, findAnnotationProblem } from '../../../contract/annotation-check';
import { findAttributeProblem, type HeldAttributes } from '../../../contract/annotations-attributes';
import type { ProjectClass } from '../../../contract/projects';
import {
  ANNOTATION_KINDS,
  CONFLICT_CURRENT_MAX_SHAPES,
  MAX_SAVE_BYTES,
  SaveChangesRequest,
  SaveDataRequest,
  type AnnotationStatsResponse,
  type BatchSaveResult,
  type ChangesResponse,
  type HistoryResponse,
  type LoadDataResponse,
  type RestoreRequest,
  type SaveDataResponse,
} from '../../../contract/annotation-api';
import type { ImageStatus } from '../../../contract/images';
import { adjustCounters, setImageStatus, type ImageRow } from '../images';
import { imageFor, projectFor, type Permission } from '../access';
import { allTexts, applyChange, lockHeader, readAnnotations, rowsOf, storedTexts, type ChangeSet, type Conn, type Header } from './store';
import { annotationsAt, changesSince, historyOf } from './history';
import { COLUMNS_FORMAT, encodeBlock } from '../../../contract/annotation-columns';

export { readAnnotations, readAnnotationsOf } from './store';
export { startHistorySweep, sweepHistory, versionsAfter, type LoggedVersion } from './history';
export { CHANGES_CHANNEL } from './store';

type Annotation = Record<string, unknown>;

/** The image, if the caller may `permission` in its organization and it belongs to `projectId` (when given); 404 otherwise. */
export async function annotatedImage(ctx: AppContext, userId: string, imageId: string, projectId: string | undefined, permission: Permission): Promise<ImageRow> {
  const row = await imageFor(ctx, userId, imageId, permission);
  if (projectId && row.projectId !== projectId) throw errors.notFound('Image');
  return row;
}

/** The version header as clients see it (version 0 and no saved_at while nothing was ever saved). */
export async function headOf(db: Conn, imageId: string): Promise<{ version: number; savedAt: string | null }> {
  const [h] = await rowsOf<{ version: number; updated_at: string | Date }>(db, sql`SELECT version, updated_at FROM annotation_documents WHERE image_id = ${imageId}`);
  const version = h?.version ?? 0;
  // The upload writes an empty version 0; only a save gives the annotations a saved_at.
  return { version, savedAt: version > 0 && h ? new Date(h.updated_at).toISOString() : null };
}

/** Shapes per chunk of a streamed load (and per block of the column encoding). */
const LOAD_CHUNK_SHAPES = 2000;

/**
 * load-data's body as JSON text chunks, in paint order: one statement (so one snapshot of rows
 * and version) aggregates the rows in chunks of LOAD_CHUNK_SHAPES in the database, and the route
 * streams them out (compressed when the client accepts it). Plain: the rows' text as stored,
 * never parsed. `columns` (contract/annotation-columns.ts): each chunk becomes a block of columns,
 * one chunk per turn of the event loop as the stream is read, so other requests go on meanwhile.
 */
export async function loadDataChunks(ctx: AppContext, userId: string, imageId: string, query: { project_id?: string; encoding?: 'columns' }): Promise<AsyncIterable<string> | string[]> {
  await annotatedImage(ctx, userId, imageId, query.project_id, 'annotations.read');
  const rows = await rowsOf<{ version: number; updated_at: string | Date; n: number | string | null; body: string | null }>(
    ctx.db,
    sql`SELECT d.version, d.updated_at, c.n, c.body FROM annotation_documents d
        LEFT JOIN LATERAL (
          SELECT chunk, count(*) AS n, string_agg(data, ',' ORDER BY seq) AS body FROM (
            SELECT data::text AS data, seq, (row_number() OVER (ORDER BY seq) - 1) / ${LOAD_CHUNK_SHAPES} AS chunk
            FROM annotations WHERE image_id = d.image_id
          ) t GROUP BY chunk
        ) c ON true
        WHERE d.image_id = ${imageId}
        ORDER BY c.chunk`,
  );
  const version = rows[0]?.version ?? 0;
  const savedAt = JSON.stringify(version > 0 ? new Date(rows[0]!.updated_at).toISOString() : null);
  const bodies = rows.filter((r) => r.body !== null).map((r) => r.body!);
  if (query.encoding !== 'columns') {
    return ['{"annotations":[', ...bodies.map((b, i) => (i === 0 ? b : `,${b}`)), `],"version":${version},"saved_at":${savedAt}}`];
  }
  const count = rows.reduce((n, r) => n + Number(r.n ?? 0), 0);
  return (async function* () {
    yield `{"format":"${COLUMNS_FORMAT}","count":${count},"version":${version},"saved_at":${savedAt},"annotations":[`;
    for (const [i, body] of bodies.entries()) {
      if (i > 0) await new Promise((resolve) => setImmediate(resolve));
      yield (i === 0 ? '' : ',') + JSON.stringify(encodeBlock(JSON.parse(`[${body}]`) as Annotation[]));
    }
    yield ']}';
  })();
}

// --- validation

/**
 * Throws 400 naming the first bad annotation (src/contract/annotation-check.ts has the rules), or
 * the first attribute that does not fit its class's definition (contract/annotations-attributes.ts):
 * `{code: 'invalid_annotation', index, attribute}`.
 */
export function validateAnnotations(raw: unknown[], classes: readonly ProjectClass[] | ReadonlySet<string>): void {
  const names = classes instanceof Set ? (classes as ReadonlySet<string>) : new Set((classes as readonly ProjectClass[]).map((c) => c.name));
  const problem = findAnnotationProblem(raw, names);
  if (problem) throw errors.badRequest(problem.message, problem.code, { index: problem.index });
  if (classes instanceof Set) return;
  const attr = findAttributeProblem(raw, new Map((classes as readonly ProjectClass[]).map((c) => [c.name, c])));
  if (attr) throw errors.badRequest(attr.message, 'invalid_annotation', { index: attr.index, attribute: attr.attribute });
}

/**
 * validateAnnotations for a save of one image: an attribute value saved before its class's
 * definition changed (an option removed, a kind changed) stays valid while the save leaves it
 * and the shape's class unchanged, so a shape whose outline is edited still saves; new or changed
 * values, and every value of a shape given another class, are checked.
 */
async function validateForImage(db: Conn, imageId: string, raw: unknown[], classes: readonly ProjectClass[]): Promise<void> {
  const byName = new Map(classes.map((c) => [c.name, c]));
  const names = new Set(byName.keys());
  const problem = findAnnotationProblem(raw, names);
  if (problem) throw errors.badRequest(problem.message, problem.code, { index: problem.index });
  if (!findAttributeProblem(raw, byName)) return;
  const ids = raw.map((a) => (a as { id: string }).id);
  const previous = new Map<string, HeldAttributes>();
  for (const [id, row] of await storedTexts(db, imageId, ids)) {
    const held = JSON.parse(row.text) as { name?: unknown; attributes?: unknown };
    previous.set(id, { name: held.name, attributes: held.attributes });
  }
  const attr = findAttributeProblem(raw, byName, previous);
  if (attr) throw errors.badRequest(attr.message, 'invalid_annotation', { index: attr.index, attribute: attr.attribute });
}

// --- save

/** What a save changes, worked out inside its transaction on the locked header. */
type Prepare = (tx: Conn, header: Header) => Promise<ChangeSet> | ChangeSet;

export async function saveData(ctx: AppContext, userId: string, body: SaveDataRequest): Promise<SaveDataResponse> {
  return commit(ctx, userId, body, body.base_version, async (classes) => {
    await validateForImage(ctx.db, body.image_id, body.annotations, classes);
    const list = body.annotations as Annotation[];
    return async (tx) => {
      // The list is the document: what it lacks is removed; rows are written only where they differ.
      const stored = await allTexts(tx, body.image_id);
      const listed = new Set(list.map((a) => a.id as string));
      const removedIds = stored.filter((r) => !listed.has(r.id)).map((r) => r.id);
      return { upserts: list, removedIds, order: keepsOrder(stored, list) ? undefined : list.map((a) => a.id as string) };
    };
  });
}

/** True when the list keeps the stored shapes in their paint order and adds new ones only on top (no renumbering needed). */
function keepsOrder(stored: readonly { id: string; seq: number }[], list: readonly Annotation[]): boolean {
  const seqs = new Map(stored.map((r) => [r.id, r.seq]));
  let last = -1;
  let sawNew = false;
  for (const a of list) {
    const seq = seqs.get(a.id as string);
    if (seq === undefined) {
      sawNew = true;
      continue;
    }
    if (sawNew || seq < last) return false;
    last = seq;
  }
  return true;
}

/**
 * Applies upserts and removals on `base_version` (a change without a base applies to whatever is
 * current: assisted segmentation's append). `rebase` (the save-changes call and batch entries): a
 * stale base whose shapes nobody changed since is applied on the head, the answer carrying
 * `rebased_from` and the skipped `changes`; without it (save-segmentation) a stale base is a 409.
 */
export async function saveChanges(
  ctx: AppContext,
  userId: string,
  body: Omit<SaveChangesRequest, 'base_version'> & { base_version?: number },
  opts: { rebase?: boolean } = {},
): Promise<SaveDataResponse> {
  const touched = opts.rebase ? [...body.upserts.map((a) => String((a as { id?: unknown } | null)?.id)), ...body.removed_ids] : undefined;
  return commit(ctx, userId, body, body.base_version, async (classes) => {
    await validateForImage(ctx.db, body.image_id, body.upserts, classes);
    const upserts = new Set(body.upserts.map((a) => (a as { id: string }).id));
    const both = body.removed_ids.find((id) => upserts.has(id));
    if (both !== undefined) throw errors.badRequest(`Annotation "${both.slice(0, 100)}" is both changed and removed`, 'conflicting_changes');
    return () => ({ upserts: body.upserts as Annotation[], removedIds: body.removed_ids });
  }, { rebase: touched });
}

/** Makes the annotations of an earlier version current again, as a new version that says which it restored. */
export async function restoreVersion(ctx: AppContext, userId: string, body: RestoreRequest): Promise<SaveDataResponse> {
  const image = await annotatedImage(ctx, userId, body.image_id, body.project_id, 'annotations.write');
  return commit(ctx, userId, { ...body, image_filename: image.filename }, body.base_version, () => async (tx, header) => {
    if (body.version >= header.version) throw errors.badRequest(`Version ${body.version} is not earlier than the current version ${header.version}`, 'invalid_version');
    const target = await annotationsAt(tx, body.image_id, body.version, header.version);
    if (!target) throw errors.gone(`Version ${body.version} is no longer kept (the history keeps ${ctx.config.annotationHistoryDays} days)`, 'history_expired');
    const kept = new Set(target.map((a) => a.id as string));
    const removedIds = (await allTexts(tx, body.image_id)).filter((r) => !kept.has(r.id)).map((r) => r.id);
    return { upserts: target, removedIds };
  }, { restoredFrom: body.version });
}

/**
 * One save: checks the image and the filename, lets `prepare` validate against the project's
 * classes, then in one transaction locks the image and the version header, checks base_version
 * (409 with what changed since, and the whole document while it is small), applies the change
 * as version + 1 and moves the counters and status with it.
 *
 * `opts.rebase` (save-changes: the ids it upserts and removes): a stale base is no conflict when
 * none of these ids changed in the versions after it (untouchedSince, on the change log); the
 * change is then applied on the head, and the answer says so (`rebased_from`) with the net change
 * it skipped (`changes`, read after the commit). The versions up to the head seen before the lock
 * are checked before it, so the lock waits only for those saved meanwhile (most often none).
 */
async function commit(
  ctx: AppContext,
  userId: string,
  body: { image_id: string; project_id: string; image_filename: string },
  baseVersion: number | undefined,
  prepare: (classes: readonly ProjectClass[]) => Prepare | Promise<Prepare>,
  opts: { restoredFrom?: number; rebase?: readonly string[] } = {},
): Promise<SaveDataResponse> {
  const image = await annotatedImage(ctx, userId, body.image_id, body.project_id, 'annotations.write');
  if (body.image_filename !== image.filename) {
    throw errors.badRequest(`image_filename "${body.image_filename.slice(0, 200)}" is not the image's filename "${image.filename}"`, 'filename_mismatch');
  }
  const [project] = await ctx.db.select({ classes: projects.classes }).from(projects).where(eq(projects.id, image.projectId)).limit(1);
  if (!project) throw errors.notFound('Image');
  const changeOf = await prepare(project.classes);

  // Rebase: the versions after the base up to the head of now, checked outside the lock.
  const touched = opts.rebase;
  let checkedUpTo = baseVersion;
  if (touched && baseVersion !== undefined) {
    const seen = (await headOf(ctx.db, image.id)).version;
    if (seen > baseVersion) {
      if (!(await untouchedSince(ctx.db, image.id, touched, baseVersion, seen))) throw await staleBase(ctx, image.id, baseVersion);
      checkedUpTo = seen;
    }
  }

  const saved = await ctx.db.transaction(async (tx) => {
    const [before] = await tx.select().from(images).where(eq(images.id, image.id)).for('update');
    if (!before) throw errors.notFound('Image');
    const header = await lockHeader(tx, image.id, before.projectId);
    let rebasedFrom: { version: number; savedAt: Date } | undefined;
    if (baseVersion !== undefined && baseVersion !== header.version) {
      // A stale base leaves the lock at once; what changed is read after it, so other saves need not wait for that.
      if (!touched || baseVersion > header.version) return null;
      if (header.version > checkedUpTo! && !(await untouchedSince(tx, image.id, touched, checkedUpTo!, header.version))) return null;
      rebasedFrom = { version: header.version, savedAt: header.updatedAt };
    }
    const now = ctx.now?.() ?? new Date();
    const applied = await applyChange(tx, image.id, header, await changeOf(tx, header), { userId, now, restoredFrom: opts.restoredFrom });
    const newCount = Math.max(0, before.annotationCount + applied.added - applied.removed);
    // Spec section 4 "Image status": the server moves a new image with annotations to annotating.
    const status: ImageStatus = before.status === 'new' && newCount > 0 ? 'annotating' : before.status;
    const [after] = await tx.update(images).set({ annotationCount: newCount, status, updatedAt: now }).where(eq(images.id, image.id)).returning();
    await adjustCounters(tx, before.projectId, [before], [after!]);
    const res: SaveDataResponse = { success: true as const, status_updated: status !== before.status, status, new_count: newCount, version: applied.version, saved_at: now.toISOString() };
    return { res, rebasedFrom };
  });
  if (!saved) throw await staleBase(ctx, image.id, baseVersion!);
  if (!saved.rebasedFrom) return saved.res;
  // What the client skipped, for it to catch up: the net change from its base to the version this save was applied on.
  const skipped = saved.rebasedFrom;
  const changes = await changesSince(ctx.db, image.id, baseVersion!, { version: skipped.version, savedAt: skipped.savedAt.toISOString() });
  return { ...saved.res, rebased_from: skipped.version, ...(changes && { changes }) };
}

/** Runs `read` on one snapshot of the database (its statements see the same committed state), without locking anything. */
function onSnapshot<T>(ctx: AppContext, read: (tx: Conn) => Promise<T>): Promise<T> {
  return ctx.db.transaction(async (tx) => {
    await tx.execute(sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`);
    return read(tx);
  });
}

/** The 409 of a stale base: what changed since it, and the whole document while it is small (or when the log no longer reaches back). */
async function staleBase(ctx: AppContext, imageId: string, baseVersion: number): Promise<ApiError> {
  return onSnapshot(ctx, async (tx) => {
    const head = await headOf(tx, imageId);
    const changes = baseVersion < head.version ? await changesSince(tx, imageId, baseVersion, head) : null;
    const extra: { changes?: ChangesResponse; current?: LoadDataResponse } = {};
    if (changes) extra.changes = changes;
    const [count] = changes ? await rowsOf<{ n: number | string }>(tx, sql`SELECT annotation_count AS n FROM images WHERE id = ${imageId}`) : [];
    if (!changes || Number(count?.n ?? 0) <= CONFLICT_CURRENT_MAX_SHAPES) extra.current = { annotations: await readAnnotations(tx, imageId), version: head.version, saved_at: head.savedAt };
    return errors.conflict(
      `The annotations changed since version ${baseVersion} (now version ${head.version}); reload them and apply your changes again`,
      'version_conflict',
      extra,
    );
  });
}

/**
 * True when the change log holds every version after `from` up to `to` and none of them added,
 * changed or removed any of `ids`. Only the ids of each logged change are looked at.
 */
async function untouchedSince(db: Conn, imageId: string, ids: readonly string[], from: number, to: number): Promise<boolean> {
  const list = JSON.stringify(ids);
  const [row] = await rowsOf<{ n: number | string; hits: number | string }>(
    db,
    sql`WITH ids AS (SELECT json_array_elements_text(${list}::json) AS id)
        SELECT count(*) AS n, count(*) FILTER (WHERE
          EXISTS (SELECT 1 FROM json_array_elements(c.upserts) u WHERE u->>'id' IN (SELECT id FROM ids))
          OR EXISTS (SELECT 1 FROM json_array_elements_text(c.removed_ids) r WHERE r IN (SELECT id FROM ids))) AS hits
        FROM annotation_changes c WHERE c.image_id = ${imageId} AND c.version > ${from} AND c.version <= ${to}`,
  );
  return Number(row?.n ?? 0) === to - from && Number(row?.hits ?? 0) === 0;
}

/** Every save on its own: a bad, conflicting or forbidden one fails alone. */
export async function batchSave(ctx: AppContext, userId: string, saves: unknown[]): Promise<{ success: true; saved: number; failed: number; results: BatchSaveResult[] }> {
  const results: BatchSaveResult[] = [];
  for (const [i, raw] of saves.entries()) {
    const imageId = raw && typeof raw === 'object' && typeof (raw as { image_id?: unknown }).image_id === 'string' ? (raw as { image_id: string }).image_id : null;
    try {
      const full = Boolean(raw && typeof raw === 'object' && 'annotations' in raw);
      const parsed = (full ? SaveDataRequest : SaveChangesRequest).safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const where = describePath(issue.path);
        throw errors.badRequest(`Save ${i}: ${where ? `${where}: ` : ''}${issue.message}`, 'validation_failed');
      }
      if (Buffer.byteLength(JSON.stringify(parsed.data)) > MAX_SAVE_BYTES) {
        throw errors.tooLarge(`Save ${i}: the annotations are larger than ${MAX_SAVE_BYTES / 1024 / 1024} MB`);
      }
      const saved = full ? await saveData(ctx, userId, parsed.data as SaveDataRequest) : await saveChanges(ctx, userId, parsed.data as SaveChangesRequest, { rebase: true });
      results.push({
        image_id: imageId,
        status: 'saved',
        version: saved.version,
        saved_at: saved.saved_at,
        status_updated: saved.status_updated,
        image_status: saved.status,
        new_count: saved.new_count,
        ...(saved.rebased_from !== undefined && { rebased_from: saved.rebased_from }),
        ...(saved.changes && { changes: saved.changes }),
      });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.code === 'version_conflict') {
        results.push({ image_id: imageId, status: 'conflict', error: err.message, code: err.code, current: err.extra.current as LoadDataResponse | undefined, changes: err.extra.changes as ChangesResponse | undefined });
      } else {
        results.push({ image_id: imageId, status: 'error', error: err.message, code: err.code });
      }
    }
  }
  const saved = results.filter((r) => r.status === 'saved').length;
  return { success: true, saved, failed: results.length - saved, results };
}

// --- the change log

/** GET changes: the net change since `since`; 410 when the log no longer reaches back that far. */
export async function changesOf(ctx: AppContext, userId: string, imageId: string, since: number, projectId?: string): Promise<ChangesResponse> {
  await annotatedImage(ctx, userId, imageId, projectId, 'annotations.read');
  const head = await headOf(ctx.db, imageId);
  if (since > head.version) throw errors.badRequest(`since ${since} is after the current version ${head.version}`, 'invalid_version');
  const changes = await changesSince(ctx.db, imageId, since, head);
  if (!changes) throw errors.gone(`The change log no longer reaches back to version ${since}: load the annotations again`, 'history_expired');
  return changes;
}

export async function historyOfImage(ctx: AppContext, userId: string, imageId: string, query: { project_id?: string; before?: number; limit: number }): Promise<HistoryResponse> {
  await annotatedImage(ctx, userId, imageId, query.project_id, 'annotations.read');
  const head = await headOf(ctx.db, imageId);
  return historyOf(ctx.db, imageId, head.version, query);
}

/** The annotations as they were at `version` (read only: restore makes them current). */
export async function annotationsAtVersion(ctx: AppContext, userId: string, imageId: string, version: number, projectId?: string): Promise<LoadDataResponse> {
  await annotatedImage(ctx, userId, imageId, projectId, 'annotations.read');
  return onSnapshot(ctx, async (tx) => {
    const head = await headOf(tx, imageId);
    if (version > head.version) throw errors.notFound(`Version ${version}`);
    const annotations = version === head.version ? await readAnnotations(tx, imageId) : await annotationsAt(tx, imageId, version, head.version);
    if (!annotations) throw errors.gone(`Version ${version} is no longer kept (the history keeps ${ctx.config.annotationHistoryDays} days)`, 'history_expired');
    const [row] = version > 0 ? await rowsOf<{ created_at: string | Date }>(tx, sql`SELECT created_at FROM annotation_changes WHERE image_id = ${imageId} AND version = ${version}`) : [];
    return { annotations, version, saved_at: row ? new Date(row.created_at).toISOString() : null };
  });
}

// --- status

export async function setAnnotationStatus(ctx: AppContext, userId: string, body: { image_id: string; project_id: string } & ({ status: ImageStatus } | { cycle: true })) {
  await annotatedImage(ctx, userId, body.image_id, body.project_id, 'images.stage');
  return setImageStatus(ctx, userId, body.image_id, 'status' in body ? { status: body.status } : { cycle: true });
}

// --- stats

/** Counts over the project's images in the Data view (archived images left out), counted by SQL over the rows. */
export async function annotationStats(ctx: AppContext, userId: string, projectId: string): Promise<AnnotationStatsResponse> {
  await projectFor(ctx, userId, projectId, 'annotations.read');
  const [groups, totals] = await Promise.all([
    rowsOf<{ name: string; kind: string; n: number | string }>(
      ctx.db,
      sql`SELECT a.name, a.kind, count(*) AS n
          FROM ${images} i JOIN annotations a ON a.image_id = i.id
          WHERE i.project_id = ${projectId} AND NOT i.is_archived
          GROUP BY 1, 2`,
    ).then((rows) => ({ rows })),
    ctx.db
      .select({ total: count(), annotated: sql<number>`count(*) FILTER (WHERE ${images.annotationCount} > 0)`.mapWith(Number) })
      .from(images)
      .where(and(eq(images.projectId, projectId), eq(images.isArchived, false))),
  ]);
  const by_type = Object.fromEntries(ANNOTATION_KINDS.map((k) => [k, 0])) as AnnotationStatsResponse['by_type'];
  const by_class: Record<string, number> = {};
  let total = 0;
  for (const row of groups.rows) {
    const n = Number(row.n);
    total += n;
    by_type[row.kind as keyof typeof by_type] += n;
    const name = row.name ?? '';
    by_class[name] = (by_class[name] ?? 0) + n;
  }
  return {
    project_id: projectId,
    total_annotations: total,
    by_type,
    by_class,
    images_with_annotations: totals[0]?.annotated ?? 0,
    images_total: totals[0]?.total ?? 0,
  };
}
