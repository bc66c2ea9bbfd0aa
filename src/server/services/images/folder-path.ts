// Folder paths from the client: checked, canonical, and the folder row they name.
import { and, eq, or, sql, type SQL } from 'drizzle-orm';
import type { Exec } from '../../db/client';
import { folders, images } from '../../db/schema';
import { errors } from '../../errors';
import { normalizeFolderPath, ROOT_PATH } from '../../../contract/folders';

/** A folder path from the client in canonical form; 400 when malformed. */
export function folderPathOrThrow(raw: string, field = 'folder_path'): string {
  const result = normalizeFolderPath(raw);
  if ('error' in result) throw errors.badRequest(`Invalid ${field}: ${result.error}`, 'invalid_folder_path');
  return result.path;
}

/**
 * The id of the folder row at `path` (null for the root, which has none, or when there is no such
 * folder). With `lock` (inside a transaction) the row is held FOR SHARE until it commits: a rename,
 * move or delete of the folder waits, so images put in it are not left at a path that no longer
 * exists (tests/api/team-chaos.test.ts).
 */
export async function folderIdOf(db: Exec, projectId: string, path: string, opts: { lock?: boolean } = {}): Promise<string | null> {
  if (path === ROOT_PATH) return null;
  const query = db.select({ id: folders.id }).from(folders).where(and(eq(folders.projectId, projectId), eq(folders.fullPath, path))).limit(1);
  const [f] = opts.lock ? await query.for('share') : await query;
  return f?.id ?? null;
}

/** 404 unless the folder exists in the project ('/' always does). */
export async function requireFolder(db: Exec, projectId: string, path: string, opts: { lock?: boolean } = {}): Promise<string | null> {
  if (path === ROOT_PATH) return null;
  const id = await folderIdOf(db, projectId, path, opts);
  if (!id) throw errors.notFound(`Folder ${path}`);
  return id;
}

/** `column` is `path` or a folder inside it (a folder's rows or its images, moved or exported together). */
export function underPath(column: typeof folders.fullPath | typeof images.virtualFolderPath, path: string): SQL {
  return or(eq(column, path), sql`starts_with(${column}, ${`${path}/`})`)!;
}
