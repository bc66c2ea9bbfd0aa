// The editor screen's session (src/app/editor-session): one per project shown, started while the
// screen is, following the member's role in the project's organization (what it allows is the
// session's: editor-session/access.ts); and the readers of what React draws from it (the role's
// access, the document's view and version, Auto-Annotate's state, Copy Previous's wait, whether
// changes are still gathering).
import { useEffect, useLayoutEffect, useMemo, useSyncExternalStore } from 'react';
import { Editor } from '../../../../engine';
import type { EditorAccess } from '../../../editor-session/access';
import { EditorSession } from '../../../editor-session/session';
import { memberRole } from '../../../stores/permissions';
import { useAutoState } from '../AutoAnnotateBar';
import { useDocumentVersion, useEditorView } from '../useEditor';

export type { EditorAccess };

export function useEditorSession(projectId: string, orgId: string): { session: EditorSession; access: EditorAccess } {
  // The Editor (and so the canvas's renderer) lives as long as the screen, across projects.
  const editor = useMemo(() => new Editor(), []);
  const session = useMemo(() => new EditorSession({ projectId, orgId, editor, role: memberRole(orgId) }), [projectId, orgId, editor]);
  // Before the screen paints: the engine refuses edits at once for a role that may not make them.
  useLayoutEffect(() => session.followRole(), [session]);
  useEffect(() => session.start(), [session]);
  useEffect(() => () => session.dispose(), [session]);
  const access = useSyncExternalStore(session.access.subscribe, session.access.get);
  return { session, access };
}

/** True while changes wait in the save link's short gathering window. */
export function useGathering(session: EditorSession): boolean {
  return useSyncExternalStore(session.subscribeGathering, session.isGathering);
}

/** What React draws from the session's editor: its view, its document's version, Auto-Annotate's state, Copy Previous's wait. */
export function useSessionView(session: EditorSession) {
  return {
    view: useEditorView(session.editor),
    documentVersion: useDocumentVersion(session.editor),
    autoState: useAutoState(session.auto),
    copyingPrevious: useSyncExternalStore(session.subscribeCopyingPrevious, session.isCopyingPrevious),
  };
}
