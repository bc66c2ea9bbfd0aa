// The canvas is no keyboard trap (issue 37, WCAG 2.1.2): Tab and Shift+Tab leave it, whether a
// model's predictions are pending or not; the shapes are walked with Alt+↓ / Alt+↑ instead (the
// pending predictions first while there are), as the Hotkeys tab and the predictions bar say.
import { randomUUID } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { annotationRows as rows, apiCall, editorProject, gotoEditorImage } from './editor-helpers';

const canvasFocused = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid') === 'editor-canvas');

test('Tab leaves the canvas with predictions pending and without; Alt+arrows walk the shapes', async ({ page }) => {
  test.setTimeout(120_000);
  const project = await editorProject(page, { classes: [{ name: 'car', type: 'box', color: '#FFADAD' }], images: [{ name: 'trap.png' }], open: false });
  const image = project.images[0];
  const box = (x: number, score: number | null) => ({
    id: randomUUID(),
    name: 'car',
    bounding_box: { x, y: 200, w: 80, h: 60 },
    ...(score === null ? {} : { source: { model_id: 'builtin-coco', score, pending: true } }),
  });
  // Oldest first: the list (newest first) reads pending 0.9, pending 0.8, then the person's own box.
  const saved = await apiCall(page, 'POST', '/annotations/save-data', { image_id: image.id, project_id: project.projectId, image_filename: image.filename, annotations: [box(40, null), box(300, 0.8), box(500, 0.9)], base_version: 0 });
  expect(saved.status).toBe(200);
  await gotoEditorImage(page, project.projectId, image);
  const canvas = page.getByTestId('editor-canvas');
  const bar = page.getByRole('region', { name: 'Predictions' });
  await expect(bar.getByTestId('predictions-pending')).toHaveText('2 predictions pending');
  await expect(bar).toContainText('Alt+↓ next');

  // Predictions pending: Tab leaves the canvas at once, and nothing got selected on the way.
  await canvas.focus();
  await page.keyboard.press('Tab');
  expect(await canvasFocused(page)).toBe(false);
  await expect(page.locator('[role="option"][aria-selected="true"]')).toHaveCount(0);
  await canvas.focus();
  await page.keyboard.press('Shift+Tab');
  expect(await canvasFocused(page)).toBe(false);

  // Alt+↓ / Alt+↑ step through the pending ones; Tab still leaves.
  await canvas.focus();
  await page.keyboard.press('Alt+ArrowDown');
  await expect(rows(page).filter({ hasText: 'pending 0.9' })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Alt+ArrowDown');
  await expect(rows(page).filter({ hasText: 'pending 0.8' })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Alt+ArrowUp');
  await expect(rows(page).filter({ hasText: 'pending 0.9' })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Tab');
  expect(await canvasFocused(page)).toBe(false);

  // Without predictions: Alt+↓ walks the shapes, Tab leaves with one selected.
  await bar.getByRole('button', { name: 'Accept all (2)' }).click();
  await expect(bar).toBeHidden();
  await canvas.focus();
  await page.keyboard.press('Escape');
  await page.keyboard.press('Alt+ArrowDown');
  await expect(rows(page).nth(0)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Alt+ArrowDown');
  await expect(rows(page).nth(1)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Tab');
  expect(await canvasFocused(page)).toBe(false);
  await expect(rows(page).nth(1)).toHaveAttribute('aria-selected', 'true');

  // The Hotkeys tab says so.
  await page.getByRole('button', { name: 'Editor settings' }).click();
  const panel = page.getByRole('dialog', { name: 'Editor settings' });
  await panel.getByRole('tab', { name: 'Hotkeys' }).click();
  await expect(panel.getByText('Select the next annotation in the list')).toBeVisible();
  await expect(panel.getByText('Leave the canvas (to the annotation list and the rest of the page)')).toBeVisible();
});
