// The Hotkeys tab's own settings (issue 37, WCAG 2.1.4): single-key shortcuts on or off, each
// tool's key (press the new key in its field; a key already taken is refused with a word why),
// and back to the defaults. Kept with the person's profile (hooks/useShortcuts).
import { useState, type KeyboardEvent } from 'react';
import { SHORTCUT_TOOLS, type ShortcutTool } from '../../../contract/preferences';
import { Button } from '../../components/Button';
import { TOOL_LABELS } from './hotkeys';
import { remapToolKey, resetShortcuts, setShortcutsEnabled, useShortcuts } from './hooks/useShortcuts';
import styles from './AnnotatePage.module.css';
import own from './SettingsPanel.module.css';

export function ShortcutSettings() {
  const { enabled, tool_keys } = useShortcuts((s) => s.shortcuts);
  const [message, setMessage] = useState<{ text: string; refused: boolean } | null>(null);
  const done = (ok: string) => (error: string | null) => setMessage(error ? { text: error, refused: true } : { text: ok, refused: false });

  const remap = (tool: ShortcutTool, key: string) => void remapToolKey(tool, key).then(done(`${TOOL_LABELS[tool]}: ${key.toUpperCase()}`));
  const onKey = (tool: ShortcutTool) => (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key.length !== 1 || e.ctrlKey || e.metaKey || e.altKey) return;
    e.preventDefault();
    remap(tool, e.key);
  };

  return (
    <section className={own.section} aria-labelledby="shortcut-settings">
      <h3 id="shortcut-settings" className={own.sectionTitle}>Single-key shortcuts</h3>
      <label className={own.switchRow}>
        <span>Use single-key shortcuts</span>
        <input
          type="checkbox"
          role="switch"
          className={own.switch}
          checked={enabled}
          onChange={(e) => void setShortcutsEnabled(e.target.checked).then(done(e.target.checked ? 'Single-key shortcuts on' : 'Single-key shortcuts off'))}
        />
      </label>
      <p className={styles.note}>
        {enabled ? 'Press a new key in a tool\'s field to change it.' : 'Off: letters, digits and signs do nothing in the editor; Ctrl/⌘ combinations, the arrows, Enter and Esc still work.'}
      </p>
      {enabled ? (
        <div className={own.keyGrid}>
          {SHORTCUT_TOOLS.map((tool) => (
            <label key={tool} className={own.keyRow}>
              <span>{TOOL_LABELS[tool]}</span>
              <input
                className={own.keyField}
                value={tool_keys[tool].toUpperCase()}
                aria-label={`Key for ${TOOL_LABELS[tool]}`}
                onKeyDown={onKey(tool)}
                onChange={(e) => {
                  const typed = e.target.value.slice(-1);
                  if (typed) remap(tool, typed);
                }}
              />
            </label>
          ))}
        </div>
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
