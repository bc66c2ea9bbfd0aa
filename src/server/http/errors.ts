// HTTP-only error helpers: the 413 message that names the route's limit. ApiError itself lives in
// src/server/errors.ts, so services never import http/.
import type { FastifyRequest } from 'fastify';
import { API_ERRORS } from '../../contract/errors';

/** What a route's body is called in its 413 message (route option `config: { bodyName }`). */
export interface BodyNameConfig {
  bodyName?: string;
}

/** A 413's message: the route's limit, and what the body holds when the route names it. */
export function tooLargeMessage(request: FastifyRequest): string {
  const limit = request.routeOptions.bodyLimit;
  const mb = limit ? Math.max(1, Math.round(limit / (1024 * 1024))) : null;
  const what = (request.routeOptions.config as BodyNameConfig | undefined)?.bodyName;
  if (what && mb) return `${what} are too large: a request may carry at most ${mb} MB`;
  return mb ? `${API_ERRORS.payload_too_large.message}: a request may carry at most ${mb} MB` : API_ERRORS.payload_too_large.message;
}
