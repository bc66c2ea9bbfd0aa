// The load generator's HTTP side: one keep-alive agent, loopback targets only, a timeout per
// request, a cap on the total number of requests, and every answer recorded under its normalised
// route (ids and query left out) for the report.
import http from 'node:http';
import zlib from 'node:zlib';
import { performance } from 'node:perf_hooks';

/** Hosts the bench may send requests to: this machine only. */
export function isLoopback(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export function assertLoopback(url: string, what: string): void {
  if (!isLoopback(url) || !url.startsWith('http://')) throw new Error(`refusing to send load to ${what} ${url}: only http:// on a loopback address (127.0.0.0/8, ::1, localhost)`);
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** `POST /api/v1/annotations/save-changes`: ids become :id, the query goes, a stored object is :bucket/:key. */
export function routeOf(method: string, url: string): string {
  const p = new URL(url).pathname;
  if (p.startsWith('/storage/v1/object/')) return `${method} /storage/v1/object/:bucket/:key`;
  return `${method} ${p.replace(UUID, ':id')}`;
}

export type Outcome = 'ok' | 'conflict' | 'error' | 'timeout' | 'network';

export interface Sample {
  ms: number;
  outcome: Outcome;
}

/** Samples per route (in the order routes first appear) and the failures worth reading. */
export class Recorder {
  readonly routes = new Map<string, Sample[]>();
  readonly failures: { route: string; status: number | string; body: string }[] = [];
  count = 0;

  add(route: string, ms: number, outcome: Outcome, status: number | string, body = ''): void {
    let list = this.routes.get(route);
    if (!list) this.routes.set(route, (list = []));
    list.push({ ms, outcome });
    this.count += 1;
    if (outcome !== 'ok' && outcome !== 'conflict' && this.failures.length < 50) this.failures.push({ route, status, body: body.slice(0, 300) });
  }
}

export class RequestCapReached extends Error {}

export interface Answer {
  status: number;
  body: Buffer;
  headers: http.IncomingHttpHeaders;
  ms: number;
}

export interface ClientOptions {
  timeoutMs: number;
  /** Stops the run once this many requests were sent (all virtual users together). */
  maxRequests: number;
}

export class LoadClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 128 });
  sent = 0;
  recorder = new Recorder();

  constructor(private readonly opts: ClientOptions) {}

  /**
   * One request, recorded under `label` (default: the normalised route). 2xx is 'ok'; `expect409`
   * makes a 409 'conflict' (a normal outcome); any other status is an error. Network failures and
   * timeouts are recorded and rethrown as an answer with status 0.
   */
  async send(method: string, url: string, opts: { token?: string; json?: unknown; bytes?: Buffer; contentType?: string; label?: string; expect409?: boolean; timeoutMs?: number } = {}): Promise<Answer> {
    assertLoopback(url, 'URL');
    if (this.sent >= this.opts.maxRequests) throw new RequestCapReached(`request cap of ${this.opts.maxRequests} reached`);
    this.sent += 1;
    const route = opts.label ?? routeOf(method, url);
    const payload = opts.json !== undefined ? Buffer.from(JSON.stringify(opts.json)) : opts.bytes;
    const headers: http.OutgoingHttpHeaders = { accept: 'application/json', 'accept-encoding': 'gzip, deflate, br' };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (payload) {
      headers['content-type'] = opts.contentType ?? 'application/json';
      headers['content-length'] = payload.length;
    }
    const timeoutMs = opts.timeoutMs ?? this.opts.timeoutMs;
    const t0 = performance.now();
    const answer = await new Promise<Answer | { failed: 'timeout' | 'network'; message: string }>((resolve) => {
      let done = false;
      const finish = (v: Answer | { failed: 'timeout' | 'network'; message: string }) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(v);
      };
      const req = http.request(url, { method, agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => finish({ status: res.statusCode ?? 0, body: decoded(Buffer.concat(chunks), res.headers['content-encoding']), headers: res.headers, ms: performance.now() - t0 }));
        res.on('error', (err) => finish({ failed: 'network', message: err.message }));
      });
      const timer = setTimeout(() => {
        req.destroy(new Error('timeout'));
        finish({ failed: 'timeout', message: `no answer in ${timeoutMs} ms` });
      }, timeoutMs);
      req.on('error', (err) => finish({ failed: 'network', message: err.message }));
      req.end(payload);
    });
    if ('failed' in answer) {
      this.recorder.add(route, performance.now() - t0, answer.failed, answer.failed, answer.message);
      return { status: 0, body: Buffer.from(answer.message), headers: {}, ms: performance.now() - t0 };
    }
    const ok = answer.status >= 200 && answer.status < 300;
    const outcome: Outcome = ok ? 'ok' : answer.status === 409 && opts.expect409 ? 'conflict' : 'error';
    this.recorder.add(route, answer.ms, outcome, answer.status, ok ? '' : answer.body.toString());
    return answer;
  }

  close(): void {
    this.agent.destroy();
  }
}

function decoded(raw: Buffer, encoding: string | string[] | undefined): Buffer {
  if (encoding === 'br') return zlib.brotliDecompressSync(raw);
  if (encoding === 'gzip') return zlib.gunzipSync(raw);
  if (encoding === 'deflate') return zlib.inflateSync(raw);
  return raw;
}

export function json<T = Record<string, unknown>>(a: Answer): T {
  return JSON.parse(a.body.toString()) as T;
}
