// The image's stage in the editor's top bar (issue 19), as React reads it: the stage itself (set at
// once, rolled back when refused, followed after a save) is the session's
// (src/app/editor-session/imageStage.ts); this keeps the caches in step: the editor's cached image
// and sequence, the project's counts and the Data tab's list learn the new stage, so a reload or
// going back shows it.
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useSyncExternalStore } from 'react';
import type { Image, ImageStatus } from '../../../../contract/images';
import { ImageStage as StageModel } from '../../../editor-session/imageStage';
import { useDataView } from '../../../stores/dataView';
import { projectKey } from '../../../stores/projectQueries';
import type { SaveManager } from '../../../sync/save';

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
  const model = useMemo(() => new StageModel({ orgId, saver }), [orgId, saver]);
  const { busy, open } = useSyncExternalStore(model.subscribe, model.getState);
  const status = model.statusOf(image);

  useEffect(() => model.show(image.id, image.status), [model, image.id, image.status]);
  // A save that moved a new image to In progress, or found it moved there by a co-editor.
  useEffect(() => model.start(), [model]);
  // Every cached copy of the image takes the stage; one the server accepted reaches the counts and the list.
  useEffect(() => {
    const offs = [
      model.onLearnt((id, next) => {
        qc.setQueriesData<Image | null>({ queryKey: ['editor-image', projectId] }, (img) => (img && img.id === id ? { ...img, status: next } : img));
        qc.setQueriesData<Image[]>({ queryKey: ['editor-sequence', projectId] }, (list) => list?.map((i) => (i.id === id ? { ...i, status: next } : i)));
      }),
      model.onConfirmed(() => {
        void qc.invalidateQueries({ queryKey: projectKey(projectId) });
        useDataView.getState().reload();
      }),
    ];
    return () => offs.forEach((off) => off());
  }, [model, qc, projectId]);

  const setOpen = useCallback((next: boolean) => model.setOpen(next), [model]);
  const setStage = useCallback((next: ImageStatus) => void model.setStage(image, next), [model, image]);
  const openPicker = useCallback(() => model.openPicker(deniedReason), [model, deniedReason]);
  return { status, busy, open, setOpen, setStage, openPicker, deniedReason };
}
