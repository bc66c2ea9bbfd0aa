// The real build (`npm run build`, as `npm start` and `npm run test:e2e` run it) served as a browser
// and a plain HTTP client get it: the app's bundle precompressed and cached for a year, index.html
// revalidated. Raw bytes through node:http, decoded here (tests/api/compression.test.ts checks the
// same rules on a small app directory, and the API's JSON).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { expect, test } from '@playwright/test';

function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; raw: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, raw: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

test('the built bundle comes gzip- or br-encoded as asked, immutable for a year; index.html with no-cache', async ({ baseURL }) => {
  const index = await get(`${baseURL}/`, { 'accept-encoding': 'gzip' });
  expect(index.status).toBe(200);
  expect(index.headers['cache-control']).toBe('no-cache');
  const html = (index.headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(index.raw) : index.raw).toString('utf8');
  const src = html.match(/<script[^>]+src="(\/assets\/index-[^"]+\.js)"/)?.[1];
  expect(src, 'index.html names the hashed bundle').toBeTruthy();
  const onDisk = fs.readFileSync(path.join('dist/app', src!));

  const gz = await get(baseURL + src!, { 'accept-encoding': 'gzip' });
  expect(gz.status).toBe(200);
  expect(gz.headers['content-encoding']).toBe('gzip');
  expect(gz.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  expect(gz.headers.vary).toMatch(/accept-encoding/i);
  expect(gz.raw.length).toBeLessThan(onDisk.length / 2);
  expect(zlib.gunzipSync(gz.raw).equals(onDisk)).toBe(true);

  const br = await get(baseURL + src!, { 'accept-encoding': 'gzip, deflate, br' });
  expect(br.headers['content-encoding']).toBe('br');
  expect(zlib.brotliDecompressSync(br.raw).equals(onDisk)).toBe(true);

  const plain = await get(baseURL + src!);
  expect(plain.headers['content-encoding']).toBeUndefined();
  expect(plain.raw.equals(onDisk)).toBe(true);

  const fallback = await get(`${baseURL}/projects/6f1c0d1e-52a4-4c53-9a5e-1b2f3c4d5e6f/images/0b7c1a6e-3f1d-4a8e-9c2b-7d6e5f4a3b2c?folder=%2Fcats`);
  expect(fallback.status).toBe(200);
  expect(fallback.headers['cache-control']).toBe('no-cache');
});

test('the browser gets the app compressed and loads it', async ({ page }) => {
  const bundle = page.waitForResponse((res) => /\/assets\/index-[^/]+\.js$/.test(res.url()));
  await page.goto('/');
  const res = await bundle;
  const headers = await res.allHeaders();
  expect(['gzip', 'br']).toContain(headers['content-encoding']);
  expect(headers['cache-control']).toBe('public, max-age=31536000, immutable');
  await expect(page.getByRole('heading', { name: 'Welcome Back' })).toBeVisible();
});
