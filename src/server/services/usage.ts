// Usage per organization: annotation records (what the editor reports) and storage used.
import { and, eq, gte, sql, type SQL } from 'drizzle-orm';
import type { AppContext } from '../context';
import { images, projects, usageRecords } from '../db/schema';
import { errors } from '../errors';
import type { UsageAnnotationType } from '../../contract/usage';
import { requireMember } from './access';

export async function recordAnnotationUsage(
  ctx: AppContext,
  userId: string,
  body: { organization_id: string; project_id: string; image_id?: string | null; annotation_type: UsageAnnotationType; annotation_count: number },
) {
  await requireMember(ctx.db, userId, body.organization_id, 'usage.record');
  // The project (and image) must be the organization's own: never record against someone else's ids.
  const [project] = await ctx.db.select({ id: projects.id }).from(projects).where(and(eq(projects.id, body.project_id), eq(projects.organizationId, body.organization_id))).limit(1);
  if (!project) throw errors.notFound('Project');
  if (body.image_id) {
    const [image] = await ctx.db.select({ id: images.id }).from(images).where(and(eq(images.id, body.image_id), eq(images.projectId, project.id))).limit(1);
    if (!image) throw errors.notFound('Image');
  }
  const [row] = await ctx.db
    .insert(usageRecords)
    .values({ organizationId: body.organization_id, projectId: project.id, imageId: body.image_id ?? null, annotationType: body.annotation_type, annotationCount: body.annotation_count })
    .returning({ id: usageRecords.id });
  return { success: true as const, id: row.id };
}

export async function usageSummary(ctx: AppContext, userId: string, orgId: string, since?: string) {
  await requireMember(ctx.db, userId, orgId, 'org.read', 'Organization');
  const where: SQL[] = [eq(usageRecords.organizationId, orgId)];
  if (since) where.push(gte(usageRecords.createdAt, new Date(since)));
  const annotationRows = await ctx.db
    .select({
      projectId: usageRecords.projectId,
      projectName: projects.name,
      type: usageRecords.annotationType,
      n: sql<number>`sum(${usageRecords.annotationCount})`.mapWith(Number),
    })
    .from(usageRecords)
    .leftJoin(projects, eq(projects.id, usageRecords.projectId))
    .where(and(...where))
    .groupBy(usageRecords.projectId, projects.name, usageRecords.annotationType);
  const byType: Record<string, number> = {};
  const perProject = new Map<string | null, { project_id: string | null; project_name: string | null; total: number; by_type: Record<string, number> }>();
  let total = 0;
  for (const r of annotationRows) {
    total += r.n;
    byType[r.type] = (byType[r.type] ?? 0) + r.n;
    const p = perProject.get(r.projectId) ?? { project_id: r.projectId, project_name: r.projectName, total: 0, by_type: {} };
    p.total += r.n;
    p.by_type[r.type] = (p.by_type[r.type] ?? 0) + r.n;
    perProject.set(r.projectId, p);
  }

  const storageRows = await ctx.db
    .select({
      projectId: projects.id,
      projectName: projects.name,
      imageCount: sql<number>`count(${images.id})`.mapWith(Number),
      imagesBytes: sql<number>`coalesce(sum(${images.fileSize}), 0)`.mapWith(Number),
      thumbnailsBytes: sql<number>`coalesce(sum(${images.thumbnailSize}), 0)`.mapWith(Number),
    })
    .from(projects)
    .leftJoin(images, eq(images.projectId, projects.id))
    .where(eq(projects.organizationId, orgId))
    .groupBy(projects.id, projects.name)
    .orderBy(projects.name);
  const storage = {
    image_count: 0,
    images_bytes: 0,
    thumbnails_bytes: 0,
    total_bytes: 0,
    by_project: storageRows.map((r) => ({ project_id: r.projectId, project_name: r.projectName, image_count: r.imageCount, images_bytes: r.imagesBytes, thumbnails_bytes: r.thumbnailsBytes })),
  };
  for (const r of storageRows) {
    storage.image_count += r.imageCount;
    storage.images_bytes += r.imagesBytes;
    storage.thumbnails_bytes += r.thumbnailsBytes;
  }
  storage.total_bytes = storage.images_bytes + storage.thumbnails_bytes;
  return {
    organization_id: orgId,
    since: since ?? null,
    annotations: { total, by_type: byType, by_project: [...perProject.values()].sort((a, b) => b.total - a.total) },
    storage,
  };
}
