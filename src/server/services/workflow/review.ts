// Submit and review (issue 29): the annotator hands an image in (new or annotating -> review), a
// reviewer accepts it (-> complete) or rejects it (-> annotating, the comment becoming an open issue).
import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context';
import type { Tx } from '../../db/client';
import { images, type Role } from '../../db/schema';
import { errors } from '../../errors';
import type { ImageStatus } from '../../../contract/images';
import type { Issue, ReviewRequest } from '../../../contract/workflow';
import { can, roleIn } from '../access';
import { adjustCounters, imageJsonWithFolder, type ImageRow } from '../images';
import { submitAttempt } from '../quality';
import { recordEvents, statusEvents } from './events';
import { openIssue } from './issues';
import { refuseSubmitWithoutDraft, reopenDrafts, submitDraft } from './overlap';
import { retryOnConflict } from '../../db/errors';

/** The image and the caller's role in its organization; 404 when either is missing (or not in orgId). */
export async function imageAndRole(ctx: AppContext, userId: string, imageId: string, orgId?: string): Promise<{ image: ImageRow; role: Role }> {
  const [image] = await ctx.db.select().from(images).where(eq(images.id, imageId)).limit(1);
  if (!image || (orgId && orgId !== image.organizationId)) throw errors.notFound('Image');
  const role = await roleIn(ctx.db, userId, image.organizationId);
  if (!role) throw errors.notFound('Image');
  return { image, role };
}

const refuse = (role: Role, what: string) => errors.forbidden(`Your role (${role}) cannot ${what}`);

/**
 * Moves the locked image from one of `from` to `to`, with its counters and a status event, in the
 * caller's transaction; 409 invalid_transition from any other stage.
 */
async function transition(tx: Tx, imageId: string, userId: string, from: readonly ImageStatus[], to: ImageStatus, verb: string) {
  const [before] = await tx.select().from(images).where(eq(images.id, imageId)).for('update');
  if (!before) throw errors.notFound('Image');
  if (!from.includes(before.status)) throw errors.conflict(`An image in ${before.status} cannot be ${verb}`, 'invalid_transition', { status: before.status });
  const [after] = await tx.update(images).set({ status: to, updatedAt: new Date() }).where(eq(images.id, imageId)).returning();
  await adjustCounters(tx, before.projectId, [before], [after!]);
  await recordEvents(tx, statusEvents(userId, [before], [after!]));
  return after!;
}

/**
 * POST /images/{id}/submit: the assignee hands the image in; anyone who may write annotations
 * hands in an unassigned one, and those who may set stages (images.stage) any one.
 */
export async function submitImage(ctx: AppContext, userId: string, imageId: string, orgId?: string) {
  const { image, role } = await imageAndRole(ctx, userId, imageId, orgId);
  if (!can(role, 'annotations.write')) throw refuse(role, 'submit images');
  // A ground-truth image the caller attempts (issue 36 §2): scored, and left as it was.
  const attempt = await submitAttempt(ctx, userId, image, role);
  if (attempt) return attempt;
  // An overlapped image (issue 36 §3): the caller's draft is handed in; the last of the N moves the image to review.
  const draft = await submitDraft(ctx, userId, image);
  if (draft) return draft;
  refuseSubmitWithoutDraft(image);
  if (image.assigneeId && image.assigneeId !== userId && !can(role, 'images.stage')) throw errors.forbidden('This image is assigned to someone else');
  const after = await retryOnConflict(() => ctx.db.transaction((tx) => transition(tx, imageId, userId, ['new', 'annotating'], 'review', 'submitted for review')));
  return { success: true as const, image: await imageJsonWithFolder(ctx.db, after) };
}

/** POST /images/{id}/review: owners, admins and reviewers (images.review) decide on an image in review. */
export async function reviewImage(ctx: AppContext, userId: string, imageId: string, body: ReviewRequest, orgId?: string) {
  const { image, role } = await imageAndRole(ctx, userId, imageId, orgId);
  if (!can(role, 'images.review')) throw refuse(role, 'review images');
  const accept = body.decision === 'accept';
  let issue: Issue | null = null;
  const after = await retryOnConflict(() => ctx.db.transaction(async (tx) => {
    const row = await transition(tx, imageId, userId, ['review'], accept ? 'complete' : 'annotating', accept ? 'accepted' : 'rejected');
    if (!accept && body.comment) issue = await openIssue(tx, image, userId, { body: body.comment });
    if (!accept) await reopenDrafts(tx, image);
    return row;
  }));
  // The issue's open_issues count went up after `after` was read.
  const [fresh] = issue ? await ctx.db.select().from(images).where(eq(images.id, imageId)).limit(1) : [after];
  return { success: true as const, image: await imageJsonWithFolder(ctx.db, fresh ?? after), issue };
}
