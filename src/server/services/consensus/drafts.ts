// The drafts of an overlapped image and their agreement (issue 36 §3): what a reviewer sees before
// merging. Agreement compares every pair of submitted drafts with the ground-truth scoring
// (../quality score(a, b): F1 at IoU >= 0.5 per class, the mean IoU of the matches) and averages
// over the pairs; the rule is in docs/analytics.md ("Consensus agreement").
import { asc, eq } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { drafts, projects } from '../../db/schema';
import type { StoredAnnotation } from '../../../contract/annotations';
import type { Agreement, DraftsResponse } from '../../../contract/consensus';
import { skeletonPointsOf } from '../../../contract/skeleton';
import type { ProjectClass } from '../../../contract/projects';
import { imageFor } from '../access';
import { score } from '../quality';
import { peopleByIds, personOf } from '../workflow';

/**
 * The agreement of a set of drafts: each pair scored once, F1 and mean IoU averaged over the pairs.
 * A pair's mean IoU is that of its matches (OKS for keypoints when it matched only those); a pair
 * with no match counts 0, or 1 when both drafts are empty (they agree: nothing there). Null with
 * fewer than two drafts.
 */
export function agreementOf(lists: readonly (readonly StoredAnnotation[])[], classes: readonly ProjectClass[] = []): Agreement | null {
  if (lists.length < 2) return null;
  const byName = new Map(classes.map((c) => [c.name, c]));
  const options = { pointNames: (name: string) => skeletonPointsOf(byName.get(name)) };
  let f1 = 0;
  let meanIou = 0;
  let pairs = 0;
  for (let i = 0; i < lists.length; i++) {
    for (let j = i + 1; j < lists.length; j++) {
      const s = score(lists[i]!, lists[j]!, options);
      f1 += s.f1;
      meanIou += s.mean_iou ?? s.mean_oks ?? (lists[i]!.length + lists[j]!.length === 0 ? 1 : 0);
      pairs++;
    }
  }
  return { f1: f1 / pairs, mean_iou: meanIou / pairs };
}

/**
 * GET /images/{id}/drafts (reviewer, admin, owner; another organization's image 404): the drafts,
 * oldest slot first, with who drew them; the agreement once all N annotators have submitted
 * (null before, and for an image that is not overlapped).
 */
export async function draftsOfImage(ctx: AppContext, userId: string, imageId: string, orgId?: string): Promise<DraftsResponse> {
  const image = await imageFor(ctx, userId, imageId, 'images.review', orgId);
  const rows = await ctx.db.select().from(drafts).where(eq(drafts.imageId, image.id)).orderBy(asc(drafts.takenAt), asc(drafts.id));
  const people = await peopleByIds(ctx.db, rows.map((r) => r.userId));
  const submitted = rows.filter((r) => r.submittedAt);
  let agreement: Agreement | null = null;
  if (image.overlap > 1 && submitted.length >= image.overlap) {
    const [project] = await ctx.db.select({ classes: projects.classes }).from(projects).where(eq(projects.id, image.projectId)).limit(1);
    agreement = agreementOf(submitted.map((r) => r.annotations as StoredAnnotation[]), project?.classes ?? []);
  }
  return {
    drafts: rows.map((r) => ({ user: personOf(people, r.userId), annotations: r.annotations as Record<string, unknown>[], submitted_at: r.submittedAt ? r.submittedAt.toISOString() : null })),
    agreement,
  };
}
