// Signed-URL tokens of the local driver: HS256 JWTs scoped to one bucket, one key, one verb, and
// for uploads one content type and a size cap. The secret is storage's own (secrets.json), so no
// other token of the server can be replayed here.
import { createSecretKey, type KeyObject } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';

export const TOKEN_AUDIENCE = 'vellum-storage';

export interface StorageGrant {
  bucket: string;
  key: string;
  method: 'GET' | 'PUT';
  /** PUT only: the Content-Type the upload must carry. */
  contentType?: string;
  /** PUT only: the largest body accepted, in bytes. */
  maxBytes?: number;
  /** Seconds since the epoch. */
  exp: number;
}

export class StorageTokenError extends Error {
  constructor(
    readonly code: 'token_expired' | 'invalid_token',
    message: string,
  ) {
    super(message);
  }
}

/**
 * The HMAC key, made once: given raw bytes, jose imports them into WebCrypto on every signature
 * and every check (72 us a signature against 33 us with a key object; a quarter of the CPU of a
 * burst of batch-signed-urls in the load benchmark).
 */
export function tokenKey(secret: string): KeyObject {
  return createSecretKey(Buffer.from(secret, 'utf8'));
}

export async function signGrant(key: KeyObject, grant: Omit<StorageGrant, 'exp'>, expiresAt: Date): Promise<string> {
  const claims: Record<string, unknown> = { b: grant.bucket, k: grant.key, m: grant.method };
  if (grant.contentType !== undefined) claims.ct = grant.contentType;
  if (grant.maxBytes !== undefined) claims.max = grant.maxBytes;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setAudience(TOKEN_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(key);
}

export async function verifyGrant(key: KeyObject, token: string): Promise<StorageGrant> {
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, key, { algorithms: ['HS256'], audience: TOKEN_AUDIENCE, requiredClaims: ['exp'] }));
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) throw new StorageTokenError('token_expired', 'The signed URL has expired');
    throw new StorageTokenError('invalid_token', 'The signed URL token is invalid');
  }
  const { b, k, m, ct, max, exp } = payload;
  const ok =
    typeof b === 'string' &&
    typeof k === 'string' &&
    (m === 'GET' || m === 'PUT') &&
    (ct === undefined || typeof ct === 'string') &&
    (max === undefined || (typeof max === 'number' && Number.isSafeInteger(max) && max >= 0)) &&
    typeof exp === 'number';
  if (!ok) throw new StorageTokenError('invalid_token', 'The signed URL token is invalid');
  return { bucket: b, key: k, method: m, contentType: ct as string | undefined, maxBytes: max as number | undefined, exp };
}
