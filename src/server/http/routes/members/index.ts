// /api/v1/organizations/:orgId/members: who is in an organization, their roles, removing and leaving.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../../context';
import { callerOf } from '../../auth-guard';
import { MemberParams, MemberResponse, MembersResponse, OrgParams, RemoveMemberResponse, UpdateMemberRequest } from '../../../../contract/teams';
import { changeRole, listMembers, removeMember } from '../../../services/members';

export const memberRoutes = (ctx: AppContext): FastifyPluginAsync => async (fastify) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['members'];

  app.get('/organizations/:orgId/members', { schema: { tags, params: OrgParams, response: { 200: MembersResponse } } }, async (request) => ({
    members: await listMembers(ctx, callerOf(request).id, request.params.orgId),
  }));

  app.patch(
    '/organizations/:orgId/members/:userId',
    { schema: { tags, summary: "Change a member's role", params: MemberParams, body: UpdateMemberRequest, response: { 200: MemberResponse } } },
    async (request) => ({ success: true as const, member: await changeRole(ctx, callerOf(request).id, request.params.orgId, request.params.userId, request.body.role) }),
  );

  app.delete('/organizations/:orgId/members/:userId', { schema: { tags, summary: 'Remove a member', params: MemberParams, response: { 200: RemoveMemberResponse } } }, async (request) => {
    await removeMember(ctx, callerOf(request).id, request.params.orgId, request.params.userId);
    return { success: true as const };
  });

  // Leaving is a person's own decision: not something a key does.
  app.post('/organizations/:orgId/leave', { config: { sessionOnly: true }, schema: { tags, summary: 'Leave the organization', params: OrgParams, response: { 200: RemoveMemberResponse } } }, async (request) => {
    const user = callerOf(request);
    await removeMember(ctx, user.id, request.params.orgId, user.id);
    return { success: true as const };
  });
};
