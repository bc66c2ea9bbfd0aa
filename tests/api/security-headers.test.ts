// Security headers (issue 15, item 5), as a browser receives them: API answers and the app's files
// are nosniff and not framable with a same-origin referrer; the app gets a Content-Security-Policy
// naming what it runs (its scripts and workers, WebAssembly, the storage and identity origins),
// an API answer a policy that allows nothing; stored objects keep their sandbox; HSTS on https.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, onboardedUser, startServer, type TestServer } from './harness';
import { createProject, png, uploadImage } from '../fixtures/datasets';
import { loadConfig } from '../../src/server/config';
import { appContentSecurityPolicy } from '../../src/server/http/security-headers';

let server: TestServer;
const appDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vellum-csp-app-'));

beforeAll(async () => {
  fs.mkdirSync(path.join(appDir, 'assets'));
  fs.writeFileSync(path.join(appDir, 'index.html'), '<!doctype html><html><body><div id="root"></div><script type="module" src="/assets/index-Ab12Cd34.js"></script></body></html>');
  fs.writeFileSync(path.join(appDir, 'assets', 'index-Ab12Cd34.js'), 'console.log("app")');
  fs.writeFileSync(path.join(appDir, 'assets', 'render.worker-Xy98Zw76.js'), 'self.onmessage = () => {}');
  server = await startServer({ APP_DIR: appDir });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  fs.rmSync(appDir, { recursive: true, force: true });
});

const common = (h: Headers) => {
  expect(h.get('x-content-type-options')).toBe('nosniff');
  expect(h.get('x-frame-options')).toBe('DENY');
  expect(h.get('referrer-policy')).toBe('same-origin');
};

describe('security headers', () => {
  it('the app page, its scripts and the SPA fallback carry the app policy', async () => {
    for (const p of ['/', '/projects', '/assets/index-Ab12Cd34.js']) {
      const res = await fetch(`${server.url}${p}`);
      expect(res.status, p).toBe(200);
      common(res.headers);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self' 'wasm-unsafe-eval'");
      expect(csp).toContain("worker-src 'self' blob:");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("object-src 'none'");
      expect(csp).not.toContain("'unsafe-eval'");
      expect(res.headers.get('strict-transport-security')).toBeNull();
    }
  });

  it('only the render worker may evaluate strings (regl compiles its draw commands), never the page', async () => {
    const worker = await fetch(`${server.url}/assets/render.worker-Xy98Zw76.js`);
    expect(worker.headers.get('content-security-policy')).toContain("script-src 'self' 'wasm-unsafe-eval' 'unsafe-eval'");
    for (const p of ['/', '/assets/index-Ab12Cd34.js']) expect((await fetch(`${server.url}${p}`)).headers.get('content-security-policy')).not.toContain("'unsafe-eval'");
  });

  it('API answers, errors included, allow nothing when opened as a page', async () => {
    for (const res of [await fetch(`${server.url}/api/v1/health`), await fetch(`${server.url}/api/v1/projects/nope`), await fetch(`${server.url}/auth/v1/settings`)]) {
      common(res.headers);
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    }
  });

  it('a stored object keeps its sandbox policy', async () => {
    const owner = await onboardedUser(server);
    const project = await createProject(server, owner);
    const img = await uploadImage(server, owner, project.id, 'a.png', await png(8, 8));
    const signed = await api(server.url, 'GET', `/api/v1/images/${img.id}/signed-url`, { token: owner.token });
    const res = await fetch(signed.body.signed_url);
    expect(res.status).toBe(200);
    common(res.headers);
    expect(res.headers.get('content-security-policy')).toContain('sandbox');
  });

  it('names the storage and identity origins in use, and sends HSTS when the app is served over https', async () => {
    const s3 = appContentSecurityPolicy(loadConfig({ STORAGE_URL: 's3://bucket?endpoint=https://minio.example:9000', SUPABASE_URL: 'https://abc.supabase.co', SUPABASE_ANON_KEY: 'k', SUPABASE_JWT_SECRET: 'x'.repeat(32) }));
    expect(s3).toContain("connect-src 'self' blob: data: https://minio.example:9000 https://abc.supabase.co");
    expect(s3).toContain("img-src 'self' blob: data: https://minio.example:9000");
    const aws = appContentSecurityPolicy(loadConfig({ STORAGE_URL: 's3://bucket' }));
    expect(aws).toContain('https://*.amazonaws.com');
    const secure = await startServer({ APP_DIR: appDir, PUBLIC_URL: 'https://vellum.example' });
    try {
      const res = await fetch(`${secure.url}/api/v1/health`);
      expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
    } finally {
      await secure.stop();
    }
  });
});
