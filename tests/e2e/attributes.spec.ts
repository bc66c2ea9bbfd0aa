// Class attributes end to end (issue 19): define them on the Classes tab, draw a shape in the
// editor (it starts with the defaults), edit them in the Attributes panel, find them saved after
// a reload and in the downloaded Vellum and COCO exports.
import fs from 'node:fs';
import JSZip from 'jszip';
import { expect, test, type Page } from '@playwright/test';
import { apiCall, drawBox, editorProject, loadSaved, openFromDataTab } from './editor-helpers';

const rows = (page: Page) => page.getByRole('listbox', { name: 'Annotation list' }).getByRole('option');

async function exportJson(page: Page, format: 'Vellum' | 'COCO') {
  await page.getByRole('button', { name: /^Export \(\d+\)$/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Export Dataset' });
  await dialog.getByText('Current filters').click();
  await dialog.getByText(format, { exact: true }).click();
  const downloading = page.waitForEvent('download');
  await dialog.getByRole('button', { name: 'Export', exact: true }).click();
  const download = await downloading;
  await expect(dialog).toBeHidden();
  return JSZip.loadAsync(fs.readFileSync((await download.path())!));
}

test('attributes: defined on the Classes tab, edited in the editor panel, saved and exported', async ({ page }) => {
  test.setTimeout(150_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const project = await editorProject(page, { classes: [{ name: 'car', type: 'box', color: '#F07575' }], images: [{ name: 'lot.png' }] });

  // Classes tab: the car class has no attributes; add a select and a checkbox.
  await page.getByRole('tab', { name: /Classes/ }).click();
  await page.getByRole('button', { name: 'Attributes of car: No attributes' }).click();
  const dialog = page.getByRole('dialog', { name: 'Attributes of car' });
  await expect(dialog.getByText('No attributes yet')).toBeVisible();
  await dialog.getByRole('button', { name: 'Add Attribute' }).first().click();
  const defs = dialog.getByTestId('attribute-definition');
  await expect(defs).toHaveCount(1);
  // The new attribute's name field takes the focus.
  await expect(defs.nth(0).getByLabel('Attribute name')).toBeFocused();
  await page.keyboard.type('colour');
  await defs.nth(0).getByLabel('Kind').selectOption('select');
  const option = defs.nth(0).getByRole('textbox', { name: 'Options', exact: true });
  // Enter adds an option (it does not submit the dialog).
  await option.fill('red');
  await option.press('Enter');
  await option.fill('blue');
  await option.press('Enter');
  await option.fill('green');
  await option.press('Enter');
  await expect(dialog).toBeVisible();
  await expect(defs.nth(0).getByRole('list', { name: 'Options of colour' }).getByRole('listitem')).toHaveText(['red', 'blue', 'green']);
  await defs.nth(0).getByRole('button', { name: 'Remove option green' }).click();
  await defs.nth(0).getByLabel('Default').selectOption('blue');

  await dialog.getByRole('button', { name: 'Add Attribute' }).click();
  await expect(defs).toHaveCount(2);
  await defs.nth(1).getByLabel('Attribute name').fill('occluded');
  await expect(defs.nth(1).getByLabel('Kind')).toHaveValue('checkbox');

  // A third, left without a name, is refused with the schema's message, then removed.
  await dialog.getByRole('button', { name: 'Add Attribute' }).click();
  await dialog.getByRole('button', { name: 'Save Attributes' }).click();
  await expect(defs.nth(2).getByRole('alert')).toHaveText('Attribute name is required');
  await page.screenshot({ path: 'test-results/attributes-classes-dialog.png' });
  await defs.nth(2).getByRole('button', { name: 'Remove attribute attribute 3' }).click();
  await dialog.getByRole('button', { name: 'Save Attributes' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('button', { name: 'Attributes of car: 2 attributes' })).toBeVisible();
  await page.screenshot({ path: 'test-results/attributes-classes-tab.png' });
  const stored = await apiCall(page, 'GET', `/projects/${project.projectId}`);
  expect(stored.body.project.classes[0].attributes).toEqual([
    { name: 'colour', kind: 'select', options: ['red', 'blue'], default: 'blue' },
    { name: 'occluded', kind: 'checkbox', default: false },
  ]);

  // The editor: a new box starts with the defaults, shown in the panel.
  const img = project.images[0]!;
  // From the Data tab's tile (the app is not loaded again).
  await page.getByRole('tab', { name: /Data/ }).click();
  await openFromDataTab(page, 'lot.png');
  await drawBox(page, [200, 180], [330, 280]);
  await expect(rows(page)).toHaveCount(1);
  await page.keyboard.press('q');
  await rows(page).first().click();
  const panel = page.getByTestId('attributes-panel');
  await expect(panel).toBeVisible();
  await expect(panel.getByLabel('colour')).toHaveValue('blue');
  await expect(panel.getByLabel('occluded')).not.toBeChecked();
  await expect.poll(async () => (await loadSaved(page, project, img.id)).annotations[0]?.attributes, { timeout: 20_000 }).toEqual([
    { name: 'colour', value: 'blue' },
    { name: 'occluded', value: false },
  ]);

  // Edit both; each change is one undo step.
  await panel.getByLabel('colour').selectOption('red');
  await panel.getByLabel('occluded').check();
  await expect(panel.getByLabel('occluded')).toBeChecked();
  await page.screenshot({ path: 'test-results/attributes-panel.png' });
  await panel.screenshot({ path: 'test-results/attributes-panel-close.png' });
  await expect.poll(async () => (await loadSaved(page, project, img.id)).annotations[0]?.attributes, { timeout: 20_000 }).toEqual([
    { name: 'colour', value: 'red' },
    { name: 'occluded', value: true },
  ]);

  // After a reload the panel shows the saved values.
  await page.reload();
  await expect(page.getByText('Loading image...')).toBeHidden({ timeout: 20_000 });
  await rows(page).first().click();
  await expect(panel.getByLabel('colour')).toHaveValue('red');
  await expect(panel.getByLabel('occluded')).toBeChecked();

  // Exports: Vellum keeps the entries and the definitions; COCO writes a name -> value object.
  await page.getByRole('button', { name: 'Back', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
  const vellum = await exportJson(page, 'Vellum');
  const docPath = Object.keys(vellum.files).find((p) => p.endsWith('lot.png.json'))!;
  const doc = JSON.parse(await vellum.file(docPath)!.async('string'));
  expect(doc.annotations[0].attributes).toEqual([
    { name: 'colour', value: 'red' },
    { name: 'occluded', value: true },
  ]);
  const manifest = JSON.parse(await vellum.file('vellum.json')!.async('string'));
  expect(manifest.project.classes[0].attributes.map((a: { name: string }) => a.name)).toEqual(['colour', 'occluded']);
  const coco = await exportJson(page, 'COCO');
  const annotations = JSON.parse(await coco.file('annotations.json')!.async('string')).annotations;
  expect(annotations[0].attributes).toEqual({ colour: 'red', occluded: true });

  // A second box: with both selected, values that differ show as mixed; one change sets both.
  await openFromDataTab(page, 'lot.png');
  await drawBox(page, [420, 180], [540, 280]);
  await expect(rows(page)).toHaveCount(2);
  await page.keyboard.press('q');
  await rows(page).nth(0).click();
  await rows(page).nth(1).click({ modifiers: ['Control'] });
  await expect(panel).toContainText('car · 2');
  await expect(panel.getByLabel('colour')).toHaveValue('');
  await expect(panel.getByRole('option', { name: 'Mixed' })).toHaveCount(1);
  expect(await panel.getByLabel('occluded').evaluate((el: HTMLInputElement) => el.indeterminate)).toBe(true);
  await panel.getByLabel('colour').selectOption('blue');
  await expect.poll(async () => (await loadSaved(page, project, img.id)).annotations.map((a: { attributes: unknown[] }) => a.attributes[0]), { timeout: 20_000 }).toEqual([
    { name: 'colour', value: 'blue' },
    { name: 'colour', value: 'blue' },
  ]);
  await expect(panel.getByLabel('occluded')).toHaveAttribute('aria-checked', 'mixed');
});
