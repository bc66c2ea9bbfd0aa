// One save, the rule every save call goes through (save.ts, batch-save.ts, and the import,
// segmentation and image-edit jobs through them): the version check, the stale base and its
// rebase, the 409 with what changed. In one transaction the image row is locked (SELECT ... FOR
// UPDATE), so saves of one image run one after the other and the version check cannot race; the
// change is written as version + 1 touching only the rows it names (applyChange, ./store.ts), the
// image's annotation_count and status change with it, and the project counters follow through
// adjustCounters (../images/counters.ts).
//
// A stale base (base_version is not the head):
// - without rebase (save-data, save-segmentation, restore): 409 version_conflict;
// - with rebase (save-changes, batch entries: the ids the save upserts and removes): no conflict
//   when none of these ids changed in the versions after the base (untouchedSince, on the change
//   log); the change is applied on the head and the answer says so (`rebased_from`) with the net
//   change the client skipped (`changes`). Otherwise 409.
// The 409 carries what changed since the base, and the whole document while it is small (staleBase).
//
// A save that changes nothing (`unchangedKeepsHead`: save-changes and batch entries; every removed
// id absent, every upsert the stored shape) writes no version: no log row, no live `changed`, the
// image's count, status and updated_at untouched. It answers the head as it is (`version` and
// `saved_at` of the head; a stale base the rebase rule accepts still gets `rebased_from` = the
// head and the skipped `changes`), so a client's base moves to the head and its entries are done.
// A save with one real part is written whole, as before.
import { eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { retryOnConflict } from '../../db/errors';
import { images, projects } from '../../db/schema';
import { errors, type ApiError } from '../../errors';
import type { ProjectClass } from '../../../contract/projects';
import { CONFLICT_CURRENT_MAX_SHAPES, type ChangesResponse, type LoadDataResponse, type SaveDataResponse } from '../../../contract/annotation-api';
import type { ImageStatus } from '../../../contract/images';
import { annotatedImage } from '../access';
import type { Tx } from '../../db/client';
import { adjustCounters, type ImageRow } from '../images';
import { changesSince } from './history';
import { applyChange, headOf, lockHeader, onSnapshot, readAnnotations, rowsOf, type ChangeSet, type Conn, type Header } from './store';

/** What a save changes, worked out inside its transaction on the locked header. */
type Prepare = (tx: Conn, header: Header) => Promise<ChangeSet> | ChangeSet;

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
export async function commit(
  ctx: AppContext,
  userId: string,
  body: { image_id: string; project_id: string; image_filename: string },
  baseVersion: number | undefined,
  prepare: (classes: readonly ProjectClass[]) => Prepare | Promise<Prepare>,
  opts: { restoredFrom?: number; rebase?: readonly string[]; merged?: boolean; unchangedKeepsHead?: boolean; whileLocked?: (tx: Tx, image: ImageRow) => Promise<void> } = {},
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

  // A deadlock's victim (another save or a move of the project's images at once) is run again.
  const saved = await retryOnConflict(() => ctx.db.transaction(async (tx) => {
    const [before] = await tx.select().from(images).where(eq(images.id, image.id)).for('update');
    if (!before) throw errors.notFound('Image');
    // A caller's own check of the locked image (the merge's stage: a reject meanwhile must refuse it).
    await opts.whileLocked?.(tx, before);
    const header = await lockHeader(tx, image.id, before.projectId);
    let rebasedFrom: { version: number; savedAt: Date } | undefined;
    if (baseVersion !== undefined && baseVersion !== header.version) {
      // A stale base leaves the lock at once; what changed is read after it, so other saves need not wait for that.
      if (!touched || baseVersion > header.version) return null;
      if (header.version > checkedUpTo! && !(await untouchedSince(tx, image.id, touched, checkedUpTo!, header.version))) return null;
      rebasedFrom = { version: header.version, savedAt: header.updatedAt };
    }
    const now = ctx.now?.() ?? new Date();
    const who = { userId, now, restoredFrom: opts.restoredFrom, merged: opts.merged, unchangedKeepsHead: opts.unchangedKeepsHead };
    const applied = await applyChange(tx, image.id, header, await changeOf(tx, header), who);
    if (!applied.wrote) {
      // Nothing changed: the head as it is (saved_at: when it was saved; version 0's header: when the image's annotations began).
      const res: SaveDataResponse = { success: true as const, status_updated: false, status: before.status, new_count: before.annotationCount, version: header.version, saved_at: header.updatedAt.toISOString() };
      return { res, rebasedFrom };
    }
    const newCount = Math.max(0, before.annotationCount + applied.added - applied.removed);
    // Spec section 4 "Image status": the server moves a new image with annotations to annotating.
    const status: ImageStatus = before.status === 'new' && newCount > 0 ? 'annotating' : before.status;
    const [after] = await tx.update(images).set({ annotationCount: newCount, status, updatedAt: now }).where(eq(images.id, image.id)).returning();
    await adjustCounters(tx, before.projectId, [before], [after!]);
    const res: SaveDataResponse = { success: true as const, status_updated: status !== before.status, status, new_count: newCount, version: applied.version, saved_at: now.toISOString() };
    return { res, rebasedFrom };
  }));
  if (!saved) throw await staleBase(ctx, image.id, baseVersion!);
  if (!saved.rebasedFrom) return saved.res;
  // What the client skipped, for it to catch up: the net change from its base to the version this save was applied on.
  const skipped = saved.rebasedFrom;
  const changes = await changesSince(ctx.db, image.id, baseVersion!, { version: skipped.version, savedAt: skipped.savedAt.toISOString() });
  return { ...saved.res, rebased_from: skipped.version, ...(changes && { changes }) };
}

/** The 409 of a stale base: what changed since it, and the whole document while it is small (or when the log no longer reaches back). */
async function staleBase(ctx: AppContext, imageId: string, baseVersion: number): Promise<ApiError> {
  return onSnapshot(ctx.db, async (tx) => {
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
