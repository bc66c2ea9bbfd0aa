// /api/v1/projects
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../context';
import { callerOf } from '../../auth-guard';
import { CreateProjectRequest, DeleteProjectResponse, ProjectResponse, ProjectsResponse, UpdateProjectRequest } from '../../../../contract/projects';
import { createProject, deleteProject, getProject, listProjects, updateProject } from '../../../services/projects';

const ProjectParams = z.object({ id: z.string().uuid('Project id must be a UUID') });
const OrgParams = z.object({ orgId: z.string().uuid('Organization id must be a UUID') });

export const projectRoutes = (ctx: AppContext): FastifyPluginAsync => async (fastify) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['projects'];

  app.get('/projects/organization/:orgId', { schema: { tags, params: OrgParams, response: { 200: ProjectsResponse } } }, async (request) => ({
    projects: await listProjects(ctx, callerOf(request).id, request.params.orgId),
  }));

  app.post('/projects', { schema: { tags, body: CreateProjectRequest, response: { 200: ProjectResponse } } }, async (request) => ({
    success: true as const,
    project: await createProject(ctx, callerOf(request).id, request.body),
  }));

  app.get('/projects/:id', { schema: { tags, params: ProjectParams, response: { 200: ProjectResponse } } }, async (request) => ({
    success: true as const,
    project: await getProject(ctx, callerOf(request).id, request.params.id),
  }));

  app.patch('/projects/:id', { schema: { tags, params: ProjectParams, body: UpdateProjectRequest, response: { 200: ProjectResponse } } }, async (request) => ({
    success: true as const,
    project: await updateProject(ctx, callerOf(request).id, request.params.id, request.body),
  }));

  app.delete('/projects/:id', { schema: { tags, params: ProjectParams, response: { 200: DeleteProjectResponse } } }, async (request) => {
    await deleteProject(ctx, callerOf(request).id, request.params.id);
    return { success: true as const, message: 'Project deleted' };
  });
};
