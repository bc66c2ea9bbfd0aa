// The editor screen's session (src/app/editor-session): one per project shown, started while the
// screen is, and readers of what React draws from it (whether changes are still gathering).
import { useEffect, useMemo, useSyncExternalStore } from 'react';
import { Editor } from '../../../../engine';
import { EditorSession } from '../../../editor-session/session';

export function useEditorSession(projectId: string, orgId: string): EditorSession {
  // The Editor (and so the canvas's renderer) lives as long as the screen, across projects.
  const editor = useMemo(() => new Editor(), []);
  const session = useMemo(() => new EditorSession({ projectId, orgId, editor }), [projectId, orgId, editor]);
  useEffect(() => session.start(), [session]);
  useEffect(() => () => session.dispose(), [session]);
  return session;
}

/** True while changes wait in the save link's short gathering window. */
export function useGathering(session: EditorSession): boolean {
  return useSyncExternalStore(session.subscribeGathering, session.isGathering);
}
