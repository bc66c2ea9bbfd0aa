// /api/v1/annotations: load and save an image's annotations (with versions), batch save, the
// change log (changes since a version, history, an earlier version, restore), the stage call and
// project stats (spec section 7 "Annotations"; ARCHITECTURE.md "API details the
// spec leaves open"). The export call lives in routes/export.
import { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../../context';
import { callerOf } from '../../auth-guard';
import {
  AnnotationStatsResponse,
  AnnotationStatusRequest,
  BatchSaveRequest,
  BatchSaveResponse,
  ChangesQuery,
  ChangesResponse,
  HistoryQuery,
  HistoryResponse,
  IdParams,
  ImageIdParams,
  LoadDataQuery,
  LoadDataResponse,
  MAX_BATCH_SAVE_BYTES,
  MAX_SAVE_BYTES,
  ProjectIdParams,
  SaveChangesRequest,
  SaveDataRequest,
  RestoreRequest,
  SaveDataResponse,
  VersionQuery,
} from '../../../../contract/annotation-api';
import { UpdateStatusResponse } from '../../../../contract/images';
import {
  annotationStats,
  annotationsAtVersion,
  batchSave,
  changesOf,
  historyOfImage,
  loadDataChunks,
  restoreVersion,
  saveChanges,
  saveData,
  setAnnotationStatus,
} from '../../../services/annotations';

export const annotationRoutes = (ctx: AppContext): FastifyPluginAsync => async (fastify) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['annotations'];

  // The body streams out in chunks of rows as the database gave them (compressed when accepted);
  // Fastify sends a stream as it is, so the response schema only documents it.
  const load = { schema: { tags, querystring: LoadDataQuery, response: { 200: LoadDataResponse } } };
  const streamed = (chunks: Iterable<string> | AsyncIterable<string>) => Readable.from(chunks) as never;
  app.get('/annotations/load-data/:imageId', { ...load, schema: { ...load.schema, params: ImageIdParams } }, async (request, reply) =>
    reply.type('application/json; charset=utf-8').send(streamed(await loadDataChunks(ctx, callerOf(request).id, request.params.imageId, request.query))),
  );
  app.get('/annotations/load/:id', { ...load, schema: { ...load.schema, params: IdParams } }, async (request, reply) =>
    reply.type('application/json; charset=utf-8').send(streamed(await loadDataChunks(ctx, callerOf(request).id, request.params.id, request.query))),
  );

  // How a client catches up: after a reconnect or a version gap in the live socket's `changed` messages (README "Live co-editing").
  const changes = {
    summary: 'The net change since a version (catching up)',
    description:
      'The net change from `since` to the current version: apply `removed_ids`, then `upserts`. A live client (WebSocket /api/v1/live) calls it when it missed messages: after a reconnect, or when a `changed` message\'s `base_version` is not the version it holds. ' +
      'Errors: 410 `history_expired` "The change log no longer reaches back to version <since>: load the annotations again" when the log (ANNOTATION_HISTORY_DAYS) no longer holds every version after `since`: load the whole document with load-data instead; 400 `invalid_version` when `since` is after the current version; 404 for an image of another organization or one the caller cannot read.',
  };
  app.get('/annotations/changes/:imageId', { schema: { tags, ...changes, params: ImageIdParams, querystring: ChangesQuery, response: { 200: ChangesResponse } } }, async (request) =>
    changesOf(ctx, callerOf(request).id, request.params.imageId, request.query.since, request.query.project_id),
  );
  app.get('/annotations/history/:imageId', { schema: { tags, params: ImageIdParams, querystring: HistoryQuery, response: { 200: HistoryResponse } } }, async (request) =>
    historyOfImage(ctx, callerOf(request).id, request.params.imageId, request.query),
  );
  app.get('/annotations/version/:imageId', { schema: { tags, params: ImageIdParams, querystring: VersionQuery, response: { 200: LoadDataResponse } } }, async (request) =>
    annotationsAtVersion(ctx, callerOf(request).id, request.params.imageId, request.query.version, request.query.project_id),
  );
  app.post('/annotations/restore', { schema: { tags, body: RestoreRequest, response: { 200: SaveDataResponse } } }, async (request) => restoreVersion(ctx, callerOf(request).id, request.body));

  // A body over the limit is answered 413 "The annotations are too large: a request may carry at most 8 MB".
  const config = { bodyName: 'The annotations' };
  const save = { bodyLimit: MAX_SAVE_BYTES, config, schema: { tags, body: SaveDataRequest, response: { 200: SaveDataResponse } } };
  app.post('/annotations/save-data', save, async (request) => saveData(ctx, callerOf(request).id, request.body));
  app.post('/annotations/save', save, async (request) => saveData(ctx, callerOf(request).id, request.body));
  const saveChangesDoc = {
    summary: 'Save changes (upserts and removed ids) on a version',
    description:
      'Applies `upserts` (replaced in place, or added on top) and `removed_ids` on `base_version` as a new version. ' +
      'A stale `base_version` whose ids (upserted or removed) nobody added, changed or removed since is applied on the current version instead: the answer then has `rebased_from` (the version it was applied on; `version` is one more) and `changes`, the net change from `base_version` to `rebased_from` (as GET changes), so the client catches up without a reload. ' +
      'A change that changes nothing (every removed id absent, every upsert equal to the stored shape) makes no version: the answer carries the version it was applied on (`version` = `base_version`, or = `rebased_from` when stale) and that version\'s `saved_at`. ' +
      'Errors: 409 `version_conflict` when one of its ids changed after `base_version` (with `changes` since the base, and `current` while the document is small); 400 for a bad shape, an unknown class, an id both changed and removed; 413 over 8 MB.',
  };
  app.post('/annotations/save-changes', { ...save, schema: { ...save.schema, ...saveChangesDoc, body: SaveChangesRequest } }, async (request) => saveChanges(ctx, callerOf(request).id, request.body, { rebase: true }));

  app.post('/annotations/batch-save-data', { bodyLimit: MAX_BATCH_SAVE_BYTES, config, schema: { tags, body: BatchSaveRequest, response: { 200: BatchSaveResponse } } }, async (request) =>
    batchSave(ctx, callerOf(request).id, request.body.saves),
  );

  app.patch('/annotations/status', { schema: { tags, body: AnnotationStatusRequest, response: { 200: UpdateStatusResponse } } }, async (request) =>
    setAnnotationStatus(ctx, callerOf(request).id, request.body),
  );

  app.get('/annotations/stats/:projectId', { schema: { tags, params: ProjectIdParams, response: { 200: AnnotationStatsResponse } } }, async (request) =>
    annotationStats(ctx, callerOf(request).id, request.params.projectId),
  );
};
