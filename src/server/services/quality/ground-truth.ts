// Ground truth (issue 36 §2): marking an image's accepted annotations as the reference, handing
// ground-truth images to annotators from the queue at the project's gt_rate, and scoring an
// attempt when its annotator submits it. The attempt's own list (the scoring layer) is read and
// written by the annotation calls (../annotations/gt-layer.ts).
import { randomUUID } from 'node:crypto';
import { and, asc, eq, isNull, ne, notExists, or, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { groundTruth, gtAttempts, images, projects, type Role } from '../../db/schema';
import { errors } from '../../errors';
import type { StoredAnnotation } from '../../../contract/annotations';
import type { Image } from '../../../contract/images';
import type { GroundTruthState } from '../../../contract/quality';
import { skeletonPointsOf } from '../../../contract/skeleton';
import { can, imageFor } from '../access';
import { readAnnotations } from '../annotations';
import { asAttemptImage, openAttempt } from '../annotations/gt-layer';
import { imageJsonWithFolder, type ImageRow, type ProjectRow } from '../images';
import { score } from './score';
import { retryOnConflict } from '../../db/errors';

const stateOf = (imageId: string, row: typeof groundTruth.$inferSelect | undefined): GroundTruthState => ({
  image_id: imageId,
  enabled: Boolean(row),
  shapes: row ? row.annotations.length : 0,
  marked_at: row ? row.markedAt.toISOString() : null,
});

/** GET /images/{id}/ground-truth (reviewer, admin, owner). */
export async function groundTruthOf(ctx: AppContext, userId: string, imageId: string, orgId?: string) {
  const image = await imageFor(ctx, userId, imageId, 'images.review', orgId);
  const [row] = await ctx.db.select().from(groundTruth).where(eq(groundTruth.imageId, image.id)).limit(1);
  return { success: true as const, ground_truth: stateOf(image.id, row) };
}

/**
 * POST /images/{id}/ground-truth {enabled}: on, the image's annotations now become the reference
 * (a complete image only: 409 ground_truth_not_accepted); marking again takes them anew. Off, the
 * reference goes, and with it the attempts still open (their annotators' saves go to the image's
 * own annotations again); submitted scores stay.
 */
export async function setGroundTruth(ctx: AppContext, userId: string, imageId: string, enabled: boolean, orgId?: string) {
  const image = await imageFor(ctx, userId, imageId, 'images.review', orgId);
  if (!enabled) {
    await retryOnConflict(() => ctx.db.transaction(async (tx) => {
      await tx.delete(groundTruth).where(eq(groundTruth.imageId, image.id));
      await tx.delete(gtAttempts).where(and(eq(gtAttempts.imageId, image.id), isNull(gtAttempts.submittedAt)));
    }));
    return { success: true as const, ground_truth: stateOf(image.id, undefined) };
  }
  if (image.status !== 'complete') throw errors.conflict(`An image in ${image.status} has no accepted annotations to be ground truth`, 'ground_truth_not_accepted', { status: image.status });
  const annotations = await readAnnotations(ctx.db, image.id);
  const values = { imageId: image.id, projectId: image.projectId, annotations, markedBy: userId, markedAt: ctx.now?.() ?? new Date() };
  const [row] = await ctx.db
    .insert(groundTruth)
    .values(values)
    .onConflictDoUpdate({ target: groundTruth.imageId, set: { annotations, markedBy: userId, markedAt: values.markedAt } })
    .returning();
  return { success: true as const, ground_truth: stateOf(image.id, row) };
}

/** Whether a queue/next is a ground-truth turn at `rate`, for a draw `u` uniform in [0, 1): 0 never, 1 always, else `u < rate`. */
export function isGroundTruthTurn(rate: number, u: number): boolean {
  return rate > 0 && u < rate;
}

/**
 * The annotate queue's ground-truth turn: the caller's open attempt in the project, else (with
 * probability gt_rate: `draw`, the context's `random` or else Math.random) the first ground-truth
 * image they have never attempted and did not annotate themselves, as a new attempt. Null when it
 * is not a ground-truth turn or none is left. The image is shown as theirs, being annotated, empty.
 */
export async function groundTruthTurn(ctx: AppContext, userId: string, project: ProjectRow, draw: () => number = ctx.random ?? Math.random): Promise<{ image: Image } | null> {
  const live = and(eq(images.projectId, project.id), eq(images.isArchived, false));
  const [open] = await ctx.db
    .select({ image: images })
    .from(gtAttempts)
    .innerJoin(images, eq(images.id, gtAttempts.imageId))
    .where(and(live, eq(gtAttempts.userId, userId), isNull(gtAttempts.submittedAt)))
    .orderBy(asc(gtAttempts.startedAt), asc(gtAttempts.id))
    .limit(1);
  if (open) return { image: asAttemptImage(await imageJsonWithFolder(ctx.db, open.image), userId) };
  if (!isGroundTruthTurn(project.gtRate, draw())) return null;
  const tried = ctx.db.select({ one: sql`1` }).from(gtAttempts).where(and(eq(gtAttempts.imageId, groundTruth.imageId), eq(gtAttempts.userId, userId)));
  const candidates = await ctx.db
    .select({ image: images })
    .from(groundTruth)
    .innerJoin(images, eq(images.id, groundTruth.imageId))
    .where(and(eq(groundTruth.projectId, project.id), live, or(isNull(images.assigneeId), ne(images.assigneeId, userId)), notExists(tried)))
    .orderBy(asc(groundTruth.markedAt), asc(groundTruth.imageId))
    .limit(5);
  for (const { image } of candidates) {
    const [made] = await ctx.db
      .insert(gtAttempts)
      .values({ id: randomUUID(), imageId: image.id, projectId: project.id, userId, startedAt: ctx.now?.() ?? new Date() })
      .onConflictDoNothing()
      .returning({ id: gtAttempts.id });
    if (made) return { image: asAttemptImage(await imageJsonWithFolder(ctx.db, image), userId) };
  }
  return null;
}

/**
 * Submit of a ground-truth image by the annotator of its open attempt: the attempt is scored
 * against the ground truth and closed; the image keeps its annotations, stage and people. Null
 * when the caller holds no open attempt (the submit goes on as always).
 */
export async function submitAttempt(ctx: AppContext, userId: string, image: ImageRow, role: Role) {
  if (!can(role, 'annotations.write')) return null;
  if (!(await openAttempt(ctx.db, image.id, userId))) return null;
  const [project] = await ctx.db.select({ classes: projects.classes }).from(projects).where(eq(projects.id, image.projectId)).limit(1);
  const classes = new Map((project?.classes ?? []).map((c) => [c.name, c]));
  const done = await retryOnConflict(() => ctx.db.transaction(async (tx) => {
    const [attempt] = await tx.select().from(gtAttempts).where(and(eq(gtAttempts.imageId, image.id), eq(gtAttempts.userId, userId), isNull(gtAttempts.submittedAt))).for('update');
    const [reference] = await tx.select().from(groundTruth).where(eq(groundTruth.imageId, image.id)).limit(1);
    if (!attempt || !reference) return false;
    const result = score(reference.annotations as StoredAnnotation[], attempt.annotations as StoredAnnotation[], { pointNames: (name) => skeletonPointsOf(classes.get(name)) });
    await tx
      .update(gtAttempts)
      .set({ submittedAt: ctx.now?.() ?? new Date(), score: result as unknown as Record<string, unknown> })
      .where(eq(gtAttempts.id, attempt.id));
    return true;
  }));
  if (!done) return null;
  return { success: true as const, image: asAttemptImage(await imageJsonWithFolder(ctx.db, image), userId, 'review') };
}
