// Dataset imports (issue 17): reserve an upload for an archive, start it, follow it.
// The import workers are started (or not: ROLE) by jobs/workers.ts, not here.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../context';
import { callerOf } from '../../auth-guard';
import { CreateImportRequest, CreateImportResponse, ImportJob, ListImportsResponse, StartImportResponse } from '../../../../contract/imports';
import { jobServices } from '../../../jobs/workers';

const ProjectParams = z.object({ project_id: z.string().uuid('project_id must be a UUID') });
const ImportParams = z.object({ import_id: z.string().uuid('import_id must be a UUID') });

export const importRoutes = (ctx: AppContext): FastifyPluginAsync => async (fastify) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['imports'];
  const service = jobServices(ctx).imports;

  app.post(
    '/projects/:project_id/imports',
    {
      schema: {
        tags,
        summary: 'Reserve an upload for a dataset archive (.zip) or annotation file (.json, .xml); PUT it to upload_url, then start the import',
        params: ProjectParams,
        body: CreateImportRequest,
        response: { 201: CreateImportResponse.extend({ content_type: z.string() }) },
      },
    },
    async (request, reply) => {
      const created = await service.create(callerOf(request).id, request.params.project_id, request.body);
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/projects/:project_id/imports',
    { schema: { tags, summary: "The project's recent imports, newest first", params: ProjectParams, response: { 200: ListImportsResponse } } },
    async (request) => service.list(callerOf(request).id, request.params.project_id),
  );

  app.post(
    '/imports/:import_id/start',
    { schema: { tags, summary: 'Queue an uploaded import; it runs in the background', params: ImportParams, response: { 202: StartImportResponse } } },
    async (request, reply) => reply.code(202).send(await service.begin(callerOf(request).id, request.params.import_id)),
  );

  app.post(
    '/imports/:import_id/cancel',
    {
      schema: {
        tags,
        summary: 'Cancel a queued or running import: it stops at its next image, keeps what it added (in its report) and ends as cancelled',
        params: ImportParams,
        response: { 200: ImportJob },
      },
    },
    async (request) => service.cancel(callerOf(request).id, request.params.import_id),
  );

  app.get(
    '/imports/:import_id',
    { schema: { tags, summary: "An import's status, progress and report", params: ImportParams, response: { 200: ImportJob } } },
    async (request) => service.get(callerOf(request).id, request.params.import_id),
  );
};
