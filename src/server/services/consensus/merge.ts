// The merge of an overlapped image's drafts (issue 36 §3): POST /images/{id}/merge {annotations}.
// The reviewer's list (one layer's shapes, or the consensus of them, put together in the app)
// becomes the image's annotations as one version by the reviewer, marked `merged` in the change log,
// through the one save path (../annotations saveMerge), so the counters, class stats, analytics and
// the live channel follow. The drafts stay for the record; exports read only the image's own
// annotations, so they never reach one.
import { and, count, eq, isNotNull } from 'drizzle-orm';
import type { AppContext } from '../../context';
import type { Exec } from '../../db/client';
import { drafts, images } from '../../db/schema';
import { errors } from '../../errors';
import type { MergeRequest, MergeResponse } from '../../../contract/consensus';
import { imageFor } from '../access';
import { saveMerge } from '../annotations';
import { imageJsonWithFolder, type ImageRow } from '../images';

/** 409 unless the image's drafts can be merged now: all N submitted (consensus_pending), the image in review (invalid_transition). */
async function refuseUnmergeable(db: Exec, image: ImageRow): Promise<void> {
  const [submitted] = await db.select({ n: count() }).from(drafts).where(and(eq(drafts.imageId, image.id), isNotNull(drafts.submittedAt)));
  const n = Number(submitted?.n ?? 0);
  if (n < image.overlap) throw errors.conflict(`${n} of the image's ${image.overlap} annotators have submitted`, 'consensus_pending', { submitted: n, overlap: image.overlap });
  if (image.status !== 'review') throw errors.conflict(`An image in ${image.status} cannot be merged`, 'invalid_transition', { status: image.status });
}

/**
 * Reviewer, admin and owner (images.review; 403 for the others, 404 for another organization's
 * image). 409 not_overlapped for an image that is not overlapped, consensus_pending until all its
 * annotators have submitted, invalid_transition outside review. The list is checked like a save
 * (shapes, classes, limits: 400 with the save's codes). The stage and drafts are checked before the
 * list (a quick answer) and again under the save's lock of the image row: a reject committed in
 * between (which reopens the drafts) refuses the merge instead of writing over a reworked image.
 */
export async function mergeDrafts(ctx: AppContext, userId: string, imageId: string, body: MergeRequest, orgId?: string): Promise<MergeResponse> {
  const image = await imageFor(ctx, userId, imageId, 'images.review', orgId);
  if (image.overlap <= 1) throw errors.conflict('This image is not given to several annotators: there is nothing to merge', 'not_overlapped');
  await refuseUnmergeable(ctx.db, image);
  const saved = await saveMerge(ctx, userId, image, body.annotations, (tx, locked) => refuseUnmergeable(tx, locked));
  const [after] = await ctx.db.select().from(images).where(eq(images.id, image.id)).limit(1);
  return { success: true as const, image: await imageJsonWithFolder(ctx.db, after ?? image), version: saved.version };
}
