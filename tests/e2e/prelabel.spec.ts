// Pre-label from the Models page (issue 34): a project's folder pre-labelled with the built-in
// detector on a real photograph (a street from ../shared/datasets/seg-dev; where that folder is
// absent, as in a clean CI clone, the people photographs that ship with the detector's own
// package), the progress
// followed to Done, the report's counts, and the predictions pending on the image row (the Data
// tab's filter reads it). Then the review in the editor (accept one with Enter, Reject all the
// rest) and the COCO export, which holds the accepted one only (issue 34 §3).
// A reviewer, who may pre-label, finds the option to add classes off, with the reason.
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import JSZip from 'jszip';
import { annotationRows, apiCall, canvasBox, openFromDataTab, waitUntilSaved } from './editor-helpers';
import { apiSignUp, createProject, signUpOnboarded, signUpWithOrganization, uniqueUser, useSession } from './helpers';

const SEG_DEV_PHOTO = path.resolve('../shared/datasets/seg-dev/images/car00_000000098392.jpg');
const PACKAGED_PHOTO = path.resolve('node_modules/@vladmandic/human/assets/samples.jpg');
const PHOTO = fs.existsSync(SEG_DEV_PHOTO) ? SEG_DEV_PHOTO : PACKAGED_PHOTO;

async function token(page: Page): Promise<string> {
  return page.evaluate(() => {
    const key = Object.keys(localStorage).find((k) => k.startsWith('sb-') && k.endsWith('-auth-token'));
    return JSON.parse(localStorage.getItem(key!)!).access_token as string;
  });
}

test('prelabel: the Models page runs the built-in detector on a folder and reports what it drew', async ({ page }) => {
  test.setTimeout(300_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const user = uniqueUser('prelabel');
  await signUpWithOrganization(page, user, `Prelabel Org ${user.id}`);
  await createProject(page, 'Street');
  await page.getByRole('button', { name: 'Open project Street' }).click();
  await expect(page.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
  await page.getByTestId('add-images-input').setInputFiles([{ name: 'street.jpg', mimeType: 'image/jpeg', buffer: fs.readFileSync(PHOTO) }]);
  await expect(page.getByTestId('image-tile')).toHaveCount(1);

  const auth = { authorization: `Bearer ${await token(page)}` };
  const me = await (await page.request.get('/api/v1/users/me', { headers: auth })).json();
  const projects = await (await page.request.get(`/api/v1/projects/organization/${me.profile.default_organization_id}`, { headers: auth })).json();
  const pid = projects.projects[0].id as string;
  const classes = [
    { name: 'car', type: 'box', color: '#FFADAD' },
    { name: 'vehicle', type: 'box', color: '#A0C4FF' },
    { name: 'person', type: 'box', color: '#75F0A6' },
  ];
  expect((await page.request.patch(`/api/v1/projects/${pid}`, { headers: auth, data: { classes } })).status()).toBe(200);

  await page.goto('/models');
  const panel = page.getByRole('region', { name: 'Pre-label a folder' });
  await expect(panel.getByLabel('Project', { exact: true })).toHaveValue(pid);
  await expect(panel.getByLabel('Model', { exact: true })).toHaveValue('builtin-coco-centernet');
  // The built-in detector scores low: the page starts it at 0.2, not the API's 0.4.
  await expect(panel.getByLabel('Minimum score', { exact: true })).toHaveValue('0.2');
  // car and person take the model's classes of the same name; vehicle takes its truck.
  await expect(panel.getByLabel('car', { exact: true })).toHaveValue('car');
  await panel.getByLabel('vehicle', { exact: true }).selectOption('truck');
  await panel.getByRole('button', { name: 'Start pre-labelling' }).click();

  await expect(panel.getByText('Done', { exact: true })).toBeVisible({ timeout: 120_000 });
  await expect(panel.getByRole('progressbar', { name: 'Pre-label progress' })).toHaveAttribute('aria-valuenow', '100');
  const report = panel.getByLabel('Pre-label report');
  await expect(report).toContainText(/\d+ predictions? on 1 image/);
  await page.screenshot({ path: 'test-results/shots/prelabel-done.png' });

  const list = await (await page.request.get(`/api/v1/projects/${pid}/images?has_pending_predictions=true`, { headers: auth })).json();
  expect(list.images).toHaveLength(1);
  const reported = Number(/(\d+) prediction/.exec((await report.textContent()) ?? '')![1]);
  expect(reported).toBeGreaterThan(0);
  expect(list.images[0].pending_predictions).toBe(reported);

  // Reviewing them in the editor (issue 34 §3, helper review): Alt+↓ selects the first pending one,
  // Enter accepts it, Reject all deletes the rest; then the export holds the accepted one only.
  await page.goto(`/projects/${pid}/data`);
  await openFromDataTab(page, 'street.jpg');
  const bar = page.getByRole('region', { name: 'Predictions' });
  await expect(bar.getByTestId('predictions-pending')).toHaveText(`${reported} prediction${reported === 1 ? '' : 's'} pending`);
  await page.screenshot({ path: 'test-results/shots/prelabel-review.png' });
  const canvas = await canvasBox(page);
  await page.mouse.click(canvas.x + 4, canvas.y + 4); // keys to the canvas (outside the image: nothing picked)
  await page.keyboard.press('Alt+ArrowDown');
  await page.keyboard.press('Enter');
  await expect(annotationRows(page).filter({ hasText: 'model 0.' })).toHaveCount(1);
  const rest = reported - 1;
  if (rest > 0) {
    await bar.getByRole('button', { name: `Reject all (${rest})` }).click();
    if (rest > 3) await page.getByRole('dialog', { name: 'Reject all predictions?' }).getByRole('button', { name: 'Reject all' }).click();
  }
  await expect(bar).toBeHidden();
  await expect(annotationRows(page)).toHaveCount(1);
  await waitUntilSaved(page);

  await page.getByRole('button', { name: 'Back', exact: true }).click();
  await page.getByRole('button', { name: /^Export \(\d+\)$/ }).click();
  const exporting = page.getByRole('dialog', { name: 'Export Dataset' });
  await exporting.getByText('Current filters').click();
  await exporting.getByText('COCO', { exact: true }).click();
  const download = page.waitForEvent('download');
  await exporting.getByRole('button', { name: 'Export', exact: true }).click();
  const zip = await JSZip.loadAsync(fs.readFileSync((await (await download).path())!));
  const coco = JSON.parse(await zip.file('annotations.json')!.async('string'));
  expect(coco.annotations).toHaveLength(1);
});

test('prelabel: a reviewer may pre-label, and sees why the option to add classes is off', async ({ page, browser }) => {
  test.setTimeout(120_000);
  const owner = uniqueUser('prelabel-owner');
  const { orgId } = await signUpOnboarded(page, owner, `Prelabel Roles ${owner.id}`);
  expect((await apiCall(page, 'POST', '/projects', { organization_id: orgId, name: 'Cells' })).status).toBe(200);
  const reviewer = uniqueUser('prelabel-reviewer');
  const invite = await apiCall(page, 'POST', `/organizations/${orgId}/invites`, { email: reviewer.email, role: 'reviewer' });
  expect(invite.status).toBe(200);
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const other = await context.newPage();
  await useSession(other, await apiSignUp(other.request, reviewer));
  expect((await apiCall(other, 'POST', `/invites/${(invite.body.invite_url as string).split('/invite/')[1]}/accept`)).status).toBe(200);
  await other.goto('/models');
  const panel = other.getByRole('region', { name: 'Pre-label a folder' });
  await expect(panel.getByRole('button', { name: 'Start pre-labelling' })).toBeVisible();
  const addClasses = panel.getByRole('checkbox', { name: "Add the model's other classes to the project" });
  await expect(addClasses).toBeDisabled();
  await expect(addClasses).not.toBeChecked();
  await expect(addClasses).toHaveAccessibleDescription(/Your role \(Reviewer\) cannot add classes to a project\. Predictions of classes the project lacks are left out/);
  await other.screenshot({ path: 'test-results/shots/prelabel-reviewer.png' });
  await context.close();
});
