// Queries on the auth_* rows of a user that several flows share (sign-up, grants, user updates,
// e-mail links, OAuth), inside a transaction or not.
import { randomUUID } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { authFlowStates, authIdentities, authUsers } from '../../db/schema';
import { gotrue } from '../gotrue-errors';
import type { PkceParams } from './checks';
import { userJson, type IdentityRow, type UserRow } from './serialize';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** The database or a transaction of it. */
export type Exec = Db | Tx;

export async function setIdentityEmail(tx: Exec, userId: string, email: string): Promise<void> {
  await tx
    .update(authIdentities)
    .set({ identityData: sql`${authIdentities.identityData} || ${JSON.stringify({ email })}::jsonb`, updatedAt: new Date() })
    .where(and(eq(authIdentities.userId, userId), eq(authIdentities.provider, 'email')));
}

/** A Google-only account that sets a password can then also sign in with e-mail and password. */
export async function ensureEmailIdentity(tx: Exec, user: UserRow): Promise<void> {
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


export async function findLiveUserByEmail(tx: Exec, email: string): Promise<UserRow | null> {
  const [row] = await tx
    .select()
    .from(authUsers)
    .where(and(sql`lower(${authUsers.email}) = ${email.toLowerCase()}`, isNull(authUsers.deletedAt)));
  return row ?? null;
}

export function identitiesOf(tx: Exec, userId: string): Promise<IdentityRow[]> {
  return tx.select().from(authIdentities).where(eq(authIdentities.userId, userId)).orderBy(authIdentities.createdAt);
}

export async function userJsonById(tx: Exec, userId: string): Promise<Record<string, unknown>> {
  const [user] = await tx.select().from(authUsers).where(eq(authUsers.id, userId));
  if (!user) throw gotrue.notFound('user_not_found', 'User not found');
  return userJson(user, await identitiesOf(tx, userId));
}

export async function createFlowState(tx: Exec, p: { provider: string; pkce: PkceParams; redirectTo: string; userId: string }): Promise<void> {
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
