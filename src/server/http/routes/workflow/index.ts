// /api/v1 team workflow calls of issue 29: assign, the queue, submit and review, activity, issues
// and their comments; consensus (issue 36 §3): an overlapped image's drafts and their merge. Who may call what: src/contract/permissions.ts (README "Roles").
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../context';
import { callerOf } from '../../auth-guard';
import { OrgQuery } from '../../../../contract/images';
import { MAX_SAVE_BYTES } from '../../../../contract/annotation-api';
import { DraftsResponse, MergeRequest, MergeResponse } from '../../../../contract/consensus';
import {
  ActivityQuery,
  ActivityResponse,
  AssignRequest,
  AssignResponse,
  CommentResponse,
  CreateCommentRequest,
  CreateIssueRequest,
  IssueResponse,
  IssuesResponse,
  QueueNextRequest,
  QueueNextResponse,
  ReviewRequest,
  ReviewResponse,
  SubmitResponse,
  UpdateIssueRequest,
} from '../../../../contract/workflow';
import { draftsOfImage, mergeDrafts } from '../../../services/consensus';
import { addComment, assignImages, createIssue, imageActivity, listIssues, nextInQueue, reviewImage, setIssueStatus, submitImage } from '../../../services/workflow';

const ProjectParams = z.object({ id: z.string().uuid('Project id must be a UUID') });
const ImageParams = z.object({ id: z.string().uuid('Image id must be a UUID') });
const IssueParams = z.object({ id: z.string().uuid('Issue id must be a UUID') });

export const workflowRoutes = (ctx: AppContext): FastifyPluginAsync => async (fastify) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['workflow'];

  app.post('/images/assign', { schema: { tags, querystring: OrgQuery, body: AssignRequest, response: { 200: AssignResponse } } }, async (request) =>
    assignImages(ctx, callerOf(request).id, request.body, request.query.org_id),
  );

  app.post(
    '/projects/:id/queue/next',
    { schema: { tags, params: ProjectParams, querystring: OrgQuery, body: QueueNextRequest, response: { 200: QueueNextResponse, 204: z.null().describe('Nothing is left in the queue') } } },
    async (request, reply) => {
      const next = await nextInQueue(ctx, callerOf(request).id, request.params.id, request.body.role, request.query.org_id);
      return next ?? reply.code(204).send(null);
    },
  );

  app.post('/images/:id/submit', { schema: { tags, params: ImageParams, querystring: OrgQuery, response: { 200: SubmitResponse } } }, async (request) =>
    submitImage(ctx, callerOf(request).id, request.params.id, request.query.org_id),
  );

  app.post('/images/:id/review', { schema: { tags, params: ImageParams, querystring: OrgQuery, body: ReviewRequest, response: { 200: ReviewResponse } } }, async (request) =>
    reviewImage(ctx, callerOf(request).id, request.params.id, request.body, request.query.org_id),
  );

  app.get('/images/:id/activity', { schema: { tags, params: ImageParams, querystring: ActivityQuery, response: { 200: ActivityResponse } } }, async (request) =>
    imageActivity(ctx, callerOf(request).id, request.params.id, request.query),
  );

  app.post('/images/:id/issues', { schema: { tags, params: ImageParams, querystring: OrgQuery, body: CreateIssueRequest, response: { 201: IssueResponse } } }, async (request, reply) => {
    reply.code(201);
    return createIssue(ctx, callerOf(request).id, request.params.id, request.body, request.query.org_id);
  });

  app.get('/images/:id/issues', { schema: { tags, params: ImageParams, querystring: OrgQuery, response: { 200: IssuesResponse } } }, async (request) =>
    listIssues(ctx, callerOf(request).id, request.params.id, request.query.org_id),
  );

  app.post('/issues/:id/comments', { schema: { tags, params: IssueParams, querystring: OrgQuery, body: CreateCommentRequest, response: { 201: CommentResponse } } }, async (request, reply) => {
    reply.code(201);
    return addComment(ctx, callerOf(request).id, request.params.id, request.body.body, request.query.org_id);
  });

  app.patch('/issues/:id', { schema: { tags, params: IssueParams, querystring: OrgQuery, body: UpdateIssueRequest, response: { 200: IssueResponse } } }, async (request) =>
    setIssueStatus(ctx, callerOf(request).id, request.params.id, request.body.status, request.query.org_id),
  );

  // Consensus (issue 36 §3; reviewer, admin, owner): each annotator's draft with their agreement, and the merge.
  app.get('/images/:id/drafts', { schema: { tags, params: ImageParams, querystring: OrgQuery, response: { 200: DraftsResponse } } }, async (request) =>
    draftsOfImage(ctx, callerOf(request).id, request.params.id, request.query.org_id),
  );

  app.post(
    '/images/:id/merge',
    { bodyLimit: MAX_SAVE_BYTES, config: { bodyName: 'The annotations' }, schema: { tags, params: ImageParams, querystring: OrgQuery, body: MergeRequest, response: { 200: MergeResponse } } },
    async (request) => mergeDrafts(ctx, callerOf(request).id, request.params.id, request.body, request.query.org_id),
  );
};
