// Assignments and the work queue (issue 29): who annotates and who reviews an image, and "take the
// next image" for either role.
import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import type { Exec } from '../../db/client';
import { images, organizationMembers, type Role } from '../../db/schema';
import { errors } from '../../errors';
import type { AssignRequest, QueueRole } from '../../../contract/workflow';
import type { Image } from '../../../contract/images';
import { can, projectInOrg, requireMember } from '../access';
import { imageJsonWithFolder, type ImageRow } from '../images';
import { groundTruthTurn } from '../quality';
import { recordEvents, type NewEvent } from './events';
import { openDraftTurn, overlapOf, setOverlap, takeDraftSlot } from './overlap';
import { retryOnConflict } from '../../db/errors';

const CHUNK = 5000;

/** 400 invalid_assignee unless `userId` is a member of the organization whose role holds `permission`. */
async function requireEligible(ctx: AppContext, organizationId: string, userId: string, permission: 'annotations.write' | 'images.review', what: string): Promise<void> {
  const [member] = await ctx.db
    .select({ role: organizationMembers.role })
    .from(organizationMembers)
    .where(and(eq(organizationMembers.organizationId, organizationId), eq(organizationMembers.userId, userId)))
    .limit(1);
  if (!member || !can(member.role, permission)) {
    const who = permission === 'images.review' ? 'a reviewer, admin or owner' : 'a member who may annotate';
    throw errors.badRequest(`The ${what} must be ${who} of this organization`, 'invalid_assignee');
  }
}

/**
 * POST /images/assign. Every image must be of one organization the caller may assign in (another
 * organization's image: 404, touching nothing); a field left out is unchanged, null clears it.
 * Answers how many images were found and set.
 */
export async function assignImages(ctx: AppContext, userId: string, body: AssignRequest, orgId?: string) {
  const ids = [...new Set(body.image_ids)];
  const orgs = new Set<string>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    const rows = await ctx.db.selectDistinct({ org: images.organizationId }).from(images).where(inArray(images.id, ids.slice(i, i + CHUNK)));
    for (const r of rows) orgs.add(r.org);
  }
  if (orgs.size === 0) throw errors.notFound('Image');
  for (const org of orgs) {
    if (orgId && org !== orgId) throw errors.notFound('Image');
    await requireMember(ctx.db, userId, org, 'images.assign', 'Image');
  }
  if (orgs.size > 1) throw errors.badRequest('The images belong to more than one organization');
  const [organizationId] = [...orgs];
  if (body.assignee_id) await requireEligible(ctx, organizationId!, body.assignee_id, 'annotations.write', 'assignee');
  if (body.reviewer_id) await requireEligible(ctx, organizationId!, body.reviewer_id, 'images.review', 'reviewer');
  const overlap = body.overlap === undefined ? undefined : overlapOf(body.overlap);

  return retryOnConflict(() => ctx.db.transaction(async (tx) => {
    let updated = 0;
    for (let i = 0; i < ids.length; i += CHUNK) {
      const before = await tx
        .select({ id: images.id, assigneeId: images.assigneeId, reviewerId: images.reviewerId, status: images.status, overlap: images.overlap })
        .from(images)
        .where(inArray(images.id, ids.slice(i, i + CHUNK)))
        .for('update');
      if (before.length === 0) continue;
      if (overlap !== undefined) await setOverlap(tx, before, overlap);
      await tx
        .update(images)
        .set({ ...(body.assignee_id !== undefined && { assigneeId: body.assignee_id }), ...(body.reviewer_id !== undefined && { reviewerId: body.reviewer_id }), updatedAt: new Date() })
        .where(inArray(images.id, before.map((r) => r.id)));
      updated += before.length;
      const events: NewEvent[] = [];
      for (const r of before) {
        if (body.assignee_id !== undefined && r.assigneeId !== body.assignee_id) events.push(assignEvent(r.id, userId, 'assignee', r.assigneeId, body.assignee_id));
        if (body.reviewer_id !== undefined && r.reviewerId !== body.reviewer_id) events.push(assignEvent(r.id, userId, 'reviewer', r.reviewerId, body.reviewer_id));
      }
      await recordEvents(tx, events);
    }
    return { success: true as const, updated };
  }));
}

const assignEvent = (imageId: string, userId: string | null, field: 'assignee' | 'reviewer', from: string | null, to: string | null): NewEvent => ({
  imageId,
  type: 'assign',
  userId,
  field,
  fromValue: from,
  toValue: to,
});

/**
 * Clears the assignments a member can no longer hold in the organization, in the caller's
 * transaction: every one when they leave (role null), the images they annotate when their new role
 * may not write annotations, the images they review when it may not review. Each is an 'assign'
 * event by `by` (who removed them or changed their role), so the activity says why it changed.
 */
export async function releaseAssignments(tx: Exec, organizationId: string, userId: string, role: Role | null, by: string): Promise<void> {
  const held = [
    { field: 'assignee', column: images.assigneeId, clear: { assigneeId: null }, permission: 'annotations.write' },
    { field: 'reviewer', column: images.reviewerId, clear: { reviewerId: null }, permission: 'images.review' },
  ] as const;
  for (const h of held) {
    if (role && can(role, h.permission)) continue;
    const released = await tx
      .update(images)
      .set({ ...h.clear, updatedAt: new Date() })
      .where(and(eq(images.organizationId, organizationId), eq(h.column, userId)))
      .returning({ id: images.id });
    await recordEvents(tx, released.map((r) => assignEvent(r.id, by, h.field, userId, null)));
  }
}

/** What each queue takes: the person column, the stages an image waits in, and which images (overlapped ones go to annotators through their drafts, ./overlap.ts). */
const QUEUES = {
  annotate: { person: images.assigneeId, field: 'assignee', waiting: ['new', 'annotating'], unclaimed: 'new', only: eq(images.overlap, 1) },
  review: { person: images.reviewerId, field: 'reviewer', waiting: ['review'], unclaimed: 'review', only: undefined },
} as const;

/**
 * POST /projects/{id}/queue/next: (annotate) the caller's open ground-truth attempt, or at the
 * project's gt_rate a ground-truth image to attempt; else their open consensus draft; else the
 * caller's oldest image waiting in the queue; else (annotate) a free slot of an overlapped image,
 * as a draft of their own; else the oldest image nobody holds, claimed in one UPDATE whose row is
 * picked FOR UPDATE SKIP LOCKED (two callers never claim the same one); null when nothing is left
 * (the route answers 204).
 */
export async function nextInQueue(ctx: AppContext, userId: string, projectId: string, role: QueueRole, orgId?: string): Promise<{ image: Image } | null> {
  const project = await projectInOrg(ctx, userId, projectId, role === 'annotate' ? 'annotations.write' : 'images.review', orgId);
  if (role === 'annotate') {
    // Ground-truth images come first at the project's gt_rate (issue 36 §2), shown like any other.
    const turn = (await groundTruthTurn(ctx, userId, project)) ?? (await openDraftTurn(ctx, userId, project));
    if (turn) return turn;
  }
  const queue = QUEUES[role];
  const live = and(eq(images.projectId, project.id), eq(images.isArchived, false));
  const [mine] = await ctx.db
    .select()
    .from(images)
    .where(and(live, queue.only, eq(queue.person, userId), inArray(images.status, [...queue.waiting])))
    .orderBy(asc(images.createdAt), asc(images.id))
    .limit(1);
  if (mine) return { image: await imageJsonWithFolder(ctx.db, mine) };
  const slot = role === 'annotate' ? await takeDraftSlot(ctx, userId, project) : null;
  if (slot) return slot;
  const claimed = await retryOnConflict(() => ctx.db.transaction(async (tx) => {
    const pick = tx
      .select({ id: images.id })
      .from(images)
      .where(and(live, queue.only, isNull(queue.person), eq(images.status, queue.unclaimed)))
      .orderBy(asc(images.createdAt), asc(images.id))
      .limit(1)
      .for('update', { skipLocked: true });
    const set = role === 'annotate' ? { assigneeId: userId } : { reviewerId: userId };
    const [row]: ImageRow[] = await tx
      .update(images)
      .set({ ...set, updatedAt: new Date() })
      .where(and(eq(images.id, sql`(${pick})`), isNull(queue.person)))
      .returning();
    if (row) await recordEvents(tx, [assignEvent(row.id, userId, queue.field, null, userId)]);
    return row;
  }));
  return claimed ? { image: await imageJsonWithFolder(ctx.db, claimed) } : null;
}
