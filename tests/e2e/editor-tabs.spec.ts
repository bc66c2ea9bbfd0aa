// Two tabs of one user on one image (issue 5's saving, session 33): each tab holds its save lock
// (a Web Lock named after the tab) while it is open, so neither takes in the other's unsaved work
// as if it had closed (src/app/sync/save/README.md); a closed tab's lock is gone.
import { expect, test } from '@playwright/test';
import { editorProject, gotoEditorImage } from './editor-helpers';

test('two tabs of the editor each hold their save lock', async ({ page, context }) => {
  const p = await editorProject(page, { classes: [{ name: 'car', type: 'box', color: '#ff0000' }], images: [{ name: 'a.png' }], open: 'a.png' });
  const second = await context.newPage();
  await gotoEditorImage(second, p.projectId, p.images[0]!);
  const names = async () => second.evaluate(async () => ((await navigator.locks.query()).held ?? []).map((l) => l.name));
  await expect.poll(async () => (await names()).filter((n) => n?.startsWith('vellum-save-tab:')).length).toBe(2);
  await page.close();
  await expect.poll(async () => (await names()).filter((n) => n?.startsWith('vellum-save-tab:')).length).toBe(1);
});
