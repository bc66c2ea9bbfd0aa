// Deleting images: rows, annotation documents (cascade) and counters in one transaction, the stored
// files after the commit.
import { and, eq, inArray } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { retryOnConflict } from '../../db/errors';
import { images } from '../../db/schema';
import { bucketFor, deleteKeys, sidecarKey, thumbnailKey } from '../stored-objects';
import { deleteTiles, needsTiles } from '../tiles';
import { adjustCounters } from './counters';
import { lockRows, refuseForeignImages, type ProjectRow } from './rows';

export interface DeleteResult {
  success: true;
  deleted: number;
  deleted_ids: string[];
  skipped_ids: string[];
  files_deleted: number;
}

/**
 * Deletes images of one project: the given ids (others are skipped, never touched) or, with ids
 * null, every archived image. A file that cannot be deleted now is an orphan the sweep (upload.ts)
 * removes later, never a row without its file.
 */
export async function deleteProjectImages(ctx: AppContext, project: ProjectRow, ids: string[] | null, opts: { deleteFiles: boolean }): Promise<DeleteResult> {
  if (ids) await refuseForeignImages(ctx.db, project.organizationId, ids);
  const bucket = await bucketFor(ctx, project.organizationId).catch(() => null);
  const removed = await retryOnConflict(() => ctx.db.transaction(async (tx) => {
    const rows = ids
      ? await lockRows(tx, project.id, ids)
      : await tx.select().from(images).where(and(eq(images.projectId, project.id), eq(images.isArchived, true))).for('update');
    if (rows.length === 0) return [];
    for (let i = 0; i < rows.length; i += 5000) {
      await tx.delete(images).where(inArray(images.id, rows.slice(i, i + 5000).map((r) => r.id)));
    }
    await adjustCounters(tx, project.id, rows, []);
    return rows;
  }));
  let filesDeleted = 0;
  if (bucket && opts.deleteFiles) {
    const keys = removed.flatMap((r) => [r.gcsPath, sidecarKey(project, r.filename), r.thumbnailPath ?? thumbnailKey(project, r.filename)]);
    filesDeleted = await deleteKeys(ctx, bucket, keys);
    filesDeleted += await deleteTiles(ctx, bucket, removed.filter(needsTiles));
  }
  const gone = new Set(removed.map((r) => r.id));
  return {
    success: true,
    deleted: removed.length,
    deleted_ids: [...gone],
    skipped_ids: ids ? [...new Set(ids)].filter((id) => !gone.has(id)) : [],
    files_deleted: filesDeleted,
  };
}
