// The editor screen's saving, as React reads it: the save manager's status, and what follows a
// save's (or a restore's) answer (the project page's counters, the sequence's statuses and the
// history). The link,
// its merges' and overlaps' messages and the flush when the page is hidden are the session's
// (src/app/editor-session/session.ts).
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useSyncExternalStore } from 'react';
import type { SaveDataResponse } from '../../../../contract/annotation-api';
import type { Image } from '../../../../contract/images';
import { projectKey } from '../../../stores/projectQueries';
import { historyKey } from '../HistoryPanel';
import { shownSaveStatus } from '../../../editor-session/saveStatus';
import type { EditorSession } from '../../../editor-session/session';
import { useGathering } from './useEditorSession';

export function useEditorSaving(session: EditorSession, projectId: string) {
  const qc = useQueryClient();
  const { saver } = session;
  const saveStatus = useSyncExternalStore(
    useCallback((cb: () => void) => saver.subscribe(cb), [saver]),
    () => saver.status(),
  );
  // True while changes wait in the link's short gathering window: the top bar must not say 'Saved' then.
  const gathering = useGathering(session);

  // The project page's counters, the sequence's statuses and the history follow a save's answer.
  const followSave = useCallback(
    (imageId: string, res: SaveDataResponse) => {
      if (res.status_updated) void qc.invalidateQueries({ queryKey: projectKey(projectId) });
      qc.setQueriesData<Image[]>({ queryKey: ['editor-sequence', projectId] }, (list) =>
        list?.map((i) => (i.id === imageId ? { ...i, status: res.status, annotation_count: res.new_count } : i)),
      );
      void qc.invalidateQueries({ queryKey: historyKey(imageId) });
    },
    [qc, projectId],
  );
  useEffect(() => saver.onSaved(followSave), [saver, followSave]);
  // A restore of an earlier version is a save too (src/app/editor-session/history.ts).
  useEffect(() => session.history.onRestored(followSave), [session, followSave]);

  // What the top bar shows: changes still gathering are unsaved, whatever the manager says.
  return { saveStatus, shownStatus: shownSaveStatus(saveStatus, gathering), gathering };
}
