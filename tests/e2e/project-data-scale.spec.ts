import { expect, test } from '@playwright/test';
import { createProject, onboard, signUp, uniqueUser } from './helpers';

// The list answers are stubbed so the grid can be driven with a 100k-image folder: only the rows
// near the viewport are in the DOM, and scrolling loads 50 more at a time after the first 200.
test('data: a 100k-image folder stays virtualised and loads 200 then 50 at a time; a failed move alerts and reloads', async ({ page }) => {
  const user = uniqueUser('scale');
  await signUp(page, user);
  await onboard(page, `Scale Org ${user.id}`);
  await createProject(page, 'Huge');

  const TOTAL = 100_000;
  const requests: { page: number; limit: number }[] = [];
  await page.route(/\/api\/v1\/projects\/[^/]+\/images\?/, async (route) => {
    const url = new URL(route.request().url());
    const pageNo = Number(url.searchParams.get('page'));
    const limit = Number(url.searchParams.get('limit'));
    requests.push({ page: pageNo, limit });
    const start = (pageNo - 1) * limit;
    const now = new Date().toISOString();
    const images = Array.from({ length: Math.max(0, Math.min(limit, TOTAL - start)) }, (_, k) => {
      const i = start + k;
      return {
        id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        project_id: '00000000-0000-4000-8000-000000000000',
        organization_id: '00000000-0000-4000-8000-000000000000',
        filename: `frame_${String(i).padStart(6, '0')}.png`,
        gcs_uri: `gs://bucket/frame_${i}.png`,
        gcs_path: `frame_${i}.png`,
        status: (['new', 'annotating', 'complete'] as const)[i % 3],
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
        is_edited: i % 7 === 0,
        thumbnail_path: null,
      };
    });
    const totalPages = Math.ceil(TOTAL / limit);
    await route.fulfill({ json: { images, pagination: { page: pageNo, limit, totalPages, totalItems: TOTAL, hasNext: pageNo < totalPages, hasPrev: pageNo > 1 } } });
  });
  await page.route('**/api/v1/images/batch-signed-urls?*', (route) =>
    route.fulfill({ json: { signed_urls: {}, expires_at: new Date(Date.now() + 3600_000).toISOString(), missing_ids: [] } }),
  );

  await page.getByRole('button', { name: 'Open project Huge' }).click();
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
  const before = requests.length;
  await page.getByRole('checkbox', { name: 'Select frame_000000.png' }).click();
  await page.getByRole('toolbar', { name: 'Selected images' }).getByRole('button', { name: 'Folder' }).click();
  await page.getByRole('menuitem', { name: 'Untitled Folder 1' }).click();
  const alert = page.getByRole('dialog', { name: 'Something went wrong' });
  await expect(alert).toContainText('Failed to move images to folder. Please try again.');
  await alert.getByRole('button', { name: 'OK' }).click();
  await expect(page.getByRole('button', { name: 'frame_000000.png' })).toBeVisible();
  expect(requests.length).toBeGreaterThan(before);
});
