// Classes for every tool (issue 33 §3): in the Classes tab a box class is widened to the polygon
// tool, classes are added from a pasted list, the Add Class dialog offers the tools, any hex colour
// and a skeleton started from the COCO person (screenshots at 1440x900); in the editor one class
// is drawn as a box and as a polygon, key 1 picks it with either tool, and both shapes are saved
// under it.
import { expect, test, type Page } from '@playwright/test';
import { annotationRows as rows, apiCall, canvasBox, dragOnCanvas, editorProject, loadSaved, openFromDataTab, waitUntilSaved } from './editor-helpers';

const CLASSES = [
  { name: 'person', type: 'box' as const, color: '#F07575' },
  { name: 'road', type: 'polygon' as const, color: '#ACF6E7' },
];

async function click(page: Page, x: number, y: number) {
  const b = await canvasBox(page);
  await page.mouse.click(b.x + x, b.y + y);
}

test('one class drawn as a box and as a polygon, after widening it in the Classes tab', async ({ page }) => {
  test.setTimeout(180_000);
  const project = await editorProject(page, { classes: CLASSES, images: [{ name: 'crowd_1.png' }] });

  // Classes tab: person is a box class (migrated form); its tools menu widens it to polygons.
  await page.getByRole('tab', { name: /Classes/ }).click();
  const toolsOfPerson = page.getByRole('button', { name: /^Tools for person:/ });
  await expect(toolsOfPerson).toHaveAccessibleName('Tools for person: Box');
  await expect(page.getByRole('button', { name: /^Tools for road:/ })).toHaveAccessibleName('Tools for road: Polygon, Mask');
  await toolsOfPerson.click();
  await page.getByRole('menuitemcheckbox', { name: 'Polygon' }).click();
  await page.keyboard.press('Escape');
  await expect(toolsOfPerson).toHaveAccessibleName('Tools for person: Box, Polygon');

  // Add from List: pasted names, the one the project has set apart.
  await page.getByRole('button', { name: 'Add from List' }).click();
  const bulk = page.getByRole('dialog', { name: 'Add Classes from a List' });
  await bulk.getByLabel('Class names, one a line').fill('bicycle\ncar\n\nPerson\ncar\n');
  await expect(bulk.getByText('2 new classes; 1 the project has already (left as they are)')).toBeVisible();
  await page.screenshot({ path: 'test-results/shots/classes-add-from-list.png' });
  await bulk.getByRole('button', { name: 'Add 2 Classes' }).click();
  await expect(bulk).toBeHidden();
  await expect(page.getByTestId('class-row')).toHaveCount(4);
  await expect(page.getByRole('button', { name: 'Tools for car: Any tool' })).toBeVisible();

  // Add Class: every tool checked at first, any hex colour, and a skeleton from the COCO person.
  await page.getByRole('button', { name: 'Add Class', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Add Class' });
  for (const tool of ['Box', 'Polygon', 'Polyline', 'Keypoint', 'Mask']) await expect(dialog.getByRole('checkbox', { name: tool })).toBeChecked();
  await dialog.getByLabel('Class name').fill('pedestrian');
  await dialog.getByRole('checkbox', { name: 'Polyline' }).uncheck();
  await dialog.getByLabel('Class colour as hex').fill('#1A2B3C');
  await page.screenshot({ path: 'test-results/shots/classes-add-dialog-tools.png' });
  await dialog.getByRole('radio', { name: 'Keypoint skeleton' }).check();
  await dialog.getByRole('button', { name: 'Start from the COCO person skeleton' }).click();
  await expect(dialog.getByLabel('Points, one a line, in order')).toHaveValue(/^nose\nleft_eye\n/);
  await page.screenshot({ path: 'test-results/shots/classes-add-dialog-skeleton.png' });
  await dialog.getByRole('button', { name: 'Add Class' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText('Skeleton (17 points)')).toBeVisible();
  const stored = (await apiCall(page, 'GET', `/projects/${project.projectId}`)).body.project.classes.find((c: { name: string }) => c.name === 'pedestrian');
  expect(stored).toMatchObject({ name: 'pedestrian', color: '#1A2B3C', kind: 'skeleton', skeleton: { points: expect.arrayContaining(['nose', 'right_ankle']) } });
  expect(stored.skeleton.edges).toHaveLength(19);

  // The editor: key 1 is person with the box tool and with the polygon tool.
  await page.getByRole('tab', { name: /Data/ }).click();
  await openFromDataTab(page, 'crowd_1.png');
  await page.keyboard.press('r');
  await page.keyboard.press('1');
  await expect(page.getByRole('button', { name: 'Class: person' })).toBeVisible();
  await dragOnCanvas(page, [200, 200], [360, 340]);
  await expect(rows(page)).toHaveCount(1);
  await page.keyboard.press('Escape');
  await page.keyboard.press('p');
  await page.keyboard.press('2');
  await expect(page.getByRole('button', { name: 'Class: road' })).toBeVisible();
  await page.keyboard.press('1');
  await expect(page.getByRole('button', { name: 'Class: person' })).toBeVisible();
  // The polygon tool's picker lists the classes it may draw, each with its project key.
  await page.getByRole('button', { name: 'Class: person' }).click();
  await expect(page.getByRole('menuitem', { name: 'road' })).toHaveAttribute('aria-keyshortcuts', '2');
  await expect(page.getByRole('menuitem', { name: 'pedestrian' })).toHaveCount(0);
  await page.keyboard.press('Escape');
  await click(page, 500, 200);
  await click(page, 650, 220);
  await click(page, 600, 380);
  await click(page, 500, 200);
  await expect(rows(page)).toHaveCount(2);
  await expect(rows(page).nth(0)).toContainText('person');
  await expect(rows(page).nth(1)).toContainText('person');
  await waitUntilSaved(page);

  const saved = await loadSaved(page, project, project.images[0]!.id);
  const kinds = saved.annotations.map((a) => [a.name, a.polygon ? 'polygon' : 'box']).sort();
  expect(kinds).toEqual([['person', 'box'], ['person', 'polygon']]);
});
