// Consensus in the workflow (issue 36 §3): `overlap` on assign, the annotate queue's draft slots,
// the submit of a draft and the reject that hands the drafts back. An overlapped image (overlap N,
// 2..5) goes to N different annotators: each queue/next that takes a slot writes a draft row (one
// per person and image, a unique key), and that person's load-data and saves go to it
// (../annotations/gt-layer.ts). The image goes to review when all N drafts are submitted; the
// drafts, their agreement and the merge are ../consensus.
import { randomUUID } from 'node:crypto';
import { and, asc, count, eq, gt, inArray, isNotNull, isNull, notExists, sql, type SQL } from 'drizzle-orm';
import type { AppContext } from '../../context';
import type { Exec, Tx } from '../../db/client';
import { drafts, images } from '../../db/schema';
import { errors } from '../../errors';
import { MAX_OVERLAP, MIN_OVERLAP } from '../../../contract/workflow';
import type { Image, ImageStatus } from '../../../contract/images';
import { draftOf } from '../annotations/gt-layer';
import { adjustCounters, imageJsonWithFolder, type ImageRow, type ProjectRow } from '../images';
import { recordEvents, statusEvents } from './events';
import { retryOnConflict } from '../../db/errors';

/** The stages in which an overlapped image still takes annotators. */
const OPEN_STAGES: ImageStatus[] = ['new', 'annotating'];
/** How many full images one take may step over (each was full by the time its lock was had). */
const TAKE_TRIES = 10;

/** assign's `overlap`: null is 1 (a normal image), else a whole number MIN_OVERLAP..MAX_OVERLAP (400 invalid_overlap). */
export function overlapOf(value: number | null): number {
  if (value === null) return 1;
  if (!Number.isInteger(value) || value < MIN_OVERLAP || value > MAX_OVERLAP) {
    throw errors.badRequest(`overlap must be a whole number from ${MIN_OVERLAP} to ${MAX_OVERLAP} (or null for one annotator), not ${value}`, 'invalid_overlap');
  }
  return value;
}

/**
 * Sets the overlap of the locked images in assign's transaction. An image whose overlap changes
 * must be new with no draft yet (409 invalid_transition otherwise: its annotators already started).
 */
export async function setOverlap(tx: Tx, rows: readonly { id: string; status: ImageStatus; overlap: number }[], overlap: number): Promise<void> {
  const changing = rows.filter((r) => r.overlap !== overlap);
  if (changing.length === 0) return;
  const started = changing.find((r) => r.status !== 'new');
  const ids = changing.map((r) => r.id);
  const [withDraft] = started ? [] : await tx.select({ id: drafts.imageId }).from(drafts).where(inArray(drafts.imageId, ids)).limit(1);
  if (started || withDraft) {
    throw errors.conflict('The overlap of an image can change only before anyone starts on it', 'invalid_transition', { image_id: started?.id ?? withDraft!.id, status: started?.status ?? 'new' });
  }
  await tx.update(images).set({ overlap }).where(inArray(images.id, ids));
}

const overlapped = (project: ProjectRow) => and(eq(images.projectId, project.id), eq(images.isArchived, false), gt(images.overlap, 1), inArray(images.status, OPEN_STAGES))!;

/** The annotate queue's first look: the caller's oldest open draft in the project (by when they took it). */
export async function openDraftTurn(ctx: AppContext, userId: string, project: ProjectRow): Promise<{ image: Image } | null> {
  const [open] = await ctx.db
    .select({ image: images })
    .from(drafts)
    .innerJoin(images, eq(images.id, drafts.imageId))
    .where(and(overlapped(project), eq(drafts.userId, userId), isNull(drafts.submittedAt)))
    .orderBy(asc(drafts.takenAt), asc(drafts.id))
    .limit(1);
  return open ? { image: await imageJsonWithFolder(ctx.db, open.image) } : null;
}

/**
 * The annotate queue's consensus turn: a free slot of the oldest overlapped image the caller holds
 * no draft of, as a new draft. Concurrency: the image row is locked (FOR UPDATE, waiting, so two
 * takers of one image queue up rather than skip it), the slots are counted again after the lock in
 * a new statement (which sees the drafts committed meanwhile), and the unique key of (image,
 * person) refuses a second draft of one person. Null when there is none.
 */
export async function takeDraftSlot(ctx: AppContext, userId: string, project: ProjectRow): Promise<{ image: Image } | null> {
  for (let tries = 0; tries < TAKE_TRIES; tries++) {
    const taken = await retryOnConflict(() => ctx.db.transaction((tx) => takeSlot(tx, ctx, userId, overlapped(project))));
    if (taken === 'none') return null;
    if (taken !== 'full') return { image: await imageJsonWithFolder(ctx.db, taken) };
  }
  return null;
}

const takenSlots = (db: Exec, imageId: string) => db.select({ n: count() }).from(drafts).where(eq(drafts.imageId, imageId));

async function takeSlot(tx: Tx, ctx: AppContext, userId: string, live: SQL): Promise<ImageRow | 'full' | 'none'> {
  const mine = tx.select({ one: sql`1` }).from(drafts).where(and(eq(drafts.imageId, images.id), eq(drafts.userId, userId)));
  const [row] = await tx
    .select()
    .from(images)
    .where(and(live, notExists(mine), sql`(SELECT count(*) FROM drafts d WHERE d.image_id = ${images.id}) < ${images.overlap}`))
    .orderBy(asc(images.createdAt), asc(images.id))
    .limit(1)
    .for('update');
  if (!row) return 'none';
  // Counted again after the lock: a taker who held it meanwhile may have filled the last slot.
  const [slots] = await takenSlots(tx, row.id);
  if (Number(slots?.n ?? 0) >= row.overlap || !OPEN_STAGES.includes(row.status)) return 'full';
  const now = ctx.now?.() ?? new Date();
  const [made] = await tx.insert(drafts).values({ id: randomUUID(), imageId: row.id, projectId: row.projectId, userId, takenAt: now }).onConflictDoNothing().returning({ id: drafts.id });
  if (!made) return 'full';
  if (row.status !== 'new') return row;
  const [after] = await tx.update(images).set({ status: 'annotating', updatedAt: now }).where(eq(images.id, row.id)).returning();
  await adjustCounters(tx, row.projectId, [row], [after!]);
  await recordEvents(tx, statusEvents(userId, [row], [after!]));
  return after!;
}

/**
 * Submit by the holder of a draft of the image: the draft is marked submitted (a second submit is
 * 409 invalid_transition); the last of the N moves the image to review. Null when the caller holds
 * no draft of it (the submit goes on as always).
 */
export async function submitDraft(ctx: AppContext, userId: string, image: ImageRow): Promise<{ success: true; image: Image } | null> {
  if (image.overlap <= 1 || !(await draftOf(ctx.db, image.id, userId))) return null;
  const after = await retryOnConflict(() => ctx.db.transaction(async (tx) => {
    const [before] = await tx.select().from(images).where(eq(images.id, image.id)).for('update');
    if (!before || !OPEN_STAGES.includes(before.status)) throw errors.conflict(`An image in ${before?.status ?? 'no'} stage cannot be submitted`, 'invalid_transition', { status: before?.status });
    const [mine] = await tx.select().from(drafts).where(and(eq(drafts.imageId, image.id), eq(drafts.userId, userId))).for('update');
    if (!mine || mine.submittedAt) throw errors.conflict('You already handed this image in', 'invalid_transition', { status: before.status });
    await tx.update(drafts).set({ submittedAt: ctx.now?.() ?? new Date() }).where(eq(drafts.id, mine.id));
    const [submitted] = await tx.select({ n: count() }).from(drafts).where(and(eq(drafts.imageId, image.id), isNotNull(drafts.submittedAt)));
    if (Number(submitted?.n ?? 0) < before.overlap) return before;
    const [moved] = await tx.update(images).set({ status: 'review', updatedAt: new Date() }).where(eq(images.id, image.id)).returning();
    await adjustCounters(tx, before.projectId, [before], [moved!]);
    await recordEvents(tx, statusEvents(userId, [before], [moved!]));
    return moved!;
  }));
  return { success: true as const, image: await imageJsonWithFolder(ctx.db, after) };
}

/** A submit of an overlapped image by someone who holds no draft of it: 409 consensus_pending while its annotators work on it. */
export function refuseSubmitWithoutDraft(image: ImageRow): void {
  if (image.overlap > 1 && OPEN_STAGES.includes(image.status)) {
    throw errors.conflict(`This image goes to ${image.overlap} annotators; it goes to review when all of them have submitted`, 'consensus_pending', { status: image.status });
  }
}

/** On a reject of an overlapped image, in its transaction: its drafts open again, so its annotators rework and submit them. */
export async function reopenDrafts(tx: Tx, image: ImageRow): Promise<void> {
  if (image.overlap > 1) await tx.update(drafts).set({ submittedAt: null }).where(eq(drafts.imageId, image.id));
}
