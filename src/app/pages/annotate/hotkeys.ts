// The editor's app-level hotkeys (spec section 9). Pure: a key event in, an action out, so the
// whole table is unit-tested and the Hotkeys tab lists exactly what runs. Keys the engine handles
// itself (Escape, Enter, Delete/Backspace, arrow nudges, W/A/S/D, Space) go to Editor.keyDown first,
// except the few resolveAppFirstHotkey returns (Shift+S would otherwise pan, 1-9, C and Alt+↓/↑
// mean nothing to the engine); Enter reaches the app only when the tool did not take it (a polygon
// being drawn, Auto-Annotate's mask keep it). Tab is never the editor's: it moves focus (issue 37).
// Every table here reads the keys out of the box: a person's own keys are turned into those first
// (translateKey), so the engine, these tables and the workflow's need not know them.

import {
  allShortcutKeys,
  DEFAULT_ACTION_KEYS,
  DEFAULT_TOOL_KEYS,
  SHORTCUT_TOOL_LABELS,
  SHORTCUT_TOOLS,
  type EditorShortcuts,
  type ShortcutAction,
  type ShortcutTool,
} from '../../../contract/preferences';

export type EditorToolId = ShortcutTool;

export type HotkeyAction =
  | { type: 'tool'; tool: EditorToolId }
  | { type: 'previous' }
  | { type: 'next' }
  | { type: 'undo' }
  | { type: 'redo' }
  | { type: 'copy' }
  | { type: 'paste' }
  | { type: 'select-all' }
  /** H: hide the selection, or without one toggle Hide All / Show All. */
  | { type: 'hide' }
  /** Ctrl/Cmd+H: hide the selection. */
  | { type: 'hide-selection' }
  /** V: show or hide the version history in the sidebar. */
  | { type: 'history' }
  /** 1-9: the project's n-th class (whatever the tool) for new shapes, or relabel the selection to it. */
  | { type: 'class-number'; n: number }
  /** C / Shift+C: the next / previous class the selected shapes (or the tool) may take. */
  | { type: 'cycle-class'; step: 1 | -1 }
  /** Alt+↓ / Alt+↑: select the next / previous shape in the annotation list (pending predictions first while there are). */
  | { type: 'select-next'; step: 1 | -1 }
  /** Enter: open the selected shape's attributes. */
  | { type: 'attributes' }
  /** Shift+S: open the image's stage picker. */
  | { type: 'stage' }
  /** N: the tool and class of the last shape drawn, again (issue 33). */
  | { type: 'repeat' };

export interface KeyLike {
  key: string;
  ctrlKey?: boolean;
  metaKey?: boolean;
  shiftKey?: boolean;
  altKey?: boolean;
}

/** The tools' keys out of the box (B is the brush, R the box; Shift+R stays Reject). A person may remap them (useShortcuts). */
export const TOOL_KEYS: Record<string, EditorToolId> = Object.fromEntries(Object.entries(DEFAULT_TOOL_KEYS).map(([tool, key]) => [key, tool as EditorToolId]));

export const TOOL_LABELS: Record<EditorToolId, string> = SHORTCUT_TOOL_LABELS;

/** Each tool's key as shown (upper case), from the person's keys. */
export function toolKeyLabels(toolKeys: Record<EditorToolId, string> = DEFAULT_TOOL_KEYS): Record<EditorToolId, string> {
  return Object.fromEntries(Object.entries(toolKeys).map(([tool, key]) => [tool, key.toUpperCase()])) as Record<EditorToolId, string>;
}

export const TOOL_KEY: Record<EditorToolId, string> = toolKeyLabels();

/**
 * A single-character key (WCAG 2.1.4): a letter, digit or sign, with or without Shift, without
 * Ctrl, Cmd or Alt. With the person's single-key shortcuts off, none of these acts in the editor.
 * Space is not one: it pans only while the canvas has focus, and presses a focused control.
 */
export function isSingleCharacterKey(e: KeyLike): boolean {
  return e.key.length === 1 && e.key !== ' ' && !e.ctrlKey && !e.metaKey && !e.altKey;
}

type ShortcutKeys = Pick<EditorShortcuts, 'tool_keys' | 'action_keys'>;

/** The character a single-key press stands for: a letter by Shift, not Caps Lock (r, or R for Shift+R). */
export function pressedCharacter(e: KeyLike): string {
  return /^[a-z]$/i.test(e.key) ? (e.shiftKey ? e.key.toUpperCase() : e.key.toLowerCase()) : e.key;
}

const DEFAULT_KEYS = new Set(allShortcutKeys({ tool_keys: DEFAULT_TOOL_KEYS, action_keys: DEFAULT_ACTION_KEYS }).map(([, k]) => k));
const toDefault = new WeakMap<ShortcutKeys, Map<string, string>>();

/** The person's key of each shortcut -> its key out of the box (built once per set of keys). */
function defaultKeyOf(keys: ShortcutKeys): Map<string, string> {
  let map = toDefault.get(keys);
  if (!map) {
    const defaults = new Map(allShortcutKeys({ tool_keys: DEFAULT_TOOL_KEYS, action_keys: DEFAULT_ACTION_KEYS }));
    map = new Map(allShortcutKeys(keys).map(([id, k]) => [k, defaults.get(id)!]));
    toDefault.set(keys, map);
  }
  return map;
}

/**
 * A key event as the tables and the engine know it (issue 37, every single-key shortcut
 * remappable): a person's key becomes the key its shortcut has out of the box (their G for the
 * box becomes R); a key out of the box whose shortcut was given another key answers null (nothing
 * acts on it). Other keys come back as they are.
 */
export function translateKey<E extends KeyLike>(e: E, keys: ShortcutKeys): KeyLike | null {
  if (!isSingleCharacterKey(e)) return e;
  const pressed = pressedCharacter(e);
  const meant = defaultKeyOf(keys).get(pressed);
  if (meant === undefined) return DEFAULT_KEYS.has(pressed) ? null : e;
  if (meant === pressed) return e;
  return { key: meant, shiftKey: /^[A-Z]$/.test(meant), ctrlKey: false, metaKey: false, altKey: false };
}

/** The single-key shortcuts besides the tools', grouped as the Hotkeys tab shows their fields. */
export const OTHER_SHORTCUT_GROUPS: { group: string; ids: ShortcutAction[] }[] = [
  { group: 'Classes', ids: ['next_class', 'previous_class', 'class_1', 'class_2', 'class_3', 'class_4', 'class_5', 'class_6', 'class_7', 'class_8', 'class_9'] },
  { group: 'Drawing and editing', ids: ['hide', 'repeat', 'brush_smaller', 'brush_larger', 'skeleton_skip', 'skeleton_occluded'] },
  { group: 'View and images', ids: ['pan_up', 'pan_left', 'pan_down', 'pan_right', 'previous_image', 'next_image', 'history'] },
  { group: 'Review and issues', ids: ['stage', 'new_issue', 'issue_region', 'reject'] },
];

/** Ctrl/Cmd combinations: these win over the engine (Ctrl+A is not a pan to the left). */
export function resolveModifiedHotkey(e: KeyLike): HotkeyAction | null {
  if (!(e.ctrlKey || e.metaKey) || e.altKey) return null;
  switch (e.key.toLowerCase()) {
    case 'z':
      return e.shiftKey ? { type: 'redo' } : { type: 'undo' };
    case 'y':
      return e.shiftKey ? null : { type: 'redo' };
    case 'a':
      return { type: 'select-all' };
    case 'c':
      return { type: 'copy' };
    case 'v':
      return { type: 'paste' };
    case 'h':
      return { type: 'hide-selection' };
    default:
      return null;
  }
}

/**
 * Plain keys the engine did not take. Left/Right arrows reach here only when nothing is selected
 * (with a selection the engine nudges it), so they move between images then.
 */
export function resolvePlainHotkey(e: KeyLike, toolKeys: Record<EditorToolId, string> = DEFAULT_TOOL_KEYS): HotkeyAction | null {
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  const key = e.key;
  // Shift+comma and Shift+period type '<' and '>' on US layouts: they move too.
  if (key === ',' || key === '<' || key === 'ArrowLeft') return { type: 'previous' };
  if (key === '.' || key === '>' || key === 'ArrowRight') return { type: 'next' };
  const lower = key.toLowerCase();
  if (lower === 'h') return { type: 'hide' };
  if (lower === 'v' && !e.shiftKey) return { type: 'history' };
  if (key === 'Enter' && !e.shiftKey) return { type: 'attributes' };
  if (lower === 'n' && !e.shiftKey) return { type: 'repeat' };
  const tool = (Object.keys(toolKeys) as EditorToolId[]).find((t) => toolKeys[t] === lower);
  if (tool && !e.shiftKey) return { type: 'tool', tool };
  return null;
}

/**
 * Keys the app takes before the engine: Shift+S (the engine's S pans), the class digits, C and
 * Alt+↓ / Alt+↑ (the engine has no use for them; the keyboard cursor's Alt+arrows are let through
 * while it is shown). Enter is not here: a tool may need it first.
 */
export function resolveAppFirstHotkey(e: KeyLike): HotkeyAction | null {
  if (e.ctrlKey || e.metaKey) return null;
  const key = e.key;
  // Alt+↓ / Alt+↑ walk the shapes (issue 37): Tab is left to move focus, so it always leaves the canvas.
  if (e.altKey) return !e.shiftKey && (key === 'ArrowDown' || key === 'ArrowUp') ? { type: 'select-next', step: key === 'ArrowDown' ? 1 : -1 } : null;
  if (/^[1-9]$/.test(key)) return { type: 'class-number', n: Number(key) };
  const lower = key.toLowerCase();
  if (lower === 's' && e.shiftKey) return { type: 'stage' };
  if (lower === 'c') return { type: 'cycle-class', step: e.shiftKey ? -1 : 1 };
  return null;
}

/** The team workflow's keys (issue 29), handled by the workflow bar (./workflow), not the engine. */
export type WorkflowHotkey =
  /** Ctrl/Cmd+Enter: Submit for review (an image in work), or Accept (an image in review). */
  | { type: 'hand-on' }
  /** Shift+R: Reject... (an image in review). */
  | { type: 'reject' }
  /** I: a new issue at the pointer. */
  | { type: 'issue-at-pointer' }
  /** Shift+I: a new issue on a region dragged out on the image. */
  | { type: 'issue-region' };

/**
 * The workflow's keys. None of them means anything to the engine or the other tables: Ctrl+Enter
 * is not a plain Enter (the table above leaves modified Enter alone), R and I are free letters.
 */
export function resolveWorkflowHotkey(e: KeyLike): WorkflowHotkey | null {
  if (e.altKey) return null;
  const mod = e.ctrlKey || e.metaKey;
  if (e.key === 'Enter') return mod && !e.shiftKey ? { type: 'hand-on' } : null;
  if (mod) return null;
  const lower = e.key.toLowerCase();
  if (lower === 'r' && e.shiftKey) return { type: 'reject' };
  if (lower === 'i') return e.shiftKey ? { type: 'issue-region' } : { type: 'issue-at-pointer' };
  return null;
}

/**
 * True when the event comes from a form control whose keys are its own: hotkeys never fire there
 * (issue 37, WCAG 2.1.4). Text fields take letters; a slider takes the arrows; a checkbox, radio or
 * switch takes Space (it ticks). An input of type button is a button: the hotkeys still work there.
 */
export function isTypingTarget(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || typeof el.closest !== 'function') return false;
  if (el.isContentEditable) return true;
  const field = el.closest('input, textarea, select, [contenteditable="true"], [role="textbox"], [role="slider"], [role="checkbox"], [role="radio"], [role="switch"], [role="spinbutton"]');
  if (!field) return false;
  const input = field as HTMLInputElement;
  return !(field.tagName === 'INPUT' && ['button', 'submit', 'reset'].includes(input.type));
}

const TOOL_HELP: Record<EditorToolId, string> = { ...SHORTCUT_TOOL_LABELS, brush: 'Brush (masks)', eraser: 'Eraser (masks)' };

function toolHelp(toolKeys: Record<EditorToolId, string>) {
  return SHORTCUT_TOOLS.map((t) => ({ keys: keyParts(toolKeys[t]), what: TOOL_HELP[t], ids: [t] as ShortcutId[] }));
}

type ShortcutId = ShortcutTool | ShortcutAction;
export interface HotkeyHelpItem {
  keys: string[];
  what: string;
  /** The remappable single-key shortcuts the entry is about: shown with the person's keys. */
  ids?: ShortcutId[];
  /** Keys the entry shows after those (the arrow that does the same). */
  also?: string[];
}

/** A key as the list shows it: ['R'], ['Shift', 'R'] for R, ['[']. */
export function keyParts(key: string): string[] {
  return /^[A-Z]$/.test(key) ? ['Shift', key] : [key.toUpperCase()];
}

/** A help entry pressed as one character key (with Shift or not): off with the single-key shortcuts. */
function singleCharacter(keys: string[]): boolean {
  const rest = keys[0] === 'Shift' ? keys.slice(1) : keys;
  return rest.length > 0 && rest.every((k) => /^\S$/.test(k) || /^\S … \S$/.test(k));
}

const keyOf = (keys: ShortcutKeys, id: ShortcutId): string => (id in keys.tool_keys ? keys.tool_keys[id as ShortcutTool] : keys.action_keys[id as ShortcutAction]);
const defaultKeyOfId = (id: ShortcutId): string => keyOf({ tool_keys: DEFAULT_TOOL_KEYS, action_keys: DEFAULT_ACTION_KEYS }, id);

/** An entry with the person's keys; one whose keys are all as out of the box keeps its short form (1 … 9). */
function withKeys(item: HotkeyHelpItem, keys: ShortcutKeys): HotkeyHelpItem {
  if (!item.ids || item.ids.every((id) => keyOf(keys, id) === defaultKeyOfId(id))) return item;
  return { ...item, keys: [...item.ids.flatMap((id) => keyParts(keyOf(keys, id))), ...(item.also ?? [])] };
}

/** The Hotkeys tab's list with the person's own keys; with single-key shortcuts off, those entries say so. */
export function hotkeyHelp(keys: ShortcutKeys, enabled = true): typeof HOTKEY_HELP {
  const groups = HOTKEY_HELP.map((g) => ({ group: g.group, items: g.group === 'Tools' ? toolHelp(keys.tool_keys) : g.items.map((i) => withKeys(i, keys)) }));
  if (enabled) return groups;
  return groups.map((g) => ({ group: g.group, items: g.items.map((i) => (i.ids || singleCharacter(i.keys) ? { ...i, what: `${i.what} (off)` } : i)) }));
}

/** What the Hotkeys tab lists, grouped; every entry is wired above or in the engine. */
export const HOTKEY_HELP: { group: string; items: HotkeyHelpItem[] }[] = [
  { group: 'Tools', items: toolHelp(DEFAULT_TOOL_KEYS) },
  {
    group: 'Brush and eraser',
    items: [
      { keys: ['Drag'], what: 'Paint into the selected mask, or a new mask of the class' },
      { keys: ['Shift', 'Drag'], what: 'Erase with the brush (paint with the eraser)' },
      { keys: ['['], what: 'Smaller brush', ids: ['brush_smaller'] },
      { keys: [']'], what: 'Larger brush', ids: ['brush_larger'] },
      { keys: ['Right-click'], what: 'Mask commands: to polygons, to mask, fill holes, remove islands' },
    ],
  },
  {
    group: 'Drawing',
    items: [
      { keys: ['Enter'], what: 'Close the polygon / finish the polyline' },
      { keys: ['Backspace'], what: 'Remove the last point while drawing' },
      { keys: ['Esc'], what: 'Cancel drawing, or clear the selection' },
      { keys: ['Shift', 'Click'], what: 'Polygon: start inside a polygon to cut a hole' },
      { keys: ['N'], what: 'Draw again with the last shape\'s tool and class', ids: ['repeat'] },
      { keys: ['X'], what: 'Skeleton: skip the next point', ids: ['skeleton_skip'] },
      { keys: ['O'], what: 'Skeleton: the next point is occluded', ids: ['skeleton_occluded'] },
    ],
  },
  {
    group: 'Drawing by keyboard (canvas reached with Tab)',
    items: [
      { keys: ['Enter'], what: 'Box, Polygon, Polyline, Keypoint: show the cursor at the middle of the view; then place a corner or a point' },
      { keys: ['↑ ↓ ← →'], what: 'Move the cursor 10 px (Shift: 50 px, Alt: 1 px)' },
      { keys: ['Space'], what: 'Place a corner or a point at the cursor' },
      { keys: ['Enter', 'Enter'], what: 'On the point just placed: close the polygon, finish the polyline' },
      { keys: ['Esc'], what: 'Cancel the shape; again: hide the cursor' },
    ],
  },
  {
    group: 'Auto-Annotate',
    items: [
      { keys: ['Click'], what: 'Add a positive point (also inside the mask)' },
      { keys: ['Right-click'], what: 'Add a negative point (or Shift+Click)' },
      { keys: ['Drag'], what: 'Box prompt' },
      { keys: ['Ctrl/⌘', 'Z'], what: 'Take off the last click or the box' },
      { keys: ['Ctrl/⌘', 'Shift', 'Z'], what: 'Put it back' },
      { keys: ['Backspace'], what: 'Take off the last click' },
      { keys: ['Enter'], what: 'Accept the mask' },
    ],
  },
  {
    group: 'Editing',
    items: [
      { keys: ['Ctrl/⌘', 'A'], what: 'Select all' },
      { keys: ['Ctrl/⌘', 'C'], what: 'Copy the selection' },
      { keys: ['Ctrl/⌘', 'V'], what: 'Paste (20 px offset, works across images)' },
      { keys: ['Ctrl/⌘', 'Z'], what: 'Undo' },
      { keys: ['Ctrl/⌘', 'Shift', 'Z'], what: 'Redo' },
      { keys: ['Delete'], what: 'Delete the selection or the picked vertex' },
      { keys: ['↑ ↓ ← →'], what: 'Nudge the selection 1 px (Shift: 10 px)' },
      { keys: ['Alt', 'Click'], what: 'Add a vertex on an edge / remove a vertex' },
      { keys: ['H'], what: 'Hide the selection, or hide / show all', ids: ['hide'] },
      { keys: ['Ctrl/⌘', 'H'], what: 'Hide the selection' },
    ],
  },
  {
    group: 'Classes and shapes',
    items: [
      { keys: ['1 … 9'], what: 'The project\'s n-th class, whatever the tool: for new shapes, or relabel the selection', ids: ['class_1', 'class_2', 'class_3', 'class_4', 'class_5', 'class_6', 'class_7', 'class_8', 'class_9'] },
      { keys: ['C'], what: 'Next class the selection (without one: the tool) may take', ids: ['next_class'] },
      { keys: ['Shift', 'C'], what: 'Previous class, as the next', ids: ['previous_class'] },
      { keys: ['Alt', '↓'], what: 'Select the next annotation in the list' },
      { keys: ['Alt', '↑'], what: 'Select the previous annotation in the list' },
      { keys: ['Tab'], what: 'Leave the canvas (to the annotation list and the rest of the page)' },
      { keys: ['Enter'], what: 'Open the selected annotation\'s attributes' },
      { keys: ['Shift', 'S'], what: 'Set the image\'s stage', ids: ['stage'] },
    ],
  },
  {
    group: 'Predictions (while a model\'s are pending)',
    items: [
      { keys: ['Alt', '↓'], what: 'Select the next pending prediction and centre it' },
      { keys: ['Alt', '↑'], what: 'Select the previous pending prediction' },
      { keys: ['Enter'], what: 'Accept the selected prediction, then the next' },
      { keys: ['Delete'], what: 'Reject the selected prediction, then the next' },
    ],
  },
  {
    group: 'View and images',
    items: [
      { keys: ['W', 'A', 'S', 'D'], what: 'Pan the view (up, left, down, right)', ids: ['pan_up', 'pan_left', 'pan_down', 'pan_right'] },
      { keys: ['Space', 'Drag'], what: 'Pan while held' },
      { keys: ['Wheel'], what: 'Zoom at the pointer' },
      { keys: [',', '←'], what: 'Previous image (← when nothing is selected)', ids: ['previous_image'], also: ['←'] },
      { keys: ['.', '→'], what: 'Next image (→ when nothing is selected)', ids: ['next_image'], also: ['→'] },
    ],
  },
  {
    group: 'Review and issues',
    items: [
      { keys: ['Ctrl/⌘', 'Enter'], what: 'Submit for review (in review: Accept)' },
      { keys: ['Shift', 'R'], what: 'Reject… (an image in review)', ids: ['reject'] },
      { keys: ['I'], what: 'New issue at the pointer', ids: ['new_issue'] },
      { keys: ['Shift', 'I'], what: 'New issue on a region: drag it out on the image', ids: ['issue_region'] },
    ],
  },
  {
    group: 'History',
    items: [
      { keys: ['V'], what: 'Show or hide the version history', ids: ['history'] },
      { keys: ['Esc'], what: 'Back to the current version from an earlier one' },
    ],
  },
];
