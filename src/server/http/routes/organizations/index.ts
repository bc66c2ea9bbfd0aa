// /api/v1/organizations
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../context';
import { callerOf } from '../../auth-guard';
import { CreateOrganizationRequest, DebugResponse, FixBucketResponse, OrganizationResponse, OrganizationsResponse } from '../../../../contract/account';
import { ensureProfile } from '../../../services/profiles';
import { createOrganization, debugOrganization, fixBucket, getOrganization, listOrganizations } from '../../../services/organizations';

const OrgParams = z.object({ id: z.string().uuid('Organization id must be a UUID') });

export const organizationRoutes = (ctx: AppContext): FastifyPluginAsync => async (fastify) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['organizations'];

  app.post('/organizations', { schema: { tags, body: CreateOrganizationRequest, response: { 200: OrganizationResponse } } }, async (request) => {
    const user = callerOf(request);
    await ensureProfile(ctx.db, user);
    return { success: true as const, organization: await createOrganization(ctx, user.id, request.body) };
  });

  app.get('/organizations', { schema: { tags, response: { 200: OrganizationsResponse } } }, async (request) => ({
    organizations: await listOrganizations(ctx, callerOf(request).id),
  }));

  app.get('/organizations/:id', { schema: { tags, params: OrgParams, response: { 200: OrganizationResponse } } }, async (request) => ({
    success: true as const,
    organization: await getOrganization(ctx, callerOf(request).id, request.params.id),
  }));

  app.post('/organizations/:id/fix-bucket', { schema: { tags, params: OrgParams, response: { 200: FixBucketResponse } } }, async (request) =>
    fixBucket(ctx, callerOf(request).id, request.params.id),
  );

  app.get('/organizations/:id/debug', { schema: { tags, params: OrgParams, response: { 200: DebugResponse } } }, async (request) =>
    debugOrganization(ctx, callerOf(request).id, request.params.id),
  );
};
