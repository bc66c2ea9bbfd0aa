import { expect, test, type Page } from '@playwright/test';
import { createProject, signUpWithOrganization, uniqueUser } from './helpers';

async function openNewProject(page: Page, prefix: string) {
  const user = uniqueUser(prefix);
  await signUpWithOrganization(page, user, `Classes Org ${user.id}`);
  await createProject(page, 'Traffic');
  await page.getByRole('button', { name: 'Open project Traffic' }).click();
  await expect(page.getByRole('heading', { name: 'Traffic', level: 1 })).toBeVisible();
}

test('classes: add, rename inline, duplicate, recolour, refuse a duplicate name, delete after confirmation', async ({ page }) => {
  await openNewProject(page, 'classes');
  await page.getByRole('tab', { name: /Classes/ }).click();
  await expect(page.getByText('No classes yet')).toBeVisible();

  // Add: the button stays disabled for blanks; Enter confirms.
  await page.getByRole('button', { name: 'Add Class' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Add Class' });
  await expect(dialog.getByRole('radio', { name: /^Colour #/ })).toHaveCount(15);
  // The first class of a project is offered the palette's first colour (DESIGN.md).
  await expect(dialog.getByRole('radio', { name: 'Colour #F07575' })).toHaveAttribute('aria-checked', 'true');
  await dialog.getByLabel('Class name').fill('   ');
  await expect(dialog.getByRole('button', { name: 'Add Class' })).toBeDisabled();
  await dialog.getByLabel('Class name').fill('Car');
  // Every tool is checked at first (issue 33): Car is made a polygon-only class.
  for (const tool of ['Box', 'Polyline', 'Keypoint', 'Mask']) await dialog.getByRole('checkbox', { name: tool, exact: true }).uncheck();
  await expect(dialog.getByRole('checkbox', { name: 'Polygon', exact: true })).toBeChecked();
  await dialog.getByRole('radio', { name: 'Colour #ACCAF6' }).click();
  await dialog.getByLabel('Class name').press('Enter');
  await expect(dialog).toBeHidden();
  const rows = page.getByTestId('class-row');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('Car');
  await expect(rows.first()).toContainText('Polygon');
  await expect(rows.first()).toContainText('#ACCAF6');

  // Escape cancels the dialog.
  await page.getByRole('button', { name: 'Add Class' }).first().click();
  await dialog.getByLabel('Class name').fill('Ghost');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(rows).toHaveCount(1);

  // A second class, then a name the server refuses as a duplicate: its message shows in the dialog.
  await page.getByRole('button', { name: 'Add Class' }).first().click();
  await dialog.getByLabel('Class name').fill('car');
  await dialog.getByRole('button', { name: 'Add Class' }).click();
  await expect(dialog.getByRole('alert')).toContainText(/unique|exists|already/i);
  await dialog.getByLabel('Class name').fill('Person');
  await dialog.getByRole('button', { name: 'Add Class' }).click();
  await expect(dialog).toBeHidden();
  await expect(rows).toHaveCount(2);

  // Rename inline: Escape cancels, an empty name cancels, Enter commits.
  await page.getByRole('button', { name: 'Rename Car' }).click();
  const input = page.getByLabel('Rename class Car');
  await input.fill('Truck');
  await input.press('Escape');
  await expect(rows.first()).toContainText('Car');
  await page.getByRole('button', { name: 'Rename Car' }).click();
  await input.fill('   ');
  await input.press('Enter');
  await expect(rows.first()).toContainText('Car');
  await page.getByRole('button', { name: 'Rename Car' }).click();
  await input.fill('Vehicle');
  await input.press('Enter');
  await expect(rows.first()).toContainText('Vehicle');

  // Renaming onto an existing name is refused by the server: rolled back with its message.
  await page.getByRole('button', { name: 'Rename Person' }).click();
  await page.getByLabel('Rename class Person').fill('Vehicle');
  await page.getByLabel('Rename class Person').press('Enter');
  await expect(page.getByText(/unique|exists|already/i).last()).toBeVisible();
  await expect(rows.nth(1)).toContainText('Person');

  // Duplicate: ' copy', then ' copy 2', each with another colour than the original.
  await page.getByRole('button', { name: 'Duplicate Vehicle' }).click();
  await expect(rows.nth(1)).toContainText('Vehicle copy');
  await expect(rows.nth(1)).not.toContainText('#ACCAF6');
  await page.getByRole('button', { name: 'Duplicate Vehicle', exact: true }).click();
  await expect(rows.nth(1)).toContainText('Vehicle copy 2');
  await expect(rows).toHaveCount(4);

  // Recolour from the swatch menu.
  await page.getByRole('button', { name: 'Change colour of Person' }).click();
  await page.getByRole('menuitem', { name: 'Colour #F0D775' }).click();
  await expect(rows.last()).toContainText('#F0D775');

  // Delete after confirmation; everything survives a reload.
  await page.getByRole('button', { name: 'Delete Vehicle copy 2' }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete class?' });
  await confirm.getByRole('button', { name: 'Delete Class' }).click();
  await expect(confirm).toBeHidden();
  await expect(rows).toHaveCount(3);

  // Blur commits a rename as Enter does.
  await page.getByRole('button', { name: 'Rename Person' }).click();
  await page.getByLabel('Rename class Person').fill('Pedestrian');
  await page.getByRole('heading', { name: 'Traffic', level: 1 }).click();
  await expect(rows.nth(2)).toContainText('Pedestrian');
  await page.reload();
  await page.getByRole('tab', { name: /Classes/ }).click();
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(0)).toContainText('Vehicle');
  await expect(rows.nth(1)).toContainText('Vehicle copy');
  await expect(rows.nth(2)).toContainText('#F0D775');
  await expect(rows.nth(2)).toContainText('Pedestrian');
});
