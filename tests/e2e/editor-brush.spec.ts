// Brush and eraser for masks (issue 33, part 1): B paints a new mask of the class, [ and ] size the
// circle at the pointer, E erases, the selection's context menu fills the hole the eraser left and
// the row's menu converts the mask to polygons; after a reload the saved mask's area is what was
// painted. Also the 1440 x 900 screenshot of the brush.
import { expect, test, type Page } from '@playwright/test';
import { decodeRle, rleArea } from '../../src/contract/rle';
import { annotationRows as rows, drawnImageRect, editorProject, loadSaved, openFromDataTab, waitUntilSaved } from './editor-helpers';

const W = 800, H = 600;

async function savedMaskArea(page: Page, project: Awaited<ReturnType<typeof editorProject>>): Promise<number> {
  const { annotations } = await loadSaved(page, project, project.images[0]!.id);
  expect(annotations).toHaveLength(1);
  const seg = annotations[0].segmentation;
  expect(seg.size).toEqual([H, W]);
  expect(decodeRle(seg).length).toBe(W * H); // a valid RLE of the whole image
  return rleArea(seg);
}

/** A stroke through image points (page coordinates from the drawn image's rectangle). */
async function stroke(page: Page, img: { left: number; top: number }, scale: number, points: [number, number][]) {
  const at = ([x, y]: [number, number]) => [img.left + x * scale, img.top + y * scale] as const;
  await page.mouse.move(...at(points[0]!));
  await page.mouse.down();
  for (const p of points.slice(1)) await page.mouse.move(...at(p), { steps: 12 });
  await page.mouse.up();
}

test('brush and erase a mask, fill its hole and remove an island of a typed size from the context menu, reload: the saved area is as painted', async ({ page }) => {
  test.setTimeout(180_000);
  const project = await editorProject(page, { classes: [{ name: 'dog', type: 'polygon', color: '#4C6EF5' }], images: [{ name: 'brush_1.png', width: W, height: H }] });
  await openFromDataTab(page, 'brush_1.png');
  const img = await drawnImageRect(page);
  const scale = (img.right - img.left) / W; // page px per image px

  await page.keyboard.press('b');
  await expect(page.getByRole('button', { name: 'Brush (B)' })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByRole('button', { name: 'Class: dog' })).toBeVisible();
  // The circle at the pointer is the brush's size in screen pixels; ] makes it larger.
  await page.mouse.move(img.left + 200 * scale, img.top + 300 * scale);
  const circle = page.getByTestId('brush-cursor');
  await expect(circle).toBeVisible();
  expect(Math.round((await circle.boundingBox())!.width)).toBe(24);
  for (let i = 0; i < 4; i++) await page.keyboard.press(']');
  const size = Math.round((await circle.boundingBox())!.width);
  expect(size).toBeGreaterThan(50);

  // A stroke 400 image px long: a band of the circle's width with round ends.
  await stroke(page, img, scale, [[200, 300], [600, 300]]);
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toContainText('Mask');
  await page.mouse.move(img.left + 400 * scale, img.top + 300 * scale);
  await page.screenshot({ path: 'test-results/shots/brush.png' });
  await waitUntilSaved(page);
  const r = size / 2 / scale; // the radius in image pixels
  const painted = await savedMaskArea(page, project);
  const expected = Math.PI * r * r + 2 * r * 400;
  expect(painted).toBeGreaterThan(expected * 0.9);
  expect(painted).toBeLessThan(expected * 1.1);

  // The eraser, smaller, cuts a hole in the band's middle (a dab), then a notch through its edge.
  await page.keyboard.press('e');
  await expect(page.getByRole('button', { name: 'Eraser (E)' })).toHaveAttribute('aria-pressed', 'true');
  for (let i = 0; i < 6; i++) await page.keyboard.press('[');
  await stroke(page, img, scale, [[400, 300], [401, 300]]);
  await stroke(page, img, scale, [[300, 300 - r - 10], [300, 300]]);
  await waitUntilSaved(page);
  const erased = await savedMaskArea(page, project);
  expect(erased).toBeLessThan(painted - 100);

  // Select it, right-click: Fill holes puts the dab back, not the notch (it is open to the outside).
  await page.keyboard.press('q');
  await page.mouse.click(img.left + 500 * scale, img.top + 300 * scale);
  await page.mouse.click(img.left + 500 * scale, img.top + 300 * scale, { button: 'right' });
  await expect(page.getByRole('menuitem', { name: 'Fill holes' })).toBeVisible();
  await page.screenshot({ path: 'test-results/shots/brush-menu.png' });
  await page.getByRole('menuitem', { name: 'Fill holes' }).click();
  await waitUntilSaved(page);
  const filled = await savedMaskArea(page, project);
  expect(filled).toBeGreaterThan(erased);
  expect(filled).toBeLessThan(painted);

  // A dab painted away from the band is an island of the same mask; "Remove islands smaller
  // than…" takes any size: a refused one is said in the dialog, a size above the dab's removes it.
  await page.keyboard.press('b');
  await stroke(page, img, scale, [[150, 500], [151, 500]]);
  await waitUntilSaved(page);
  const island = (await savedMaskArea(page, project)) - filled;
  expect(island).toBeGreaterThan(0);
  await page.keyboard.press('q');
  await page.mouse.click(img.left + 500 * scale, img.top + 300 * scale);
  await page.mouse.click(img.left + 500 * scale, img.top + 300 * scale, { button: 'right' });
  await page.getByRole('menuitem', { name: 'Remove islands smaller than…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Remove islands' });
  const sizeField = dialog.getByLabel('Smaller than (pixels)');
  await sizeField.fill('0');
  await dialog.getByRole('button', { name: 'Remove islands' }).click();
  await expect(dialog.getByRole('alert')).toContainText('Enter a size from 1');
  await page.screenshot({ path: 'test-results/shots/brush-islands-dialog.png' });
  await sizeField.fill(String(island * 2));
  await sizeField.press('Enter');
  await expect(dialog).toBeHidden();
  await waitUntilSaved(page);
  expect(await savedMaskArea(page, project)).toBe(filled);

  await page.reload();
  await expect(page.getByText('Loading image...')).toBeHidden({ timeout: 20_000 });
  await expect(rows(page)).toHaveCount(1);
  expect(await savedMaskArea(page, project)).toBe(filled);

  // The row's menu (its class swatch): Convert to polygons (one undo step).
  await page.getByTestId('annotation-row-actions').first().getByRole('button', { name: /^Change class/ }).click();
  await page.getByRole('menuitem', { name: 'Convert to polygons' }).click();
  await expect(rows(page).first()).toContainText('Polygon');
  await expect(rows(page).first()).not.toContainText('Mask');
  await waitUntilSaved(page);
  const { annotations } = await loadSaved(page, project, project.images[0]!.id);
  expect(annotations).toHaveLength(1);
  expect(annotations[0].polygon.path.length).toBeGreaterThan(3);
});
