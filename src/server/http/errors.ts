// API errors: one shape for every failure, {"success": false, "error": "...", "code": "..."},
// with the status that says what went wrong. Throw `errors.x(...)` from anywhere in a handler.
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const errors = {
  badRequest: (message: string, code = 'bad_request', extra?: Record<string, unknown>) => new ApiError(400, code, message, extra),
  unauthorized: (message = 'Invalid or expired token', code = 'unauthorized') => new ApiError(401, code, message),
  forbidden: (message = 'You are not allowed to do this', code = 'forbidden') => new ApiError(403, code, message),
  notFound: (what = 'Resource') => new ApiError(404, 'not_found', `${what} not found`),
  conflict: (message: string, code = 'conflict', extra?: Record<string, unknown>) => new ApiError(409, code, message, extra),
  gone: (message: string, code = 'gone') => new ApiError(410, code, message),
  tooLarge: (message: string) => new ApiError(413, 'payload_too_large', message),
  unsupportedType: (message: string) => new ApiError(415, 'unsupported_media_type', message),
  tooMany: (message = 'Too many requests, slow down') => new ApiError(429, 'rate_limited', message),
  unavailable: (message: string) => new ApiError(503, 'unavailable', message),
};

export interface ErrorBody {
  success: false;
  error: string;
  code: string;
  [extra: string]: unknown;
}

export function errorBody(err: ApiError): ErrorBody {
  return { success: false, error: err.message, code: err.code, ...err.extra };
}
