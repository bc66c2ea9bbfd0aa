// Retention of Magic Image Edit jobs: before the job queue deletes a finished job past its
// retention, the stored copies of its items that never became images are removed.
import { and, eq, gt, isNotNull } from 'drizzle-orm';
import type { AppContext } from '../../context';
import type { JobRow } from '../../jobs/queue';
import { imageEditItems, images, projects, uploadReservations } from '../../db/schema';
import { filenameLockKey, withKeyLock, type ProjectRow } from '../images';
import { bucketFor, deleteKeys, imageKey, sidecarKey, thumbnailKey } from '../stored-objects';
import type { JobPayload } from './run';

/**
 * The stored copy of an item that never became an image (its registration failed): deleted
 * unless an image or a live upload reservation now holds that name (it may have been reused).
 */
async function dropLeftover(ctx: AppContext, project: ProjectRow, bucket: string, filename: string, now: Date): Promise<number> {
  return withKeyLock(filenameLockKey(project.id, filename), async () => {
    const [row] = await ctx.db.select({ id: images.id }).from(images).where(and(eq(images.projectId, project.id), eq(images.filename, filename))).limit(1);
    if (row) return 0;
    const [held] = await ctx.db
      .select({ filename: uploadReservations.filename })
      .from(uploadReservations)
      .where(and(eq(uploadReservations.projectId, project.id), eq(uploadReservations.filename, filename), gt(uploadReservations.expiresAt, now)))
      .limit(1);
    if (held) return 0;
    const keys: string[] = [];
    for (const key of [imageKey(project, filename), sidecarKey(project, filename), thumbnailKey(project, filename)]) {
      if (await ctx.storage.head(bucket, key)) keys.push(key);
    }
    return deleteKeys(ctx, bucket, keys);
  });
}

/** Before a finished job is deleted: the stored copies of its items that never became images. */
export async function dropLeftovers(ctx: AppContext, job: Pick<JobRow, 'id' | 'payload'>, now: Date): Promise<number> {
  const leftovers = await ctx.db
    .select({ filename: imageEditItems.outputFilename })
    .from(imageEditItems)
    .where(and(eq(imageEditItems.jobId, job.id), eq(imageEditItems.status, 'failed'), isNotNull(imageEditItems.outputFilename)));
  const projectId = (job.payload as Partial<JobPayload>).project_id;
  const [project] = leftovers.length && projectId ? await ctx.db.select().from(projects).where(eq(projects.id, projectId)).limit(1) : [];
  if (!project) return 0;
  const bucket = await bucketFor(ctx, project.organizationId).catch(() => null);
  let objects = 0;
  for (const { filename } of bucket ? leftovers : []) objects += await dropLeftover(ctx, project, bucket!, filename!, now);
  return objects;
}
