// The editor's History view (issue 14): the image's versions listed newest first, an earlier one
// looked at over the canvas without touching the document or saving anything, the way back to the
// current document (with an edit not yet saved), a restore refused because someone saved
// meanwhile, then a restore that makes the earlier version current as a new version, still there
// after a reload and shown in the history as restored.
import { randomUUID } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { apiCall, editorProject, editorUrl, loadSaved, drawBox, gotoEditorImage } from './editor-helpers';

const IMAGE = 'crossing.png';
const CLASSES = [
  { name: 'car', type: 'box' as const, color: '#F07575' },
  { name: 'tree', type: 'box' as const, color: '#75F0A6' },
];

const rows = (page: Page) => page.getByRole('listbox', { name: 'Annotation list' }).getByRole('option');
const versions = (page: Page) => page.getByRole('listbox', { name: 'Versions' }).getByRole('option');
const version = (page: Page, n: number) => page.getByRole('listbox', { name: 'Versions' }).getByRole('option', { name: new RegExp(`^Version ${n},`) });
const banner = (page: Page) => page.getByRole('region', { name: 'Version preview' });
const saveState = (page: Page) => page.getByRole('status').filter({ hasText: /^(Saved|Saving\.\.\.|Unsaved changes)$/ });

test('history: look at an earlier version, go back, restore it', async ({ page }) => {
  test.setTimeout(180_000);
  // The versions are seeded before the app's first load, straight on the image (below).
  const project = await editorProject(page, { classes: CLASSES, images: [{ name: IMAGE }], open: false });
  const img = project.images[0]!;
  const box = (name: string, x: number, y: number) => ({ id: randomUUID(), name, bounding_box: { x, y, w: 120, h: 90 } });
  const a = box('car', 60, 60);
  const b = box('tree', 260, 80);
  const c = box('car', 480, 300);
  const base = { image_id: img.id, project_id: project.projectId, image_filename: IMAGE };
  // Four versions through the API: +A; +B; +C; A and B removed.
  const seeds: [unknown[], number][] = [
    [[a], 0],
    [[a, b], 1],
    [[a, b, c], 2],
  ];
  for (const [annotations, v] of seeds) expect((await apiCall(page, 'POST', '/annotations/save-data', { ...base, annotations, base_version: v })).status).toBe(200);
  expect((await apiCall(page, 'POST', '/annotations/save-changes', { ...base, base_version: 3, upserts: [], removed_ids: [a.id, b.id] })).status).toBe(200);

  const saves: string[] = [];
  page.on('request', (r) => {
    if (/\/annotations\/(save-data|save-changes|batch-save-data|restore)/.test(r.url())) saves.push(r.url().replace(/.*\/annotations\//, ''));
  });

  await gotoEditorImage(page, project.projectId, img);
  await expect(rows(page)).toHaveCount(1);

  // An edit of the user's own: version 5, saved by the editor.
  await drawBox(page, [560, 120], [680, 220]);
  await expect(rows(page)).toHaveCount(2);
  await expect.poll(async () => (await loadSaved(page, project, img.id)).version, { timeout: 20_000 }).toBe(5);
  await expect(saveState(page)).toHaveText('Saved');

  // V opens the History view, newest first, with who, what and which one is current.
  await page.keyboard.press('q');
  await page.keyboard.press('v');
  await expect(page.getByRole('complementary', { name: 'History' })).toBeVisible();
  await expect(versions(page)).toHaveCount(5);
  await expect(versions(page).first()).toHaveAccessibleName(/^Version 5, current, saved by Grace Hopper/);
  await expect(version(page, 5)).toContainText('Current');
  await expect(version(page, 5)).toContainText('+1 added');
  await expect(version(page, 4)).toContainText('2 removed');
  await expect(version(page, 2)).toContainText('+1 added');
  await expect(version(page, 1)).toContainText('Grace Hopper');
  // Opened from the keyboard: the list has the focus, on the current version.
  await expect(version(page, 5)).toBeFocused();
  await page.screenshot({ path: 'test-results/editor-history-list.png' });

  // A second edit, still waiting for its save when an earlier version is looked at.
  await drawBox(page, [560, 300], [680, 400]);
  await page.keyboard.press('q');
  const savesBefore = saves.length;

  // Version 2, chosen from the keyboard: shown read only over the canvas, with a banner.
  await version(page, 5).focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown');
  await expect(version(page, 2)).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(banner(page)).toContainText('Viewing version 2');
  await expect(banner(page)).toContainText('saved by Grace Hopper');
  await expect(page.getByTestId('version-canvas')).toBeVisible();
  await expect(version(page, 2)).toHaveAttribute('aria-selected', 'true');
  // The annotation list shows that version's shapes (a car and a tree), marked read only.
  await page.getByRole('button', { name: 'Version history (V)' }).click();
  await expect(page.getByText('Version 2, read only')).toBeVisible();
  await expect(rows(page)).toHaveCount(2);
  await expect(rows(page).filter({ hasText: 'tree' })).toHaveCount(1);
  await expect(rows(page).filter({ hasText: 'car' })).toHaveCount(1);
  await expect(page.getByRole('button', { name: 'Delete annotation' })).toHaveCount(0);
  // Keys that edit do nothing to it (Delete, undo), and drawing tools are locked.
  await rows(page).first().click();
  await page.keyboard.press('Delete');
  await page.keyboard.press('Control+z');
  await expect(rows(page)).toHaveCount(2);
  await page.screenshot({ path: 'test-results/editor-history-preview.png' });

  // Back with Esc: the current document as it was, the unsaved box included; the preview was
  // never saved (the server has the user's three shapes, not version 2's).
  await page.keyboard.press('Escape');
  await expect(banner(page)).toBeHidden();
  await expect(page.getByTestId('version-canvas')).toHaveCount(0);
  await expect(rows(page)).toHaveCount(3);
  await expect.poll(async () => (await loadSaved(page, project, img.id)).annotations.length, { timeout: 20_000 }).toBe(3);
  const current = await loadSaved(page, project, img.id);
  expect(current.version).toBe(6);
  expect(current.annotations.map((x) => x.id)).not.toContain(a.id);
  expect(saves.slice(savesBefore).every((s) => s === 'save-changes')).toBe(true);
  // The undo history survived the preview: Ctrl+Z takes the last box back out, Ctrl+Shift+Z puts
  // it back (each saved: versions 7 and 8).
  await page.keyboard.press('Control+z');
  await expect(rows(page)).toHaveCount(2);
  await page.keyboard.press('Control+Shift+z');
  await expect(rows(page)).toHaveCount(3);
  await expect.poll(async () => (await loadSaved(page, project, img.id)).version, { timeout: 20_000 }).toBe(8);
  await expect(saveState(page)).toHaveText('Saved');

  // Someone saves meanwhile (version 9): a restore on version 8 is refused with a clear message.
  await page.keyboard.press('v');
  await expect(version(page, 8)).toContainText('Current');
  await version(page, 2).click();
  await expect(banner(page)).toContainText('Viewing version 2');
  const theirs = box('tree', 300, 380);
  const latest = await loadSaved(page, project, img.id);
  expect((await apiCall(page, 'POST', '/annotations/save-data', { ...base, annotations: [...latest.annotations, theirs], base_version: 8 })).status).toBe(200);
  await banner(page).getByRole('button', { name: 'Restore this version' }).click();
  const dialog = page.getByRole('dialog', { name: 'Restore version 2?' });
  await expect(dialog).toContainText('The 2 annotations of version 2 become the current annotations');
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.screenshot({ path: 'test-results/editor-history-restore-dialog.png' });
  await dialog.getByRole('button', { name: 'Restore version 2' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('Someone saved this image meanwhile; look at the history again.');
  await expect(dialog.getByRole('button', { name: 'Restore version 2' })).toBeDisabled();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(version(page, 9)).toContainText('Current');
  expect((await loadSaved(page, project, img.id)).version).toBe(9);

  // Restored: version 10 holds version 2's annotations, and the preview ends on them.
  await banner(page).getByRole('button', { name: 'Restore this version' }).click();
  await dialog.getByRole('button', { name: 'Restore version 2' }).click();
  await expect(page.getByText('Restored version 2 as version 10')).toBeVisible();
  await expect(dialog).toBeHidden();
  await expect(banner(page)).toBeHidden();
  await expect(version(page, 10)).toContainText('Restored from version 2');
  await expect(version(page, 10)).toContainText('Current');
  await expect(version(page, 10)).toBeFocused();
  const restored = await loadSaved(page, project, img.id);
  expect(restored.version).toBe(10);
  expect(restored.annotations.map((x) => x.id).sort()).toEqual([a.id, b.id].sort());
  await page.screenshot({ path: 'test-results/editor-history-restored.png' });

  // After a reload the restored annotations are the current ones, and the history says so.
  await page.reload();
  await expect(page.getByText('Loading image...')).toBeHidden({ timeout: 20_000 });
  await expect(page.getByRole('complementary', { name: 'History' })).toBeVisible();
  await expect(version(page, 10)).toContainText('Restored from version 2');
  await expect(versions(page).first()).toHaveAccessibleName(/^Version 10, current,.*restored from version 2/);
  await page.getByRole('button', { name: 'Version history (V)' }).click();
  await expect(rows(page)).toHaveCount(2);
  await expect(rows(page).filter({ hasText: 'tree' })).toHaveCount(1);
  await expect(saveState(page)).toHaveText('Saved');
  expect((await loadSaved(page, project, img.id)).version).toBe(10);
});

test('history: paging back, versions past the retention, a version no longer kept, and an image never saved', async ({ page }) => {
  test.setTimeout(120_000);
  const project = await editorProject(page, { classes: CLASSES, images: [{ name: IMAGE }, { name: 'empty.png' }], open: false });
  const img = project.images[0]!;
  // The server's answers stand for a long history whose oldest versions were swept: 60 versions,
  // of which 8 and older can no longer be rebuilt (oldest_version 9), and 10 swept meanwhile (410).
  const entry = (v: number) => ({ version: v, saved_at: new Date(Date.now() - (61 - v) * 3_600_000).toISOString(), user_id: v % 7 ? 'u1' : null, user_name: v % 7 ? 'Grace Hopper' : null, added: v % 3, changed: v % 2, removed: v % 5 === 0 ? 2 : 0, restored_from: v === 42 ? 12 : null });
  const pages: string[] = [];
  await page.route(`**/api/v1/annotations/history/${img.id}?*`, async (route) => {
    const before = new URL(route.request().url()).searchParams.get('before');
    pages.push(before ?? 'first');
    const from = before ? Number(before) - 1 : 60;
    const to = Math.max(8, from - 49);
    const entries = [];
    for (let v = from; v >= to; v--) entries.push(entry(v));
    await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ version: 60, oldest_version: 9, entries }) });
  });
  await page.route(`**/api/v1/annotations/version/${img.id}?*`, (route) =>
    route.fulfill({ status: 410, contentType: 'application/json', body: JSON.stringify({ success: false, error: 'Version 10 is no longer kept (the history keeps 90 days)', code: 'history_expired' }) }),
  );

  await gotoEditorImage(page, project.projectId, img);
  await page.getByRole('button', { name: 'Version history (V)' }).click();
  await expect(versions(page)).toHaveCount(50);
  await expect(version(page, 60)).toContainText('Current');
  await expect(version(page, 56)).toContainText('Deleted account');
  await expect(version(page, 42)).toContainText('Restored from version 12');
  await page.getByRole('button', { name: 'Show older' }).click();
  await expect(versions(page)).toHaveCount(53);
  expect(pages).toEqual(['first', '11']);
  await expect(page.getByRole('button', { name: 'Show older' })).toHaveCount(0);
  // Version 8 is past what the server keeps: listed, disabled, with the reason.
  await expect(version(page, 8)).toHaveAttribute('aria-disabled', 'true');
  await expect(version(page, 8)).toContainText('No longer kept');
  await expect(page.getByText("Older versions are past the history's retention period and are no longer kept.")).toBeVisible();
  await version(page, 8).click({ force: true });
  await expect(banner(page)).toHaveCount(0);

  // Version 10 was swept since the list was read: the banner says so, nothing else changes.
  await version(page, 10).click();
  await expect(banner(page)).toContainText('Version 10 could not be shown. This version is no longer kept.');
  await expect(banner(page).getByRole('button', { name: 'Try again' })).toHaveCount(0);
  await page.getByRole('complementary', { name: 'History' }).locator('[class*="historyBody"]').evaluate((el) => (el.scrollTop = el.scrollHeight));
  await page.screenshot({ path: 'test-results/editor-history-retention.png' });
  await banner(page).getByRole('button', { name: 'Back to current' }).click();
  await expect(banner(page)).toHaveCount(0);
  // The focus does not fall to the page: it goes to the current version's entry.
  await expect(version(page, 60)).toBeFocused();

  // An image never saved: the empty state.
  await page.goto(await editorUrl(page, project.projectId, 'empty.png'));
  await expect(page.getByRole('heading', { name: 'empty.png', level: 1 })).toBeVisible();
  await expect(page.getByText('Loading image...')).toBeHidden({ timeout: 20_000 });
  await expect(page.getByRole('complementary', { name: 'History' })).toContainText('No changes saved yet');
  await page.screenshot({ path: 'test-results/editor-history-empty.png' });
});
