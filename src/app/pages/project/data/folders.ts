// The project's folder tree for the Data tab: its query, lookups in it, and folder names as shown.
import { useQuery } from '@tanstack/react-query';
import { ROOT_PATH, type FolderNode } from '../../../../contract/folders';
import { api } from '../../../api/client';

export const foldersKey = (projectId: string) => ['folders', projectId] as const;

export function useFolders(projectId: string, orgId: string) {
  return useQuery({ queryKey: foldersKey(projectId), queryFn: () => api.listFolders(projectId, orgId) });
}

export function findFolder(nodes: readonly FolderNode[], path: string): FolderNode | null {
  for (const n of nodes) {
    if (n.full_path === path) return n;
    if (path.startsWith(`${n.full_path}/`)) return findFolder(n.children, path);
  }
  return null;
}

/** Every folder of the tree, parents before their children, each level by name. */
export function flatten(nodes: readonly FolderNode[], depth = 0, out: { folder: FolderNode; depth: number }[] = []) {
  for (const n of [...nodes].sort((a, b) => a.name.localeCompare(b.name))) {
    out.push({ folder: n, depth });
    flatten(n.children, depth + 1, out);
  }
  return out;
}

export const folderName = (path: string) => (path === ROOT_PATH ? 'All images' : path.slice(path.lastIndexOf('/') + 1));
