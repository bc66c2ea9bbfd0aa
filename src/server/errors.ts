// API errors, thrown by services and routes alike: one shape for every failure, {"success": false, "error": "...", "code": "..."},
// with the status that says what went wrong. Throw `errors.x(...)` or `apiError(code, ...)` from
// anywhere in a handler. Codes and their statuses are listed once, in src/contract/errors.ts: a
// helper takes only the codes of its status, so a code can never go out with another status.
import { API_ERRORS, type ApiErrorCode, type ApiErrorCodeWith } from '../contract/errors';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** A code of src/contract/errors.ts; the identity routes also pass on the identity service's own. */
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** An error with the code's status, and its default message unless one is given. */
export function apiError(code: ApiErrorCode, message: string = API_ERRORS[code].message, extra?: Record<string, unknown>): ApiError {
  return new ApiError(API_ERRORS[code].status, code, message, extra);
}

export const errors = {
  badRequest: (message: string, code: ApiErrorCodeWith<400> = 'bad_request', extra?: Record<string, unknown>) => apiError(code, message, extra),
  unauthorized: (message = 'Invalid or expired token', code: ApiErrorCodeWith<401> = 'unauthorized') => apiError(code, message),
  forbidden: (message = 'You are not allowed to do this', code: ApiErrorCodeWith<403> = 'forbidden') => apiError(code, message),
  notFound: (what = 'Resource') => apiError('not_found', `${what} not found`),
  conflict: (message: string, code: ApiErrorCodeWith<409> = 'conflict', extra?: Record<string, unknown>) => apiError(code, message, extra),
  gone: (message: string, code: ApiErrorCodeWith<410> = 'gone') => apiError(code, message),
  tooLarge: (message: string) => apiError('payload_too_large', message),
  unsupportedType: (message: string) => apiError('unsupported_media_type', message),
  tooMany: (message = 'Too many requests, slow down') => apiError('rate_limited', message),
  unavailable: (message: string) => apiError('unavailable', message),
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
