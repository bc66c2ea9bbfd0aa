// The editor screen's keyboard: one window listener for the hotkeys (../hotkeys), the engine's own
// keys (drawing, W/A/S/D, Space; Auto-Annotate's Enter and Esc are its engine tool's). The class
// keys (1-9, C), Tab and Shift+S come before the engine; Enter opens the Attributes panel only when
// the tool did not take it. Tab walks the shapes only from the canvas (or nowhere in particular),
// and past the list's last shape it moves focus on as usual. While an earlier version is shown
// (./useHistoryView), Esc goes back, keys that look act on the preview's editor and keys that edit
// are refused with a word why.
import { useCallback, useEffect, useRef, type RefObject } from 'react';
import type { Editor } from '../../../../engine';
import { toast } from '../../../stores/toast';
import { openAttributesPanel } from '../AttributesPanel';
import { nextInList } from '../classKeys';
import { isTypingTarget, resolveAppFirstHotkey, resolveModifiedHotkey, resolvePlainHotkey, type EditorToolId, type HotkeyAction } from '../hotkeys';
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
  /** 1-9: the n-th class for new shapes, or the selection relabelled to it. */
  classByNumber?(n: number): void;
  /** C / Shift+C. */
  cycleClass?(step: 1 | -1): void;
  /** Shift+S: open the stage picker. */
  openStage?(): void;
}

/** Tab walks the shapes when focus is on the canvas or on nothing in particular; elsewhere it moves focus. */
function tabWalksShapes(t: HTMLElement | null): boolean {
  if (!t || t === document.body || t === document.documentElement) return true;
  return t.tagName === 'CANVAS';
}

/** Selects the shape after (before) the selection in the annotation list's order; false past the end. */
function selectNext(editor: Editor, step: 1 | -1): boolean {
  const view = editor.getView();
  if (view.drawing) return false;
  const listOrder = [...editor.paintOrder()].reverse();
  const id = nextInList(listOrder, view.selected, view.hidden, step);
  if (!id) return false;
  editor.select([id]);
  editor.bringIntoView(id);
  return true;
}

// Long because it is one window listener: the order in which the class keys, the engine, the app's
// hotkeys and the preview take a key is the point, and it reads best in one place.
export function useEditorKeys({ editor, previewEditor, previewing, documentReady, chooseTool, goPrevious, goNext, copy, paste, toggleHistory, leavePreview, classByNumber, cycleClass, openStage }: EditorKeysOptions): void {
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
        case 'class-number':
          return viewing ? refuseEdit() : classByNumber?.(a.n);
        case 'cycle-class':
          return viewing ? refuseEdit() : cycleClass?.(a.step);
        case 'select-next':
          return void selectNext(target, a.step);
        case 'attributes':
          return void openAttributesPanel();
        case 'stage':
          return openStage?.();
      }
    },
    [chooseTool, goPrevious, goNext, editor, previewEditor, copy, paste, toggleHistory, refuseEdit, classByNumber, cycleClass, openStage],
  );

  const leaveRef = useRef(leavePreview);
  leaveRef.current = leavePreview;
  useEffect(() => {
    const waiting = (a: HotkeyAction) => !documentReady.current && a.type !== 'previous' && a.type !== 'next' && a.type !== 'tool' && a.type !== 'history' && a.type !== 'stage';
    /** The keys taken before the engine; Tab only where it walks the shapes and there is one to go to. */
    const appFirst = (e: KeyboardEvent, t: HTMLElement | null, on: Editor): boolean => {
      const a = resolveAppFirstHotkey(e);
      if (!a) return false;
      if (a.type === 'select-next') {
        if (!tabWalksShapes(t) || !documentReady.current || !selectNext(on, a.step)) return false;
        e.preventDefault();
        return true;
      }
      e.preventDefault();
      if (!waiting(a)) run(a);
      return true;
    };
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
        if (appFirst(e, t, previewEditor)) return;
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
      if (appFirst(e, t, editor)) return;
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
