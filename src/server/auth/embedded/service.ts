// The embedded identity service: what GoTrue does for the endpoints supabase-js uses, over our
// auth_* tables. routes.ts maps HTTP onto it; the product API's wrappers call it directly.
import { randomUUID } from 'node:crypto';
import { and, desc, eq, inArray, isNull, lt, ne, sql } from 'drizzle-orm';
import { verify as argonVerify } from '@node-rs/argon2';
import type { Db } from '../../db/client';
import { isUniqueViolation } from '../../db/errors';
import { authFlowStates, authIdentities, authRefreshTokens, authSessions, authUsers } from '../../db/schema';
import type { AuthSession, AuthUser } from '../types';
import { GoTrueError, gotrue } from '../gotrue-errors';
import { checkPasswordStrength, hashPassword, isBanned, isPlainObject, isUuid, validateEmail, type PkceParams } from './checks';
import { constantTimeEqual, hashToken, randomToken, s256, type TokenSigner } from './tokens';
import type { UserRow } from './serialize';
import { confirmEmailChangeMail, confirmSignupMail, type Mailer } from './mailer';
import type { ProviderClaims } from './google';
import { OAuthFlows, type FlowState } from './oauth';
import { Sessions, type Authenticated, type RequestMeta } from './sessions';
import { createFlowState, ensureEmailIdentity, findLiveUserByEmail, setIdentityEmail, userJsonById } from './user-rows';
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

const CONFIRMATION_TTL_MS = 24 * 3600_000;
/** How long the auth code from a callback or e-mail link can be exchanged (GoTrue: 5 minutes). */
const AUTH_CODE_TTL_MS = 5 * 60_000;

export { PASSWORD_MIN_LENGTH, checkPasswordStrength, hashPassword, isPlainObject, isUuid, parsePkce, validateEmail, type PkceParams } from './checks';
export type { Authenticated, RequestMeta } from './sessions';

export type SignUpResult = { kind: 'session'; session: AuthSession } | { kind: 'user'; user: Record<string, unknown> };

export interface ServiceOptions {
  publicUrl: string;
  siteUrl: string;
  signer: TokenSigner;
  mailer: Mailer | null;
  /** Sign-ups per client address an hour (SIGN_UPS_PER_ADDRESS's max unless set: SIGN_UPS_PER_HOUR). */
  signUpsPerHour?: number;
}

export class EmbeddedAuthService {
  private readonly sessions: Sessions;
  private readonly oauth: OAuthFlows;
  private dummyHash: Promise<string> | null = null;
  private readonly failedSignIns = new WindowLimit(SIGN_IN_FAILURES_PER_PAIR);
  private readonly accountBackoff = new AccountBackoff(ACCOUNT_FREE_FAILURES, ACCOUNT_MAX_WAIT_S, ACCOUNT_FAILURE_WINDOW_MS);
  private readonly signUpsPerAddress: WindowLimit;
  private readonly mailsPerMinute = new WindowLimit({ max: 1, windowMs: MAIL_MIN_INTERVAL_MS });
  private readonly mailsPerRecipient = new WindowLimit(MAILS_PER_RECIPIENT);
  private readonly mailsPerAddress = new WindowLimit(MAILS_PER_ADDRESS);
  private readonly refreshesPerAddress = new WindowLimit(REFRESHES_PER_ADDRESS);
  private readonly refreshesPerSession = new WindowLimit(REFRESHES_PER_SESSION);
  private lastCleanup = 0;

  constructor(
    private readonly db: Db,
    private readonly opts: ServiceOptions,
  ) {
    this.signUpsPerAddress = new WindowLimit({ ...SIGN_UPS_PER_ADDRESS, max: opts.signUpsPerHour ?? SIGN_UPS_PER_ADDRESS.max });
    this.sessions = new Sessions(db, opts.signer);
    this.oauth = new OAuthFlows(db, this.sessions, this.autoconfirm);
  }

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

    const existing = await findLiveUserByEmail(this.db, email);
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
      const winner = await findLiveUserByEmail(this.db, email);
      if (!winner) throw err;
      return this.repeatedSignUp(winner, data, input.pkce, input.redirectTo);
    }

    if (this.autoconfirm) {
      const session = await this.db.transaction((tx) => this.sessions.issueSession(tx, user, 'password', meta));
      return { kind: 'session', session };
    }
    try {
      await this.sendSignupConfirmation(user, input.pkce, input.redirectTo);
    } catch (err) {
      // No half-made accounts: without the mail nobody could ever confirm this one.
      await this.db.delete(authUsers).where(eq(authUsers.id, user.id));
      throw err;
    }
    return { kind: 'user', user: await userJsonById(this.db, user.id) };
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
      return { kind: 'user', user: await userJsonById(this.db, existing.id) };
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
      if (pkce.codeChallenge) await createFlowState(tx, { provider: 'email', pkce, redirectTo, userId: user.id });
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
    const user = await findLiveUserByEmail(this.db, email);
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
    return this.db.transaction((tx) => this.sessions.issueSession(tx, user, 'password', meta));
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
        if (!session.revokedAt) await this.sessions.revokeSessionsWhere(tx, eq(authSessions.id, session.id), { keepRefreshTokens: true });
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
      return { session: await this.sessions.sessionResponse(tx, user, session, next) };
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
      return { session: await this.sessions.issueSession(tx, user, method, meta) };
    });
    if ('error' in outcome) throw outcome.error;
    return outcome.session;
  }

  // ---------------------------------------------------------------- sessions and tokens

  /** GoTrue's requireAuthentication: a valid JWT whose user and session still exist. */
  authenticate(bearer: string | null): Promise<Authenticated> {
    return this.sessions.authenticate(bearer);
  }

  /** The product API's check: signature, expiry, audience, then a live session of a live user. */
  sessionIsLive(sessionId: string, userId: string): Promise<boolean> {
    return this.sessions.sessionIsLive(sessionId, userId);
  }

  verifyAccessToken(token: string): Promise<AuthUser> {
    return this.sessions.verifyAccessToken(token);
  }

  logout(auth: Authenticated, scopeRaw: string | undefined): Promise<void> {
    return this.sessions.logout(auth, scopeRaw);
  }

  // ---------------------------------------------------------------- the user

  async getUser(auth: Authenticated): Promise<Record<string, unknown>> {
    return userJsonById(this.db, auth.user.id);
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
        const taken = await findLiveUserByEmail(this.db, newEmail);
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
        if (patch.email) await setIdentityEmail(tx, user.id, patch.email);
        if (passwordChanged) {
          // Like GoTrue: a new password signs out every other session.
          if (auth.session) await this.sessions.revokeSessionsWhere(tx, and(eq(authSessions.userId, user.id), ne(authSessions.id, auth.session.id))!);
          await ensureEmailIdentity(tx, user);
        }
        if (emailChangeToken && pkce.codeChallenge) {
          await tx.delete(authFlowStates).where(and(eq(authFlowStates.userId, user.id), eq(authFlowStates.provider, 'email_change')));
          await createFlowState(tx, { provider: 'email_change', pkce, redirectTo, userId: user.id });
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
    return userJsonById(this.db, user.id);
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
        const taken = await findLiveUserByEmail(tx, newEmail);
        if (taken && taken.id !== user.id) return { error: gotrue.unprocessable('email_exists', 'A user with this email address has already been registered') };
        [updated] = await tx
          .update(authUsers)
          .set({ email: newEmail, emailChange: null, emailChangeToken: null, emailChangeSentAt: null, emailConfirmedAt: user.emailConfirmedAt ?? now, updatedAt: now })
          .where(eq(authUsers.id, user.id))
          .returning();
        await setIdentityEmail(tx, user.id, newEmail);
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
      const session = await this.sessions.issueSession(tx, updated, isChange ? 'email_change' : 'email/signup', meta);
      return { user: updated, authCode: null, session, redirectTo: null };
    });
    if ('error' in outcome) throw outcome.error;
    return outcome;
  }

  // ---------------------------------------------------------------- OAuth (Google)

  startOAuthFlow(p: { provider: string; pkce: PkceParams; redirectTo: string; nonce: string; codeVerifier: string }): Promise<string> {
    this.maybeCleanUp();
    return this.oauth.start(p);
  }

  /** The flow a callback's `state` names, if it is still young enough. */
  findOAuthFlow(state: string): Promise<FlowState | null> {
    return this.oauth.find(state);
  }

  /** After the provider vouched for `claims`: find or create the user, then either an auth code
   * (PKCE) or a session (implicit flow). Consumes the flow state's OIDC secrets. */
  completeOAuthFlow(flow: FlowState, claims: ProviderClaims, meta: RequestMeta): Promise<{ authCode: string | null; session: AuthSession | null }> {
    return this.oauth.complete(flow, claims, meta);
  }

  dropFlow(id: string): Promise<void> {
    return this.oauth.drop(id);
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
      await this.sessions.revokeSessionsWhere(tx, eq(authSessions.userId, userId));
      await tx.delete(authRefreshTokens).where(eq(authRefreshTokens.userId, userId));
      await tx.delete(authIdentities).where(eq(authIdentities.userId, userId));
      await tx.delete(authFlowStates).where(eq(authFlowStates.userId, userId));
      return true;
    });
    this.sessions.dropUser(userId);
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

  private getDummyHash(): Promise<string> {
    this.dummyHash ??= hashPassword(randomToken());
    return this.dummyHash;
  }
}
