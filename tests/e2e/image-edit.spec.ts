import { expect, test, type Page } from '@playwright/test';
import sharp from 'sharp';
import { editorProject, openProjectPage, pageToken } from './editor-helpers';

const W = 64;
const H = 48;

/** Grey with a red block at x 4..19, y 6..17: where the 'car' box is. */
async function marked(): Promise<Buffer> {
  const raw = Buffer.alloc(W * H * 3, 110);
  for (let y = 6; y < 18; y++) for (let x = 4; x < 20; x++) raw.set([220, 30, 30], (y * W + x) * 3);
  return sharp(raw, { raw: { width: W, height: H, channels: 3 } }).png().toBuffer();
}

/**
 * The page's clock, paused from here on: the dialog's 5 s polls and 10 s retry (and the 5 s an
 * error stays) then run when the test moves it on, rather than being waited for. Call before the
 * dialog starts a timer; `resume` lets time flow again for what follows.
 */
async function pauseClock(page: Page) {
  await page.clock.install();
  await page.clock.pauseAt(Date.now() + 1000);
}

/** An expect.poll of `read` that moves the paused clock on 250 ms before each reading. */
function afterSteps<T>(page: Page, read: () => Promise<T>) {
  return expect.poll(
    async () => {
      await page.clock.runFor(250);
      return read();
    },
    { intervals: [20], timeout: 60_000 },
  );
}

test('image edit: three selected images, "flip horizontally and make it night", edited copies with their labels', async ({ page }) => {
  test.setTimeout(120_000);
  // The project, its class, the three images and their labels through the API before the app's
  // first load (creating a project and uploading have tests of their own): the Data tab loads once.
  const bytes = await marked();
  const project = await editorProject(page, { classes: [{ name: 'car', type: 'box', color: '#FFADAD' }], images: ['street_1.png', 'street_2.png', 'street_3.png'].map((name) => ({ name, buffer: bytes })), open: false });
  const pid = project.projectId;
  const auth = { authorization: `Bearer ${await pageToken(page)}` };
  for (const img of project.images) {
    const res = await page.request.post('/api/v1/annotations/save-data', {
      headers: auth,
      data: { image_id: img.id, project_id: pid, image_filename: img.filename, annotations: [{ id: 'car1', name: 'car', bounding_box: { x: 4, y: 6, w: 16, h: 12 } }] },
    });
    expect(res.status()).toBe(200);
  }
  await openProjectPage(page, pid);
  const tiles = page.getByTestId('image-tile');
  await expect(tiles).toHaveCount(3);

  // Select the three and open Edit from the floating toolbar.
  for (const n of ['street_1.png', 'street_2.png', 'street_3.png']) await page.getByRole('checkbox', { name: `Select ${n}` }).click();
  const toolbar = page.getByRole('toolbar', { name: 'Selected images' });
  await expect(toolbar).toContainText('3 selected');
  await toolbar.getByRole('button', { name: 'Edit' }).click();
  const dialog = page.getByRole('dialog', { name: 'Magic Image Edit' });
  await expect(dialog).toBeVisible();
  for (const n of ['street_1.png', 'street_2.png', 'street_3.png']) await expect(dialog.getByRole('button', { name: `Remove ${n}` })).toBeVisible();
  const generate = dialog.getByRole('button', { name: 'Generate' });
  await expect(generate).toBeDisabled(); // no prompt yet
  await dialog.getByLabel('Prompt').fill('flip horizontally and make it night');
  await expect(generate).toBeEnabled();
  await page.screenshot({ path: 'test-results/image-edit-dialog.png' });
  await pauseClock(page);
  await generate.click();

  // The spec's progress texts, polled every 5 s (of the page's clock).
  const progress = dialog.getByTestId('edit-progress');
  await expect(progress).toHaveText('Starting image editing...');
  await afterSteps(page, () => progress.textContent()).toBe('Completed! 3 new images generated.');
  await page.clock.resume();
  await page.screenshot({ path: 'test-results/image-edit-done.png' });
  await dialog.getByRole('button', { name: 'Close' }).first().click();
  await expect(dialog).toBeHidden();

  // The view refreshed: three edited copies, each with the edited icon.
  await expect(tiles).toHaveCount(6);
  for (const n of [1, 2, 3]) {
    const tile = tiles.filter({ hasText: `street_${n}_edit_flip_h_night.png` });
    await expect(tile).toHaveCount(1);
    await expect(tile.getByLabel('Edited image')).toBeVisible();
  }
  await expect(tiles.filter({ hasText: 'street_1.png' }).getByLabel('Edited image')).toHaveCount(0);
  await page.screenshot({ path: 'test-results/image-edit-grid.png' });

  // Their labels are in place: the box mirrored, like the red block in the pixels.
  const after = await (await page.request.get(`/api/v1/projects/${pid}/images?limit=50`, { headers: auth })).json();
  const edited = (after.images as { id: string; filename: string; is_edited: boolean; annotation_count: number }[]).filter((i) => i.is_edited);
  expect(edited.map((i) => i.filename).sort()).toEqual(['street_1_edit_flip_h_night.png', 'street_2_edit_flip_h_night.png', 'street_3_edit_flip_h_night.png']);
  for (const img of edited) {
    expect(img.annotation_count).toBe(1);
    const doc = await (await page.request.get(`/api/v1/annotations/load-data/${img.id}?project_id=${pid}`, { headers: auth })).json();
    expect(doc.annotations).toEqual([{ id: 'car1', name: 'car', bounding_box: { x: W - 20, y: 6, w: 16, h: 12 } }]);
  }

  // And in the editor: the copy opens with its carried box listed.
  await page.keyboard.press('Escape');
  await expect(toolbar).toBeHidden();
  await page.getByRole('button', { name: 'street_1_edit_flip_h_night.png', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'street_1_edit_flip_h_night.png', level: 1 })).toBeVisible();
  await expect(page.getByText('Loading image...')).toBeHidden({ timeout: 20_000 });
  const rows = page.getByRole('listbox', { name: 'Annotation list' }).getByRole('option');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('car');
  await page.screenshot({ path: 'test-results/image-edit-editor.png' });
});

test('image edit: a prompt the built-in editor does not know shows the error, then clears it', async ({ page }) => {
  test.setTimeout(90_000);
  // Its image through the API before the app's first load, straight on the project page.
  await editorProject(page, { images: [{ name: 'field.png', buffer: await marked() }] });
  await expect(page.getByTestId('image-tile')).toHaveCount(1);
  await page.getByRole('checkbox', { name: 'Select field.png' }).click();
  await page.getByRole('toolbar', { name: 'Selected images' }).getByRole('button', { name: 'Edit' }).click();
  const dialog = page.getByRole('dialog', { name: 'Magic Image Edit' });
  await dialog.getByLabel('Prompt').fill('add a dragon');
  await pauseClock(page);
  await dialog.getByLabel('Prompt').press('Enter');
  const progress = dialog.getByTestId('edit-progress');
  await afterSteps(page, async () => (await progress.textContent()) ?? '').toContain('Error: The built-in editor does not understand "dragon"');
  await page.screenshot({ path: 'test-results/image-edit-error.png' });
  // Error texts are cleared after 5 s: still there 4 s on, gone soon after.
  await page.clock.runFor(4000);
  await expect(progress).toContainText('Error: The built-in editor does not understand "dragon"');
  await afterSteps(page, () => progress.isVisible()).toBe(false);
  await page.clock.resume();
  await expect(page.getByTestId('image-tile')).toHaveCount(1);
});

test('image edit: the dialog follows the job through every progress text, and a failed poll is retried after 10 s', async ({ page }) => {
  test.setTimeout(120_000);
  // Its images through the API before the app's first load, straight on the project page.
  const bytes = await marked();
  await editorProject(page, { images: ['road_1.png', 'road_2.png'].map((name) => ({ name, buffer: bytes })) });
  const tiles = page.getByTestId('image-tile');
  await expect(tiles).toHaveCount(2);

  // The built-in editor finishes two small images within the first 5 s poll; the status answers
  // are held back to show the states in between (as the server reports them for a slower job),
  // then one poll fails, and the retry reads the real, finished job.
  let polls = 0;
  await page.route('**/api/v1/image-edit/status/**', async (route) => {
    const n = ++polls;
    if (n === 3) return route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ success: false, error: 'Service unavailable', code: 'unavailable' }) });
    const res = await route.fetch();
    const body = await res.json();
    const common = { registered_count: 0, failed_count: 0, result: null, error: null };
    if (n === 1) Object.assign(body, common, { status: 'processing', processed_count: 1, progress: 25 });
    if (n === 2) Object.assign(body, common, { status: 'registering', processed_count: 2, progress: 60 });
    return route.fulfill({ response: res, json: body });
  });

  for (const n of ['road_1.png', 'road_2.png']) await page.getByRole('checkbox', { name: `Select ${n}` }).click();
  await page.getByRole('toolbar', { name: 'Selected images' }).getByRole('button', { name: 'Edit' }).click();
  const dialog = page.getByRole('dialog', { name: 'Magic Image Edit' });
  await dialog.getByLabel('Prompt').fill('rotate 90 and add fog');
  // When each status poll leaves, on the page's clock (paused, moved on in 250 ms steps).
  await pauseClock(page);
  await page.evaluate(() => {
    const w = window as unknown as { __polls: number[] };
    w.__polls = [];
    const real = window.fetch.bind(window);
    window.fetch = (input, init) => {
      if (String(input instanceof Request ? input.url : input).includes('/image-edit/status/')) w.__polls.push(Date.now());
      return real(input, init);
    };
  });
  await dialog.getByRole('button', { name: 'Generate' }).click();
  const progress = dialog.getByTestId('edit-progress');
  await expect(progress).toHaveText('Starting image editing...');
  const text = () => progress.textContent();
  await afterSteps(page, text).toBe('Generating image edit...');
  await afterSteps(page, text).toBe('Registering 2 new images...');
  await afterSteps(page, text).toBe('Error checking status. Please refresh page.');
  await afterSteps(page, text).toBe('Completed! 2 new images generated.');
  await page.clock.resume();
  expect(polls).toBe(4);
  const times = await page.evaluate(() => (window as unknown as { __polls: number[] }).__polls);
  expect(times).toHaveLength(4);
  // Polls 5 s apart; the retry after the failed one 10 s later (a step of slack allowed).
  const gaps = times.slice(1).map((t, i) => t - times[i]!);
  expect(gaps[0]).toBeGreaterThanOrEqual(4750);
  expect(gaps[1]).toBeGreaterThanOrEqual(4750);
  expect(gaps[2]).toBeGreaterThanOrEqual(9750);
  await dialog.getByRole('button', { name: 'Close' }).first().click();
  await expect(tiles).toHaveCount(4);
  await expect(tiles.filter({ hasText: 'road_1_edit_rotate_90_fog.png' }).getByLabel('Edited image')).toBeVisible();
});
