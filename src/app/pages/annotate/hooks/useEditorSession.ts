// The editor screen's session (src/app/editor-session): one per project shown, started while the
// screen is, told whether the user's role may edit; and the readers of what React draws from it
// (the document's view and version, Auto-Annotate's state, Copy Previous's wait, whether changes
// are still gathering).
import { useEffect, useLayoutEffect, useMemo, useSyncExternalStore } from 'react';
import { roleCan } from '../../../../contract/permissions';
import { Editor } from '../../../../engine';
import { EditorSession } from '../../../editor-session/session';
import { deniedReason, ROLE_LABEL } from '../../../stores/permissions';
import { useSession } from '../../../stores/session';
import { useAutoState } from '../AutoAnnotateBar';
import { useDocumentVersion, useEditorView } from '../useEditor';

export interface EditorAccess {
  /** A role without annotations.write: the same screen, read only (the engine refuses edits). */
  readOnly: boolean;
  /** Why this role may not edit (null when it may). */
  viewOnlyReason: string | null;
  /** Why this role may not set the image's stage (null when it may). */
  stageDeniedReason: string | null;
}

export function useEditorSession(projectId: string, orgId: string): { session: EditorSession; access: EditorAccess } {
  // The Editor (and so the canvas's renderer) lives as long as the screen, across projects.
  const editor = useMemo(() => new Editor(), []);
  const session = useMemo(() => new EditorSession({ projectId, orgId, editor }), [projectId, orgId, editor]);
  useEffect(() => session.start(), [session]);
  useEffect(() => () => session.dispose(), [session]);
  // The role in this project's organization decides whether the editor may change anything.
  const role = useSession((s) => s.organizations.find((o) => o.id === orgId)?.user_role ?? null);
  const readOnly = !role || !roleCan(role, 'annotations.write');
  const roleLabel = role ? ROLE_LABEL[role] : 'member';
  useLayoutEffect(() => session.setReadOnly(readOnly), [session, readOnly]);
  const access = useMemo(
    () => ({
      readOnly,
      viewOnlyReason: readOnly ? deniedReason(roleLabel, 'edit annotations') : null,
      stageDeniedReason: role && roleCan(role, 'images.stage') ? null : deniedReason(roleLabel, 'set the stage'),
    }),
    [readOnly, role, roleLabel],
  );
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
