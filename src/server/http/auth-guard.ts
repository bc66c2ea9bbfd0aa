// Every /api route needs a valid bearer token unless it is declared `config: { public: true }`.
// The verified caller is on request.user.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthProvider, AuthUser } from '../auth/types';
import { errors } from './errors';

declare module 'fastify' {
  interface FastifyRequest {
    user: AuthUser | null;
  }
  interface FastifyContextConfig {
    public?: boolean;
  }
}

export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  return match ? match[1].trim() : null;
}

export function installAuthGuard(app: FastifyInstance, auth: AuthProvider): void {
  app.decorateRequest('user', null);
  app.addHook('preHandler', async (request) => {
    // The API's own routes only: not the OpenAPI viewer, not unknown URLs (they answer 404).
    if (!request.url.startsWith('/api/') || request.url.startsWith('/api/docs') || request.is404) return;
    if (request.routeOptions.config?.public) return;
    const token = bearerToken(request);
    if (!token) throw errors.unauthorized('Missing bearer token', 'no_token');
    request.user = await auth.verifyAccessToken(token);
  });
}

/** The caller of a route behind the guard. */
export function callerOf(request: FastifyRequest): AuthUser {
  if (!request.user) throw errors.unauthorized();
  return request.user;
}
