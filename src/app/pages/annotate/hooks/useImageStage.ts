// The image's stage in the editor's top bar (issue 19): shown at once when set (PATCH
// /images/{id}/status), rolled back with a word when the server refuses, and followed when a save
// moves a new image to In progress. The editor's cached image and sequence, the project's counts and
// the Data tab's list learn the new stage, so a reload or going back shows it.
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useState } from 'react';
import type { Image, ImageStatus } from '../../../../contract/images';
import { api, serverMessage } from '../../../api/client';
import { stageLabel } from '../../../lib/stages';
import { toast } from '../../../stores/toast';
import { useDataView } from '../../../stores/dataView';
import { projectKey } from '../../../stores/projectQueries';
import type { SaveManager } from '../../../sync/save';
import { MESSAGE_MS } from './useToolsAndClasses';

export interface ImageStage {
  status: ImageStatus;
  busy: boolean;
  open: boolean;
  setOpen(open: boolean): void;
  setStage(status: ImageStatus): void;
  /** Shift+S: opens the picker, or says why this role may not set stages. */
  openPicker(): void;
  /** Why this role may not set stages (the picker only shows the stage); null when it may. */
  deniedReason: string | null;
}

export function useImageStage({ image, orgId, projectId, saver, deniedReason }: { image: Image; orgId: string; projectId: string; saver: SaveManager; deniedReason: string | null }): ImageStage {
  const qc = useQueryClient();
  // The stage set or learnt here, for the image it belongs to (the screen may move to another image).
  const [known, setKnown] = useState<{ id: string; status: ImageStatus } | null>(null);
  const [busy, setBusy] = useState(false);
  const [open, setOpen] = useState(false);
  const status = known && known.id === image.id ? known.status : image.status;

  /** Every cached copy of the image takes the stage. */
  const remember = useCallback(
    (id: string, next: ImageStatus) => {
      setKnown({ id, status: next });
      qc.setQueriesData<Image | null>({ queryKey: ['editor-image', projectId] }, (img) => (img && img.id === id ? { ...img, status: next } : img));
      qc.setQueriesData<Image[]>({ queryKey: ['editor-sequence', projectId] }, (list) => list?.map((i) => (i.id === id ? { ...i, status: next } : i)));
    },
    [qc, projectId],
  );

  // A save that moved a new image to In progress.
  useEffect(
    () =>
      saver.onSaved((imageId, res) => {
        if (imageId === image.id && res.status_updated) remember(imageId, res.status);
      }),
    [saver, image.id, remember],
  );

  const setStage = useCallback(
    (next: ImageStatus) => {
      const id = image.id;
      const before = status;
      if (next === before) return;
      setKnown({ id, status: next });
      setBusy(true);
      api
        .updateImageStatus(id, orgId, next)
        .then((res) => {
          remember(id, res.image.status);
          toast(`${image.filename} set to ${stageLabel(res.image.status)}`, 'success', MESSAGE_MS);
          void qc.invalidateQueries({ queryKey: projectKey(projectId) });
          useDataView.getState().reload();
        })
        .catch((err: unknown) => {
          setKnown((k) => (k && k.id === id ? { id, status: before } : k));
          toast(serverMessage(err, 'Failed to update image status. Please try again.'), 'danger', 5000);
        })
        .finally(() => setBusy(false));
    },
    [image.id, image.filename, status, orgId, projectId, qc, remember],
  );

  const openPicker = useCallback(() => (deniedReason ? toast(deniedReason, 'neutral', MESSAGE_MS) : setOpen(true)), [deniedReason]);
  return { status, busy, open, setOpen, setStage, openPicker, deniedReason };
}
