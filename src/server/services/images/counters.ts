// The project counters, kept in the same transaction as every change of images:
//   image_count            images not archived (what the Data view holds)
//   archived_images        archived images
//   completed_image_count  images not archived whose status is complete (progress = completed / image_count)
//   total_size             bytes of all original files, archived included (they are still stored)
//   annotation_count       sum of the images' annotation counts, archived included
import { eq, sql } from 'drizzle-orm';
import type { Exec } from '../../db/client';
import { projects } from '../../db/schema';

export interface CounterState {
  isArchived: boolean;
  status: string;
  fileSize: number;
  annotationCount: number;
}

/** Applies what changed between `before` and `after` (rows removed: only in before; added: only in after) to the project's counters. */
export async function adjustCounters(db: Exec, projectId: string, before: CounterState[], after: CounterState[]): Promise<void> {
  const d = { images: 0, archived: 0, completed: 0, size: 0, annotations: 0 };
  const add = (s: CounterState, sign: 1 | -1) => {
    d.images += sign * (s.isArchived ? 0 : 1);
    d.archived += sign * (s.isArchived ? 1 : 0);
    d.completed += sign * (!s.isArchived && s.status === 'complete' ? 1 : 0);
    d.size += sign * s.fileSize;
    d.annotations += sign * s.annotationCount;
  };
  for (const s of before) add(s, -1);
  for (const s of after) add(s, 1);
  if (!d.images && !d.archived && !d.completed && !d.size && !d.annotations) return;
  await db
    .update(projects)
    .set({
      imageCount: sql`${projects.imageCount} + ${d.images}`,
      archivedImages: sql`${projects.archivedImages} + ${d.archived}`,
      completedImageCount: sql`${projects.completedImageCount} + ${d.completed}`,
      totalSize: sql`${projects.totalSize} + ${d.size}`,
      annotationCount: sql`${projects.annotationCount} + ${d.annotations}`,
      updatedAt: new Date(),
    })
    .where(eq(projects.id, projectId));
}
