// The editor's layout preferences, as React reads them: the sidebar collapsed or not, the
// shapes' transparency and the predictions' score filter are the session's
// (src/app/editor-session/panelPrefs.ts, kept in browser storage); this applies the transparency
// and the score to both the user's and the preview's editor.
import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import type { EditorSession } from '../../../editor-session/session';
import { PanelPrefs } from '../../../editor-session/panelPrefs';

export function usePanelPrefs(session: EditorSession) {
  const [prefs] = useState(() => new PanelPrefs());
  const { collapsed, transparency, minScore } = useSyncExternalStore(prefs.subscribe, prefs.getState);
  useEffect(() => prefs.applyTransparency([session.editor, session.history.previewEditor]), [prefs, session, transparency]);
  useEffect(() => prefs.applyMinScore([session.editor, session.history.previewEditor]), [prefs, session, minScore]);
  const actions = useMemo(
    () => ({
      expandSidebar: () => prefs.expandSidebar(),
      toggleSidebar: () => prefs.toggleSidebar(),
      changeTransparency: (v: number) => prefs.changeTransparency(v),
      changeMinScore: (v: number) => prefs.changeMinScore(v),
    }),
    [prefs],
  );
  return { collapsed, transparency, minScore, ...actions };
}
