// Consensus end to end (issue 36 §3): the owner gives an image to 2 annotators in the Assign dialog
// (Annotators per image: 2); Ann and Bob each take it with Start working, each draws a box on a
// draft of their own (Bob does not see Ann's) and submits; Rita, a reviewer, sees Merge drafts on
// the image's tile and opens the merge view from the editor's top bar by keyboard, sees both layers
// and their agreement, merges, and the editor shows the merged box; the owner's Analytics tab lists
// both annotators. Screenshots at 1440 x 900 of the Assign dialog, the editor's Merge drafts and
// the merge view go to test-results/shots.
import { mkdirSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { annotationRows, apiCall, canvasBox, drawBox, drawnImageRect, editorProject, loadSaved } from './editor-helpers';
import { member, memberBrowser } from './live-helpers';

/** Where the screenshots go: SHOTS_DIR, else test-results/shots (which the next run's clean-up empties). */
const SHOTS = process.env.SHOTS_DIR ?? 'test-results/shots';
const shot = async (page: Page, name: string) => {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}/${name}.png` });
};

/**
 * Starts working in a fresh browser of the annotator, draws a box (image pixels, 800 x 600 image)
 * and submits it; the last of the two sends the image to review, the first is told it waits.
 */
async function annotate(page: Page, filename: string, from: [number, number], to: [number, number], last: boolean) {
  await page.getByRole('button', { name: 'Start working' }).click();
  await expect(page.getByRole('heading', { name: filename, level: 1 })).toBeVisible({ timeout: 20_000 });
  await expect(page.getByText('Loading image...')).toBeHidden({ timeout: 20_000 });
  // Nobody else's draft shows: the layer starts empty.
  await expect(annotationRows(page)).toHaveCount(0);
  const canvas = await canvasBox(page);
  const drawn = await drawnImageRect(page, { aspect: 4 / 3 });
  const scale = (drawn.right - drawn.left) / 800;
  const at = (x: number, y: number): [number, number] => [drawn.left - canvas.x + x * scale, drawn.top - canvas.y + y * scale];
  await drawBox(page, at(...from), at(...to));
  await expect(annotationRows(page)).toHaveCount(1);
  await page.keyboard.press('Control+Enter');
  const told = last ? `${filename} submitted for review` : `Your layer of ${filename} is handed in; it goes to review once all 2 annotators have submitted`;
  await expect(page.getByText(told)).toBeVisible({ timeout: 20_000 });
}

test('two annotators draw on their own layers of an overlap-2 image, a reviewer merges them, the analytics lists both', async ({ page, browser }) => {
  test.setTimeout(300_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const project = await editorProject(page, { classes: [{ name: 'car', type: 'box', color: '#F07575' }], images: [{ name: 'street.png' }] });
  const image = project.images[0]!;
  const ann = await member(page, project, 'Ann Annotator');
  const bob = await member(page, project, 'Bob Annotator');
  // The helper's role type lists the live tests' roles; the invite takes any role.
  const rita = await member(page, project, 'Rita Reviewer', 'reviewer' as 'annotator');

  // 1. The owner selects the image and gives it to 2 annotators per image.
  await page.reload();
  const tile = page.getByTestId('image-tile').filter({ hasText: image.filename });
  await tile.hover();
  await tile.getByRole('checkbox', { name: `Select ${image.filename}` }).click();
  await page.getByRole('button', { name: 'Assign…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Assign 1 image' });
  const perImage = dialog.getByLabel('Annotators per image');
  await expect(perImage).toHaveValue('keep');
  await perImage.selectOption('2');
  await expect(dialog.getByText(/^Each image goes to 2 different annotators/)).toBeVisible();
  // Two or more per image go through the queues: nobody is picked.
  await expect(dialog.getByRole('group', { name: 'Annotator' })).toBeHidden();
  // More than the organization's four who may annotate (the owner, Ann, Bob and Rita) is refused.
  await perImage.selectOption('5');
  await expect(dialog.getByRole('alert')).toHaveText('Only 4 members annotate in this organization: 5 different annotators per image would never all submit.');
  await expect(dialog.getByRole('button', { name: 'Assign' })).toBeDisabled();
  await perImage.selectOption('2');
  await shot(page, 'consensus-assign-dialog');
  await dialog.getByRole('button', { name: 'Assign' }).click();
  await expect(page.getByText('1 image goes to 2 annotators')).toBeVisible();
  await expect(tile.getByTestId('tile-overlap')).toHaveAttribute('aria-label', '2 annotators');
  expect((await apiCall(page, 'GET', `/images/${image.id}`)).body.image).toMatchObject({ overlap: 2 });

  // 2. Ann and Bob each take it from their queue, draw a box and submit; Bob does not see Ann's.
  const a = await memberBrowser(browser, ann);
  await annotate(a.page, image.filename, [200, 150], [500, 400], false);
  await a.context.close();
  const b = await memberBrowser(browser, bob);
  await annotate(b.page, image.filename, [220, 150], [520, 400], true);
  await b.context.close();
  expect((await apiCall(page, 'GET', `/images/${image.id}`)).body.image).toMatchObject({ status: 'review', annotation_count: 0 });
  // Each submitted box is where its annotator drew it (each by a mouse, to a pixel or two).
  const submitted = (await apiCall(page, 'GET', `/images/${image.id}/drafts`)).body.drafts as { annotations: { bounding_box: { x: number; y: number; w: number; h: number } }[] }[];
  expect(submitted.map((d) => d.annotations.map((a) => Math.round(a.bounding_box.x / 10) * 10))).toEqual([[200], [220]]);

  // 3. Rita finds Merge drafts on the image's tile and in the editor's top bar, and opens the merge
  // view from the editor with the keyboard: both layers, their agreement, the preview.
  const r = await memberBrowser(browser, rita);
  const ritaTile = r.page.getByTestId('image-tile').filter({ hasText: image.filename });
  await ritaTile.hover();
  await expect(ritaTile.getByRole('button', { name: `Merge drafts of ${image.filename}` })).toBeVisible();
  await r.page.goto(`/projects/${project.projectId}/images/${image.id}`);
  await expect(r.page.getByText('Loading image...')).toBeHidden({ timeout: 20_000 });
  const mergeButton = r.page.getByRole('button', { name: 'Merge drafts' });
  await expect(mergeButton).toBeVisible({ timeout: 20_000 });
  await r.page.mouse.move(0, 0);
  await shot(r.page, 'consensus-editor-merge-drafts');
  await mergeButton.focus();
  await expect(mergeButton).toBeFocused();
  await r.page.keyboard.press('Enter');
  await expect(r.page).toHaveURL(new RegExp(`/projects/${project.projectId}/images/${image.id}/merge$`));
  await expect(r.page.getByRole('heading', { name: `Merge ${image.filename}`, level: 1 })).toBeVisible({ timeout: 20_000 });
  const annLayer = r.page.getByRole('region', { name: "Ann Annotator's layer" });
  const bobLayer = r.page.getByRole('region', { name: "Bob Annotator's layer" });
  await expect(annLayer).toContainText('Submitted');
  await expect(annLayer.getByTestId('merge-shape')).toHaveCount(1);
  await expect(bobLayer.getByTestId('merge-shape')).toHaveCount(1);
  // One box each, 20 px apart on 300 x 250: one shape matched, F1 100%, IoU about 87%.
  await expect(r.page.getByTestId('merge-agreement')).toHaveText(/^Agreement: F1 100% · mean IoU (8\d|9\d)%$/);
  const group = r.page.getByTestId('merge-group');
  await expect(group).toHaveCount(1);
  await expect(group).toContainText('drawn by 2 of 2');
  await expect(group.getByRole('radio', { name: 'Consensus (mean box)' })).toBeChecked();
  await expect(r.page.getByRole('region', { name: 'Merged result' }).getByTestId('merge-shape')).toHaveCount(1);
  await r.page.mouse.move(0, 0);
  await shot(r.page, 'consensus-merge-view');

  // 4. Merge: the editor opens on the image with the one merged box, the mean of the two.
  await r.page.getByRole('button', { name: 'Merge' }).click();
  await expect(r.page).toHaveURL(new RegExp(`/projects/${project.projectId}/images/${image.id}$`), { timeout: 20_000 });
  await expect(r.page.getByText('Loading image...')).toBeHidden({ timeout: 20_000 });
  await expect(annotationRows(r.page)).toHaveCount(1);
  await r.context.close();
  const merged = (await loadSaved(page, project, image.id)).annotations;
  expect(merged).toHaveLength(1);
  const box = merged[0].bounding_box;
  // The mean of boxes drawn at x 200 and 220 (each by a mouse, to a pixel or two).
  expect(Math.abs(box.x - 210)).toBeLessThan(4);
  expect(Math.abs(box.w - 300)).toBeLessThan(4);

  // 5. The owner's Analytics tab lists both annotators.
  await page.goto(`/projects/${project.projectId}/analytics`);
  await page.getByRole('radio', { name: 'Table' }).check();
  const perMember = page.getByRole('table', { name: 'Activity per member' });
  await expect(perMember).toBeVisible({ timeout: 20_000 });
  await expect(perMember.getByRole('row', { name: /Ann Annotator/ })).toBeVisible();
  await expect(perMember.getByRole('row', { name: /Bob Annotator/ })).toBeVisible();
});
