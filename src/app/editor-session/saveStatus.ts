// What the editor's top bar says about saving (pages/annotate/hooks/useEditorSaving.ts reads it):
// the save manager's status, except that changes still gathering in the save link's short window
// are unsaved, whatever the manager says.
import type { SaveStatus } from '../sync/save';

export function shownSaveStatus(status: SaveStatus, gathering: boolean): SaveStatus {
  return gathering && (status.state === 'saved' || status.state === 'conflict-merged') ? { ...status, state: 'pending', label: 'Unsaved changes' } : status;
}
