// /api/v1/usage: annotation usage records and the organization's usage summary.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../context';
import { callerOf } from '../../auth-guard';
import { RecordAnnotationUsageRequest, RecordAnnotationUsageResponse, UsageSummaryQuery, UsageSummaryResponse } from '../../../../contract/usage';
import { recordAnnotationUsage, usageSummary } from '../../../services/usage';

export const usageRoutes = (ctx: AppContext): FastifyPluginAsync => async (fastify) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['usage'];

  app.post('/usage/annotation', { schema: { tags, body: RecordAnnotationUsageRequest, response: { 200: RecordAnnotationUsageResponse } } }, async (request) =>
    recordAnnotationUsage(ctx, callerOf(request).id, request.body),
  );

  app.get(
    '/usage/summary/:orgId',
    { schema: { tags, params: z.object({ orgId: z.string().uuid('Organization id must be a UUID') }), querystring: UsageSummaryQuery, response: { 200: UsageSummaryResponse } } },
    async (request) => usageSummary(ctx, callerOf(request).id, request.params.orgId, request.query.since),
  );
};
