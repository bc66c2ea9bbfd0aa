// /api/v1/models (issue 34): the organization's model registry. Everyone lists (the built-in models
// too); owners and admins register an ONNX file (then PUT it and activate) or an HTTP endpoint,
// and delete. docs/models.md.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../../context';
import { callerOf } from '../../auth-guard';
import { CreateModelRequest, CreateModelResponse, DeleteModelResponse, ModelParams, ModelResponse, ModelsQuery, ModelsResponse } from '../../../../contract/models';
import { activateModel, createModel, deleteModel, listModels } from '../../../services/models/registry';

export const modelRoutes = (ctx: AppContext): FastifyPluginAsync => async (fastify) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['models'];

  app.get('/models', { schema: { tags, summary: 'The built-in models and the organization’s own', querystring: ModelsQuery, response: { 200: ModelsResponse } } }, async (request) => ({
    models: await listModels(ctx, callerOf(request).id, request.query.organization_id),
  }));

  app.post('/models', { schema: { tags, summary: 'Register an ONNX model (answers its upload URL) or an HTTP endpoint', body: CreateModelRequest, response: { 201: CreateModelResponse } } }, async (request, reply) => {
    reply.code(201);
    return createModel(ctx, callerOf(request).id, request.body);
  });

  app.post('/models/:id/activate', { schema: { tags, summary: 'Read the uploaded ONNX file: an Ultralytics YOLO detect or segment export becomes ready', params: ModelParams, response: { 200: ModelResponse } } }, async (request) => ({
    model: await activateModel(ctx, callerOf(request).id, request.params.id),
  }));

  app.delete('/models/:id', { schema: { tags, summary: 'Delete a model (and its file)', params: ModelParams, response: { 200: DeleteModelResponse } } }, async (request) => {
    await deleteModel(ctx, callerOf(request).id, request.params.id);
    return { success: true as const };
  });
};
