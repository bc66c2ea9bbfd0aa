// The HTTP side of the local driver: GET/HEAD and PUT on /storage/v1/object/<bucket>/<key...>?token=<jwt>.
// The token is the only credential (these routes are outside /api, so the bearer guard never runs),
// and it names exactly one bucket, key and verb. Bodies are streamed both ways, never buffered.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, errorBody } from '../errors';
import { checkBucket, checkKey, sameContentType } from './names';
import { StorageTokenError, verifyGrant, type StorageGrant } from './tokens';
import type { LocalStorage } from './local';
import { BucketNotFoundError, InvalidObjectNameError, type ObjectInfo } from './types';

export const OBJECT_ROUTE_PREFIX = '/storage/v1/object/';

/**
 * A service's say over uploads to the keys it signs, beyond the token (issue 30: an import's URL
 * is refused once the import has started). Answers a reason to refuse (409), or null. S3 presigned
 * URLs cannot be gated: there the service deletes what arrives late instead.
 */
export type UploadGate = (bucket: string, key: string) => Promise<string | null>;
const uploadGates = new WeakMap<object, UploadGate[]>();

export function addUploadGate(driver: object, gate: UploadGate): void {
  uploadGates.set(driver, [...(uploadGates.get(driver) ?? []), gate]);
}

/** The body did not match what was announced (too long, too short) or exceeded the cap (thrown by LocalStorage.write). */
export class BodySizeError extends Error {
  constructor(
    readonly reason: 'too_large' | 'length_mismatch',
    message: string,
  ) {
    super(message);
  }
}

const fail = (status: number, code: string, message: string) => new ApiError(status, code, message);

/** Bucket and key from the raw request path, each segment decoded once, then validated as a whole. */
function objectOf(request: FastifyRequest): { bucket: string; key: string } {
  const rawPath = request.raw.url!.split('?')[0];
  const rest = rawPath.slice(OBJECT_ROUTE_PREFIX.length);
  let segments: string[];
  try {
    segments = rest.split('/').map((s) => decodeURIComponent(s));
  } catch {
    throw fail(400, 'invalid_key', 'The object path is not valid percent-encoding');
  }
  const [bucket, ...keyParts] = segments;
  try {
    checkBucket(bucket);
    return { bucket, key: checkKey(keyParts.join('/')) };
  } catch (err) {
    if (err instanceof InvalidObjectNameError) throw fail(400, 'invalid_key', err.message);
    throw err;
  }
}

async function authorize(request: FastifyRequest, driver: LocalStorage, method: 'GET' | 'PUT'): Promise<{ bucket: string; key: string; grant: StorageGrant }> {
  const { bucket, key } = objectOf(request);
  const token = (request.query as Record<string, unknown>).token;
  if (token === undefined || token === '') throw fail(400, 'missing_token', 'The signed URL has no token');
  if (typeof token !== 'string') throw fail(400, 'invalid_token', 'The signed URL must carry exactly one token');
  let grant: StorageGrant;
  try {
    grant = await verifyGrant(driver.tokenKey, token);
  } catch (err) {
    if (err instanceof StorageTokenError) throw fail(403, err.code, err.message);
    throw err;
  }
  if (grant.method !== method) throw fail(403, 'token_wrong_method', `This signed URL allows ${grant.method === 'GET' ? 'downloads (GET, HEAD)' : 'uploads (PUT)'} only`);
  if (grant.bucket !== bucket || grant.key !== key) throw fail(403, 'token_wrong_object', 'This signed URL is for another object');
  return { bucket, key, grant };
}

/** A single byte range (RFC 9110 14.1.2). null: serve the whole object (no, malformed or multi-range header). */
function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return null; // invalid: ignore it, as the RFC says
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const weakless = (t: string) => t.trim().replace(/^W\//, '');
  return header.split(',').some((t) => t.trim() === '*' || weakless(t) === weakless(etag));
}

async function download(driver: LocalStorage, request: FastifyRequest, reply: FastifyReply) {
  const { bucket, key, grant } = await authorize(request, driver, 'GET');
  const opened = await driver.open(bucket, key);
  if (!opened) throw fail(404, 'not_found', 'Object not found');
  const { handle, info } = opened;
  let streaming = false;
  try {
    setObjectHeaders(reply, info, grant);
    if (etagMatches(request.headers['if-none-match'], info.etag)) return reply.status(304).send();
    const range = parseRange(request.headers.range, info.size);
    if (range === 'unsatisfiable') {
      reply.header('content-range', `bytes */${info.size}`);
      throw fail(416, 'range_not_satisfiable', `The requested range is outside the object's ${info.size} bytes`);
    }
    const start = range?.start ?? 0;
    const end = range?.end ?? info.size - 1;
    if (range) reply.status(206).header('content-range', `bytes ${start}-${end}/${info.size}`);
    reply.header('content-length', String(end - start + 1));
    if (request.method === 'HEAD' || info.size === 0) return reply.send();
    streaming = true;
    // The stream owns the handle from here and closes it when done or aborted.
    return reply.send(handle.createReadStream({ start, end }));
  } finally {
    if (!streaming) await handle.close();
  }
}

function setObjectHeaders(reply: FastifyReply, info: ObjectInfo, grant: StorageGrant) {
  const remaining = Math.max(0, grant.exp - Math.floor(Date.now() / 1000));
  reply.header('content-type', info.contentType);
  reply.header('etag', info.etag);
  reply.header('last-modified', info.lastModified.toUTCString());
  reply.header('accept-ranges', 'bytes');
  // A cached copy must not outlive the URL that fetched it.
  reply.header('cache-control', `private, max-age=${remaining}`);
}

async function upload(driver: LocalStorage, request: FastifyRequest, reply: FastifyReply) {
  const { bucket, key, grant } = await authorize(request, driver, 'PUT');
  const lengthHeader = request.headers['content-length'];
  if (lengthHeader === undefined || !/^\d+$/.test(lengthHeader)) throw fail(411, 'length_required', 'An upload needs a Content-Length header');
  const length = Number(lengthHeader);
  const contentType = request.headers['content-type'];
  const expected = grant.contentType ?? 'application/octet-stream';
  if (!contentType || !sameContentType(contentType, expected)) {
    throw fail(415, 'content_type_mismatch', `This signed URL accepts Content-Type ${expected} only (got ${contentType ?? 'none'})`);
  }
  const max = grant.maxBytes ?? driver.maxUploadBytes;
  if (length > max) throw fail(413, 'payload_too_large', `The upload is ${length} bytes; this signed URL accepts at most ${max}`);
  for (const gate of uploadGates.get(driver) ?? []) {
    const refused = await gate(bucket, key);
    if (refused) throw fail(409, 'upload_closed', refused);
  }
  try {
    await driver.write(bucket, key, request.raw, { contentType: expected, expectedLength: length, maxBytes: max });
  } catch (err) {
    if (err instanceof BucketNotFoundError) throw fail(404, 'bucket_not_found', 'Bucket not found');
    if (err instanceof InvalidObjectNameError) throw fail(400, 'invalid_key', err.message);
    if (err instanceof BodySizeError) throw fail(err.reason === 'too_large' ? 413 : 400, err.reason === 'too_large' ? 'payload_too_large' : 'incomplete_body', err.message);
    throw err;
  }
  return reply.status(200).send({ Key: `${bucket}/${key}` });
}

export async function registerLocalRoutes(app: FastifyInstance, driver: LocalStorage): Promise<void> {
  await app.register(async (scope) => {
    // Upload bodies reach the handler untouched as request.raw (and no body limit applies here: the
    // token's cap does). Any content type is let through so the handler can check it against the token.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));

    // Signed URLs are bearer credentials in themselves, so any origin may use them (uploads from the
    // dev server, images drawn into WebGL textures). Uploaded files are served inert: no sniffing, no
    // scripts, no same-origin rights even if someone uploads HTML.
    scope.addHook('onSend', async (request, reply) => {
      reply.header('access-control-allow-origin', '*');
      reply.header('access-control-expose-headers', 'content-length, content-range, etag, accept-ranges');
      reply.header('x-content-type-options', 'nosniff');
      reply.header('content-security-policy', "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox");
      reply.header('cross-origin-resource-policy', 'cross-origin');
      // An upload refused before its body was read: close rather than read up to 250 MB for nothing.
      if (request.method === 'PUT' && reply.statusCode >= 400 && !request.raw.readableEnded) reply.header('connection', 'close');
    });

    scope.setErrorHandler((err: Error & { statusCode?: number; code?: string }, request, reply) => {
      if (err instanceof ApiError) return reply.status(err.status).send(errorBody(err));
      const status = typeof err.statusCode === 'number' ? err.statusCode : 500;
      if (status >= 400 && status < 500) return reply.status(status).send({ success: false, error: err.message, code: (err.code ?? 'bad_request').toLowerCase() });
      request.log.error({ err }, 'storage route failed');
      return reply.status(500).send({ success: false, error: 'Internal server error', code: 'internal_error' });
    });

    const url = `${OBJECT_ROUTE_PREFIX}*`;
    // Objects go out byte for byte: their ETag, Content-Length and byte ranges describe the stored
    // bytes (most are images or tiles, compressed already), so response compression stays off.
    scope.route({ method: ['GET', 'HEAD'], url, exposeHeadRoute: false, compress: false, handler: (req, reply) => download(driver, req, reply) });
    scope.route({ method: 'PUT', url, handler: (req, reply) => upload(driver, req, reply) });
    scope.route({
      method: 'OPTIONS',
      url,
      handler: (_req, reply) =>
        reply
          .status(204)
          .header('access-control-allow-methods', 'GET, HEAD, PUT')
          .header('access-control-allow-headers', 'content-type, range, if-none-match')
          .header('access-control-max-age', '3600')
          .send(),
    });
  });
}
