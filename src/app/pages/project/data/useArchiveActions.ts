// The Archive tab's two actions: Restore and permanent Delete (after a warning listing the names).
// Restoring several goes in chunks of 50 with progress, then the names restored (spec section 4);
// restoring one image just restores it, with a toast that can undo it. Both refresh the counts.
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { Image } from '../../../../contract/images';
import type { Project } from '../../../../contract/projects';
import { api } from '../../../api/client';
import { toast, toastAction } from '../../../stores/toast';
import { projectKey } from '../../../stores/projectQueries';
import { showAlert } from './alerts';
import { foldersKey } from './folders';
import { useDataView } from '../../../stores/dataView';
import type { useImageList } from './useImageList';

const RESTORE_CHUNK = 50;

export function useArchiveActions(project: Project, list: ReturnType<typeof useImageList>) {
  const qc = useQueryClient();
  const view = useDataView.getState;
  const [restoring, setRestoring] = useState<{ current: number; total: number } | null>(null);
  const [restored, setRestored] = useState<string[] | null>(null);
  const [confirmDelete, setConfirmDelete] = useState<Image[] | null>(null);
  const [showAll, setShowAll] = useState(false);
  const [deleting, setDeleting] = useState(false);

  const chosen = () => list.images.filter((i) => view().selected.has(i.id));
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: projectKey(project.id) });
    void qc.invalidateQueries({ queryKey: foldersKey(project.id) });
  };

  const after = () => {
    view().clearSelection();
    list.reload();
    view().reload();
    refresh();
  };

  // One image: no progress, no report; the toast's Undo archives it again.
  const restoreOne = async (image: Image) => {
    list.remove([image.id]);
    try {
      await api.batchUpdate(project.id, [image.id], { is_archived: false });
      toastAction(`Restored ${image.filename}`, {
        label: 'Undo',
        run: () => {
          void api
            .batchUpdate(project.id, [image.id], { is_archived: true })
            .then(() => toast(`Archived ${image.filename}`, 'success'))
            .catch(() => showAlert('Failed to archive images. Please try again.'))
            .finally(after);
        },
      });
    } catch {
      showAlert('Failed to restore images. Please try again.');
    } finally {
      after();
    }
  };

  const restore = async () => {
    const images = chosen();
    if (!images.length) {
      showAlert('Could not find images to restore. Please refresh and try again.');
      return;
    }
    if (images.length === 1) return restoreOne(images[0]);
    setRestoring({ current: 0, total: images.length });
    const names: string[] = [];
    try {
      for (let i = 0; i < images.length; i += RESTORE_CHUNK) {
        const chunk = images.slice(i, i + RESTORE_CHUNK);
        await api.batchUpdate(project.id, chunk.map((c) => c.id), { is_archived: false });
        names.push(...chunk.map((c) => c.filename));
        setRestoring({ current: Math.min(images.length, i + chunk.length), total: images.length });
      }
      setRestored(names);
    } catch {
      showAlert('Failed to restore images. Please try again.');
    } finally {
      setRestoring(null);
      after();
    }
  };

  const askDelete = () => {
    const images = chosen();
    if (!images.length) {
      showAlert('Could not find images to delete. Please refresh and try again.');
      return;
    }
    setShowAll(false);
    setConfirmDelete(images);
  };
  const doDelete = async () => {
    if (!confirmDelete) return;
    setDeleting(true);
    try {
      const res = await api.batchDelete(project.id, confirmDelete.map((i) => i.id));
      list.remove(res.deleted_ids);
      toast(`Permanently deleted ${res.deleted.toLocaleString()} image${res.deleted === 1 ? '' : 's'}`, 'success');
      view().clearSelection();
    } catch {
      showAlert('Failed to delete images. Please try again.');
      list.reload();
    } finally {
      setDeleting(false);
      setConfirmDelete(null);
      refresh();
    }
  };

  return { restoring, restored, setRestored, confirmDelete, setConfirmDelete, showAll, setShowAll, deleting, restore, askDelete, doDelete };
}

export type ArchiveActions = ReturnType<typeof useArchiveActions>;
