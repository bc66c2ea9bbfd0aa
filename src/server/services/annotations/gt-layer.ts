// A person's own layer of an image: a list stored apart from the image's annotations, which that
// person's load-data, changes, history and saves read and write instead of the image's. Two kinds:
// - an attempt at a ground-truth image (issue 36 §2, gt_attempts): open until submitted, then scored
//   (../quality); nothing in the answers tells the annotator the image is ground truth;
// - a draft of an overlapped image (issue 36 §3, drafts): the caller's while the image is being
//   annotated (new or annotating), read only once they submitted it, until the image goes to review
//   and a reviewer merges the drafts (../consensus).
// Either way nothing reaches the image's rows, its change log, its counters, the live channel's
// change notices or an export, and nobody else reads the layer through these calls.
import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { AppContext } from '../../context';
import type { Exec, Tx } from '../../db/client';
import { retryOnConflict } from '../../db/errors';
import { drafts, gtAttempts, images, projects } from '../../db/schema';
import { errors } from '../../errors';
import type { ChangesResponse, SaveDataResponse } from '../../../contract/annotation-api';
import type { Image } from '../../../contract/images';
import { sameJson } from '../../../contract/json';
import { annotatedImage } from '../access';
import { countIn, countShapes, type ClassCounts } from './store';
import { validateForImage } from './validate';

type Annotation = Record<string, unknown>;
export type AttemptRow = typeof gtAttempts.$inferSelect;
export type DraftRow = typeof drafts.$inferSelect;
/** What every layer row holds. */
type LayerRow = { id: string; annotations: unknown[]; version: number; savedAt: Date | null; submittedAt: Date | null };
export type Layer = { kind: 'attempt'; row: AttemptRow } | { kind: 'draft'; row: DraftRow };

/** The stages in which a draft is its holder's view of the image (after them, the image's own annotations are). */
const DRAFT_STAGES = ['new', 'annotating'] as const;

/** The caller's open (not yet submitted) attempt at the image, if any. */
export async function openAttempt(db: Exec, imageId: string, userId: string): Promise<AttemptRow | undefined> {
  const [row] = await db
    .select()
    .from(gtAttempts)
    .where(and(eq(gtAttempts.imageId, imageId), eq(gtAttempts.userId, userId), isNull(gtAttempts.submittedAt)))
    .limit(1);
  return row;
}

/** The caller's draft of the image while the image is being annotated (submitted or not), if any. */
export async function draftOf(db: Exec, imageId: string, userId: string): Promise<DraftRow | undefined> {
  const [row] = await db
    .select({ draft: drafts })
    .from(drafts)
    .innerJoin(images, eq(images.id, drafts.imageId))
    .where(and(eq(drafts.imageId, imageId), eq(drafts.userId, userId), inArray(images.status, [...DRAFT_STAGES])))
    .limit(1);
  return row?.draft;
}

/** The caller's layer of the image (an open ground-truth attempt, else a draft), if any. */
export async function layerOf(db: Exec, imageId: string, userId: string): Promise<Layer | undefined> {
  const attempt = await openAttempt(db, imageId, userId);
  if (attempt) return { kind: 'attempt', row: attempt };
  const draft = await draftOf(db, imageId, userId);
  return draft ? { kind: 'draft', row: draft } : undefined;
}

const savedAtOf = (a: LayerRow) => (a.savedAt ? a.savedAt.toISOString() : null);

/** load-data's answer from a layer, the same keys as the image's. */
export function layerLoad(a: LayerRow): { annotations: unknown[]; version: number; saved_at: string | null } {
  return { annotations: a.annotations, version: a.version, saved_at: savedAtOf(a) };
}

/** GET changes from a layer: the whole list as upserts while `since` is behind it (re-applying is harmless). */
export function layerChanges(a: LayerRow, since: number): ChangesResponse {
  if (since > a.version) throw errors.badRequest(`Version ${since} is after the current version ${a.version}`, 'invalid_version');
  return { since, version: a.version, saved_at: savedAtOf(a), upserts: since < a.version ? (a.annotations as ChangesResponse['upserts']) : [], removed_ids: [] };
}

/** How an image looks to the annotator of an attempt: theirs, being annotated, nothing on it yet. */
export function asAttemptImage(image: Image, userId: string, status: Image['status'] = 'annotating'): Image {
  return { ...image, status, assignee_id: userId, reviewer_id: null, annotation_count: 0, open_issues: 0, pending_predictions: 0 };
}

/** What a save asks of the list: the whole list, or upserts and removals. */
export type LayerChange = { list: readonly unknown[] } | { upserts: readonly unknown[]; removedIds: readonly string[] };

/** The caller's layer row of the image, locked for the save; undefined when it is gone meanwhile. */
async function lockLayer(tx: Tx, kind: Layer['kind'], imageId: string, userId: string): Promise<LayerRow | undefined> {
  if (kind === 'attempt') {
    const [a] = await tx.select().from(gtAttempts).where(and(eq(gtAttempts.imageId, imageId), eq(gtAttempts.userId, userId), isNull(gtAttempts.submittedAt))).for('update');
    return a;
  }
  // The image first, as every stage change locks it: a submit that ends the annotating waits for this save, or the reverse.
  const [image] = await tx.select({ status: images.status }).from(images).where(eq(images.id, imageId)).for('update');
  if (!image || !(DRAFT_STAGES as readonly string[]).includes(image.status)) return undefined;
  const [d] = await tx.select().from(drafts).where(and(eq(drafts.imageId, imageId), eq(drafts.userId, userId))).for('update');
  return d;
}

async function writeLayer(tx: Tx, kind: Layer['kind'], id: string, set: { annotations: unknown[]; version: number; savedAt: Date }): Promise<void> {
  if (kind === 'attempt') await tx.update(gtAttempts).set(set).where(eq(gtAttempts.id, id));
  else await tx.update(drafts).set(set).where(eq(drafts.id, id));
}

/**
 * A save of the caller's layer: the same checks as a save of the image (access, filename, shapes
 * and classes), the layer's own version (a stale base is a 409 version_conflict with the layer's
 * list as `current`); a submitted draft takes no more saves (409 invalid_transition). Null when
 * the caller holds no layer of the image: the save goes to the image as always.
 */
export async function saveToLayer(
  ctx: AppContext,
  userId: string,
  body: { image_id: string; project_id: string; image_filename: string },
  baseVersion: number | undefined,
  change: LayerChange,
): Promise<SaveDataResponse | null> {
  const layer = await layerOf(ctx.db, body.image_id, userId);
  if (!layer) return null;
  const image = await annotatedImage(ctx, userId, body.image_id, body.project_id, 'annotations.write');
  if (body.image_filename !== image.filename) {
    throw errors.badRequest(`image_filename "${body.image_filename.slice(0, 200)}" is not the image's filename "${image.filename}"`, 'filename_mismatch');
  }
  if (layer.row.submittedAt) throw errors.conflict('You handed this image in: your draft takes no more changes', 'invalid_transition', { status: image.status });
  const [project] = await ctx.db.select({ classes: projects.classes }).from(projects).where(eq(projects.id, image.projectId)).limit(1);
  const incoming = 'list' in change ? change.list : change.upserts;
  await validateForImage(ctx.db, image.id, [...incoming], project?.classes ?? []);
  const now = ctx.now?.() ?? new Date();
  // A deadlock's victim (the layer's shape counts meet a team's other writes) runs again.
  return retryOnConflict(() => ctx.db.transaction(async (tx) => {
    const a = await lockLayer(tx, layer.kind, image.id, userId);
    if (!a || a.submittedAt) throw errors.conflict('The image was handed in meanwhile', 'invalid_transition', { status: 'review' });
    if (baseVersion !== undefined && baseVersion !== a.version) {
      throw errors.conflict(`The annotations changed since version ${baseVersion} (now version ${a.version}); reload them and apply your changes again`, 'version_conflict', { current: layerLoad(a) });
    }
    const list = 'list' in change ? [...change.list] : applyUpserts(a.annotations as Annotation[], change.upserts as Annotation[], change.removedIds);
    // As on the image (commit.ts, `unchangedKeepsHead`): a save-changes that changes nothing (a
    // retried or second tab's identical upsert, a removal of an id it lacks) writes no version.
    if (!('list' in change) && sameJson(list, a.annotations)) {
      return { success: true as const, status_updated: false, status: 'annotating' as const, new_count: list.length, version: a.version, saved_at: (a.savedAt ?? now).toISOString() };
    }
    const version = a.version + 1;
    await writeLayer(tx, layer.kind, a.id, { annotations: list, version, savedAt: now });
    // A draft is its holder's work on the image: its shapes count in their analytics (an attempt is a test, not work).
    if (layer.kind === 'draft') await countShapes(tx, image.id, userId, now, shapeCounts(a.annotations as Annotation[], list as Annotation[]));
    return { success: true as const, status_updated: false, status: 'annotating' as const, new_count: list.length, version, saved_at: now.toISOString() };
  }));
}

/**
 * What a save of a layer did, per class, by the image's rule (docs/analytics.md): an id the list did
 * not hold is created, one whose shape differs is edited (under its new class), one gone is deleted
 * (under the class it had). Compared as JSON values: the stored list comes back from jsonb.
 */
export function shapeCounts(before: readonly Annotation[], after: readonly Annotation[]): ClassCounts {
  const counts: ClassCounts = new Map();
  const was = new Map(before.map((x) => [x.id as string, x]));
  const kept = new Set<string>();
  for (const x of after) {
    const old = was.get(x.id as string);
    kept.add(x.id as string);
    if (!old) countIn(counts, String(x.name ?? ''), 'c');
    else if (!sameJson(old, x)) countIn(counts, String(x.name ?? ''), 'e');
  }
  for (const [id, old] of was) if (!kept.has(id)) countIn(counts, String(old.name ?? ''), 'd');
  return counts;
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
