// Reading the change log of an image: the net change since a version (a client catching up), the
// history list, and the annotations as they were at an earlier version.
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { errors } from '../../errors';
import type { ChangesResponse, HistoryResponse, LoadDataResponse } from '../../../contract/annotation-api';
import { annotatedImage } from '../access';
import { layerChanges, layerLoad, layerOf } from './gt-layer';
import { annotationsAt, changesSince, historyOf } from './history';
import { headOf, onSnapshot, readAnnotations, rowsOf } from './store';

/** GET changes: the net change since `since`; 410 when the log no longer reaches back that far. */
export async function changesOf(ctx: AppContext, userId: string, imageId: string, since: number, projectId?: string): Promise<ChangesResponse> {
  await annotatedImage(ctx, userId, imageId, projectId, 'annotations.read');
  const layer = await layerOf(ctx.db, imageId, userId);
  if (layer) return layerChanges(layer.row, since);
  const head = await headOf(ctx.db, imageId);
  if (since > head.version) throw errors.badRequest(`since ${since} is after the current version ${head.version}`, 'invalid_version');
  const changes = await changesSince(ctx.db, imageId, since, head);
  if (!changes) throw errors.gone(`The change log no longer reaches back to version ${since}: load the annotations again`, 'history_expired');
  return changes;
}

export async function historyOfImage(ctx: AppContext, userId: string, imageId: string, query: { project_id?: string; before?: number; limit: number }): Promise<HistoryResponse> {
  await annotatedImage(ctx, userId, imageId, query.project_id, 'annotations.read');
  // A layer (a ground-truth attempt, a consensus draft) has no history of its own to show (and the image's is not theirs to see).
  const layer = await layerOf(ctx.db, imageId, userId);
  if (layer) return { version: layer.row.version, oldest_version: layer.row.version, entries: [] };
  const head = await headOf(ctx.db, imageId);
  return historyOf(ctx.db, imageId, head.version, query);
}

/** The annotations as they were at `version` (read only: restore makes them current). */
export async function annotationsAtVersion(ctx: AppContext, userId: string, imageId: string, version: number, projectId?: string): Promise<LoadDataResponse> {
  await annotatedImage(ctx, userId, imageId, projectId, 'annotations.read');
  const layer = await layerOf(ctx.db, imageId, userId);
  if (layer) {
    if (version !== layer.row.version) throw errors.notFound(`Version ${version}`);
    return layerLoad(layer.row) as LoadDataResponse;
  }
  return onSnapshot(ctx.db, async (tx) => {
    const head = await headOf(tx, imageId);
    if (version > head.version) throw errors.notFound(`Version ${version}`);
    const annotations = version === head.version ? await readAnnotations(tx, imageId) : await annotationsAt(tx, imageId, version, head.version);
    if (!annotations) throw errors.gone(`Version ${version} is no longer kept (the history keeps ${ctx.config.annotationHistoryDays} days)`, 'history_expired');
    const [row] = version > 0 ? await rowsOf<{ created_at: string | Date }>(tx, sql`SELECT created_at FROM annotation_changes WHERE image_id = ${imageId} AND version = ${version}`) : [];
    return { annotations, version, saved_at: row ? new Date(row.created_at).toISOString() : null };
  });
}
