// The scoring layer of a ground-truth image (issue 36 §2). While an annotator holds an open attempt
// at a ground-truth image (the queue gave it to them), load-data, changes and the saves of that
// person read and write the attempt's own list (gt_attempts) instead of the image's annotations:
// nothing reaches the image's rows, its change log, its counters or an export, and nothing in the
// answers tells them the image is ground truth. Submit scores the attempt (../quality).
import { and, eq, isNull } from 'drizzle-orm';
import type { AppContext } from '../../context';
import type { Exec } from '../../db/client';
import { gtAttempts, projects } from '../../db/schema';
import { errors } from '../../errors';
import type { ChangesResponse, SaveDataResponse } from '../../../contract/annotation-api';
import type { Image } from '../../../contract/images';
import { annotatedImage } from '../access';
import { validateForImage } from './validate';

type Annotation = Record<string, unknown>;
export type AttemptRow = typeof gtAttempts.$inferSelect;

/** The caller's open (not yet submitted) attempt at the image, if any. */
export async function openAttempt(db: Exec, imageId: string, userId: string): Promise<AttemptRow | undefined> {
  const [row] = await db
    .select()
    .from(gtAttempts)
    .where(and(eq(gtAttempts.imageId, imageId), eq(gtAttempts.userId, userId), isNull(gtAttempts.submittedAt)))
    .limit(1);
  return row;
}

const savedAtOf = (a: AttemptRow) => (a.savedAt ? a.savedAt.toISOString() : null);

/** load-data's answer from the attempt, the same keys as the image's. */
export function attemptLoad(a: AttemptRow): { annotations: unknown[]; version: number; saved_at: string | null } {
  return { annotations: a.annotations, version: a.version, saved_at: savedAtOf(a) };
}

/** GET changes from the attempt: the whole list as upserts while `since` is behind it (re-applying is harmless). */
export function attemptChanges(a: AttemptRow, since: number): ChangesResponse {
  if (since > a.version) throw errors.badRequest(`Version ${since} is after the current version ${a.version}`, 'invalid_version');
  return { since, version: a.version, saved_at: savedAtOf(a), upserts: since < a.version ? (a.annotations as ChangesResponse['upserts']) : [], removed_ids: [] };
}

/** How an image looks to the annotator of an attempt: theirs, being annotated, nothing on it yet. */
export function asAttemptImage(image: Image, userId: string, status: Image['status'] = 'annotating'): Image {
  return { ...image, status, assignee_id: userId, reviewer_id: null, annotation_count: 0, open_issues: 0, pending_predictions: 0 };
}

/** What a save asks of the list: the whole list, or upserts and removals. */
export type LayerChange = { list: readonly unknown[] } | { upserts: readonly unknown[]; removedIds: readonly string[] };

/**
 * A save of the caller's open attempt: the same checks as a save of the image (access, filename,
 * shapes and classes), the attempt's own version (a stale base is a 409 version_conflict with the
 * attempt's list as `current`). Null when the caller holds no open attempt at the image: the save
 * goes to the image as always.
 */
export async function saveToLayer(
  ctx: AppContext,
  userId: string,
  body: { image_id: string; project_id: string; image_filename: string },
  baseVersion: number | undefined,
  change: LayerChange,
): Promise<SaveDataResponse | null> {
  if (!(await openAttempt(ctx.db, body.image_id, userId))) return null;
  const image = await annotatedImage(ctx, userId, body.image_id, body.project_id, 'annotations.write');
  if (body.image_filename !== image.filename) {
    throw errors.badRequest(`image_filename "${body.image_filename.slice(0, 200)}" is not the image's filename "${image.filename}"`, 'filename_mismatch');
  }
  const [project] = await ctx.db.select({ classes: projects.classes }).from(projects).where(eq(projects.id, image.projectId)).limit(1);
  const incoming = 'list' in change ? change.list : change.upserts;
  await validateForImage(ctx.db, image.id, [...incoming], project?.classes ?? []);
  const now = ctx.now?.() ?? new Date();
  return ctx.db.transaction(async (tx) => {
    const [a] = await tx.select().from(gtAttempts).where(and(eq(gtAttempts.imageId, image.id), eq(gtAttempts.userId, userId), isNull(gtAttempts.submittedAt))).for('update');
    if (!a) throw errors.conflict('The image was handed in meanwhile', 'invalid_transition', { status: 'review' });
    if (baseVersion !== undefined && baseVersion !== a.version) {
      throw errors.conflict(`The annotations changed since version ${baseVersion} (now version ${a.version}); reload them and apply your changes again`, 'version_conflict', { current: attemptLoad(a) });
    }
    const list = 'list' in change ? [...change.list] : applyUpserts(a.annotations as Annotation[], change.upserts as Annotation[], change.removedIds);
    const version = a.version + 1;
    await tx.update(gtAttempts).set({ annotations: list, version, savedAt: now }).where(eq(gtAttempts.id, a.id));
    return { success: true as const, status_updated: false, status: 'annotating' as const, new_count: list.length, version, saved_at: now.toISOString() };
  });
}

/** save-changes' rule on a list: removals first, then each upsert replaces its id in place or goes on top. */
function applyUpserts(list: Annotation[], upserts: Annotation[], removedIds: readonly string[]): Annotation[] {
  const removed = new Set(removedIds);
  const out = list.filter((x) => !removed.has(x.id as string));
  const at = new Map(out.map((x, i) => [x.id as string, i]));
  for (const u of upserts) {
    const i = at.get(u.id as string);
    if (i === undefined) {
      at.set(u.id as string, out.length);
      out.push(u);
    } else out[i] = u;
  }
  return out;
}
