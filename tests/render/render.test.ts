// Pixel tests: scenes from scenes.ts rendered by the real renderer (render worker, and the
// main-thread fallback for some) in headless Chromium, compared with tests/render/expected/*.png.
// Regenerate (then look at them!) with UPDATE_RENDER_EXPECTED=1 npx vitest run tests/render.
import fs from 'node:fs';
import path from 'node:path';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import type { Browser, Page } from 'playwright-core';
import type { ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, repoRoot, startServer } from './harness';

const expectedDir = path.join(repoRoot, 'tests/render/expected');
const outDir = path.join(repoRoot, 'test-results/render');
const update = process.env.UPDATE_RENDER_EXPECTED === '1';
/** Per-pixel colour distance (pixelmatch's YIQ threshold) and the share of pixels allowed to differ. */
const THRESHOLD = 0.1;
const MAX_MISMATCH = 0.005;

let server: ViteDevServer, browser: Browser, page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  const s = await startServer();
  server = s.server;
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 400, height: 300 }, deviceScaleFactor: 1 });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico')) pageErrors.push(m.text()); });
  await page.goto(`${s.url}/tests/render/page/index.html`);
  await page.waitForFunction(() => (window as unknown as { vellumReady?: boolean }).vellumReady, null, { timeout: 90_000 });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function renderScene(name: string, mode: 'worker' | 'main'): Promise<{ png: PNG; stats: Record<string, unknown> }> {
  const stats = await page.evaluate(([n, m]) => (window as unknown as { vellumRender(n: string, m: string): Promise<Record<string, unknown>> }).vellumRender(n!, m!), [name, mode]);
  const buf = await page.locator('#c').screenshot();
  return { png: PNG.sync.read(buf), stats };
}

function compare(name: string, actual: PNG): number {
  const file = path.join(expectedDir, `${name}.png`);
  if (update || !fs.existsSync(file)) {
    if (!update) throw new Error(`No expected image ${file}; run with UPDATE_RENDER_EXPECTED=1 and inspect it`);
    fs.mkdirSync(expectedDir, { recursive: true });
    fs.writeFileSync(file, PNG.sync.write(actual));
    return 0;
  }
  const expected = PNG.sync.read(fs.readFileSync(file));
  expect([actual.width, actual.height]).toEqual([expected.width, expected.height]);
  const diff = new PNG({ width: expected.width, height: expected.height });
  const bad = pixelmatch(expected.data, actual.data, diff.data, expected.width, expected.height, { threshold: THRESHOLD });
  const ratio = bad / (expected.width * expected.height);
  if (ratio > MAX_MISMATCH) {
    fs.mkdirSync(outDir, { recursive: true });
    fs.writeFileSync(path.join(outDir, `${name}-actual.png`), PNG.sync.write(actual));
    fs.writeFileSync(path.join(outDir, `${name}-diff.png`), PNG.sync.write(diff));
  }
  return ratio;
}

const cases: [scene: string, mode: 'worker' | 'main'][] = [
  ['boxes', 'worker'],
  ['polygonHole', 'worker'],
  ['lines', 'worker'],
  ['selected', 'worker'],
  ['mask', 'worker'],
  ['maskState', 'worker'],
  ['tiledOverview', 'worker'],
  ['tiledDetail', 'worker'],
  ['drawing', 'worker'],
  ['tiny', 'worker'],
  ['compact', 'worker'],
  ['compactZoomed', 'worker'],
  ['dotsAtEdges', 'worker'],
  // the main-thread fallback draws the same pixels
  ['boxes', 'main'],
  ['selected', 'main'],
  ['mask', 'main'],
  ['tiledDetail', 'main'],
];

describe('renderer pixels (headless Chromium)', () => {
  for (const [scene, mode] of cases) {
    it(`${scene} (${mode})`, async () => {
      const { png, stats } = await renderScene(scene, mode);
      expect(stats.backend).toBe(mode);
      if (scene.startsWith('tiled')) expect(stats.imageMode).toBe('tiled');
      if (scene === 'mask') expect(stats.masks).toBe(2);
      if (scene === 'maskState') expect(stats.masks).toBe(3);
      if (scene === 'tiny') expect(stats.culledChunks).toBeGreaterThan(0); // the shapes right of the view
      // the zoomed-in scene must end on the same picture as the one drawn at its final camera
      const ratio = (update && mode === 'main') || (update && scene === 'compactZoomed') ? 0 : compare(scene === 'compactZoomed' ? 'compact' : scene, png);
      expect(ratio, `${scene}: ${(ratio * 100).toFixed(2)}% of pixels differ (see test-results/render)`).toBeLessThanOrEqual(MAX_MISMATCH);
      expect(pageErrors).toEqual([]);
    }, 60_000);
  }
});
