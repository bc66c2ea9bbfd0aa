// Habits annotators bring (issue 33, part 5): a shape just drawn is selected (2 relabels it at
// once), the box tool's crosshair guides (and their switch in the settings), N draws again with
// the last tool and class, Remove All asks and offers Undo, and the Classes tab's Attributes
// dialog keeps Save on screen at 1280 x 720 with many attributes.
import { expect, test } from '@playwright/test';
import { annotationRows as rows, canvasBox, dragOnCanvas, drawnImageRect, editorProject, openFromDataTab } from './editor-helpers';

const CLASSES = [
  { name: 'car', type: 'box' as const, color: '#F07575' },
  { name: 'truck', type: 'box' as const, color: '#F075A6' },
  { name: 'road', type: 'polygon' as const, color: '#ACF6E7' },
];

test('habits: a new shape is selected, crosshair guides, N repeats, Remove All asks and undoes', async ({ page }) => {
  test.setTimeout(180_000);
  await editorProject(page, { classes: CLASSES, images: [{ name: 'habits_1.png' }] });
  await openFromDataTab(page, 'habits_1.png');
  const b = await canvasBox(page);

  // Box tool: guides across the whole image at the pointer.
  await page.keyboard.press('r');
  const img = await drawnImageRect(page);
  await page.mouse.move(img.left + 300, img.top + 200);
  const h = page.getByTestId('box-guide-h');
  const v = page.getByTestId('box-guide-v');
  await expect(h).toBeVisible();
  await expect(v).toBeVisible();
  const hb = (await h.boundingBox())!;
  const vb = (await v.boundingBox())!;
  expect(Math.abs(hb.x - img.left)).toBeLessThan(3);
  expect(Math.abs(hb.x + hb.width - img.right)).toBeLessThan(3);
  expect(Math.abs(hb.y - (img.top + 200))).toBeLessThan(2);
  expect(Math.abs(vb.y - img.top)).toBeLessThan(3);
  expect(Math.abs(vb.y + vb.height - img.bottom)).toBeLessThan(3);
  expect(Math.abs(vb.x - (img.left + 300))).toBeLessThan(2);
  await page.screenshot({ path: 'test-results/shots/box-crosshair.png' });
  // Off the image: no guides.
  await page.mouse.move(b.x + 4, b.y + b.height / 2);
  await expect(h).toBeHidden();

  // A box just drawn is selected: 2 relabels it at once.
  await dragOnCanvas(page, [img.left - b.x + 100, img.top - b.y + 100], [img.left - b.x + 240, img.top - b.y + 200]);
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('2');
  await expect(rows(page).first()).toContainText('truck');

  // The settings' switch turns the guides off (kept on the device).
  await page.getByRole('button', { name: 'Editor settings' }).click();
  await page.getByRole('switch', { name: 'Crosshair guides' }).uncheck();
  await page.keyboard.press('Escape');
  await page.mouse.move(img.left + 320, img.top + 220);
  await expect(page.getByTestId('box-guides')).toHaveCount(0);
  expect(await page.evaluate(() => localStorage.getItem('vellum.editorCrosshair'))).toBe('false');

  // A polygon of road, then Select; N is the polygon tool with road again.
  await page.keyboard.press('p');
  for (const [x, y] of [[400, 300], [520, 300], [520, 400]] as const) await page.mouse.click(img.left + x, img.top + y);
  await page.keyboard.press('Enter');
  await expect(rows(page)).toHaveCount(2);
  await expect(rows(page).first()).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('q');
  await page.keyboard.press('r');
  await expect(page.getByRole('button', { name: 'Class: car' })).toBeVisible();
  await page.keyboard.press('n');
  await expect(page.getByRole('button', { name: 'Polygon (P)' })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByRole('button', { name: 'Class: road' })).toBeVisible();

  // Remove All asks; Cancel keeps everything.
  await page.getByRole('button', { name: 'Remove All' }).click();
  const confirm = page.getByRole('dialog', { name: 'Remove all annotations?' });
  await expect(confirm).toContainText('All 2 annotation(s)');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toBeHidden();
  await expect(rows(page)).toHaveCount(2);
  // Confirmed: gone, and the toast's Undo brings them back.
  await page.getByRole('button', { name: 'Remove All' }).click();
  await confirm.getByRole('button', { name: 'Remove All' }).click();
  await expect(rows(page)).toHaveCount(0);
  const toast = page.getByTestId('toast').filter({ hasText: 'Removed 2 annotation(s)' });
  await toast.getByRole('button', { name: 'Undo' }).click();
  await expect(rows(page)).toHaveCount(2);
});

test('habits: the Attributes dialog scrolls and keeps Save on screen at 1280 x 720', async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1280, height: 720 });
  const attributes = Array.from({ length: 8 }, (_, i) => ({ name: `choice ${i + 1}`, kind: 'select', options: ['a', 'b', 'c', 'd'], default: 'a' }));
  await editorProject(page, { classes: [{ name: 'car', type: 'box', color: '#F07575', attributes }] as unknown as typeof CLASSES });
  await page.getByRole('tab', { name: /Classes/ }).click();
  await page.getByRole('button', { name: 'Attributes of car: 8 attributes' }).click();
  const dialog = page.getByRole('dialog', { name: 'Attributes of car' });
  const save = dialog.getByRole('button', { name: 'Save Attributes' });
  await expect(save).toBeVisible();
  const box = (await save.boundingBox())!;
  expect(box.y + box.height).toBeLessThanOrEqual(720);
  const d = (await dialog.boundingBox())!;
  expect(d.y).toBeGreaterThanOrEqual(0);
  expect(d.y + d.height).toBeLessThanOrEqual(720);
  // The list scrolls: its last attribute can be brought into view and edited.
  const last = dialog.getByTestId('attribute-definition').nth(7);
  await last.getByLabel('Attribute name').scrollIntoViewIfNeeded();
  await expect(last.getByLabel('Attribute name')).toBeInViewport();
  await page.screenshot({ path: 'test-results/shots/attributes-dialog-1280.png' });
  await save.click();
  await expect(dialog).toBeHidden();
});
