// /api/v1 image calls of spec section 7 "Images": the upload flow, the list, one image, stages,
// deletion, signed URLs, and the assisted-segmentation metadata lookup. Also starts the orphan sweep
// and this process's tile pyramid workers (stopped, their builds handed back, when the app closes).
import zlib from 'node:zlib';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../context';
import { callerOf } from '../../auth-guard';
import {
  BatchImageMetadataResponse,
  BatchSignedUrlsRequest,
  BatchSignedUrlsResponse,
  BatchUploadUrlsRequest,
  BatchUploadUrlsResponse,
  CheckFilenameRequest,
  CheckFilenameResponse,
  DeleteImagesRequest,
  DeleteImagesResponse,
  ImageResponse,
  ListImagesQuery,
  ListImagesResponse,
  OrgQuery,
  RegisterImageRequest,
  RegisterImageResponse,
  SignedUrlQuery,
  SignedUrlResponse,
  UpdateStatusRequest,
  UpdateStatusResponse,
  UploadUrlRequest,
  UploadUrlResult,
} from '../../../../contract/images';
import { imageFor, projectInOrg } from '../../../services/access';
import { batchImageMetadata, batchSignedUrls, deleteProjectImages, getImage, listImages, setImageStatus, signedImageUrl } from '../../../services/images';
import { checkFilename, createBatchUploadUrls, createUploadUrl, registerImage } from '../../../services/upload';
import { imageTiles } from '../../../services/tiles';
import { ImageTiles } from '../../../../contract/tiles';
import { compressionOptions } from '../../compression';

const listBrotli = { params: { ...compressionOptions.brotliOptions?.params, [zlib.constants.BROTLI_PARAM_QUALITY]: 1 } };

const ProjectParams = z.object({ id: z.string().uuid('Project id must be a UUID') });
const ImageParams = z.object({ id: z.string().uuid('Image id must be a UUID') });

export const imageRoutes = (ctx: AppContext): FastifyPluginAsync => async (fastify) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['images'];

  app.post('/projects/:id/images/check-filename', { schema: { tags, params: ProjectParams, querystring: OrgQuery, body: CheckFilenameRequest, response: { 200: CheckFilenameResponse } } }, async (request) =>
    checkFilename(ctx, callerOf(request).id, request.params.id, request.body.filename, request.query.org_id),
  );

  app.post('/projects/:id/images/upload-url', { schema: { tags, params: ProjectParams, querystring: OrgQuery, body: UploadUrlRequest, response: { 200: UploadUrlResult } } }, async (request) =>
    createUploadUrl(ctx, callerOf(request).id, request.params.id, request.body, request.query.org_id),
  );

  app.post(
    '/projects/:id/images/batch-upload-urls',
    { schema: { tags, params: ProjectParams, querystring: OrgQuery, body: BatchUploadUrlsRequest, response: { 200: BatchUploadUrlsResponse } } },
    async (request) => createBatchUploadUrls(ctx, callerOf(request).id, request.params.id, request.body, request.query.org_id),
  );

  app.post('/projects/:id/images/register', { schema: { tags, params: ProjectParams, querystring: OrgQuery, body: RegisterImageRequest, response: { 200: RegisterImageResponse } } }, async (request) =>
    registerImage(ctx, callerOf(request).id, request.params.id, request.body, request.query.org_id),
  );

  // The body comes as JSON bytes (services/images/read.ts: each row's JSON written by the database), so
  // the response schema documents it without a second walk; bodies up to 512 KB (a page of 200 is ~170 KB) are
  // compressed in one synchronous call instead of a stream (about 1 ms of CPU less a page), by brotli
  // quality 1: in one call it does not meet quality 1's weakness on piecewise writes (../../compression.ts),
  // and a real page of 200 (174 KB) costs 0.22-0.28 ms against quality 2's 0.45-0.63, 4% larger (15.3 KB).
  app.get(
    '/projects/:id/images',
    { schema: { tags, params: ProjectParams, querystring: ListImagesQuery, response: { 200: ListImagesResponse } }, compress: { ...compressionOptions, syncThreshold: 512 * 1024, brotliOptions: listBrotli } },
    async (request, reply) => {
      const body = await listImages(ctx, callerOf(request).id, request.params.id, request.query);
      // JSON bytes with a JSON content type are sent as they are (Fastify serializes only objects).
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  );

  app.delete(
    '/projects/:id/images',
    { schema: { tags, params: ProjectParams, querystring: OrgQuery, body: DeleteImagesRequest, response: { 200: DeleteImagesResponse } } },
    async (request) => {
      const project = await projectInOrg(ctx, callerOf(request).id, request.params.id, 'images.delete', request.query.org_id);
      return deleteProjectImages(ctx, project, request.body.image_ids ?? null, { deleteFiles: true });
    },
  );

  app.get('/images/:id', { schema: { tags, params: ImageParams, querystring: OrgQuery, response: { 200: ImageResponse } } }, async (request) => ({
    success: true as const,
    image: await getImage(ctx, callerOf(request).id, request.params.id, request.query.org_id),
  }));

  app.patch('/images/:id/status', { schema: { tags, params: ImageParams, querystring: OrgQuery, body: UpdateStatusRequest, response: { 200: UpdateStatusResponse } } }, async (request) =>
    setImageStatus(ctx, callerOf(request).id, request.params.id, request.body, request.query.org_id),
  );

  app.get('/images/:id/signed-url', { schema: { tags, params: ImageParams, querystring: SignedUrlQuery, response: { 200: SignedUrlResponse } } }, async (request) =>
    signedImageUrl(ctx, callerOf(request).id, request.params.id, request.query),
  );

  app.get('/images/:id/tiles', { schema: { tags, params: ImageParams, querystring: OrgQuery, response: { 200: ImageTiles } } }, async (request) =>
    imageTiles(ctx, await imageFor(ctx, callerOf(request).id, request.params.id, 'images.read', request.query.org_id)),
  );

  app.post('/images/batch-signed-urls', { schema: { tags, querystring: OrgQuery, body: BatchSignedUrlsRequest, response: { 200: BatchSignedUrlsResponse } } }, async (request) =>
    batchSignedUrls(ctx, callerOf(request).id, request.body, request.query.org_id),
  );

  app.get(
    '/auto-annotate/sam2/batch-image-metadata/:projectId',
    { schema: { tags, params: z.object({ projectId: z.string().uuid('Project id must be a UUID') }), response: { 200: BatchImageMetadataResponse } } },
    async (request) => batchImageMetadata(ctx, callerOf(request).id, request.params.projectId),
  );
};
