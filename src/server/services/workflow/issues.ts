// Issues pinned to regions (issue 29): a thread about an image, or a point or a rectangle of it, in
// image pixels. The first comment is the issue's body. images.open_issues counts the open ones and
// changes in the same transaction; every change is an image event and is announced to the image's
// live sockets (WORKFLOW_CHANNEL).
import { randomUUID } from 'node:crypto';
import { asc, count, eq, inArray, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import type { Exec, Tx } from '../../db/client';
import { images, issueComments, issues } from '../../db/schema';
import { errors } from '../../errors';
import { MAX_COMMENTS_PER_ISSUE, MAX_ISSUES_PER_IMAGE, regionInside, type Comment, type CreateIssueRequest, type Issue, type IssueStatus } from '../../../contract/workflow';
import { imageFor, requireMember } from '../access';
import type { ImageRow } from '../images';
import { announceIssues, peopleByIds, personOf, recordEvents } from './events';
import { retryOnConflict } from '../../db/errors';

type IssueRow = typeof issues.$inferSelect;
type CommentRow = typeof issueComments.$inferSelect;

async function issuesJson(db: Exec, rows: IssueRow[]): Promise<Issue[]> {
  if (rows.length === 0) return [];
  const comments = await db
    .select()
    .from(issueComments)
    .where(inArray(issueComments.issueId, rows.map((r) => r.id)))
    .orderBy(asc(issueComments.createdAt), asc(issueComments.id));
  const people = await peopleByIds(db, [...rows.map((r) => r.createdBy), ...comments.map((c) => c.createdBy)]);
  const byIssue = new Map<string, Comment[]>();
  for (const c of comments) byIssue.set(c.issueId, [...(byIssue.get(c.issueId) ?? []), commentJson(c, people)]);
  return rows.map((r) => ({
    id: r.id,
    image_id: r.imageId,
    status: r.status,
    region: r.region,
    created_by: personOf(people, r.createdBy),
    created_at: r.createdAt.toISOString(),
    comments: byIssue.get(r.id) ?? [],
  }));
}

const commentJson = (c: CommentRow, people: Map<string, { id: string; name: string }>): Comment => ({ id: c.id, body: c.body, by: personOf(people, c.createdBy), at: c.createdAt.toISOString() });

/** 400 when the region leaves the image (or the image's size is unknown). */
function checkRegion(image: ImageRow, region: CreateIssueRequest['region']): void {
  if (!region) return;
  if (!image.imageWidth || !image.imageHeight) throw errors.badRequest('The image size is unknown: an issue on it cannot have a region', 'image_size_unknown');
  if (!regionInside(region, image.imageWidth, image.imageHeight)) {
    throw errors.badRequest(`The region must lie within the image (${image.imageWidth} x ${image.imageHeight} pixels)`, 'region_outside_image');
  }
}

/** Opens an issue on the image in the caller's transaction (also the review's reject comment); the region is checked before anything is written. */
export async function openIssue(tx: Tx, image: ImageRow, userId: string, input: CreateIssueRequest): Promise<Issue> {
  checkRegion(image, input.region);
  const [{ n } = { n: 0 }] = await tx.select({ n: count() }).from(issues).where(eq(issues.imageId, image.id));
  if (n >= MAX_ISSUES_PER_IMAGE) throw errors.conflict(`An image holds at most ${MAX_ISSUES_PER_IMAGE} issues`);
  const now = new Date();
  const [row] = await tx
    .insert(issues)
    .values({ id: randomUUID(), imageId: image.id, organizationId: image.organizationId, status: 'open', region: input.region ?? null, createdBy: userId, createdAt: now, updatedAt: now })
    .returning();
  await tx.insert(issueComments).values({ id: randomUUID(), issueId: row!.id, body: input.body, createdBy: userId, createdAt: now });
  await tx.update(images).set({ openIssues: sql`${images.openIssues} + 1` }).where(eq(images.id, image.id));
  await recordEvents(tx, [{ imageId: image.id, type: 'issue', userId, toValue: 'open', issueId: row!.id }]);
  await announceIssues(tx, image.id);
  const [json] = await issuesJson(tx, [row!]);
  return json!;
}

/** POST /images/{id}/issues. */
export async function createIssue(ctx: AppContext, userId: string, imageId: string, input: CreateIssueRequest, orgId?: string) {
  const image = await imageFor(ctx, userId, imageId, 'issues.write', orgId);
  return { issue: await retryOnConflict(() => ctx.db.transaction((tx) => openIssue(tx, image, userId, input))) };
}

/** GET /images/{id}/issues: every issue of the image, oldest first, with their comments. */
export async function listIssues(ctx: AppContext, userId: string, imageId: string, orgId?: string) {
  await imageFor(ctx, userId, imageId, 'images.read', orgId);
  const rows = await ctx.db.select().from(issues).where(eq(issues.imageId, imageId)).orderBy(asc(issues.createdAt), asc(issues.id));
  return { issues: await issuesJson(ctx.db, rows) };
}

/** The issue if the caller may `permission` in its organization; 404 otherwise (also another organization's). */
async function issueFor(ctx: AppContext, userId: string, issueId: string, permission: 'issues.write', orgId?: string): Promise<IssueRow> {
  const [row] = await ctx.db.select().from(issues).where(eq(issues.id, issueId)).limit(1);
  if (!row || (orgId && orgId !== row.organizationId)) throw errors.notFound('Issue');
  await requireMember(ctx.db, userId, row.organizationId, permission, 'Issue');
  return row;
}

/** POST /issues/{id}/comments. */
export async function addComment(ctx: AppContext, userId: string, issueId: string, body: string, orgId?: string) {
  const issue = await issueFor(ctx, userId, issueId, 'issues.write', orgId);
  const row = await retryOnConflict(() => ctx.db.transaction(async (tx) => {
    // Lock the issue: concurrent comments count against the cap one after the other.
    await tx.select({ id: issues.id }).from(issues).where(eq(issues.id, issueId)).for('update');
    const [{ n } = { n: 0 }] = await tx.select({ n: count() }).from(issueComments).where(eq(issueComments.issueId, issueId));
    if (n >= MAX_COMMENTS_PER_ISSUE) throw errors.conflict(`An issue holds at most ${MAX_COMMENTS_PER_ISSUE} comments`);
    const [comment] = await tx.insert(issueComments).values({ id: randomUUID(), issueId, body, createdBy: userId, createdAt: new Date() }).returning();
    await recordEvents(tx, [{ imageId: issue.imageId, type: 'comment', userId, issueId }]);
    await announceIssues(tx, issue.imageId);
    return comment!;
  }));
  return { comment: commentJson(row, await peopleByIds(ctx.db, [userId])) };
}

/** PATCH /issues/{id}: resolve or reopen. */
export async function setIssueStatus(ctx: AppContext, userId: string, issueId: string, status: IssueStatus, orgId?: string) {
  await issueFor(ctx, userId, issueId, 'issues.write', orgId);
  const row = await retryOnConflict(() => ctx.db.transaction(async (tx) => {
    const [before] = await tx.select().from(issues).where(eq(issues.id, issueId)).for('update');
    if (!before) throw errors.notFound('Issue');
    if (before.status === status) return before;
    const [after] = await tx.update(issues).set({ status, updatedAt: new Date() }).where(eq(issues.id, issueId)).returning();
    await tx
      .update(images)
      .set({ openIssues: status === 'open' ? sql`${images.openIssues} + 1` : sql`greatest(${images.openIssues} - 1, 0)` })
      .where(eq(images.id, before.imageId));
    await recordEvents(tx, [{ imageId: before.imageId, type: 'issue', userId, fromValue: before.status, toValue: status, issueId }]);
    await announceIssues(tx, before.imageId);
    return after!;
  }));
  const [issue] = await issuesJson(ctx.db, [row]);
  return { issue: issue! };
}
