// Text the database can store (issue 15, item 4). PostgreSQL refuses U+0000 in text and json
// values, and a string holding an unpaired UTF-16 surrogate has no UTF-8 form: either one, once
// accepted, made a save fail with 500 or broke every later query that read it (a project's stats).
// Every request string that ends up stored goes through `storedText` (a single string) or
// `StoredJson` / `unstorablePath` (any JSON value, keys included), so such text is refused with 400
// at validation. Everything else in Unicode (astral characters, emoji, combining marks, RTL text)
// is stored and given back byte for byte.
import { z } from 'zod';

export const UNSTORABLE_TEXT = 'must not contain NUL characters or unpaired surrogates';

/** U+0000, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
// eslint-disable-next-line no-control-regex
const UNSTORABLE_RE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** True when PostgreSQL can store `s` as text or inside json: no NUL, every surrogate paired. */
export function isStorableText(s: string): boolean {
  return !UNSTORABLE_RE.test(s);
}

/** `s` with NULs and unpaired surrogates replaced by U+FFFD: safe to echo in an error message. */
export function printableText(s: string): string {
  return s.replace(new RegExp(UNSTORABLE_RE.source, 'g'), '\ufffd');
}

/** `s` without NULs and unpaired surrogates (for names that are cleaned rather than refused, such as check-filename's suggestion). */
export function withoutUnstorable(s: string): string {
  return s.replace(new RegExp(UNSTORABLE_RE.source, 'g'), '');
}

/**
 * The path of the first string (object keys included) in a JSON value that is not storable, or
 * null when all are. Walks without recursion, so deep nesting cannot overflow the stack.
 */
export function unstorablePath(value: unknown): (string | number)[] | null {
  const stack: { v: unknown; path: (string | number)[] }[] = [{ v: value, path: [] }];
  while (stack.length > 0) {
    const { v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (!isStorableText(v)) return path;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: [...path, i] });
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v as Record<string, unknown>);
      for (const [key] of entries) if (!isStorableText(key)) return [...path, printableText(key)];
      for (let i = entries.length - 1; i >= 0; i--) stack.push({ v: entries[i]![1], path: [...path, entries[i]![0]] });
    }
  }
  return null;
}

/**
 * `schema` (a string schema with its own rules) that also refuses text the database cannot store,
 * with the message "`what` must not contain NUL characters or unpaired surrogates".
 */
export function storedText<T extends z.ZodType<string | null | undefined>>(schema: T, what = 'Text'): T {
  return schema.refine((s) => typeof s !== 'string' || isStorableText(s), `${what} ${UNSTORABLE_TEXT}`) as T;
}

/** Adds an issue at the first unstorable string of `value` (see unstorablePath). For superRefine on free JSON. */
export function checkStorable(value: unknown, ctx: z.RefinementCtx, what = 'Text'): void {
  const path = unstorablePath(value);
  if (path) ctx.addIssue({ code: 'custom', path, message: `${what} ${UNSTORABLE_TEXT}` });
}

/** Any JSON value whose strings and keys are all storable. */
export const StoredJson = z.json().superRefine((v, ctx) => checkStorable(v, ctx));
