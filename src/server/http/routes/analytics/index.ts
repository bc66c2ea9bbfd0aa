// /api/v1/projects/{id}/analytics (issue 36 §1): activity and throughput per member, stage counts
// per day or week. Who sees whom: services/analytics/report.ts.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../context';
import { callerOf } from '../../auth-guard';
import { AnalyticsQuery, AnalyticsResponse } from '../../../../contract/analytics';
import { projectAnalytics } from '../../../services/analytics';

const ProjectParams = z.object({ id: z.string().uuid('Project id must be a UUID') });

export const analyticsRoutes = (ctx: AppContext): FastifyPluginAsync => async (fastify) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get('/projects/:id/analytics', { schema: { tags: ['analytics'], params: ProjectParams, querystring: AnalyticsQuery, response: { 200: AnalyticsResponse } } }, async (request) =>
    projectAnalytics(ctx, callerOf(request).id, request.params.id, request.query),
  );
};
