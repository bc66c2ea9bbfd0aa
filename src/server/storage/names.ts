// Validation shared by both drivers. Names are checked before they reach a file path or an S3
// request, so a key can never climb out of its bucket (local) or out of its prefix (S3, one bucket).
import { InvalidObjectNameError } from './types';

/** S3's rules for bucket names, minus dots (they break virtual-host TLS and look like path parts). */
const BUCKET_RE = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;
// Control characters (NUL included) and backslashes: never in a key, on any platform.
// eslint-disable-next-line no-control-regex
const FORBIDDEN_RE = /[\u0000-\u001f\u007f\\]/;
const MAX_KEY_BYTES = 1024;
/** type/subtype with optional parameters: what may be stored and later sent back as a Content-Type header. */
const TOKEN = "[A-Za-z0-9!#$&^_.+'*`|~-]+";
const CONTENT_TYPE_RE = new RegExp(`^${TOKEN}/${TOKEN}(\\s*;\\s*${TOKEN}=(${TOKEN}|"[^"\\u0000-\\u001f\\u007f]*"))*$`);
export const MAX_EXPIRY_SECONDS = 7 * 24 * 3600;

export function checkBucket(bucket: string): string {
  if (typeof bucket !== 'string' || !BUCKET_RE.test(bucket)) {
    throw new InvalidObjectNameError(`Invalid bucket name "${String(bucket).slice(0, 80)}": use 3-63 lowercase letters, digits and hyphens`);
  }
  return bucket;
}

function checkSegments(what: string, value: string, segments: string[]): void {
  for (const s of segments) {
    if (s === '' || s === '.' || s === '..') throw new InvalidObjectNameError(`Invalid ${what} "${value.slice(0, 200)}": empty, "." and ".." path segments are not allowed`);
  }
}

export function checkKey(key: string): string {
  if (typeof key !== 'string' || key.length === 0) throw new InvalidObjectNameError('Invalid key: it is empty');
  if (Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) throw new InvalidObjectNameError(`Invalid key: longer than ${MAX_KEY_BYTES} bytes`);
  if (FORBIDDEN_RE.test(key)) throw new InvalidObjectNameError('Invalid key: control characters and backslashes are not allowed');
  if (key.startsWith('/')) throw new InvalidObjectNameError(`Invalid key "${key.slice(0, 200)}": it must not start with "/"`);
  checkSegments('key', key, key.split('/'));
  return key;
}

/** A prefix is a key cut anywhere: every complete segment follows the key rules, the last one may be partial or empty. */
export function checkPrefix(prefix: string): string {
  if (typeof prefix !== 'string') throw new InvalidObjectNameError('Invalid prefix');
  if (prefix === '') return prefix;
  if (Buffer.byteLength(prefix, 'utf8') > MAX_KEY_BYTES) throw new InvalidObjectNameError(`Invalid prefix: longer than ${MAX_KEY_BYTES} bytes`);
  if (FORBIDDEN_RE.test(prefix)) throw new InvalidObjectNameError('Invalid prefix: control characters and backslashes are not allowed');
  if (prefix.startsWith('/')) throw new InvalidObjectNameError(`Invalid prefix "${prefix.slice(0, 200)}": it must not start with "/"`);
  checkSegments('prefix', prefix, prefix.split('/').slice(0, -1));
  return prefix;
}

export function checkContentType(contentType: string): string {
  if (typeof contentType !== 'string' || contentType.length > 255 || !CONTENT_TYPE_RE.test(contentType.trim())) {
    throw new InvalidObjectNameError(`Invalid content type "${String(contentType).slice(0, 80)}"`);
  }
  return contentType.trim();
}

/** Content types compare case-insensitively and without spaces around parameters. */
export function sameContentType(a: string, b: string): boolean {
  const norm = (s: string) => s.trim().toLowerCase().replace(/\s*;\s*/g, ';');
  return norm(a) === norm(b);
}

export function checkExpiry(seconds: number): number {
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_EXPIRY_SECONDS) {
    throw new RangeError(`expiresInSeconds must be a whole number from 1 to ${MAX_EXPIRY_SECONDS} (got ${seconds})`);
  }
  return seconds;
}

export function checkLength(contentLength: number | undefined): void {
  if (contentLength !== undefined && (!Number.isSafeInteger(contentLength) || contentLength < 0)) throw new RangeError(`contentLength must be a non-negative integer (got ${contentLength})`);
}

/** Encodes a key for a URL path: each segment percent-encoded, the slashes kept. */
export function encodeKeyPath(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}

/** UTF-8 byte order, the order S3 lists keys in. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
