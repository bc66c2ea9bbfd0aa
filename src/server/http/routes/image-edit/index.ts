// /api/v1/image-edit (spec section 7 "Image edit"): start an edit job, poll it, see the provider.
// The job workers live with this plugin: they start with the app and stop (handing their jobs
// back) when it closes, before the database does.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../context';
import { callerOf } from '../../auth-guard';
import { ImageEditHealthResponse, ImageEditRequest, ImageEditStartResponse, ImageEditStatusResponse } from '../../../../contract/image-edit';
import { createImageEditService } from '../../../services/image-edit';

const EditParams = z.object({ id: z.string().uuid('Edit id must be a UUID') });

export const imageEditRoutes = (ctx: AppContext): FastifyPluginAsync => async (fastify) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['image-edit'];
  const service = createImageEditService(ctx);
  service.start();
  app.addHook('onClose', async () => service.stop());

  app.post(
    '/image-edit/edit',
    { schema: { tags, summary: 'Start a Magic Image Edit job over images of a project', body: ImageEditRequest, response: { 200: ImageEditStartResponse } } },
    async (request) => service.createJob(callerOf(request).id, request.body),
  );

  app.get(
    '/image-edit/status/:id',
    { schema: { tags, summary: 'Status, progress and result of an edit job', params: EditParams, response: { 200: ImageEditStatusResponse } } },
    async (request) => service.status(callerOf(request).id, request.params.id),
  );

  app.get(
    '/image-edit/health',
    { schema: { tags, summary: 'Which edit provider is configured, and the job queue', response: { 200: ImageEditHealthResponse } } },
    async (request) => {
      callerOf(request);
      return service.health();
    },
  );
};
