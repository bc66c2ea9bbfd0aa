// The Models page (issue 34): the built-in COCO detector listed; an Ultralytics YOLO ONNX export
// uploaded from the page becomes Ready with the classes read from its metadata; another graph is
// refused with the server's reason and stays listed as Not activated; deleting it.
import { expect, test } from '@playwright/test';
import { signUpWithOrganization, uniqueUser } from './helpers';
import { sam2TestModels, yoloTestModel } from '../fixtures/onnx';

test('models: the built-in detector, a YOLO upload that becomes ready, a refused graph and its deletion', async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await signUpWithOrganization(page, uniqueUser('models'), 'Model Makers');
  await page.goto('/models');
  const list = page.getByRole('list', { name: 'Models' });
  const builtin = list.getByRole('listitem', { name: 'COCO objects (CenterNet, built-in)' });
  await expect(builtin).toBeVisible();
  await expect(builtin.getByText('Ready')).toBeVisible();
  await expect(builtin.getByText('80 classes')).toBeVisible();
  await expect(builtin.getByText(/licence MIT/)).toBeVisible();

  const add = async (name: string, file: Uint8Array) => {
    await page.getByRole('button', { name: 'Add Model' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add Model' });
    await dialog.getByLabel('Name').fill(name);
    await dialog.getByLabel('Model file').setInputFiles({ name: `${name.toLowerCase().replace(/\W+/g, '-')}.onnx`, mimeType: 'application/octet-stream', buffer: Buffer.from(file) });
    await dialog.getByRole('button', { name: 'Upload Model' }).click();
    return dialog;
  };

  const yolo = await add('Street YOLO', yoloTestModel({ names: ['person', 'bicycle', 'car'], size: 640 }));
  await expect(yolo).toBeHidden();
  const street = list.getByRole('listitem', { name: 'Street YOLO' });
  await expect(street.getByText('Ready')).toBeVisible();
  await expect(street.getByText('person, bicycle, car')).toBeVisible();
  await expect(street.getByText('input 640 x 640')).toBeVisible();
  await page.screenshot({ path: 'test-results/shots/models-list.png' });

  const refused = await add('Not a YOLO', sam2TestModels().encoder);
  await expect(refused.getByRole('alert')).toContainText('Expected an Ultralytics YOLOv5, YOLOv8 or YOLO11 detect or segment export');
  await page.screenshot({ path: 'test-results/shots/models-refused.png' });
  await refused.getByRole('button', { name: 'Cancel' }).click();
  const pending = list.getByRole('listitem', { name: 'Not a YOLO' });
  await expect(pending.getByText('Not activated')).toBeVisible();

  await pending.getByRole('button', { name: 'Delete Not a YOLO' }).click();
  await page.getByRole('dialog', { name: 'Delete model' }).getByRole('button', { name: 'Delete' }).click();
  await expect(pending).toHaveCount(0);
  await expect(street).toBeVisible();
});
