// /api/v1/auth: thin wrappers over the identity service, for API clients that do not use supabase-js.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../../context';
import { SignInRequest, SignUpRequest, VerifyRequest } from '../../../../contract/account';

/** Who is calling, so the identity service throttles per client and records the session's origin. */
const clientOf = (request: FastifyRequest) => ({ ip: request.ip, userAgent: request.headers['user-agent'] ?? null });

export const authRoutes = (ctx: AppContext): FastifyPluginAsync => async (fastify) => {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const opts = <B>(body: B) => ({ config: { public: true }, schema: { tags: ['auth'], security: [], body } });

  app.post('/auth/signup', opts(SignUpRequest), async (request) => {
    const { user, session } = await ctx.auth.signUp(request.body, clientOf(request));
    return { success: true, user, session };
  });

  app.post('/auth/signin', opts(SignInRequest), async (request) => {
    const session = await ctx.auth.signIn(request.body, clientOf(request));
    return { success: true, session, user: session.user };
  });

  app.post('/auth/verify', opts(VerifyRequest), async (request) => {
    const user = await ctx.auth.verifyAccessToken(request.body.access_token);
    return { success: true, valid: true, user: { id: user.id, email: user.email, role: user.role, user_metadata: user.userMetadata } };
  });
};
