// The person's single-key shortcuts (issue 37, WCAG 2.1.4): on or off, and each one's key, kept
// with their profile on the server (GET/PUT /api/v1/users/me/preferences) so they follow them to
// every device. One store the window's key listeners read as a key comes (useEditorKeys,
// useWorkflowKeys) and the palette and the Hotkeys tab show. This device also keeps the last copy
// it read or saved, per person, so a key pressed the moment the editor opens (before the server
// answers) already means what the person made it mean.
import { useEffect } from 'react';
import { create } from 'zustand';
import { api, serverMessage } from '../../../api/client';
import { readStorage, writeStorage } from '../../../lib/storage';
import { useSession } from '../../../stores/session';
import { DEFAULT_ACTION_KEYS, DEFAULT_EDITOR_SHORTCUTS, DEFAULT_TOOL_KEYS, EditorShortcuts, SHORTCUT_TOOLS, shortcutClash, shortcutKeyLabel, type ShortcutAction, type ShortcutTool } from '../../../../contract/preferences';

interface ShortcutsState {
  shortcuts: EditorShortcuts;
  /** The person's own shortcuts were read from the server (until then, this device's copy or the defaults). */
  loaded: boolean;
  /** Whose shortcuts these are (null: nobody's yet, the defaults). */
  userId: string | null;
}

export const useShortcuts = create<ShortcutsState>(() => ({ shortcuts: DEFAULT_EDITOR_SHORTCUTS, loaded: false, userId: null }));

/**
 * The key of the single-key shortcut `id` as this person has it, as they read it (Shift+R, V, 4),
 * for hints and aria-keyshortcuts; null while single-key shortcuts are off (the key does nothing).
 */
export function useShortcutLabel(id: ShortcutAction): string | null {
  return useShortcuts((s) => (s.shortcuts.enabled ? shortcutKeyLabel(s.shortcuts.action_keys[id]) : null));
}

/** This device's copy of a person's shortcuts (validated when read: storage is anyone's to edit). */
const cacheKey = (userId: string) => `vellum.shortcuts.${userId}`;

function cachedShortcuts(userId: string): EditorShortcuts | null {
  const parsed = EditorShortcuts.safeParse(readStorage<unknown>(cacheKey(userId), null));
  return parsed.success ? parsed.data : null;
}

/** The person's shortcuts as the server answered or took them: in force at once, and kept on this device. */
function adopt(shortcuts: EditorShortcuts): void {
  const userId = useSession.getState().user?.id ?? null;
  useShortcuts.setState({ shortcuts, loaded: true, userId });
  if (userId) writeStorage(cacheKey(userId), shortcuts);
}

/**
 * Reads the person's shortcuts once the editor opens: this device's copy at once (another person's
 * never), then the server's (a failure keeps what is in force).
 */
export function useLoadShortcuts(): void {
  const userId = useSession((s) => s.user?.id ?? null);
  useEffect(() => {
    if (!userId) return;
    let live = true;
    // A person's own keys already in force (an editor opened before in this tab) stay until the server answers.
    if (useShortcuts.getState().userId !== userId) useShortcuts.setState({ shortcuts: cachedShortcuts(userId) ?? DEFAULT_EDITOR_SHORTCUTS, loaded: false, userId });
    api
      .getPreferences()
      .then((r) => live && useSession.getState().user?.id === userId && adopt(r.preferences.editor_shortcuts))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [userId]);
}

/** Saves `next`; the answer is an error message (a clash, or the server's refusal), or null when saved. */
async function save(next: EditorShortcuts): Promise<string | null> {
  const before = useShortcuts.getState().shortcuts;
  useShortcuts.setState({ shortcuts: next });
  try {
    const r = await api.savePreferences({ editor_shortcuts: next });
    adopt(r.preferences.editor_shortcuts);
    return null;
  } catch (err) {
    useShortcuts.setState({ shortcuts: before });
    return serverMessage(err, 'Your shortcuts could not be saved. Try again.');
  }
}

export function setShortcutsEnabled(enabled: boolean): Promise<string | null> {
  return save({ ...useShortcuts.getState().shortcuts, enabled });
}

/**
 * Gives the shortcut `id` (a tool or another single-key shortcut) the key `key`, the character
 * pressed (an upper-case letter is Shift and the letter); a key another shortcut has is refused
 * with a message naming it.
 */
export function remapShortcutKey(id: ShortcutTool | ShortcutAction, key: string): Promise<string | null> {
  if (!/^[\x21-\x7e]$/.test(key)) return Promise.resolve('A shortcut is one key: a letter, a digit or a sign.');
  const current = useShortcuts.getState().shortcuts;
  const isTool = (SHORTCUT_TOOLS as readonly string[]).includes(id);
  const next: EditorShortcuts = isTool ? { ...current, tool_keys: { ...current.tool_keys, [id]: key } } : { ...current, action_keys: { ...current.action_keys, [id]: key } };
  const clash = shortcutClash(next, id);
  if (clash) return Promise.resolve(`${clash}.`);
  return save(next);
}

export function resetShortcuts(): Promise<string | null> {
  return save({ enabled: true, tool_keys: { ...DEFAULT_TOOL_KEYS }, action_keys: { ...DEFAULT_ACTION_KEYS } });
}
