// Projects: CRUD within an organization, the counters the project cards show, and the
// project config file (<name>.project_config.json) kept in the organization's bucket.
import { randomUUID } from 'node:crypto';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { AppContext } from '../context';
import { images, organizations, projects, type ProjectClass } from '../db/schema';
import { classListProblem, normalizeClassList, type Project, type ProjectClass as ClassInput } from '../../contract/projects';
import { errors } from '../errors';
import { projectFor, requireMember } from './access';
import { previewKey } from './stored-objects';

type ProjectRow = typeof projects.$inferSelect;
type PreviewImage = Project['preview_images'][number];

function projectJson(p: ProjectRow, previews: PreviewImage[] = []): Project {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    organization_id: p.organizationId,
    gcs_path: p.gcsPath,
    classes: p.classes,
    annotation_types: p.annotationTypes,
    created_by: p.createdBy,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
    image_count: p.imageCount,
    completed_image_count: p.completedImageCount,
    annotation_count: p.annotationCount,
    total_size: p.totalSize,
    archived_images: p.archivedImages,
    gt_rate: p.gtRate,
    gt_pass_threshold: p.gtPassThreshold,
    preview_images: previews,
  };
}

export function configFileKey(p: Pick<ProjectRow, 'gcsPath' | 'name'>): string {
  const safeName = p.name.replace(/[^\w.\- ]+/g, '_').trim() || 'project';
  return `${p.gcsPath}/${safeName}.project_config.json`;
}

async function bucketOf(ctx: AppContext, orgId: string): Promise<string | null> {
  const [org] = await ctx.db.select({ bucket: organizations.gcsBucketName }).from(organizations).where(eq(organizations.id, orgId)).limit(1);
  return org?.bucket ?? null;
}

/** Writes the project config file. Storage trouble is logged, never fatal to the edit: the next class change writes it again. */
async function writeConfigFile(ctx: AppContext, p: ProjectRow, previous?: ProjectRow): Promise<void> {
  const bucket = await bucketOf(ctx, p.organizationId);
  if (!bucket) return;
  const body = JSON.stringify({ kind: 'config', project: { id: p.id, name: p.name }, classes: p.classes.map(({ name, type, tools, kind, skeleton, color, attributes }) => ({ name, ...(type ? { type } : {}), ...(tools ? { tools } : {}), ...(kind ? { kind, skeleton } : {}), color, ...(attributes?.length ? { attributes } : {}) })) }, null, 2);
  try {
    await ctx.storage.put(bucket, configFileKey(p), Buffer.from(body), { contentType: 'application/json' });
    if (previous && configFileKey(previous) !== configFileKey(p)) await ctx.storage.delete(bucket, configFileKey(previous));
  } catch (err) {
    ctx.log.warn({ err, projectId: p.id }, 'could not write the project config file');
  }
}

/**
 * A request's class list in its stored form (`type` read as tools, an older client's one name under
 * two types merged into one class), or a 400 with the rule it breaks (names unique whatever the
 * tools, at least one tool, a skeleton's points and edges) in words a person can act on.
 */
export function checkedClasses(classes: readonly ClassInput[]): ProjectClass[] {
  const normalized = normalizeClassList(classes);
  const problem = classListProblem(normalized);
  if (problem) throw errors.badRequest(problem.message, problem.code, { class_index: problem.index });
  return normalized;
}

/** Up to 3 latest images of each project, newest first, with signed preview URLs. A LATERAL look-up
 * per project reads three rows from images_project_created_idx, however many images it holds. */
async function previewsFor(ctx: AppContext, rows: ProjectRow[]): Promise<Map<string, PreviewImage[]>> {
  const result = new Map<string, PreviewImage[]>();
  if (rows.length === 0) return result;
  const latest = ctx.db
    .select({ id: images.id, filename: images.filename, thumbnailPath: images.thumbnailPath, gcsPath: images.gcsPath, createdAt: images.createdAt })
    .from(images)
    .where(and(eq(images.projectId, projects.id), eq(images.isArchived, false)))
    .orderBy(desc(images.createdAt), desc(images.id))
    .limit(3)
    .as('latest');
  const found = await ctx.db
    .select({ projectId: projects.id, id: latest.id, filename: latest.filename, thumbnailPath: latest.thumbnailPath, gcsPath: latest.gcsPath })
    .from(projects)
    .innerJoinLateral(latest, sql`true`)
    .where(inArray(projects.id, rows.map((r) => r.id)))
    .orderBy(projects.id, desc(latest.createdAt), desc(latest.id));
  const buckets = new Map<string, string | null>();
  for (const r of rows) if (!buckets.has(r.organizationId)) buckets.set(r.organizationId, await bucketOf(ctx, r.organizationId));
  const orgOf = new Map(rows.map((r) => [r.id, r.organizationId]));
  for (const img of found) {
    const bucket = buckets.get(orgOf.get(img.projectId)!);
    const url = bucket ? (await ctx.storage.signedDownloadUrl(bucket, previewKey(img, 'thumbnail'), { expiresInSeconds: 3600 })).url : null;
    const list = result.get(img.projectId) ?? [];
    list.push({ id: img.id, filename: img.filename, thumbnail_url: url });
    result.set(img.projectId, list);
  }
  return result;
}

export async function listProjects(ctx: AppContext, userId: string, orgId: string): Promise<Project[]> {
  await requireMember(ctx.db, userId, orgId, 'org.read');
  const rows = await ctx.db.select().from(projects).where(eq(projects.organizationId, orgId)).orderBy(desc(projects.createdAt));
  const previews = await previewsFor(ctx, rows);
  return rows.map((r) => projectJson(r, previews.get(r.id) ?? []));
}

export async function getProject(ctx: AppContext, userId: string, projectId: string): Promise<Project> {
  const row = await projectFor(ctx, userId, projectId, 'org.read');
  return projectJson(row, (await previewsFor(ctx, [row])).get(row.id) ?? []);
}

export async function createProject(
  ctx: AppContext,
  userId: string,
  input: { organization_id: string; name: string; description?: string | null; annotation_types: string[]; classes: ClassInput[] },
): Promise<Project> {
  await requireMember(ctx.db, userId, input.organization_id, 'project.create');
  const classes = checkedClasses(input.classes);
  const id = randomUUID();
  const [row] = await ctx.db
    .insert(projects)
    .values({
      id,
      organizationId: input.organization_id,
      name: input.name,
      description: input.description || null,
      gcsPath: `projects/${id}`,
      classes,
      annotationTypes: input.annotation_types,
      createdBy: userId,
    })
    .returning();
  await writeConfigFile(ctx, row);
  return projectJson(row);
}

export async function updateProject(
  ctx: AppContext,
  userId: string,
  projectId: string,
  patch: { name?: string; description?: string | null; classes?: ClassInput[]; annotation_types?: string[]; gt_rate?: number; gt_pass_threshold?: number },
): Promise<Project> {
  const classes = patch.classes === undefined ? undefined : checkedClasses(patch.classes);
  const touchesDetails =
    patch.name !== undefined || patch.description !== undefined || patch.annotation_types !== undefined || patch.gt_rate !== undefined || patch.gt_pass_threshold !== undefined;
  const before = await projectFor(ctx, userId, projectId, touchesDetails ? 'project.update' : 'classes.edit');
  if (touchesDetails && patch.classes) await requireMember(ctx.db, userId, before.organizationId, 'classes.edit', 'Project');
  const [row] = await ctx.db
    .update(projects)
    .set({
      ...(patch.name !== undefined && { name: patch.name }),
      ...(patch.description !== undefined && { description: patch.description || null }),
      ...(classes !== undefined && { classes }),
      ...(patch.annotation_types !== undefined && { annotationTypes: patch.annotation_types }),
      ...(patch.gt_rate !== undefined && { gtRate: patch.gt_rate }),
      ...(patch.gt_pass_threshold !== undefined && { gtPassThreshold: patch.gt_pass_threshold }),
      updatedAt: new Date(),
    })
    .where(eq(projects.id, projectId))
    .returning();
  if (patch.classes !== undefined || patch.name !== undefined) await writeConfigFile(ctx, row, before);
  return projectJson(row, (await previewsFor(ctx, [row])).get(row.id) ?? []);
}

/** Deletes the project, its rows (cascade) and its stored objects. */
export async function deleteProject(ctx: AppContext, userId: string, projectId: string): Promise<void> {
  const row = await projectFor(ctx, userId, projectId, 'project.delete');
  await ctx.db.delete(projects).where(eq(projects.id, projectId));
  const bucket = await bucketOf(ctx, row.organizationId);
  if (!bucket) return;
  const keys: string[] = [];
  for await (const obj of ctx.storage.list(bucket, `${row.gcsPath}/`)) keys.push(obj.key);
  for (const key of keys) await ctx.storage.delete(bucket, key);
}
