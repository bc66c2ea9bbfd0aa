// Reviewing a model's predictions (issue 34 §3), in the editor and the Data tab. Pending
// predictions are saved through the API (annotations with `source: {model_id, score, pending:
// true}`, as a pre-label job saves them); the Data tab badges the image and filters by them; the
// editor counts them, hides those under the score slider, steps through them with Alt+↓, accepts
// with Enter, rejects with Delete, and Accept all / Reject all (which asks first when more than a
// few go); a reload shows what was saved. Also the 1440 x 900 screenshots of both.
import { randomUUID } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { annotationRows as rows, apiCall, canvasBox, drawnImageRect, editorProject, loadSaved, openFromDataTab, pixelAt, waitUntilSaved } from './editor-helpers';

const CLASSES = [{ name: 'car', type: 'box' as const, color: '#FFADAD' }];

test('pending predictions: Data tab badge and filter; the editor counts, hides by score, steps, accepts, rejects; a reload shows the result', async ({ page }) => {
  test.setTimeout(240_000);
  const project = await editorProject(page, { classes: CLASSES, images: [{ name: 'street_1.png' }, { name: 'street_2.png' }], open: false });
  const image = project.images.find((i) => i.filename === 'street_1.png')!;
  const box = (x: number, score: number | null) => ({
    id: randomUUID(),
    name: 'car',
    bounding_box: { x, y: 260, w: 80, h: 60 },
    ...(score === null ? {} : { source: { model_id: 'builtin-coco', score, pending: true } }),
  });
  const mine = { ...box(20, null), bounding_box: { x: 20, y: 20, w: 100, h: 80 } };
  // Saved oldest first: the list (newest first) reads 0.95, 0.85, 0.75, 0.55, 0.35, 0.25.
  const scores = [0.25, 0.35, 0.55, 0.75, 0.85, 0.95];
  const predictions = scores.map((s, i) => box(150 + (5 - i) * 100, s));
  const byScore = (s: number) => predictions[scores.indexOf(s)]!;
  const saved = await apiCall(page, 'POST', '/annotations/save-data', { image_id: image.id, project_id: project.projectId, image_filename: image.filename, annotations: [mine, ...predictions], base_version: 0 });
  expect(saved.status).toBe(200);

  // The Data tab: a badge on the image with pending predictions, and the filter.
  await page.goto(`/projects/${project.projectId}/data`);
  await expect(page.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
  const tile = (name: string) => page.getByTestId('image-tile').filter({ hasText: name });
  await expect(tile('street_1.png').getByTestId('tile-predictions')).toHaveText('6');
  await expect(tile('street_1.png').getByTestId('tile-predictions')).toHaveAttribute('aria-label', '6 pending predictions');
  await expect(tile('street_2.png').getByTestId('tile-predictions')).toHaveCount(0);
  await page.screenshot({ path: 'test-results/shots/predictions-data-tab.png' });
  const filter = page.getByRole('group', { name: 'Has pending predictions' });
  await filter.getByRole('button', { name: 'Pending', exact: true }).click();
  await expect(page.getByTestId('image-tile')).toHaveCount(1);
  await expect(tile('street_1.png')).toBeVisible();
  expect(new URL(page.url()).searchParams.get('pending')).toBe('yes');
  await filter.getByRole('button', { name: 'None', exact: true }).click();
  await expect(page.getByTestId('image-tile')).toHaveCount(1);
  await expect(tile('street_2.png')).toBeVisible();
  await page.getByRole('button', { name: 'Remove filter No pending predictions' }).click();
  await expect(page.getByTestId('image-tile')).toHaveCount(2);

  // The editor: the count, the dashed shapes with their scores, the list's tags.
  await openFromDataTab(page, 'street_1.png');
  const bar = page.getByRole('region', { name: 'Predictions' });
  await expect(bar.getByTestId('predictions-pending')).toHaveText('6 predictions pending');
  await expect(rows(page)).toHaveCount(7);
  await expect(rows(page).first()).toContainText('pending 0.95');
  // At fit zoom the bar sits above the image's top edge: the fit keeps its room (issue 34).
  const barBottom = async () => {
    const b = (await bar.boundingBox())!;
    return b.y + b.height;
  };
  await expect.poll(async () => (await drawnImageRect(page)).top - (await barBottom())).toBeGreaterThanOrEqual(0);
  await page.screenshot({ path: 'test-results/shots/predictions-editor.png' });

  // The slider hides those under 0.5: 4 shown (the count and Accept all say so).
  await bar.getByRole('slider', { name: 'Minimum score of the predictions shown' }).fill('0.5');
  await expect(bar).toContainText('4 shown');
  await expect(bar.getByRole('button', { name: 'Accept all (4)' })).toBeVisible();
  await expect(rows(page).filter({ hasText: 'pending 0.35' })).toHaveAttribute('data-hidden', 'true');
  // On the canvas the 0.25 box (650..730 x 260..320) is gone: its middle is the background, as below it; the 0.95 box (150..230) is drawn.
  const img = await drawnImageRect(page);
  const at = (x: number, y: number) => [img.left + (x * (img.right - img.left)) / 800, img.top + (y * (img.bottom - img.top)) / 600] as const;
  const sameAsBelow = async (x: number) => {
    const [inside, below] = [await pixelAt(page, ...at(x, 290)), await pixelAt(page, ...at(x, 345))];
    return inside.every((v, i) => Math.abs(v - below[i]!) < 6);
  };
  await expect.poll(() => sameAsBelow(690)).toBe(true);
  expect(await sameAsBelow(190)).toBe(false);
  await page.screenshot({ path: 'test-results/shots/predictions-editor-min-score.png' });

  // Alt+↓ selects the first shown (0.95); Enter accepts it and selects 0.85; Delete rejects that one.
  const canvas = await canvasBox(page);
  await page.mouse.click(canvas.x + 8, canvas.y + 8); // the canvas has the keys (an empty spot)
  await page.keyboard.press('Alt+ArrowDown');
  await expect(rows(page).filter({ hasText: 'pending 0.95' })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');
  await expect(rows(page).filter({ hasText: 'model 0.95' })).toHaveCount(1);
  await expect(rows(page).filter({ hasText: 'pending 0.85' })).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Delete');
  await expect(rows(page)).toHaveCount(6);
  await expect(rows(page).filter({ hasText: '0.85' })).toHaveCount(0);
  await expect(rows(page).filter({ hasText: 'pending 0.75' })).toHaveAttribute('aria-selected', 'true');
  await expect(bar.getByTestId('predictions-pending')).toHaveText('4 predictions pending');

  // Reject all asks first (4 would go, those the score hides too); Cancel keeps them.
  await bar.getByRole('button', { name: 'Reject all (4)' }).click();
  const confirm = page.getByRole('dialog', { name: 'Reject all predictions?' });
  await expect(confirm).toContainText('All 4 pending predictions');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(rows(page)).toHaveCount(6);
  // Accept all takes the 2 shown; Reject all then deletes the 2 the score hides, without asking.
  await bar.getByRole('button', { name: 'Accept all (2)' }).click();
  await expect(rows(page).filter({ hasText: /^.*model 0\.(75|55).*$/ })).toHaveCount(2);
  await bar.getByRole('button', { name: 'Reject all (2)' }).click();
  await expect(bar).toBeHidden();
  await expect(rows(page)).toHaveCount(4);
  await waitUntilSaved(page);

  const check = async () => {
    const { annotations } = await loadSaved(page, project, image.id);
    const sources = Object.fromEntries(annotations.map((a: { id: string; source?: unknown }) => [a.id, a.source ?? null]));
    expect(sources).toEqual({
      [mine.id]: null,
      [byScore(0.95).id]: { model_id: 'builtin-coco', score: 0.95, pending: false },
      [byScore(0.75).id]: { model_id: 'builtin-coco', score: 0.75, pending: false },
      [byScore(0.55).id]: { model_id: 'builtin-coco', score: 0.55, pending: false },
    });
  };
  await check();
  await page.reload();
  await expect(rows(page)).toHaveCount(4);
  await expect(rows(page).filter({ hasText: 'model 0.' })).toHaveCount(3);
  await expect(page.getByRole('region', { name: 'Predictions' })).toHaveCount(0);
  await check();

  // Back in the Data tab the badge is gone.
  await page.getByRole('button', { name: 'Back', exact: true }).click();
  await expect(tile('street_1.png')).toBeVisible();
  await expect(tile('street_1.png').getByTestId('tile-predictions')).toHaveCount(0);
});
