// Reflow of every dialog (issue 37, WCAG 1.4.10): at 320 x 256 CSS px (1280 x 1024 at 400% zoom)
// each dialog fits the viewport, scrolls inside itself, keeps its Close and primary buttons
// reachable, cuts nothing off at its sides, and the page does not scroll sideways. The 200%
// (720 x 450) version is in accessibility.spec.ts and editor-sheet.spec.ts.
import { expect, test, type Locator, type Page } from '@playwright/test';
import { apiCall, editorProject, gotoEditorImage, openProjectPage } from './editor-helpers';

const SMALL = { width: 320, height: 256 };

/** What does not reflow in `dialog` now, one line a fault (an empty list when it all fits). */
async function reflowFaults(dialog: Locator): Promise<string[]> {
  return dialog.evaluate((el) => {
    const faults: string[] = [];
    const name = (e: Element) => `${e.tagName.toLowerCase()}${e.getAttribute('aria-label') ? `[${e.getAttribute('aria-label')}]` : ''} "${(e.textContent ?? '').trim().slice(0, 30)}"`;
    const box = el.getBoundingClientRect();
    const round = (n: number) => Math.round(n);
    if (box.left < -0.5 || box.top < -0.5 || box.right > innerWidth + 0.5 || box.bottom > innerHeight + 0.5) {
      faults.push(`the dialog (${round(box.left)},${round(box.top)})-(${round(box.right)},${round(box.bottom)}) is not inside the ${innerWidth} x ${innerHeight} viewport`);
    }
    if (document.documentElement.scrollWidth > innerWidth) faults.push(`the page scrolls sideways (${document.documentElement.scrollWidth} px wide)`);
    const scrolls = (e: Element, axis: 'x' | 'y') => ['auto', 'scroll'].includes(getComputedStyle(e)[axis === 'x' ? 'overflowX' : 'overflowY']);
    for (const e of [el, ...el.querySelectorAll('*')]) {
      const r = e.getBoundingClientRect();
      const style = getComputedStyle(e);
      // Visually hidden text (a 1 px clip) and what is not drawn are not looked at.
      if (r.width <= 1 || r.height <= 1 || style.visibility === 'hidden') continue;
      if (r.left < box.left - 0.5 || r.right > box.right + 0.5) faults.push(`${name(e)} spans x ${round(r.left)}..${round(r.right)}, past the dialog's ${round(box.left)}..${round(box.right)}`);
      if (scrolls(e, 'x') && e.scrollWidth > e.clientWidth + 1) faults.push(`${name(e)} scrolls sideways (${e.scrollWidth} in ${e.clientWidth} px)`);
      // Content taller than its box with no scroll bar is cut off (an ellipsis is a choice, with the text in a title).
      const clipped = ['hidden', 'clip'].includes(style.overflowY) && e.scrollHeight > e.clientHeight + 1 && style.textOverflow !== 'ellipsis';
      if (clipped) faults.push(`${name(e)} cuts off its content (${e.scrollHeight} in ${e.clientHeight} px)`);
      // Outside any scrolling box of the dialog, nothing may stand past the dialog's top or bottom.
      let inScroller = false;
      for (let up = e.parentElement; up && !inScroller; up = up === el ? null : up.parentElement) inScroller = scrolls(up, 'y');
      if (e !== el && !inScroller && (r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5)) faults.push(`${name(e)} spans y ${round(r.top)}..${round(r.bottom)}, past the dialog's ${round(box.top)}..${round(box.bottom)}`);
    }
    return faults;
  });
}

/** `button` can be brought into view (scrolled to, if the dialog must) and clicked there: nothing covers it. */
async function reachable(button: Locator, what: string): Promise<string[]> {
  if ((await button.count()) === 0) return [`no ${what}`];
  await button.scrollIntoViewIfNeeded();
  const hit = await button.evaluate((b) => {
    const r = b.getBoundingClientRect();
    const inside = r.left >= -0.5 && r.top >= -0.5 && r.right <= innerWidth + 0.5 && r.bottom <= innerHeight + 0.5;
    const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return { inside, covered: !(top && (top === b || b.contains(top))), box: `${Math.round(r.left)},${Math.round(r.top)} ${Math.round(r.width)}x${Math.round(r.height)}` };
  });
  return [...(hit.inside ? [] : [`${what} at ${hit.box} is not wholly on screen`]), ...(hit.covered ? [`${what} at ${hit.box} is covered`] : [])];
}

/**
 * Checks the open dialog called `name` at 320 x 256: it reflows, its Close button (none in a
 * popover: `close: false`) and its primary button (the footer's last, or `primary`) are
 * reachable, and a screenshot is kept. Closes it with Escape.
 */
async function checkDialog(page: Page, name: string | RegExp, failures: string[], { primary, close = true }: { primary?: string; close?: boolean } = {}) {
  const dialog = page.getByRole('dialog', { name });
  await expect(dialog).toBeVisible();
  // The opening animation has ended (it scales the dialog).
  await expect.poll(() => dialog.evaluate((el) => el.getAnimations().filter((a) => a.playState === 'running').length)).toBe(0);
  const label = typeof name === 'string' ? name : name.source;
  const faults = await reflowFaults(dialog);
  if (close) faults.push(...(await reachable(dialog.getByRole('button', { name: 'Close', exact: true }), 'the Close button')));
  const footer = dialog.locator('[data-dialog-footer]');
  if (primary || (await footer.count())) {
    faults.push(...(await reachable(primary ? dialog.getByRole('button', { name: primary, exact: true }) : footer.getByRole('button').last(), 'the primary button')));
  }
  await page.screenshot({ path: `test-results/shots/a11y-dialog-${label.replace(/\W+/g, '-').toLowerCase()}-320x256.png` });
  failures.push(...faults.map((f) => `${label}: ${f}`));
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
}

// One journey, one person and project (a test's fixed part, a context, a sign-up and the app's
// first load, is some 3 s of CPU: tests/README.md, "Where the time goes"); each step checks its
// own dialogs and fails on its own list.
test('at 320 x 256 every dialog reflows: Data, Archive, Classes and projects; settings and models; the editor', async ({ page }) => {
  test.setTimeout(240_000);
  page.on('console', (m) => m.type() === 'error' && console.log('browser:', m.text()));
  // street.png is archived by the first step; the editor step opens harbour.png, given a car box here.
  const project = await editorProject(page, { classes: [{ name: 'car', type: 'box', color: '#F07575' }], images: [{ name: 'street.png' }, { name: 'harbour.png' }], open: false });
  const harbour = project.images.find((i) => i.filename === 'harbour.png')!;
  const saved = await apiCall(page, 'POST', '/annotations/save-data', { image_id: harbour.id, project_id: project.projectId, image_filename: harbour.filename, annotations: [{ id: 'a', name: 'car', bounding_box: { x: 100, y: 100, w: 120, h: 80 }, attributes: [] }] });
  expect(saved.status).toBe(200);
  await openProjectPage(page, project.projectId);
  await page.setViewportSize(SMALL);

  await test.step('the Data, Archive, Classes and projects dialogs', async () => {
    const failures: string[] = [];
    await page.getByRole('button', { name: /^Export \(\d+\)$/ }).click();
    await checkDialog(page, 'Export Dataset', failures);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await checkDialog(page, 'Import Dataset', failures);
    await page.getByRole('checkbox', { name: 'Select street.png' }).click();
    const selection = page.getByRole('toolbar', { name: 'Selected images' });
    await selection.getByRole('button', { name: 'Assign…' }).click();
    await checkDialog(page, 'Assign 1 image', failures);
    await selection.getByRole('button', { name: 'Edit' }).click();
    await checkDialog(page, 'Magic Image Edit', failures);

    // The image archived, then deleted for good from the Archive tab: that asks first. (The toast
    // that offers Undo is dismissed: at 256 px it would lie over the next dialog's footer.)
    await selection.getByRole('button', { name: 'Archive' }).click();
    await page.getByRole('button', { name: 'Dismiss message' }).click();
    await page.getByRole('tab', { name: /Archive/ }).click();
    await page.getByRole('checkbox', { name: 'Select street.png' }).click();
    await selection.getByRole('button', { name: 'Delete' }).click();
    await checkDialog(page, 'Delete 1 image permanently?', failures);

    await page.getByRole('tab', { name: /Classes/ }).click();
    await page.getByRole('button', { name: 'Add Class', exact: true }).first().click();
    await checkDialog(page, 'Add Class', failures);
    await page.getByRole('button', { name: 'Add from List' }).click();
    await checkDialog(page, 'Add Classes from a List', failures);
    await page.getByRole('button', { name: 'Attributes of car: No attributes' }).click();
    await checkDialog(page, 'Attributes of car', failures);
    await page.getByRole('button', { name: 'Delete car' }).click();
    await checkDialog(page, 'Delete class?', failures);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects' }).click();
    await page.getByRole('button', { name: /^Create (Your First )?Project$/ }).first().click();
    await checkDialog(page, 'Create Project', failures);
    await page.getByRole('button', { name: 'Project settings' }).click();
    await checkDialog(page, 'Project Settings', failures);
    await page.getByRole('button', { name: 'Project settings' }).click();
    await page.getByRole('dialog', { name: 'Project Settings' }).getByRole('button', { name: 'Delete Project' }).click();
    await checkDialog(page, 'Delete project?', failures);
    // The confirmation closed, Project Settings is still open under it: closed too, for the next step.
    await page.keyboard.press('Escape');
    await expect(page.getByRole('dialog', { name: 'Project Settings' })).toBeHidden();
    expect(failures).toEqual([]);
  });

  await test.step('the settings and models dialogs', async () => {
    const failures: string[] = [];
    const section = async (name: string) => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
      await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name }).click();
    };

    await section('API Keys');
    await page.getByRole('region', { name: 'API Keys' }).getByRole('button', { name: 'Create API Key' }).click();
    await checkDialog(page, 'Create API Key', failures);
    await page.getByRole('region', { name: 'API Keys' }).getByRole('button', { name: 'Create API Key' }).click();
    await page.getByRole('dialog', { name: 'Create API Key' }).getByLabel('Name').fill('Nightly import');
    await page.getByRole('dialog', { name: 'Create API Key' }).getByLabel('Name').press('Enter');
    await checkDialog(page, 'Your new API key', failures);
    await page.getByRole('button', { name: 'Delete API key Nightly import' }).click();
    await checkDialog(page, 'Delete API key', failures);

    await section('Members');
    await page.getByLabel('Email address').fill(`invitee-${Date.now()}@example.com`);
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    await checkDialog(page, 'Invite created', failures);

    await section('Account');
    await page.getByRole('button', { name: 'Delete Account' }).click();
    await checkDialog(page, 'Delete Account Permanently', failures);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Models' }).click();
    await page.getByRole('button', { name: 'Add Model' }).click();
    await checkDialog(page, 'Add Model', failures);
    expect(failures).toEqual([]);
  });

  await test.step('the editor dialogs', async () => {
    await gotoEditorImage(page, project.projectId, harbour);
    await expect(page.getByText('Loading image...')).toBeHidden();
    const failures: string[] = [];

    await page.getByRole('button', { name: 'Editor settings' }).click();
    await checkDialog(page, 'Editor settings', failures, { close: false });
    // Below 768 px the annotations are a sheet; Remove All is at its foot.
    await page.getByRole('button', { name: 'Show annotations' }).click();
    await page.getByRole('dialog', { name: 'Annotations' }).getByRole('button', { name: 'Remove All' }).click();
    await checkDialog(page, 'Remove all annotations?', failures);
    expect(failures).toEqual([]);
  });
});
