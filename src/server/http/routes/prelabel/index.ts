// Pre-label jobs (issue 34 §2): POST /projects/{id}/prelabel answers 202 {job_id}; GET
// /prelabel/{job_id} the job's progress and report; POST /prelabel/{job_id}/cancel stops it. Owners,
// admins and reviewers; another organization's project, model or job is 404. docs/models.md.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../../context';
import { callerOf } from '../../auth-guard';
import { PrelabelJob, PrelabelJobParams, PrelabelProjectParams, PrelabelRequest, PrelabelStarted } from '../../../../contract/prelabel';
import { cancelPrelabelJob, createPrelabelJob, getPrelabelJob } from '../../../services/prelabel';

export const prelabelRoutes = (ctx: AppContext): FastifyPluginAsync => async (fastify) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['models'];

  app.post('/projects/:id/prelabel', { schema: { tags, summary: 'Pre-label images of the project with a model (a job)', params: PrelabelProjectParams, body: PrelabelRequest, response: { 202: PrelabelStarted } } }, async (request, reply) => {
    reply.code(202);
    return createPrelabelJob(ctx, callerOf(request).id, request.params.id, request.body);
  });

  app.get('/prelabel/:job_id', { schema: { tags, summary: 'A pre-label job: its state, progress and report', params: PrelabelJobParams, response: { 200: PrelabelJob } } }, async (request) =>
    getPrelabelJob(ctx, callerOf(request).id, request.params.job_id),
  );

  app.post('/prelabel/:job_id/cancel', { schema: { tags, summary: 'Stop a pre-label job (what it saved stays)', params: PrelabelJobParams, response: { 200: PrelabelJob } } }, async (request) =>
    cancelPrelabelJob(ctx, callerOf(request).id, request.params.job_id),
  );
};
