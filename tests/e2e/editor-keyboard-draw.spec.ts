// Drawing by keyboard (issue 37, WCAG 2.1.1): with the canvas focused from the keyboard, a box and
// a polygon are drawn with no mouse at all (Enter shows the crosshair cursor at the middle of the
// view, Shift+arrows move it 50 screen px, Space / Enter place corners and points, Enter on the
// point just placed closes the polygon); both are saved and a reload shows them where they were
// drawn. The canvas shows its focus ring. Screenshots at 1440 x 900 of the crosshair and the ring.
import { expect, test, type Page } from '@playwright/test';
import { annotationRows as rows, drawnImageRect, editorProject, loadSaved, openFromDataTab, waitUntilSaved } from './editor-helpers';

const W = 800, H = 600;

async function press(page: Page, key: string, times = 1) {
  for (let i = 0; i < times; i++) await page.keyboard.press(key);
}

test('a box and a polygon drawn by keyboard alone are saved where the cursor put them', async ({ page }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const project = await editorProject(page, {
    classes: [{ name: 'car', type: 'box', color: '#4C6EF5' }, { name: 'lake', type: 'polygon', color: '#12B886' }],
    images: [{ name: 'keys.png', width: W, height: H }],
  });
  await openFromDataTab(page, 'keys.png');
  const img = await drawnImageRect(page);
  const step = 50 / ((img.right - img.left) / W); // Shift+arrow: 50 screen px, in image px
  const canvas = page.getByTestId('editor-canvas');

  await page.keyboard.press('r');
  await canvas.focus();
  await expect(canvas).toBeFocused();
  // The focus ring is drawn (an outline), and nothing else on the canvas changed yet.
  expect(await canvas.evaluate((el) => getComputedStyle(el).outlineStyle)).toBe('solid');
  await page.screenshot({ path: 'test-results/shots/keyboard-focus-ring.png' });

  // Enter: the cursor at the view's middle (the image's middle at fit zoom).
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('key-cursor')).toBeVisible();
  const start = (await page.getByTestId('key-cursor-status').textContent())!.match(/Cursor at (\d+), (\d+)/)!;
  const [cx, cy] = [Number(start[1]), Number(start[2])];
  expect(Math.abs(cx - W / 2)).toBeLessThanOrEqual(2);
  expect(Math.abs(cy - H / 2)).toBeLessThanOrEqual(2);
  await press(page, 'Shift+ArrowLeft', 2);
  await press(page, 'Shift+ArrowUp', 2);
  await page.keyboard.press(' ');
  await press(page, 'Shift+ArrowRight', 4);
  await press(page, 'Shift+ArrowDown', 3);
  await expect(page.getByTestId('key-cursor-status')).toContainText('Box started');
  await page.screenshot({ path: 'test-results/shots/keyboard-box-crosshair.png' });
  await page.keyboard.press('Enter');
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toContainText('car');

  // P: the polygon tool; the cursor stays where the box ended. Three points, then Enter again closes.
  await page.keyboard.press('p');
  await page.keyboard.press('Enter');
  await press(page, 'Shift+ArrowRight', 2);
  await page.keyboard.press('Enter');
  await press(page, 'Shift+ArrowDown', 2);
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('key-cursor-status')).toContainText('3 points placed');
  await page.screenshot({ path: 'test-results/shots/keyboard-polygon-crosshair.png' });
  await page.keyboard.press('Enter');
  await expect(rows(page)).toHaveCount(2);
  await expect(rows(page).first()).toContainText('lake');
  // Escape hides the cursor once no shape is in progress.
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('key-cursor')).toHaveCount(0);

  await waitUntilSaved(page);
  const near = (a: number, b: number) => expect(Math.abs(a - b), `${a} vs ${b}`).toBeLessThanOrEqual(1);
  const { annotations } = await loadSaved(page, project, project.images[0]!.id);
  const box = annotations.find((a) => a.name === 'car')!.bounding_box;
  near(box.x, cx - 2 * step);
  near(box.y, cy - 2 * step);
  near(box.w, 4 * step);
  near(box.h, 3 * step);
  const path: [number, number][] = annotations.find((a) => a.name === 'lake')!.polygon.path;
  const corner = [cx + 2 * step, cy + step];
  const want = [corner, [corner[0]! + 2 * step, corner[1]!], [corner[0]! + 2 * step, corner[1]! + 2 * step]];
  expect(path).toHaveLength(3);
  path.forEach(([x, y], i) => {
    near(x, want[i]![0]!);
    near(y, want[i]![1]!);
  });

  await page.reload();
  await expect(rows(page)).toHaveCount(2);
});

test('a keypoint placed by keyboard is saved there; in the Attributes panel Space ticks a checkbox and B types "b"', async ({ page }) => {
  test.setTimeout(150_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const attributes = [{ name: 'visible', kind: 'checkbox', default: false }, { name: 'note', kind: 'text' }];
  const project = await editorProject(page, { classes: [{ name: 'pin', type: 'keypoint', color: '#4C6EF5', attributes }] as never, images: [{ name: 'pin.png', width: W, height: H }] });
  await openFromDataTab(page, 'pin.png');
  const img = await drawnImageRect(page);
  const step = 50 / ((img.right - img.left) / W);
  const canvas = page.getByTestId('editor-canvas');
  await page.keyboard.press('k');
  await canvas.focus();
  await page.keyboard.press('Enter');
  const start = (await page.getByTestId('key-cursor-status').textContent())!.match(/Cursor at (\d+), (\d+)/)!;
  const [cx, cy] = [Number(start[1]), Number(start[2])];
  await press(page, 'Shift+ArrowRight', 2);
  await page.keyboard.press(' ');
  await expect(rows(page)).toHaveCount(1);
  await page.keyboard.press('Escape');

  // The shape's attributes: Space on the checkbox ticks it; B in the text field is a "b", not the brush.
  await rows(page).first().click();
  const panel = page.getByTestId('attributes-panel');
  await panel.getByLabel('visible').focus();
  await page.keyboard.press(' ');
  await expect(panel.getByLabel('visible')).toBeChecked();
  await panel.getByLabel('note').focus();
  await page.keyboard.press('b');
  await expect(panel.getByLabel('note')).toHaveValue('b');
  await expect(page.getByRole('toolbar', { name: 'Tools' }).getByRole('button', { name: /^Brush/ })).toHaveAttribute('aria-pressed', 'false');
  await panel.getByLabel('note').blur();

  await waitUntilSaved(page);
  const saved = (await loadSaved(page, project, project.images[0]!.id)).annotations[0];
  expect(Math.abs(saved.keypoint.x - (cx + 2 * step))).toBeLessThanOrEqual(1);
  expect(Math.abs(saved.keypoint.y - cy)).toBeLessThanOrEqual(1);
  expect(saved.attributes).toEqual(expect.arrayContaining([{ name: 'visible', value: true }, { name: 'note', value: 'b' }]));
});
