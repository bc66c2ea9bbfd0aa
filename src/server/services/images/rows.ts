// The row types of images and projects, and the row-level checks the image operations share.
import { and, eq, inArray, ne } from 'drizzle-orm';
import type { Exec, Tx } from '../../db/client';
import { images, projects } from '../../db/schema';
import { errors } from '../../errors';

export type ImageRow = typeof images.$inferSelect;
export type ProjectRow = typeof projects.$inferSelect;

/**
 * 404 'Image not found', touching nothing, when any of the ids is an image of another organization
 * (as GET /images/{id} answers it). Ids of the organization's other projects, or of no image, are
 * left to the caller (the batch calls skip them and list them in skipped_ids).
 */
export async function refuseForeignImages(db: Exec, organizationId: string, ids: readonly string[]): Promise<void> {
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += 5000) {
    const [foreign] = await db
      .select({ id: images.id })
      .from(images)
      .where(and(inArray(images.id, unique.slice(i, i + 5000)), ne(images.organizationId, organizationId)))
      .limit(1);
    if (foreign) throw errors.notFound('Image');
  }
}

/** Selects rows of one project for update (ids outside it are simply not returned). */
export async function lockRows(tx: Tx, projectId: string, ids: string[]): Promise<ImageRow[]> {
  if (ids.length === 0) return [];
  return tx.select().from(images).where(and(eq(images.projectId, projectId), inArray(images.id, ids))).for('update');
}
