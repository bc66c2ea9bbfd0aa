// Changes of images' stage, archive flag and folder: one image (PATCH /images/{id}/status) or many
// (/api/images/batch). Counters and the workflow's events change in the same transaction.
import { and, eq, inArray } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { retryOnConflict } from '../../db/errors';
import { images } from '../../db/schema';
import { errors } from '../../errors';
import { nextStatus, type ImageStatus } from '../../../contract/images';
import { imageFor, projectFor, requireMember } from '../access';
import { recordEvents, statusEvents } from '../workflow/events';
import { adjustCounters } from './counters';
import { folderPathOrThrow, requireFolder } from './folder-path';
import { imageJsonWithFolder } from './json';
import { lockRows, refuseForeignImages, type ImageRow } from './rows';

export async function setImageStatus(ctx: AppContext, userId: string, imageId: string, change: { status: ImageStatus } | { cycle: true }, orgId?: string) {
  const found = await imageFor(ctx, userId, imageId, 'images.stage', orgId);
  return retryOnConflict(() => ctx.db.transaction(async (tx) => {
    const [before] = await lockRows(tx, found.projectId, [imageId]);
    if (!before) throw errors.notFound('Image');
    const status = 'status' in change ? change.status : nextStatus(before.status);
    const [after] = await tx.update(images).set({ status, updatedAt: new Date() }).where(eq(images.id, imageId)).returning();
    await adjustCounters(tx, before.projectId, [before], [after]);
    await recordEvents(tx, statusEvents(userId, [before], [after]));
    return { success: true as const, image: await imageJsonWithFolder(tx, after), previous_status: before.status };
  }));
}

function skipped(ids: string[], touched: Iterable<string>): string[] {
  const done = new Set(touched);
  return [...new Set(ids)].filter((id) => !done.has(id));
}

export async function batchMove(ctx: AppContext, userId: string, body: { image_ids: string[]; target_folder_path: string; project_id: string }) {
  const project = await projectFor(ctx, userId, body.project_id, 'images.organize');
  const target = folderPathOrThrow(body.target_folder_path, 'target_folder_path');
  await refuseForeignImages(ctx.db, project.organizationId, body.image_ids);
  // The target folder is held while the images move into it, so a rename or delete at once waits.
  const moved = await retryOnConflict(() =>
    ctx.db.transaction(async (tx) => {
      await requireFolder(tx, project.id, target, { lock: true });
      return tx
        .update(images)
        .set({ virtualFolderPath: target, updatedAt: new Date() })
        .where(and(eq(images.projectId, project.id), inArray(images.id, [...new Set(body.image_ids)])))
        .returning({ id: images.id });
    }),
  );
  return { success: true as const, moved: moved.length, target_folder_path: target, skipped_ids: skipped(body.image_ids, moved.map((m) => m.id)) };
}

export async function batchUpdate(
  ctx: AppContext,
  userId: string,
  body: { image_ids: string[]; project_id: string; updates: { status?: ImageStatus; is_archived?: boolean; cycle?: true } },
) {
  const { updates } = body;
  const project = await projectFor(ctx, userId, body.project_id, updates.status !== undefined || updates.cycle ? 'images.stage' : 'images.archive');
  if (updates.is_archived !== undefined) await requireMember(ctx.db, userId, project.organizationId, 'images.archive', 'Project');
  await refuseForeignImages(ctx.db, project.organizationId, body.image_ids);
  // Saves and moves of the project's images at once can make this a deadlock's victim: run again.
  return retryOnConflict(() => ctx.db.transaction(async (tx) => {
    const rows = await lockRows(tx, project.id, [...new Set(body.image_ids)]);
    if (rows.length === 0) return { success: true as const, updated: 0, status: updates.status ?? null, skipped_ids: skipped(body.image_ids, []) };
    let status = updates.status;
    if (updates.cycle) {
      // The first selected image (in the caller's order) decides, as in the SPA's bulk stage change.
      const first = body.image_ids.map((id) => rows.find((r) => r.id === id)).find(Boolean)!;
      status = nextStatus(first.status);
    }
    const after: ImageRow[] = [];
    for (let i = 0; i < rows.length; i += 5000) {
      const chunk = rows.slice(i, i + 5000).map((r) => r.id);
      after.push(
        ...(await tx
          .update(images)
          .set({ ...(status !== undefined && { status }), ...(updates.is_archived !== undefined && { isArchived: updates.is_archived }), updatedAt: new Date() })
          .where(inArray(images.id, chunk))
          .returning()),
      );
    }
    await adjustCounters(tx, project.id, rows, after);
    await recordEvents(tx, statusEvents(userId, rows, after));
    return { success: true as const, updated: after.length, status: status ?? null, skipped_ids: skipped(body.image_ids, after.map((r) => r.id)) };
  }));
}
