// /api/v1/image-edit (spec section 7 "Image edit"): start an edit job, poll it, see the provider.
// The job workers live with this plugin: they start with the app and stop (handing their jobs
// back) when it closes, before the database does.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../../../context';
import { callerOf } from '../../auth-guard';
import { ImageEditHealthResponse, ImageEditRequest, ImageEditStartResponse, ImageEditStatusResponse } from '../../../../contract/image-edit';
import { jobServices } from '../../../jobs/workers';
import { requireMember, roleIn } from '../../../services/access';
import { profiles } from '../../../db/schema';

const EditParams = z.object({ id: z.string().uuid('Edit id must be a UUID') });
/** Whose queue health counts: when given, the caller must be a member. */
const OrgQuery = z.object({ org_id: z.string().uuid('org_id must be a UUID').optional() });

/** An API key's organization, else the person's default organization while they are still its member (null: none). */
async function defaultOrganization(ctx: AppContext, userId: string, keyOrganization: string | null): Promise<string | null> {
  if (keyOrganization) return keyOrganization;
  const [profile] = await ctx.db.select({ org: profiles.defaultOrganizationId }).from(profiles).where(eq(profiles.id, userId)).limit(1);
  return profile?.org && (await roleIn(ctx.db, userId, profile.org)) ? profile.org : null;
}

export const imageEditRoutes = (ctx: AppContext): FastifyPluginAsync => async (fastify) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['image-edit'];
  const service = jobServices(ctx).imageEdit; // its workers: jobs/workers.ts (ROLE)

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
    {
      schema: {
        tags,
        summary: "Which edit provider is configured, and the job queue of one organization (org_id, else the caller's default organization)",
        querystring: OrgQuery,
        response: { 200: ImageEditHealthResponse },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const orgId = request.query.org_id;
      if (orgId) {
        await requireMember(ctx.db, caller.id, orgId, 'images.read');
        return service.health(orgId);
      }
      return service.health(await defaultOrganization(ctx, caller.id, request.apiKey?.organizationId ?? null));
    },
  );
};
