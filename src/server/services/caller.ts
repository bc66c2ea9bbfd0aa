// Who is calling, from a credential, wherever it comes from: the HTTP guard reads it from the
// `Authorization: Bearer` header (../auth/caller.ts's bearerToken), the live socket from its `auth`
// message (../live/hub.ts). Two kinds of credential:
// - an access token from the identity service (a person's session), or
// - an API key `vlm_...` (api-keys.ts): it acts as its own principal, a member of the creator's
//   organization with the key's role, so every access check applies to it unchanged.
// A deactivated account (DELETE /users/me) is refused with its old tokens; a new sign-in within the
// grace period reactivates it (account.ts).
import type { AppContext } from '../context';
import { errors } from '../errors';
import type { AuthProvider, AuthUser } from '../auth/types';
import { authenticateApiKey, API_KEY_PREFIX, type ApiKeyCaller } from './api-keys';
import { checkDeactivation } from './account';

/** A verified caller: `user` is the person or, for an API key, the key's own principal. */
export interface Caller {
  user: AuthUser;
  /** Set when the caller authenticated with an API key. */
  apiKey: ApiKeyCaller | null;
}

/**
 * The checks of a credential: an API key (valid, not revoked, its creator active) acts as its own
 * principal; an access token must verify and its account must not be deactivated. Without `ctx`
 * (a bare guard in tests) only access tokens are accepted. Throws ApiError 401.
 */
export async function authenticate(auth: AuthProvider, ctx: AppContext | undefined, token: string): Promise<Caller> {
  if (token.startsWith(API_KEY_PREFIX)) {
    if (!ctx) throw errors.unauthorized('API keys are not accepted here', 'invalid_api_key');
    const key = await authenticateApiKey(ctx, token);
    return { user: { id: key.id, email: key.creatorEmail, sessionId: null, role: 'api_key', userMetadata: {} }, apiKey: key };
  }
  const user = await auth.verifyAccessToken(token);
  if (ctx) await checkDeactivation(ctx, user, token);
  return { user, apiKey: null };
}
