// Issue 30, finding 4, in the browser: a shape whose stored attribute value its class refuses (saved
// while the class had no definitions, here an object without a usable toString) blanked the whole
// editor when selected. Now the panel shows the value and says it is not an option, and the
// canvas, the list and the panel stay.
import { expect, test } from '@playwright/test';
import { annotationRows, apiCall, editorProject, openEditorImage } from './editor-helpers';

test('a stored value its class refuses shows in the Attributes panel and the editor stays', async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const car = { name: 'car', type: 'box' as const, color: '#F07575' };
  const project = await editorProject(page, { classes: [car], images: [{ name: 'lot.png' }] });
  const img = project.images[0]!;
  // Saved while car had no definitions: free-form attributes.
  const saved = await apiCall(page, 'POST', '/annotations/save-data', {
    image_id: img.id,
    project_id: project.projectId,
    image_filename: 'lot.png',
    annotations: [{ id: 'odd', name: 'car', bounding_box: { x: 200, y: 150, w: 180, h: 120 }, attributes: [{ name: 'colour', value: { toString: 1 } }, { name: 'doors', value: 'four' }] }],
  });
  expect(saved.status).toBe(200);
  // Then car gains definitions the stored values do not fit.
  const classes = [{ ...car, attributes: [{ name: 'colour', kind: 'select', options: ['red', 'blue'], default: 'red' }, { name: 'doors', kind: 'number' }] }];
  expect((await apiCall(page, 'PATCH', `/projects/${project.projectId}`, { classes })).status).toBe(200);

  await openEditorImage(page, 'lot.png');
  await expect(annotationRows(page)).toHaveCount(1);
  await annotationRows(page).first().click();
  const panel = page.getByTestId('attributes-panel');
  await expect(panel).toBeVisible();
  await expect(panel.getByLabel('colour')).toHaveValue('{"toString":1}');
  await expect(panel.getByLabel('colour').locator('option:checked')).toHaveText('{"toString":1} (not an option)');
  await expect(panel.getByText('Saved value: four (must be a number)')).toBeVisible();
  await expect(page.getByTestId('error-boundary')).toHaveCount(0);
  await expect(page.getByRole('img', { name: 'Image lot.png' }).or(page.locator('canvas').first())).toBeVisible();
  await page.screenshot({ path: 'test-results/shots/attributes-odd-values.png' });
  // A value chosen now replaces it and saves.
  await panel.getByLabel('colour').selectOption('blue');
  await expect(panel.getByLabel('colour')).toHaveValue('blue');
});
