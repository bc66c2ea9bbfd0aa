import { expect, test, type Page } from '@playwright/test';
import { editorProject, openProjectPage } from './editor-helpers';

/** Image i as GET /projects/{id}/images answers it, for the stubbed lists below. */
function stubImage(i: number, filename: string, extra: Record<string, unknown> = {}) {
  const now = new Date().toISOString();
  return {
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    project_id: '00000000-0000-4000-8000-000000000000',
    organization_id: '00000000-0000-4000-8000-000000000000',
    filename,
    gcs_uri: `gs://bucket/${filename}`,
    gcs_path: filename,
    status: 'new',
    virtual_folder_path: '/',
    folder_id: null,
    file_size: 1000 + i,
    mime_type: 'image/png',
    image_width: 10,
    image_height: 10,
    created_at: now,
    updated_at: now,
    annotation_count: 0,
    is_archived: false,
    is_edited: false,
    thumbnail_path: null,
    assignee_id: null,
    reviewer_id: null,
    open_issues: 0,
    pending_predictions: 0,
    ...extra,
  };
}

/** Thumbnails are not the point here: signed URLs for none (the tiles show their placeholder). */
const noThumbnails = (page: Page) =>
  page.route('**/api/v1/images/batch-signed-urls?*', (route) =>
    route.fulfill({ json: { signed_urls: {}, expires_at: new Date(Date.now() + 3600_000).toISOString(), missing_ids: [] } }),
  );

// The list answers are stubbed so the grid can be driven with a 100k-image folder: only the rows
// near the viewport are in the DOM, and scrolling loads 50 more at a time after the first 200.
test('data: a 100k-image folder stays virtualised and loads 200 then 50 at a time; a failed move alerts and reloads', async ({ page }) => {
  // The project through the API; the app's first load is on it, with the list answers stubbed.
  const project = await editorProject(page, { name: 'Huge', open: false });

  const TOTAL = 100_000;
  const requests: { page: number; limit: number }[] = [];
  await page.route(/\/api\/v1\/projects\/[^/]+\/images\?/, async (route) => {
    const url = new URL(route.request().url());
    const pageNo = Number(url.searchParams.get('page'));
    const limit = Number(url.searchParams.get('limit'));
    requests.push({ page: pageNo, limit });
    const start = (pageNo - 1) * limit;
    const images = Array.from({ length: Math.max(0, Math.min(limit, TOTAL - start)) }, (_, k) => {
      const i = start + k;
      return stubImage(i, `frame_${String(i).padStart(6, '0')}.png`, { status: (['new', 'annotating', 'complete'] as const)[i % 3], is_edited: i % 7 === 0 });
    });
    const totalPages = Math.ceil(TOTAL / limit);
    await route.fulfill({ json: { images, pagination: { page: pageNo, limit, totalPages, totalItems: TOTAL, totalCapped: false, hasNext: pageNo < totalPages, hasPrev: pageNo > 1 } } });
  });
  await noThumbnails(page);

  await openProjectPage(page, project.projectId);
  const counter = page.getByTestId('loaded-counter');
  await expect(counter).toHaveText('200 / 100,000 loaded');
  expect(requests[0]).toEqual({ page: 1, limit: 200 });
  const tiles = page.getByTestId('image-tile');
  const rendered = await tiles.count();
  expect(rendered).toBeGreaterThan(0);
  expect(rendered).toBeLessThan(100);

  // Scroll to the end of what is loaded: 50 more arrive (page 5 of 50s), the DOM stays small.
  await page.locator('main').evaluate((el) => el.scrollTo(0, el.scrollHeight));
  await expect(counter).toHaveText(/^(250|300|350) \/ 100,000 loaded$/);
  expect(requests[1]).toEqual({ page: 5, limit: 50 });
  expect(await tiles.count()).toBeLessThan(100);
  await expect(page.getByRole('button', { name: 'frame_000000.png' })).toHaveCount(0);

  // Ctrl/Cmd+A selects every loaded image, not just the rendered ones.
  await page.getByRole('heading', { name: 'Manage Dataset' }).click();
  await page.keyboard.press('ControlOrMeta+a');
  await expect(page.getByRole('toolbar', { name: 'Selected images' })).toContainText(/^(250|300|350) selected/);
  await page.keyboard.press('Escape');

  // A move the server refuses: the alert of spec section 8, and the folder reloads.
  await page.route('**/api/images/batch/move', (route) => route.fulfill({ status: 500, json: { success: false, error: 'boom', code: 'internal' } }));
  await page.locator('main').evaluate((el) => el.scrollTo(0, 0));
  await page.getByRole('button', { name: 'New Folder' }).click();
  await page.getByLabel('Folder name for Untitled Folder 1').press('Enter');
  const folder = page.getByRole('button', { name: 'Open folder Untitled Folder 1' });
  await expect(folder).toBeVisible();
  // Dragged onto the folder: the drag's own message (the toolbar's Folder menu says 'Failed to move
  // items', see project-data.spec.ts); the image goes away at once and comes back with the reload.
  const before = requests.length;
  const image = page.getByRole('button', { name: 'frame_000000.png', exact: true });
  await image.dragTo(folder);
  const alert = page.getByRole('dialog', { name: 'Something went wrong' });
  await expect(alert).toContainText('Failed to move images to folder. Please try again.');
  await alert.getByRole('button', { name: 'OK' }).click();
  await expect(image).toBeVisible();
  expect(requests.length).toBeGreaterThan(before);
});

// The Data tab's states with the list answers held or refused: the skeleton while loading (and
// the tiles take its place without the page moving), the error with Try again, the empty folder,
// and the empty filter. Screenshots of each under test-results/.
test('data: loading skeleton, error with Try again, empty and filtered-empty states; tiles replace the skeleton without a layout jump', async ({ page }) => {
  // The project through the API; the app's first load is on it, with the list answers stubbed.
  const project = await editorProject(page, { name: 'States', open: false });

  let mode: 'hold' | 'fail' | 'ok' = 'hold';
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await page.route(/\/api\/v1\/projects\/[^/]+\/images\?/, async (route) => {
    const url = new URL(route.request().url());
    if (mode === 'hold') await held;
    if (mode === 'fail') return route.fulfill({ status: 500, json: { success: false, error: 'boom', code: 'internal' } });
    // Nothing is complete: the status filter empties the folder.
    const count = url.searchParams.get('status') ? 0 : 12;
    const images = Array.from({ length: count }, (_, i) => stubImage(i, `shot_${i}.png`, { file_size: 2048 + i }));
    await route.fulfill({ json: { images, pagination: { page: 1, limit: 200, totalPages: count ? 1 : 0, totalItems: count, totalCapped: false, hasNext: false, hasPrev: false } } });
  });
  await noThumbnails(page);

  // Loading: the skeleton grid, busy; the header and path bar are already in place.
  await page.goto(`/projects/${project.projectId}/data`);
  const skeleton = page.getByLabel('Loading images');
  await expect(skeleton).toBeVisible();
  await expect(skeleton).toHaveAttribute('aria-busy', 'true');
  await page.screenshot({ path: 'test-results/data-state-loading.png' });
  const pathBar = page.getByRole('navigation', { name: 'Folder path' });
  const barBefore = (await pathBar.boundingBox())!;
  const firstSkeleton = (await skeleton.locator(':scope > *').first().boundingBox())!;

  // Loaded: the first tile sits where the first skeleton tile was, the path bar has not moved.
  release();
  mode = 'ok';
  const tiles = page.getByTestId('image-tile');
  await expect(tiles).toHaveCount(12);
  await expect(skeleton).toHaveCount(0);
  await page.screenshot({ path: 'test-results/data-state-loaded.png' });
  expect(await pathBar.boundingBox()).toEqual(barBefore);
  const firstTile = (await tiles.first().boundingBox())!;
  expect(Math.abs(firstTile.x - firstSkeleton.x)).toBeLessThanOrEqual(1);
  expect(Math.abs(firstTile.y - firstSkeleton.y)).toBeLessThanOrEqual(1);
  expect(Math.abs(firstTile.width - firstSkeleton.width)).toBeLessThanOrEqual(1);
  // As tall too, so the rows below stay where they were.
  expect(Math.abs(firstTile.height - firstSkeleton.height)).toBeLessThanOrEqual(1);

  // Filtered to nothing: says so and offers all statuses back.
  await page.getByRole('button', { name: 'All statuses' }).click();
  await page.getByRole('menuitemcheckbox', { name: 'Done' }).click();
  await expect(page.getByText('No images in the Done stage here')).toBeVisible();
  await page.screenshot({ path: 'test-results/data-state-filtered-empty.png' });
  await page.getByRole('button', { name: 'Show all statuses' }).click();
  await expect(tiles).toHaveCount(12);

  // The list call fails: the spec's alert, then the folder says so with Try again, which loads it
  // once the server answers.
  mode = 'fail';
  await page.reload();
  const alert = page.getByRole('dialog', { name: 'Something went wrong' });
  await expect(alert).toContainText('Failed to load folder contents. Please try again.');
  await page.screenshot({ path: 'test-results/data-state-error-alert.png' });
  await alert.getByRole('button', { name: 'OK' }).click();
  const failed = page.getByRole('alert').filter({ hasText: 'Failed to load folder contents' });
  await expect(failed).toBeVisible();
  await expect(failed).toContainText('Please try again.');
  await expect(page.getByTestId('loaded-counter')).toHaveText('Not loaded');
  await page.screenshot({ path: 'test-results/data-state-error.png' });
  mode = 'ok';
  await failed.getByRole('button', { name: 'Try again' }).click();
  await expect(tiles).toHaveCount(12);

  // An empty folder: made, opened, and it says so (the real list answers from here on).
  await page.unroute(/\/api\/v1\/projects\/[^/]+\/images\?/);
  await page.getByRole('button', { name: 'New Folder' }).click();
  await page.getByLabel('Folder name for Untitled Folder 1').press('Enter');
  await page.getByRole('button', { name: 'Open folder Untitled Folder 1' }).click();
  await expect(page.getByText('This folder is empty')).toBeVisible();
  await expect(tiles).toHaveCount(0);
  await page.screenshot({ path: 'test-results/data-state-empty-folder.png' });
});
