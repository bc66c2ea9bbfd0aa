// Every product route, registered in one place. One folder per resource.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context';
import { systemRoutes } from './system';

export async function registerRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(systemRoutes(ctx), { prefix: '/api/v1' });
}
