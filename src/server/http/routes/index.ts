// Every product route, registered in one place. One folder per resource. A `worker` process
// (ROLE) registers the health routes only; its job workers are started by jobs/workers.ts.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context';
import { servesRequests } from '../../config';
import { systemRoutes } from './system';
import { authRoutes } from './auth';
import { userRoutes } from './users';
import { organizationRoutes } from './organizations';
import { projectRoutes } from './projects';
import { imageRoutes } from './images';
import { usageRoutes } from './usage';
import { folderRoutes } from './folders';
import { batchRoutes } from './batch';
import { exportRoutes } from './export';
import { annotationRoutes } from './annotations';
import { autoAnnotateRoutes } from './auto-annotate';
import { imageEditRoutes } from './image-edit';
import { importRoutes } from './imports';
import { memberRoutes } from './members';
import { inviteRoutes } from './invites';
import { apiKeyRoutes } from './api-keys';
import { liveRoutes } from './live';
import { workflowRoutes } from './workflow';
import { modelRoutes } from './models';
import { prelabelRoutes } from './prelabel';
import { analyticsRoutes } from './analytics';

export async function registerRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  if (!servesRequests(ctx.config.role)) {
    await app.register(systemRoutes(ctx), { prefix: '/api/v1' });
    return;
  }
  for (const routes of [systemRoutes, authRoutes, userRoutes, organizationRoutes, projectRoutes, imageRoutes, usageRoutes, annotationRoutes, exportRoutes, imageEditRoutes, importRoutes]) {
    await app.register(routes(ctx), { prefix: '/api/v1' });
  }
  await app.register(folderRoutes(ctx), { prefix: '/api/folders' });
  await app.register(batchRoutes(ctx), { prefix: '/api/images/batch' });
  for (const routes of [memberRoutes, inviteRoutes, apiKeyRoutes]) await app.register(routes(ctx), { prefix: '/api/v1' });
  await app.register(autoAnnotateRoutes(ctx), { prefix: '/api/v1' });
  await app.register(liveRoutes(ctx), { prefix: '/api/v1' });
  await app.register(workflowRoutes(ctx), { prefix: '/api/v1' });
  await app.register(modelRoutes(ctx), { prefix: '/api/v1' });
  await app.register(prelabelRoutes(ctx), { prefix: '/api/v1' });
  await app.register(analyticsRoutes(ctx), { prefix: '/api/v1' });
}
