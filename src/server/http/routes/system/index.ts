import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../../context';
import { ConfigResponse, HealthResponse } from '../../../../contract/system';

export const systemRoutes = (ctx: AppContext): FastifyPluginAsync => async (fastify) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get('/health', { config: { public: true }, schema: { tags: ['system'], security: [], response: { 200: HealthResponse } } }, async () => ({
    status: 'ok' as const,
    database: ctx.database.kind,
    storage: ctx.storage.kind,
    auth: ctx.auth.mode,
  }));
  app.get('/config', { config: { public: true }, schema: { tags: ['system'], security: [], response: { 200: ConfigResponse } } }, async () => ({
    supabaseUrl: ctx.auth.supabaseUrl,
    supabaseAnonKey: ctx.auth.anonKey,
    authMode: ctx.auth.mode,
    googleEnabled: ctx.config.google !== null,
  }));
};
