// The editor screen's keyboard: one window listener for the hotkeys (../hotkeys), the engine's own
// keys (drawing, W/A/S/D, Space; Auto-Annotate's Enter and Esc are its engine tool's). While an earlier version is shown
// (./useHistoryView), Esc goes back, keys that look act on the preview's editor and keys that edit
// are refused with a word why.
import { useCallback, useEffect, useRef, type RefObject } from 'react';
import type { Editor } from '../../../../engine';
import { toast } from '../../../stores/toast';
import { isTypingTarget, resolveModifiedHotkey, resolvePlainHotkey, type EditorToolId, type HotkeyAction } from '../hotkeys';
import { PREVIEW_REASON } from '../VersionPreview';

/** As long as the screen's other short messages. */
const MESSAGE_MS = 2000;

export interface EditorKeysOptions {
  editor: Editor;
  /** The read-only editor of the version shown (../VersionPreview). */
  previewEditor: Editor;
  /** An earlier version is asked for or shown. */
  previewing: boolean;
  /** This image's document is in the editor: until then keys that act on it wait. */
  documentReady: RefObject<boolean>;
  chooseTool(tool: EditorToolId): void;
  goPrevious(): void;
  goNext(): void;
  /** Copies the selection of `from` (the preview's editor while a version is shown). */
  copy(from: Editor): void;
  paste(): void;
  toggleHistory(fromKeyboard: boolean): void;
  leavePreview(): void;
}

export function useEditorKeys({ editor, previewEditor, previewing, documentReady, chooseTool, goPrevious, goNext, copy, paste, toggleHistory, leavePreview }: EditorKeysOptions): void {
  const previewRef = useRef(previewing);
  previewRef.current = previewing;
  const refuseEdit = useCallback(() => toast(`Viewing an earlier version. ${PREVIEW_REASON}.`, 'neutral', MESSAGE_MS), []);

  const run = useCallback(
    (a: HotkeyAction) => {
      // While an earlier version is shown, keys that look act on it and keys that edit do nothing.
      const viewing = previewRef.current;
      const target = viewing ? previewEditor : editor;
      switch (a.type) {
        case 'tool':
          if (viewing) return a.tool === 'select' ? undefined : refuseEdit();
          return chooseTool(a.tool);
        case 'previous':
          return goPrevious();
        case 'next':
          return goNext();
        case 'undo':
          return viewing ? refuseEdit() : void editor.undo();
        case 'redo':
          return viewing ? refuseEdit() : void editor.redo();
        case 'select-all':
          return target.selectAll();
        case 'copy':
          return copy(target);
        case 'paste':
          return viewing ? refuseEdit() : paste();
        case 'hide':
          return target.getView().selected.size > 0 ? target.hideSelected() : target.toggleAll();
        case 'hide-selection':
          return target.hideSelected();
        case 'history':
          return toggleHistory(true);
      }
    },
    [chooseTool, goPrevious, goNext, editor, previewEditor, copy, paste, toggleHistory, refuseEdit],
  );

  const leaveRef = useRef(leavePreview);
  leaveRef.current = leavePreview;
  useEffect(() => {
    const waiting = (a: HotkeyAction) => !documentReady.current && a.type !== 'previous' && a.type !== 'next' && a.type !== 'tool' && a.type !== 'history';
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.defaultPrevented || isTypingTarget(e.target)) return;
      const t = e.target as HTMLElement | null;
      // Open dialogs, menus and the settings panel keep their own keys.
      if (t && typeof t.closest === 'function' && t.closest('[role="dialog"], [role="menu"], [role="alertdialog"]')) return;
      if (document.querySelector('[role="dialog"][data-state="open"], [role="alertdialog"]')) return;
      if (previewRef.current) {
        // An earlier version is shown: Esc goes back, and the preview's read-only editor takes the
        // view keys (W/A/S/D, Space); the user's editor gets none of them.
        const plainKey = !e.ctrlKey && !e.metaKey && !e.altKey && !e.shiftKey;
        if (e.key === 'Escape' && plainKey) {
          e.preventDefault();
          leaveRef.current();
          return;
        }
        const modified = resolveModifiedHotkey(e);
        if (modified) {
          e.preventDefault();
          run(modified);
          return;
        }
        if ((e.key === 'Enter' || e.key === ' ') && t?.closest?.('button, a, [role="option"]')) return;
        if (previewEditor.keyDown(e)) {
          e.preventDefault();
          return;
        }
        const plain = resolvePlainHotkey(e);
        if (plain) {
          e.preventDefault();
          run(plain);
        }
        return;
      }
      const modified = resolveModifiedHotkey(e);
      if (modified) {
        e.preventDefault();
        if (!waiting(modified)) run(modified);
        return;
      }
      // Enter on a focused button presses it, unless a shape is being drawn (Enter closes it).
      if (e.key === 'Enter' && t?.closest?.('button, a, [role="option"]') && !editor.getView().drawing) return;
      if (documentReady.current && editor.keyDown(e)) {
        e.preventDefault();
        return;
      }
      const plain = resolvePlainHotkey(e);
      if (plain && !waiting(plain)) {
        e.preventDefault();
        run(plain);
      }
    };
    const onKeyUp = (e: KeyboardEvent) => {
      editor.keyUp(e);
      previewEditor.keyUp(e);
    };
    window.addEventListener('keydown', onKeyDown);
    window.addEventListener('keyup', onKeyUp);
    return () => {
      window.removeEventListener('keydown', onKeyDown);
      window.removeEventListener('keyup', onKeyUp);
    };
  }, [editor, previewEditor, run, documentReady]);
}
