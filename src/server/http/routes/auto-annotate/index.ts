// /api/v1/auto-annotate/sam2: assisted segmentation (spec section 7 "Assisted segmentation").
// The path keeps the spec's 'sam2' whatever backend is configured; health says which one runs.
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../context';
import { callerOf } from '../../auth-guard';
import {
  GetMaskRequest,
  GetMaskResponse,
  SegmentationHealthResponse,
  ProcessImageRequest,
  ProcessImageResponse,
  SaveSegmentationRequest,
  SaveSegmentationResponse,
  SegmentationWarmupResponse,
} from '../../../../contract/segmentation';
import { requireMember } from '../../../services/access';
import { SegmentationService } from '../../../services/segmentation';

/** Optional organization for warmup and health: when given, the caller must be a member. */
const OrgQuery = z.object({ org_id: z.string().uuid('org_id must be a UUID').optional() });

export const autoAnnotateRoutes = (ctx: AppContext): FastifyPluginAsync => async (fastify) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['auto-annotate'];
  const service = new SegmentationService(ctx);
  fastify.addHook('onClose', async () => service.close());
  const base = '/auto-annotate/sam2';

  app.post(`${base}/warmup`, { schema: { tags, querystring: OrgQuery, response: { 200: SegmentationWarmupResponse } } }, async (request) => {
    if (request.query.org_id) await requireMember(ctx.db, callerOf(request).id, request.query.org_id, 'annotations.read');
    else callerOf(request);
    return service.warmup();
  });

  app.get(`${base}/health`, { schema: { tags, querystring: OrgQuery, response: { 200: SegmentationHealthResponse } } }, async (request) => {
    if (request.query.org_id) await requireMember(ctx.db, callerOf(request).id, request.query.org_id, 'annotations.read');
    else callerOf(request);
    return service.health();
  });

  app.post(`${base}/process-image`, { schema: { tags, body: ProcessImageRequest, response: { 200: ProcessImageResponse } } }, async (request) =>
    service.processImage(callerOf(request).id, request.body),
  );

  app.post(`${base}/get-mask`, { schema: { tags, body: GetMaskRequest, response: { 200: GetMaskResponse } } }, async (request, reply) => {
    // A client that gives up (a newer click superseded this one) closes the connection: skip the
    // work. The response's 'close' before it finished says so (the request's own 'close' fires as
    // soon as its body has been read, before this handler runs).
    const abort = new AbortController();
    const onClose = () => {
      if (!reply.raw.writableFinished) abort.abort();
    };
    reply.raw.once('close', onClose);
    try {
      const result = await service.getMask(callerOf(request).id, request.body, abort.signal);
      // Typed by the contract at compile time: sent as JSON text, skipping the schema serializer's
      // second walk over the polygons on every click (the schema stays for the OpenAPI document).
      return (reply as FastifyReply).type('application/json; charset=utf-8').send(JSON.stringify(result));
    } finally {
      reply.raw.off('close', onClose);
    }
  });

  app.post(`${base}/save-segmentation`, { bodyLimit: 8 * 1024 * 1024, schema: { tags, body: SaveSegmentationRequest, response: { 200: SaveSegmentationResponse } } }, async (request) =>
    service.saveSegmentation(callerOf(request).id, request.body),
  );
};
