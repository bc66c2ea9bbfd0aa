// The save calls: save-data (the whole list), save-changes (upserts and removals, rebased when
// stale) and restore (an earlier version made current). Each goes through commit() (./commit.ts),
// which holds the version check and the rebase rule.
import type { AppContext } from '../../context';
import { errors } from '../../errors';
import type { RestoreRequest, SaveChangesRequest, SaveDataRequest, SaveDataResponse } from '../../../contract/annotation-api';
import { annotatedImage } from '../access';
import { commit } from './commit';
import { layerOf, saveToLayer } from './gt-layer';
import { annotationsAt } from './history';
import { allTexts } from './store';
import { validateForImage } from './validate';

type Annotation = Record<string, unknown>;

export async function saveData(ctx: AppContext, userId: string, body: SaveDataRequest): Promise<SaveDataResponse> {
  const layered = await saveToLayer(ctx, userId, body, body.base_version, { list: body.annotations });
  if (layered) return layered;
  return commit(ctx, userId, body, body.base_version, (classes) => replaceList(ctx, body.image_id, body.annotations, classes));
}

/**
 * A reviewer's merge of an overlapped image's drafts (issue 36 §3, ../consensus): the list becomes
 * the image's annotations as one version, checked like a save-data and marked `merged` in the log.
 * Never through the caller's layer: the merge writes the image itself. `whileLocked` checks the
 * image under the save's lock of its row (its stage and drafts), so a reject cannot slip in between.
 */
export async function saveMerge(
  ctx: AppContext,
  userId: string,
  image: { id: string; projectId: string; filename: string },
  annotations: unknown[],
  whileLocked: NonNullable<Parameters<typeof commit>[5]>['whileLocked'],
): Promise<SaveDataResponse> {
  const body = { image_id: image.id, project_id: image.projectId, image_filename: image.filename };
  return commit(ctx, userId, body, undefined, (classes) => replaceList(ctx, image.id, annotations, classes), { merged: true, whileLocked });
}

/** The whole list as the document, validated: what it lacks is removed; rows are written only where they differ. */
async function replaceList(ctx: AppContext, imageId: string, annotations: unknown[], classes: Parameters<typeof validateForImage>[3]) {
  await validateForImage(ctx.db, imageId, annotations, classes);
  const list = annotations as Annotation[];
  return async (tx: Parameters<typeof allTexts>[0]) => {
    const stored = await allTexts(tx, imageId);
    const listed = new Set(list.map((a) => a.id as string));
    const removedIds = stored.filter((r) => !listed.has(r.id)).map((r) => r.id);
    return { upserts: list, removedIds, order: keepsOrder(stored, list) ? undefined : list.map((a) => a.id as string) };
  };
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
 * `rebased_from` and the skipped `changes`, and a save that changes nothing (removals of absent
 * ids, upserts of the stored shapes) writes no version but answers the head; without it
 * (save-segmentation, import, pre-labelling) a stale base is a 409 and every save is a version.
 */
export async function saveChanges(
  ctx: AppContext,
  userId: string,
  body: Omit<SaveChangesRequest, 'base_version'> & { base_version?: number },
  opts: { rebase?: boolean } = {},
): Promise<SaveDataResponse> {
  const layered = await saveToLayer(ctx, userId, body, body.base_version, { upserts: body.upserts, removedIds: body.removed_ids });
  if (layered) return layered;
  const touched = opts.rebase ? [...body.upserts.map((a) => String((a as { id?: unknown } | null)?.id)), ...body.removed_ids] : undefined;
  return commit(ctx, userId, body, body.base_version, async (classes) => {
    await validateForImage(ctx.db, body.image_id, body.upserts, classes);
    const upserts = new Set(body.upserts.map((a) => (a as { id: string }).id));
    const both = body.removed_ids.find((id) => upserts.has(id));
    if (both !== undefined) throw errors.badRequest(`Annotation "${both.slice(0, 100)}" is both changed and removed`, 'conflicting_changes');
    return () => ({ upserts: body.upserts as Annotation[], removedIds: body.removed_ids });
  }, { rebase: touched, unchangedKeepsHead: opts.rebase });
}

/** Makes the annotations of an earlier version current again, as a new version that says which it restored. */
export async function restoreVersion(ctx: AppContext, userId: string, body: RestoreRequest): Promise<SaveDataResponse> {
  const image = await annotatedImage(ctx, userId, body.image_id, body.project_id, 'annotations.write');
  if (await layerOf(ctx.db, image.id, userId)) throw errors.badRequest(`Version ${body.version} is not kept`, 'invalid_version');
  return commit(ctx, userId, { ...body, image_filename: image.filename }, body.base_version, () => async (tx, header) => {
    if (body.version >= header.version) throw errors.badRequest(`Version ${body.version} is not earlier than the current version ${header.version}`, 'invalid_version');
    const target = await annotationsAt(tx, body.image_id, body.version, header.version);
    if (!target) throw errors.gone(`Version ${body.version} is no longer kept (the history keeps ${ctx.config.annotationHistoryDays} days)`, 'history_expired');
    const kept = new Set(target.map((a) => a.id as string));
    const removedIds = (await allTexts(tx, body.image_id)).filter((r) => !kept.has(r.id)).map((r) => r.id);
    return { upserts: target, removedIds };
  }, { restoredFrom: body.version });
}
