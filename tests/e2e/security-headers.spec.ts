// The app under its Content-Security-Policy (issue 15, item 5): signing up, the projects pages,
// the editor with its render worker and the wasm kernels (an Auto-Annotate mask is decoded by
// them) all run with no violation reported, and the page's headers are what the server promises.
import { expect, test } from '@playwright/test';
import { drawBox, editorProject, openFromDataTab } from './editor-helpers';

test('the app, the editor, its worker and the wasm kernels run under the CSP without a violation', async ({ page }) => {
  test.setTimeout(150_000);
  const violations: string[] = [];
  page.on('console', (msg) => {
    if (/Content Security Policy|Refused to (load|execute|compile|connect|create|apply)/i.test(msg.text())) violations.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => {
    if (/Content Security Policy|unsafe-eval/i.test(err.message)) violations.push(`error: ${err.message}`);
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      const w = window as unknown as { __violations?: string[] };
      (w.__violations ??= []).push(`${e.violatedDirective} ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber}:${e.columnNumber}`);
    });
  });
  const first = await page.goto('/');
  const headers = first!.headers();
  expect(headers['content-security-policy']).toContain("script-src 'self' 'wasm-unsafe-eval'");
  expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['x-content-type-options']).toBe('nosniff');

  await editorProject(page, { classes: [{ name: 'car', type: 'box', color: '#FFADAD' }, { name: 'block', type: 'polygon', color: '#BDB2FF' }], images: [{ name: 'blocks.png' }] });
  // The project page, then the editor from its tile (one load of the app, both under the CSP).
  await openFromDataTab(page, 'blocks.png');
  const rows = page.getByRole('listbox', { name: 'Annotation list' }).getByRole('option');
  await drawBox(page, [100, 100], [220, 200]);
  await expect(rows).toHaveCount(1);
  // Auto-Annotate: the mask comes back as RLE, decoded by the wasm kernels in the page and the render worker.
  await page.keyboard.press('m');
  const status = page.getByTestId('auto-status');
  await expect(status).toHaveText('Ready for Input', { timeout: 60_000 });
  const b = (await page.getByTestId('editor-canvas').boundingBox())!;
  await page.mouse.click(b.x + b.width / 2, b.y + b.height / 2);
  await expect(page.getByRole('button', { name: 'Complete' })).toBeEnabled({ timeout: 30_000 });
  await page.keyboard.press('Enter');
  await expect(rows).toHaveCount(2);
  await expect(rows.first()).toContainText('Mask');
  await page.waitForTimeout(1000);
  const reported = await page.evaluate(() => (window as unknown as { __violations?: string[] }).__violations ?? []);
  expect([...reported, ...violations]).toEqual([]);
});
