// /api/v1/projects/{id}/analytics (issue 36 §1): activity and throughput per member, stage counts
// per day or week, ground-truth scores. Who sees whom: services/analytics/report.ts.
// /api/v1/images/{id}/ground-truth (issue 36 §2): mark an image's accepted annotations as ground
// truth, or not (reviewer, admin, owner).
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../context';
import { callerOf } from '../../auth-guard';
import { AnalyticsQuery, AnalyticsResponse } from '../../../../contract/analytics';
import { OrgQuery } from '../../../../contract/images';
import { GroundTruthRequest, GroundTruthResponse } from '../../../../contract/quality';
import { projectAnalytics } from '../../../services/analytics';
import { groundTruthOf, setGroundTruth } from '../../../services/quality';

const ProjectParams = z.object({ id: z.string().uuid('Project id must be a UUID') });
const ImageParams = z.object({ id: z.string().uuid('Image id must be a UUID') });

export const analyticsRoutes = (ctx: AppContext): FastifyPluginAsync => async (fastify) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get('/projects/:id/analytics', { schema: { tags: ['analytics'], params: ProjectParams, querystring: AnalyticsQuery, response: { 200: AnalyticsResponse } } }, async (request) =>
    projectAnalytics(ctx, callerOf(request).id, request.params.id, request.query),
  );
  const tags = ['quality'];
  app.get('/images/:id/ground-truth', { schema: { tags, params: ImageParams, querystring: OrgQuery, response: { 200: GroundTruthResponse } } }, async (request) =>
    groundTruthOf(ctx, callerOf(request).id, request.params.id, request.query.org_id),
  );
  app.post(
    '/images/:id/ground-truth',
    {
      schema: {
        tags,
        summary: 'Mark an image\'s accepted annotations as ground truth, or not',
        description: 'Reviewer, admin, owner. Errors: 409 `ground_truth_not_accepted` when enabling on an image that is not complete.',
        params: ImageParams,
        querystring: OrgQuery,
        body: GroundTruthRequest,
        response: { 200: GroundTruthResponse },
      },
    },
    async (request) => setGroundTruth(ctx, callerOf(request).id, request.params.id, request.body.enabled, request.query.org_id),
  );
};
