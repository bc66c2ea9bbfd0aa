// JSON.parse of a large response in slices. load-data answers `{ "annotations": [...], ... }`,
// which at 100k shapes is 8-40 MB: one JSON.parse of it is a main-thread task of 0.1-1 s (more on
// a busy machine). Here a structural scan (strings skipped with indexOf, depth counted) finds the
// array's elements, and they are parsed by the native JSON.parse about 64 KB at a time, yielding
// to the event loop between slices. The result equals JSON.parse(text).

import { nextTask } from '../../../engine';

export interface SliceOptions {
  /** Main-thread time per task before yielding (default 8 ms). */
  budgetMs?: number;
  /** Checked between slices: true abandons the parse (it resolves to undefined). */
  isCancelled?: () => boolean;
  /** Once the scan has counted the array's elements. */
  onCount?: (total: number) => void;
  /** After each parsed slice: elements parsed of the total. */
  onProgress?: (done: number, total: number) => void;
}

/** Elements are parsed in groups of about this many characters. */
const CHUNK_CHARS = 64 * 1024;
/** Characters scanned between two looks at the clock. */
const SCAN_STEP = 64 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;

/** Index of the quote that closes the string opened at `start` (-1 if none). */
function stringEnd(text: string, start: number): number {
  let j = start + 1;
  for (;;) {
    const q = text.indexOf('"', j);
    if (q < 0) return -1;
    let backslashes = 0;
    for (let k = q - 1; k > start && text.charCodeAt(k) === BACKSLASH; k--) backslashes++;
    if (backslashes % 2 === 0) return q;
    j = q + 1;
  }
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * Parses `text`, a JSON object whose member `key` is a large array, in slices; anything else
 * (no such member, not an object) is parsed in one go. Throws SyntaxError on malformed JSON,
 * as JSON.parse would. Resolves to undefined (never a JSON value) when cancelled.
 */
export async function parseJsonInSlices(text: string, key: string, options: SliceOptions = {}): Promise<unknown> {
  const { budgetMs = 8, isCancelled, onCount, onProgress } = options;
  let t0 = performance.now();
  const pause = async (): Promise<boolean> => {
    if (performance.now() - t0 <= budgetMs) return false;
    await nextTask();
    t0 = performance.now();
    return Boolean(isCancelled?.());
  };

  // ---- scan: find the array under `key` and cut its elements into chunks
  const n = text.length;
  let depth = 0;
  /** At depth 1, the previous significant character: after '{' or ',' a string is a key. */
  let prev = -1;
  /** The last key at depth 1 was `key`; then its ':' was seen (the array opens next). */
  let keyMatched = false;
  let wantArray = false;
  let inArray = false;
  let arrayStart = -1;
  let arrayEnd = -1;
  let chunkStart = -1;
  let elements = 0;
  let sawElement = false;
  const chunks: [number, number][] = [];
  let i = 0;
  while (i < n) {
    const stop = Math.min(n, i + SCAN_STEP);
    for (; i < stop; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        const end = stringEnd(text, i);
        if (end < 0) return JSON.parse(text); // unterminated string: JSON.parse says where
        if (depth === 1) {
          if (prev === LBRACE || prev === COMMA) {
            const raw = text.slice(i + 1, end);
            keyMatched = raw === key || (raw.includes('\\') && JSON.parse(text.slice(i, end + 1)) === key);
          } else wantArray = false;
          prev = QUOTE;
        } else if (inArray && depth === 2) sawElement = true;
        i = end;
      } else if (isSpace(c)) {
        continue;
      } else if (c === LBRACE || c === LBRACKET) {
        if (depth <= 1) {
          if (depth === 1 && c === LBRACKET && wantArray && arrayStart < 0) {
            inArray = true;
            arrayStart = i;
            chunkStart = i + 1;
          }
          wantArray = false;
          prev = c;
        } else if (inArray && depth === 2) sawElement = true;
        depth++;
      } else if (c === RBRACE || c === RBRACKET) {
        depth--;
        if (inArray && depth === 1) {
          inArray = false;
          arrayEnd = i;
          if (sawElement) {
            elements++;
            chunks.push([chunkStart, i]);
          }
        }
        if (depth === 1) prev = c;
      } else if (depth === 1) {
        // ':' after a key, ',' between members, or a number / literal value
        wantArray = c === COLON && keyMatched;
        keyMatched = false;
        prev = c;
      } else if (inArray && depth === 2) {
        if (c === COMMA) {
          elements++;
          if (i - chunkStart >= CHUNK_CHARS) {
            chunks.push([chunkStart, i]);
            chunkStart = i + 1;
          }
        } else sawElement = true;
      }
    }
    if (await pause()) return undefined;
  }

  if (arrayStart < 0 || arrayEnd < 0) return JSON.parse(text);
  onCount?.(elements);

  // ---- parse: the envelope without the array, then the elements chunk by chunk
  const envelope = JSON.parse(text.slice(0, arrayStart) + '[]' + text.slice(arrayEnd + 1)) as Record<string, unknown>;
  const items: unknown[] = [];
  for (const [from, to] of chunks) {
    const part = JSON.parse(`[${text.slice(from, to)}]`) as unknown[];
    for (let k = 0; k < part.length; k++) items.push(part[k]);
    onProgress?.(items.length, elements);
    if (await pause()) return undefined;
  }
  if (items.length !== elements) throw new SyntaxError(`Expected ${elements} elements under '${key}', parsed ${items.length}`);
  envelope[key] = items;
  return envelope;
}
