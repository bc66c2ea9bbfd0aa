// Virtual folders: a path tree per project ('/' is the root and has no row). Image objects never
// move (their keys hold no folder); a folder change rewrites full_path / virtual_folder_path rows,
// all in one transaction.
import { randomUUID } from 'node:crypto';
import { and, asc, count, eq, like, sql } from 'drizzle-orm';
import type { AppContext } from '../context';
import { isUniqueViolation, retryOnConflict } from '../db/errors';
import { folders, imageFolderStats, images } from '../db/schema';
import { errors } from '../errors';
import { checkFolderName, isSameOrInside, joinFolderPath, ROOT_PATH, UNTITLED_FOLDER, type Folder, type FolderNode } from '../../contract/folders';
import type { Tx } from '../db/client';
import { projectFor, projectInOrg } from './access';
import { folderPathOrThrow, type ProjectRow } from './images';
import { requireFolder, underPath } from './images/folder-path';

type FolderRow = typeof folders.$inferSelect;
/** Natural order ('Folder 2' before 'Folder 10'); one collator, not one per comparison. */
const NAME_ORDER = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

function folderJson(f: FolderRow): Folder {
  return {
    id: f.id,
    name: f.name,
    full_path: f.fullPath,
    parent_folder_id: f.parentFolderId,
    parent_folder_path: f.parentFolderPath,
    project_id: f.projectId,
    created_at: f.createdAt.toISOString(),
  };
}

function nameOrThrow(raw: string): string {
  const checked = checkFolderName(raw);
  if ('error' in checked) throw errors.badRequest(checked.error, 'invalid_folder_name');
  return checked.name;
}


/** The folder and its project, if the caller may `permission` there; 404 otherwise. */
async function folderFor(ctx: AppContext, userId: string, folderId: string, permission: 'images.read' | 'images.organize'): Promise<{ folder: FolderRow; project: ProjectRow }> {
  const [folder] = await ctx.db.select().from(folders).where(eq(folders.id, folderId)).limit(1);
  if (!folder) throw errors.notFound('Folder');
  try {
    return { folder, project: await projectFor(ctx, userId, folder.projectId, permission) };
  } catch (err) {
    // Another organization's folder is "not found", like its project.
    if ((err as { status?: number }).status === 404) throw errors.notFound('Folder');
    throw err;
  }
}

export async function listFolders(ctx: AppContext, userId: string, projectId: string, orgId?: string) {
  const project = await projectInOrg(ctx, userId, projectId, 'images.read', orgId);
  const rows = await ctx.db.select().from(folders).where(eq(folders.projectId, project.id)).orderBy(asc(folders.fullPath));
  const counts = await ctx.db
    .select({ path: imageFolderStats.virtualFolderPath, n: sql<number>`sum(${imageFolderStats.imageCount})`.mapWith(Number) })
    .from(imageFolderStats)
    .where(and(eq(imageFolderStats.projectId, project.id), eq(imageFolderStats.isArchived, false)))
    .groupBy(imageFolderStats.virtualFolderPath);
  const direct = new Map(counts.map((c) => [c.path, c.n]));
  const nodes = new Map<string, FolderNode>();
  for (const f of rows) {
    nodes.set(f.id, { ...folderJson(f), image_count: direct.get(f.fullPath) ?? 0, total_image_count: 0, children: [] });
  }
  const roots: FolderNode[] = [];
  for (const f of rows) {
    const node = nodes.get(f.id)!;
    const parent = f.parentFolderId ? nodes.get(f.parentFolderId) : undefined;
    (parent ? parent.children : roots).push(node);
  }
  const total = (n: FolderNode): number => (n.total_image_count = n.image_count + n.children.reduce((s, c) => s + total(c), 0));
  roots.forEach(total);
  const sortTree = (list: FolderNode[]) => {
    list.sort((a, b) => NAME_ORDER.compare(a.name, b.name));
    list.forEach((n) => sortTree(n.children));
  };
  sortTree(roots);
  // Strip the project_id that folderJson added: the tree nodes have the FolderNode shape.
  const strip = (n: FolderNode & { project_id?: string }): FolderNode => {
    const { project_id: _p, ...rest } = n;
    return { ...rest, children: n.children.map(strip) };
  };
  return {
    folders: roots.map(strip),
    root_image_count: direct.get(ROOT_PATH) ?? 0,
    total_image_count: counts.reduce((s, c) => s + c.n, 0),
  };
}


export async function createFolder(ctx: AppContext, userId: string, body: { project_id: string; name?: string | null; parent_folder_path: string }) {
  const project = await projectFor(ctx, userId, body.project_id, 'images.organize');
  const parentPath = folderPathOrThrow(body.parent_folder_path, 'parent_folder_path');
  let name: string;
  if (body.name && body.name.trim()) {
    name = nameOrThrow(body.name);
  } else {
    // The first free 'Untitled Folder N' among the parent's children (spec section 5).
    const siblings = await ctx.db
      .select({ name: folders.name })
      .from(folders)
      .where(and(eq(folders.projectId, project.id), eq(folders.parentFolderPath, parentPath), like(folders.name, `${UNTITLED_FOLDER} %`)));
    const used = new Set(siblings.map((s) => s.name));
    let n = 1;
    while (used.has(`${UNTITLED_FOLDER} ${n}`)) n += 1;
    name = `${UNTITLED_FOLDER} ${n}`;
  }
  const fullPath = joinFolderPath(parentPath, name);
  try {
    // The parent is looked up and held while the folder is added, so a rename, move or
    // delete of it at once waits: the new folder's path is never one that no longer exists.
    const row = await retryOnConflict(() =>
      ctx.db.transaction(async (tx) => {
        const parentId = await requireFolder(tx, project.id, parentPath, { lock: true });
        const [inserted] = await tx
          .insert(folders)
          .values({ id: randomUUID(), projectId: project.id, name, fullPath, parentFolderPath: parentPath, parentFolderId: parentId })
          .returning();
        return inserted!;
      }),
    );
    return { success: true as const, folder: folderJson(row) };
  } catch (err) {
    if (isUniqueViolation(err)) throw errors.conflict(`A folder named "${name}" already exists in ${parentPath}`, 'folder_exists');
    throw err;
  }
}

/**
 * Creates every missing folder of `path` (an import's "train/cats"), checking each name; folders
 * that exist already are kept. The caller has checked the permission to add images.
 */
export async function ensureFolderPath(ctx: AppContext, projectId: string, path: string): Promise<void> {
  const normalized = folderPathOrThrow(path);
  const parts = normalized.split('/').filter(Boolean).map(nameOrThrow);
  // One transaction holding each folder of the path FOR SHARE once found or made, so a rename or
  // delete of one of them at once waits instead of leaving a child under a path that is gone.
  await retryOnConflict(() =>
    ctx.db.transaction(async (tx) => {
      let parent: string = ROOT_PATH;
      let parentId: string | null = null;
      for (const name of parts) {
        const fullPath = joinFolderPath(parent, name);
        await tx
          .insert(folders)
          .values({ id: randomUUID(), projectId, name, fullPath, parentFolderPath: parent, parentFolderId: parentId })
          .onConflictDoNothing();
        const [row] = await tx.select({ id: folders.id }).from(folders).where(and(eq(folders.projectId, projectId), eq(folders.fullPath, fullPath))).limit(1).for('share');
        if (!row) throw errors.notFound(`Folder ${fullPath}`);
        parent = fullPath;
        parentId = row.id;
      }
    }),
  );
}


/**
 * Gives `folder` a new parent and/or name: rewrites its row, the full_path and parent_folder_path
 * of every folder inside it, and the virtual_folder_path of every image inside it (archived too).
 * The new parent is `parentPath`, whose row `parentId` (null: the root) the caller holds.
 */
async function relocate(tx: Tx, folder: FolderRow, parentPath: string, parentId: string | null, name: string): Promise<{ folder: FolderRow; updatedFolders: number; updatedImages: number }> {
  const oldPath = folder.fullPath;
  const newPath = joinFolderPath(parentPath, name);
  if (newPath === oldPath) return { folder, updatedFolders: 0, updatedImages: 0 };
  const [clash] = await tx.select({ id: folders.id }).from(folders).where(and(eq(folders.projectId, folder.projectId), eq(folders.fullPath, newPath))).limit(1);
  if (clash) throw errors.conflict(`A folder named "${name}" already exists in ${parentPath}`, 'folder_exists');
  // Every folder of the subtree is locked first, in a statement of its own: one being moved or
  // created into it at once (which holds its parent FOR SHARE) commits before the rewrite below
  // starts, so the rewrite's fresh snapshot sees it. In one statement, a folder moved in while it
  // waited was left at the old path (tests/api/writes-at-once-postgres.test.ts).
  await tx.select({ id: folders.id }).from(folders).where(and(eq(folders.projectId, folder.projectId), underPath(folders.fullPath, oldPath))).for('update');
  const cut = oldPath.length + 1; // substr() is 1-based: the rest after the old prefix
  const moved = await tx
    .update(folders)
    .set({
      fullPath: sql`${newPath} || substr(${folders.fullPath}, ${cut})`,
      parentFolderPath: sql`CASE WHEN ${folders.id} = ${folder.id} THEN ${parentPath} ELSE ${newPath} || substr(${folders.parentFolderPath}, ${cut}) END`,
      parentFolderId: sql`CASE WHEN ${folders.id} = ${folder.id} THEN ${parentId}::uuid ELSE ${folders.parentFolderId} END`,
      name: sql`CASE WHEN ${folders.id} = ${folder.id} THEN ${name} ELSE ${folders.name} END`,
    })
    .where(and(eq(folders.projectId, folder.projectId), underPath(folders.fullPath, oldPath)))
    .returning();
  const imgs = await tx
    .update(images)
    .set({ virtualFolderPath: sql`${newPath} || substr(${images.virtualFolderPath}, ${cut})`, updatedAt: new Date() })
    .where(and(eq(images.projectId, folder.projectId), underPath(images.virtualFolderPath, oldPath)))
    .returning({ id: images.id });
  return { folder: moved.find((f) => f.id === folder.id)!, updatedFolders: moved.length, updatedImages: imgs.length };
}

function relocateErrors(err: unknown, name: string): never {
  if (isUniqueViolation(err)) throw errors.conflict(`A folder named "${name}" already exists there`, 'folder_exists');
  throw err;
}

export async function renameFolder(ctx: AppContext, userId: string, folderId: string, rawName: string) {
  const { folder } = await folderFor(ctx, userId, folderId, 'images.organize');
  const name = nameOrThrow(rawName);
  const result = await retryOnConflict(() => ctx.db
    .transaction(async (tx) => {
      const [current] = await tx.select().from(folders).where(eq(folders.id, folder.id)).for('update');
      if (!current) throw errors.notFound('Folder');
      const parentId = await requireFolder(tx, current.projectId, current.parentFolderPath, { lock: true });
      return relocate(tx, current, current.parentFolderPath, parentId, name);
    }))
    .catch((err) => relocateErrors(err, name));
  return { success: true as const, folder: folderJson(result.folder), updated_folders: result.updatedFolders, updated_images: result.updatedImages };
}

export async function moveFolder(ctx: AppContext, userId: string, folderId: string, targetRaw: string) {
  const { folder } = await folderFor(ctx, userId, folderId, 'images.organize');
  const target = folderPathOrThrow(targetRaw, 'target_parent_path');
  const result = await retryOnConflict(() => ctx.db
    .transaction(async (tx) => {
      const [current] = await tx.select().from(folders).where(eq(folders.id, folder.id)).for('update');
      if (!current) throw errors.notFound('Folder');
      if (isSameOrInside(target, current.fullPath)) throw errors.badRequest(`A folder cannot be moved into itself or a folder inside it (${target})`, 'invalid_move');
      const parentId = await requireFolder(tx, current.projectId, target, { lock: true });
      return relocate(tx, current, target, parentId, current.name);
    }))
    .catch((err) => relocateErrors(err, folder.name));
  return { success: true as const, folder: folderJson(result.folder), updated_folders: result.updatedFolders, updated_images: result.updatedImages };
}

export async function deleteFolder(ctx: AppContext, userId: string, folderId: string, contents: 'refuse' | 'move_to_parent') {
  const { folder } = await folderFor(ctx, userId, folderId, 'images.organize');
  return retryOnConflict(() => ctx.db
    .transaction(async (tx) => {
      const [current] = await tx.select().from(folders).where(eq(folders.id, folder.id)).for('update');
      if (!current) throw errors.notFound('Folder');
      const children = await tx.select().from(folders).where(eq(folders.parentFolderId, current.id));
      const [{ n: imageCount }] = await tx
        .select({ n: count() })
        .from(images)
        .where(and(eq(images.projectId, current.projectId), eq(images.virtualFolderPath, current.fullPath)));
      if ((children.length > 0 || imageCount > 0) && contents === 'refuse') {
        throw errors.conflict(`Folder "${current.name}" is not empty (${children.length} folder(s), ${imageCount} image(s), archived included)`, 'folder_not_empty', {
          folder_count: children.length,
          image_count: imageCount,
        });
      }
      const parentId = await requireFolder(tx, current.projectId, current.parentFolderPath, { lock: true });
      for (const child of children) await relocate(tx, child, current.parentFolderPath, parentId, child.name);
      const moved = await tx
        .update(images)
        .set({ virtualFolderPath: current.parentFolderPath, updatedAt: new Date() })
        .where(and(eq(images.projectId, current.projectId), eq(images.virtualFolderPath, current.fullPath)))
        .returning({ id: images.id });
      await tx.delete(folders).where(eq(folders.id, current.id));
      return { success: true as const, deleted_folder_id: current.id, moved_images: moved.length, moved_folders: children.length };
    }))
    .catch((err) => relocateErrors(err, folder.name));
}
