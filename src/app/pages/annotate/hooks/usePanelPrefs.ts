// The editor's layout preferences, kept in browser storage: the Annotations sidebar collapsed or
// not, and the transparency of the shapes (on the user's editor and on a version's preview).
import { useCallback, useEffect, useState } from 'react';
import type { EditorSession } from '../../../editor-session/session';
import { readStorage, writeStorage } from '../../../lib/storage';

const SIDEBAR_KEY = 'vellum.editorSidebarCollapsed';
const TRANSPARENCY_KEY = 'vellum.editorTransparency';

export function usePanelPrefs(session: EditorSession) {
  const [collapsed, setCollapsed] = useState(() => readStorage<boolean>(SIDEBAR_KEY, false));
  const [transparency, setTransparency] = useState(() => readStorage<number>(TRANSPARENCY_KEY, 50));
  const expandSidebar = useCallback(() => {
    setCollapsed(false);
    writeStorage(SIDEBAR_KEY, false);
  }, []);
  const toggleSidebar = () => {
    setCollapsed((c) => {
      writeStorage(SIDEBAR_KEY, !c);
      return !c;
    });
  };
  const changeTransparency = (v: number) => {
    setTransparency(v);
    writeStorage(TRANSPARENCY_KEY, v);
  };
  // Both editors (the user's and the version preview's) draw shapes with the chosen transparency.
  useEffect(() => {
    session.editor.setTransparency(transparency);
    session.history.previewEditor.setTransparency(transparency);
  }, [session, transparency]);
  return { collapsed, expandSidebar, toggleSidebar, transparency, changeTransparency };
}
