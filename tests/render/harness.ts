// Shared by the pixel tests and the render benchmark: a Vite dev server over the repository
// (pages under tests/render/page and bench/render/page) and headless Chromium via playwright-core.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * `root`: another checkout of the repository (bench/render/ratio.ts --before: the build before a
 * change, served next to this one), with its own dependency cache.
 */
export async function startServer(root = repoRoot): Promise<{ server: ViteDevServer; url: string }> {
  const other = root !== repoRoot;
  const server = await createServer({
    configFile: false,
    root,
    ...(other ? { cacheDir: path.join(root, '.vite-other') } : {}),
    logLevel: 'error',
    clearScreen: false,
    server: { host: '127.0.0.1', port: 0, strictPort: false, hmr: false, watch: null, ...(other ? { fs: { strict: false } } : {}) },
    worker: { format: 'es' },
    // Every bare import of the pages' module graph (worker included), bundled before the first
    // request: a dependency discovered mid-load makes Vite re-optimize, and modules already
    // requested at the old version then answer 504, so the page never becomes ready (seen in CI
    // under load). noDiscovery turns any missing entry into a plain error instead of that race.
    optimizeDeps: {
      include: ['regl', 'comlink', 'earcut', 'konva', 'flatbush', 'immer', 'polygon-clipping', 'zod'],
      entries: [],
      noDiscovery: true,
    },
  });
  await server.listen();
  const addr = server.httpServer!.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return { server, url: `http://127.0.0.1:${port}` };
}

export function chromiumPath(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  return fs.existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined;
}

export async function launch(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist',
      ...extraArgs,
    ],
  });
}
