// A person's own preferences, kept with their profile so they follow them to every device
// (issue 37): for now the editor's single-key shortcuts (WCAG 2.1.4), which can be turned off,
// or have the tools' keys remapped. GET and PUT /api/v1/users/me/preferences.
import { z } from 'zod';

export const SHORTCUT_TOOLS = ['select', 'auto', 'box', 'polygon', 'polyline', 'keypoint', 'brush', 'eraser'] as const;
export type ShortcutTool = (typeof SHORTCUT_TOOLS)[number];

/** The tools' keys out of the box. B is the brush, as in CVAT and image editors; the box is R. */
export const DEFAULT_TOOL_KEYS: Record<ShortcutTool, string> = { select: 'q', auto: 'm', box: 'r', polygon: 'p', polyline: 'l', keypoint: 'k', brush: 'b', eraser: 'e' };

/** The editor's other single keys: their meaning is fixed, so a tool cannot take them. */
export const FIXED_SINGLE_KEYS: Record<string, string> = {
  w: 'Pan the view',
  a: 'Pan the view',
  s: 'Pan the view',
  d: 'Pan the view',
  h: 'Hide',
  v: 'Version history',
  n: 'Draw again',
  c: 'Next class',
  i: 'New issue',
  x: 'Skeleton: skip the next point',
  o: 'Skeleton: the next point is occluded',
  '[': 'Smaller brush',
  ']': 'Larger brush',
  ',': 'Previous image',
  '.': 'Next image',
  '<': 'Previous image',
  '>': 'Next image',
  ...Object.fromEntries(['1', '2', '3', '4', '5', '6', '7', '8', '9'].map((d) => [d, `Class ${d}`])),
};

/** A key a tool may take: one printable character but Space; letters in lower case (Shift+letter is another key). */
const ToolKey = z.string().regex(/^[\x21-\x40\x5b-\x7e]$/, 'A shortcut is one key: a lower-case letter, a digit or a sign');

/**
 * Why `keys` cannot be used together, or null: a key another tool has, or one of the editor's
 * fixed keys. Said as the person will read it, about `changed` (the tool just given a key) when
 * it is named.
 */
export function shortcutClash(keys: Record<ShortcutTool, string>, labels: Record<ShortcutTool, string>, changed?: ShortcutTool): string | null {
  const seen = new Map<string, ShortcutTool>();
  const order = changed ? [...SHORTCUT_TOOLS.filter((t) => t !== changed), changed] : SHORTCUT_TOOLS;
  for (const tool of order) {
    const key = keys[tool].toLowerCase();
    const fixed = FIXED_SINGLE_KEYS[key];
    if (fixed) return `${key.toUpperCase()} is already ${fixed}: choose another key for ${labels[tool]}`;
    const other = seen.get(key);
    if (other) return `${key.toUpperCase()} is already ${labels[other]}: choose another key for ${labels[tool]}`;
    seen.set(key, tool);
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

export const EditorShortcuts = z
  .object({
    /** False: no single-key shortcut acts (Ctrl/Cmd combinations, arrows, Enter, Escape still do). */
    enabled: z.boolean(),
    tool_keys: z.object(Object.fromEntries(SHORTCUT_TOOLS.map((t) => [t, ToolKey])) as Record<ShortcutTool, typeof ToolKey>).strict(),
  })
  .strict()
  .superRefine((value, ctx) => {
    const clash = shortcutClash(value.tool_keys, SHORTCUT_TOOL_LABELS);
    if (clash) ctx.addIssue({ code: 'custom', message: clash, path: ['tool_keys'] });
  });
export type EditorShortcuts = z.infer<typeof EditorShortcuts>;

export const DEFAULT_EDITOR_SHORTCUTS: EditorShortcuts = { enabled: true, tool_keys: { ...DEFAULT_TOOL_KEYS } };

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
