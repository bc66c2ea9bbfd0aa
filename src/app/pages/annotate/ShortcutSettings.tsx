// The Hotkeys tab's own settings (issue 37, WCAG 2.1.4): single-key shortcuts on or off, the key
// of each (the tools', then every other single-key shortcut, folded under "Other keys"; press the
// new key in its field, Shift and a letter included; a key already taken is refused with a word
// why), and back to the defaults. Kept with the person's profile (hooks/useShortcuts).
import { useState, type KeyboardEvent } from 'react';
import { shortcutKeyLabel, shortcutLabel, SHORTCUT_TOOLS, type ShortcutAction, type ShortcutTool } from '../../../contract/preferences';
import { Button } from '../../components/Button';
import { OTHER_SHORTCUT_GROUPS, pressedCharacter } from './hotkeys';
import { remapShortcutKey, resetShortcuts, setShortcutsEnabled, useShortcuts } from './hooks/useShortcuts';
import styles from './AnnotatePage.module.css';
import own from './SettingsPanel.module.css';

type ShortcutId = ShortcutTool | ShortcutAction;

export function ShortcutSettings() {
  const shortcuts = useShortcuts((s) => s.shortcuts);
  const [message, setMessage] = useState<{ text: string; refused: boolean } | null>(null);
  const done = (ok: string) => (error: string | null) => setMessage(error ? { text: error, refused: true } : { text: ok, refused: false });

  const keyOf = (id: ShortcutId) => (id in shortcuts.tool_keys ? shortcuts.tool_keys[id as ShortcutTool] : shortcuts.action_keys[id as ShortcutAction]);
  const remap = (id: ShortcutId, key: string) => void remapShortcutKey(id, key).then(done(`${shortcutLabel(id)}: ${shortcutKeyLabel(key)}`));
  const onKey = (id: ShortcutId) => (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key.length !== 1 || e.ctrlKey || e.metaKey || e.altKey) return;
    e.preventDefault();
    remap(id, pressedCharacter(e));
  };
  const field = (id: ShortcutId) => (
    <label key={id} className={own.keyRow}>
      <span>{shortcutLabel(id)}</span>
      <input
        className={own.keyField}
        value={shortcutKeyLabel(keyOf(id))}
        aria-label={`Key for ${shortcutLabel(id)}`}
        onKeyDown={onKey(id)}
        onChange={(e) => {
          const typed = e.target.value.slice(-1);
          if (typed) remap(id, typed);
        }}
      />
    </label>
  );

  return (
    <section className={own.section} aria-labelledby="shortcut-settings">
      <h3 id="shortcut-settings" className={own.sectionTitle}>Single-key shortcuts</h3>
      <label className={own.switchRow}>
        <span>Use single-key shortcuts</span>
        <input
          type="checkbox"
          role="switch"
          className={own.switch}
          checked={shortcuts.enabled}
          onChange={(e) => void setShortcutsEnabled(e.target.checked).then(done(e.target.checked ? 'Single-key shortcuts on' : 'Single-key shortcuts off'))}
        />
      </label>
      <p className={styles.note}>
        {shortcuts.enabled ? 'Press a new key in a field to change it (Shift and a letter too).' : 'Off: letters, digits and signs do nothing in the editor; Ctrl/⌘ combinations, the arrows, Enter and Esc still work.'}
      </p>
      {shortcuts.enabled ? (
        <>
          <div className={own.keyGrid} role="group" aria-label="Tools">
            {SHORTCUT_TOOLS.map(field)}
          </div>
          <details className={own.moreKeys}>
            <summary>Other keys</summary>
            {OTHER_SHORTCUT_GROUPS.map((g) => (
              <div key={g.group} role="group" aria-label={g.group}>
                <h4 className={own.keyGroup}>{g.group}</h4>
                <div className={own.keyGrid}>{g.ids.map(field)}</div>
              </div>
            ))}
          </details>
        </>
      ) : null}
      <p className={message?.refused ? own.refused : styles.note} role={message?.refused ? 'alert' : 'status'}>
        {message?.text}
      </p>
      <Button size="sm" onClick={() => void resetShortcuts().then(done('Shortcuts reset to the defaults'))}>
        Reset to defaults
      </Button>
    </section>
  );
}
