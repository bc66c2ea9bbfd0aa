// The embedded identity service: what GoTrue does for the endpoints supabase-js uses, over our
// auth_* tables. routes.ts maps HTTP onto it; the product API's wrappers call it directly.
import { randomUUID } from 'node:crypto';
import { and, desc, eq, inArray, isNull, lt, ne, sql } from 'drizzle-orm';
import { hash as argonHash, verify as argonVerify } from '@node-rs/argon2';
import type { Db } from '../../db/client';
import { authFlowStates, authIdentities, authRefreshTokens, authSessions, authUsers } from '../../db/schema';
import { errors } from '../../http/errors';
import type { AuthSession, AuthUser } from '../types';
import { GoTrueError, gotrue } from '../gotrue-errors';
import { ACCESS_TOKEN_TTL_SECONDS, JwtError, constantTimeEqual, hashToken, randomToken, s256, type AmrEntry, type TokenSigner } from './tokens';
import { userJson, type IdentityRow, type UserRow } from './serialize';
import { confirmEmailChangeMail, confirmSignupMail, type Mailer } from './mailer';
import type { ProviderClaims } from './google';
import {
  ACCOUNT_FAILURE_WINDOW_MS,
  ACCOUNT_FREE_FAILURES,
  ACCOUNT_MAX_WAIT_S,
  AccountBackoff,
  MAILS_PER_ADDRESS,
  MAILS_PER_RECIPIENT,
  MAIL_MIN_INTERVAL_MS,
  REFRESHES_PER_ADDRESS,
  REFRESHES_PER_SESSION,
  SIGN_IN_FAILURES_PER_PAIR,
  SIGN_UPS_PER_ADDRESS,
  WindowLimit,
  waitInWords,
} from './throttle';

export const PASSWORD_MIN_LENGTH = 6;
const CONFIRMATION_TTL_MS = 24 * 3600_000;
/** How long the auth code from a callback or e-mail link can be exchanged (GoTrue: 5 minutes). */
const AUTH_CODE_TTL_MS = 5 * 60_000;
/** How long a started Google sign-in may take before its callback is refused. */
const OAUTH_FLOW_TTL_MS = 10 * 60_000;
const SESSION_CACHE_TTL_MS = 10_000;
const SESSION_CACHE_MAX = 20_000;
// The HTML5 e-mail pattern, as GoTrue validates addresses.
const EMAIL_RE = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
type Exec = Db | Tx;
type SessionRow = typeof authSessions.$inferSelect;

export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
}

/** The caller of a GoTrue endpoint, after requireAuthentication. */
export interface Authenticated {
  user: UserRow;
  session: SessionRow | null;
  claims: Record<string, unknown>;
}

export type SignUpResult = { kind: 'session'; session: AuthSession } | { kind: 'user'; user: Record<string, unknown> };

export interface PkceParams {
  codeChallenge: string | null;
  codeChallengeMethod: 's256' | 'plain' | null;
}

export interface ServiceOptions {
  publicUrl: string;
  siteUrl: string;
  signer: TokenSigner;
  mailer: Mailer | null;
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

/** A small, short-lived memory of which sessions are live, so the product API does not hit the
 * database on every request. Revocations in this process drop entries at once. */
class SessionCache {
  private readonly entries = new Map<string, { userId: string; live: boolean; bannedUntil: number; until: number }>();

  get(sessionId: string) {
    const e = this.entries.get(sessionId);
    if (!e || e.until < Date.now()) return null;
    return e;
  }

  set(sessionId: string, userId: string, live: boolean, bannedUntil: number) {
    if (this.entries.size >= SESSION_CACHE_MAX) this.entries.clear();
    this.entries.set(sessionId, { userId, live, bannedUntil, until: Date.now() + SESSION_CACHE_TTL_MS });
  }

  dropSessions(ids: string[]) {
    for (const id of ids) this.entries.delete(id);
  }

  dropUser(userId: string) {
    for (const [id, e] of this.entries) if (e.userId === userId) this.entries.delete(id);
  }
}

export class EmbeddedAuthService {
  private readonly cache = new SessionCache();
  private dummyHash: Promise<string> | null = null;
  private readonly failedSignIns = new WindowLimit(SIGN_IN_FAILURES_PER_PAIR);
  private readonly accountBackoff = new AccountBackoff(ACCOUNT_FREE_FAILURES, ACCOUNT_MAX_WAIT_S, ACCOUNT_FAILURE_WINDOW_MS);
  private readonly signUpsPerAddress = new WindowLimit(SIGN_UPS_PER_ADDRESS);
  private readonly mailsPerMinute = new WindowLimit({ max: 1, windowMs: MAIL_MIN_INTERVAL_MS });
  private readonly mailsPerRecipient = new WindowLimit(MAILS_PER_RECIPIENT);
  private readonly mailsPerAddress = new WindowLimit(MAILS_PER_ADDRESS);
  private readonly refreshesPerAddress = new WindowLimit(REFRESHES_PER_ADDRESS);
  private readonly refreshesPerSession = new WindowLimit(REFRESHES_PER_SESSION);
  private lastCleanup = 0;

  constructor(
    private readonly db: Db,
    private readonly opts: ServiceOptions,
  ) {}

  get autoconfirm(): boolean {
    return this.opts.mailer === null;
  }

  // ---------------------------------------------------------------- sign-up and sign-in

  async signUp(input: { email: unknown; password: unknown; data: unknown; pkce: PkceParams; redirectTo: string }, meta: RequestMeta): Promise<SignUpResult> {
    // Every attempt from the address counts, whatever becomes of it (as GoTrue counts requests).
    const wait = this.signUpsPerAddress.take(meta.ip ?? '');
    if (wait > 0) throw gotrue.tooManyRequests(wait, `Too many sign-ups from your network. Try again in ${waitInWords(wait)}.`);
    if (typeof input.password !== 'string' || input.password === '') throw gotrue.validation('Signup requires a valid password');
    const password = input.password;
    checkPasswordStrength(password);
    const email = validateEmail(input.email);
    const data = isPlainObject(input.data) ? input.data : {};
    // With confirmation mails, every sign-up spends one of the address's mails before the account
    // is looked up, even one that only pretends to mail, so that limit does not tell registered
    // addresses from others.
    if (this.opts.mailer) this.takeAddressMail(meta.ip);

    const existing = await this.findLiveUserByEmail(this.db, email);
    if (existing) return this.repeatedSignUp(existing, data, input.pkce, input.redirectTo);

    // Hash outside any transaction: it is deliberately slow.
    const encrypted = await hashPassword(password);
    const now = new Date();
    const id = randomUUID();
    let user: UserRow;
    try {
      user = await this.db.transaction(async (tx) => {
        const [row] = await tx
          .insert(authUsers)
          .values({
            id,
            email,
            encryptedPassword: encrypted,
            emailConfirmedAt: this.autoconfirm ? now : null,
            userMetaData: data,
            appMetaData: { provider: 'email', providers: ['email'] },
            createdAt: now,
            updatedAt: now,
          })
          .returning();
        await tx.insert(authIdentities).values({
          id: randomUUID(),
          userId: id,
          provider: 'email',
          providerId: id,
          identityData: { ...data, sub: id, email, email_verified: this.autoconfirm, phone_verified: false },
          createdAt: now,
          updatedAt: now,
        });
        return row;
      });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      // Lost a race with a concurrent sign-up of the same address.
      const winner = await this.findLiveUserByEmail(this.db, email);
      if (!winner) throw err;
      return this.repeatedSignUp(winner, data, input.pkce, input.redirectTo);
    }

    if (this.autoconfirm) {
      const session = await this.db.transaction((tx) => this.issueSession(tx, user, 'password', meta));
      return { kind: 'session', session };
    }
    try {
      await this.sendSignupConfirmation(user, input.pkce, input.redirectTo);
    } catch (err) {
      // No half-made accounts: without the mail nobody could ever confirm this one.
      await this.db.delete(authUsers).where(eq(authUsers.id, user.id));
      throw err;
    }
    return { kind: 'user', user: await this.userJsonById(this.db, user.id) };
  }

  /** GoTrue's answer when the address is taken: an error with auto-confirm on; otherwise an
   * unconfirmed account gets its mail again and a confirmed one a look-alike user object, so the
   * answer does not reveal whether the address is registered. */
  private async repeatedSignUp(existing: UserRow, data: Record<string, unknown>, pkce: PkceParams, redirectTo: string): Promise<SignUpResult> {
    if (this.autoconfirm) throw gotrue.unprocessable('user_already_exists', 'User already registered');
    if (!existing.emailConfirmedAt) {
      const sentAt = existing.confirmationSentAt?.getTime() ?? 0;
      const wait = sentAt + MAIL_MIN_INTERVAL_MS - Date.now();
      if (wait > 0) throw gotrue.tooManyEmails(Math.ceil(wait / 1000));
      await this.sendSignupConfirmation(existing, pkce, redirectTo);
      return { kind: 'user', user: await this.userJsonById(this.db, existing.id) };
    }
    const now = new Date().toISOString();
    return {
      kind: 'user',
      user: {
        id: randomUUID(),
        aud: 'authenticated',
        role: '',
        email: existing.email,
        phone: '',
        confirmation_sent_at: now,
        app_metadata: { provider: 'email', providers: ['email'] },
        user_metadata: data,
        identities: [],
        created_at: now,
        updated_at: now,
        is_anonymous: false,
      },
    };
  }

  private async sendSignupConfirmation(user: UserRow, pkce: PkceParams, redirectTo: string): Promise<void> {
    const mailer = this.opts.mailer;
    if (!mailer) return;
    this.checkRecipientMail(user.email);
    this.recordRecipientMail(user.email);
    const token = randomToken();
    await this.db.transaction(async (tx) => {
      await tx.update(authUsers).set({ confirmationToken: hashToken(token), confirmationSentAt: new Date() }).where(eq(authUsers.id, user.id));
      await tx.delete(authFlowStates).where(and(eq(authFlowStates.userId, user.id), eq(authFlowStates.provider, 'email')));
      if (pkce.codeChallenge) await this.createFlowState(tx, { provider: 'email', pkce, redirectTo, userId: user.id });
    });
    try {
      await mailer.send(confirmSignupMail(user.email, this.verifyLink(token, 'signup', redirectTo)));
    } catch (err) {
      throw new GoTrueError(500, 'unexpected_failure', 'Error sending confirmation email', {}).withCause(err);
    }
  }

  /** Throws GoTrue's 429 when `recipient` had a mail in the last minute, or its hourly share. */
  private checkRecipientMail(recipient: string): void {
    const key = recipient.toLowerCase();
    const soon = this.mailsPerMinute.retryAfter(key);
    if (soon > 0) throw gotrue.tooManyEmails(soon);
    const later = this.mailsPerRecipient.retryAfter(key);
    if (later > 0) throw gotrue.tooManyEmails(later, `Too many e-mails were sent to this address. Try again in ${waitInWords(later)}.`);
  }

  private recordRecipientMail(recipient: string): void {
    const key = recipient.toLowerCase();
    this.mailsPerMinute.record(key);
    this.mailsPerRecipient.record(key);
  }

  /** Spends one of the client address's mails, or throws GoTrue's 429. */
  private takeAddressMail(ip: string | null): void {
    const wait = this.mailsPerAddress.take(ip ?? '');
    if (wait > 0) throw gotrue.tooManyEmails(wait, `Too many e-mails were requested from your network. Try again in ${waitInWords(wait)}.`);
  }

  private verifyLink(token: string, type: string, redirectTo: string): string {
    const q = new URLSearchParams({ token, type, redirect_to: redirectTo });
    return `${this.opts.publicUrl}/auth/v1/verify?${q}`;
  }

  async passwordGrant(input: { email: unknown; password: unknown }, meta: RequestMeta): Promise<AuthSession> {
    if (typeof input.email !== 'string' || input.email.trim() === '') throw gotrue.validation('missing email or phone');
    const password = typeof input.password === 'string' ? input.password : '';
    const email = input.email.trim().toLowerCase();
    const limitKey = `${email}|${meta.ip ?? ''}`;
    const wait = Math.max(this.failedSignIns.retryAfter(limitKey), this.accountBackoff.retryAfter(email));
    if (wait > 0) throw gotrue.tooManyRequests(wait, `Too many failed sign-in attempts. Try again in ${wait} seconds.`);
    this.maybeCleanUp();
    const user = await this.findLiveUserByEmail(this.db, email);
    if (!user || !user.encryptedPassword) {
      // Spend the same time as a real check, so timing does not tell which addresses exist.
      await argonVerify(await this.getDummyHash(), password).catch(() => false);
      this.failedSignIns.record(limitKey);
      this.accountBackoff.record(email);
      throw gotrue.invalidCredentials();
    }
    const ok = await argonVerify(user.encryptedPassword, password).catch(() => false);
    if (!ok) {
      this.failedSignIns.record(limitKey);
      this.accountBackoff.record(email);
      throw gotrue.invalidCredentials();
    }
    this.failedSignIns.clear(limitKey);
    this.accountBackoff.clear(email);
    if (isBanned(user)) throw gotrue.badRequest('user_banned', 'User is banned');
    if (!user.emailConfirmedAt) throw gotrue.badRequest('email_not_confirmed', 'Email not confirmed');
    return this.db.transaction((tx) => this.issueSession(tx, user, 'password', meta));
  }

  async refreshGrant(refreshToken: unknown, meta: RequestMeta): Promise<AuthSession> {
    const wait = this.refreshesPerAddress.take(meta.ip ?? '');
    if (wait > 0) throw gotrue.tooManyRequests(wait, `Too many sign-in refreshes from your network. Try again in ${waitInWords(wait)}.`);
    if (typeof refreshToken !== 'string' || refreshToken === '') throw gotrue.oauth('invalid_request', 'refresh_token required');
    const tokenHash = hashToken(refreshToken);
    const outcome = await this.db.transaction(async (tx) => {
      const [row] = await tx.select().from(authRefreshTokens).where(eq(authRefreshTokens.tokenHash, tokenHash)).for('update');
      if (!row) return { error: gotrue.badRequest('refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found') };
      const [session] = await tx.select().from(authSessions).where(eq(authSessions.id, row.sessionId)).for('update');
      const [user] = await tx.select().from(authUsers).where(eq(authUsers.id, row.userId));
      if (!session || !user || user.deletedAt) return { error: gotrue.badRequest('refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found') };
      if (row.revoked) {
        // A refresh token is good for one use. Seeing one again means it leaked (or a client lost
        // an answer): end the whole session, so whatever was derived from it stops working too.
        if (!session.revokedAt) await this.revokeSessionsWhere(tx, eq(authSessions.id, session.id), { keepRefreshTokens: true });
        return { error: gotrue.badRequest('refresh_token_already_used', 'Invalid Refresh Token: Already Used') };
      }
      if (session.revokedAt) return { error: gotrue.badRequest('refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found') };
      if (isBanned(user)) return { error: gotrue.badRequest('user_banned', 'Invalid Refresh Token: User Banned') };
      // Counted after the reuse check, so that a throttled session still ends when a used token comes back.
      const sessionWait = this.refreshesPerSession.take(session.id);
      if (sessionWait > 0) return { error: gotrue.tooManyRequests(sessionWait, `This session is being refreshed too often. Try again in ${waitInWords(sessionWait)}.`) };
      await tx.update(authRefreshTokens).set({ revoked: true }).where(eq(authRefreshTokens.id, row.id));
      const next = randomToken();
      await tx.insert(authRefreshTokens).values({ tokenHash: hashToken(next), sessionId: session.id, userId: user.id, parentId: row.id });
      await tx.update(authSessions).set({ updatedAt: new Date(), ip: meta.ip ?? session.ip, userAgent: meta.userAgent ?? session.userAgent }).where(eq(authSessions.id, session.id));
      return { session: await this.sessionResponse(tx, user, session, next) };
    });
    if ('error' in outcome) throw outcome.error;
    return outcome.session;
  }

  async pkceGrant(authCode: unknown, codeVerifier: unknown, meta: RequestMeta): Promise<AuthSession> {
    if (typeof authCode !== 'string' || !authCode || typeof codeVerifier !== 'string' || !codeVerifier) {
      throw gotrue.validation('invalid request: both auth code and code verifier should be non-empty');
    }
    const outcome = await this.db.transaction(async (tx) => {
      const [flow] = await tx.select().from(authFlowStates).where(eq(authFlowStates.authCode, hashToken(authCode))).for('update');
      if (!flow || !flow.userId) return { error: gotrue.notFound('flow_state_not_found', 'invalid flow state, no valid flow state found') };
      const issued = flow.authCodeIssuedAt?.getTime() ?? 0;
      if (issued + AUTH_CODE_TTL_MS < Date.now()) {
        await tx.delete(authFlowStates).where(eq(authFlowStates.id, flow.id));
        return { error: gotrue.unprocessable('flow_state_expired', 'invalid flow state, flow state has expired') };
      }
      const expected = flow.codeChallengeMethod === 'plain' ? codeVerifier : s256(codeVerifier);
      if (!constantTimeEqual(expected, flow.codeChallenge)) {
        return { error: gotrue.badRequest('bad_code_verifier', 'code challenge does not match previously saved code verifier') };
      }
      // One exchange per code.
      await tx.delete(authFlowStates).where(eq(authFlowStates.id, flow.id));
      const [user] = await tx.select().from(authUsers).where(eq(authUsers.id, flow.userId));
      if (!user || user.deletedAt) return { error: gotrue.notFound('user_not_found', 'User not found') };
      if (isBanned(user)) return { error: gotrue.badRequest('user_banned', 'User is banned') };
      const method = flow.provider === 'email' ? 'email/signup' : flow.provider === 'email_change' ? 'email_change' : 'oauth';
      return { session: await this.issueSession(tx, user, method, meta) };
    });
    if ('error' in outcome) throw outcome.error;
    return outcome.session;
  }

  // ---------------------------------------------------------------- sessions and tokens

  private async issueSession(tx: Exec, user: UserRow, method: string, meta: RequestMeta): Promise<AuthSession> {
    const now = new Date();
    const amr: AmrEntry[] = [{ method, timestamp: Math.floor(now.getTime() / 1000) }];
    const [session] = await tx
      .insert(authSessions)
      .values({ id: randomUUID(), userId: user.id, aal: 'aal1', amr, ip: meta.ip, userAgent: meta.userAgent?.slice(0, 512) ?? null, createdAt: now, updatedAt: now })
      .returning();
    const refresh = randomToken();
    await tx.insert(authRefreshTokens).values({ tokenHash: hashToken(refresh), sessionId: session.id, userId: user.id });
    const [updated] = await tx.update(authUsers).set({ lastSignInAt: now }).where(eq(authUsers.id, user.id)).returning();
    return this.sessionResponse(tx, updated, session, refresh);
  }

  private async sessionResponse(tx: Exec, user: UserRow, session: SessionRow, refreshToken: string): Promise<AuthSession> {
    const { token, expiresAt } = await this.opts.signer.accessToken({
      sub: user.id,
      email: user.email,
      phone: '',
      app_metadata: user.appMetaData ?? {},
      user_metadata: user.userMetaData ?? {},
      role: 'authenticated',
      aal: session.aal,
      amr: session.amr,
      session_id: session.id,
      is_anonymous: false,
    });
    return {
      access_token: token,
      token_type: 'bearer',
      expires_in: ACCESS_TOKEN_TTL_SECONDS,
      expires_at: expiresAt,
      refresh_token: refreshToken,
      user: userJson(user, await this.identitiesOf(tx, user.id)),
    };
  }

  /** GoTrue's requireAuthentication: a valid JWT whose user and session still exist. */
  async authenticate(bearer: string | null): Promise<Authenticated> {
    if (!bearer) throw gotrue.noAuthorization();
    let claims: Record<string, unknown>;
    try {
      claims = await this.opts.signer.verify(bearer);
    } catch (err) {
      throw gotrue.badJwt(err instanceof JwtError ? err.message : 'token is malformed');
    }
    if (typeof claims.sub !== 'string' || claims.sub === '') throw gotrue.badJwt('invalid claim: missing sub claim');
    if (!isUuid(claims.sub)) throw gotrue.badRequest('bad_jwt', 'invalid claim: sub claim must be a UUID');
    const [user] = await this.db.select().from(authUsers).where(eq(authUsers.id, claims.sub));
    if (!user || user.deletedAt) throw gotrue.userNotFoundFromJwt();
    let session: SessionRow | null = null;
    if (typeof claims.session_id === 'string' && claims.session_id) {
      if (!isUuid(claims.session_id)) throw gotrue.sessionNotFound();
      const [row] = await this.db.select().from(authSessions).where(eq(authSessions.id, claims.session_id));
      if (!row || row.revokedAt || row.userId !== user.id) throw gotrue.sessionNotFound();
      session = row;
    }
    return { user, session, claims };
  }

  /** The product API's check: signature, expiry, audience, then a live session of a live user. */
  async sessionIsLive(sessionId: string, userId: string): Promise<boolean> {
    const [row] = await this.db
      .select({ userId: authSessions.userId, revokedAt: authSessions.revokedAt, deletedAt: authUsers.deletedAt })
      .from(authSessions)
      .innerJoin(authUsers, eq(authUsers.id, authSessions.userId))
      .where(eq(authSessions.id, sessionId));
    const live = Boolean(row && row.userId === userId && !row.revokedAt && !row.deletedAt);
    if (!live) this.cache.dropSessions([sessionId]);
    return live;
  }

  async verifyAccessToken(token: string): Promise<AuthUser> {
    let claims: Record<string, unknown>;
    try {
      claims = await this.opts.signer.verify(token);
    } catch {
      throw errors.unauthorized('Invalid or expired token', 'bad_jwt');
    }
    const aud = claims.aud;
    const audOk = aud === 'authenticated' || (Array.isArray(aud) && aud.includes('authenticated'));
    if (!audOk || claims.iss !== this.opts.signer.issuer || claims.role !== 'authenticated' || typeof claims.sub !== 'string' || !isUuid(claims.sub)) {
      throw errors.unauthorized('Invalid or expired token', 'bad_jwt');
    }
    const userId = claims.sub;
    const sessionId = typeof claims.session_id === 'string' && claims.session_id ? claims.session_id : null;
    if (sessionId) {
      if (!isUuid(sessionId)) throw errors.unauthorized('Invalid or expired token', 'session_not_found');
      let entry = this.cache.get(sessionId);
      if (!entry) {
        const rows = await this.db
          .select({ userId: authSessions.userId, revokedAt: authSessions.revokedAt, deletedAt: authUsers.deletedAt, bannedUntil: authUsers.bannedUntil })
          .from(authSessions)
          .innerJoin(authUsers, eq(authUsers.id, authSessions.userId))
          .where(eq(authSessions.id, sessionId));
        const row = rows[0];
        const live = Boolean(row && !row.revokedAt && !row.deletedAt);
        this.cache.set(sessionId, row?.userId ?? '', live, row?.bannedUntil?.getTime() ?? 0);
        entry = this.cache.get(sessionId)!;
      }
      if (!entry.live || entry.userId !== userId) throw errors.unauthorized('Invalid or expired token', 'session_not_found');
      if (entry.bannedUntil > Date.now()) throw errors.unauthorized('This account is suspended', 'user_banned');
    } else {
      // Tokens minted without a session (only possible with the signing secret) still need a live user.
      const [user] = await this.db.select().from(authUsers).where(eq(authUsers.id, userId));
      if (!user || user.deletedAt) throw errors.unauthorized('Invalid or expired token', 'user_not_found');
      if (isBanned(user)) throw errors.unauthorized('This account is suspended', 'user_banned');
    }
    return {
      id: userId,
      email: typeof claims.email === 'string' ? claims.email : '',
      sessionId,
      role: 'authenticated',
      userMetadata: isPlainObject(claims.user_metadata) ? claims.user_metadata : {},
    };
  }

  async logout(auth: Authenticated, scopeRaw: string | undefined): Promise<void> {
    const scope = scopeRaw ?? 'global';
    if (!['global', 'local', 'others', ''].includes(scope)) throw gotrue.validation(`Unsupported logout scope "${scope}"`);
    const userId = auth.user.id;
    const sessionId = auth.session?.id ?? null;
    await this.db.transaction(async (tx) => {
      if (sessionId && scope === 'local') await this.revokeSessionsWhere(tx, eq(authSessions.id, sessionId));
      else if (sessionId && scope === 'others') await this.revokeSessionsWhere(tx, and(eq(authSessions.userId, userId), ne(authSessions.id, sessionId))!);
      else await this.revokeSessionsWhere(tx, eq(authSessions.userId, userId));
    });
  }

  /** Ends sessions: their access tokens are refused from now on and their refresh tokens are gone
   * (kept, already marked used, when ending a session for refresh-token reuse). */
  private async revokeSessionsWhere(tx: Exec, where: ReturnType<typeof eq>, opts: { keepRefreshTokens?: boolean } = {}): Promise<string[]> {
    const rows = await tx
      .update(authSessions)
      .set({ revokedAt: new Date() })
      .where(and(where, isNull(authSessions.revokedAt)))
      .returning({ id: authSessions.id });
    const ids = rows.map((r) => r.id);
    if (ids.length && !opts.keepRefreshTokens) await tx.delete(authRefreshTokens).where(inArray(authRefreshTokens.sessionId, ids));
    this.cache.dropSessions(ids);
    return ids;
  }

  // ---------------------------------------------------------------- the user

  async getUser(auth: Authenticated): Promise<Record<string, unknown>> {
    return this.userJsonById(this.db, auth.user.id);
  }

  async updateUser(auth: Authenticated, body: Record<string, unknown>, pkce: PkceParams, redirectTo: string, meta: RequestMeta): Promise<Record<string, unknown>> {
    const user = auth.user;
    const patch: Partial<typeof authUsers.$inferInsert> = {};
    if (body.data !== undefined && body.data !== null) {
      if (!isPlainObject(body.data)) throw gotrue.badJson('data must be an object');
      // GoTrue merges: keys set to null are removed, others replace.
      const merged: Record<string, unknown> = { ...(user.userMetaData ?? {}) };
      for (const [k, v] of Object.entries(body.data)) {
        if (v === null) delete merged[k];
        else merged[k] = v;
      }
      patch.userMetaData = merged;
    }
    let passwordChanged = false;
    if (body.password !== undefined && body.password !== null) {
      if (typeof body.password !== 'string') throw gotrue.badJson('password must be a string');
      checkPasswordStrength(body.password);
      if (user.encryptedPassword && (await argonVerify(user.encryptedPassword, body.password).catch(() => false))) {
        throw gotrue.unprocessable('same_password', 'New password should be different from the old password.');
      }
      patch.encryptedPassword = await hashPassword(body.password);
      passwordChanged = true;
    }
    let emailChangeToken: string | null = null;
    let newEmail: string | null = null;
    if (body.email !== undefined && body.email !== null && body.email !== '') {
      newEmail = validateEmail(body.email);
      if (newEmail === user.email) newEmail = null;
      else {
        const taken = await this.findLiveUserByEmail(this.db, newEmail);
        if (taken) throw gotrue.unprocessable('email_exists', 'A user with this email address has already been registered');
        if (this.autoconfirm) {
          patch.email = newEmail;
        } else {
          const sentAt = user.emailChange === newEmail ? (user.emailChangeSentAt?.getTime() ?? 0) : 0;
          const wait = sentAt + MAIL_MIN_INTERVAL_MS - Date.now();
          if (wait > 0) throw gotrue.tooManyEmails(Math.ceil(wait / 1000));
          this.checkRecipientMail(newEmail);
          this.takeAddressMail(meta.ip);
          this.recordRecipientMail(newEmail);
          emailChangeToken = randomToken();
          patch.emailChange = newEmail;
          patch.emailChangeToken = hashToken(emailChangeToken);
          patch.emailChangeSentAt = new Date();
        }
      }
    }

    try {
      await this.db.transaction(async (tx) => {
        if (Object.keys(patch).length) {
          await tx.update(authUsers).set({ ...patch, updatedAt: new Date() }).where(eq(authUsers.id, user.id));
        }
        if (patch.email) await this.setIdentityEmail(tx, user.id, patch.email);
        if (passwordChanged) {
          // Like GoTrue: a new password signs out every other session.
          if (auth.session) await this.revokeSessionsWhere(tx, and(eq(authSessions.userId, user.id), ne(authSessions.id, auth.session.id))!);
          await this.ensureEmailIdentity(tx, user);
        }
        if (emailChangeToken && pkce.codeChallenge) {
          await tx.delete(authFlowStates).where(and(eq(authFlowStates.userId, user.id), eq(authFlowStates.provider, 'email_change')));
          await this.createFlowState(tx, { provider: 'email_change', pkce, redirectTo, userId: user.id });
        }
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw gotrue.unprocessable('email_exists', 'A user with this email address has already been registered');
      throw err;
    }
    if (emailChangeToken && newEmail && this.opts.mailer) {
      try {
        await this.opts.mailer.send(confirmEmailChangeMail(newEmail, this.verifyLink(emailChangeToken, 'email_change', redirectTo)));
      } catch (err) {
        throw new GoTrueError(500, 'unexpected_failure', 'Error sending email change email').withCause(err);
      }
    }
    return this.userJsonById(this.db, user.id);
  }

  private async setIdentityEmail(tx: Exec, userId: string, email: string): Promise<void> {
    await tx
      .update(authIdentities)
      .set({ identityData: sql`${authIdentities.identityData} || ${JSON.stringify({ email })}::jsonb`, updatedAt: new Date() })
      .where(and(eq(authIdentities.userId, userId), eq(authIdentities.provider, 'email')));
  }

  /** A Google-only account that sets a password can then also sign in with e-mail and password. */
  private async ensureEmailIdentity(tx: Exec, user: UserRow): Promise<void> {
    const [has] = await tx.select({ id: authIdentities.id }).from(authIdentities).where(and(eq(authIdentities.userId, user.id), eq(authIdentities.provider, 'email')));
    if (has) return;
    const now = new Date();
    await tx.insert(authIdentities).values({
      id: randomUUID(),
      userId: user.id,
      provider: 'email',
      providerId: user.id,
      identityData: { sub: user.id, email: user.email, email_verified: Boolean(user.emailConfirmedAt), phone_verified: false },
      createdAt: now,
      updatedAt: now,
    });
    const providers = new Set(Array.isArray(user.appMetaData?.providers) ? (user.appMetaData.providers as string[]) : []);
    providers.add('email');
    await tx
      .update(authUsers)
      .set({ appMetaData: { ...(user.appMetaData ?? {}), providers: [...providers] } })
      .where(eq(authUsers.id, user.id));
  }

  // ---------------------------------------------------------------- e-mail links

  /** GET /verify: confirms a sign-up or an e-mail change. Returns the user and, when the client
   * started with PKCE, an auth code to hand back instead of tokens. */
  async verifyEmailLink(token: string, type: string, meta: RequestMeta): Promise<{ user: UserRow; authCode: string | null; session: AuthSession | null; redirectTo: string | null }> {
    const isChange = type === 'email_change';
    if (!isChange && type !== 'signup' && type !== 'email') throw gotrue.validation(`Verify requires a verification type`);
    const tokenHash = hashToken(token);
    const outcome = await this.db.transaction(async (tx) => {
      const column = isChange ? authUsers.emailChangeToken : authUsers.confirmationToken;
      const [user] = await tx.select().from(authUsers).where(and(eq(column, tokenHash), isNull(authUsers.deletedAt))).for('update');
      const sentAt = isChange ? user?.emailChangeSentAt : user?.confirmationSentAt;
      if (!user || !sentAt || sentAt.getTime() + CONFIRMATION_TTL_MS < Date.now()) {
        return { error: new GoTrueError(403, 'otp_expired', 'Email link is invalid or has expired') };
      }
      const now = new Date();
      let updated: UserRow;
      if (isChange) {
        const newEmail = user.emailChange!;
        const taken = await this.findLiveUserByEmail(tx, newEmail);
        if (taken && taken.id !== user.id) return { error: gotrue.unprocessable('email_exists', 'A user with this email address has already been registered') };
        [updated] = await tx
          .update(authUsers)
          .set({ email: newEmail, emailChange: null, emailChangeToken: null, emailChangeSentAt: null, emailConfirmedAt: user.emailConfirmedAt ?? now, updatedAt: now })
          .where(eq(authUsers.id, user.id))
          .returning();
        await this.setIdentityEmail(tx, user.id, newEmail);
      } else {
        [updated] = await tx
          .update(authUsers)
          .set({ emailConfirmedAt: user.emailConfirmedAt ?? now, confirmationToken: null, updatedAt: now })
          .where(eq(authUsers.id, user.id))
          .returning();
        await tx
          .update(authIdentities)
          .set({ identityData: sql`${authIdentities.identityData} || '{"email_verified": true}'::jsonb`, updatedAt: now })
          .where(and(eq(authIdentities.userId, user.id), eq(authIdentities.provider, 'email')));
      }
      const provider = isChange ? 'email_change' : 'email';
      const [flow] = await tx
        .select()
        .from(authFlowStates)
        .where(and(eq(authFlowStates.userId, user.id), eq(authFlowStates.provider, provider)))
        .orderBy(desc(authFlowStates.createdAt))
        .limit(1);
      if (flow && flow.codeChallenge) {
        const code = randomUUID();
        await tx.update(authFlowStates).set({ authCode: hashToken(code), authCodeIssuedAt: now }).where(eq(authFlowStates.id, flow.id));
        return { user: updated, authCode: code, session: null, redirectTo: flow.redirectTo };
      }
      const session = await this.issueSession(tx, updated, isChange ? 'email_change' : 'email/signup', meta);
      return { user: updated, authCode: null, session, redirectTo: null };
    });
    if ('error' in outcome) throw outcome.error;
    return outcome;
  }

  // ---------------------------------------------------------------- OAuth (Google)

  async startOAuthFlow(p: { provider: string; pkce: PkceParams; redirectTo: string; nonce: string; codeVerifier: string }): Promise<string> {
    this.maybeCleanUp();
    const id = randomUUID();
    await this.db.insert(authFlowStates).values({
      id,
      provider: p.provider,
      codeChallenge: p.pkce.codeChallenge ?? '',
      codeChallengeMethod: p.pkce.codeChallengeMethod ?? '',
      redirectTo: p.redirectTo,
      oidcNonce: p.nonce,
      oidcCodeVerifier: p.codeVerifier,
    });
    return id;
  }

  /** The flow a callback's `state` names, if it is still young enough. */
  async findOAuthFlow(state: string): Promise<typeof authFlowStates.$inferSelect | null> {
    if (!isUuid(state)) return null;
    const [flow] = await this.db.select().from(authFlowStates).where(and(eq(authFlowStates.id, state), isNull(authFlowStates.authCode)));
    if (!flow || flow.provider === 'email' || flow.provider === 'email_change') return null;
    if (flow.createdAt.getTime() + OAUTH_FLOW_TTL_MS < Date.now()) {
      await this.db.delete(authFlowStates).where(eq(authFlowStates.id, flow.id));
      return null;
    }
    return flow;
  }

  /** After the provider vouched for `claims`: find or create the user, then either an auth code
   * (PKCE) or a session (implicit flow). Consumes the flow state's OIDC secrets. */
  async completeOAuthFlow(flow: typeof authFlowStates.$inferSelect, claims: ProviderClaims, meta: RequestMeta): Promise<{ authCode: string | null; session: AuthSession | null }> {
    const provider = flow.provider;
    const outcome = await this.db.transaction(async (tx) => {
      const now = new Date();
      let user: UserRow | undefined;
      const [identity] = await tx.select().from(authIdentities).where(and(eq(authIdentities.provider, provider), eq(authIdentities.providerId, claims.sub)));
      if (identity) {
        [user] = await tx.select().from(authUsers).where(eq(authUsers.id, identity.userId));
        await tx.update(authIdentities).set({ identityData: claims.data, lastSignInAt: now, updatedAt: now }).where(eq(authIdentities.id, identity.id));
      }
      if (!user) {
        if (!claims.email) return { error: gotrue.unprocessable('provider_email_needs_verification', `Error getting user email from external provider`) };
        const existing = await this.findLiveUserByEmail(tx, claims.email);
        if (existing) {
          if (!claims.emailVerified) {
            return { error: gotrue.unprocessable('provider_email_needs_verification', `Unverified email with ${provider}. Verify the email with ${provider} or sign in with your password.`) };
          }
          const providers = new Set(Array.isArray(existing.appMetaData?.providers) ? (existing.appMetaData.providers as string[]) : []);
          providers.add(provider);
          const patch: Partial<typeof authUsers.$inferInsert> = { appMetaData: { ...(existing.appMetaData ?? {}), providers: [...providers] }, updatedAt: now };
          if (!existing.emailConfirmedAt) {
            // Someone signed up with this address but never proved it; the provider just did.
            // Drop the unproven password so that whoever set it cannot get into this account.
            patch.emailConfirmedAt = now;
            patch.encryptedPassword = null;
            patch.confirmationToken = null;
            await tx.delete(authIdentities).where(and(eq(authIdentities.userId, existing.id), eq(authIdentities.provider, 'email')));
          }
          [user] = await tx.update(authUsers).set(patch).where(eq(authUsers.id, existing.id)).returning();
        } else {
          const id = randomUUID();
          [user] = await tx
            .insert(authUsers)
            .values({
              id,
              email: claims.email,
              emailConfirmedAt: claims.emailVerified || this.autoconfirm ? now : null,
              userMetaData: claims.data,
              appMetaData: { provider, providers: [provider] },
              createdAt: now,
              updatedAt: now,
            })
            .returning();
        }
        await tx.insert(authIdentities).values({ id: randomUUID(), userId: user.id, provider, providerId: claims.sub, identityData: claims.data, lastSignInAt: now, createdAt: now, updatedAt: now });
      }
      if (user.deletedAt) return { error: gotrue.notFound('user_not_found', 'User not found') };
      if (isBanned(user)) return { error: gotrue.badRequest('user_banned', 'User is banned') };
      if (!user.emailConfirmedAt) return { error: gotrue.unprocessable('provider_email_needs_verification', `Unverified email with ${provider}. Verify the email with ${provider} and try again.`) };
      if (flow.codeChallenge) {
        const code = randomUUID();
        // The OIDC secrets are spent; keep only what the code exchange needs.
        await tx
          .update(authFlowStates)
          .set({ authCode: hashToken(code), authCodeIssuedAt: now, userId: user.id, oidcNonce: '', oidcCodeVerifier: '' })
          .where(eq(authFlowStates.id, flow.id));
        return { authCode: code, session: null };
      }
      await tx.delete(authFlowStates).where(eq(authFlowStates.id, flow.id));
      return { authCode: null, session: await this.issueSession(tx, user, 'oauth', meta) };
    });
    if ('error' in outcome) throw outcome.error;
    return outcome;
  }

  async dropFlow(id: string): Promise<void> {
    await this.db.delete(authFlowStates).where(eq(authFlowStates.id, id));
  }

  // ---------------------------------------------------------------- admin

  /** Marks the account deleted and ends everything that could act for it. The address and the
   * Google account become free for a new sign-up (a new user id). */
  async deleteUser(userId: string): Promise<boolean> {
    if (!isUuid(userId)) return false;
    const found = await this.db.transaction(async (tx) => {
      const [row] = await tx
        .update(authUsers)
        .set({ deletedAt: new Date(), updatedAt: new Date(), confirmationToken: null, emailChangeToken: null, emailChange: null })
        .where(and(eq(authUsers.id, userId), isNull(authUsers.deletedAt)))
        .returning({ id: authUsers.id });
      if (!row) return false;
      await this.revokeSessionsWhere(tx, eq(authSessions.userId, userId));
      await tx.delete(authRefreshTokens).where(eq(authRefreshTokens.userId, userId));
      await tx.delete(authIdentities).where(eq(authIdentities.userId, userId));
      await tx.delete(authFlowStates).where(eq(authFlowStates.userId, userId));
      return true;
    });
    this.cache.dropUser(userId);
    return found;
  }

  // ---------------------------------------------------------------- helpers

  /** Now and then, forget abandoned flows and the refresh tokens of long-ended sessions (kept a
   * day so that a replayed token is still recognised as reuse). Never blocks a request. */
  private maybeCleanUp(): void {
    const now = Date.now();
    if (now - this.lastCleanup < 10 * 60_000) return;
    this.lastCleanup = now;
    const dayAgo = new Date(now - 24 * 3600_000);
    void (async () => {
      await this.db.delete(authFlowStates).where(lt(authFlowStates.createdAt, dayAgo));
      await this.db.delete(authRefreshTokens).where(inArray(authRefreshTokens.sessionId, this.db.select({ id: authSessions.id }).from(authSessions).where(lt(authSessions.revokedAt, dayAgo))));
    })().catch(() => {
      /* best effort; the next run retries */
    });
  }

  private async createFlowState(tx: Exec, p: { provider: string; pkce: PkceParams; redirectTo: string; userId: string }): Promise<void> {
    await tx.insert(authFlowStates).values({
      id: randomUUID(),
      provider: p.provider,
      codeChallenge: p.pkce.codeChallenge ?? '',
      codeChallengeMethod: p.pkce.codeChallengeMethod ?? '',
      redirectTo: p.redirectTo,
      oidcNonce: '',
      oidcCodeVerifier: '',
      userId: p.userId,
    });
  }

  private async findLiveUserByEmail(tx: Exec, email: string): Promise<UserRow | null> {
    const [row] = await tx
      .select()
      .from(authUsers)
      .where(and(sql`lower(${authUsers.email}) = ${email.toLowerCase()}`, isNull(authUsers.deletedAt)));
    return row ?? null;
  }

  private identitiesOf(tx: Exec, userId: string): Promise<IdentityRow[]> {
    return tx.select().from(authIdentities).where(eq(authIdentities.userId, userId)).orderBy(authIdentities.createdAt);
  }

  private async userJsonById(tx: Exec, userId: string): Promise<Record<string, unknown>> {
    const [user] = await tx.select().from(authUsers).where(eq(authUsers.id, userId));
    if (!user) throw gotrue.notFound('user_not_found', 'User not found');
    return userJson(user, await this.identitiesOf(tx, userId));
  }

  private getDummyHash(): Promise<string> {
    this.dummyHash ??= hashPassword(randomToken());
    return this.dummyHash;
  }
}

/** argon2id (the library's default algorithm) with its default cost: 19 MiB, 2 passes. */
export function hashPassword(password: string): Promise<string> {
  return argonHash(password);
}

function isBanned(user: UserRow): boolean {
  return Boolean(user.bannedUntil && user.bannedUntil.getTime() > Date.now());
}

export function isUuid(s: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === '23505') return true;
  }
  return false;
}
