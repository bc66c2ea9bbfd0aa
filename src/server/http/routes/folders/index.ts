// /api/folders: the virtual folder tree of a project (spec section 7 "Folders"), plus move and delete.
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../../context';
import { callerOf } from '../../auth-guard';
import {
  CreateFolderRequest,
  DeleteFolderQuery,
  DeleteFolderResponse,
  FolderResponse,
  ListFoldersResponse,
  MoveFolderRequest,
  RelocateFolderResponse,
  RenameFolderQuery,
} from '../../../../contract/folders';
import { OrgQuery } from '../../../../contract/images';
import { createFolder, deleteFolder, listFolders, moveFolder, renameFolder } from '../../../services/folders';

const FolderParams = z.object({ folderId: z.string().uuid('Folder id must be a UUID') });

export const folderRoutes = (ctx: AppContext): FastifyPluginAsync => async (fastify) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const tags = ['folders'];

  app.get(
    '/list/:projectId',
    { schema: { tags, params: z.object({ projectId: z.string().uuid('Project id must be a UUID') }), querystring: OrgQuery, response: { 200: ListFoldersResponse } } },
    async (request) => listFolders(ctx, callerOf(request).id, request.params.projectId, request.query.org_id),
  );

  app.post('/create', { schema: { tags, body: CreateFolderRequest, response: { 200: FolderResponse } } }, async (request) => createFolder(ctx, callerOf(request).id, request.body));

  app.patch('/:folderId/name', { schema: { tags, params: FolderParams, querystring: RenameFolderQuery, response: { 200: RelocateFolderResponse } } }, async (request) =>
    renameFolder(ctx, callerOf(request).id, request.params.folderId, request.query.name),
  );

  app.post('/:folderId/move', { schema: { tags, params: FolderParams, body: MoveFolderRequest, response: { 200: RelocateFolderResponse } } }, async (request) =>
    moveFolder(ctx, callerOf(request).id, request.params.folderId, request.body.target_parent_path),
  );

  app.delete('/:folderId', { schema: { tags, params: FolderParams, querystring: DeleteFolderQuery, response: { 200: DeleteFolderResponse } } }, async (request) =>
    deleteFolder(ctx, callerOf(request).id, request.params.folderId, request.query.contents),
  );
};
