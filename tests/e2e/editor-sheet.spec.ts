// Reflow (issue 37, WCAG 1.4.10): below 768 px the editor's side panel is a sheet over the canvas,
// opened and closed by a button, which takes focus when it opens and gives it back when Escape
// closes it; the canvas keeps the width. Screenshots at 320 px of the editor and the Data tab, and
// at 200% (720 x 450 CSS px) of the Export and Add Class dialogs, footers in view.
import { expect, test } from '@playwright/test';
import { editorProject } from './editor-helpers';

// One journey through the narrow editor, its top bar, the Data tab and the 200% dialogs, on one
// project: a test's fixed part (a context, a sign-up, the app's first load) is some 3 s of CPU
// (tests/README.md, "Where the time goes"). The app loads at 320 px; each step sets the size it
// is about.
test('at 320 px the editor panel is a sheet and the top bar one row; the Data tab fits; at 200% the Export and Add Class dialogs keep their buttons in view', async ({ page }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 320, height: 568 });
  await editorProject(page, { classes: [{ name: 'car', type: 'box', color: '#F07575' }], images: [{ name: 'a-rather-long-file-name.png' }], open: 'a-rather-long-file-name.png' });
  const canvas = page.getByTestId('editor-canvas');
  await expect(page.getByText('Loading image...')).toBeHidden();

  await test.step('the editor panel is a sheet: opened by its button, focus in, Escape closes it and focus comes back', async () => {
    // The canvas keeps most of the width: the panel is a 30 px strip until it is opened.
    expect((await canvas.boundingBox())!.width).toBeGreaterThanOrEqual(200);
    await page.screenshot({ path: 'test-results/shots/a11y-editor-320.png' });

    const opener = page.getByRole('button', { name: 'Show annotations' });
    await opener.click();
    const sheet = page.getByRole('dialog', { name: 'Annotations' });
    await expect(sheet).toBeVisible();
    await expect(sheet.getByRole('button', { name: 'Close annotations' })).toBeFocused();
    await expect(sheet).toContainText('No annotations yet');
    await page.screenshot({ path: 'test-results/shots/a11y-editor-sheet-320.png' });
    // The canvas did not shrink under it.
    expect((await canvas.boundingBox())!.width).toBeGreaterThanOrEqual(200);
    await page.keyboard.press('Escape');
    await expect(sheet).toBeHidden();
    await expect(opener).toBeFocused();
    // The button closes it as well.
    await opener.click();
    await sheet.getByRole('button', { name: 'Close annotations' }).click();
    await expect(sheet).toBeHidden();
  });

  await test.step('the top bar is one compact row: nothing past the edge, the rest in a More menu that the keyboard works', async () => {
    await page.setViewportSize({ width: 320, height: 640 });
    const bar = page.locator('header').filter({ has: page.getByRole('heading', { level: 1 }) });
    const height = async () => (await bar.boundingBox())!.height;
    // One row (it wrapped to about 150 px), and nothing of it past the right edge.
    expect(await height()).toBeLessThanOrEqual(49);
    const past = await bar.evaluate((el) => [...el.querySelectorAll('*')].filter((e) => e.getBoundingClientRect().right > 320.5).map((e) => e.outerHTML.slice(0, 80)));
    expect(past).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    for (const name of ['Back', 'Submit for review', 'More']) await expect(bar.getByRole('button', { name: new RegExp(`^${name}`) })).toBeInViewport({ ratio: 1 });
    await page.screenshot({ path: 'test-results/shots/a11y-editor-top-bar-320.png' });

    // More is a menu button: Enter opens it on its first item, Escape closes it and gives focus back.
    const more = bar.getByRole('button', { name: 'More' });
    await expect(more).toHaveAttribute('aria-haspopup', 'menu');
    await more.focus();
    await page.keyboard.press('Enter');
    const menu = page.getByRole('menu', { name: 'More' });
    await expect(menu).toBeVisible();
    await expect(menu).toContainText('Streets · 1 of 1');
    await expect(menu.getByRole('menuitem', { name: 'Copy link' })).toBeFocused();
    const box = (await menu.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(320);
    await page.screenshot({ path: 'test-results/shots/a11y-editor-top-bar-menu-320.png' });
    await page.keyboard.press('Escape');
    await expect(menu).toBeHidden();
    await expect(more).toBeFocused();

    // At 1440 px the bar is as it was: Copy link, the project's name and the image's place in it.
    await page.setViewportSize({ width: 1440, height: 900 });
    await expect(bar.getByRole('button', { name: 'Copy link' })).toBeVisible();
    await expect(bar.getByRole('button', { name: 'More' })).toHaveCount(0);
    await expect(bar).toContainText('1 of 1');
    await page.screenshot({ path: 'test-results/shots/a11y-editor-top-bar-1440.png' });
  });

  await test.step("at 320 px nothing of the project's header or tabs runs past the right edge", async () => {
    await page.setViewportSize({ width: 320, height: 568 });
    await page.getByRole('button', { name: 'Back', exact: true }).click();
    await expect(page.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
    // WCAG 1.4.10.
    for (const control of [page.getByRole('button', { name: 'Add', exact: true }), page.getByRole('tab', { name: /Analytics/ })]) {
      const box = (await control.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(320);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    await page.screenshot({ path: 'test-results/shots/a11y-data-320.png', fullPage: true });
  });

  await test.step('at 200% zoom the Export and Add Class dialogs keep their buttons in view', async () => {
    await page.setViewportSize({ width: 720, height: 450 });
    await page.getByRole('button', { name: /^Export \(\d+\)$/ }).click();
    const exporting = page.getByRole('dialog', { name: 'Export Dataset' });
    await expect(exporting.getByRole('button', { name: 'Cancel' })).toBeInViewport({ ratio: 1 });
    await page.screenshot({ path: 'test-results/shots/a11y-export-200.png' });
    await page.keyboard.press('Escape');
    await page.getByRole('tab', { name: /Classes/ }).click();
    await page.getByRole('button', { name: 'Add Class', exact: true }).first().click();
    const adding = page.getByRole('dialog', { name: 'Add Class' });
    await expect(adding.getByRole('button', { name: 'Cancel' })).toBeInViewport({ ratio: 1 });
    await page.screenshot({ path: 'test-results/shots/a11y-add-class-200.png' });
  });
});
