// Auto-Annotate that undoes one step at a time (issue 33, part 2), against the server's real
// assisted segmentation: a box and two clicks, Ctrl+Z takes off one click only, Ctrl+Shift+Z puts
// it back, Backspace drops the last click; a left click inside the mask stays positive, a right
// click is negative; the hint row says so; at fit zoom the bar never covers the image.
import { expect, test } from '@playwright/test';
import { annotationRows as rows, canvasBox, dragOnCanvas, drawnImageRect, editorProject, gotoEditorImage, openFromDataTab, pixelAt, waitUntilSaved } from './editor-helpers';

// One person and project, an image for each step (a test's fixed part, a context, a sign-up and
// the app's first load, is some 3 s of CPU: tests/README.md, "Where the time goes"). The second
// step loads the editor afresh at its size, so its Auto-Annotate starts from off.
test('Auto-Annotate: at fit zoom the bar is below the image; box, two clicks, Ctrl+Z removes one click only; at 1280 x 720 the bar fits', async ({ page }) => {
  test.setTimeout(240_000);
  const project = await editorProject(page, { classes: [{ name: 'block', type: 'polygon', color: '#BDB2FF' }], images: [{ name: 'blocks.png' }, { name: 'small.png' }] });

  await test.step('at fit zoom the bar is below the image; box, two clicks, Ctrl+Z removes one click only', async () => {
    await openFromDataTab(page, 'blocks.png');
    await page.keyboard.press('m');
    const status = page.getByTestId('auto-status');
    const area = page.getByTestId('auto-area');
    const complete = page.getByRole('button', { name: 'Complete' });
    await expect(status).toHaveText('Ready for Input', { timeout: 60_000 });
    await expect(page.getByTestId('auto-keys')).toContainText('Click adds · Right/Shift+Click removes · Ctrl+Z undoes a step · Ctrl+Shift+Z redoes');

    // Fit zoom: the whole image sits above the bar.
    const bar = await page.getByRole('status', { name: 'Auto-Annotate status' }).boundingBox();
    const img = await drawnImageRect(page);
    expect(img.bottom - img.top).toBeGreaterThan(200);
    expect(bar!.y).toBeGreaterThanOrEqual(img.bottom);
    // Waiting for its first click, the bar shows its keys whole (sized to its content it was narrow, and they were cut).
    expect(await page.getByTestId('auto-keys').evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
    await page.screenshot({ path: 'test-results/shots/auto-fit-bar.png' });

    // The 800 x 600 image's dark square is its middle third.
    const s = (img.right - img.left) / 800;
    const at = (x: number, y: number): [number, number] => [img.left + x * s, img.top + y * s];
    const b = await canvasBox(page);
    const rel = ([x, y]: [number, number]): [number, number] => [x - b.x, y - b.y];
    await dragOnCanvas(page, rel(at(250, 180)), rel(at(550, 420)));
    await expect(area).toHaveText(/^\d+\.\d%$/, { timeout: 30_000 });
    await expect(status).toHaveText('0 points');

    // A left click inside the mask is positive (green); a right click, inside the mask too, negative (red).
    const inside = at(450, 350);
    await page.mouse.click(...inside);
    await expect(status).toHaveText('1 point');
    await expect(complete).toBeEnabled({ timeout: 30_000 });
    // With a point, the area and the 'Return to Complete' hint, the bar keeps its place and width.
    await expect(page.getByText('Return to Complete')).toBeVisible();
    const withPrompt = await page.getByRole('status', { name: 'Auto-Annotate status' }).boundingBox();
    expect([Math.round(withPrompt!.x), Math.round(withPrompt!.width)]).toEqual([Math.round(bar!.x), Math.round(bar!.width)]);
    const [pr, pg] = await pixelAt(page, ...inside);
    expect(pg).toBeGreaterThan(pr + 40);
    const corner = at(290, 210); // near the square's corner
    await page.mouse.click(...corner, { button: 'right' });
    await expect(status).toHaveText('2 points');
    await expect(complete).toBeEnabled({ timeout: 30_000 });
    const [nr, ng] = await pixelAt(page, ...corner);
    expect(nr).toBeGreaterThan(ng + 40);
    await page.screenshot({ path: 'test-results/shots/auto-prompt.png' });

    // Ctrl+Z: one click off, the box and the other click stay; Ctrl+Shift+Z puts it back.
    await page.keyboard.press('Control+z');
    await expect(status).toHaveText('1 point');
    await expect(area).toHaveText(/^\d+\.\d%$/);
    await expect(complete).toBeEnabled();
    await page.keyboard.press('Control+Shift+z');
    await expect(status).toHaveText('2 points');
    // Backspace drops the last click only.
    await page.keyboard.press('Backspace');
    await expect(status).toHaveText('1 point');
    await page.keyboard.press('Control+z');
    await expect(status).toHaveText('0 points');
    await expect(area).toHaveText(/^\d+\.\d%$/); // the box is still the prompt
    await page.keyboard.press('Control+z');
    await expect(status).toHaveText('Ready for Input');
    await page.keyboard.press('Control+Shift+z');
    await expect(status).toHaveText('0 points');
    await expect(complete).toBeEnabled({ timeout: 30_000 });

    // Enter keeps the box's mask as one annotation.
    await page.keyboard.press('Enter');
    await expect(rows(page)).toHaveCount(1);
    await waitUntilSaved(page);
  });

  await test.step('at 1280 x 720 the bar fits its text and stays below the image at fit zoom', async () => {
    await page.setViewportSize({ width: 1280, height: 720 });
    await gotoEditorImage(page, project.projectId, project.images[1]!);
    await page.keyboard.press('m');
    await expect(page.getByTestId('auto-status')).toHaveText('Ready for Input', { timeout: 60_000 });
    const bar = page.getByRole('status', { name: 'Auto-Annotate status' });
    const img = await drawnImageRect(page);
    expect((await bar.boundingBox())!.y).toBeGreaterThanOrEqual(img.bottom);
    // Nothing of the bar spills out of it, and it lies over neither the zoom group nor the settings button.
    expect(await bar.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
    const [barBox, fit, settings] = await Promise.all([bar.boundingBox(), page.getByRole('button', { name: 'Fit to screen' }).boundingBox(), page.getByRole('button', { name: 'Editor settings' }).boundingBox()]);
    expect(barBox!.x).toBeGreaterThanOrEqual(fit!.x + fit!.width);
    expect(barBox!.x + barBox!.width).toBeLessThanOrEqual(settings!.x);
    // The keys row is no wider than the first: the bar is as wide as it was with one row.
    const [keys, row] = await bar.evaluate((el) => [el.querySelector('[data-testid="auto-keys"]')!.getBoundingClientRect().width, el.firstElementChild!.getBoundingClientRect().width]);
    expect(keys).toBeLessThanOrEqual(row! + 1);
    await page.screenshot({ path: 'test-results/shots/auto-fit-bar-1280.png' });
  });
});
