// Access tokens (HS256 JWTs with GoTrue's claims), the anon / service_role API keys, and opaque
// secrets (refresh tokens, auth codes, e-mail link tokens) that are stored only as hashes.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors, type JWTPayload } from 'jose';

export const ACCESS_TOKEN_TTL_SECONDS = 3600;
// Fixed issue time, so the API keys are the same in every process that shares the secret and
// across restarts (the SPA may cache the anon key).
const API_KEY_IAT = 1_735_689_600; // 2025-01-01
const API_KEY_EXP = API_KEY_IAT + 20 * 365 * 24 * 3600;

export interface AmrEntry {
  method: string;
  timestamp: number;
}

export interface AccessTokenClaims extends JWTPayload {
  sub: string;
  email: string;
  phone: string;
  app_metadata: Record<string, unknown>;
  user_metadata: Record<string, unknown>;
  role: string;
  aal: string;
  amr: AmrEntry[];
  session_id: string;
  is_anonymous: boolean;
}

/** Verified tokens kept at most (a token is ~1 KB); past it the oldest is dropped. */
const VERIFIED_MAX = 10_000;

export class TokenSigner {
  // Imported once: every product API request verifies a token with it.
  private readonly key: Promise<CryptoKey>;
  /**
   * Tokens whose signature verified, by their exact text, with their claims: a request with the
   * same token skips the HMAC (jose via WebCrypto, a thread-pool job: ~0.5-0.9 ms of a list page's
   * CPU at load 11-17). Only the signature's work is kept: expiry is checked again on every use, and
   * whether the session is revoked or the user deleted or banned is the caller's check, after this
   * one (sessions.ts), so sign-out still takes effect. A token of other text, even one byte, is
   * verified in full.
   */
  private readonly verified = new Map<string, Readonly<JWTPayload>>();

  constructor(
    secret: string,
    readonly issuer: string,
  ) {
    this.key = crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  }

  async accessToken(claims: Omit<AccessTokenClaims, 'iss' | 'aud' | 'iat' | 'exp'>, now = Math.floor(Date.now() / 1000)): Promise<{ token: string; expiresAt: number }> {
    const expiresAt = now + ACCESS_TOKEN_TTL_SECONDS;
    const token = await new SignJWT({ ...claims })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(this.issuer)
      .setAudience('authenticated')
      .setIssuedAt(now)
      .setExpirationTime(expiresAt)
      .sign(await this.key);
    return { token, expiresAt };
  }

  /** The long-lived API keys supabase-js is created with (role anon) and admin callers use (role service_role). */
  async apiKey(role: 'anon' | 'service_role'): Promise<string> {
    return new SignJWT({ role })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer('supabase')
      .setIssuedAt(API_KEY_IAT)
      .setExpirationTime(API_KEY_EXP)
      .sign(await this.key);
  }

  /**
   * Verifies signature and expiry; the caller checks the claims it needs. Throws JwtError. A token
   * without `exp` is refused: it would never stop working.
   */
  async verify(token: string): Promise<Readonly<JWTPayload>> {
    const now = Date.now();
    const known = this.verified.get(token);
    // jose's own rule: expired once `exp` <= now in whole seconds.
    if (known && known.exp! > Math.floor(now / 1000)) return known;
    if (known) this.verified.delete(token);
    try {
      const { payload } = await jwtVerify(token, await this.key, { algorithms: ['HS256'], requiredClaims: ['exp'], currentDate: new Date(now) });
      if (this.verified.size >= VERIFIED_MAX) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(token, Object.freeze(payload));
      return payload;
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw new JwtError('token has invalid claims: token is expired');
      if (err instanceof joseErrors.JWSSignatureVerificationFailed) throw new JwtError('signature is invalid');
      if (err instanceof joseErrors.JOSEError) throw new JwtError(err.message);
      throw new JwtError('token is malformed');
    }
  }
}

export class JwtError extends Error {}

/** A random opaque secret, URL-safe. 32 bytes = 256 bits. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** How opaque secrets are stored: a plain SHA-256 is enough for high-entropy random values. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) return false;
  return timingSafeEqual(ab, bb);
}

/** RFC 7636 S256: BASE64URL(SHA256(verifier)). */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}
