// The Analytics tab (issue 36 §1) end to end: two annotators work (boxes saved, images submitted),
// the owner accepts one and rejects the other; the owner's Analytics tab shows both people in the
// charts and in the table, with their numbers, and the CSV download holds the same rows; an
// annotator's tab shows only her. Screenshots at 1440 x 900 go to test-results/shots.
import { mkdirSync, readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { apiCall, editorProject } from './editor-helpers';
import { member, memberBrowser, type Member } from './live-helpers';

const SHOTS = 'test-results/shots';
const shot = async (page: Page, name: string) => {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}/${name}.png` });
};

/** A call as the member (their own token), from the owner's page's request context. */
async function as(page: Page, who: Member, method: 'POST' | 'GET', path: string, body?: unknown) {
  const res = await page.request.fetch(`/api/v1${path}`, { method, headers: { authorization: `Bearer ${who.session.access_token}` }, data: body });
  expect(res.status(), await res.text()).toBeLessThan(300);
  return res.json();
}

test('two people work; the Analytics tab shows both in charts and table, and the CSV has them', async ({ page, browser }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const project = await editorProject(page, {
    classes: [{ name: 'car', type: 'box', color: '#F07575' }],
    images: [{ name: 'one.png' }, { name: 'two.png' }],
    open: false,
  });
  const ann = await member(page, project, 'Ann Annotator');
  const bea = await member(page, project, 'Bea Builder');
  const [one, two] = project.images;
  const save = (who: Member, img: { id: string; filename: string }, boxes: number) =>
    as(page, who, 'POST', '/annotations/save-data', {
      image_id: img.id,
      project_id: project.projectId,
      image_filename: img.filename,
      annotations: Array.from({ length: boxes }, (_, i) => ({ id: `b${i}`, name: 'car', bounding_box: { x: 10 + i * 20, y: 10, w: 15, h: 15 } })),
    });
  await save(ann, one!, 3);
  await as(page, ann, 'POST', `/images/${one!.id}/submit`);
  await save(bea, two!, 2);
  await as(page, bea, 'POST', `/images/${two!.id}/submit`);
  expect((await apiCall(page, 'POST', `/images/${one!.id}/review`, { decision: 'accept' })).status).toBe(200);
  expect((await apiCall(page, 'POST', `/images/${two!.id}/review`, { decision: 'reject', comment: 'Two cars missing' })).status).toBe(200);

  // The owner's tab: both people in the charts, then the table.
  await page.goto(`/projects/${project.projectId}/analytics`);
  const tab = page.getByRole('tab', { name: 'Analytics' });
  await expect(tab).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByText('Images submitted').first()).toBeVisible({ timeout: 20_000 });
  const workChart = page.getByRole('img', { name: /Ann Annotator: 3 created/ });
  await expect(workChart).toBeVisible({ timeout: 20_000 });
  await expect(workChart).toHaveAttribute('aria-label', /Bea Builder: 2 created, 0 edited, 0 deleted, 1 submitted, 0 accepted/);
  await expect(page.getByRole('img', { name: /Ann Annotator: 100% accepted; Bea Builder: 0% accepted/ })).toBeVisible();
  await expect(page.getByRole('img', { name: /Images per stage .* at the end: Not started 0, In progress 1, In review 0, Done 1/ })).toBeVisible();
  await shot(page, 'analytics-charts');

  await page.getByRole('radio', { name: 'Table' }).check();
  const table = page.getByRole('table', { name: 'Activity per member' });
  const row = (name: string) => table.getByRole('row').filter({ has: page.getByRole('rowheader', { name }) });
  // Shapes created, edited, deleted, images submitted, accepted, rejected, ... acceptance rate.
  await expect(row('Ann Annotator').getByRole('cell')).toHaveText(['3', '0', '0', '1', '1', '0', /^[\d.]+$/, '0', '0', '100%']);
  await expect(row('Bea Builder').getByRole('cell')).toHaveText(['2', '0', '0', '1', '0', '1', /^[\d.]+$/, '0', '0', '0%']);
  await expect(row('Total').getByRole('cell').first()).toHaveText('5');
  await expect(page.getByRole('table', { name: 'Images per stage by day' }).getByRole('row')).toHaveCount(31);
  await shot(page, 'analytics-table');

  // Week buckets by keyboard: the Group by radios move with the arrow keys.
  await page.getByRole('radio', { name: 'Day' }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('radio', { name: 'Week' })).toBeChecked();
  await expect(page.getByRole('table', { name: 'Images per stage by week' })).toBeVisible();

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^Streets-analytics-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = readFileSync((await download.path())!, 'utf8').split('\r\n');
  expect(csv[0]).toBe('Member,Shapes created,Shapes edited,Shapes deleted,Images submitted,Images accepted,Images rejected,Active minutes,Issues opened,Issues resolved,Acceptance rate');
  expect(csv.find((l) => l.startsWith('Ann Annotator,'))).toMatch(/^Ann Annotator,3,0,0,1,1,0,[\d.]+,0,0,1\.000$/);
  expect(csv.find((l) => l.startsWith('Bea Builder,'))).toMatch(/^Bea Builder,2,0,0,1,0,1,[\d.]+,0,0,0\.000$/);
  expect(csv.find((l) => l.startsWith('Total,'))).toMatch(/^Total,5,0,0,2,1,1,[\d.]+,1,0,0\.500$/);

  // Ann's own tab: only her.
  const a = await memberBrowser(browser, ann, { allImages: true });
  await a.page.getByRole('tab', { name: 'Analytics' }).click();
  await a.page.getByRole('radio', { name: 'Table' }).check();
  const hers = a.page.getByRole('table', { name: 'Activity per member' });
  await expect(hers.getByRole('rowheader', { name: 'Ann Annotator' })).toBeVisible({ timeout: 20_000 });
  await expect(hers.getByRole('rowheader', { name: 'Bea Builder' })).toHaveCount(0);
  await a.context.close();
});
