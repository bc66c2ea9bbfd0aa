// Ground truth end to end (issue 36 §2): the owner's accepted image is marked as ground truth by a
// reviewer in the editor, the owner sets the ground-truth rate to 100% in the project's settings,
// an annotator's Start working opens that image blank and as hers, she draws a box and submits;
// the image keeps its annotations, and the owner's Analytics tab shows her ground-truth score.
// Screenshots at 1440 x 900 go to test-results/shots.
import { mkdirSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { annotationRows, apiCall, canvasBox, drawBox, drawnImageRect, editorProject, loadSaved, openProjectPage } from './editor-helpers';
import { member, memberBrowser } from './live-helpers';

const SHOTS = 'test-results/shots';
const shot = async (page: Page, name: string) => {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}/${name}.png` });
};

test('a reviewer marks ground truth, the queue hands it to an annotator blank, her submit is scored in the analytics', async ({ page, browser }) => {
  test.setTimeout(240_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const project = await editorProject(page, { classes: [{ name: 'car', type: 'box', color: '#F07575' }], images: [{ name: 'reference.png' }], open: false });
  const gt = project.images[0]!;
  const reference = [{ id: 'ref-1', name: 'car', bounding_box: { x: 200, y: 150, w: 300, h: 250 } }];
  expect((await apiCall(page, 'POST', '/annotations/save-data', { image_id: gt.id, project_id: project.projectId, image_filename: gt.filename, annotations: reference })).status).toBe(200);
  expect((await apiCall(page, 'POST', `/images/${gt.id}/submit`)).status).toBe(200);
  expect((await apiCall(page, 'POST', `/images/${gt.id}/review`, { decision: 'accept' })).status).toBe(200);
  // The helper's role type lists the live tests' roles; the invite takes any role.
  const rita = await member(page, project, 'Rita Reviewer', 'reviewer' as 'annotator');
  const ann = await member(page, project, 'Ann Annotator');

  // 1. Rita opens the accepted image and marks it as ground truth.
  const r = await memberBrowser(browser, rita, { image: { projectId: project.projectId, ...gt } });
  const toggle = r.page.getByTestId('ground-truth-toggle');
  await expect(toggle).toHaveAttribute('aria-pressed', 'false', { timeout: 20_000 });
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  await expect(r.page.getByText('Ground truth: 1 shape kept as the reference')).toBeVisible();
  await shot(r.page, 'ground-truth-toggle');
  await r.context.close();

  // 2. The owner sets the ground-truth rate to 100% in the project's settings.
  await openProjectPage(page, project.projectId);
  await page.getByRole('button', { name: 'Project settings' }).click();
  const settings = page.getByRole('dialog', { name: 'Project Settings' });
  await settings.getByLabel('Ground-truth rate (%)').fill('100');
  await settings.getByLabel('Ground-truth pass threshold (F1 %)').fill('90');
  await shot(page, 'ground-truth-settings');
  await settings.getByRole('button', { name: 'Save Changes' }).click();
  await expect(settings).toBeHidden();
  const saved = await apiCall(page, 'GET', `/projects/${project.projectId}`);
  expect(saved.body.project).toMatchObject({ gt_rate: 1, gt_pass_threshold: 0.9 });

  // 3. Ann's Start working opens it blank, as hers; she draws a box and submits.
  const a = await memberBrowser(browser, ann);
  await a.page.getByRole('button', { name: 'Start working' }).click();
  await expect(a.page.getByRole('heading', { name: gt.filename, level: 1 })).toBeVisible({ timeout: 20_000 });
  await expect(a.page.getByText('Loading image...')).toBeHidden({ timeout: 20_000 });
  await expect(a.page.getByRole('button', { name: /Submit for review/ })).toBeVisible();
  await expect(annotationRows(a.page)).toHaveCount(0);
  await expect(a.page.getByTestId('ground-truth-toggle')).toHaveCount(0);
  // She draws the reference's car box (200, 150, 300 x 250 on the 800 x 600 image) where the
  // image is drawn, so her score is a match, not a miss.
  const canvas = await canvasBox(a.page);
  const drawn = await drawnImageRect(a.page);
  const scale = (drawn.right - drawn.left) / 800;
  const at = (x: number, y: number): [number, number] => [drawn.left - canvas.x + x * scale, drawn.top - canvas.y + y * scale];
  await drawBox(a.page, at(200, 150), at(500, 400));
  await expect(annotationRows(a.page)).toHaveCount(1);
  await shot(a.page, 'ground-truth-attempt');
  await a.page.keyboard.press('Control+Enter');
  await expect(a.page.getByText(`${gt.filename} submitted for review`)).toBeVisible({ timeout: 20_000 });
  await a.context.close();

  // The image kept its reference and its stage.
  expect((await loadSaved(page, project, gt.id)).annotations).toEqual(reference);
  expect((await apiCall(page, 'GET', `/images/${gt.id}`)).body.image).toMatchObject({ status: 'complete' });

  // 4. The owner's Analytics tab shows Ann's ground-truth score.
  const report = await apiCall(page, 'GET', `/projects/${project.projectId}/analytics`);
  const annGt = report.body.members.find((m: { user: { name: string } }) => m.user.name === 'Ann Annotator').gt;
  expect(annGt.images).toBe(1);
  // Her one box matches the one reference box: F1 1, and the mean IoU of a hand-placed copy is high.
  expect(annGt.f1).toBe(1);
  expect(annGt.mean_iou).toBeGreaterThan(0.9);
  // The owner's page is still on the project (step 2): its Analytics tab, without loading the app again.
  await page.getByRole('tab', { name: 'Analytics' }).click();
  const perMember = page.getByRole('table', { name: 'Ground-truth score per member' });
  await expect(perMember).toBeVisible({ timeout: 20_000 });
  const row = perMember.getByRole('row', { name: /Ann Annotator/ });
  await expect(row).toContainText('100.0%');
  await expect(row).toContainText('Pass');
  await expect(page.getByRole('table', { name: 'Ground-truth score per image' })).toContainText(gt.filename);
  await page.getByRole('table', { name: 'Ground-truth score per member' }).scrollIntoViewIfNeeded();
  await shot(page, 'analytics-ground-truth');
});
