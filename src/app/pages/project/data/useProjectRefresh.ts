// The Data tab's grid and counts follow imports (issue 30): when an import into the project ends,
// started in this tab, another tab or by another person, the live socket says `project_changed`
// (src/server/live/notify.ts), and the tab reloads its image list (kept on screen meanwhile), the
// folder tree and the project's counts. After the socket reconnects it reloads too, since what
// ended while it was down is not known.
import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { getLiveClient } from '../../../sync/live';
import { projectKey } from '../../../stores/projectQueries';
import { useDataView } from '../../../stores/dataView';
import { foldersKey } from './folders';

export function useProjectRefresh(projectId: string): void {
  const qc = useQueryClient();
  useEffect(
    () =>
      getLiveClient().watchProject(projectId, () => {
        useDataView.getState().reload();
        void qc.invalidateQueries({ queryKey: foldersKey(projectId) });
        void qc.invalidateQueries({ queryKey: projectKey(projectId) });
      }),
    [projectId, qc],
  );
}
