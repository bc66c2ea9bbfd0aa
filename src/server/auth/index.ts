// Identity, in one of two modes (see ARCHITECTURE.md "Identity"):
// - embedded (default): our GoTrue-compatible service at /auth/v1 (./embedded)
// - supabase: hosted Supabase Auth (./supabase)
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config';
import type { Db } from '../db/client';
import { loadOrCreateSecret } from '../secrets';
import { GoTrueError } from './gotrue-errors';
import type { AuthProvider, ClientInfo } from './types';
import { GoogleOidc } from './embedded/google';
import { Mailer } from './embedded/mailer';
import { authRoutes } from './embedded/routes';
import { EmbeddedAuthService, parsePkce } from './embedded/service';
import { TokenSigner } from './embedded/tokens';
import { createSupabaseAuth } from './supabase';

export type { AuthProvider, AuthSession, AuthUser, ClientInfo } from './types';

/** What the embedded mode exposes beyond AuthProvider (tests and admin tooling). */
export interface EmbeddedAuthProvider extends AuthProvider {
  mode: 'embedded';
  /** Admin key (role service_role) for /auth/v1/admin/*. Never give it to the SPA. */
  serviceRoleKey: string;
  service: EmbeddedAuthService;
}

export async function createAuth(config: Config, db: Db): Promise<AuthProvider> {
  if (config.auth.kind === 'supabase') return createSupabaseAuth(config.auth);
  return createEmbeddedAuth(config, db);
}

async function createEmbeddedAuth(config: Config, db: Db): Promise<EmbeddedAuthProvider> {
  const auth = config.auth as Extract<Config['auth'], { kind: 'embedded' }>;
  const secret = auth.jwtSecret ?? loadOrCreateSecret(config.dataDir, 'jwt_secret');
  const signer = new TokenSigner(secret, `${config.publicUrl}/auth/v1`);
  const mailer = auth.smtpUrl ? new Mailer(auth.smtpUrl, auth.smtpFrom) : null;
  const service = new EmbeddedAuthService(db, { publicUrl: config.publicUrl, siteUrl: auth.siteUrl, signer, mailer, signUpsPerHour: auth.signUpsPerHour });
  const google = config.google ? new GoogleOidc(config.google, `${config.publicUrl}/auth/v1/callback`) : null;
  const [anonKey, serviceRoleKey] = await Promise.all([signer.apiKey('anon'), signer.apiKey('service_role')]);
  const metaOf = (client?: ClientInfo) => ({ ip: client?.ip ?? null, userAgent: client?.userAgent ?? null });
  const asApiError = (err: unknown) => (err instanceof GoTrueError ? err.toApiError() : err);

  return {
    mode: 'embedded',
    supabaseUrl: config.publicUrl,
    anonKey,
    serviceRoleKey,
    service,

    verifyAccessToken: (token) => service.verifyAccessToken(token),
    sessionIsLive: (sessionId, userId) => service.sessionIsLive(sessionId, userId),
    endAllSessions: async (accessToken) => service.logout(await service.authenticate(accessToken), 'global'),

    async signUp(input, client) {
      try {
        const result = await service.signUp(
          { email: input.email, password: input.password, data: { full_name: input.full_name }, pkce: parsePkce(undefined, undefined), redirectTo: auth.siteUrl },
          metaOf(client),
        );
        return result.kind === 'session' ? { user: result.session.user, session: result.session } : { user: result.user, session: null };
      } catch (err) {
        throw asApiError(err);
      }
    },

    async signIn(input, client) {
      try {
        return await service.passwordGrant(input, metaOf(client));
      } catch (err) {
        throw asApiError(err);
      }
    },

    async registerRoutes(app: FastifyInstance) {
      await app.register(authRoutes({ service, signer, google, publicUrl: config.publicUrl, siteUrl: auth.siteUrl }), { prefix: '/auth/v1' });
    },

    async deleteUser(userId: string) {
      await service.deleteUser(userId);
    },

    async close() {
      mailer?.close();
    },
  };
}
