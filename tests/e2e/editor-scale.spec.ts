// The editor on big work: a large image opens through the renderer's tiles and is really drawn,
// and a dense document keeps the sidebar virtualised.
import { expect, test, type Page } from '@playwright/test';
import sharp from 'sharp';
import { apiCall, editorProject } from './editor-helpers';

/** The mean colour of a 5 x 5 patch of the page around (x, y). */
async function pixelAt(page: Page, x: number, y: number): Promise<[number, number, number]> {
  const png = await page.screenshot({ clip: { x: Math.round(x) - 2, y: Math.round(y) - 2, width: 5, height: 5 } });
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const sum = [0, 0, 0];
  for (let i = 0; i < info.width * info.height; i++) for (let c = 0; c < 3; c++) sum[c]! += data[i * 3 + c]!;
  const n = info.width * info.height;
  return [sum[0]! / n, sum[1]! / n, sum[2]! / n];
}

test('editor: an 8000 x 6000 image opens, is drawn, and zooms at the pointer', async ({ page }) => {
  test.setTimeout(180_000);
  await editorProject(page, { classes: [{ name: 'car', type: 'box', color: '#FFADAD' }], images: [{ name: 'aerial.png', width: 8000, height: 6000 }] });
  await page.getByRole('button', { name: 'aerial.png', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'aerial.png', level: 1 })).toBeVisible();
  await expect(page.getByText('Loading image...')).toBeHidden({ timeout: 60_000 });
  const canvas = (await page.getByTestId('editor-canvas').boundingBox())!;
  const cx = canvas.x + canvas.width / 2;
  const cy = canvas.y + canvas.height / 2;
  // The image's middle third is a dark square (60, 80, 120) on a light background; until the
  // tiles arrive the stage shows its dark surround (27, 31, 42).
  const isSquare = async () => {
    const [r, g, b] = await pixelAt(page, cx, cy);
    return Math.abs(r - 60) < 20 && Math.abs(g - 80) < 20 && Math.abs(b - 120) < 20;
  };
  await expect.poll(isSquare, { timeout: 30_000 }).toBe(true);
  // Fitted far below 100%; wheel zoom at the pointer keeps the square under it.
  await expect(page.getByRole('group', { name: 'Zoom' })).toContainText(/^(\d|1\d)%$/);
  await page.mouse.move(cx, cy);
  for (let i = 0; i < 12; i++) await page.mouse.wheel(0, -100);
  await expect(page.getByRole('group', { name: 'Zoom' })).not.toContainText(/^(\d|1\d)%$/);
  await expect.poll(isSquare, { timeout: 30_000 }).toBe(true);
  // D pans the view right over the image; the background comes in from the right edge.
  await page.getByTestId('editor-canvas').focus();
  for (let i = 0; i < 30; i++) await page.keyboard.press('d');
  await page.screenshot({ path: 'test-results/editor-large.png' });
});

test('editor: 20,000 annotations load, the list stays virtual, a row selects its shape', async ({ page }) => {
  test.setTimeout(180_000);
  const project = await editorProject(page, { classes: [{ name: 'tree', type: 'box', color: '#CAFFBF' }], images: [{ name: 'forest.png', width: 4000, height: 3000 }] });
  const annotations = Array.from({ length: 20_000 }, (_, i) => ({
    id: `t-${i}`,
    name: 'tree',
    bounding_box: { x: (i % 200) * 20, y: Math.floor(i / 200) * 30, w: 12, h: 20 },
  }));
  const res = await apiCall(page, 'POST', '/annotations/save-data', { image_id: project.images[0]!.id, project_id: project.projectId, image_filename: 'forest.png', annotations });
  expect(res.status).toBe(200);
  await page.getByRole('button', { name: 'forest.png', exact: true }).click();
  await expect(page.getByText('Loading image...')).toBeHidden({ timeout: 60_000 });
  const list = page.getByRole('listbox', { name: 'Annotation list' });
  await expect(page.getByRole('complementary', { name: 'Annotations' })).toContainText('20,000');
  // Only the rows in view exist in the page.
  expect(await list.getByRole('option').count()).toBeLessThan(80);
  await list.getByRole('option').first().click();
  await expect(page.getByRole('complementary', { name: 'Annotations' })).toContainText('1/20,000');
  // Scroll to the end: the oldest annotation's row appears.
  await list.evaluate((el) => (el.scrollTop = el.scrollHeight));
  await expect(list.getByRole('option').last()).toBeVisible();
  expect(await list.getByRole('option').count()).toBeLessThan(80);
  // Select all and delete: one step, undone at once.
  await page.getByTestId('editor-canvas').focus();
  await page.keyboard.press('Control+a');
  await expect(page.getByRole('complementary', { name: 'Annotations' })).toContainText('20,000/20,000');
  await page.keyboard.press('Delete');
  await expect(page.getByText('No annotations yet')).toBeVisible();
  await page.keyboard.press('Control+z');
  await expect(page.getByRole('complementary', { name: 'Annotations' })).toContainText('20,000');
  await page.screenshot({ path: 'test-results/editor-dense.png' });
});
