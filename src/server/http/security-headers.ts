// Security headers on every response (issue 15, item 5). The app's pages, scripts and workers get
// a Content-Security-Policy that allows what Vellum runs and nothing else: its own scripts and
// module workers, WebAssembly (the kernels), and connections and images to this origin, the
// storage service and the identity service in use. API answers get a policy that allows nothing
// (a JSON answer opened as a page can run nothing). Everything is nosniff, not framable, and sent
// with a same-origin referrer only (signed URLs carry tokens in their query); HSTS when the app is
// served over https. A response that set its own policy (stored objects: a sandbox) keeps it.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config';
import { parseS3StorageUrl } from '../storage/s3-url';

/** Origins the browser reaches besides this one: the storage service's and the hosted identity service's. */
export function externalOrigins(config: Config): string[] {
  const out: string[] = [];
  if (config.storage.kind === 's3') {
    const s3 = parseS3StorageUrl(config.storage.url);
    if (s3.endpoint) {
      const endpoint = new URL(s3.endpoint);
      // Path-style URLs stay on the endpoint; virtual-hosted ones put the bucket in front of its host.
      out.push(endpoint.origin);
      if (!s3.forcePathStyle) out.push(`${endpoint.protocol}//*.${endpoint.host}`);
    } else {
      out.push('https://*.amazonaws.com');
    }
  }
  if (config.auth.kind === 'supabase') out.push(new URL(config.auth.url).origin);
  return out;
}

/**
 * The app's policy. `evalInWorker`: the render worker's own (a worker is governed by the policy of
 * its script's response): regl compiles its draw commands into functions with `new Function`, so
 * that worker, which has no DOM and only receives geometry, may evaluate; the page may not.
 */
export function appContentSecurityPolicy(config: Config, evalInWorker = false): string {
  const others = externalOrigins(config).join(' ');
  const also = others ? ` ${others}` : '';
  return [
    "default-src 'self'",
    `script-src 'self' 'wasm-unsafe-eval'${evalInWorker ? " 'unsafe-eval'" : ''}`,
    "worker-src 'self' blob:",
    `connect-src 'self' blob: data:${also}`,
    `img-src 'self' blob: data:${also}`,
    "style-src 'self' 'unsafe-inline'",
    "font-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The render worker's built script (Vite names worker chunks after their entry: workers/render.worker.ts). */
const RENDER_WORKER = /^\/assets\/render\.worker-[\w-]+\.js$/;

/** What an API answer may do when opened as a page: nothing. */
const API_POLICY = "default-src 'none'; frame-ancestors 'none'";

export function installSecurityHeaders(app: FastifyInstance, config: Config): void {
  const appPolicy = appContentSecurityPolicy(config);
  const renderWorkerPolicy = appContentSecurityPolicy(config, true);
  const hsts = config.publicUrl.startsWith('https:');
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('x-frame-options', 'DENY');
    reply.header('referrer-policy', 'same-origin');
    if (hsts) reply.header('strict-transport-security', 'max-age=31536000; includeSubDomains');
    if (reply.hasHeader('content-security-policy')) return;
    const path = request.url.split('?')[0]!;
    // The OpenAPI viewer sets its own policy (@fastify/swagger-ui's staticCSP).
    if (path.startsWith('/api/docs')) return;
    const api = path.startsWith('/api/') || path.startsWith('/auth/') || path.startsWith('/storage/');
    reply.header('content-security-policy', api ? API_POLICY : RENDER_WORKER.test(path) ? renderWorkerPolicy : appPolicy);
  });
}
