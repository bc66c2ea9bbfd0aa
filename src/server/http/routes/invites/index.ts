// Invites: /api/v1/organizations/:orgId/invites (owners and admins) and /api/v1/invites/:token
// (the invited person, signed in).
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../../context';
import { callerOf } from '../../auth-guard';
import {
  AcceptInviteResponse,
  CreateInviteRequest,
  CreateInviteResponse,
  InviteIdParams,
  InvitePreviewResponse,
  InvitesResponse,
  InviteTokenParams,
  OrgParams,
  RemoveMemberResponse,
} from '../../../../contract/teams';
import { acceptInvite, createInvite, listInvites, previewInvite, revokeInvite } from '../../../services/invites';

export const inviteRoutes = (ctx: AppContext): FastifyPluginAsync => async (fastify) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['members'];
  const sessionOnly = { sessionOnly: true };

  app.get('/organizations/:orgId/invites', { schema: { tags, summary: 'Pending invites', params: OrgParams, response: { 200: InvitesResponse } } }, async (request) => ({
    invites: await listInvites(ctx, callerOf(request).id, request.params.orgId),
  }));

  app.post(
    '/organizations/:orgId/invites',
    { config: sessionOnly, schema: { tags, summary: 'Invite an address with a role', params: OrgParams, body: CreateInviteRequest, response: { 200: CreateInviteResponse } } },
    async (request) => ({ success: true as const, ...(await createInvite(ctx, callerOf(request).id, request.params.orgId, request.body)) }),
  );

  app.delete('/organizations/:orgId/invites/:inviteId', { schema: { tags, summary: 'Withdraw an invite', params: InviteIdParams, response: { 200: RemoveMemberResponse } } }, async (request) => {
    await revokeInvite(ctx, callerOf(request).id, request.params.orgId, request.params.inviteId);
    return { success: true as const };
  });

  app.get('/invites/:token', { config: sessionOnly, schema: { tags, summary: 'What an invite link offers', params: InviteTokenParams, response: { 200: InvitePreviewResponse } } }, async (request) =>
    previewInvite(ctx, callerOf(request), request.params.token),
  );

  app.post('/invites/:token/accept', { config: sessionOnly, schema: { tags, summary: 'Accept an invite', params: InviteTokenParams, response: { 200: AcceptInviteResponse } } }, async (request) => ({
    success: true as const,
    organization: await acceptInvite(ctx, callerOf(request), request.params.token),
  }));
};
