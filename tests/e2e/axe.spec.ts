// axe-core (WCAG 2.2 A and AA rules) on the app's pages and dialogs (issue 37): a serious or
// critical violation fails the test, and the message lists each rule with the nodes it found.
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { annotationRows, dragOnCanvas, drawBox, editorProject } from './editor-helpers';
import { uniqueUser } from './helpers';

const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/** The serious and critical violations on the page now, one line per rule with a few of its nodes. */
async function seriousViolations(page: Page, include?: string): Promise<string[]> {
  // Every rule of the tags is on, label-content-name-mismatch (2.5.3) too since an image tile's
  // button shows only its name, the file name (issue 37).
  // axe.run in the page (legacy mode: the app has no frames), with axe-core's 550 kB injected once
  // per document: by default each check injected it again, ran in parts and finished in a new blank
  // page, 3.3 s of CPU a check against 0.8 s, with the same results (tests/README.md, "Where the
  // time goes", session 26).
  // Colours are read as drawn: a dialog still fading in blends its button with the page behind it
  // (CI once read the Invite created dialog's Done at 3.81:1 mid-fade, 4.5:1 and more at rest), so
  // the check waits for every animation and transition that ends (not a spinner's endless one).
  await page.evaluate(() => Promise.all(document.getAnimations().filter((a) => a.effect?.getComputedTiming().endTime !== Infinity).map((a) => a.finished.catch(() => undefined))));
  const injected = await page.evaluate(() => 'axe' in window);
  let builder = new AxeBuilder({ page, ...(injected ? { axeSource: 'void 0' } : {}) }).withTags(TAGS).setLegacyMode(true);
  if (include) builder = builder.include(include);
  const { violations } = await builder.analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}, ${v.nodes.length} nodes): ${v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')} ${n.html.slice(0, 100)} ${n.failureSummary?.split('\n')[1] ?? ''}`).join(' | ')}`);
}

async function expectClean(page: Page, where: string, include?: string) {
  expect(await seriousViolations(page, include), `axe on ${where}`).toEqual([]);
}

// Journeys rather than a test per page: a test's fixed part (a context, a sign-up, the app's first
// load) is some 3 s of CPU (tests/README.md, "Where the time goes"). Each step names its page.
test('axe: sign-in, sign-up and onboarding pages', async ({ page }) => {
  const user = uniqueUser('axe');
  await test.step('sign-in and sign-up', async () => {
    await page.goto('/');
    await expect(page.getByRole('heading', { name: 'Welcome Back' })).toBeVisible();
    await expectClean(page, 'sign-in');
    await page.getByLabel('Email address').fill(user.email);
    await page.getByRole('button', { name: 'Continue', exact: true }).click();
    await expect(page.getByRole('heading', { name: 'Enter Your Password' })).toBeVisible();
    await expectClean(page, 'password step');
    await page.getByRole('button', { name: 'Create an account' }).click();
    await expect(page.getByRole('heading', { name: 'Complete Your Profile' })).toBeVisible();
    await expectClean(page, 'sign-up');
  });
  await test.step('onboarding', async () => {
    // The sign-up form above, completed: the new person lands on onboarding.
    await page.getByLabel('Full name').fill(user.fullName);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Create Account' }).click();
    await expect(page.getByRole('heading', { name: 'Welcome to Vellum!' })).toBeVisible();
    await expectClean(page, 'onboarding');
  });
});

test('axe: projects, the project tabs, their dialogs, settings and models', async ({ page }) => {
  test.setTimeout(240_000);
  await editorProject(page, { classes: [{ name: 'car', type: 'box', color: '#F07575' }], images: [{ name: 'street.png' }] });
  const failures: string[] = [];
  const check = async (where: string, include?: string) => failures.push(...(await seriousViolations(page, include)).map((v) => `${where}: ${v}`));

  await check('Data tab');
  for (const [opener, dialogName] of [
    [page.getByRole('button', { name: /^Export \(\d+\)$/ }), 'Export Dataset'],
    [page.getByRole('button', { name: 'Import', exact: true }), 'Import Dataset'],
  ] as const) {
    await opener.click();
    await expect(page.getByRole('dialog', { name: dialogName })).toBeVisible();
    await check(dialogName, '[role="dialog"]');
    await page.keyboard.press('Escape');
  }
  await page.getByRole('tab', { name: /Archive/ }).click();
  await check('Archive tab');
  await page.getByRole('tab', { name: /Classes/ }).click();
  await expect(page.getByRole('button', { name: 'Add Class', exact: true }).first()).toBeVisible();
  await check('Classes tab');
  await page.getByRole('button', { name: 'Add Class', exact: true }).first().click();
  await check('Add Class', '[role="dialog"]');
  await page.keyboard.press('Escape');

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects' }).click();
  await expect(page.getByRole('button', { name: 'Open project Streets' })).toBeVisible();
  await check('projects');
  await page.getByRole('button', { name: 'Project settings' }).click();
  await check('Project Settings', '[role="dialog"]');
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: /^Create (Your First )?Project$/ }).first().click();
  await check('Create Project', '[role="dialog"]');
  await page.keyboard.press('Escape');

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  // Each section checked once it has loaded (its last card shown, no skeleton left).
  for (const [section, card] of [['Organization', 'You'], ['Members', 'Invite people'], ['Usage', 'By project'], ['Account', 'Delete account'], ['API Keys', 'API Keys']] as const) {
    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name: section }).click();
    await expect(page.getByRole('region', { name: card })).toBeVisible();
    await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
    await check(`settings ${section}`);
  }
  // The API Keys section is shown last: its Create API Key dialog; then Members' Invite created.
  await page.getByRole('region', { name: 'API Keys' }).getByRole('button', { name: 'Create API Key' }).click();
  await expect(page.getByRole('dialog', { name: 'Create API Key' })).toBeVisible();
  await check('Create API Key', '[role="dialog"]');
  await page.keyboard.press('Escape');
  await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name: 'Members' }).click();
  await page.getByLabel('Email address').fill(`axe-invitee-${Date.now()}@example.com`);
  await page.getByRole('button', { name: 'Invite', exact: true }).click();
  await expect(page.getByRole('dialog', { name: 'Invite created' })).toBeVisible();
  await check('Invite created', '[role="dialog"]');
  await page.keyboard.press('Escape');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Models' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await check('models');
  expect(failures).toEqual([]);
});

test("axe: the editor's history panel; the editor with annotation rows, and its stage menu open", async ({ page }) => {
  test.setTimeout(120_000);
  await editorProject(page, { classes: [{ name: 'car', type: 'box', color: '#F07575' }], images: [{ name: 'street.png' }], open: 'street.png' });
  await expect(page.getByTestId('editor-canvas')).toBeVisible();
  await expect(page.getByText('Loading image...')).toBeHidden();

  await test.step("the history panel of an image never saved", async () => {
    await page.getByTestId('editor-canvas').focus();
    await page.keyboard.press('v');
    await expect(page.getByRole('complementary', { name: 'History' })).toBeVisible();
    await expect(page.getByRole('complementary', { name: 'History' })).toContainText('No changes saved yet');
    await expectClean(page, 'history panel');
    // V again: the annotation list is back in its place.
    await page.getByTestId('editor-canvas').focus();
    await page.keyboard.press('v');
    await expect(page.getByRole('complementary', { name: 'History' })).toHaveCount(0);
    await expect(page.getByRole('complementary', { name: 'Annotations' })).toBeVisible();
  });

  await test.step('the editor with annotation rows, and its stage menu open', async () => {
    // Two boxes: the list's rows (options) with their buttons beside them, one selected (issue 37: no nested-interactive).
    await drawBox(page, [100, 100], [200, 180]);
    await dragOnCanvas(page, [260, 100], [360, 180]);
    await expect(annotationRows(page)).toHaveCount(2);
    const failures = (await seriousViolations(page)).map((v) => `editor: ${v}`);
    // The stage menu open: the page behind it stays readable (no aria-hidden-focus).
    await page.getByTestId('stage-picker').click();
    await expect(page.getByRole('menu').filter({ hasText: 'Set stage' })).toBeVisible();
    failures.push(...(await seriousViolations(page)).map((v) => `stage menu: ${v}`));
    await page.keyboard.press('Escape');
    expect(failures).toEqual([]);
  });
});
