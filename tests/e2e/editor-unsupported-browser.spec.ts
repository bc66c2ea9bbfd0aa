// A browser that cannot run WebGL in a worker (no OffscreenCanvas) cannot draw the editor: the
// renderer's regl compiles with `new Function`, which the page's Content-Security-Policy forbids
// outside the render worker (src/server/http/security-headers.ts). The editor says so and what to
// use, instead of a blank canvas or a broken page, and does not load the main-thread renderer.
import { expect, test } from '@playwright/test';
import { editorProject } from './editor-helpers';

test('editor in a browser without OffscreenCanvas: it says the canvas cannot be drawn here and what to use, and the page keeps working', async ({ page }) => {
  const project = await editorProject(page, { classes: [{ name: 'car', type: 'box', color: '#F07575' }], images: [{ name: 'street.png', width: 800, height: 600 }], open: false });
  await page.addInitScript(() => {
    delete (globalThis as { OffscreenCanvas?: unknown }).OffscreenCanvas;
    delete (HTMLCanvasElement.prototype as { transferControlToOffscreen?: unknown }).transferControlToOffscreen;
  });
  const scripts: string[] = [];
  page.on('request', (r) => {
    if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
  });
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));

  await page.goto(`/projects/${project.projectId}/images/${project.images[0]!.id}`);
  await expect(page.getByRole('heading', { name: 'street.png', level: 1 })).toBeVisible();
  const alert = page.getByRole('alert').filter({ hasText: 'This browser cannot draw the editor canvas' });
  await expect(alert).toHaveText('This browser cannot draw the editor canvas: it needs WebGL in a web worker (OffscreenCanvas). Open Vellum in a current version of Chrome, Edge, Firefox or Safari.', { timeout: 20_000 });
  // A reload would not help, so none is offered.
  await expect(alert.getByRole('button')).toHaveCount(0);
  await page.screenshot({ path: 'test-results/editor-unsupported-browser.png' });
  expect(scripts.filter((s) => /\/renderer-[\w-]+\.js$/.test(s))).toEqual([]);
  expect(pageErrors).toEqual([]);

  // The rest of the app is unharmed: back to the project's Data tab.
  await page.getByRole('button', { name: 'Back' }).click();
  await expect(page.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
});
