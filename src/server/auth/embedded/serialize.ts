// GoTrue's JSON for users and identities (models.User / models.Identity), as supabase-js reads them.
import type { authIdentities, authUsers } from '../../db/schema';

export type UserRow = typeof authUsers.$inferSelect;
export type IdentityRow = typeof authIdentities.$inferSelect;

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : undefined);

export function identityJson(identity: IdentityRow): Record<string, unknown> {
  const data = identity.identityData ?? {};
  return {
    identity_id: identity.id,
    id: identity.providerId,
    user_id: identity.userId,
    identity_data: data,
    provider: identity.provider,
    last_sign_in_at: iso(identity.lastSignInAt) ?? null,
    created_at: identity.createdAt.toISOString(),
    updated_at: identity.updatedAt.toISOString(),
    email: typeof data.email === 'string' ? data.email : '',
  };
}

export function userJson(user: UserRow, identities: IdentityRow[]): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: user.id,
    aud: 'authenticated',
    role: 'authenticated',
    email: user.email,
    email_confirmed_at: iso(user.emailConfirmedAt),
    phone: '',
    confirmation_sent_at: iso(user.confirmationSentAt),
    confirmed_at: iso(user.emailConfirmedAt),
    new_email: user.emailChange ?? undefined,
    email_change_sent_at: user.emailChange ? iso(user.emailChangeSentAt) : undefined,
    last_sign_in_at: iso(user.lastSignInAt),
    app_metadata: user.appMetaData ?? {},
    user_metadata: user.userMetaData ?? {},
    identities: identities.map(identityJson),
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
    is_anonymous: false,
  };
  // GoTrue omits unset optional fields (omitempty) rather than sending null.
  for (const key of Object.keys(out)) if (out[key] === undefined) delete out[key];
  return out;
}
