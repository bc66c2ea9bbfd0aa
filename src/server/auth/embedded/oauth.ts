// Sign-in with an OpenID provider (Google) in the embedded identity service: the flow state
// kept between the redirect and the callback, and what the callback does with the provider's
// claims (find, link or create the user; then an auth code for PKCE or a session).
import { randomUUID } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { authFlowStates, authIdentities, authUsers } from '../../db/schema';
import type { AuthSession } from '../types';
import { gotrue } from '../gotrue-errors';
import { isBanned, isUuid, type PkceParams } from './checks';
import type { ProviderClaims } from './google';
import type { UserRow } from './serialize';
import type { RequestMeta, Sessions } from './sessions';
import { hashToken } from './tokens';
import { findLiveUserByEmail } from './user-rows';

/** How long a started Google sign-in may take before its callback is refused. */
const OAUTH_FLOW_TTL_MS = 10 * 60_000;

export type FlowState = typeof authFlowStates.$inferSelect;

export class OAuthFlows {
  constructor(
    private readonly db: Db,
    private readonly sessions: Sessions,
    /** Accounts need no confirmation mail (no mailer). */
    private readonly autoconfirm: boolean,
  ) {}

  async start(p: { provider: string; pkce: PkceParams; redirectTo: string; nonce: string; codeVerifier: string }): Promise<string> {
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
  async find(state: string): Promise<FlowState | null> {
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
  async complete(flow: FlowState, claims: ProviderClaims, meta: RequestMeta): Promise<{ authCode: string | null; session: AuthSession | null }> {
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
        const existing = await findLiveUserByEmail(tx, claims.email);
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
      return { authCode: null, session: await this.sessions.issueSession(tx, user, 'oauth', meta) };
    });
    if ('error' in outcome) throw outcome.error;
    return outcome;
  }

  async drop(id: string): Promise<void> {
    await this.db.delete(authFlowStates).where(eq(authFlowStates.id, id));
  }
}
