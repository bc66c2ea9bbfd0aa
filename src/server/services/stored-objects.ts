// Where an organization's objects live and how they are named: the project's object keys, the
// bucket, signed-URL lifetimes and batch deletes. Shared by images, upload, projects and tiles
// (kept apart from images.ts so that those do not import each other in a circle).
import { eq } from 'drizzle-orm';
import type { AppContext } from '../context';
import { organizations, type images, type projects } from '../db/schema';
import { errors } from '../errors';

type ImageRow = typeof images.$inferSelect;
type ProjectRow = typeof projects.$inferSelect;

export function imageKey(project: Pick<ProjectRow, 'gcsPath'>, filename: string): string {
  return `${project.gcsPath}/images/${filename}`;
}
export function thumbnailKey(project: Pick<ProjectRow, 'gcsPath'>, filename: string): string {
  return `${project.gcsPath}/thumbnails/${filename}.webp`;
}
export function sidecarKey(project: Pick<ProjectRow, 'gcsPath'>, filename: string): string {
  return `${project.gcsPath}/images/${filename}.json`;
}
export function gcsUri(bucket: string, key: string): string {
  return `gs://${bucket}/${key}`;
}

/** The organization's bucket; 409 when it has none yet (Settings > Fix Storage Configuration). */
export async function bucketFor(ctx: AppContext, organizationId: string): Promise<string> {
  const [org] = await ctx.db.select({ bucket: organizations.gcsBucketName }).from(organizations).where(eq(organizations.id, organizationId)).limit(1);
  if (!org?.bucket) throw errors.conflict('The organization has no storage bucket yet: use Fix Storage Configuration in Settings', 'storage_not_configured');
  return org.bucket;
}

/** Deletes keys, eight at a time; failures are logged (the orphan sweep retries them). Returns how many succeeded. */
export async function deleteKeys(ctx: AppContext, bucket: string, keys: string[]): Promise<number> {
  let done = 0;
  let next = 0;
  const worker = async () => {
    while (next < keys.length) {
      const key = keys[next++];
      try {
        await ctx.storage.delete(bucket, key);
        done += 1;
      } catch (err) {
        ctx.log.warn({ err, bucket, key }, 'could not delete a stored object; the orphan sweep will retry');
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, keys.length) }, worker));
  return done;
}

/**
 * The longest a signed GET URL lives, whatever is asked (expiration_minutes allows 7 days): a URL
 * cannot be withdrawn, so this bounds how long a removed member's copies keep working. The app's
 * URL caches renew before expires_at.
 */
export const MAX_GET_URL_SECONDS = 3600;

/** expiration_minutes as asked, capped at MAX_GET_URL_SECONDS. */
export function getUrlSeconds(expirationMinutes: number): number {
  return Math.min(expirationMinutes * 60, MAX_GET_URL_SECONDS);
}

export function previewKey(row: Pick<ImageRow, 'thumbnailPath' | 'gcsPath'>, variant: 'original' | 'thumbnail'): string {
  // No thumbnail (BMP): the original is the best preview there is.
  return variant === 'thumbnail' && row.thumbnailPath ? row.thumbnailPath : row.gcsPath;
}
