import { describe, expect, it } from 'vitest';
import { DEFAULT_ACTION_KEYS, DEFAULT_EDITOR_SHORTCUTS, DEFAULT_TOOL_KEYS, SHORTCUT_ACTIONS, SHORTCUT_TOOLS, shortcutClash, type EditorShortcuts } from '../../../contract/preferences';
import { HOTKEY_HELP, hotkeyHelp, isSingleCharacterKey, isTypingTarget, OTHER_SHORTCUT_GROUPS, resolveAppFirstHotkey, resolveModifiedHotkey, resolvePlainHotkey, resolveWorkflowHotkey, TOOL_KEY, TOOL_KEYS, TOOL_LABELS, translateKey } from './hotkeys';

describe('editor hotkeys', () => {
  it('maps the tool letters, in either case, but not with Shift', () => {
    expect(resolvePlainHotkey({ key: 'q' })).toEqual({ type: 'tool', tool: 'select' });
    expect(resolvePlainHotkey({ key: 'M' })).toEqual({ type: 'tool', tool: 'auto' });
    expect(resolvePlainHotkey({ key: 'r' })).toEqual({ type: 'tool', tool: 'box' });
    expect(resolvePlainHotkey({ key: 'b' })).toEqual({ type: 'tool', tool: 'brush' });
    expect(resolvePlainHotkey({ key: 'E' })).toEqual({ type: 'tool', tool: 'eraser' });
    expect(resolvePlainHotkey({ key: 'p' })).toEqual({ type: 'tool', tool: 'polygon' });
    expect(resolvePlainHotkey({ key: 'l' })).toEqual({ type: 'tool', tool: 'polyline' });
    expect(resolvePlainHotkey({ key: 'k' })).toEqual({ type: 'tool', tool: 'keypoint' });
    expect(resolvePlainHotkey({ key: 'B', shiftKey: true })).toBeNull();
  });

  it('moves between images with comma/period (Shift too) and the side arrows', () => {
    for (const key of [',', '<', 'ArrowLeft']) expect(resolvePlainHotkey({ key })).toEqual({ type: 'previous' });
    for (const key of ['.', '>', 'ArrowRight']) expect(resolvePlainHotkey({ key, shiftKey: key !== 'ArrowRight' })).toEqual({ type: 'next' });
  });

  it('gives H to hide and leaves modified letters to the Ctrl table', () => {
    expect(resolvePlainHotkey({ key: 'h' })).toEqual({ type: 'hide' });
    expect(resolvePlainHotkey({ key: 'b', ctrlKey: true })).toBeNull();
    expect(resolvePlainHotkey({ key: 'x' })).toBeNull();
  });

  it('gives V to the version history, but not Shift+V or Ctrl+V (paste)', () => {
    expect(resolvePlainHotkey({ key: 'v' })).toEqual({ type: 'history' });
    expect(resolvePlainHotkey({ key: 'V' })).toEqual({ type: 'history' });
    expect(resolvePlainHotkey({ key: 'V', shiftKey: true })).toBeNull();
    expect(resolvePlainHotkey({ key: 'v', ctrlKey: true })).toBeNull();
    expect(resolveModifiedHotkey({ key: 'v', ctrlKey: true })).toEqual({ type: 'paste' });
  });

  it('maps Ctrl and Cmd combinations', () => {
    expect(resolveModifiedHotkey({ key: 'z', ctrlKey: true })).toEqual({ type: 'undo' });
    expect(resolveModifiedHotkey({ key: 'Z', metaKey: true, shiftKey: true })).toEqual({ type: 'redo' });
    expect(resolveModifiedHotkey({ key: 'a', ctrlKey: true })).toEqual({ type: 'select-all' });
    expect(resolveModifiedHotkey({ key: 'c', metaKey: true })).toEqual({ type: 'copy' });
    expect(resolveModifiedHotkey({ key: 'v', ctrlKey: true })).toEqual({ type: 'paste' });
    expect(resolveModifiedHotkey({ key: 'h', ctrlKey: true })).toEqual({ type: 'hide-selection' });
    expect(resolveModifiedHotkey({ key: 'z' })).toBeNull();
    expect(resolveModifiedHotkey({ key: 'c', ctrlKey: true, altKey: true })).toBeNull();
  });

  it('takes the class digits, C, Alt+arrows and Shift+S before the engine, and leaves Tab alone', () => {
    expect(resolveAppFirstHotkey({ key: '1' })).toEqual({ type: 'class-number', n: 1 });
    expect(resolveAppFirstHotkey({ key: '9' })).toEqual({ type: 'class-number', n: 9 });
    expect(resolveAppFirstHotkey({ key: '0' })).toBeNull();
    expect(resolveAppFirstHotkey({ key: '2', ctrlKey: true })).toBeNull();
    expect(resolveAppFirstHotkey({ key: 'c' })).toEqual({ type: 'cycle-class', step: 1 });
    expect(resolveAppFirstHotkey({ key: 'C', shiftKey: true })).toEqual({ type: 'cycle-class', step: -1 });
    expect(resolveAppFirstHotkey({ key: 'c', ctrlKey: true })).toBeNull();
    // Tab is not the editor's (issue 37: it leaves the canvas); Alt+↓ / Alt+↑ walk the shapes.
    expect(resolveAppFirstHotkey({ key: 'Tab' })).toBeNull();
    expect(resolveAppFirstHotkey({ key: 'Tab', shiftKey: true })).toBeNull();
    expect(resolveAppFirstHotkey({ key: 'ArrowDown', altKey: true })).toEqual({ type: 'select-next', step: 1 });
    expect(resolveAppFirstHotkey({ key: 'ArrowUp', altKey: true })).toEqual({ type: 'select-next', step: -1 });
    expect(resolveAppFirstHotkey({ key: 'ArrowLeft', altKey: true })).toBeNull();
    expect(resolveAppFirstHotkey({ key: 'ArrowDown' })).toBeNull();
    expect(resolveAppFirstHotkey({ key: 'S', shiftKey: true })).toEqual({ type: 'stage' });
    // Plain S is the engine's pan, and the tool letters stay the plain table's.
    expect(resolveAppFirstHotkey({ key: 's' })).toBeNull();
    expect(resolveAppFirstHotkey({ key: 'b' })).toBeNull();
  });

  it('gives Enter to the attributes once the tool has not taken it', () => {
    expect(resolvePlainHotkey({ key: 'Enter' })).toEqual({ type: 'attributes' });
    expect(resolvePlainHotkey({ key: 'Enter', ctrlKey: true })).toBeNull();
    expect(resolveAppFirstHotkey({ key: 'Enter' })).toBeNull();
  });

  it('maps the workflow keys (issue 29), which no other table takes', () => {
    expect(resolveWorkflowHotkey({ key: 'Enter', ctrlKey: true })).toEqual({ type: 'hand-on' });
    expect(resolveWorkflowHotkey({ key: 'Enter', metaKey: true })).toEqual({ type: 'hand-on' });
    expect(resolveWorkflowHotkey({ key: 'Enter' })).toBeNull();
    expect(resolveWorkflowHotkey({ key: 'Enter', ctrlKey: true, shiftKey: true })).toBeNull();
    expect(resolveWorkflowHotkey({ key: 'R', shiftKey: true })).toEqual({ type: 'reject' });
    expect(resolveWorkflowHotkey({ key: 'r' })).toBeNull();
    expect(resolveWorkflowHotkey({ key: 'i' })).toEqual({ type: 'issue-at-pointer' });
    expect(resolveWorkflowHotkey({ key: 'I', shiftKey: true })).toEqual({ type: 'issue-region' });
    expect(resolveWorkflowHotkey({ key: 'i', ctrlKey: true })).toBeNull();
    // The other tables leave these keys alone, so the two never both act on one press.
    for (const e of [{ key: 'Enter', ctrlKey: true }, { key: 'R', shiftKey: true }, { key: 'i' }, { key: 'I', shiftKey: true }]) {
      expect(resolveModifiedHotkey(e)).toBeNull();
      expect(resolveAppFirstHotkey(e)).toBeNull();
      expect(resolvePlainHotkey(e)).toBeNull();
    }
  });

  it('gives N to repeating the last tool and class (issue 33), not Shift+N or Ctrl+N', () => {
    expect(resolvePlainHotkey({ key: 'n' })).toEqual({ type: 'repeat' });
    expect(resolvePlainHotkey({ key: 'N' })).toEqual({ type: 'repeat' }); // Caps Lock
    expect(resolvePlainHotkey({ key: 'N', shiftKey: true })).toBeNull();
    expect(resolvePlainHotkey({ key: 'n', ctrlKey: true })).toBeNull();
    expect(resolveAppFirstHotkey({ key: 'n' })).toBeNull();
    expect(HOTKEY_HELP.flatMap((g) => g.items.map((i) => i.keys.join('+')))).toContain('N');
    expect(HOTKEY_HELP.find((g) => g.group === 'Auto-Annotate')!.items.map((i) => i.keys.join('+'))).toEqual(['Click', 'Right-click', 'Drag', 'Ctrl/⌘+Z', 'Ctrl/⌘+Shift+Z', 'Backspace', 'Enter']);
  });

  it('lists the brush keys (issue 33), and each tool under the key that chooses it', () => {
    const tools = HOTKEY_HELP.find((g) => g.group === 'Tools')!.items;
    for (const [key, tool] of Object.entries(TOOL_KEYS)) {
      expect(tools.find((i) => i.keys.join('+') === key.toUpperCase())?.what).toContain(TOOL_LABELS[tool]);
      expect(TOOL_KEY[tool]).toBe(key.toUpperCase());
    }
    expect(HOTKEY_HELP.find((g) => g.group === 'Brush and eraser')!.items.map((i) => i.keys.join('+'))).toEqual(expect.arrayContaining(['[', ']', 'Shift+Drag']));
  });

  it('lists every new key in the Hotkeys tab, and no key twice in a group', () => {
    const listed = HOTKEY_HELP.flatMap((g) => g.items.map((i) => i.keys.join('+')));
    for (const k of ['1 … 9', 'C', 'Shift+C', 'Alt+↓', 'Alt+↑', 'Tab', 'Enter', 'Shift+S', 'Ctrl/⌘+Enter', 'Shift+R', 'I', 'Shift+I']) expect(listed).toContain(k);
    for (const g of HOTKEY_HELP) {
      const keys = g.items.map((i) => i.keys.join('+'));
      expect(new Set(keys).size).toBe(keys.length);
    }
  });

  it('treats text fields, sliders and checkboxes as places whose keys are their own (issue 37), but not buttons', () => {
    const field = (tag: string, type?: string) => ({
      tagName: tag.toUpperCase(),
      type,
      isContentEditable: false,
      closest(this: unknown) {
        return this;
      },
    });
    expect(isTypingTarget(field('input', 'text') as unknown as EventTarget)).toBe(true);
    expect(isTypingTarget(field('textarea') as unknown as EventTarget)).toBe(true);
    expect(isTypingTarget(field('input', 'range') as unknown as EventTarget)).toBe(true);
    expect(isTypingTarget(field('input', 'checkbox') as unknown as EventTarget)).toBe(true);
    expect(isTypingTarget(field('input', 'button') as unknown as EventTarget)).toBe(false);
    expect(isTypingTarget({ tagName: 'DIV', isContentEditable: false, closest: () => null } as unknown as EventTarget)).toBe(false);
    expect(isTypingTarget(null)).toBe(false);
  });

  /** The defaults with some keys changed. */
  const keysWith = (tools: Partial<EditorShortcuts['tool_keys']>, actions: Partial<EditorShortcuts['action_keys']> = {}): EditorShortcuts => ({
    enabled: true,
    tool_keys: { ...DEFAULT_TOOL_KEYS, ...tools },
    action_keys: { ...DEFAULT_ACTION_KEYS, ...actions },
  });

  it("turns a person's keys into the keys out of the box (issue 37): a remapped shortcut answers its new key, its old key nothing", () => {
    const keys = keysWith({ box: 'g' }, { pan_up: 'u', previous_class: 'Y', class_1: '!', reject: 'T', history: 'j' });
    // The box's new key, in either case without Shift (Caps Lock), is its old one; R is nobody's now.
    expect(resolvePlainHotkey(translateKey({ key: 'g' }, keys)!)).toEqual({ type: 'tool', tool: 'box' });
    expect(resolvePlainHotkey(translateKey({ key: 'G' }, keys)!)).toEqual({ type: 'tool', tool: 'box' });
    expect(translateKey({ key: 'r' }, keys)).toBeNull();
    // The engine's pan key, Shift+letter shortcuts, a digit given to a sign, the workflow's Reject.
    expect(translateKey({ key: 'u' }, keys)).toMatchObject({ key: 'w', shiftKey: false });
    expect(translateKey({ key: 'w' }, keys)).toBeNull();
    expect(resolveAppFirstHotkey(translateKey({ key: 'Y', shiftKey: true }, keys)!)).toEqual({ type: 'cycle-class', step: -1 });
    expect(translateKey({ key: 'C', shiftKey: true }, keys)).toBeNull();
    expect(resolveAppFirstHotkey(translateKey({ key: 'c' }, keys)!)).toEqual({ type: 'cycle-class', step: 1 });
    expect(resolveAppFirstHotkey(translateKey({ key: '!', shiftKey: true }, keys)!)).toEqual({ type: 'class-number', n: 1 });
    expect(translateKey({ key: '1' }, keys)).toBeNull();
    expect(resolveWorkflowHotkey(translateKey({ key: 'T', shiftKey: true }, keys)!)).toEqual({ type: 'reject' });
    expect(translateKey({ key: 'R', shiftKey: true }, keys)).toBeNull();
    expect(resolvePlainHotkey(translateKey({ key: 'j' }, keys)!)).toEqual({ type: 'history' });
    // Keys no shortcut has, and keys that are not single characters, pass as they are.
    for (const e of [{ key: 'z' }, { key: 'Enter' }, { key: 'ArrowLeft' }, { key: 'v', ctrlKey: true }, { key: '<', shiftKey: true }]) expect(translateKey(e, keys)).toBe(e);
    // Out of the box nothing changes.
    for (const [, key] of Object.entries({ ...DEFAULT_TOOL_KEYS, ...DEFAULT_ACTION_KEYS })) {
      const e = { key, shiftKey: /^[A-Z]$/.test(key) };
      expect(translateKey(e, DEFAULT_EDITOR_SHORTCUTS)).toBe(e);
    }
  });

  it('refuses a key another shortcut has, tool or not, naming the one just changed and the one that has it', () => {
    expect(shortcutClash(keysWith({ box: 'p' }), 'box')).toBe('P is already Polygon: choose another key for Bounding Box');
    expect(shortcutClash(keysWith({ box: 'w' }), 'box')).toBe('W is already Pan up: choose another key for Bounding Box');
    expect(shortcutClash(keysWith({ box: 'R' }), 'box')).toBe('Shift+R is already Reject: choose another key for Bounding Box');
    expect(shortcutClash(keysWith({}, { hide: 'q' }), 'hide')).toBe('Q is already Select: choose another key for Hide');
    expect(shortcutClash(keysWith({}, { class_2: '1' }), 'class_2')).toBe('1 is already Class 1: choose another key for Class 2');
    // Shift and a letter is another key than the letter: C and Shift+C may go to two shortcuts.
    expect(shortcutClash(keysWith({ box: 'g' }, { hide: 'G' }))).toBeNull();
    expect(shortcutClash(DEFAULT_EDITOR_SHORTCUTS)).toBeNull();
  });

  it('lists every single-key shortcut once in the Hotkeys fields, and with its key in the Hotkeys list', () => {
    expect(OTHER_SHORTCUT_GROUPS.flatMap((g) => g.ids).sort()).toEqual([...SHORTCUT_ACTIONS].sort());
    const listed = HOTKEY_HELP.flatMap((g) => g.items.flatMap((i) => i.ids ?? []));
    for (const id of [...SHORTCUT_TOOLS, ...SHORTCUT_ACTIONS]) expect(listed, id).toContain(id);
    const help = hotkeyHelp(keysWith({ box: 'g' }, { reject: 'T', history: 'j', pan_up: 'u', previous_image: ';' })).flatMap((g) => g.items);
    expect(help.find((i) => i.what === 'Bounding Box')!.keys).toEqual(['G']);
    expect(help.find((i) => i.what === 'Reject… (an image in review)')!.keys).toEqual(['Shift', 'T']);
    expect(help.find((i) => i.what === 'Show or hide the version history')!.keys).toEqual(['J']);
    expect(help.find((i) => i.what.startsWith('Pan the view'))!.keys).toEqual(['U', 'A', 'S', 'D']);
    expect(help.find((i) => i.what.startsWith('Previous image'))!.keys).toEqual([';', '←']);
    expect(help.find((i) => i.what.startsWith('The project'))!.keys).toEqual(['1 … 9']);
  });

  it('tells single-character keys (WCAG 2.1.4) from the rest, and marks them off in the list while they are', () => {
    for (const k of ['b', 'B', '1', '[', ',']) expect(isSingleCharacterKey({ key: k })).toBe(true);
    expect(isSingleCharacterKey({ key: 'R', shiftKey: true })).toBe(true);
    for (const e of [{ key: ' ' }, { key: 'Enter' }, { key: 'ArrowLeft' }, { key: 'Escape' }, { key: 'z', ctrlKey: true }, { key: 'a', metaKey: true }, { key: 'x', altKey: true }]) expect(isSingleCharacterKey(e)).toBe(false);
    const off = hotkeyHelp(DEFAULT_EDITOR_SHORTCUTS, false).flatMap((g) => g.items);
    expect(off.find((i) => i.keys.join('+') === 'R')!.what).toBe('Bounding Box (off)');
    expect(off.find((i) => i.keys.join('+') === 'Shift+R')!.what).toContain('(off)');
    expect(off.find((i) => i.keys.join('+') === '1 … 9')!.what).toContain('(off)');
    expect(off.find((i) => i.keys.join('+') === 'Ctrl/⌘+A')!.what).toBe('Select all');
    expect(off.find((i) => i.keys.join('+') === 'Space+Drag')!.what).not.toContain('(off)');
  });
});
