// GET /images/{id}/activity (issue 29): the image's events (./events.ts), newest first, by pages.
import { and, desc, eq, lt } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { imageEvents } from '../../db/schema';
import type { ActivityEvent } from '../../../contract/workflow';
import { imageFor } from '../access';
import { peopleByIds, personOf } from './events';

/** GET /images/{id}/activity: newest first, `limit` a page, `before` the previous page's cursor. */
export async function imageActivity(ctx: AppContext, userId: string, imageId: string, q: { org_id?: string; limit: number; before?: string }) {
  await imageFor(ctx, userId, imageId, 'images.read', q.org_id);
  const rows = await ctx.db
    .select()
    .from(imageEvents)
    .where(and(eq(imageEvents.imageId, imageId), q.before ? lt(imageEvents.id, Number(q.before)) : undefined))
    .orderBy(desc(imageEvents.id))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const people = await peopleByIds(ctx.db, page.map((r) => r.userId));
  const events: ActivityEvent[] = page.map((r) => ({
    id: String(r.id),
    type: r.type,
    at: r.createdAt.toISOString(),
    by: personOf(people, r.userId),
    ...(r.field && { field: r.field }),
    ...(r.type !== 'comment' && { from: r.fromValue, to: r.toValue }),
    ...(r.issueId && { issue_id: r.issueId }),
  }));
  return { events, next_cursor: rows.length > q.limit ? String(page[page.length - 1]!.id) : null };
}
