// The one error handler of the product API (the identity routes answer GoTrue's shape, and the
// signed storage URLs an S3-like one: each has its own, in its plugin). Every failure goes out as
// {"success": false, "error", "code"}; codes and statuses: src/contract/errors.ts.
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { UNSTORABLE_TEXT } from '../../contract/text';
import { isUnstorableTextError } from '../db/errors';
import { ApiError, apiError, errorBody } from '../errors';
import { BucketNotFoundError, InvalidObjectNameError, ObjectNotFoundError } from '../storage/types';
import { tooLargeMessage } from './errors';

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | ApiError, request, reply) => {
    const send = (e: ApiError) => reply.status(e.status).send(errorBody(e));
    if (err instanceof ApiError) return send(err);
    // Storage refuses names and expiries a client could have chosen: those are bad input, not crashes.
    if (err instanceof InvalidObjectNameError || (err instanceof RangeError && typeof (err as FastifyError).statusCode !== 'number')) return send(apiError('bad_request', err.message));
    if (err instanceof ObjectNotFoundError || err instanceof BucketNotFoundError) return send(apiError('not_found', err.message));
    if (hasZodFastifySchemaValidationErrors(err)) {
      const issue = err.validation[0];
      const where = err.validationContext ?? 'body';
      const field = issue?.instancePath ? issue.instancePath.replace(/^\//, '').replace(/\//g, '.') : '';
      return send(apiError('validation_failed', `Invalid ${where}${field ? ` field "${field}"` : ''}: ${issue?.message ?? 'bad value'}`));
    }
    const status = typeof err.statusCode === 'number' ? err.statusCode : 500;
    if (status === 400 && (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || (err as SyntaxError).name === 'SyntaxError')) return send(apiError('invalid_json'));
    if (status === 413) return send(apiError('payload_too_large', tooLargeMessage(request)));
    if (status === 415) return send(apiError('unsupported_media_type'));
    // Fastify's own refusals (a bad header, an unknown method): its code, lower-cased.
    if (status >= 400 && status < 500) return reply.status(status).send({ success: false, error: err.message, code: (err.code ?? 'bad_request').toLowerCase() });
    // A NUL in a lookup parameter no contract rule caught (a search, a name to find): bad input.
    if (isUnstorableTextError(err)) return send(apiError('validation_failed', `Text ${UNSTORABLE_TEXT}`));
    request.log.error({ err }, 'unhandled error');
    return send(apiError('internal_error'));
  });
}
