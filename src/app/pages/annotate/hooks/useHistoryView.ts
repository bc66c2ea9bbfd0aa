// The editor screen's History view (issue 14), as React reads it: the preview of an earlier
// version and its restore are the session's (src/app/editor-session/history.ts); this keeps what
// is the screen's own: whether the sidebar shows the versions (kept in browser storage), the list
// of versions (a query), and where the focus goes when the preview's banner goes away.
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useState, useSyncExternalStore } from 'react';
import type { EditorSession } from '../../../editor-session/session';
import { readStorage, writeStorage } from '../../../lib/storage';
import { historyKey, useImageHistory } from '../HistoryPanel';
import { useDocumentVersion, useEditorView } from '../useEditor';

const HISTORY_KEY = 'vellum.editorHistoryOpen';

export interface HistoryViewOptions {
  session: EditorSession;
  imageId: string;
  projectId: string;
  /** The sidebar is collapsed: opening the history opens it. */
  collapsed: boolean;
  expandSidebar(): void;
}

export function useHistoryView({ session, imageId, projectId, collapsed, expandSidebar }: HistoryViewOptions) {
  const { history } = session;
  const qc = useQueryClient();
  const [historyOpen, setHistoryOpen] = useState(() => readStorage<boolean>(HISTORY_KEY, false));
  // The History view was opened from the keyboard: its list takes the focus.
  const [historyFocus, setHistoryFocus] = useState(false);
  const state = useSyncExternalStore(history.subscribe, history.getState);
  const previewView = useEditorView(history.previewEditor);
  const previewDocumentVersion = useDocumentVersion(history.previewEditor);
  const previewing = state.preview !== null;
  const versions = useImageHistory(imageId, projectId, (historyOpen && !collapsed) || previewing, historyOpen && !collapsed);

  // Another image: its own history, nothing shown.
  useEffect(() => {
    history.setImage(imageId);
    return () => history.leaveImage(imageId);
  }, [history, imageId]);
  // The preview's document is dropped once its canvas is gone.
  useEffect(() => history.dropDocument(), [history, state.shown]);
  useEffect(() => history.onStale((id) => void qc.invalidateQueries({ queryKey: historyKey(id) })), [history, qc]);
  useEffect(() => history.setPreviewEnds(() => (focusLeavesWithPreview() ? focusAfterPreview : undefined)), [history]);

  const toggleHistory = useCallback(
    (fromKeyboard: boolean) => {
      // Collapsed: the sidebar opens on the history.
      const open = collapsed || !historyOpen;
      if (collapsed) expandSidebar();
      setHistoryOpen(open);
      writeStorage(HISTORY_KEY, open);
      setHistoryFocus(open && fromKeyboard);
    },
    [collapsed, historyOpen, expandSidebar],
  );

  return {
    history,
    state,
    /** A version is asked for or shown (editing is off). */
    previewing,
    /** A version is on the canvas: the zoom, the settings and the list work on it. */
    previewShown: state.shown !== null,
    previewView,
    previewDocumentVersion,
    versions,
    /** The history's newest version (null until it is known). */
    currentVersion: versions.data?.pages[0]?.version ?? null,
    historyOpen,
    historyFocus,
    toggleHistory,
  };
}

/** The focus is on the preview's banner (or nowhere), which goes away with the preview. */
function focusLeavesWithPreview(): boolean {
  const active = document.activeElement;
  return !active || active === document.body || (active instanceof HTMLElement && Boolean(active.closest('[data-version-banner]')));
}

/** After the preview: the focus goes to the history's current entry (or the canvas), not to the page. */
function focusAfterPreview(): void {
  requestAnimationFrame(() => {
    const target = document.querySelector<HTMLElement>('[role="listbox"][aria-label="Versions"] [role="option"][tabindex="0"]') ?? document.querySelector<HTMLElement>('[data-testid="editor-canvas"]');
    target?.focus();
  });
}
