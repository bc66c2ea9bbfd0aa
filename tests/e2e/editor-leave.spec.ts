// Leaving the editor logs nothing (issue 33, part 5): the render worker's textures were destroyed
// twice on the way out ("(regl) must not double destroy texture", twice every time). Five times
// open an image from the Data tab, let its neighbours preload, and go Back: no console error, from
// the page or a worker, and no uncaught error.
import { expect, test, type ConsoleMessage } from '@playwright/test';
import { editorProject, openFromDataTab } from './editor-helpers';

test('editor: five open / close cycles log no console error', async ({ page }) => {
  test.setTimeout(240_000);
  const errors: string[] = [];
  const onConsole = (where: string) => (m: ConsoleMessage) => {
    if (m.type() === 'error') errors.push(`${where}: ${m.text()}`);
  };
  page.on('console', onConsole('page'));
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('worker', (w) => w.on('console', onConsole(`worker ${w.url()}`)));

  await editorProject(page, { classes: [{ name: 'car', type: 'box', color: '#F07575' }], images: [{ name: 'leave_1.png' }, { name: 'leave_2.png' }, { name: 'leave_3.png' }] });
  for (let i = 0; i < 5; i++) {
    // The middle image: both neighbours are opened ahead.
    await openFromDataTab(page, 'leave_2.png');
    await expect(page.getByText('2 of 3')).toBeVisible();
    // Long enough for the neighbours' preloads to be under way or done.
    await page.waitForTimeout(1500);
    await page.getByRole('button', { name: 'Back', exact: true }).click();
    await expect(page.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
    await page.waitForTimeout(500);
  }
  expect(errors).toEqual([]);
});
