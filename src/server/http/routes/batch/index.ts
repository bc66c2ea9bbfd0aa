// /api/images/batch: move, stage/archive and delete many images of one project (spec section 7
// "Batch images"). An id of another organization's image answers 404 'Image not found' and nothing
// is touched; ids of the organization's other projects, or of no image (deleted meanwhile), are
// skipped, never touched, and listed in skipped_ids.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../../context';
import { callerOf } from '../../auth-guard';
import {
  BatchDeleteRequest,
  BatchDeleteResponse,
  BatchMoveRequest,
  BatchMoveResponse,
  BatchUpdateRequest,
  BatchUpdateResponse,
} from '../../../../contract/images';
import { batchMove, batchUpdate, deleteProjectImages } from '../../../services/images';
import { projectFor } from '../../../services/access';

export const batchRoutes = (ctx: AppContext): FastifyPluginAsync => async (fastify) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['batch images'];

  app.post('/move', { schema: { tags, body: BatchMoveRequest, response: { 200: BatchMoveResponse } } }, async (request) => batchMove(ctx, callerOf(request).id, request.body));

  app.patch('/update', { schema: { tags, body: BatchUpdateRequest, response: { 200: BatchUpdateResponse } } }, async (request) => batchUpdate(ctx, callerOf(request).id, request.body));

  app.delete('/delete', { schema: { tags, body: BatchDeleteRequest, response: { 200: BatchDeleteResponse } } }, async (request) => {
    const project = await projectFor(ctx, callerOf(request).id, request.body.project_id, 'images.delete');
    // delete_gcs_files: false keeps the stored files for now; with no row left, the orphan sweep removes them after an hour.
    return deleteProjectImages(ctx, project, request.body.image_ids, { deleteFiles: request.body.delete_gcs_files });
  });
};
