// The person's single-key shortcuts (issue 37, WCAG 2.1.4): on or off, and the tools' keys, kept
// with their profile on the server (GET/PUT /api/v1/users/me/preferences) so they follow them to
// every device. One store the window's key listeners read as a key comes (useEditorKeys,
// useWorkflowKeys) and the palette and the Hotkeys tab show.
import { useEffect } from 'react';
import { create } from 'zustand';
import { api, serverMessage } from '../../../api/client';
import { DEFAULT_EDITOR_SHORTCUTS, DEFAULT_TOOL_KEYS, SHORTCUT_TOOL_LABELS, shortcutClash, type EditorShortcuts, type ShortcutTool } from '../../../../contract/preferences';

interface ShortcutsState {
  shortcuts: EditorShortcuts;
  /** The person's own shortcuts were read (until then, the defaults). */
  loaded: boolean;
}

export const useShortcuts = create<ShortcutsState>(() => ({ shortcuts: DEFAULT_EDITOR_SHORTCUTS, loaded: false }));

/** Reads the person's shortcuts once the editor opens (a failure keeps the defaults). */
export function useLoadShortcuts(): void {
  useEffect(() => {
    let live = true;
    api
      .getPreferences()
      .then((r) => live && useShortcuts.setState({ shortcuts: r.preferences.editor_shortcuts, loaded: true }))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);
}

/** Saves `next`; the answer is an error message (a clash, or the server's refusal), or null when saved. */
async function save(next: EditorShortcuts): Promise<string | null> {
  const before = useShortcuts.getState().shortcuts;
  useShortcuts.setState({ shortcuts: next });
  try {
    const r = await api.savePreferences({ editor_shortcuts: next });
    useShortcuts.setState({ shortcuts: r.preferences.editor_shortcuts, loaded: true });
    return null;
  } catch (err) {
    useShortcuts.setState({ shortcuts: before });
    return serverMessage(err, 'Your shortcuts could not be saved. Try again.');
  }
}

export function setShortcutsEnabled(enabled: boolean): Promise<string | null> {
  return save({ ...useShortcuts.getState().shortcuts, enabled });
}

/** Gives `tool` the key `key`; a key another tool or a fixed shortcut has is refused with a message. */
export function remapToolKey(tool: ShortcutTool, key: string): Promise<string | null> {
  const lower = key.toLowerCase();
  if (!/^[\x21-\x7e]$/.test(lower)) return Promise.resolve('A shortcut is one key: a letter, a digit or a sign.');
  const current = useShortcuts.getState().shortcuts;
  const tool_keys = { ...current.tool_keys, [tool]: lower };
  const clash = shortcutClash(tool_keys, SHORTCUT_TOOL_LABELS, tool);
  if (clash) return Promise.resolve(`${clash}.`);
  return save({ ...current, tool_keys });
}

export function resetShortcuts(): Promise<string | null> {
  return save({ enabled: true, tool_keys: { ...DEFAULT_TOOL_KEYS } });
}
