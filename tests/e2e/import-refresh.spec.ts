// The Data tab follows imports (issue 30): an import that ends, run by another person or in
// another tab, shows in the grid and the counts without a reload (the live socket's
// project_changed), as does one run from this tab's Import dialog.
import { expect, test, type Page } from '@playwright/test';
import JSZip from 'jszip';
import { editorProject, scenePng } from './editor-helpers';
import { member } from './live-helpers';

async function cocoZip(names: string[]): Promise<Buffer> {
  const zip = new JSZip();
  zip.file('annotations.json', JSON.stringify({
    images: names.map((file_name, i) => ({ id: i + 1, file_name, width: 64, height: 48 })),
    categories: [{ id: 1, name: 'boat' }],
    annotations: names.map((_, i) => ({ id: i + 1, image_id: i + 1, category_id: 1, bbox: [4, 4, 20, 10], area: 200, iscrowd: 0 })),
  }));
  for (const [i, n] of names.entries()) zip.file(n, await scenePng(64, 48, i * 40));
  return zip.generateAsync({ type: 'nodebuffer' });
}

/** Reserve, PUT and start an import through the API with `token`, as a script or another person's browser would. */
async function importAs(page: Page, token: string, projectId: string, filename: string, bytes: Buffer) {
  const auth = { authorization: `Bearer ${token}` };
  const created = await page.request.post(`/api/v1/projects/${projectId}/imports`, { headers: auth, data: { filename, size: bytes.length } });
  expect(created.status(), await created.text()).toBe(201);
  const { import_id, upload_url, content_type } = await created.json();
  expect((await page.request.put(upload_url, { headers: { 'content-type': content_type }, data: bytes })).status()).toBe(200);
  expect((await page.request.post(`/api/v1/imports/${import_id}/start`, { headers: auth })).status()).toBe(202);
}

test('import refresh: imports by another person, in another tab and in this tab show in the grid and counts without a reload', async ({ page }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const project = await editorProject(page, { classes: [{ name: 'boat', type: 'box', color: '#F07575' }] });
  const tiles = page.getByTestId('image-tile');
  const dataTab = page.getByRole('tab', { name: /Data/ });
  await expect(tiles).toHaveCount(0);
  await expect(dataTab).toContainText('0');
  // Marks this document: a reload would lose it.
  await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

  // Another person (an annotator of the organization) imports two images through the API.
  const ada = await member(page, project, 'Ada Lovelace');
  await importAs(page, ada.session.access_token, project.projectId, 'harbour.zip', await cocoZip(['quay.png', 'pier.png']));
  await expect(tiles).toHaveCount(2, { timeout: 30_000 });
  await expect(dataTab).toContainText('2');
  await expect(page.getByRole('button', { name: 'quay.png', exact: true })).toBeVisible();
  await page.screenshot({ path: 'test-results/shots/import-refresh-other-person.png' });

  // The owner in a second tab runs an import from its Import dialog: that tab and the first one show it.
  const second = await page.context().newPage();
  await second.goto(page.url());
  await expect(second.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
  await second.getByRole('button', { name: 'Import', exact: true }).click();
  const dialog = second.getByRole('dialog', { name: 'Import Dataset' });
  await dialog.getByTestId('import-file-input').setInputFiles({ name: 'dock.zip', mimeType: 'application/zip', buffer: await cocoZip(['dock.png']) });
  await dialog.getByRole('button', { name: 'Import', exact: true }).click();
  await expect(dialog.getByTestId('import-report')).toBeVisible({ timeout: 60_000 });
  await dialog.getByRole('button', { name: 'Done' }).click();
  // The tab that ran it and the owner's first tab both show the third image.
  await expect(second.getByTestId('image-tile')).toHaveCount(3);
  await expect(tiles).toHaveCount(3, { timeout: 30_000 });
  await expect(dataTab).toContainText('3');
  expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  await page.screenshot({ path: 'test-results/shots/import-refresh-other-tab.png' });
});
