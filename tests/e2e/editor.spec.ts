// The annotation editor as an annotator uses it (issue 5): drawing every shape kind with mouse
// and hotkeys, selecting, moving, vertex editing, hiding, deleting, undo/redo, copy and paste to
// the next image, Copy Previous, transparency, keyboard navigation, Back to the right folder,
// and everything still there after a reload.
import { randomUUID } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { annotationRows as rows, canvasBox, dragOnCanvas, drawnImageRect, editorProject, gotoEditorImage, loadSaved, openFromDataTab, pixelAt, scenePng, waitUntilSaved, type EditorProject } from './editor-helpers';

const CLASSES = [
  { name: 'car', type: 'box' as const, color: '#FFADAD' },
  { name: 'road', type: 'polygon' as const, color: '#A0C4FF' },
  { name: 'lane', type: 'polyline' as const, color: '#CAFFBF' },
  { name: 'light', type: 'keypoint' as const, color: '#FFD6A5' },
];

/** A click at a canvas point, with modifier keys held. */
async function click(page: Page, x: number, y: number, opts: { modifiers?: ('Shift' | 'Alt')[] } = {}) {
  const b = await canvasBox(page);
  for (const m of opts.modifiers ?? []) await page.keyboard.down(m);
  await page.mouse.click(b.x + x, b.y + y);
  for (const m of opts.modifiers ?? []) await page.keyboard.up(m);
}

test('editor: draw every shape, edit, hide, delete, undo, copy to the next image, reload', async ({ page }) => {
  test.setTimeout(240_000);
  const project: EditorProject = await editorProject(page, { classes: CLASSES, images: [{ name: 'street_1.png' }, { name: 'street_2.png' }, { name: 'street_3.png' }] });
  const [img1, img2, img3] = project.images;
  await openFromDataTab(page, 'street_3.png');
  await expect(page.getByText('1 of 3')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Previous image (,)' })).toBeDisabled();
  await expect(page.getByText('No annotations yet')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Hide All' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Remove All' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Copy Previous' })).toBeDisabled();

  // Box (R): the picker shows the first box class.
  await page.keyboard.press('r');
  await expect(page.getByRole('button', { name: 'Bounding Box (R)' })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByRole('button', { name: 'Class: car' })).toBeVisible();
  await dragOnCanvas(page, [200, 200], [400, 350]);
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toContainText('car');
  await expect(rows(page).first()).toContainText('Box');

  // Polygon (P), closed by clicking its first point.
  await page.keyboard.press('p');
  await expect(page.getByRole('button', { name: 'Class: road' })).toBeVisible();
  await click(page, 500, 200);
  await click(page, 650, 220);
  await click(page, 600, 380);
  await click(page, 500, 200);
  await expect(rows(page)).toHaveCount(2);
  await expect(rows(page).first()).toContainText('Polygon');

  // Polyline (L), finished with Enter.
  await page.keyboard.press('l');
  await click(page, 150, 500);
  await click(page, 300, 560);
  await click(page, 450, 520);
  await page.keyboard.press('Enter');
  await expect(rows(page)).toHaveCount(3);
  await expect(rows(page).first()).toContainText('lane');

  // Keypoint (K), through the palette button.
  await page.getByRole('button', { name: 'Keypoint (K)' }).click();
  await click(page, 700, 600);
  await expect(rows(page)).toHaveCount(4);
  await expect(rows(page).first()).toContainText('Keypoint');
  await page.screenshot({ path: 'test-results/editor-drawn.png' });

  // Select (Q), click the box and drag it 50 px right and 40 px down (screen pixels).
  await page.keyboard.press('q');
  await click(page, 300, 275);
  await expect(page.getByText('1/4')).toBeVisible();
  await dragOnCanvas(page, [300, 275], [350, 315]);
  // Drag the polygon's second vertex.
  await click(page, 580, 260);
  await dragOnCanvas(page, [650, 220], [720, 190]);

  // Hide the selection with H, show it again from its row.
  await page.keyboard.press('h');
  await expect(page.getByRole('button', { name: 'Show annotation' })).toHaveCount(1);
  await page.getByRole('button', { name: 'Show annotation' }).click();
  await expect(page.getByRole('button', { name: 'Show annotation' })).toHaveCount(0);
  // H with nothing selected hides all, again shows all.
  await page.keyboard.press('Escape');
  await page.keyboard.press('h');
  await expect(page.getByRole('button', { name: 'Show All' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Show annotation' })).toHaveCount(4);
  await page.keyboard.press('h');
  await expect(page.getByRole('button', { name: 'Hide All' })).toBeVisible();
  // Ctrl+H hides the selection (the polygon, selected from its row); shown again from its row.
  await rows(page).filter({ hasText: 'Polygon' }).click();
  await page.keyboard.press('Control+h');
  await expect(page.getByRole('button', { name: 'Show annotation' })).toHaveCount(1);
  await expect(page.getByRole('group', { name: /\(Polygon\)$/ }).getByRole('button', { name: 'Show annotation' })).toBeVisible();
  await page.getByRole('button', { name: 'Show annotation' }).click();
  await expect(page.getByRole('button', { name: 'Show annotation' })).toHaveCount(0);

  // Delete the keypoint from the keyboard, undo, redo, undo.
  await rows(page).filter({ hasText: 'Keypoint' }).click();
  await page.keyboard.press('Delete');
  await expect(rows(page)).toHaveCount(3);
  await page.keyboard.press('Control+z');
  await expect(rows(page)).toHaveCount(4);
  await page.keyboard.press('Control+Shift+z');
  await expect(rows(page)).toHaveCount(3);
  await page.keyboard.press('Control+z');
  await expect(rows(page)).toHaveCount(4);
  // Backspace deletes too.
  await rows(page).filter({ hasText: 'Keypoint' }).click();
  await page.keyboard.press('Backspace');
  await expect(rows(page)).toHaveCount(3);
  await page.keyboard.press('Control+z');
  await expect(rows(page)).toHaveCount(4);

  // Transparency in the settings panel; the Hotkeys tab lists the real keys.
  await page.getByRole('button', { name: 'Editor settings' }).click();
  const slider = page.getByRole('slider', { name: 'Transparency' });
  await slider.focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  await expect(page.getByText('53%')).toBeVisible();
  await page.getByRole('tab', { name: 'Hotkeys' }).click();
  await expect(page.getByText('Paste (20 px offset, works across images)')).toBeVisible();
  await page.screenshot({ path: 'test-results/editor-settings.png' });
  await page.keyboard.press('Escape');

  await waitUntilSaved(page);
  const first = await loadSaved(page, project, img3.id);
  expect(first.annotations).toHaveLength(4);
  const box = first.annotations.find((a) => !a.polygon && !a.polyline && !a.keypoint);
  const polygon = first.annotations.find((a) => a.polygon);
  expect(box.name).toBe('car');
  // 50 x 40 screen pixels at the fitted scale, in image pixels: the box moved right and down.
  expect(box.bounding_box.x).toBeGreaterThan(130);
  expect(polygon.polygon.path).toHaveLength(3);
  expect(first.annotations.find((a) => a.polyline).polyline.path).toHaveLength(3);
  expect(first.annotations.find((a) => a.keypoint).name).toBe('light');

  // Copy everything, go to the next image with '.', paste there.
  await page.getByTestId('editor-canvas').focus();
  await page.keyboard.press('Control+a');
  await expect(page.getByText('4/4')).toBeVisible();
  await page.keyboard.press('Control+c');
  await expect(page.getByText('Copied 4 annotation(s)')).toBeVisible();
  await page.keyboard.press('.');
  await expect(page.getByRole('heading', { name: 'street_2.png', level: 1 })).toBeVisible();
  await expect(page.getByText('2 of 3')).toBeVisible();
  await expect(page.getByText('No annotations yet')).toBeVisible();
  await page.keyboard.press('Control+v');
  await expect(page.getByText('Pasted 4 annotation(s)')).toBeVisible();
  await expect(rows(page)).toHaveCount(4);
  await waitUntilSaved(page);

  // Next image (the last) with Shift+period: Copy Previous brings street_2's annotations.
  await page.keyboard.press('Shift+Period');
  await expect(page.getByRole('heading', { name: 'street_1.png', level: 1 })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Next image (.)' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Copy Previous' })).toBeEnabled();
  await page.getByRole('button', { name: 'Copy Previous' }).click();
  await expect(rows(page)).toHaveCount(4);
  await waitUntilSaved(page);

  // Back with ',' to street_2: its pasted shapes are there, 20 px from the originals.
  await page.keyboard.press(',');
  await expect(page.getByRole('heading', { name: 'street_2.png', level: 1 })).toBeVisible();
  await expect(rows(page)).toHaveCount(4);
  const second = await loadSaved(page, project, img2.id);
  const pastedBox = second.annotations.find((a) => !a.polygon && !a.polyline && !a.keypoint);
  expect(pastedBox.bounding_box.x).toBeCloseTo(box.bounding_box.x + 20, 0);
  expect(pastedBox.id).not.toBe(box.id);
  expect((await loadSaved(page, project, img1.id)).annotations).toHaveLength(4);

  // Back returns to the project page; a reload of the editor finds everything saved.
  await page.getByRole('button', { name: 'Back', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
  await page.goto(`/projects/${project.projectId}/images/${project.images[2]!.id}`);
  await expect(page.getByRole('heading', { name: 'street_3.png', level: 1 })).toBeVisible();
  await expect(rows(page)).toHaveCount(4);
});

test('editor: no classes offers Add Class in place, with the way to Manage Classes; a missing image says so', async ({ page }) => {
  test.setTimeout(120_000);
  const project = await editorProject(page, { classes: [], images: [{ name: 'empty.png' }] });
  await openFromDataTab(page, 'empty.png');
  await page.keyboard.press('r');
  await dragOnCanvas(page, [200, 200], [400, 350]);
  // Issue 19: the Add Class dialog opens in place (tests/e2e/editor-keys.spec.ts adds one there).
  const dialog = page.getByRole('dialog', { name: 'Add New Box Class' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('This is the first one.');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('button', { name: 'Class: Choose a class' }).click();
  await page.getByRole('menuitem', { name: 'Manage Classes' }).click();
  await expect(page.getByRole('tab', { name: /Classes/ })).toHaveAttribute('aria-selected', 'true');

  // An image that is not there: the ordinary not-found page (tests/e2e/links.spec.ts has the rest).
  await page.goto(`/projects/${project.projectId}/images/${randomUUID()}`);
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
});

test('editor: a drawing tool without a class of its type offers Add New Class', async ({ page }) => {
  test.setTimeout(120_000);
  const project = await editorProject(page, { classes: [{ name: 'car', type: 'box', color: '#FFADAD' }], images: [{ name: 'one.png' }] });
  await openFromDataTab(page, 'one.png');
  await page.keyboard.press('k');
  await click(page, 300, 300);
  const dialog = page.getByRole('dialog', { name: 'Add New Keypoint Class' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Add Class' })).toBeDisabled();
  await dialog.getByLabel('Class name').fill('pole');
  await dialog.getByLabel('Class name').press('Enter');
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('button', { name: 'Class: pole' })).toBeVisible();
  await click(page, 300, 300);
  await expect(rows(page)).toHaveCount(1);
  await waitUntilSaved(page);
  const doc = await loadSaved(page, project, project.images[0]!.id);
  expect(doc.annotations[0].name).toBe('pole');
  expect(doc.annotations[0].keypoint).toBeTruthy();
});

// One person and project for both Auto-Annotate tests, an image each (a test's fixed part, a
// context, a sign-up and the app's first load, is some 3 s of CPU: tests/README.md, "Where the
// time goes"). The second step loads the editor afresh, so its Auto-Annotate starts from off.
test('editor: Auto-Annotate turns clicks into a mask that is saved; draws a box prompt and the proposal, a Shift-click refines it and Enter saves it', async ({ page }) => {
  test.setTimeout(240_000);
  const project = await editorProject(page, { classes: [{ name: 'block', type: 'polygon', color: '#BDB2FF' }], images: [{ name: 'blocks.png' }, { name: 'blocks-2.png', buffer: await scenePng(800, 600, 0) }] });

  await test.step('Auto-Annotate turns clicks into a mask that is saved as an annotation', async () => {
    const image = project.images[0]!;
    await openFromDataTab(page, image.filename);
    await page.keyboard.press('m');
    await expect(page.getByRole('button', { name: 'Auto-Annotate (M)' })).toHaveAttribute('aria-pressed', 'true');
    const status = page.getByTestId('auto-status');
    await expect(status).toHaveText(/Starting Up\.\.\.|Embedding Image\.\.\.|Ready for Input/);
    await expect(status).toHaveText('Ready for Input', { timeout: 60_000 });
    await expect(page.getByRole('button', { name: 'Complete' })).toBeDisabled();

    // The image's dark square fills its middle third: click its centre.
    const b = await canvasBox(page);
    await page.mouse.click(b.x + b.width / 2, b.y + b.height / 2);
    await expect(status).toHaveText('1 point');
    await expect(page.getByTestId('auto-area')).toHaveText(/^\d+\.\d%$/, { timeout: 30_000 });
    await expect(page.getByRole('button', { name: 'Complete' })).toBeEnabled();
    await expect(page.getByText('Return to Complete')).toBeVisible();
    const area = Number((await page.getByTestId('auto-area').textContent())!.replace('%', ''));
    // The square is a ninth of the image (11.1%).
    expect(area).toBeGreaterThan(8);
    expect(area).toBeLessThan(14);

    // A shift-click outside adds a negative point; Clear empties, a new click starts again.
    await page.keyboard.down('Shift');
    await page.mouse.click(b.x + b.width * 0.15, b.y + b.height * 0.15);
    await page.keyboard.up('Shift');
    await expect(status).toHaveText('2 points');
    // The renderer draws the points: the positive one green, the negative one red.
    // (a frame or more after the status line: polled)
    await expect.poll(async () => { const [pr, pg] = await pixelAt(page, b.x + b.width / 2, b.y + b.height / 2); return pg - pr; }).toBeGreaterThan(40);
    await expect.poll(async () => { const [nr, ng] = await pixelAt(page, b.x + b.width * 0.15, b.y + b.height * 0.15); return nr - ng; }).toBeGreaterThan(40);
    await page.screenshot({ path: 'test-results/editor-auto.png' });
    await page.getByRole('button', { name: 'Clear' }).click();
    await expect(status).toHaveText('Ready for Input');
    await page.mouse.click(b.x + b.width / 2, b.y + b.height / 2);
    await expect(page.getByRole('button', { name: 'Complete' })).toBeEnabled({ timeout: 30_000 });

    // Enter completes with the picked class; the mask is a row, undoable, and saved.
    await page.keyboard.press('Enter');
    await expect(rows(page)).toHaveCount(1);
    await expect(rows(page).first()).toContainText('block');
    await expect(rows(page).first()).toContainText('Mask');
    await page.keyboard.press('Control+z');
    await expect(rows(page)).toHaveCount(0);
    await page.keyboard.press('Control+Shift+z');
    await expect(rows(page)).toHaveCount(1);
    await waitUntilSaved(page);
    await expect.poll(async () => (await loadSaved(page, project, image.id)).annotations.length).toBe(1);
    const doc = await loadSaved(page, project, image.id);
    expect(doc.annotations[0].name).toBe('block');
    expect(doc.annotations[0].segmentation.size).toEqual([600, 800]);
    expect(doc.annotations[0].bounding_box.w).toBeGreaterThan(200);
  });

  await test.step('Auto-Annotate draws a box prompt and the proposal on the canvas; a Shift-click refines it and Enter saves it', async () => {
    const image = project.images[1]!;
    await gotoEditorImage(page, project.projectId, image);
    await page.keyboard.press('m');
    const status = page.getByTestId('auto-status');
    const area = page.getByTestId('auto-area');
    const complete = page.getByRole('button', { name: 'Complete' });
    await expect(status).toHaveText('Ready for Input', { timeout: 60_000 });
    const b = await canvasBox(page);
    // The dark square is the image's middle third (800 x 600 image, fitted above the bar's room): a box a little larger.
    const img = await drawnImageRect(page);
    const cx = (img.left + img.right) / 2, cy = (img.top + img.bottom) / 2;
    const half = ((img.right - img.left) / 6) * 1.15;
    const inside: [number, number] = [cx + half * 0.5, cy + half * 0.5];
    const before = await pixelAt(page, ...inside);

    // Press and drag: a box prompt, drawn by the renderer with the mask it gives.
    await dragOnCanvas(page, [cx - b.x - half, cy - b.y - half], [cx - b.x + half, cy - b.y + half]);
    await expect(area).toHaveText(/^\d+\.\d%$/, { timeout: 30_000 });
    await expect(complete).toBeEnabled();
    // The canvas is drawn by the render worker a frame or more after the panel's text changes: polled.
    await expect.poll(async () => { const [r, , bl] = await pixelAt(page, cx, cy - half); return bl - r; }).toBeGreaterThan(40);
    await page.screenshot({ path: 'test-results/editor-auto-box.png' });
    // Escape drops the prompt.
    await page.keyboard.press('Escape');
    await expect(status).toHaveText('Ready for Input');
    await expect(complete).toBeDisabled();

    // Click: a positive point (green) and the mask (translucent blue over the square).
    await page.mouse.click(cx, cy);
    await expect(status).toHaveText('1 point');
    await expect(area).toHaveText(/^\d+\.\d%$/, { timeout: 30_000 });
    await expect.poll(async () => { const [pr, pg] = await pixelAt(page, cx, cy); return pg - pr; }).toBeGreaterThan(40);
    await expect.poll(async () => (await pixelAt(page, ...inside))[2]).toBeGreaterThan(before[2] + 20);
    const first = Number((await area.textContent())!.replace('%', ''));
    expect(first).toBeGreaterThan(8);
    expect(first).toBeLessThan(14);

    // Shift-click outside the square: a negative point (red); the mask is asked again.
    const neg: [number, number] = [cx - half * 1.6, cy - half * 0.2];
    await page.keyboard.down('Shift');
    await page.mouse.click(...neg);
    await page.keyboard.up('Shift');
    await expect(status).toHaveText('2 points');
    await expect(complete).toBeEnabled({ timeout: 30_000 });
    await expect.poll(async () => { const [nr, ng] = await pixelAt(page, ...neg); return nr - ng; }).toBeGreaterThan(40);
    await page.screenshot({ path: 'test-results/editor-auto-points.png' });

    // Enter accepts: one segmentation annotation of the class, saved.
    await page.keyboard.press('Enter');
    await expect(rows(page)).toHaveCount(1);
    await expect(rows(page).first()).toContainText('Mask');
    await expect(status).toHaveText('Ready for Input');
    await waitUntilSaved(page);
    await expect.poll(async () => (await loadSaved(page, project, image.id)).annotations.length).toBe(1);
    const doc = await loadSaved(page, project, image.id);
    const saved0 = doc.annotations[0];
    expect(saved0.name).toBe('block');
    expect(saved0.segmentation.size).toEqual([600, 800]);
    expect(saved0.bounding_box.w).toBeGreaterThan(200);
    expect(saved0.bounding_box.w).toBeLessThan(330);
    expect(JSON.stringify(saved0)).toContain('"point_count":2');

    // Save as a polygon snapped within 2 px: the next accepted mask is a polygon of a few corners
    // around the square, and the choice is kept after a reload.
    await page.getByLabel('Save as').selectOption({ label: 'Polygon, 2 px' });
    await page.mouse.click(cx, cy);
    await expect(area).toHaveText(/^\d+\.\d%$/, { timeout: 30_000 });
    await expect(complete).toBeEnabled({ timeout: 30_000 });
    await page.keyboard.press('Enter');
    await expect(rows(page)).toHaveCount(2);
    await waitUntilSaved(page);
    await expect.poll(async () => (await loadSaved(page, project, image.id)).annotations.length).toBe(2);
    const polygon = (await loadSaved(page, project, image.id)).annotations.find((a: { polygon?: unknown }) => a.polygon);
    expect(polygon.name).toBe('block');
    expect(polygon.polygon.path.length).toBeGreaterThanOrEqual(4);
    expect(polygon.polygon.path.length).toBeLessThanOrEqual(12);
    expect(polygon.bounding_box.w).toBeGreaterThan(200);
    expect(polygon.bounding_box.w).toBeLessThan(330);
    await page.reload();
    await expect(page.getByRole('heading', { name: image.filename, level: 1 })).toBeVisible();
    await page.keyboard.press('m');
    await expect(page.getByLabel('Save as')).toHaveValue('polygon-2');
  });
});
