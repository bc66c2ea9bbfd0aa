// Folders in the Data tab: New Folder (created in the folder on screen, then named in place),
// renaming (shown at once, the tree re-read after), and moving one by drag (hidden from the grid
// while the server moves it).
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { ROOT_PATH, parentFolderPath, type FolderNode } from '../../../../contract/folders';
import { api } from '../../../api/client';
import { toast } from '../../../stores/toast';
import { projectKey } from '../../../stores/projectQueries';
import { showAlert } from './alerts';
import { folderName, foldersKey, type useFolders } from './folders';

type FolderTree = ReturnType<typeof useFolders>['data'];

export function useFolderActions({ projectId, folderPath }: { projectId: string; folderPath: string }) {
  const qc = useQueryClient();
  const [renamingId, setRenamingId] = useState<string | null>(null);
  const [hiddenFolders, setHiddenFolders] = useState<ReadonlySet<string>>(new Set());
  const [creating, setCreating] = useState(false);

  const createFolder = async () => {
    setCreating(true);
    try {
      const res = await api.createFolder(projectId, folderPath);
      await qc.invalidateQueries({ queryKey: foldersKey(projectId) });
      setRenamingId(res.folder.id);
    } catch {
      showAlert('Failed to create folder. Please try again.');
    } finally {
      setCreating(false);
    }
  };

  const renameFolder = async (folder: FolderNode, name: string | null) => {
    setRenamingId(null);
    if (!name) return;
    qc.setQueryData(foldersKey(projectId), (old: FolderTree) => {
      if (!old) return old;
      const rename = (nodes: FolderNode[]): FolderNode[] => nodes.map((n) => (n.id === folder.id ? { ...n, name } : { ...n, children: rename(n.children) }));
      return { ...old, folders: rename(old.folders) };
    });
    try {
      await api.renameFolder(folder.id, name);
    } catch {
      showAlert(`Failed to rename folder "${folder.name}". Please try again.`);
    } finally {
      void qc.invalidateQueries({ queryKey: foldersKey(projectId) });
    }
  };

  const moveFolder = async (folderId: string, target: string) => {
    const toParent = target === parentFolderPath(folderPath) && folderPath !== ROOT_PATH;
    setHiddenFolders((h) => new Set(h).add(folderId));
    try {
      await api.moveFolder(folderId, target);
      toast(`Moved folder to ${folderName(target)}`, 'success');
    } catch {
      showAlert(toParent ? 'Failed to move folder to parent directory. Please try again.' : 'Failed to move folder. Please try again.');
    } finally {
      await qc.invalidateQueries({ queryKey: foldersKey(projectId) });
      setHiddenFolders((h) => {
        const next = new Set(h);
        next.delete(folderId);
        return next;
      });
      void qc.invalidateQueries({ queryKey: projectKey(projectId) });
    }
  };

  return { renamingId, setRenamingId, hiddenFolders, creating, createFolder, renameFolder, moveFolder };
}
