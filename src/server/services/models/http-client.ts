// Calls to an HTTP model (docs/models.md "An HTTP endpoint"): one POST per image with
// {image_url, width, height, classes}, the answer checked against HttpModelResponse. Each call has a
// timeout; network errors, timeouts, 429 and 5xx are retried with backoff; calls to one endpoint
// are limited in number at once. The SSRF guard runs again at each call, and the address the
// connection really uses is checked as it is resolved (a name cannot resolve to a public address
// for the check and a private one for the call). Redirects are not followed.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { HttpModelResponse, type HttpModelRequest } from '../../../contract/models';
import { checkOutgoingUrl, isPrivateAddress, UrlNotAllowedError } from './url-guard';

export interface HttpModelTarget {
  url: string;
  headers: Record<string, string>;
  classes: string[];
}

export interface HttpCallOptions {
  allowPrivate: boolean;
  timeoutMs?: number;
  /** extra attempts after a retryable failure */
  retries?: number;
  /** first backoff; doubled at each retry (Retry-After, up to 30 s, when the service sends one) */
  backoffMs?: number;
  /** calls to one endpoint at once */
  concurrency?: number;
  maxResponseBytes?: number;
}

/** The model's answer could not be used; `retryable` ones were retried until the attempts ran out. */
export class HttpModelError extends Error {
  override name = 'HttpModelError';
  constructor(
    message: string,
    readonly retryable = false,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }
}

const DEFAULTS = { timeoutMs: 30_000, retries: 2, backoffMs: 500, concurrency: 4, maxResponseBytes: 20 * 1024 * 1024 };
const MAX_RETRY_AFTER_MS = 30_000;

/** A lookup that refuses private addresses as the socket resolves its host. */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as dns.LookupAddress[];
      if (!allowPrivate && (list.length === 0 || list.some((a) => isPrivateAddress(a.address)))) {
        return callback(new UrlNotAllowedError(`the host ${hostname} resolves to a private address`), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/** One POST of JSON; the status and the body (at most `maxBytes`). */
function postJson(url: URL, body: string, headers: Record<string, string>, opts: Required<HttpCallOptions>): Promise<{ status: number; retryAfter: string | undefined; text: string }> {
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', accept: 'application/json', 'content-length': Buffer.byteLength(body) }, lookup: guardedLookup(opts.allowPrivate), timeout: opts.timeoutMs });
    const timer = setTimeout(() => req.destroy(new HttpModelError(`The model did not answer within ${opts.timeoutMs / 1000} s`, true)), opts.timeoutMs);
    req.on('timeout', () => req.destroy(new HttpModelError(`The model did not answer within ${opts.timeoutMs / 1000} s`, true)));
    req.on('error', (err) => {
      clearTimeout(timer);
      if (err instanceof HttpModelError || err instanceof UrlNotAllowedError) reject(err);
      else reject(new HttpModelError(`The model could not be reached: ${err.message}`, true));
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= opts.maxResponseBytes) return void chunks.push(c);
        clearTimeout(timer);
        reject(new HttpModelError(`The model answered more than ${opts.maxResponseBytes} bytes`));
        res.destroy();
      });
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], text: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', (err) => {
        clearTimeout(timer);
        reject(err instanceof HttpModelError ? err : new HttpModelError(`The model's answer broke off: ${err.message}`, true));
      });
    });
    req.end(body);
  });
}

const inFlight = new Map<string, { active: number; waiting: (() => void)[] }>();

/** Runs `fn` when fewer than `limit` calls to `key` are running. */
async function limited<T>(key: string, limit: number, fn: () => Promise<T>): Promise<T> {
  let slot = inFlight.get(key);
  if (!slot) inFlight.set(key, (slot = { active: 0, waiting: [] }));
  while (slot.active >= limit) await new Promise<void>((r) => slot!.waiting.push(r));
  slot.active++;
  try {
    return await fn();
  } finally {
    slot.active--;
    slot.waiting.shift()?.();
    if (slot.active === 0 && slot.waiting.length === 0) inFlight.delete(key);
  }
}

const excerpt = (text: string) => text.replace(/\s+/g, ' ').slice(0, 200);

function parseAnswer(text: string, classes: string[]): HttpModelResponse {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new HttpModelError(`The model's answer is not JSON: ${excerpt(text)}`);
  }
  const parsed = HttpModelResponse.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HttpModelError(`The model's answer does not fit {predictions: [{class, score, box | polygon | rle}]}: ${issue?.path.join('.') || 'answer'}: ${issue?.message}`);
  }
  const unknown = parsed.data.predictions.find((p) => !classes.includes(p.class));
  if (unknown) throw new HttpModelError(`The model answered the class "${unknown.class.slice(0, 100)}", which is not one of its classes`);
  return parsed.data;
}

/** The model's predictions for one image, or HttpModelError / UrlNotAllowedError saying why not. */
export async function callHttpModel(model: HttpModelTarget, request: HttpModelRequest, options: HttpCallOptions): Promise<HttpModelResponse> {
  const opts = { ...DEFAULTS, ...options } as Required<HttpCallOptions>;
  const url = await checkOutgoingUrl(model.url, { allowPrivate: opts.allowPrivate });
  const body = JSON.stringify(request);
  for (let attempt = 0; ; attempt++) {
    try {
      return await limited(url.origin, opts.concurrency, async () => {
        const res = await postJson(url, body, model.headers, opts);
        if (res.status === 429 || res.status >= 500) {
          const after = Number(res.retryAfter);
          throw new HttpModelError(`The model answered ${res.status}: ${excerpt(res.text)}`, true, Number.isFinite(after) && after > 0 ? Math.min(after * 1000, MAX_RETRY_AFTER_MS) : null);
        }
        if (res.status < 200 || res.status >= 300) throw new HttpModelError(`The model refused the image (${res.status}): ${excerpt(res.text)}`);
        return parseAnswer(res.text, model.classes);
      });
    } catch (err) {
      if (!(err instanceof HttpModelError) || !err.retryable || attempt >= opts.retries) throw err;
      await new Promise((r) => setTimeout(r, err.retryAfterMs ?? opts.backoffMs * 2 ** attempt));
    }
  }
}
