// Sessions of the embedded identity service: issuing one (access and refresh token), checking
// a bearer token (GoTrue's requireAuthentication, and the product API's verifyAccessToken with a
// short-lived cache of live sessions), ending sessions.
import { randomUUID } from 'node:crypto';
import { and, eq, inArray, isNull, ne } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { authRefreshTokens, authSessions, authUsers } from '../../db/schema';
import { errors } from '../../errors';
import type { AuthSession, AuthUser } from '../types';
import { gotrue } from '../gotrue-errors';
import { isBanned, isPlainObject, isUuid } from './checks';
import { ACCESS_TOKEN_TTL_SECONDS, JwtError, hashToken, randomToken, type AmrEntry, type TokenSigner } from './tokens';
import { userJson, type UserRow } from './serialize';
import { identitiesOf, type Exec } from './user-rows';

const SESSION_CACHE_TTL_MS = 10_000;
const SESSION_CACHE_MAX = 20_000;

export type SessionRow = typeof authSessions.$inferSelect;

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

export class Sessions {
  private readonly cache = new SessionCache();

  constructor(
    private readonly db: Db,
    private readonly signer: TokenSigner,
  ) {}

  async issueSession(tx: Exec, user: UserRow, method: string, meta: RequestMeta): Promise<AuthSession> {
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

  async sessionResponse(tx: Exec, user: UserRow, session: SessionRow, refreshToken: string): Promise<AuthSession> {
    const { token, expiresAt } = await this.signer.accessToken({
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
      user: userJson(user, await identitiesOf(tx, user.id)),
    };
  }

  /** GoTrue's requireAuthentication: a valid JWT whose user and session still exist. */
  async authenticate(bearer: string | null): Promise<Authenticated> {
    if (!bearer) throw gotrue.noAuthorization();
    let claims: Record<string, unknown>;
    try {
      claims = await this.signer.verify(bearer);
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
      claims = await this.signer.verify(token);
    } catch {
      throw errors.unauthorized('Invalid or expired token', 'bad_jwt');
    }
    const aud = claims.aud;
    const audOk = aud === 'authenticated' || (Array.isArray(aud) && aud.includes('authenticated'));
    if (!audOk || claims.iss !== this.signer.issuer || claims.role !== 'authenticated' || typeof claims.sub !== 'string' || !isUuid(claims.sub)) {
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
  async revokeSessionsWhere(tx: Exec, where: ReturnType<typeof eq>, opts: { keepRefreshTokens?: boolean } = {}): Promise<string[]> {
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

  /** Forgets the cached sessions of a deleted user. */
  dropUser(userId: string): void {
    this.cache.dropUser(userId);
  }
}
