// The credential of a request: the `Authorization: Bearer` header, read by the HTTP guard
// (../http/auth-guard.ts), the embedded service's routes and DELETE /users/me. Who the credential
// belongs to is ../services/caller.ts's `authenticate` (API keys and deactivated accounts are kept
// in services); auth/ itself never reads services.
import type { FastifyRequest } from 'fastify';

/** The credential of an `Authorization: Bearer <token>` header; null when there is none. */
export function bearerToken(request: Pick<FastifyRequest, 'headers'>): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  return match ? match[1].trim() : null;
}
