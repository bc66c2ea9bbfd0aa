// Annotation documents (one per image): load, save (whole list or changes only) with versions,
// batch save, status, stats.
//
// A save is one transaction: the image row is locked (SELECT ... FOR UPDATE), so saves of one
// image run one after the other and the version check cannot race; the document is written with
// version + 1, the image's annotation_count and status change with it, and the project counters
// follow through adjustCounters (services/images.ts). Annotations are stored as the client sent
// them (unknown keys such as sam2_area kept) once every one passed the stored-annotation schema.
import { and, count, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../context';
import { annotationDocuments, images, projects } from '../db/schema';
import { ApiError, errors } from '../http/errors';
import { StoredAnnotation } from '../../contract/annotations';
import {
  ANNOTATION_KINDS,
  MAX_SAVE_BYTES,
  SaveChangesRequest,
  SaveDataRequest,
  type AnnotationStatsResponse,
  type BatchSaveResult,
  type LoadDataResponse,
  type SaveDataResponse,
} from '../../contract/annotation-api';
import type { ImageStatus } from '../../contract/images';
import { adjustCounters, imageFor, setImageStatus, type ImageRow } from './images';
import { projectFor } from './projects';
import type { Permission } from './access';

/** The image, if the caller may `permission` in its organization and it belongs to `projectId` (when given); 404 otherwise. */
async function annotatedImage(ctx: AppContext, userId: string, imageId: string, projectId: string | undefined, permission: Permission): Promise<ImageRow> {
  const row = await imageFor(ctx, userId, imageId, permission);
  if (projectId && row.projectId !== projectId) throw errors.notFound('Image');
  return row;
}

async function currentDocument(db: Pick<AppContext['db'], 'select'>, imageId: string): Promise<LoadDataResponse> {
  const [doc] = await db
    .select({ annotations: annotationDocuments.annotations, version: annotationDocuments.version, updatedAt: annotationDocuments.updatedAt })
    .from(annotationDocuments)
    .where(eq(annotationDocuments.imageId, imageId))
    .limit(1);
  const version = doc?.version ?? 0;
  // The upload writes an empty version 0; only a save gives the document a saved_at.
  return { annotations: (doc?.annotations ?? []) as Record<string, unknown>[], version, saved_at: version > 0 && doc ? doc.updatedAt.toISOString() : null };
}

export async function loadData(ctx: AppContext, userId: string, imageId: string, projectId?: string): Promise<LoadDataResponse> {
  await annotatedImage(ctx, userId, imageId, projectId, 'annotations.read');
  return currentDocument(ctx.db, imageId);
}

// --- validation

function describePath(path: PropertyKey[]): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '');
}

function label(index: number, raw: unknown): string {
  const id = raw && typeof raw === 'object' && typeof (raw as { id?: unknown }).id === 'string' ? (raw as { id: string }).id : null;
  return id === null ? `Annotation ${index}` : `Annotation ${index} (id "${id.slice(0, 100)}")`;
}

/**
 * Checks every annotation against the stored-annotation schema, then ids for duplicates, then
 * class names against the project's classes. Throws 400 naming the first bad annotation.
 */
export function validateAnnotations(raw: unknown[], classNames: ReadonlySet<string>): void {
  const seen = new Map<string, number>();
  raw.forEach((item, i) => {
    const parsed = StoredAnnotation.safeParse(item);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const where = describePath(issue.path);
      throw errors.badRequest(`${label(i, item)}: ${where ? `${where}: ` : ''}${issue.message}`, 'invalid_annotation', { index: i });
    }
    const a = parsed.data;
    const first = seen.get(a.id);
    if (first !== undefined) throw errors.badRequest(`${label(i, item)}: duplicate annotation id (annotation ${first} has the same id)`, 'duplicate_annotation_id', { index: i });
    seen.set(a.id, i);
    if (!classNames.has(a.name)) throw errors.badRequest(`Unknown class "${a.name.slice(0, 200)}"`, 'unknown_class', { index: i });
  });
}

// --- save

/** What a save writes, given the stored list (read only when `needsCurrent`). */
type Write = { needsCurrent: boolean; annotations(current: unknown[]): unknown[] };

export async function saveData(ctx: AppContext, userId: string, body: SaveDataRequest): Promise<SaveDataResponse> {
  return commit(ctx, userId, body, body.base_version, (classNames) => {
    validateAnnotations(body.annotations, classNames);
    return { needsCurrent: false, annotations: () => body.annotations };
  });
}

/** Applies upserts and removals to the stored list of `base_version`. */
export async function saveChanges(ctx: AppContext, userId: string, body: SaveChangesRequest): Promise<SaveDataResponse> {
  return commit(ctx, userId, body, body.base_version, (classNames) => {
    validateAnnotations(body.upserts, classNames);
    const upserts = new Map(body.upserts.map((a) => [(a as { id: string }).id, a]));
    const removed = new Set(body.removed_ids);
    const both = body.removed_ids.find((id) => upserts.has(id));
    if (both !== undefined) throw errors.badRequest(`Annotation "${both.slice(0, 100)}" is both changed and removed`, 'conflicting_changes');
    return {
      needsCurrent: true,
      annotations(current) {
        const out: unknown[] = [];
        for (const a of current) {
          const id = (a as { id?: unknown }).id as string;
          if (removed.has(id)) continue;
          const next = upserts.get(id);
          out.push(next ?? a);
          upserts.delete(id);
        }
        for (const a of upserts.values()) out.push(a);
        return out;
      },
    };
  });
}

/**
 * One save: checks the image and the filename, lets `prepare` validate against the project's
 * classes, then in one transaction locks the image, checks base_version (409 with the current
 * document when stale), writes version + 1 and moves the counters and status with it.
 */
async function commit(
  ctx: AppContext,
  userId: string,
  body: { image_id: string; project_id: string; image_filename: string },
  baseVersion: number | undefined,
  prepare: (classNames: ReadonlySet<string>) => Write,
): Promise<SaveDataResponse> {
  const image = await annotatedImage(ctx, userId, body.image_id, body.project_id, 'annotations.write');
  if (body.image_filename !== image.filename) {
    throw errors.badRequest(`image_filename "${body.image_filename.slice(0, 200)}" is not the image's filename "${image.filename}"`, 'filename_mismatch');
  }
  const [project] = await ctx.db.select({ classes: projects.classes }).from(projects).where(eq(projects.id, image.projectId)).limit(1);
  if (!project) throw errors.notFound('Image');
  const write = prepare(new Set(project.classes.map((c) => c.name)));

  return ctx.db.transaction(async (tx) => {
    const [before] = await tx.select().from(images).where(eq(images.id, image.id)).for('update');
    if (!before) throw errors.notFound('Image');
    const [doc] = await tx.select({ version: annotationDocuments.version }).from(annotationDocuments).where(eq(annotationDocuments.imageId, image.id)).for('update');
    const current = doc?.version ?? 0;
    if (baseVersion !== undefined && baseVersion !== current) {
      const latest = await currentDocument(tx, image.id);
      throw errors.conflict(
        `The annotations changed since version ${baseVersion} (now version ${current}); reload them and apply your changes again`,
        'version_conflict',
        { current: latest },
      );
    }
    const stored = write.needsCurrent ? (await currentDocument(tx, image.id)).annotations : [];
    const annotations = write.annotations(stored);
    const version = current + 1;
    const now = new Date();
    await tx
      .insert(annotationDocuments)
      .values({ imageId: image.id, projectId: before.projectId, annotations, version, updatedBy: userId, updatedAt: now })
      .onConflictDoUpdate({ target: annotationDocuments.imageId, set: { annotations, version, updatedBy: userId, updatedAt: now } });
    const newCount = annotations.length;
    // Spec section 4 "Image status": the server moves a new image with annotations to annotating.
    const status: ImageStatus = before.status === 'new' && newCount > 0 ? 'annotating' : before.status;
    const [after] = await tx.update(images).set({ annotationCount: newCount, status, updatedAt: now }).where(eq(images.id, image.id)).returning();
    await adjustCounters(tx, before.projectId, [before], [after!]);
    return { success: true as const, status_updated: status !== before.status, status, new_count: newCount, version, saved_at: now.toISOString() };
  });
}

/** Every save on its own: a bad, conflicting or forbidden one fails alone. */
export async function batchSave(ctx: AppContext, userId: string, saves: unknown[]): Promise<{ success: true; saved: number; failed: number; results: BatchSaveResult[] }> {
  const results: BatchSaveResult[] = [];
  for (const [i, raw] of saves.entries()) {
    const imageId = raw && typeof raw === 'object' && typeof (raw as { image_id?: unknown }).image_id === 'string' ? (raw as { image_id: string }).image_id : null;
    try {
      const full = Boolean(raw && typeof raw === 'object' && 'annotations' in raw);
      const parsed = (full ? SaveDataRequest : SaveChangesRequest).safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const where = describePath(issue.path);
        throw errors.badRequest(`Save ${i}: ${where ? `${where}: ` : ''}${issue.message}`, 'validation_failed');
      }
      if (Buffer.byteLength(JSON.stringify(parsed.data)) > MAX_SAVE_BYTES) {
        throw errors.tooLarge(`Save ${i}: the annotations are larger than ${MAX_SAVE_BYTES / 1024 / 1024} MB`);
      }
      const saved = full ? await saveData(ctx, userId, parsed.data as SaveDataRequest) : await saveChanges(ctx, userId, parsed.data as SaveChangesRequest);
      results.push({ image_id: imageId, status: 'saved', version: saved.version, saved_at: saved.saved_at, status_updated: saved.status_updated, image_status: saved.status, new_count: saved.new_count });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.code === 'version_conflict') {
        results.push({ image_id: imageId, status: 'conflict', error: err.message, code: err.code, current: err.extra.current as LoadDataResponse });
      } else {
        results.push({ image_id: imageId, status: 'error', error: err.message, code: err.code });
      }
    }
  }
  const saved = results.filter((r) => r.status === 'saved').length;
  return { success: true, saved, failed: results.length - saved, results };
}

// --- status

export async function setAnnotationStatus(ctx: AppContext, userId: string, body: { image_id: string; project_id: string } & ({ status: ImageStatus } | { cycle: true })) {
  await annotatedImage(ctx, userId, body.image_id, body.project_id, 'images.stage');
  return setImageStatus(ctx, userId, body.image_id, 'status' in body ? { status: body.status } : { cycle: true });
}

// --- stats

/** Counts over the project's images in the Data view (archived images left out), read from the documents. */
export async function annotationStats(ctx: AppContext, userId: string, projectId: string): Promise<AnnotationStatsResponse> {
  await projectFor(ctx, userId, projectId, 'annotations.read');
  const e = sql.raw('e.value');
  const kind = sql<string>`CASE
    WHEN (${e} -> 'polygon') IS NOT NULL THEN 'polygon'
    WHEN (${e} -> 'polyline') IS NOT NULL THEN 'polyline'
    WHEN (${e} -> 'keypoint') IS NOT NULL THEN 'keypoint'
    WHEN (${e} -> 'segmentation') IS NOT NULL THEN 'segmentation'
    ELSE 'box' END`;
  const [groups, totals] = await Promise.all([
    ctx.db.execute(sql`
      SELECT ${e} ->> 'name' AS name, ${kind} AS kind, count(*) AS n
      FROM ${annotationDocuments} d
      JOIN ${images} i ON i.id = d.image_id AND NOT i.is_archived
      CROSS JOIN LATERAL json_array_elements(d.annotations) e
      WHERE d.project_id = ${projectId}
      GROUP BY 1, 2`) as unknown as Promise<{ rows: { name: string | null; kind: string; n: number | string }[] }>,
    ctx.db
      .select({ total: count(), annotated: sql<number>`count(*) FILTER (WHERE ${images.annotationCount} > 0)`.mapWith(Number) })
      .from(images)
      .where(and(eq(images.projectId, projectId), eq(images.isArchived, false))),
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
    images_with_annotations: totals[0]?.annotated ?? 0,
    images_total: totals[0]?.total ?? 0,
  };
}
