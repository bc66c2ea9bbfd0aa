import { expect, test } from '@playwright/test';
import sharp from 'sharp';
import { createProject, routeUploadPut, signUpWithOrganization, uniqueUser } from './helpers';

test('uploads: a failed PUT shows its status and body, a missing upload URL fails only that file, a hanging file holds one slot only, Cancel stops the rest', async ({ page }) => {
  const user = uniqueUser('uploads');
  await signUpWithOrganization(page, user, `Upload Org ${user.id}`);
  await createProject(page, 'Flaky');
  await page.getByRole('button', { name: 'Open project Flaky' }).click();
  await expect(page.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
  const img = await sharp({ create: { width: 16, height: 16, channels: 3, background: { r: 90, g: 90, b: 200 } } }).png().toBuffer();
  const file = (name: string) => ({ name, mimeType: 'image/png', buffer: img });
  const input = page.getByTestId('add-images-input');
  const uploads = page.getByRole('region', { name: 'Uploads' });
  const summary = uploads.getByTestId('upload-summary');

  // The storage refuses one file: its reason is 'Upload failed: {status} {body}'; the other lands.
  await routeUploadPut(page, 'bad.png', (route) => route.fulfill({ status: 507, body: 'disk full' }));
  await input.setInputFiles([file('good.png'), file('bad.png')]);
  await expect(summary).toHaveText('1 uploaded · 1 failed');
  await expect(uploads).toContainText('Upload failed: 507 disk full');
  await expect(page.getByTestId('image-tile')).toHaveCount(1);
  await uploads.getByRole('button', { name: 'Close uploads' }).click();

  // No upload URL for one file: 'Failed to get upload URL' for that file only.
  await page.route('**/images/upload-url?*', (route) =>
    (route.request().postDataJSON() as { filename: string }).filename === 'two.png'
      ? route.fulfill({ status: 503, json: { success: false, error: 'busy', code: 'unavailable' } })
      : route.fallback(),
  );
  await input.setInputFiles([file('one.png'), file('two.png')]);
  await expect(summary).toHaveText('1 uploaded · 1 failed');
  await expect(uploads.getByText('Failed to get upload URL')).toHaveCount(1);
  await expect(uploads.getByRole('listitem').filter({ hasText: 'two.png' })).toContainText('Failed to get upload URL');
  await expect(page.getByTestId('image-tile')).toHaveCount(2);
  await uploads.getByRole('button', { name: 'Close uploads' }).click();

  // A PUT that hangs holds one of the five slots only: the six others all land meanwhile.
  // Cancel then stops it, and nothing more is uploaded.
  await routeUploadPut(page, 'slow.png', () => new Promise<void>(() => undefined));
  await input.setInputFiles([file('slow.png'), ...['a', 'b', 'c', 'd', 'e', 'f'].map((n) => file(`${n}.png`))]);
  await expect(uploads.getByRole('heading', { name: 'Uploading 7 files' })).toBeVisible();
  await expect(summary).toContainText('6 of 7');
  await expect(page.getByTestId('image-tile')).toHaveCount(8);
  await uploads.getByRole('button', { name: 'Cancel' }).click();
  await expect(summary).toHaveText('6 uploaded · 1 cancelled');
  await expect(page.getByTestId('image-tile')).toHaveCount(8);
});
