// What the Data tab does to images: moves (by drag or the toolbar's Folder menu), stages (the
// toolbar's Stage menu, one at a time from a tile's status), archive (its toast offers Undo), and
// what follows a Magic Image Edit. Changes show at once and are undone by a reload when the server refuses them
// (spec section 4); the folder and project counts are refreshed after.
import { useCallback, useRef } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { nextStatus, type Image, type ImageStatus } from '../../../../contract/images';
import { ROOT_PATH, parentFolderPath } from '../../../../contract/folders';
import { api } from '../../../api/client';
import { stageLabel } from '../../../lib/stages';
import { toast, toastAction } from '../../../stores/toast';
import { projectKey } from '../../../stores/projectQueries';
import { showAlert } from './alerts';
import { useDataView } from '../../../stores/dataView';
import { folderName, foldersKey } from './folders';
import type { ImageList } from './useImageList';

const plural = (n: number) => `${n.toLocaleString()} image${n === 1 ? '' : 's'}`;

interface StatusRun {
  shown: ImageStatus;
  confirmed: ImageStatus;
  pending: number;
  tail: Promise<void>;
}

// Long because each action on the images (move, stage, cycle a status, archive with Undo, restore)
// is a few lines around the same optimistic cache updates, reloads and toasts.
export function useImageActions({
  projectId,
  orgId,
  folderPath,
  status,
  search,
  list,
}: {
  projectId: string;
  orgId: string;
  folderPath: string;
  status: ImageStatus | null;
  /** The name search ('' none): its results come from every folder, so a move keeps them listed. */
  search: string;
  list: ImageList;
}) {
  const qc = useQueryClient();
  const view = useDataView.getState;

  const refreshMeta = useCallback(() => {
    void qc.invalidateQueries({ queryKey: foldersKey(projectId) });
    void qc.invalidateQueries({ queryKey: projectKey(projectId) });
  }, [qc, projectId]);

  // In the order they were selected (the set keeps it): a bulk 'Next stage' cycles the first
  // selected image's status (spec section 4), and Edit takes the first five. Only loaded images.
  const selectedIds = () => {
    const loaded = new Set(list.images.map((i) => i.id));
    return [...view().selected].filter((id) => loaded.has(id));
  };
  const selectedImages = () => {
    const byId = new Map(list.images.map((i) => [i.id, i]));
    return selectedIds().map((id) => byId.get(id)!);
  };

  // Spec section 4 "Drag and drop": optimistic removal, reload on failure. `via`: a drag gets the
  // spec's message for where it was dropped; the toolbar's Folder menu the generic one.
  const moveImages = async (ids: string[], target: string, via: 'drag' | 'menu') => {
    if (!ids.length || (target === folderPath && !search)) return;
    const toParent = target === parentFolderPath(folderPath) && folderPath !== ROOT_PATH;
    // Search results stay (they still match), showing their new folder; a folder view lets them go.
    if (search) list.patch(ids, { virtual_folder_path: target });
    else list.remove(ids);
    view().setSelection([...view().selected].filter((id) => !ids.includes(id)));
    try {
      const res = await api.batchMove(projectId, ids, target);
      toast(`Moved ${plural(res.moved)} to ${folderName(target)}`, 'success');
    } catch {
      showAlert(
        via === 'menu'
          ? 'Failed to move items. Please try again.'
          : toParent
            ? 'Failed to move images to parent directory. Please try again.'
            : 'Failed to move images to folder. Please try again.',
      );
      list.reload();
    } finally {
      refreshMeta();
    }
  };

  const setStage = async (next: ImageStatus | 'cycle') => {
    const ids = selectedIds();
    if (!ids.length) return;
    if (next !== 'cycle') list.patch(ids, { status: next });
    try {
      const res = await api.batchUpdate(projectId, ids, next === 'cycle' ? { cycle: true } : { status: next });
      const applied = res.status ?? (next === 'cycle' ? null : next);
      if (applied) {
        if (status && applied !== status) list.remove(ids);
        else list.patch(ids, { status: applied });
        toast(`${plural(res.updated)} set to ${stageLabel(applied)}`, 'success');
      }
    } catch {
      showAlert('Failed to update image status. Please try again.');
      list.reload();
    } finally {
      void qc.invalidateQueries({ queryKey: projectKey(projectId) });
    }
  };

  // Single-image cycle (spec section 4) through PATCH /images/{id}/status: the tile shows the next
  // status at once; one image's requests run one after another (so quick clicks land in order) and,
  // once none is left, the tile shows what the server last confirmed: a failure rolls back.
  const statusRuns = useRef(new Map<string, StatusRun>());
  const cycleStatus = (image: Image) => {
    const runs = statusRuns.current;
    let run = runs.get(image.id);
    if (!run) {
      run = { shown: image.status, confirmed: image.status, pending: 0, tail: Promise.resolve() };
      runs.set(image.id, run);
    }
    const r = run;
    const next = nextStatus(r.shown);
    r.shown = next;
    r.pending += 1;
    list.patch([image.id], { status: next });
    r.tail = r.tail.then(async () => {
      try {
        const res = await api.updateImageStatus(image.id, orgId, next);
        r.confirmed = res.image.status;
      } catch {
        showAlert('Failed to update image status. Please try again.');
      } finally {
        r.pending -= 1;
        if (r.pending === 0) {
          runs.delete(image.id);
          list.patch([image.id], { status: r.confirmed });
          // Completed counts on the header and project cards.
          void qc.invalidateQueries({ queryKey: projectKey(projectId) });
        }
      }
    });
  };

  // Undo brings archived images back (and selected again, when their view is still on screen).
  const unarchive = async (ids: string[], where: string) => {
    try {
      const res = await api.batchUpdate(projectId, ids, { is_archived: false });
      const v = view();
      v.reload();
      if (v.projectId === projectId && `${v.folderPath}|${v.search}|${v.status}` === where) v.setSelection(ids, ids[0] ?? null);
      toast(`Restored ${plural(res.updated)}`, 'success');
    } catch {
      showAlert('Failed to restore images. Please try again.');
    } finally {
      refreshMeta();
    }
  };

  const archive = async () => {
    const ids = selectedIds();
    if (!ids.length) return;
    const names = selectedImages().map((i) => i.filename);
    const where = `${folderPath}|${search}|${status}`;
    list.remove(ids);
    view().clearSelection();
    try {
      const res = await api.batchUpdate(projectId, ids, { is_archived: true });
      const what = res.updated === 1 && names.length === 1 ? names[0] : plural(res.updated);
      toastAction(`Archived ${what}`, { label: 'Undo', run: () => void unarchive(ids, where) });
    } catch {
      showAlert('Failed to archive images. Please try again.');
      list.reload();
      // The images come back selected, as a failed delete in the Archive tab keeps them: one click to retry.
      view().setSelection(ids);
    } finally {
      refreshMeta();
    }
  };

  // Magic Image Edit: new images in the folder on screen reload it; counts everywhere follow.
  const onEditLanded = useCallback(
    (target: string) => {
      if (useDataView.getState().folderPath === target) view().reload();
      refreshMeta();
    },
    [refreshMeta, view],
  );

  return { selectedIds, selectedImages, moveImages, setStage, cycleStatus, archive, onEditLanded };
}
