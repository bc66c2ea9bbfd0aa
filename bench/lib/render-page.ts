// Shared by the render benchmarks (bench/render/run.ts, bench/render/ratio.ts): the page they drive
// and its warm-up.
import type { Browser } from 'playwright-core';

/** The render benchmark's page under the harness's dev server (`startServer().url`). */
export const renderPagePath = '/bench/render/page/index.html';

/**
 * Opens the render benchmark's page once and runs its warm-up scene (not measured): the dev
 * server transforms the page's and the worker's modules on their first request, which would
 * otherwise land in the first measured run.
 */
export async function warmRenderPage(browser: Browser, url: string): Promise<void> {
  const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
  try {
    await page.goto(`${url}${renderPagePath}`);
    await page.waitForFunction(() => (window as unknown as { benchReady?: boolean }).benchReady, null, { timeout: 90_000 });
    await page.evaluate(() => (window as unknown as { benchRun(s: string, r: string): Promise<unknown> }).benchRun('warmup', 'vellum'));
  } finally {
    await page.close();
  }
}
