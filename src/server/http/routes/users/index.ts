// /api/v1/users: the current user's profile and onboarding.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../../../context';
import { callerOf } from '../../auth-guard';
import { errors } from '../../errors';
import { profiles } from '../../../db/schema';
import { CurrentUserResponse, OnboardingRequest, OnboardingResponse, Profile, UpdateProfileRequest } from '../../../../contract/account';
import { currentUser, ensureProfile, loadProfile } from '../../../services/profiles';
import { createOrganization } from '../../../services/organizations';
import { roleIn } from '../../../services/access';

export const userRoutes = (ctx: AppContext): FastifyPluginAsync => async (fastify) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get('/users/me', { schema: { tags: ['account'], response: { 200: CurrentUserResponse } } }, async (request) => currentUser(ctx.db, callerOf(request)));

  app.patch('/users/me', { schema: { tags: ['account'], body: UpdateProfileRequest, response: { 200: z.object({ success: z.literal(true), profile: Profile }) } } }, async (request) => {
    const user = callerOf(request);
    await ensureProfile(ctx.db, user);
    const { full_name, default_organization_id } = request.body;
    if (default_organization_id && !(await roleIn(ctx.db, user.id, default_organization_id))) throw errors.notFound('Organization');
    await ctx.db
      .update(profiles)
      .set({ ...(full_name !== undefined && { fullName: full_name }), ...(default_organization_id !== undefined && { defaultOrganizationId: default_organization_id }), updatedAt: new Date() })
      .where(eq(profiles.id, user.id));
    return { success: true as const, profile: await loadProfile(ctx.db, user.id) };
  });

  app.post('/users/onboarding', { schema: { tags: ['account'], body: OnboardingRequest, response: { 200: OnboardingResponse } } }, async (request) => {
    const user = callerOf(request);
    await ensureProfile(ctx.db, user);
    const { full_name, organization_name, organization_slug } = request.body;
    const organization = await createOrganization(ctx, user.id, { name: organization_name, slug: organization_slug }, { makeDefault: true, fullName: full_name });
    return { success: true as const, organization, profile: await loadProfile(ctx.db, user.id) };
  });
};
