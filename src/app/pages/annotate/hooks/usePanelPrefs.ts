// The editor's layout preferences, kept in browser storage: the Annotations sidebar collapsed or
// not, and the transparency of the shapes (on the user's editor and on a version's preview).
import { useCallback, useEffect, useState } from 'react';
import type { Editor } from '../../../../engine';
import { readStorage, writeStorage } from '../../../lib/storage';

const SIDEBAR_KEY = 'vellum.editorSidebarCollapsed';
const TRANSPARENCY_KEY = 'vellum.editorTransparency';

export function usePanelPrefs() {
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
  return { collapsed, expandSidebar, toggleSidebar, transparency, changeTransparency };
}

/** Both editors draw shapes with the chosen transparency. */
export function useTransparency(editor: Editor, previewEditor: Editor, transparency: number): void {
  useEffect(() => {
    editor.setTransparency(transparency);
    previewEditor.setTransparency(transparency);
  }, [editor, previewEditor, transparency]);
}
