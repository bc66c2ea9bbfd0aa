// API keys: `vlm_` + 256 random bits, shown once, stored as a SHA-256 hash. A key is its own
// principal: a profile of kind 'api_key' with one membership, in the creator's organization, with a
// role no higher than the creator's (kept so by services/members.ts when the creator's role drops,
// removed when the creator leaves). Revoking deletes that membership and marks the key: the next
// request with it gets 401.
import { randomUUID } from 'node:crypto';
import { and, desc, eq, inArray, isNull } from 'drizzle-orm';
import type { AppContext } from '../context';
import type { Exec } from '../db/client';
import { apiKeys, organizationMembers, profiles, type Role } from '../db/schema';
import { errors } from '../errors';
import { hashToken, randomToken } from '../auth/embedded/tokens';
import { ROLE_RANK, roleAtMost, type ApiKey } from '../../contract/teams';
import { can, requireMember } from './access';

export const API_KEY_PREFIX = 'vlm_';
type KeyRow = typeof apiKeys.$inferSelect;

export interface ApiKeyCaller {
  id: string;
  organizationId: string;
  role: Role;
  createdBy: string;
  creatorEmail: string;
}

const LAST_USED_RESOLUTION_MS = 60_000;

function keyJson(row: KeyRow, creatorEmail: string | null): ApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    role: row.role,
    organization_id: row.organizationId,
    created_by: creatorEmail,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
  };
}

/** The guard's check: a live key of a live creator, or 401. */
export async function authenticateApiKey(ctx: AppContext, key: string): Promise<ApiKeyCaller> {
  // Keys are fixed-length base64url; anything else cannot be one of ours.
  if (!/^vlm_[A-Za-z0-9_-]{43}$/.test(key)) throw errors.unauthorized('Invalid API key', 'invalid_api_key');
  const [row] = await ctx.db
    .select({ key: apiKeys, creatorEmail: profiles.email, creatorDeactivated: profiles.deactivatedAt })
    .from(apiKeys)
    .innerJoin(profiles, eq(profiles.id, apiKeys.createdBy))
    .where(eq(apiKeys.keyHash, hashToken(key)))
    .limit(1);
  if (!row || row.key.revokedAt || row.creatorDeactivated) throw errors.unauthorized('Invalid or revoked API key', 'invalid_api_key');
  const now = Date.now();
  if (!row.key.lastUsedAt || now - row.key.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    // Best effort, off the request's path.
    void ctx.db
      .update(apiKeys)
      .set({ lastUsedAt: new Date(now) })
      .where(eq(apiKeys.id, row.key.id))
      .catch(() => undefined);
  }
  return { id: row.key.id, organizationId: row.key.organizationId, role: row.key.role, createdBy: row.key.createdBy, creatorEmail: row.creatorEmail };
}

export async function listApiKeys(ctx: AppContext, userId: string, orgId: string): Promise<ApiKey[]> {
  const role = await requireMember(ctx.db, userId, orgId, 'api_keys.create');
  const all = can(role, 'api_keys.manage');
  const rows = await ctx.db
    .select({ key: apiKeys, email: profiles.email })
    .from(apiKeys)
    .leftJoin(profiles, eq(profiles.id, apiKeys.createdBy))
    .where(and(eq(apiKeys.organizationId, orgId), isNull(apiKeys.revokedAt), all ? undefined : eq(apiKeys.createdBy, userId)))
    .orderBy(desc(apiKeys.createdAt));
  return rows.map((r) => keyJson(r.key, r.email));
}

export async function createApiKey(ctx: AppContext, userId: string, input: { organization_id: string; name: string; role?: Role }): Promise<{ api_key: ApiKey; key: string }> {
  const creatorRole = await requireMember(ctx.db, userId, input.organization_id, 'api_keys.create');
  const role = input.role ?? creatorRole;
  if (!roleAtMost(role, creatorRole)) throw errors.forbidden(`A key's role cannot be above your own (${creatorRole})`, 'role_ceiling');
  const [creator] = await ctx.db.select().from(profiles).where(eq(profiles.id, userId)).limit(1);
  if (!creator) throw errors.unauthorized();
  const id = randomUUID();
  const key = `${API_KEY_PREFIX}${randomToken(32)}`;
  const row = await ctx.db.transaction(async (tx) => {
    await tx.insert(profiles).values({ id, email: creator.email, fullName: `API key: ${input.name}`, kind: 'api_key' });
    await tx.insert(organizationMembers).values({ organizationId: input.organization_id, userId: id, role });
    const [inserted] = await tx
      .insert(apiKeys)
      .values({ id, organizationId: input.organization_id, createdBy: userId, name: input.name, prefix: key.slice(0, API_KEY_PREFIX.length + 8), keyHash: hashToken(key), role })
      .returning();
    return inserted;
  });
  return { api_key: keyJson(row, creator.email), key };
}

/** Revokes a key: its creator may, and so may owners and admins of its organization. */
export async function revokeApiKey(ctx: AppContext, userId: string, keyId: string): Promise<void> {
  const [row] = await ctx.db.select().from(apiKeys).where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt))).limit(1);
  if (!row) throw errors.notFound('API key');
  const role = await requireMember(ctx.db, userId, row.organizationId, 'api_keys.create', 'API key');
  if (row.createdBy !== userId && !can(role, 'api_keys.manage')) throw errors.notFound('API key');
  await revokeKeysWhere(ctx.db, eq(apiKeys.id, keyId));
}

/** Revokes every key matching `where`, in the caller's transaction when given. */
export async function revokeKeysWhere(tx: Exec, where: ReturnType<typeof eq>): Promise<number> {
  const rows = await tx
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(where, isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  const ids = rows.map((r) => r.id);
  if (ids.length) await tx.delete(organizationMembers).where(inArray(organizationMembers.userId, ids));
  return ids.length;
}

/** After a member's role drops: their keys in that organization drop with it (never above the creator). */
export async function capKeyRoles(tx: Exec, orgId: string, creatorId: string, role: Role): Promise<void> {
  const above = (Object.keys(ROLE_RANK) as Role[]).filter((r) => ROLE_RANK[r] > ROLE_RANK[role]);
  const where = and(eq(apiKeys.organizationId, orgId), eq(apiKeys.createdBy, creatorId), isNull(apiKeys.revokedAt), inArray(apiKeys.role, above));
  const capped = await tx.update(apiKeys).set({ role }).where(where).returning({ id: apiKeys.id });
  if (capped.length) {
    await tx
      .update(organizationMembers)
      .set({ role })
      .where(and(eq(organizationMembers.organizationId, orgId), inArray(organizationMembers.userId, capped.map((c) => c.id))));
  }
}
