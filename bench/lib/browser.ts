// Shared by the benchmarks that drive the built app in Chromium (first-load, editor-switch): the
// Chromium to launch, and a user signed in through the sign-in page as a person would.
import type { Browser, BrowserContext, Page } from 'playwright-core';

export { chromiumPath } from '../../tests/render/harness';

/**
 * A new context (1440 x 900 on `baseURL`) whose page has just submitted the sign-in form for
 * `user`; the caller waits for the page it expects next.
 */
export async function signInThroughPage(browser: Browser, baseURL: string, user: { email: string; password: string }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL, viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto('/');
  await page.getByLabel('Email address').fill(user.email);
  await page.getByRole('button', { name: 'Continue', exact: true }).click();
  await page.getByLabel('Password', { exact: true }).fill(user.password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  return { context, page };
}
