// PATCH annotations/status (an image's stage from the editor) and GET stats (counts over a project).
import { and, count, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { imageClassStats, images } from '../../db/schema';
import { ANNOTATION_KINDS, type AnnotationStatsResponse } from '../../../contract/annotation-api';
import type { ImageStatus } from '../../../contract/images';
import { annotatedImage, projectFor } from '../access';
import { setImageStatus } from '../images';
import { rowsOf } from './store';

export async function setAnnotationStatus(ctx: AppContext, userId: string, body: { image_id: string; project_id: string } & ({ status: ImageStatus } | { cycle: true })) {
  await annotatedImage(ctx, userId, body.image_id, body.project_id, 'images.stage');
  return setImageStatus(ctx, userId, body.image_id, 'status' in body ? { status: body.status } : { cycle: true });
}

/** Counts over the project's images in the Data view (archived images left out): shapes by SQL over the rows, images per class from image_class_stats. */
export async function annotationStats(ctx: AppContext, userId: string, projectId: string): Promise<AnnotationStatsResponse> {
  await projectFor(ctx, userId, projectId, 'annotations.read');
  const [groups, totals, imageGroups] = await Promise.all([
    rowsOf<{ name: string; kind: string; n: number | string }>(
      ctx.db,
      sql`SELECT a.name, a.kind, count(*) AS n
          FROM ${images} i JOIN annotations a ON a.image_id = i.id
          WHERE i.project_id = ${projectId} AND NOT i.is_archived
          GROUP BY 1, 2`,
    ).then((rows) => ({ rows })),
    ctx.db
      .select({ total: count(), annotated: sql<number>`count(*) FILTER (WHERE ${images.annotationCount} > 0)`.mapWith(Number) })
      .from(images)
      .where(and(eq(images.projectId, projectId), eq(images.isArchived, false))),
    // Images per class: the per-folder counts kept by triggers on images (0015_image_class_stats.sql).
    ctx.db
      .select({ name: imageClassStats.className, n: sql<number>`sum(${imageClassStats.imageCount})`.mapWith(Number) })
      .from(imageClassStats)
      .where(and(eq(imageClassStats.projectId, projectId), eq(imageClassStats.isArchived, false)))
      .groupBy(imageClassStats.className),
  ]);
  const by_type = Object.fromEntries(ANNOTATION_KINDS.map((k) => [k, 0])) as AnnotationStatsResponse['by_type'];
  const by_class: Record<string, number> = {};
  let total = 0;
  for (const row of groups.rows) {
    const n = Number(row.n);
    total += n;
    by_type[row.kind as keyof typeof by_type] += n;
    const name = row.name ?? '';
    by_class[name] = (by_class[name] ?? 0) + n;
  }
  return {
    project_id: projectId,
    total_annotations: total,
    by_type,
    by_class,
    images_by_class: Object.fromEntries(imageGroups.map((row) => [row.name, Number(row.n)])),
    images_with_annotations: totals[0]?.annotated ?? 0,
    images_total: totals[0]?.total ?? 0,
  };
}
