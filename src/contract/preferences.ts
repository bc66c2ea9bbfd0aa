// A person's own preferences, kept with their profile so they follow them to every device
// (issue 37): for now the editor's single-key shortcuts (WCAG 2.1.4), which can be turned off, or
// each be given another key: the tools' keys and every other single-key shortcut.
// GET and PUT /api/v1/users/me/preferences.
import { z } from 'zod';

export const SHORTCUT_TOOLS = ['select', 'auto', 'box', 'polygon', 'polyline', 'keypoint', 'brush', 'eraser'] as const;
export type ShortcutTool = (typeof SHORTCUT_TOOLS)[number];

/** The tools' keys out of the box. B is the brush, as in CVAT and image editors; the box is R. */
export const DEFAULT_TOOL_KEYS: Record<ShortcutTool, string> = { select: 'q', auto: 'm', box: 'r', polygon: 'p', polyline: 'l', keypoint: 'k', brush: 'b', eraser: 'e' };

const CLASS_DIGITS = ['1', '2', '3', '4', '5', '6', '7', '8', '9'] as const;

/**
 * The editor's other single-key shortcuts, each with its key out of the box. A key is the
 * character it types: an upper-case letter is Shift and that letter (Shift+C, the previous class).
 */
export const DEFAULT_ACTION_KEYS = {
  pan_up: 'w',
  pan_left: 'a',
  pan_down: 's',
  pan_right: 'd',
  hide: 'h',
  history: 'v',
  repeat: 'n',
  next_class: 'c',
  previous_class: 'C',
  stage: 'S',
  new_issue: 'i',
  issue_region: 'I',
  reject: 'R',
  skeleton_skip: 'x',
  skeleton_occluded: 'o',
  brush_smaller: '[',
  brush_larger: ']',
  previous_image: ',',
  next_image: '.',
  ...(Object.fromEntries(CLASS_DIGITS.map((d) => [`class_${d}`, d])) as Record<`class_${(typeof CLASS_DIGITS)[number]}`, string>),
} as const;
export type ShortcutAction = keyof typeof DEFAULT_ACTION_KEYS;
export const SHORTCUT_ACTIONS = Object.keys(DEFAULT_ACTION_KEYS) as ShortcutAction[];

/** What each of them does, as the Hotkeys tab and a clash message say it. */
export const SHORTCUT_ACTION_LABELS: Record<ShortcutAction, string> = {
  pan_up: 'Pan up',
  pan_left: 'Pan left',
  pan_down: 'Pan down',
  pan_right: 'Pan right',
  hide: 'Hide',
  history: 'Version history',
  repeat: 'Draw again',
  next_class: 'Next class',
  previous_class: 'Previous class',
  stage: 'Set stage',
  new_issue: 'New issue',
  issue_region: 'New issue on a region',
  reject: 'Reject',
  skeleton_skip: 'Skeleton: skip the next point',
  skeleton_occluded: 'Skeleton: the next point is occluded',
  brush_smaller: 'Smaller brush',
  brush_larger: 'Larger brush',
  previous_image: 'Previous image',
  next_image: 'Next image',
  ...(Object.fromEntries(CLASS_DIGITS.map((d) => [`class_${d}`, `Class ${d}`])) as Record<`class_${(typeof CLASS_DIGITS)[number]}`, string>),
};

/** A key as a person reads it: R, Shift+R, [, 1. */
export function shortcutKeyLabel(key: string): string {
  return /^[A-Z]$/.test(key) ? `Shift+${key}` : key.toUpperCase();
}

/** Every single-key shortcut with its key: the tools' and the others'. */
export function allShortcutKeys(s: { tool_keys: Record<ShortcutTool, string>; action_keys: Record<ShortcutAction, string> }): [ShortcutTool | ShortcutAction, string][] {
  return [...SHORTCUT_TOOLS.map((t) => [t, s.tool_keys[t]] as [ShortcutTool, string]), ...SHORTCUT_ACTIONS.map((a) => [a, s.action_keys[a]] as [ShortcutAction, string])];
}

/**
 * Why these keys cannot be used together, or null: a key two shortcuts have. Said as the person
 * will read it, about `changed` (the shortcut just given a key) when it is named.
 */
export function shortcutClash(s: { tool_keys: Record<ShortcutTool, string>; action_keys: Record<ShortcutAction, string> }, changed?: ShortcutTool | ShortcutAction): string | null {
  const seen = new Map<string, ShortcutTool | ShortcutAction>();
  const all = allShortcutKeys(s);
  const order = changed ? [...all.filter(([id]) => id !== changed), ...all.filter(([id]) => id === changed)] : all;
  for (const [id, key] of order) {
    const other = seen.get(key);
    if (other) return `${shortcutKeyLabel(key)} is already ${shortcutLabel(other)}: choose another key for ${shortcutLabel(id)}`;
    seen.set(key, id);
  }
  return null;
}

/** The tools' names as the editor shows them (the clash message names them). */
export const SHORTCUT_TOOL_LABELS: Record<ShortcutTool, string> = {
  select: 'Select',
  auto: 'Auto-Annotate',
  box: 'Bounding Box',
  polygon: 'Polygon',
  polyline: 'Polyline',
  keypoint: 'Keypoint',
  brush: 'Brush',
  eraser: 'Eraser',
};

export function shortcutLabel(id: ShortcutTool | ShortcutAction): string {
  return (SHORTCUT_TOOL_LABELS as Record<string, string>)[id] ?? SHORTCUT_ACTION_LABELS[id as ShortcutAction];
}

/** A key a shortcut may take: one printable character but Space (an upper-case letter is Shift and the letter). */
const ShortcutKey = z.string().regex(/^[\x21-\x7e]$/, 'A shortcut is one key: a letter, a digit or a sign');

export const EditorShortcuts = z
  .object({
    /** False: no single-key shortcut acts (Ctrl/Cmd combinations, arrows, Enter, Escape still do). */
    enabled: z.boolean(),
    tool_keys: z.object(Object.fromEntries(SHORTCUT_TOOLS.map((t) => [t, ShortcutKey])) as Record<ShortcutTool, typeof ShortcutKey>).strict(),
    /** The other single-key shortcuts' keys; left out, the defaults (a client from before they could be remapped). */
    action_keys: z
      .object(Object.fromEntries(SHORTCUT_ACTIONS.map((a) => [a, ShortcutKey])) as Record<ShortcutAction, typeof ShortcutKey>)
      .strict()
      .default({ ...DEFAULT_ACTION_KEYS }),
  })
  .strict()
  .superRefine((value, ctx) => {
    const clash = shortcutClash(value);
    if (clash) ctx.addIssue({ code: 'custom', message: clash, path: ['tool_keys'] });
  });
export type EditorShortcuts = z.infer<typeof EditorShortcuts>;

export const DEFAULT_EDITOR_SHORTCUTS: EditorShortcuts = { enabled: true, tool_keys: { ...DEFAULT_TOOL_KEYS }, action_keys: { ...DEFAULT_ACTION_KEYS } };

export const UserPreferences = z.object({ editor_shortcuts: EditorShortcuts }).strict();
export type UserPreferences = z.infer<typeof UserPreferences>;

export const DEFAULT_PREFERENCES: UserPreferences = { editor_shortcuts: DEFAULT_EDITOR_SHORTCUTS };

export const PreferencesResponse = z.object({ preferences: UserPreferences });
export type PreferencesResponse = z.infer<typeof PreferencesResponse>;

/** What is stored, read leniently: a missing or unreadable part falls back to its default. */
export function readPreferences(stored: unknown): UserPreferences {
  const obj = stored && typeof stored === 'object' ? (stored as Record<string, unknown>) : {};
  const shortcuts = EditorShortcuts.safeParse(obj.editor_shortcuts);
  return { editor_shortcuts: shortcuts.success ? shortcuts.data : DEFAULT_EDITOR_SHORTCUTS };
}
