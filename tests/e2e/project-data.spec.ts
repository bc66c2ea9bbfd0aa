import { expect, test, type Page } from '@playwright/test';
import sharp from 'sharp';
import { createProject, routeUploadPut, signUpWithOrganization, uniqueUser } from './helpers';

async function png(r: number, g: number, b: number, width = 48, height = 36): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r, g, b } } }).png().toBuffer();
}

async function openNewProject(page: Page) {
  const user = uniqueUser('data');
  await signUpWithOrganization(page, user, `Data Org ${user.id}`);
  await createProject(page, 'Birds');
  await page.getByRole('button', { name: 'Open project Birds' }).click();
  await expect(page.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
}

test('data: upload by picker and by drop, thumbnails, folders, move, stage, archive, restore, delete permanently', async ({ page }) => {
  // A long journey (some 80 steps, three trips to the editor) on a shared, busy machine.
  test.setTimeout(300_000);
  await openNewProject(page);
  await expect(page.getByText('Add your first images')).toBeVisible();
  // Offline, a banner says so above the page; it goes when the connection is back.
  const offline = page.getByRole('alert').filter({ hasText: 'You are offline' });
  await page.context().setOffline(true);
  await expect(offline).toBeVisible();
  await page.screenshot({ path: 'test-results/data-offline-banner.png' });
  await page.context().setOffline(false);
  await expect(offline).toBeHidden();
  const tiles = page.getByTestId('image-tile');
  const counter = page.getByTestId('loaded-counter');

  // Upload three PNGs and one text file through the empty folder's Choose Images button (the file
  // picker Add opens; Add's is used below). blue.png's PUT is held until the progress is checked:
  // the batch bar, a bar per file, 'n of 3'.
  let releasePut!: () => void;
  const putHeld = new Promise<void>((r) => (releasePut = r));
  await routeUploadPut(page, 'blue.png', async (route) => {
    await putHeld;
    await route.fallback();
  });
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Choose Images' }).click();
  await (await chooser).setFiles([
    { name: 'red.png', mimeType: 'image/png', buffer: await png(220, 40, 40) },
    { name: 'green.png', mimeType: 'image/png', buffer: await png(40, 200, 60) },
    { name: 'blue.png', mimeType: 'image/png', buffer: await png(40, 60, 220) },
    { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not an image') },
  ]);
  const uploads = page.getByRole('region', { name: 'Uploads' });
  await expect(uploads.getByRole('heading', { name: 'Uploading 3 files' })).toBeVisible();
  await expect(uploads.getByTestId('upload-summary')).toHaveText(/^2 of 3 · /);
  await expect(uploads.getByRole('progressbar', { name: 'Upload progress', exact: true })).toBeVisible();
  await expect(uploads.getByRole('progressbar', { name: 'Upload progress of red.png' })).toHaveAttribute('aria-valuenow', '100');
  await expect(uploads.getByRole('progressbar', { name: 'Upload progress of green.png' })).toHaveAttribute('aria-valuenow', '100');
  await expect(uploads.getByRole('progressbar', { name: 'Upload progress of blue.png' })).toBeVisible();
  await expect(uploads.getByRole('listitem').filter({ hasText: 'blue.png' }).getByLabel('Uploaded')).toHaveCount(0);
  // The two that landed already show in the grid with their thumbnails.
  await expect(tiles).toHaveCount(2);
  await expect(page.locator('img[data-loaded]')).toHaveCount(2);
  await page.screenshot({ path: 'test-results/data-upload-progress.png' });
  releasePut();
  await expect(uploads.getByTestId('upload-summary')).toHaveText('3 uploaded · 1 skipped');
  await expect(uploads.getByRole('note')).toContainText('notes.txt');
  await expect(tiles).toHaveCount(3);
  await expect(counter).toHaveText('3 / 3 loaded');
  // Thumbnails arrive through batch signed URLs and actually load.
  await expect(page.locator('img[data-loaded]')).toHaveCount(3);
  await uploads.getByRole('button', { name: 'Close uploads' }).click();

  // A desktop file drop uploads into the current folder; duplicate names (with the project or
  // within the drop) are made unique.
  const bytes = (await png(250, 200, 20)).toString('base64');
  const dataTransfer = await page.evaluateHandle((b64) => {
    const raw = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([raw], 'yellow.png', { type: 'image/png' }));
    dt.items.add(new File([raw], 'yellow.png', { type: 'image/png' }));
    dt.items.add(new File([raw], 'red.png', { type: 'image/png' }));
    return dt;
  }, bytes);
  const area = page.getByRole('list', { name: 'Contents of All images' });
  await area.dispatchEvent('dragenter', { dataTransfer });
  await expect(page.getByText('Drop to upload to All images')).toBeVisible();
  await area.dispatchEvent('drop', { dataTransfer });
  await expect(uploads.getByTestId('upload-summary')).toHaveText('3 uploaded');
  await expect(uploads.getByText(/Saved as red/)).toBeVisible();
  await expect(uploads.getByText(/Saved as yellow/)).toBeVisible();
  await expect(tiles).toHaveCount(6);
  await expect(page.locator('img[data-loaded]')).toHaveCount(6);
  await uploads.getByRole('button', { name: 'Close uploads' }).click();

  // Ctrl/Cmd+A selects everything loaded, Escape clears.
  await page.getByRole('heading', { name: 'Manage Dataset' }).click();
  await page.keyboard.press('ControlOrMeta+a');
  const bar = page.getByRole('toolbar', { name: 'Selected images' });
  await expect(bar).toContainText('6 selected');
  await page.keyboard.press('Escape');
  await expect(bar).toBeHidden();

  // New folder: 'Untitled Folder 1', renamed inline with Enter.
  await page.getByRole('button', { name: 'New Folder' }).click();
  const nameInput = page.getByLabel('Folder name for Untitled Folder 1');
  await expect(nameInput).toBeFocused();
  await nameInput.fill('Parrots');
  await nameInput.press('Enter');
  const folder = page.getByRole('button', { name: 'Open folder Parrots' });
  await expect(folder).toBeVisible();

  // Select two images (click, then shift-click for the range) and move them with the toolbar.
  await page.getByRole('checkbox', { name: 'Select green.png' }).click();
  await page.getByRole('checkbox', { name: 'Select blue.png' }).click();
  await expect(bar).toContainText('2 selected');
  await bar.getByRole('button', { name: 'Folder' }).click();
  await page.getByRole('menuitem', { name: 'Parrots' }).click();
  await expect(tiles).toHaveCount(4);
  await expect(page.getByTestId('folder-tile')).toContainText('2 images');

  // Drag one image onto the folder tile.
  await page.getByRole('button', { name: 'red.png', exact: true }).dragTo(folder);
  await expect(tiles).toHaveCount(3);
  await expect(page.getByTestId('folder-tile')).toContainText('3 images');

  // A second folder: Escape keeps 'Untitled Folder 1'; dragged onto Parrots, it moves inside.
  await page.getByRole('button', { name: 'New Folder' }).click();
  await page.getByLabel('Folder name for Untitled Folder 1').press('Escape');
  const second = page.getByRole('button', { name: 'Open folder Untitled Folder 1' });
  await expect(second).toBeVisible();
  await second.dragTo(folder);
  await expect(second).toBeHidden();

  // Inside the folder: the parent tile and the breadcrumb; the image page and back re-opens it.
  await folder.click();
  await expect(page.getByRole('button', { name: 'Back to parent' })).toBeVisible();
  await expect(second).toBeVisible();
  await expect(tiles).toHaveCount(3);
  const crumbs = page.getByRole('navigation', { name: 'Folder path' });
  await page.getByRole('button', { name: 'green.png', exact: true }).click();
  await expect(page).toHaveURL(/\/projects\/[0-9a-f-]{36}\/images\/[0-9a-f-]{36}\?folder=%2FParrots$/);
  await expect(page.getByRole('heading', { name: 'green.png', level: 1 })).toBeVisible();
  await page.getByRole('button', { name: 'Back', exact: true }).click();
  await expect(page).toHaveURL(/\/projects\/[0-9a-f-]{36}\/data\?folder=%2FParrots$/);
  await expect(crumbs).toHaveText(/All images.*Parrots$/);
  await expect(tiles).toHaveCount(3);

  // A folder two levels down: red.png dragged into it, opened there, and the editor's Back returns
  // to that nested folder, also after the editor page was reloaded (the editor's URL says where).
  await page.getByRole('button', { name: 'red.png', exact: true }).dragTo(second);
  await expect(tiles).toHaveCount(2);
  await expect(page.getByTestId('folder-tile')).toContainText('1 image');
  await second.click();
  await expect(crumbs).toHaveText(/All images.*Parrots.*Untitled Folder 1$/);
  await expect(tiles).toHaveCount(1);
  await page.getByRole('button', { name: 'red.png', exact: true }).click();
  await expect(page).toHaveURL(/\/images\/[0-9a-f-]{36}\?folder=%2FParrots%2FUntitled\+Folder\+1$/);
  await page.getByRole('button', { name: 'Back', exact: true }).click();
  await expect(page).toHaveURL(/\/data\?folder=%2FParrots%2FUntitled\+Folder\+1$/);
  await expect(crumbs).toHaveText(/All images.*Parrots.*Untitled Folder 1$/);
  await expect(tiles).toHaveCount(1);
  await expect(page.getByRole('button', { name: 'red.png', exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'red.png', exact: true }).click();
  await expect(page).toHaveURL(/\/images\/[0-9a-f-]{36}\?folder=%2FParrots%2FUntitled\+Folder\+1$/);
  await page.reload();
  await expect(page.getByRole('heading', { name: 'red.png', level: 1 })).toBeVisible();
  await page.getByRole('button', { name: 'Back', exact: true }).click();
  await expect(page).toHaveURL(/\/data\?folder=%2FParrots%2FUntitled\+Folder\+1$/);
  await expect(crumbs).toHaveText(/All images.*Parrots.*Untitled Folder 1$/);
  await expect(page.getByRole('button', { name: 'red.png', exact: true })).toBeVisible();
  // Back climbs one level, to Parrots.
  await page.getByRole('button', { name: 'Back', exact: true }).click();
  await expect(crumbs).toHaveText(/All images.*Parrots$/);
  await expect(tiles).toHaveCount(2);

  // Stage: set one image to Done, then filter by status.
  await page.getByRole('checkbox', { name: 'Select green.png' }).click();
  await bar.getByRole('button', { name: 'Stage' }).click();
  await page.getByRole('menuitem', { name: 'Done' }).click();
  await expect(page.getByTestId('image-tile').filter({ hasText: 'green.png' })).toContainText('Done');
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'All statuses' }).click();
  await page.getByRole('menuitemcheckbox', { name: 'Done' }).click();
  await expect(tiles).toHaveCount(1);
  await page.getByRole('button', { name: 'Done' }).first().click();
  await page.getByRole('menuitemcheckbox', { name: 'All statuses' }).click();
  await expect(tiles).toHaveCount(2);

  // Drag an image onto 'Back to parent', then go back.
  await page.getByRole('button', { name: 'blue.png', exact: true }).dragTo(page.getByRole('button', { name: 'Back to parent' }));
  await expect(tiles).toHaveCount(1);
  await page.getByRole('button', { name: 'Back', exact: true }).click();
  await expect(tiles).toHaveCount(4);

  // Archive one image; it leaves the Data view and appears in Archive.
  await page.getByRole('checkbox', { name: 'Select blue.png' }).click();
  await bar.getByRole('button', { name: 'Archive' }).click();
  await expect(tiles).toHaveCount(3);
  await page.getByRole('tab', { name: /Archive/ }).click();
  await expect(page.getByRole('heading', { name: 'Archive' })).toBeVisible();
  await expect(tiles).toHaveCount(1);

  // Restoring one image just restores it: a toast, no dialog to dismiss.
  await page.getByRole('checkbox', { name: 'Select blue.png' }).click();
  await bar.getByRole('button', { name: 'Restore' }).click();
  await expect(page.getByTestId('toast').filter({ hasText: 'Restored blue.png' })).toBeVisible();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(page.getByText('No archived images')).toBeVisible();
  await page.getByRole('tab', { name: /Data/ }).click();
  await expect(tiles).toHaveCount(4);

  // Archive again and delete permanently after the warning.
  await page.getByRole('checkbox', { name: 'Select blue.png' }).click();
  await bar.getByRole('button', { name: 'Archive' }).click();
  await expect(tiles).toHaveCount(3);
  await page.getByRole('tab', { name: /Archive/ }).click();
  await page.getByRole('checkbox', { name: 'Select blue.png' }).click();
  await bar.getByRole('button', { name: 'Delete' }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete 1 image permanently?' });
  await expect(confirm).toContainText('cannot be undone');
  await expect(confirm).toContainText('blue.png');
  await confirm.getByRole('button', { name: 'Delete Permanently' }).click();
  await expect(confirm).toBeHidden();
  await expect(page.getByText('No archived images')).toBeVisible();
  // The tab is in the URL (issue 29): a reload stays on Archive.
  await page.reload();
  await expect(page.getByRole('tab', { name: /Archive/ })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByText('No archived images')).toBeVisible();
  await page.getByRole('tab', { name: /Data/ }).click();
  await expect(counter).toHaveText('3 / 3 loaded');
});

test('data: the status badge cycles an image through the stages, rolls back on failure; Next stage follows the first selected; a failed menu move says so', async ({ page }) => {
  test.setTimeout(120_000);
  await openNewProject(page);
  await page.getByTestId('add-images-input').setInputFiles([
    { name: 'one.png', mimeType: 'image/png', buffer: await png(220, 40, 40) },
    { name: 'two.png', mimeType: 'image/png', buffer: await png(40, 200, 60) },
    { name: 'three.png', mimeType: 'image/png', buffer: await png(40, 60, 220) },
  ]);
  const uploads = page.getByRole('region', { name: 'Uploads' });
  await expect(uploads.getByTestId('upload-summary')).toHaveText('3 uploaded');
  await uploads.getByRole('button', { name: 'Close uploads' }).click();
  const tiles = page.getByTestId('image-tile');
  await expect(tiles).toHaveCount(3);
  const tile = (name: string) => tiles.filter({ has: page.getByRole('button', { name, exact: true }) });
  const badge = (name: string) => tile(name).getByTestId('status-cycle');

  // A click moves one image a stage on: Not started -> In progress, saved on the server.
  await expect(badge('one.png')).toHaveAccessibleName('Status of one.png: Not started. Change to In progress');
  await badge('one.png').click();
  await expect(badge('one.png')).toHaveText('In progress');
  await expect(badge('one.png')).toHaveAccessibleName('Status of one.png: In progress. Change to In review');
  await expect(badge('two.png')).toHaveText('Not started');
  await page.reload();
  await expect(badge('one.png')).toHaveText('In progress');

  // By keyboard: Enter -> In review, Space -> Done, Enter -> back to Not started.
  await badge('one.png').focus();
  await page.keyboard.press('Enter');
  await expect(badge('one.png')).toHaveText('In review');
  await page.keyboard.press('Space');
  await expect(badge('one.png')).toHaveText('Done');
  await page.keyboard.press('Enter');
  await expect(badge('one.png')).toHaveText('Not started');
  await page.reload();
  await expect(badge('one.png')).toHaveText('Not started');

  // The server refuses: the badge shows the next stage at once, then rolls back with the alert.
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await page.route(
    '**/api/v1/images/*/status?*',
    async (route) => {
      await held;
      await route.fulfill({ status: 500, json: { success: false, error: 'boom', code: 'internal' } });
    },
    { times: 1 },
  );
  await badge('two.png').click();
  await expect(badge('two.png')).toHaveText('In progress');
  release();
  const alert = page.getByRole('dialog', { name: 'Something went wrong' });
  await expect(alert).toContainText('Failed to update image status. Please try again.');
  await alert.getByRole('button', { name: 'OK' }).click();
  await expect(badge('two.png')).toHaveText('Not started');
  await page.reload();
  await expect(badge('two.png')).toHaveText('Not started');

  // Next stage with no explicit target cycles the FIRST SELECTED image's status, whatever the grid
  // order: select a Done image before a Not started one that sits above it.
  const order = await tiles.getByRole('button', { name: /\.png$/ }).allTextContents();
  const [top, below] = [order[0]!.match(/\w+\.png/)![0], order[1]!.match(/\w+\.png/)![0]];
  await badge(below).click();
  await expect(badge(below)).toHaveText('In progress');
  await badge(below).click();
  await expect(badge(below)).toHaveText('In review');
  await badge(below).click();
  await expect(badge(below)).toHaveText('Done');
  await page.getByRole('checkbox', { name: `Select ${below}` }).click();
  await page.getByRole('checkbox', { name: `Select ${top}` }).click();
  const bar = page.getByRole('toolbar', { name: 'Selected images' });
  await expect(bar).toContainText('2 selected');
  await bar.getByRole('button', { name: 'Stage' }).click();
  await page.getByRole('menuitem', { name: 'Next stage' }).click();
  await expect(page.getByText('2 images set to Not started')).toBeVisible();
  await expect(badge(below)).toHaveText('Not started');
  await expect(badge(top)).toHaveText('Not started');

  // A move from the toolbar's Folder menu that fails: the spec's generic alert, and the images return.
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'New Folder' }).click();
  await page.getByLabel('Folder name for Untitled Folder 1').press('Enter');
  await expect(page.getByRole('button', { name: 'Open folder Untitled Folder 1' })).toBeVisible();
  await page.route('**/api/images/batch/move', (route) => route.fulfill({ status: 500, json: { success: false, error: 'boom', code: 'internal' } }), { times: 1 });
  await page.getByRole('checkbox', { name: `Select ${top}` }).click();
  await bar.getByRole('button', { name: 'Folder' }).click();
  await page.getByRole('menuitem', { name: 'Untitled Folder 1' }).click();
  await expect(alert).toContainText('Failed to move items. Please try again.');
  await alert.getByRole('button', { name: 'OK' }).click();
  await expect(tiles).toHaveCount(3);
  await expect(page.getByTestId('folder-tile')).toContainText('0 images');

  // Folder drags the server refuses: onto another folder, then from inside onto 'Back to parent';
  // each has its own alert and the folder stays where it was.
  const refuseMove = () => page.route('**/api/folders/*/move', (route) => route.fulfill({ status: 500, json: { success: false, error: 'boom', code: 'internal' } }), { times: 1 });
  await page.getByRole('button', { name: 'New Folder' }).click();
  await page.getByLabel('Folder name for Untitled Folder 2').press('Enter');
  const first = page.getByRole('button', { name: 'Open folder Untitled Folder 1' });
  const second = page.getByRole('button', { name: 'Open folder Untitled Folder 2' });
  await expect(second).toBeVisible();
  await refuseMove();
  await second.dragTo(first);
  await expect(alert).toContainText('Failed to move folder. Please try again.');
  await alert.getByRole('button', { name: 'OK' }).click();
  await expect(second).toBeVisible();
  await second.dragTo(first);
  await expect(second).toBeHidden();
  await first.click();
  await expect(second).toBeVisible();
  await refuseMove();
  await second.dragTo(page.getByRole('button', { name: 'Back to parent' }));
  await expect(alert).toContainText('Failed to move folder to parent directory. Please try again.');
  await alert.getByRole('button', { name: 'OK' }).click();
  await expect(second).toBeVisible();
});

test('data: many images through archive, restore and delete (10 names, then "and N more" / "Show N more"); the alerts when archive, restore, delete or a folder rename fail', async ({ page }) => {
  test.setTimeout(240_000);
  await openNewProject(page);
  const names = Array.from({ length: 12 }, (_, i) => `img${String(i + 1).padStart(2, '0')}.png`);
  await page.getByTestId('add-images-input').setInputFiles(await Promise.all(names.map(async (name, i) => ({ name, mimeType: 'image/png', buffer: await png(20 * i, 100, 200 - 10 * i, 16, 12) }))));
  const uploads = page.getByRole('region', { name: 'Uploads' });
  // Twelve files, five at a time: more room than one expect's default on a busy machine.
  await expect(uploads.getByTestId('upload-summary')).toHaveText('12 uploaded', { timeout: 60_000 });
  await uploads.getByRole('button', { name: 'Close uploads' }).click();
  const tiles = page.getByTestId('image-tile');
  await expect(tiles).toHaveCount(12);
  const bar = page.getByRole('toolbar', { name: 'Selected images' });
  const alert = page.getByRole('dialog', { name: 'Something went wrong' });
  const dataTab = page.getByRole('tab', { name: /Data/ });
  const archiveTab = page.getByRole('tab', { name: /Archive/ });

  // A folder rename the server refuses: the alert names the folder, and the old name comes back.
  await page.getByRole('button', { name: 'New Folder' }).click();
  await page.getByLabel('Folder name for Untitled Folder 1').press('Enter');
  await expect(page.getByRole('button', { name: 'Open folder Untitled Folder 1' })).toBeVisible();
  await page.route('**/api/folders/*/name?*', (route) => route.fulfill({ status: 500, json: { success: false, error: 'boom', code: 'internal' } }), { times: 1 });
  await page.getByRole('button', { name: 'Rename folder Untitled Folder 1' }).click();
  await page.getByLabel('Folder name for Untitled Folder 1').fill('Perches');
  await page.getByLabel('Folder name for Untitled Folder 1').press('Enter');
  await expect(alert).toContainText('Failed to rename folder "Untitled Folder 1". Please try again.');
  await alert.getByRole('button', { name: 'OK' }).click();
  await expect(page.getByRole('button', { name: 'Open folder Untitled Folder 1' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Open folder Perches' })).toHaveCount(0);

  // Archive refused: the alert, and the images are back in the grid.
  await page.route('**/api/images/batch/update', (route) => route.fulfill({ status: 500, json: { success: false, error: 'boom', code: 'internal' } }), { times: 1 });
  await page.getByRole('heading', { name: 'Manage Dataset' }).click();
  await page.keyboard.press('ControlOrMeta+a');
  await expect(bar).toContainText('12 selected');
  await bar.getByRole('button', { name: 'Archive' }).click();
  await expect(alert).toContainText('Failed to archive images. Please try again.');
  await alert.getByRole('button', { name: 'OK' }).click();
  await expect(tiles).toHaveCount(12);
  await expect(archiveTab).toContainText('0');

  // They are still selected: Archive again archives all twelve for real.
  await expect(bar).toContainText('12 selected');
  await bar.getByRole('button', { name: 'Archive' }).click();
  await expect(tiles).toHaveCount(0);
  await expect(archiveTab).toContainText('12');

  // Restore refused: the alert; nothing left the archive.
  await archiveTab.click();
  await expect(tiles).toHaveCount(12);
  await page.route('**/api/images/batch/update', (route) => route.fulfill({ status: 500, json: { success: false, error: 'boom', code: 'internal' } }), { times: 1 });
  await page.getByRole('button', { name: 'Select all' }).click();
  await bar.getByRole('button', { name: 'Restore' }).click();
  await expect(alert).toContainText('Failed to restore images. Please try again.');
  await alert.getByRole('button', { name: 'OK' }).click();
  await expect(tiles).toHaveCount(12);

  // Delete refused after the confirmation: its list shows 10 names and 'Show 2 more'; the alert.
  await page.getByRole('button', { name: 'Select all' }).click();
  await bar.getByRole('button', { name: 'Delete' }).click();
  let confirm = page.getByRole('dialog', { name: 'Delete 12 images permanently?' });
  await expect(confirm.getByRole('listitem')).toHaveCount(10);
  await confirm.getByRole('button', { name: 'Show 2 more' }).click();
  await expect(confirm.getByRole('listitem')).toHaveCount(12);
  await page.screenshot({ path: 'test-results/archive-delete-confirm.png' });
  await page.route('**/api/images/batch/delete', (route) => route.fulfill({ status: 500, json: { success: false, error: 'boom', code: 'internal' } }), { times: 1 });
  await confirm.getByRole('button', { name: 'Delete Permanently' }).click();
  await expect(alert).toContainText('Failed to delete images. Please try again.');
  await alert.getByRole('button', { name: 'OK' }).click();
  await expect(tiles).toHaveCount(12);
  // The selection stays for another try; Clear empties it.
  await expect(bar).toContainText('12 selected');
  await bar.getByRole('button', { name: 'Clear' }).click();
  await expect(bar).toBeHidden();

  // Delete two for real, then restore the other ten: the success dialog names 10 and 'and N more'
  // only past ten.
  await page.getByRole('checkbox', { name: 'Select img01.png' }).click();
  await page.getByRole('checkbox', { name: 'Select img02.png' }).click();
  await bar.getByRole('button', { name: 'Delete' }).click();
  confirm = page.getByRole('dialog', { name: 'Delete 2 images permanently?' });
  await expect(confirm.getByRole('listitem')).toHaveCount(2);
  await expect(confirm).toContainText('img01.png');
  await expect(confirm).toContainText('img02.png');
  await confirm.getByRole('button', { name: 'Delete Permanently' }).click();
  await expect(page.getByText('Permanently deleted 2 images')).toBeVisible();
  await expect(tiles).toHaveCount(10);
  await page.getByRole('button', { name: 'Select all' }).click();
  await bar.getByRole('button', { name: 'Restore' }).click();
  const restored = page.getByRole('dialog', { name: 'Images restored' });
  await expect(restored.getByRole('listitem')).toHaveCount(10);
  await expect(restored).not.toContainText('more');
  await restored.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByText('No archived images')).toBeVisible();
  await dataTab.click();
  await expect(tiles).toHaveCount(10);

  // Archive all ten again plus restore them with two more: 12 names -> 10 and 'and 2 more'.
  await page.getByTestId('add-images-input').setInputFiles([
    { name: 'extra1.png', mimeType: 'image/png', buffer: await png(1, 2, 3, 16, 12) },
    { name: 'extra2.png', mimeType: 'image/png', buffer: await png(3, 2, 1, 16, 12) },
  ]);
  await expect(uploads.getByTestId('upload-summary')).toHaveText('2 uploaded');
  await uploads.getByRole('button', { name: 'Close uploads' }).click();
  await expect(tiles).toHaveCount(12);
  await page.getByRole('heading', { name: 'Manage Dataset' }).click();
  await page.keyboard.press('ControlOrMeta+a');
  await bar.getByRole('button', { name: 'Archive' }).click();
  await expect(archiveTab).toContainText('12');
  await archiveTab.click();
  await expect(tiles).toHaveCount(12);
  await page.getByRole('button', { name: 'Select all' }).click();
  await bar.getByRole('button', { name: 'Restore' }).click();
  await expect(restored.getByRole('listitem')).toHaveCount(10);
  await expect(restored).toContainText('and 2 more');
  await page.screenshot({ path: 'test-results/archive-restored.png' });
  await restored.getByRole('button', { name: 'Done' }).click();
  await dataTab.click();
  await expect(tiles).toHaveCount(12);
});
