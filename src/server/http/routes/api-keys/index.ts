// /api/v1/api-keys: create (shown once), list and revoke API keys. Managing keys needs a person's
// session: a key cannot mint or revoke keys.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../../context';
import { callerOf } from '../../auth-guard';
import { ApiKeyParams, ApiKeysQuery, ApiKeysResponse, CreateApiKeyRequest, CreateApiKeyResponse, DeleteApiKeyResponse } from '../../../../contract/teams';
import { createApiKey, listApiKeys, revokeApiKey } from '../../../services/api-keys';

export const apiKeyRoutes = (ctx: AppContext): FastifyPluginAsync => async (fastify) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['api-keys'];
  const config = { sessionOnly: true };

  app.get('/api-keys', { config, schema: { tags, querystring: ApiKeysQuery, response: { 200: ApiKeysResponse } } }, async (request) => ({
    api_keys: await listApiKeys(ctx, callerOf(request).id, request.query.organization_id),
  }));

  app.post('/api-keys', { config, schema: { tags, summary: 'Create a key (the response holds it, once)', body: CreateApiKeyRequest, response: { 200: CreateApiKeyResponse } } }, async (request) => ({
    success: true as const,
    ...(await createApiKey(ctx, callerOf(request).id, request.body)),
  }));

  app.delete('/api-keys/:id', { config, schema: { tags, summary: 'Revoke a key', params: ApiKeyParams, response: { 200: DeleteApiKeyResponse } } }, async (request) => {
    await revokeApiKey(ctx, callerOf(request).id, request.params.id);
    return { success: true as const };
  });
};
