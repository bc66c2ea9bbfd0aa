// The editor screen's keyboard: one window listener for the hotkeys (../hotkeys), the engine's own
// keys (drawing, W/A/S/D, Space; Auto-Annotate's Enter and Esc are its engine tool's). The class
// keys (1-9, C), Alt+↓/↑ (the walk through the shapes) and Shift+S come before the engine; Enter
// opens the Attributes panel only when the tool did not take it. Tab is left to the browser, so it
// always leaves the canvas, predictions pending or not (issue 37: no keyboard trap). While an
// earlier version is shown (./useHistoryView), Esc goes back, keys that look act on the preview's
// editor and keys that edit are refused with a word why. The commands themselves are the session's
// (src/app/editor-session/session.ts).
import { useCallback, useEffect, useRef } from 'react';
import type { EditorSession } from '../../../editor-session/session';
import { openAttributesPanel } from '../AttributesPanel';
import { isSingleCharacterKey, isTypingTarget, resolveAppFirstHotkey, resolveModifiedHotkey, resolvePlainHotkey, TOOL_LABELS, translateKey, type EditorToolId, type HotkeyAction, type KeyLike } from '../hotkeys';
import { useShortcuts } from './useShortcuts';

export interface EditorKeysOptions {
  /** Does the commands (src/app/editor-session/session.ts); knows whether a version is shown. */
  session: EditorSession;
  imageId: string;
  chooseTool(tool: EditorToolId): void;
  goPrevious(): void;
  goNext(): void;
  toggleHistory(fromKeyboard: boolean): void;
  /** 1-9: the n-th class for new shapes, or the selection relabelled to it. */
  classByNumber?(n: number): void;
  /** C / Shift+C. */
  cycleClass?(step: 1 | -1): void;
  /** Shift+S: open the stage picker. */
  openStage?(): void;
}

/** The tool and class of the last shape drawn (or Auto-Annotate mask accepted), for N. */
function useLastDrawn(session: EditorSession) {
  const last = useRef<{ tool: EditorToolId; cls: string | null } | null>(null);
  useEffect(() => {
    const { editor } = session;
    const offs = [
      editor.onEvent((e) => {
        const v = editor.getView();
        if (e.type === 'created' && v.tool in TOOL_LABELS) last.current = { tool: v.tool as EditorToolId, cls: v.activeClass };
      }),
      editor.auto.onAccepted((e) => (last.current = { tool: 'auto', cls: e.class })),
    ];
    return () => offs.forEach((off) => off());
  }, [session]);
  return last;
}

/**
 * Keys no editor shortcut may take (issue 37): with the person's single-key shortcuts off, every
 * single-character key; and Space anywhere but on the canvas (a focused button or option presses).
 */
function keyLeftAlone(e: KeyboardEvent, t: HTMLElement | null): boolean {
  if (e.key === ' ') return t?.tagName !== 'CANVAS';
  return isSingleCharacterKey(e) && !useShortcuts.getState().shortcuts.enabled;
}

/** The key and its modifiers (a KeyboardEvent's are getters: a spread would lose them). */
function pick(e: KeyLike) {
  return { key: e.key, shiftKey: !!e.shiftKey, ctrlKey: !!e.ctrlKey, metaKey: !!e.metaKey, altKey: !!e.altKey };
}

// Long because it is one window listener: the order in which the class keys, the engine, the app's
// hotkeys and the preview take a key is the point, and it reads best in one place.
export function useEditorKeys({ session, imageId, chooseTool, goPrevious, goNext, toggleHistory, classByNumber, cycleClass, openStage }: EditorKeysOptions): void {
  const { editor, history } = session;
  const previewEditor = history.previewEditor;
  const lastDrawn = useLastDrawn(session);

  const run = useCallback(
    (a: HotkeyAction) => {
      // While an earlier version is shown, keys that look act on it and keys that edit do nothing
      // but say why (the session's commands know).
      switch (a.type) {
        case 'tool':
          if (history.isPreviewing()) return a.tool === 'select' ? undefined : void session.refusedWhilePreviewing();
          return chooseTool(a.tool);
        case 'previous':
          return goPrevious();
        case 'next':
          return goNext();
        case 'undo':
          return session.undo();
        case 'redo':
          return session.redo();
        case 'select-all':
          return session.selectAll();
        case 'copy':
          return session.copy(imageId);
        case 'paste':
          return session.paste(imageId);
        case 'hide':
          return session.hide();
        case 'hide-selection':
          return session.hideSelection();
        case 'history':
          return toggleHistory(true);
        case 'class-number':
          return session.refusedWhilePreviewing() ? undefined : classByNumber?.(a.n);
        case 'cycle-class':
          return session.refusedWhilePreviewing() ? undefined : cycleClass?.(a.step);
        case 'select-next':
          return void session.selectNext(a.step);
        case 'attributes':
          return void openAttributesPanel();
        case 'stage':
          return openStage?.();
        case 'repeat': {
          const last = lastDrawn.current;
          if (!last || session.refusedWhilePreviewing()) return;
          chooseTool(last.tool);
          if (last.cls) editor.setActiveClass(last.cls);
          return;
        }
      }
    },
    [session, editor, history, imageId, chooseTool, goPrevious, goNext, toggleHistory, classByNumber, cycleClass, openStage, lastDrawn],
  );

  useEffect(() => {
    const waiting = (a: HotkeyAction) => !session.documentReady && a.type !== 'previous' && a.type !== 'next' && a.type !== 'tool' && a.type !== 'history' && a.type !== 'stage';
    /** The keys taken before the engine; Alt+↓/↑ walk the shapes unless the keyboard's drawing cursor (which they move finely) is shown. */
    const appFirst = (e: KeyLike & { preventDefault(): void }, on: typeof editor): boolean => {
      const a = resolveAppFirstHotkey(e);
      if (!a) return false;
      if (a.type === 'select-next') {
        if (on.getView().keyCursor || !session.documentReady) return false;
        e.preventDefault();
        session.selectNext(a.step);
        return true;
      }
      e.preventDefault();
      if (!waiting(a)) run(a);
      return true;
    };
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || isTypingTarget(event.target)) return;
      const t = event.target as HTMLElement | null;
      // Open dialogs, menus and the settings panel keep their own keys.
      if (t && typeof t.closest === 'function' && t.closest('[role="dialog"], [role="menu"], [role="alertdialog"]')) return;
      if (document.querySelector('[role="dialog"][data-state="open"], [role="alertdialog"]')) return;
      if (keyLeftAlone(event, t)) return;
      // The person's own keys become the keys out of the box, which everything below knows.
      const key = translateKey(event, useShortcuts.getState().shortcuts);
      if (!key) return;
      const e = { ...pick(key), preventDefault: () => event.preventDefault() };
      if (history.isPreviewing()) {
        // An earlier version is shown: Esc goes back, and the preview's read-only editor takes the
        // view keys (W/A/S/D, Space); the user's editor gets none of them.
        const plainKey = !e.ctrlKey && !e.metaKey && !e.altKey && !e.shiftKey;
        if (e.key === 'Escape' && plainKey) {
          e.preventDefault();
          history.leave();
          return;
        }
        const modified = resolveModifiedHotkey(e);
        if (modified) {
          e.preventDefault();
          run(modified);
          return;
        }
        if ((e.key === 'Enter' || e.key === ' ') && t?.closest?.('button, a, [role="option"]')) return;
        if (appFirst(e, previewEditor)) return;
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
      if (appFirst(e, editor)) return;
      if (session.documentReady && editor.keyDown(e)) {
        e.preventDefault();
        return;
      }
      const plain = resolvePlainHotkey(e);
      if (plain && !waiting(plain)) {
        e.preventDefault();
        run(plain);
      }
    };
    const onKeyUp = (event: KeyboardEvent) => {
      // A held key (W/A/S/D pan) is let go under the same translation as it was pressed.
      const key = translateKey(event, useShortcuts.getState().shortcuts);
      if (!key) return;
      editor.keyUp(pick(key));
      previewEditor.keyUp(pick(key));
    };
    window.addEventListener('keydown', onKeyDown);
    window.addEventListener('keyup', onKeyUp);
    return () => {
      window.removeEventListener('keydown', onKeyDown);
      window.removeEventListener('keyup', onKeyUp);
    };
  }, [session, editor, history, previewEditor, run]);
}
