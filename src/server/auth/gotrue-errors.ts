// GoTrue's error answers, so that supabase-js surfaces the same `error.code` and `error.message`
// against our embedded service as against hosted Supabase Auth.
//
// GoTrue (internal/api/errors.go) answers in two shapes, chosen by the X-Supabase-Api-Version
// request header that supabase-js v2 always sends:
//   >= 2024-01-01: {"code": "<error_code>", "message": "..."} and the header echoed back
//   older/none:    {"code": <http status>, "error_code": "<error_code>", "msg": "..."}
// OAuth-style errors (a few token-endpoint cases) are {"error": "...", "error_description": "..."}.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors';

export const API_VERSION_HEADER = 'x-supabase-api-version';
const API_VERSION_2024 = Date.parse('2024-01-01T00:00:00Z');

export class GoTrueError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly opts: { weakPasswordReasons?: string[]; oauth?: string; retryAfter?: number } = {},
  ) {
    super(message);
  }

  withCause(cause: unknown): this {
    (this as { cause?: unknown }).cause = cause;
    return this;
  }

  /** The same failure for the product API's /api/v1/auth/* wrappers. */
  toApiError(): ApiError {
    return new ApiError(this.status, this.code, this.message, {
      ...(this.opts.weakPasswordReasons && { weak_password: { reasons: this.opts.weakPasswordReasons } }),
      ...(this.opts.retryAfter && { retry_after: this.opts.retryAfter }),
    });
  }
}

export const gotrue = {
  badRequest: (code: string, message: string) => new GoTrueError(400, code, message),
  validation: (message: string) => new GoTrueError(400, 'validation_failed', message),
  badJson: (detail: string) => new GoTrueError(400, 'bad_json', `Could not parse request body as JSON: ${detail}`),
  unprocessable: (code: string, message: string) => new GoTrueError(422, code, message),
  weakPassword: (min: number) => new GoTrueError(422, 'weak_password', `Password should be at least ${min} characters.`, { weakPasswordReasons: ['length'] }),
  invalidCredentials: () => new GoTrueError(400, 'invalid_credentials', 'Invalid login credentials'),
  noAuthorization: () => new GoTrueError(401, 'no_authorization', 'This endpoint requires a valid Bearer token'),
  badJwt: (detail: string) => new GoTrueError(403, 'bad_jwt', `invalid JWT: unable to parse or verify signature, ${detail}`),
  userNotFoundFromJwt: () => new GoTrueError(403, 'user_not_found', 'User from sub claim in JWT does not exist'),
  sessionNotFound: () => new GoTrueError(403, 'session_not_found', 'Session from session_id claim in JWT does not exist'),
  notAdmin: () => new GoTrueError(403, 'not_admin', 'User not allowed'),
  notFound: (code: string, message: string) => new GoTrueError(404, code, message),
  /** A throttled mail (GoTrue's code and, for the one-a-minute limit, its message); `seconds` also goes out as Retry-After. */
  tooManyEmails: (seconds: number, message = `For security purposes, you can only request this after ${seconds} seconds.`) =>
    new GoTrueError(429, 'over_email_send_rate_limit', message, { retryAfter: seconds }),
  /** A throttled request (GoTrue's code; the message is shown to the user as it is). */
  tooManyRequests: (seconds: number, message: string) => new GoTrueError(429, 'over_request_rate_limit', message, { retryAfter: seconds }),
  oauth: (error: string, description: string) => new GoTrueError(400, error, description, { oauth: error }),
  internal: (message: string) => new GoTrueError(500, 'unexpected_failure', message),
};

/** True when the client asked for the 2024-01-01 (or later) error shape. */
export function wantsModernErrors(request: FastifyRequest): boolean {
  const raw = request.headers[API_VERSION_HEADER];
  if (typeof raw !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(raw)) return false;
  const t = Date.parse(`${raw}T00:00:00Z`);
  return Number.isFinite(t) && t >= API_VERSION_2024;
}

export function sendGoTrueError(request: FastifyRequest, reply: FastifyReply, err: GoTrueError): FastifyReply {
  if (err.opts.retryAfter) reply.header('retry-after', String(err.opts.retryAfter));
  if (err.opts.oauth) return reply.status(err.status).send({ error: err.opts.oauth, error_description: err.message });
  const weak = err.opts.weakPasswordReasons ? { weak_password: { reasons: err.opts.weakPasswordReasons } } : {};
  if (wantsModernErrors(request)) {
    reply.header(API_VERSION_HEADER, '2024-01-01');
    return reply.status(err.status).send({ code: err.code, message: err.message, ...weak });
  }
  return reply.status(err.status).send({ code: err.status, error_code: err.code, msg: err.message, ...weak });
}
