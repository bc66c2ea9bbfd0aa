// Import a COCO zip through the project's Import dialog (issue 17): choose the file, watch it run,
// read the report, then open an imported image in the editor and see its shapes.
import { expect, test } from '@playwright/test';
import JSZip from 'jszip';
import sharp from 'sharp';
import { editorProject, openEditorImage, runnerApi } from './editor-helpers';

const png = (r: number, g: number, b: number) => sharp({ create: { width: 320, height: 240, channels: 3, background: { r, g, b } } }).png().toBuffer();

async function cocoZip(): Promise<Buffer> {
  const coco = {
    images: [
      { id: 1, file_name: 'harbour.png', width: 320, height: 240 },
      { id: 2, file_name: 'meadow.png', width: 320, height: 240 },
      { id: 3, file_name: 'missing.png', width: 320, height: 240 },
    ],
    categories: [
      { id: 1, name: 'boat' },
      { id: 2, name: 'pier' },
    ],
    annotations: [
      { id: 1, image_id: 1, category_id: 1, bbox: [20, 30, 80, 40], area: 3200, iscrowd: 0 },
      { id: 2, image_id: 1, category_id: 1, bbox: [150, 60, 60, 30], area: 1800, iscrowd: 0 },
      { id: 3, image_id: 1, category_id: 2, segmentation: [[10, 200, 300, 200, 300, 230, 10, 230]], bbox: [10, 200, 290, 30], area: 8700, iscrowd: 0 },
      { id: 4, image_id: 2, category_id: 1, bbox: [100, 100, 50, 50], area: 2500, iscrowd: 0 },
    ],
  };
  const zip = new JSZip();
  zip.file('annotations/instances_default.json', JSON.stringify(coco));
  zip.file('images/default/harbour.png', await png(40, 90, 160));
  zip.file('images/default/meadow.png', await png(60, 150, 60));
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

test('import: a COCO zip through the dialog, its report, then its shapes in the editor', async ({ page }) => {
  test.setTimeout(120_000);
  // An empty project made through the API, the app loaded straight on it (creating a project has tests of its own).
  await editorProject(page, { name: 'Harbours' });

  await page.getByRole('button', { name: 'Import', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Import Dataset' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Import', exact: true })).toBeDisabled();
  await dialog.getByTestId('import-file-input').setInputFiles({ name: 'harbours.zip', mimeType: 'application/zip', buffer: await cocoZip() });
  await expect(dialog.getByTestId('import-file-name')).toContainText('harbours.zip');
  await expect(dialog.getByRole('radio', { name: /Detect/ })).toBeChecked();
  await page.screenshot({ path: test.info().outputPath('import-dialog.png') });
  await dialog.getByRole('button', { name: 'Import', exact: true }).click();

  const report = dialog.getByTestId('import-report');
  await expect(report).toBeVisible({ timeout: 60_000 });
  await expect(report).toContainText('Imported harbours.zip (COCO)');
  await expect(report.getByText('Images added').locator('..')).toContainText('2');
  await expect(report.getByText('Annotations', { exact: true }).locator('..')).toContainText('4');
  await expect(report).toContainText('New classes: boat, pier');
  await expect(report.getByRole('region', { name: 'Skipped' })).toContainText('missing.png');
  await page.screenshot({ path: test.info().outputPath('import-report.png') });
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(dialog).toBeHidden();

  // Opened again (as after a reload), the dialog lists the import and shows its report again.
  await page.reload();
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  const recent = dialog.getByRole('region', { name: 'Recent imports' });
  await expect(recent).toContainText('harbours.zip');
  await expect(recent).toContainText('2 images, 4 annotations');
  await page.screenshot({ path: test.info().outputPath('import-recent.png') });
  await recent.getByRole('button', { name: /harbours\.zip/ }).click();
  await expect(dialog.getByTestId('import-report')).toContainText('Imported harbours.zip (COCO)');
  await dialog.getByRole('button', { name: 'Done' }).click();

  // The split's images land in a folder named after it.
  await page.getByRole('button', { name: 'Open folder default' }).click();
  await expect(page.getByTestId('image-tile')).toHaveCount(2);
  await openEditorImage(page, 'harbour.png');
  const list = page.getByRole('listbox', { name: 'Annotation list' });
  await expect(list.getByRole('option')).toHaveCount(3);
  await expect(list).toContainText('boat');
  await expect(list).toContainText('pier');
});

test('import: Cancel import, from the keyboard, says Cancelling... until the import has stopped, then reports exactly what it added', async ({ page }) => {
  test.setTimeout(180_000);
  // An empty project made through the API, the app loaded straight on it (creating a project has tests of its own).
  const { projectId } = await editorProject(page, { name: 'Frames' });

  // Enough images that the import is still running when Cancel is pressed.
  const zip = new JSZip();
  zip.file('data.yaml', 'names:\n  - car\n');
  for (let i = 0; i < 150; i++) {
    const name = `frame_${String(i).padStart(3, '0')}`;
    zip.file(`images/${name}.png`, await png(i % 255, 90, 160));
    zip.file(`labels/${name}.txt`, '0 0.5 0.5 0.2 0.2\n');
  }
  const bytes = await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });

  await page.getByRole('button', { name: 'Import', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Import Dataset' });
  await dialog.getByTestId('import-file-input').setInputFiles({ name: 'frames.zip', mimeType: 'application/zip', buffer: bytes });
  await dialog.getByRole('button', { name: 'Import', exact: true }).click();
  const cancel = dialog.getByTestId('import-cancel');
  const progress = dialog.getByTestId('import-progress');
  // Running (not only queued): a running import has images in flight when it is asked to stop.
  await expect(progress).toContainText('Importing image', { timeout: 60_000 });
  await expect(cancel).toHaveAccessibleName('Cancel import');
  await page.screenshot({ path: test.info().outputPath('import-running.png') });

  // The dialog's polls of the import wait while the test looks at the Cancelling state (the cancel
  // answer puts it there; the server may meanwhile end the import), then go through.
  const held: (() => Promise<void>)[] = [];
  let holding = true;
  const poll = /\/api\/v1\/imports\/[0-9a-f-]{36}$/;
  await page.route(poll, (route) => void (holding && route.request().method() === 'GET' ? held.push(() => route.continue()) : route.continue()));
  let cancels = 0;
  page.on('request', (req) => void (req.method() === 'POST' && req.url().endsWith('/cancel') && (cancels += 1)));
  await cancel.focus();
  await page.keyboard.press('Enter');
  await expect(cancel).toHaveAccessibleName('Cancelling...');
  await expect(cancel).toHaveAttribute('aria-disabled', 'true');
  await expect(cancel).toBeFocused();
  await expect(progress).toHaveAttribute('aria-live', 'polite');
  await expect(progress).toContainText('Cancelling... finishing the images in progress');
  await page.screenshot({ path: test.info().outputPath('import-cancelling.png') });
  await page.setViewportSize({ width: 320, height: 700 });
  await expect(cancel).toBeInViewport();
  await page.screenshot({ path: test.info().outputPath('import-cancelling-320.png') });
  await page.setViewportSize({ width: 1440, height: 900 });
  // Pressed again while it stops: nothing more is asked (counted below, once the report is in).
  await page.keyboard.press('Enter');
  holding = false;
  for (const go of held.splice(0)) await go();
  await page.unroute(poll);

  const report = dialog.getByTestId('import-report');
  await expect(report).toBeVisible({ timeout: 60_000 });
  await expect(report).toContainText('The import of frames.zip was cancelled');
  await expect(dialog.getByRole('button', { name: 'Done' })).toBeFocused();
  expect(cancels).toBe(1);
  await page.screenshot({ path: test.info().outputPath('import-cancelled.png') });
  const added = Number((await report.getByText('Images added').locator('..').locator('dd').textContent())?.replace(/\D/g, ''));
  expect(added).toBeGreaterThan(0);
  expect(added).toBeLessThan(150);
  await dialog.getByRole('button', { name: 'Done' }).click();
  await expect(dialog).toBeHidden();
  // The report is what the project holds: the Data tab shows as many images, and the import added none after it.
  await expect(page.getByTestId('image-tile')).toHaveCount(added, { timeout: 30_000 });
  const listed = await runnerApi(page, 'GET', `/projects/${projectId}/images?page_size=200`);
  expect(listed.body.images).toHaveLength(added);
});
