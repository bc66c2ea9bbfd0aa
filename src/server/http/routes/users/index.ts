// /api/v1/users: the current user's profile, onboarding and account deletion. A person's session
// only: API keys cannot call these.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../../../context';
import { bearerToken } from '../../../auth/caller';
import { callerOf } from '../../auth-guard';
import { errors } from '../../../errors';
import { profiles } from '../../../db/schema';
import { CurrentUserResponse, OnboardingRequest, OnboardingResponse, Profile, UpdateProfileRequest } from '../../../../contract/account';
import { currentUser, ensureProfile, loadProfile } from '../../../services/profiles';
import { createOrganization } from '../../../services/organizations';
import { roleIn } from '../../../services/access';
import { ClearReactivationResponse, DeleteAccountResponse } from '../../../../contract/teams';
import { clearReactivationMessage, deleteAccount } from '../../../services/account';
import { PreferencesResponse, UserPreferences } from '../../../../contract/preferences';
import { getPreferences, savePreferences } from '../../../services/preferences';

export const userRoutes = (ctx: AppContext): FastifyPluginAsync => async (fastify) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const config = { sessionOnly: true };

  app.get('/users/me', { config, schema: { tags: ['account'], response: { 200: CurrentUserResponse } } }, async (request) => currentUser(ctx.db, callerOf(request)));

  app.patch('/users/me', { config, schema: { tags: ['account'], body: UpdateProfileRequest, response: { 200: z.object({ success: z.literal(true), profile: Profile }) } } }, async (request) => {
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

  // The person's own preferences (issue 37: the editor's single-key shortcuts), on every device.
  app.get('/users/me/preferences', { config, schema: { tags: ['account'], response: { 200: PreferencesResponse } } }, async (request) => ({
    preferences: await getPreferences(ctx.db, callerOf(request)),
  }));
  app.put('/users/me/preferences', { config, schema: { tags: ['account'], body: UserPreferences, response: { 200: PreferencesResponse } } }, async (request) => ({
    preferences: await savePreferences(ctx.db, callerOf(request), request.body),
  }));

  app.post('/users/onboarding', { config, schema: { tags: ['account'], body: OnboardingRequest, response: { 200: OnboardingResponse } } }, async (request) => {
    const user = callerOf(request);
    await ensureProfile(ctx.db, user);
    const { full_name, organization_name, organization_slug } = request.body;
    const organization = await createOrganization(ctx, user.id, { name: organization_name, slug: organization_slug }, { makeDefault: true, fullName: full_name });
    return { success: true as const, organization, profile: await loadProfile(ctx.db, user.id) };
  });

  app.delete(
    '/users/me',
    {
      config,
      schema: {
        tags: ['account'],
        summary: 'Delete (deactivate) the account; signing in within 30 days reactivates it',
        response: { 200: DeleteAccountResponse },
      },
    },
    async (request) => deleteAccount(ctx, callerOf(request), bearerToken(request) ?? ''),
  );

  app.delete('/users/me/reactivation', { config, schema: { tags: ['account'], summary: 'Dismiss the reactivation message', response: { 200: ClearReactivationResponse } } }, async (request) => {
    await clearReactivationMessage(ctx, callerOf(request).id);
    return { success: true as const };
  });
};
