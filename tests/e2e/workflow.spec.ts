// The team workflow end to end (issue 29), one browser per person: the admin assigns a folder;
// the annotator presses Start working, draws and submits; the reviewer rejects with an issue
// pinned on the shape; the annotator sees the issue, fixes the shape, resolves the issues and
// submits again; the reviewer accepts, and the image shows Done in both Data tabs. Screenshots at
// 1440 x 900 of the queue (My work), the review bar and the issues panel go to test-results/shots.
import { mkdirSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { annotationRows, apiCall, canvasBox, dragOnCanvas, drawBox, editorProject, loadSaved, openProjectPage, pixelAt, scenePng, uploadImages, waitUntilSaved } from './editor-helpers';
import { member, memberBrowser } from './live-helpers';

const SHOTS = 'test-results/shots';
const IMAGE = 'crossing.png';
const CLASSES = [{ name: 'car', type: 'box' as const, color: '#F07575' }];

const shot = async (page: Page, name: string) => {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}/${name}.png` });
};

/** The editor is open on the image and drawn. */
async function inEditor(page: Page) {
  await expect(page.getByRole('heading', { name: IMAGE, level: 1 })).toBeVisible({ timeout: 20_000 });
  await expect(page.getByText('Loading image...')).toBeHidden({ timeout: 20_000 });
  await expect(page.getByTestId('editor-canvas')).toBeVisible();
}

/** The image's tile in the Data tab the page shows. */
const tile = (page: Page) => page.getByTestId('image-tile').filter({ hasText: IMAGE });

test('assign, start working, submit, reject with a pinned issue, fix, resubmit, accept', async ({ page, browser }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  // The folder, its image and both members are set up before the owner's app first loads.
  const project = await editorProject(page, { classes: CLASSES, open: false });
  expect((await apiCall(page, 'POST', '/api/folders/create', { project_id: project.projectId, name: 'batch', parent_folder_path: '/' })).status).toBe(200);
  const [image] = await uploadImages(page, project.projectId, project.orgId, [{ name: IMAGE, folder: '/batch', buffer: await scenePng(800, 600, 30) }]);
  const ann = await member(page, project, 'Ann Annotator');
  // The helper's role type lists the live tests' roles; the invite takes any role.
  const rita = await member(page, project, 'Rita Reviewer', 'reviewer' as 'annotator');

  // 1. The admin (the owner) assigns the folder: Ann annotates, Rita reviews.
  await openProjectPage(page, project.projectId);
  const folder = page.getByTestId('folder-tile').filter({ hasText: 'batch' });
  await folder.hover();
  await folder.getByRole('button', { name: 'Assign folder batch…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Assign folder batch' });
  await dialog.getByRole('checkbox', { name: /Ann Annotator/ }).check();
  await dialog.getByTestId('assign-reviewer').selectOption({ label: 'Rita Reviewer (Reviewer)' });
  await shot(page, 'workflow-assign-dialog');
  await dialog.getByRole('button', { name: 'Assign' }).click();
  await expect(page.getByText('1 image assigned to Ann Annotator')).toBeVisible();
  await expect(dialog).toBeHidden();

  // 2. Ann's Data tab opens on My work; Start working opens the image; she draws and submits.
  const a = await memberBrowser(browser, ann);
  await expect(a.page).toHaveURL(/assignee=me/);
  await expect(a.page.getByRole('button', { name: 'My work' })).toHaveAttribute('aria-pressed', 'true');
  // My work lists her images from every folder: the image filed in batch is on the first screen.
  await expect(a.page.getByRole('navigation', { name: 'Folder path' })).toContainText('My work in all folders');
  await expect(a.page.getByTestId('folder-tile')).toHaveCount(0);
  await expect(tile(a.page).getByTestId('tile-assignee')).toHaveAttribute('aria-label', 'Assigned to Ann Annotator');
  await shot(a.page, 'workflow-queue-my-work');
  await a.page.getByRole('button', { name: 'Start working' }).click();
  await inEditor(a.page);
  await expect(a.page.getByRole('button', { name: /Submit for review/ })).toBeVisible();
  // An annotator sees no review actions.
  await expect(a.page.getByRole('button', { name: /^Accept/ })).toHaveCount(0);
  await drawBox(a.page, [500, 300], [640, 420]);
  await expect(annotationRows(a.page)).toHaveCount(1);
  await a.page.keyboard.press('Control+Enter');
  await expect(a.page.getByText(`${IMAGE} submitted for review`)).toBeVisible();
  // Nothing else is assigned to her: the editor says so and goes back to the Data tab.
  await expect(a.page.getByText(/Nothing left in your queue/)).toBeVisible();
  await expect(a.page.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
  await expect(tile(a.page)).toContainText('In review');
  // Submit saved the box first.
  expect((await loadSaved(page, project, image!.id)).annotations).toHaveLength(1);

  // 3. Rita opens the next image to review, pins an issue on the box (Shift+I, a dragged region) and rejects.
  const r = await memberBrowser(browser, rita);
  await r.page.getByRole('button', { name: 'Review next' }).click();
  await inEditor(r.page);
  await expect(r.page.getByRole('button', { name: /^Accept/ })).toBeVisible();
  await expect(r.page.getByRole('button', { name: /Reject…/ })).toBeVisible();
  const box = await canvasBox(r.page);
  await r.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await r.page.keyboard.press('Shift+I');
  await expect(r.page.getByTestId('issue-region-layer')).toBeVisible();
  await dragOnCanvas(r.page, [490, 290], [650, 430]);
  const form = r.page.getByTestId('new-issue');
  await expect(form).toContainText('New issue · Region');
  await form.getByRole('textbox').fill('The box misses the bumper on the left.');
  await form.getByRole('button', { name: 'Open issue' }).click();
  const panel = r.page.getByTestId('issues-panel');
  await expect(panel.getByTestId('issue-thread')).toHaveCount(1);
  await expect(panel).toContainText('The box misses the bumper on the left.');
  await shot(r.page, 'workflow-review-bar');
  await r.page.keyboard.press('Shift+R');
  const reject = r.page.getByRole('dialog', { name: 'Reject this image?' });
  await reject.getByTestId('reject-comment').fill('Please tighten the box around the car.');
  await shot(r.page, 'workflow-reject-dialog');
  await reject.getByRole('button', { name: 'Reject' }).click();
  await expect(r.page.getByText(`${IMAGE} sent back to the annotator`)).toBeVisible();
  await expect(r.page.getByText(/Nothing left in your queue/)).toBeVisible();
  await expect(r.page.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();

  // 4. Ann sees the image back with two open issues; the panel opens by itself with both threads.
  await a.page.reload();
  await expect(tile(a.page)).toContainText('In progress');
  await expect(tile(a.page).getByTestId('tile-issues')).toHaveText('2');
  await shot(a.page, 'workflow-queue-rejected');
  await a.page.getByRole('button', { name: 'Start working' }).click();
  await inEditor(a.page);
  const annPanel = a.page.getByTestId('issues-panel');
  await expect(annPanel).toBeVisible();
  await expect(annPanel.getByTestId('issue-thread')).toHaveCount(2);
  await expect(annPanel).toContainText('Please tighten the box around the car.');
  await expect(a.page.getByTestId('issues-toggle')).toContainText('2');
  // A comment Rita adds meanwhile reaches Ann's open panel over the live socket, without a reload.
  const pinned = (await apiCall(r.page, 'GET', `/images/${image!.id}/issues`)).body.issues.find((i: { region: unknown }) => i.region);
  expect((await apiCall(r.page, 'POST', `/issues/${pinned.id}/comments`, { body: 'Left side, by the bumper.' })).status).toBe(201);
  await expect(annPanel).toContainText('Left side, by the bumper.');
  // Choosing the pinned issue draws it red and centres it.
  await annPanel.getByRole('button', { name: /Issue 1: Region/ }).click();
  await expect(annPanel.getByTestId('issue-thread').first()).toHaveAttribute('data-focused', 'true');
  // She sees the pin: the render worker draws it red (chosen) at the region's top-left corner, the
  // region centred in the canvas left of the panel (320 px and its 12 px gaps) at the zoom shown.
  const scale = Number((await a.page.getByRole('group', { name: 'Zoom' }).innerText()).match(/(\d+)%/)![1]) / 100;
  const [w, h] = (await annPanel.getByTestId('issue-thread').first().innerText()).match(/Region (\d+) × (\d+) px/)!.slice(1).map(Number) as [number, number];
  const c = await canvasBox(a.page);
  await expect
    .poll(async () => {
      const [red, green, blue] = await pixelAt(a.page, c.x + (c.width - 344) / 2 - (w / 2) * scale, c.y + c.height / 2 - (h / 2) * scale);
      return red > 170 && green < 90 && blue < 90;
    })
    .toBe(true);
  await shot(a.page, 'workflow-issues-panel');
  // She fixes the box (select it, nudge it 10 px left), answers and resolves both issues.
  const drawn = (await loadSaved(page, project, image!.id)).annotations[0];
  await annotationRows(a.page).first().click();
  await a.page.getByTestId('editor-canvas').focus();
  await a.page.keyboard.press('Shift+ArrowLeft');
  await waitUntilSaved(a.page);
  const fixed = (await loadSaved(page, project, image!.id)).annotations[0];
  expect(fixed.id).toBe(drawn.id);
  expect(JSON.stringify(fixed)).not.toBe(JSON.stringify(drawn));
  const threads = annPanel.getByTestId('issue-thread');
  await threads.first().getByRole('textbox').fill('Moved it to take the bumper in.');
  await threads.first().getByRole('button', { name: 'Comment' }).click();
  await expect(threads.first()).toContainText('Moved it to take the bumper in.');
  await threads.first().getByRole('button', { name: 'Resolve' }).click();
  await expect(annPanel.getByRole('heading', { name: /Resolved \(1\)/ })).toBeVisible();
  await annPanel.getByTestId('issue-thread').filter({ hasText: 'Please tighten' }).getByRole('button', { name: 'Resolve' }).click();
  await expect(annPanel.getByRole('heading', { name: /Resolved \(2\)/ })).toBeVisible();
  await expect(a.page.getByTestId('issues-toggle')).not.toContainText('2');
  await a.page.getByRole('button', { name: /Submit for review/ }).click();
  await expect(a.page.getByText(/Nothing left in your queue/)).toBeVisible();
  await expect(tile(a.page)).toContainText('In review');

  // 5. Rita accepts (Ctrl+Enter); the image is Done in both Data tabs.
  await r.page.reload();
  await r.page.getByRole('button', { name: 'Review next' }).click();
  await inEditor(r.page);
  await expect(r.page.getByTestId('issues-toggle')).not.toContainText(/\d/);
  await r.page.keyboard.press('Control+Enter');
  await expect(r.page.getByText(`${IMAGE} accepted: Done`)).toBeVisible();
  await expect(r.page.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
  // Her Data tab came back to the review queue's view (In review): the whole folder shows the image Done.
  await r.page.goto(`/projects/${project.projectId}/data?folder=%2Fbatch`);
  await expect(tile(r.page)).toContainText('Done');
  await a.page.reload();
  await expect(tile(a.page)).toContainText('Done');
  const history = await apiCall(page, 'GET', `/images/${image!.id}/activity`);
  const stages = (history.body.events as { type: string; to?: string }[]).filter((e) => e.type === 'status').map((e) => e.to);
  // Newest first: accepted, resubmitted, rejected, submitted.
  expect(stages.slice(0, 4)).toEqual(['complete', 'review', 'annotating', 'review']);
  await a.context.close();
  await r.context.close();
});

test('Assign... shares a selection evenly among several annotators, one avatar per tile', async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const names = ['s1.png', 's2.png', 's3.png', 's4.png', 's5.png'];
  const project = await editorProject(page, { classes: CLASSES, images: names.map((name) => ({ name, width: 200, height: 150 })), open: false });
  await member(page, project, 'Ann Annotator');
  await member(page, project, 'Bob Annotator');
  await openProjectPage(page, project.projectId);
  for (const name of names) await page.getByRole('checkbox', { name: `Select ${name}` }).click();
  await page.getByRole('toolbar', { name: 'Selected images' }).getByRole('button', { name: 'Assign…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Assign 5 images' });
  await dialog.getByRole('checkbox', { name: /Ann Annotator/ }).check();
  await dialog.getByRole('checkbox', { name: /Bob Annotator/ }).check();
  await expect(dialog).toContainText('About 2–3 each, shared round-robin.');
  await dialog.getByRole('button', { name: 'Assign' }).click();
  await expect(page.getByText('5 images assigned to Ann Annotator, Bob Annotator')).toBeVisible();
  const listed = await apiCall(page, 'GET', `/projects/${project.projectId}/images?limit=100`);
  const counts = new Map<string, number>();
  for (const i of listed.body.images as { assignee_id: string | null }[]) counts.set(String(i.assignee_id), (counts.get(String(i.assignee_id)) ?? 0) + 1);
  expect([...counts.values()].sort()).toEqual([2, 3]);
  expect(counts.has('null')).toBe(false);
  await expect(page.getByTestId('tile-assignee')).toHaveCount(5);
  // In the order selected: Ann takes the 1st, 3rd and 5th, Bob the 2nd and 4th.
  await expect(page.locator('[data-testid="tile-assignee"][aria-label="Assigned to Bob Annotator"]')).toHaveCount(2);
  await expect(page.getByTestId('image-tile').filter({ hasText: 's2.png' }).getByTestId('tile-assignee')).toHaveAttribute('aria-label', 'Assigned to Bob Annotator');
});
