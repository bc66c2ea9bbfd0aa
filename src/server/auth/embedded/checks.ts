// What the embedded identity service checks in its input (e-mail, password, PKCE parameters) and
// in the rows it reads, and the password hash. Shared by sign-up, grants, user updates and routes.
import { hash as argonHash } from '@node-rs/argon2';
import { gotrue } from '../gotrue-errors';
import type { UserRow } from './serialize';

export const PASSWORD_MIN_LENGTH = 6;
// The HTML5 e-mail pattern, as GoTrue validates addresses.
const EMAIL_RE = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

export interface PkceParams {
  codeChallenge: string | null;
  codeChallengeMethod: 's256' | 'plain' | null;
}

export function validateEmail(raw: unknown): string {
  if (typeof raw !== 'string' || raw.trim() === '') throw gotrue.validation('An email address is required');
  const email = raw.trim().toLowerCase();
  if (email.length > 255) throw gotrue.validation('An email address is too long');
  if (!EMAIL_RE.test(email)) throw gotrue.badRequest('email_address_invalid', 'Unable to validate email address: invalid format');
  return email;
}

export function checkPasswordStrength(password: string): void {
  // Length in characters (code points), as GoTrue counts it.
  if ([...password].length < PASSWORD_MIN_LENGTH) throw gotrue.weakPassword(PASSWORD_MIN_LENGTH);
}

export function parsePkce(challenge: unknown, method: unknown): PkceParams {
  const c = typeof challenge === 'string' ? challenge : '';
  const m = typeof method === 'string' ? method.toLowerCase() : '';
  if (!c && !m) return { codeChallenge: null, codeChallengeMethod: null };
  if (!c || !m) throw gotrue.validation('PKCE flow requires code_challenge_method and code_challenge');
  if (m !== 's256' && m !== 'plain') throw gotrue.validation(`Unsupported code_challenge_method, supported methods are 'S256' or 'plain'`);
  if (c.length < 43 || c.length > 128 || !/^[A-Za-z0-9._~-]+$/.test(c)) throw gotrue.validation('code challenge has to be between 43 and 128 characters long');
  return { codeChallenge: c, codeChallengeMethod: m };
}

/** Replaced only by the API tests' harness (`usePasswordCostForTests`); nothing in the server sets it. */
let testCost: { memoryCost: number; timeCost: number } | undefined;

/** argon2id (the library's default algorithm) with its default cost: 19 MiB, 2 passes. */
export function hashPassword(password: string): Promise<string> {
  return argonHash(password, testCost);
}

/**
 * For test servers only (tests/api/harness.ts, tests/support/e2e-server.ts; docs/security.md):
 * argon2id at 1 MiB and one pass, about 1 ms a hash instead of 22, and as little to verify one (the
 * cost is read from the hash). Tests sign up people by the hundred; nothing in the server calls it.
 */
export function usePasswordCostForTests(): void {
  testCost = { memoryCost: 1024, timeCost: 1 };
}

export function isBanned(user: UserRow): boolean {
  return Boolean(user.bannedUntil && user.bannedUntil.getTime() > Date.now());
}

export function isUuid(s: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

