// POST /api/v1/annotations/export (spec section 7 "Annotations"): a zip named {name}_{format}.zip,
// streamed while it is written. Everything that can fail on input fails before the first byte with
// the usual JSON error; see src/server/services/export/ for the layout and the memory bounds.
// POST /api/v1/annotations/export/count: the same body, answered with the number of images that
// export would hold (the dialog shows it before the export starts).
// GET /api/v1/annotations/export/progress?project_id&progress_id: images written by the export the
// dialog started with that progress_id (services/export/progress.ts).
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../../context';
import { callerOf } from '../../auth-guard';
import { ExportCountResponse, ExportProgressQuery, ExportProgressResponse, ExportRequest } from '../../../../contract/export';
import { contentDisposition, countExport, prepareExport } from '../../../services/export';
import { exportProgress } from '../../../services/export/progress';

export const exportRoutes = (ctx: AppContext): FastifyPluginAsync => async (fastify) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/annotations/export',
    {
      schema: {
        tags: ['annotations'],
        summary: 'Export a dataset as a zip (Vellum, COCO, YOLO or Pascal VOC), streamed',
        body: ExportRequest,
      },
    },
    async (request, reply) => {
      const { filename, stream } = await prepareExport(ctx, callerOf(request).id, request.body);
      // A client that goes away ends the export: the stream is destroyed and the producer stops.
      reply.raw.once('close', () => {
        if (!stream.readableEnded) stream.destroy();
      });
      return reply.header('content-type', 'application/zip').header('content-disposition', contentDisposition(filename)).header('cache-control', 'no-store').send(stream);
    },
  );
  app.post(
    '/annotations/export/count',
    {
      schema: {
        tags: ['annotations'],
        summary: 'How many images an export with this body would hold (nothing is exported)',
        description:
          'Takes the body of POST /annotations/export and applies the same checks and selection (404 for another organization\'s project or selected image, 400 for an empty selection). Scopes: `selected` (image_ids), `all_complete` (complete, not archived), `all` (every image not archived, in every folder), `current_filters` (the images list filters; `filters.include_subfolders` adds the folders inside `filters.folder_path`).',
        body: ExportRequest,
        response: { 200: ExportCountResponse },
      },
    },
    async (request) => countExport(ctx, callerOf(request).id, request.body),
  );
  app.get(
    '/annotations/export/progress',
    {
      schema: {
        tags: ['annotations'],
        summary: 'Images written so far by the export started with this progress_id',
        description:
          'The export request names itself with `progress_id` (a random UUID the client makes). Answers its state (`running`, `done`, `cancelled`, `failed`; `unknown` when no export of that id runs or ran in the last minute in this project on this server), `images_written` and `image_count`. Permission images.export on the project; another organization\'s project answers 404.',
        querystring: ExportProgressQuery,
        response: { 200: ExportProgressResponse },
      },
    },
    async (request) => exportProgress(ctx, callerOf(request).id, request.query.project_id, request.query.progress_id),
  );
};
