// Single-key shortcuts (issue 37, WCAG 2.1.4): the Hotkeys tab turns them off (then B or R on the
// canvas does nothing) or remaps any of them, a tool's key or any other single key (the new key
// works, the old one does not, a key another shortcut has is refused with a word why), shows the
// keys as they are, and resets them. The
// setting is the person's: it survives a reload and follows them to another browser. Space presses
// a focused button instead of panning.
import { expect, test, type Page } from '@playwright/test';
import { editorProject, gotoEditorImage } from './editor-helpers';
import { signIn } from './helpers';

async function openHotkeys(page: Page) {
  await page.getByRole('button', { name: 'Editor settings' }).click();
  const panel = page.getByRole('dialog', { name: 'Editor settings' });
  await panel.getByRole('tab', { name: 'Hotkeys' }).click();
  return panel;
}

async function closeSettings(page: Page) {
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog', { name: 'Editor settings' })).toBeHidden();
}

const tool = (page: Page, name: string | RegExp) => page.getByRole('toolbar', { name: 'Tools' }).getByRole('button', { name, exact: typeof name === 'string' });

test('single-key shortcuts turn off, remap with clashes refused, follow the person to another browser; Space presses a focused button', async ({ page, browser }) => {
  test.setTimeout(180_000);
  const project = await editorProject(page, { classes: [{ name: 'car', type: 'box', color: '#4C6EF5' }], images: [{ name: 'keys.png' }], open: 'keys.png' });
  const canvas = page.getByTestId('editor-canvas');

  // Off: R and B on the canvas change nothing; the palette shows no keys, the list says "(off)".
  let panel = await openHotkeys(page);
  await panel.getByRole('switch', { name: 'Use single-key shortcuts' }).click();
  await expect(panel.getByRole('status')).toHaveText('Single-key shortcuts off');
  await expect(panel.getByText('Bounding Box (off)')).toBeVisible();
  await closeSettings(page);
  await canvas.focus();
  await page.keyboard.press('r');
  await page.keyboard.press('b');
  await expect(tool(page, 'Select')).toHaveAttribute('aria-pressed', 'true');
  await expect(tool(page, 'Bounding Box')).toHaveAttribute('aria-pressed', 'false');
  await expect(tool(page, 'Brush')).toHaveAttribute('aria-pressed', 'false');

  // On again; the box tool remapped to G; Polygon asked for G too is refused, and keeps P.
  panel = await openHotkeys(page);
  await panel.getByRole('switch', { name: 'Use single-key shortcuts' }).click();
  await panel.getByRole('textbox', { name: 'Key for Bounding Box' }).press('g');
  await expect(panel.getByRole('status')).toHaveText('Bounding Box: G');
  await expect(panel.getByRole('textbox', { name: 'Key for Bounding Box' })).toHaveValue('G');
  await panel.getByRole('textbox', { name: 'Key for Polygon' }).press('g');
  await expect(panel.getByRole('alert')).toHaveText('G is already Bounding Box: choose another key for Polygon.');
  await expect(panel.getByRole('textbox', { name: 'Key for Polygon' })).toHaveValue('P');
  // A key another of the editor's shortcuts has (W pans up) is refused as well.
  await panel.getByRole('textbox', { name: 'Key for Polygon' }).press('w');
  await expect(panel.getByRole('alert')).toHaveText('W is already Pan up: choose another key for Polygon.');
  // The list shows the keys as they are now.
  const boxRow = panel.locator('dl div').filter({ hasText: /^GBounding Box$/ });
  await expect(boxRow).toHaveCount(1);
  await closeSettings(page);
  await canvas.focus();
  await page.keyboard.press('g');
  await expect(tool(page, 'Bounding Box (G)')).toHaveAttribute('aria-pressed', 'true');
  await page.keyboard.press('q');
  await page.keyboard.press('r');
  await expect(tool(page, 'Select (Q)')).toHaveAttribute('aria-pressed', 'true');

  // Space on a focused tool button presses it (it does not pan the canvas).
  await tool(page, 'Polygon (P)').focus();
  await page.keyboard.press(' ');
  await expect(tool(page, 'Polygon (P)')).toHaveAttribute('aria-pressed', 'true');

  // A reload keeps G.
  await page.reload();
  await expect(tool(page, 'Bounding Box (G)')).toBeVisible();

  // Another browser, signed in afresh: the same keys.
  const other = await browser.newContext();
  const second = await other.newPage();
  await second.goto('/');
  await signIn(second, project.user);
  await expect(second.getByRole('navigation', { name: 'Main' })).toBeVisible();
  await gotoEditorImage(second, project.projectId, project.images[0]);
  await expect(tool(second, 'Bounding Box (G)')).toBeVisible();
  await second.getByTestId('editor-canvas').focus();
  await second.keyboard.press('g');
  await expect(tool(second, 'Bounding Box (G)')).toHaveAttribute('aria-pressed', 'true');

  // Reset: R is the box's key again.
  panel = await openHotkeys(second);
  await panel.getByRole('button', { name: 'Reset to defaults' }).click();
  await expect(panel.getByRole('status')).toHaveText('Shortcuts reset to the defaults');
  await expect(panel.getByRole('textbox', { name: 'Key for Bounding Box' })).toHaveValue('R');
  await expect(tool(second, 'Bounding Box (R)')).toBeVisible();
  await other.close();
});

test('every other single-key shortcut remaps too: V for the history moves to J, Shift and a letter included, a taken key refused', async ({ page }) => {
  test.setTimeout(150_000);
  await editorProject(page, { classes: [{ name: 'car', type: 'box', color: '#4C6EF5' }], images: [{ name: 'keys.png' }], open: 'keys.png' });
  const canvas = page.getByTestId('editor-canvas');
  const history = page.getByRole('complementary', { name: 'History' });

  const panel = await openHotkeys(page);
  await panel.getByText('Other keys').click();
  const field = (name: string) => panel.getByRole('textbox', { name: `Key for ${name}` });
  await field('Version history').press('j');
  await expect(panel.getByRole('status')).toHaveText('Version history: J');
  await expect(field('Version history')).toHaveValue('J');
  // Hide asked for Q (the Select tool's) is refused and keeps H.
  await field('Hide').press('q');
  await expect(panel.getByRole('alert')).toHaveText('Q is already Select: choose another key for Hide.');
  await expect(field('Hide')).toHaveValue('H');
  // Shift and a letter is a key of its own: the stage picker on Shift+U.
  await field('Set stage').press('Shift+U');
  await expect(field('Set stage')).toHaveValue('Shift+U');
  // The list below says so.
  await expect(panel.locator('dl div').filter({ hasText: /^JShow or hide the version history$/ })).toHaveCount(1);
  await closeSettings(page);
  // The history button names its new key, for the eye and for assistive technology.
  await expect(page.getByRole('button', { name: 'Version history (J)' })).toHaveAttribute('aria-keyshortcuts', 'J');

  await canvas.focus();
  await page.keyboard.press('v');
  await expect(history).toBeHidden();
  await page.keyboard.press('j');
  await expect(history).toBeVisible();
  await page.keyboard.press('j');
  await expect(history).toBeHidden();
  await canvas.focus();
  await page.keyboard.press('Shift+U');
  await expect(page.getByRole('menu').filter({ hasText: 'Set stage' })).toBeVisible();
  await page.keyboard.press('Escape');
  // Shift+S, the stage's old key, opens nothing now.
  await canvas.focus();
  await page.keyboard.press('Shift+S');
  await expect(page.getByRole('menu').filter({ hasText: 'Set stage' })).toBeHidden();
  // A reload keeps them, from the first key: this device kept a copy, so J opens the history even
  // while the server has not yet answered for the person's preferences (held here until then).
  let releasePreferences = () => {};
  const held = new Promise<void>((resolve) => (releasePreferences = resolve));
  let answered = false;
  await page.route('**/api/v1/users/me/preferences', async (route) => {
    if (route.request().method() === 'GET') await held;
    await route.continue();
    answered = true;
  });
  await page.reload();
  await expect(page.getByText('Loading image...')).toBeHidden();
  await page.getByTestId('editor-canvas').focus();
  await page.keyboard.press('j');
  await expect(history).toBeVisible();
  // The server's answer, once it comes, changes nothing: the same keys.
  releasePreferences();
  await expect.poll(() => answered).toBe(true);
  await page.keyboard.press('j');
  await expect(history).toBeHidden();
});
