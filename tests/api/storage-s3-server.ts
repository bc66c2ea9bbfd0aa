// A real S3-compatible server for the S3 driver tests: an s3rver process on loopback, behind a small proxy that
// verifies SigV4 presigned URLs. s3rver accepts any V4 signature ("Signature version 4 calculation is
// unimplemented" in its authentication middleware), so without the proxy a tampered or misused
// presigned URL would pass and the tests could not fail. The proxy recomputes the signature from the
// AWS specification (independently of the SDK that made it) and refuses what AWS S3 would refuse.
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';

export const S3_ACCESS_KEY = 'S3RVER';
export const S3_SECRET_KEY = 'S3RVER';

export interface S3TestServer {
  /** The endpoint clients use (the verifying proxy). */
  endpoint: string;
  /** Presigned requests the proxy checked, and how many it refused. */
  stats: { verified: number; refused: number };
  stop(): Promise<void>;
}

const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

function parseAmzDate(s: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  return m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) : NaN;
}

/** null when the presigned request is valid, else the S3 error code and message. */
export function checkPresigned(method: string, rawUrl: string, headers: http.IncomingHttpHeaders, secret: string, now = Date.now()): { code: string; message: string } | null {
  const [rawPath, rawQuery = ''] = rawUrl.split(/\?(.*)/s);
  const pairs = rawQuery
    .split('&')
    .filter(Boolean)
    .map((p) => {
      const i = p.indexOf('=');
      const dec = (s: string) => decodeURIComponent(s.replace(/\+/g, '%20'));
      return i < 0 ? [dec(p), ''] : [dec(p.slice(0, i)), dec(p.slice(i + 1))];
    });
  const q = new Map(pairs.map(([k, v]) => [k, v] as const));
  const credential = q.get('X-Amz-Credential') ?? '';
  const amzDate = q.get('X-Amz-Date') ?? '';
  const expires = Number(q.get('X-Amz-Expires'));
  const signedHeaders = (q.get('X-Amz-SignedHeaders') ?? '').split(';');
  const signature = q.get('X-Amz-Signature') ?? '';
  if (q.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') return { code: 'AuthorizationQueryParametersError', message: 'bad algorithm' };
  const [, date, region, service, term] = credential.split('/');
  if (!date || !region || service !== 's3' || term !== 'aws4_request') return { code: 'AuthorizationQueryParametersError', message: 'bad credential scope' };
  const signedAt = parseAmzDate(amzDate);
  if (Number.isNaN(signedAt) || !Number.isInteger(expires)) return { code: 'AuthorizationQueryParametersError', message: 'bad date or expiry' };
  if (now > signedAt + expires * 1000) return { code: 'AccessDenied', message: 'Request has expired' };

  const canonicalQuery = pairs
    .filter(([k]) => k !== 'X-Amz-Signature')
    .map(([k, v]) => [rfc3986(k), rfc3986(v)])
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalHeaders = signedHeaders.map((h) => `${h}:${String(headers[h] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  const canonicalRequest = [method, rawPath, canonicalQuery, canonicalHeaders, signedHeaders.join(';'), 'UNSIGNED-PAYLOAD'].join('\n');
  const scope = `${date}/${region}/s3/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonicalRequest).digest('hex')].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), 's3'), 'aws4_request');
  const expected = createHmac('sha256', key).update(stringToSign).digest();
  const given = Buffer.from(signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { code: 'SignatureDoesNotMatch', message: 'The request signature we calculated does not match the signature you provided.' };
  return null;
}

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

// s3rver runs in its own process: its ListObjectsV2 continuation tokens use DES, which OpenSSL 3 only
// offers with the legacy provider (without it every listing of more than 1000 keys fails).
const S3RVER_MAIN = `
const S3rver = require('s3rver');
const [directory, buckets] = [process.argv[1], JSON.parse(process.argv[2])];
new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: buckets.map((name) => ({ name, configs: [] })) })
  .run()
  .then(({ port }) => process.stdout.write(JSON.stringify({ port }) + '\\n'), (err) => { console.error(err); process.exit(1); });
`;

async function spawnS3rver(dir: string, buckets: string[]): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--openssl-legacy-provider', '-e', S3RVER_MAIN, dir, JSON.stringify(buckets)], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('exit', (code) => reject(new Error(`s3rver exited with code ${code}`)));
  });
  // Never outlive the test process, even when it dies without running its hooks.
  process.once('exit', () => child.kill('SIGKILL'));
  return { child, port };
}

export async function startS3Server(opts: { buckets?: string[] } = {}): Promise<S3TestServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vellum-s3rver-'));
  const { child, port: s3Port } = await spawnS3rver(dir, opts.buckets ?? []);
  const stats = { verified: 0, refused: 0 };
  const agent = new http.Agent({ keepAlive: false });

  const proxy = http.createServer((req, res) => {
    const url = req.url ?? '/';
    if (/[?&]X-Amz-Signature=/.test(url)) {
      stats.verified++;
      const problem = checkPresigned(req.method ?? 'GET', url, req.headers, S3_SECRET_KEY);
      if (problem) {
        stats.refused++;
        req.resume();
        res.writeHead(403, { 'content-type': 'application/xml', connection: 'close' });
        res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${problem.code}</Code><Message>${problem.message}</Message></Error>`);
        return;
      }
    }
    // Bodies are forwarded only once complete: S3 never stores a body cut short, s3rver stores whatever
    // arrived before the connection dropped.
    const chunks: Buffer[] = [];
    req.on('error', () => res.destroy());
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const declared = req.headers['content-length'];
      if (declared !== undefined && Number(declared) !== body.length) return res.destroy();
      const upstream = http.request({ host: '127.0.0.1', port: s3Port, method: req.method, path: url, agent, headers: { ...req.headers, host: `127.0.0.1:${s3Port}` } }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  });
  const port = await listen(proxy);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stats,
    async stop() {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
