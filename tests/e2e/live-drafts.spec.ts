// Drafts (issue 35 §1): an edit reaches the other people on the image as it is made, before its
// author's save lands. The author's save-changes is held in the author's browser (page.route), so
// the other person's editor showing the box can only come from the draft, tagged '<author> ·
// unsaved'; the server still holds nothing. Released, the save lands and confirms it: the tag
// goes. When the author's saves are refused, the other person's editor drops the draft after its
// timeout (and never saves it itself); when the author's tab closes, a few seconds after it
// (LIVE_DRAFT_LEAVE_GRACE_MS), and it shows what the server holds.
import { expect, test, type Browser, type Page, type Route } from '@playwright/test';
import { annotationRows, canvasBox, drawBox, editorProject, loadSaved, type EditorProject } from './editor-helpers';
import { member, memberBrowser } from './live-helpers';

const CLASSES = [{ name: 'car', type: 'box' as const, color: '#FFADAD' }];
const IMAGE = 'lot.png';

/** Holds the page's save-changes requests until released (none lands meanwhile). */
async function holdSaves(page: Page) {
  const held: Route[] = [];
  let holding = true;
  await page.route('**/api/v1/annotations/save-changes', (route) => {
    if (holding) held.push(route);
    else void route.continue();
  });
  return {
    held: () => held.length,
    release: async () => {
      holding = false;
      for (const r of held.splice(0)) await r.continue();
    },
  };
}

/** Ada, an annotator of the organization, in a browser of her own on the image; both see each other. */
async function secondPerson(page: Page, browser: Browser, project: EditorProject) {
  const image = project.images.find((i) => i.filename === IMAGE)!;
  const b = await memberBrowser(browser, await member(page, project, 'Ada Lovelace'), { image: { projectId: project.projectId, ...image } });
  const peers = page.getByRole('list', { name: 'People on this image' });
  await expect(peers.getByRole('img', { name: 'Ada Lovelace', exact: true })).toBeVisible({ timeout: 15_000 });
  await expect(b.page.getByRole('list', { name: 'People on this image' }).getByRole('img', { name: project.user.fullName, exact: true })).toBeVisible({ timeout: 15_000 });
  return { ...b, image };
}

test('the other person sees a new box before its author\'s save lands; the save then confirms it', async ({ page, browser }) => {
  test.setTimeout(120_000);
  const project = await editorProject(page, { classes: CLASSES, images: [{ name: IMAGE }], open: IMAGE });
  const b = await secondPerson(page, browser, project);
  try {
    const saves = await holdSaves(page);
    await drawBox(page, [150, 150], [260, 240]);
    // Ada's editor lists the box while the author's save is held: the server has none yet.
    await expect(annotationRows(b.page)).toHaveCount(1, { timeout: 20_000 });
    expect((await loadSaved(page, project, b.image.id)).annotations).toHaveLength(0);
    // It says whose it is and that it is not saved: a tag (text, in a list a screen reader names)
    // just under the box's bottom-left corner. The author's own editor tags nothing.
    const tag = b.page.getByRole('list', { name: 'Unsaved edits of others' }).getByRole('listitem');
    await expect(tag).toHaveText(`${project.user.fullName} · unsaved`);
    const canvas = await canvasBox(b.page);
    const at = (await tag.boundingBox())!;
    expect(Math.abs(at.x - canvas.x - 150)).toBeLessThan(8);
    expect(Math.abs(at.y - canvas.y - 240)).toBeLessThan(10);
    await expect(page.getByTestId('peer-draft')).toHaveCount(0);
    await b.page.screenshot({ path: 'test-results/shots/live-draft-peer.png' });
    // The save goes (at most the ceiling after the change) and lands: the box is saved, Ada keeps
    // it, and the tag goes.
    await expect.poll(() => saves.held(), { timeout: 20_000 }).toBeGreaterThan(0);
    await saves.release();
    await expect.poll(async () => (await loadSaved(page, project, b.image.id)).annotations.length, { timeout: 20_000 }).toBe(1);
    await expect(tag).toHaveCount(0, { timeout: 10_000 });
    await expect(annotationRows(b.page)).toHaveCount(1);
    await expect(annotationRows(page)).toHaveCount(1);
    await b.page.screenshot({ path: 'test-results/shots/live-draft-peer-saved.png' });
  } finally {
    await b.context.close().catch(() => undefined);
  }
});

test('a draft whose save is refused, or whose author goes away, is dropped: the other person sees what the server holds', async ({ page, browser }) => {
  test.setTimeout(200_000);
  const project = await editorProject(page, { classes: CLASSES, images: [{ name: IMAGE }], open: IMAGE });
  const b = await secondPerson(page, browser, project);
  try {
    // Every save of Ada's is refused while her tab is open: her boxes do not reach the server.
    const refuse = (route: Route) => route.fulfill({ status: 400, contentType: 'application/json', body: JSON.stringify({ error: 'refused by the test', code: 'invalid_request' }) });
    await b.context.route('**/api/v1/annotations/save-changes', refuse);
    await b.context.route('**/api/v1/annotations/batch-save-data', refuse);
    await drawBox(b.page, [150, 150], [260, 240]);
    await expect(annotationRows(page)).toHaveCount(1, { timeout: 20_000 });
    // No save of it comes: after the draft's timeout the box goes from this editor (Ada still on the
    // image), with its tag.
    await expect(page.getByTestId('peer-draft')).toHaveText('Ada Lovelace · unsaved');
    await expect(annotationRows(page)).toHaveCount(0, { timeout: 40_000 });
    await expect(page.getByTestId('peer-draft')).toHaveCount(0);
    await expect(page.getByRole('list', { name: 'People on this image' }).getByRole('img', { name: 'Ada Lovelace', exact: true })).toBeVisible();
    expect((await loadSaved(page, project, b.image.id)).annotations).toHaveLength(0);

    // Ada draws again and closes her tab: her draft ends soon after she leaves the image, and this
    // editor shows what the server holds (her tab may still save its work as it closes: then that).
    await drawBox(b.page, [300, 150], [400, 240]);
    await expect(annotationRows(page)).toHaveCount(1, { timeout: 20_000 });
    await b.page.close();
    await expect(page.getByRole('list', { name: 'People on this image' }).getByRole('img', { name: 'Ada Lovelace', exact: true })).toHaveCount(0, { timeout: 30_000 });
    await expect.poll(async () => (await annotationRows(page).count()) === (await loadSaved(page, project, b.image.id)).annotations.length, { timeout: 30_000 }).toBe(true);
  } finally {
    await b.context.close().catch(() => undefined);
  }
});
