// React bindings for the engine facade: each hook re-renders only on the kind of change it reads.
import { useCallback, useSyncExternalStore } from 'react';
import type { CameraState, Editor, ViewState } from '../../../engine';

export function useEditorView(editor: Editor): ViewState {
  const subscribe = useCallback((cb: () => void) => editor.subscribe((c) => c.view && cb()), [editor]);
  return useSyncExternalStore(subscribe, () => editor.getView());
}

/** Increments on every document change. */
export function useDocumentVersion(editor: Editor): number {
  const subscribe = useCallback((cb: () => void) => editor.subscribe((c) => c.document && cb()), [editor]);
  return useSyncExternalStore(subscribe, () => editor.documentVersion);
}

export function useCamera(editor: Editor): CameraState {
  const subscribe = useCallback((cb: () => void) => editor.subscribe((c) => c.camera && cb()), [editor]);
  return useSyncExternalStore(subscribe, () => editor.getCamera());
}
