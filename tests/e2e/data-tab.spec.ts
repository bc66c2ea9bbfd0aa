// The Data tab as issue 19 left it: search by file name across folders, tiles with their annotation
// count and pixel size, one Export entry point, archive with Undo, a one-image restore without a
// dialog, the stage names shared by tiles, filter and Stage menu, and toasts that cover no control
// (the Data tab's selection bar, the editor's settings button and Remove All).
import { expect, test, type Locator, type Page } from '@playwright/test';
import { annotationRows, apiCall, canvasBox, drawBox, editorProject, openEditorImage, scenePng, uploadImages, waitUntilSaved, type EditorProject } from './editor-helpers';

const CLASSES = [{ name: 'heron', type: 'box' as const, color: '#F07575' }];
const box = (id: string, x: number) => ({ id, name: 'heron', bounding_box: { x, y: 20, w: 60, h: 40 }, attributes: [] });

/** A project with folders: /birds (heron-02, owl) and /birds/gulls (gull_heron) beside the root's heron-01 and pond. */
async function birdsProject(page: Page): Promise<EditorProject> {
  const project = await editorProject(page, { classes: CLASSES });
  for (const [name, parent] of [['birds', '/'], ['gulls', '/birds']] as const) {
    expect((await apiCall(page, 'POST', '/api/folders/create', { project_id: project.projectId, name, parent_folder_path: parent })).status).toBe(200);
  }
  const files = [
    { name: 'pond.png', width: 320, height: 200, folder: '/' },
    { name: 'heron-01.png', width: 400, height: 300, folder: '/' },
    { name: 'heron-02.png', width: 240, height: 180, folder: '/birds' },
    { name: 'owl.png', width: 200, height: 200, folder: '/birds' },
    { name: 'gull_heron.png', width: 160, height: 120, folder: '/birds/gulls' },
  ];
  project.images = await uploadImages(page, project.projectId, project.orgId, await Promise.all(files.map(async (f, i) => ({ name: f.name, folder: f.folder, buffer: await scenePng(f.width, f.height, i * 25) }))));
  const save = async (name: string, annotations: unknown[]) => {
    const img = project.images.find((i) => i.filename === name)!;
    const res = await apiCall(page, 'POST', '/annotations/save-data', { image_id: img.id, project_id: project.projectId, image_filename: name, annotations });
    expect(res.status).toBe(200);
  };
  await save('heron-01.png', [box('a', 10), box('b', 80), box('c', 150)]);
  await save('pond.png', [box('d', 10)]);
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
  return project;
}

const tile = (page: Page, name: string) => page.getByTestId('image-tile').filter({ has: page.getByRole('button', { name, exact: true }) });

/**
 * The two boxes end up apart. A toast rises into place (its stack slides up over the bar it avoids
 * while the toast fades in), so the boxes are read again until the motion has settled.
 */
async function expectApart(a: Locator, b: Locator, what: string) {
  const placement = async () => {
    const [ra, rb] = [await a.boundingBox(), await b.boundingBox()];
    if (!ra || !rb) return `${what}: not both on the page`;
    const overlap = ra.x < rb.x + rb.width && rb.x < ra.x + ra.width && ra.y < rb.y + rb.height && rb.y < ra.y + ra.height;
    return overlap ? `${what}: ${JSON.stringify(ra)} overlaps ${JSON.stringify(rb)}` : 'apart';
  };
  await expect.poll(placement, { timeout: 5_000 }).toBe('apart');
}

test('data tab: search by name across folders, tiles with annotation count and pixel size, one Export, stage names', async ({ page }) => {
  test.setTimeout(120_000);
  await birdsProject(page);
  const tiles = page.getByTestId('image-tile');
  await expect(tiles).toHaveCount(2);

  // Tiles: the annotation count (icon and number, 'N annotations' for assistive tech) and the pixel size.
  await expect(tile(page, 'heron-01.png').getByTestId('annotation-count')).toHaveText('3 annotations');
  await expect(tile(page, 'heron-01.png').getByTestId('annotation-count')).toHaveAttribute('title', '3 annotations');
  await expect(tile(page, 'pond.png').getByTestId('annotation-count')).toHaveAttribute('title', '1 annotation');
  await expect(tile(page, 'heron-01.png').getByTestId('pixel-size')).toHaveText('400 × 300');
  await expect(tile(page, 'pond.png').getByTestId('pixel-size')).toHaveText('320 × 200');
  await expect(page.getByRole('button', { name: 'heron-01.png', exact: true })).toHaveAccessibleDescription(/400 × 300.*3 annotations/);

  // Stage names (issue 29): a saved image is 'In progress' on its tile, and the Stage menu and the
  // filter call every stage by the same one name.
  await expect(tile(page, 'heron-01.png').getByTestId('status-cycle')).toHaveText('In progress');
  await page.getByRole('checkbox', { name: 'Select heron-01.png' }).click();
  const bar = page.getByRole('toolbar', { name: 'Selected images' });
  await bar.getByRole('button', { name: 'Stage' }).click();
  await expect(page.getByRole('menuitem', { name: 'In progress' })).toBeVisible();
  await page.screenshot({ path: 'test-results/data-tab-stage-menu.png' });
  await expect(page.getByRole('menuitem')).toHaveText([/^Not started$/, /^In progress$/, /^In review$/, /^Done$/, /Next stage/]);
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'All statuses' }).click();
  await page.getByRole('menuitemcheckbox', { name: 'Not started' }).click();
  await expect(tiles).toHaveCount(0);
  await page.getByRole('button', { name: 'Not started' }).first().click();
  await page.getByRole('menuitemcheckbox', { name: 'In progress' }).click();
  // Both saved images are in progress; the filter's button names the state as the tiles do.
  await expect(page.getByRole('button', { name: 'In progress', exact: true })).toBeVisible();
  await expect(tiles).toHaveCount(2);
  await page.getByRole('button', { name: 'In progress', exact: true }).click();
  await page.getByRole('menuitemcheckbox', { name: 'All statuses' }).click();
  await expect(tiles).toHaveCount(2);

  // One Export entry point: the header's, with the selected count, with or without a selection.
  const exports = page.getByRole('button', { name: /Export/ });
  await expect(exports).toHaveCount(1);
  await page.getByRole('checkbox', { name: 'Select heron-01.png' }).click();
  await expect(bar).toContainText('1 selected');
  await expect(exports).toHaveCount(1);
  await expect(exports).toHaveText('Export (1)');
  await page.keyboard.press('Escape');
  await expect(bar).toBeHidden();
  await expect(exports).toHaveCount(1);
  await expect(exports).toHaveText('Export (0)');
  await exports.click();
  const dialog = page.getByRole('dialog', { name: 'Export Dataset' });
  for (const scope of [/Selected \(0\)/, /All complete/, /Current filters/]) await expect(dialog.getByRole('radio', { name: scope })).toBeVisible();
  for (const format of [/Vellum/, /COCO/, /YOLO/, /Pascal VOC/]) await expect(dialog.getByRole('radio', { name: format })).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  // Search: '/' puts the caret in the field; typing finds names in every folder (folders hidden).
  const search = page.getByRole('searchbox', { name: 'Search images by file name' });
  await page.getByRole('heading', { name: 'Manage Dataset' }).click();
  await page.keyboard.press('/');
  await expect(search).toBeFocused();
  await page.keyboard.type('HERON');
  await expect(tiles).toHaveCount(3);
  await expect(page.getByTestId('folder-tile')).toHaveCount(0);
  await expect(page.getByRole('navigation', { name: 'Folder path' })).toContainText('Names containing “HERON” in all folders');
  await expect(tile(page, 'gull_heron.png')).toContainText('gulls');
  await expect(page.getByTestId('loaded-counter')).toHaveText('3 / 3 loaded');
  // Narrowed, then the status filter on top of it.
  await search.fill('heron-0');
  await expect(tiles).toHaveCount(2);
  await expect(tile(page, 'gull_heron.png')).toHaveCount(0);
  // The Export dialog's current filters follow the search.
  await exports.click();
  await expect(dialog.getByRole('radio', { name: /Current filters/ })).toBeVisible();
  await expect(dialog).toContainText('Names containing “heron-0” in all folders');
  // Exporting them sends the search (and no folder): the same images the grid shows.
  let sent: any = null;
  await page.route(
    '**/api/v1/annotations/export',
    async (route) => {
      sent = route.request().postDataJSON();
      await route.fulfill({ status: 500, contentType: 'application/json', body: '{"success":false,"error":"held in the test","code":"internal_error"}' });
    },
    { times: 1 },
  );
  await dialog.getByText('Current filters').click();
  await dialog.getByRole('button', { name: 'Export', exact: true }).click();
  await expect(dialog.getByTestId('export-error')).toBeVisible();
  expect(sent).toMatchObject({ scope: 'current_filters', filters: { search: 'heron-0' } });
  expect(sent.filters.folder_path).toBeUndefined();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  // Nothing matches: the empty state says so and clears the search.
  await search.fill('pelican');
  await expect(page.getByText('No images match “pelican”')).toBeVisible();
  await expect(tiles).toHaveCount(0);
  await page.getByRole('button', { name: 'Clear search' }).first().click();
  await expect(search).toHaveValue('');
  await expect(tiles).toHaveCount(2);
  await expect(page.getByTestId('folder-tile')).toHaveCount(1);

  // The clear button and Escape, by keyboard.
  await search.fill('owl');
  await expect(tiles).toHaveCount(1);
  await expect(tile(page, 'owl.png')).toBeVisible();
  await search.press('Escape');
  await expect(search).toHaveValue('');
  await expect(tiles).toHaveCount(2);
  await search.fill('pond');
  await expect(tiles).toHaveCount(1);
  await page.getByRole('button', { name: 'Clear search' }).click();
  await expect(tiles).toHaveCount(2);

  // A search result opened in the editor: Back returns to the results. A box drawn there counts in
  // the class panel at once: its counts are read again when the tab opens, even when the ones it
  // holds are seconds old (they used to be kept for 10 s, so Back showed the count before the edit).
  await search.fill('owl');
  await expect(tiles).toHaveCount(1);
  const heron = page.getByRole('complementary', { name: 'Classes and annotation filters' }).getByRole('button', { name: /heron/ });
  await page.reload(); // the panel's counts fetched just now
  await expect(heron.getByLabel('4 shapes')).toHaveText('4');
  await page.getByRole('button', { name: 'owl.png', exact: true }).click();
  await expect(page).toHaveURL(/\/projects\/[0-9a-f-]{36}\/images\/[0-9a-f-]{36}\?q=owl$/);
  await expect(page.getByText('Loading image...')).toBeHidden({ timeout: 20_000 });
  const canvas = await canvasBox(page);
  await drawBox(page, [canvas.width / 2 - 60, canvas.height / 2 - 40], [canvas.width / 2 + 60, canvas.height / 2 + 40]);
  await expect(annotationRows(page)).toHaveCount(1);
  await waitUntilSaved(page);
  await page.getByRole('button', { name: 'Back', exact: true }).click();
  await expect(page).toHaveURL(/\/projects\/[0-9a-f-]{36}\/data\?q=owl$/);
  await expect(search).toHaveValue('owl');
  await expect(tiles).toHaveCount(1);
  await expect(tile(page, 'owl.png').getByTestId('annotation-count')).toHaveText('1 annotation');
  await expect(heron.getByLabel('5 shapes')).toHaveText('5');
  await expect(heron.getByLabel('3 images')).toHaveText('3');
  // The path's Back leaves the search for the folder that was open.
  await page.getByRole('navigation', { name: 'Folder path' }).getByRole('button', { name: 'Back' }).click();
  await expect(search).toHaveValue('');
  await expect(tiles).toHaveCount(2);
});

test('data tab: archive then Undo restores; one image restores from the Archive without a dialog; toasts stay clear of the selection bar', async ({ page }) => {
  test.setTimeout(120_000);
  await birdsProject(page);
  const tiles = page.getByTestId('image-tile');
  await expect(tiles).toHaveCount(2);
  const bar = page.getByRole('toolbar', { name: 'Selected images' });
  const toasts = page.getByTestId('toast');

  // Archive two, then Undo from the toast: they come back (selected again), and the Archive is empty.
  await page.getByRole('checkbox', { name: 'Select pond.png' }).click();
  await page.getByRole('checkbox', { name: 'Select heron-01.png' }).click();
  await bar.getByRole('button', { name: 'Archive' }).click();
  await expect(tiles).toHaveCount(0);
  const archived = toasts.filter({ hasText: 'Archived 2 images' });
  await expect(archived).toBeVisible();
  await expect(page.getByRole('tab', { name: /Archive/ })).toContainText('2');
  await archived.getByRole('button', { name: 'Undo' }).click();
  await expect(tiles).toHaveCount(2);
  await expect(toasts.filter({ hasText: 'Restored 2 images' })).toBeVisible();
  await expect(bar).toContainText('2 selected');
  await expect(page.getByRole('tab', { name: /Archive/ })).toContainText('0');
  await page.reload();
  await expect(tiles).toHaveCount(2);

  // A toast over a selection sits above the floating selection bar, never on it.
  await page.getByRole('checkbox', { name: 'Select pond.png' }).click();
  await bar.getByRole('button', { name: 'Stage' }).click();
  await page.getByRole('menuitem', { name: 'Done' }).click();
  const staged = toasts.filter({ hasText: '1 image set to Done' });
  await expect(staged).toBeVisible();
  await expect(bar).toBeVisible();
  await expectApart(staged, bar, 'stage toast and selection bar');
  await page.screenshot({ path: 'test-results/data-tab-toast-over-bar.png' });

  // Archive one (its toast names it), then restore it alone from the Archive tab: no dialog, a toast.
  await page.getByRole('checkbox', { name: 'Select pond.png' }).click();
  await page.getByRole('checkbox', { name: 'Select heron-01.png' }).click();
  await expect(bar).toContainText('1 selected');
  await bar.getByRole('button', { name: 'Archive' }).click();
  await expect(toasts.filter({ hasText: 'Archived heron-01.png' })).toBeVisible();
  await page.getByRole('tab', { name: /Archive/ }).click();
  await expect(tiles).toHaveCount(1);
  await page.getByRole('checkbox', { name: 'Select heron-01.png' }).click();
  await bar.getByRole('button', { name: 'Restore' }).click();
  await expect(toasts.filter({ hasText: 'Restored heron-01.png' })).toBeVisible();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(page.getByText('No archived images')).toBeVisible();
  await page.getByRole('tab', { name: /Data/ }).click();
  await expect(tiles).toHaveCount(2);
});

test('toasts cover no control: not the editor settings button nor Remove All, several stacked', async ({ page }) => {
  test.setTimeout(120_000);
  await birdsProject(page);
  await openEditorImage(page, 'heron-01.png');
  const settings = page.getByRole('button', { name: 'Editor settings' });
  const removeAll = page.getByRole('button', { name: 'Remove All' });
  await expect(settings).toBeVisible();
  await expect(removeAll).toBeVisible();
  // Copy, then paste twice: three toasts at once.
  await page.getByTestId('editor-canvas').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.press('ControlOrMeta+c');
  await page.keyboard.press('ControlOrMeta+v');
  await page.keyboard.press('ControlOrMeta+v');
  const toasts = page.getByTestId('toast');
  await expect(toasts.filter({ hasText: 'Copied 3 annotation(s)' })).toBeVisible();
  await expect(toasts.filter({ hasText: 'Pasted 3 annotation(s)' })).toHaveCount(2);
  // One snapshot of every box: toasts time out, and a slow machine must not see some of them gone mid-check.
  const boxes = await page.evaluate(() => {
    const rect = (el: Element | null | undefined) => {
      const r = el?.getBoundingClientRect();
      return r ? { x: r.x, y: r.y, width: r.width, height: r.height } : null;
    };
    const buttons = [...document.querySelectorAll('button')];
    const button = (name: string) => buttons.find((b) => b.getAttribute('aria-label') === name) ?? buttons.find((b) => b.textContent?.trim() === name) ?? buttons.find((b) => b.textContent?.includes(name));
    return {
      toasts: [...document.querySelectorAll('[data-testid="toast"]')].map(rect),
      controls: { 'Editor settings': rect(button('Editor settings')), 'Remove All': rect(button('Remove All')), 'Copy Previous': rect(button('Copy Previous')) },
      width: window.innerWidth,
    };
  });
  type Box = { x: number; y: number; width: number; height: number };
  const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
  expect(boxes.toasts.length).toBeGreaterThanOrEqual(3);
  for (const [name, box] of Object.entries(boxes.controls)) expect(box, `${name} is on the page`).toBeTruthy();
  boxes.toasts.forEach((t, i) => {
    expect(t, `toast ${i}`).toBeTruthy();
    for (const [name, box] of Object.entries(boxes.controls)) expect(overlaps(t!, box!), `toast ${i} ${JSON.stringify(t)} and ${name} ${JSON.stringify(box)}`).toBe(false);
    expect(t!.x + t!.width).toBeLessThanOrEqual(boxes.width);
    // Stacked one under another, not on top of each other.
    for (let j = i + 1; j < boxes.toasts.length; j += 1) expect(overlaps(t!, boxes.toasts[j]!), `toasts ${i} and ${j}`).toBe(false);
  });
  await page.screenshot({ path: 'test-results/editor-toasts.png' });
});

for (const width of [1440, 1024]) {
  test(`data tab screenshot at ${width} px`, async ({ page }) => {
    test.setTimeout(90_000);
    await page.setViewportSize({ width, height: 900 });
    await birdsProject(page);
    await expect(page.locator('img[data-loaded]')).toHaveCount(2);
    await page.mouse.move(0, 0);
    await page.screenshot({ path: `test-results/data-tab-${width}.png` });
    await page.getByRole('checkbox', { name: 'Select pond.png' }).click();
    await page.getByRole('toolbar', { name: 'Selected images' }).getByRole('button', { name: 'Archive' }).click();
    const archived = page.getByTestId('toast').filter({ hasText: 'Archived pond.png' });
    await expect(archived).toBeVisible();
    await page.getByRole('searchbox', { name: 'Search images by file name' }).fill('heron');
    await expect(page.getByTestId('image-tile')).toHaveCount(3);
    await expect(page.locator('img[data-loaded]')).toHaveCount(3);
    await page.mouse.move(0, 0);
    await page.screenshot({ path: `test-results/data-tab-search-${width}.png` });
  });
}
