// A URL for every view (issue 29): the project's tabs and the editor have paths with ids, the Data
// view's folder, stage filter, search and sort live in the query string (a reload keeps them, Back
// and Forward walk them), the editor's Copy link gives a link a teammate opens signed out and lands
// on after signing in, another organization's links show the same not-found page as links to
// nothing, and the paths before issue 29 redirect.
import { randomUUID } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { apiCall, editorProject, scenePng, uploadImages, type EditorProject } from './editor-helpers';
import { signIn, signUp, signUpWithOrganization, uniqueUser } from './helpers';

const CLASSES = [{ name: 'car', type: 'box' as const, color: '#FFADAD' }];

/** A project with a.png, b.png and c.png in /birds (and `atRoot` at the root), its page open. */
async function birdsProject(page: Page, atRoot: string[] = []): Promise<EditorProject> {
  const project = await editorProject(page, { classes: CLASSES, images: atRoot.map((name) => ({ name, width: 320, height: 240 })) });
  expect((await apiCall(page, 'POST', '/api/folders/create', { project_id: project.projectId, name: 'birds', parent_folder_path: '/' })).status).toBe(200);
  const birds = await Promise.all(['a.png', 'b.png', 'c.png'].map(async (name, i) => ({ name, folder: '/birds', buffer: await scenePng(320, 240, i * 40) })));
  project.images.push(...(await uploadImages(page, project.projectId, project.orgId, birds)));
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
  return project;
}
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The page's URL is exactly `path` (with its query) on the app's origin. */
const at = (path: string) => new RegExp(`^https?://[^/]+${escape(path)}$`);

const tiles = (page: Page) => page.getByTestId('image-tile');
const crumbs = (page: Page) => page.getByRole('navigation', { name: 'Folder path' });

async function sortByFilename(page: Page, order: 'desc' | 'asc') {
  for (const _ of order === 'desc' ? [1] : [1, 2]) {
    await page.getByRole('button', { name: /^(Date Added|Filename)/ }).click();
    await page.getByRole('menuitemcheckbox', { name: 'Filename' }).click();
  }
}

test('a view has its URL: a reload keeps folder, filter and sort; Back and Forward walk the views and the images', async ({ page }) => {
  test.setTimeout(120_000);
  const project = await birdsProject(page, ['root.png']);
  const base = `/projects/${project.projectId}`;
  await expect(page).toHaveURL(at(`${base}/data`));

  // Each choice is a URL: the folder, the sort (Filename, then ascending), a stage filter.
  await page.getByTestId('folder-tile').filter({ hasText: 'birds' }).click();
  await expect(page).toHaveURL(at(`${base}/data?folder=%2Fbirds`));
  await sortByFilename(page, 'asc');
  await expect(page).toHaveURL(at(`${base}/data?folder=%2Fbirds&sort=filename&order=asc`));
  await page.getByRole('button', { name: 'All statuses' }).click();
  await page.getByRole('menuitemcheckbox').nth(1).click();
  const view = `${base}/data?folder=%2Fbirds&stage=new&sort=filename&order=asc`;
  await expect(page).toHaveURL(at(view));
  await expect(tiles(page)).toHaveCount(3);
  await expect(tiles(page).first()).toContainText('a.png');

  // A reload shows the same view.
  await page.reload();
  await expect(page).toHaveURL(at(view));
  await expect(crumbs(page)).toHaveText(/All images.*birds$/);
  await expect(page.getByRole('button', { name: 'All statuses' })).toHaveCount(0);
  await expect(tiles(page)).toHaveCount(3);
  await expect(tiles(page).nth(0)).toContainText('a.png');
  await expect(tiles(page).nth(2)).toContainText('c.png');

  // The editor's URL carries the view: previous / next follow it (b is 2 of 3 by name).
  await page.getByRole('button', { name: 'b.png', exact: true }).click();
  const b = project.images.find((i) => i.filename === 'b.png')!;
  const c = project.images.find((i) => i.filename === 'c.png')!;
  const viewQuery = '?folder=%2Fbirds&stage=new&sort=filename&order=asc';
  await expect(page).toHaveURL(at(`${base}/images/${b.id}${viewQuery}`));
  await expect(page.getByRole('heading', { name: 'b.png', level: 1 })).toBeVisible();
  await expect(page.getByText('2 of 3')).toBeVisible();
  await page.getByRole('button', { name: 'Next image (.)' }).click();
  await expect(page).toHaveURL(at(`${base}/images/${c.id}${viewQuery}`));
  await expect(page.getByRole('heading', { name: 'c.png', level: 1 })).toBeVisible();
  await expect(page.getByText('3 of 3')).toBeVisible();

  // Back and Forward: the images, then the Data view as it was, then the views before it.
  await page.goBack();
  await expect(page.getByRole('heading', { name: 'b.png', level: 1 })).toBeVisible();
  await expect(page).toHaveURL(at(`${base}/images/${b.id}${viewQuery}`));
  await page.goBack();
  await expect(page).toHaveURL(at(view));
  await expect(page.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
  await expect(tiles(page).nth(0)).toContainText('a.png');
  await page.goBack();
  await expect(page).toHaveURL(at(`${base}/data?folder=%2Fbirds&sort=filename&order=asc`));
  await expect(page.getByRole('button', { name: 'All statuses' })).toBeVisible();
  await page.goBack();
  await page.goBack();
  await expect(page).toHaveURL(at(`${base}/data?folder=%2Fbirds`));
  await page.goBack();
  await expect(page).toHaveURL(at(`${base}/data`));
  await expect(crumbs(page)).toHaveText(/^All images$/);
  await expect(page.getByTestId('folder-tile')).toHaveCount(1);
  await page.goForward();
  await expect(page).toHaveURL(at(`${base}/data?folder=%2Fbirds`));
  await expect(crumbs(page)).toHaveText(/All images.*birds$/);

  // The tabs have paths too, and Back returns to the Data view.
  await page.getByRole('tab', { name: /Classes/ }).click();
  await expect(page).toHaveURL(at(`${base}/classes`));
  await page.goBack();
  await expect(page).toHaveURL(at(`${base}/data?folder=%2Fbirds`));
  await expect(page.getByRole('tab', { name: /Data/ })).toHaveAttribute('aria-selected', 'true');

  // The editor's own Back goes to the view the image was opened from.
  await page.goto(`${base}/images/${c.id}?q=c.png`);
  await expect(page.getByRole('heading', { name: 'c.png', level: 1 })).toBeVisible();
  await page.getByRole('button', { name: 'Back', exact: true }).click();
  await expect(page).toHaveURL(at(`${base}/data?q=c.png`));
  await expect(page.getByRole('searchbox', { name: 'Search images by file name' })).toHaveValue('c.png');
  await expect(tiles(page)).toHaveCount(1);
});

test('a copied editor link, opened in a fresh signed-out browser, lands on that image after sign-in', async ({ page, context, browser }) => {
  test.setTimeout(120_000);
  const project = await birdsProject(page);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.getByTestId('folder-tile').filter({ hasText: 'birds' }).click();
  await sortByFilename(page, 'asc');
  await page.getByRole('button', { name: 'b.png', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'b.png', level: 1 })).toBeVisible();
  await expect(page.getByText('Loading image...')).toBeHidden({ timeout: 20_000 });

  // Copy link: keyboard reachable, with a tooltip, and a toast says it worked.
  const copy = page.getByRole('button', { name: 'Copy link' });
  await copy.focus();
  await expect(page.getByRole('tooltip')).toHaveText('Copy link');
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.screenshot({ path: 'test-results/editor-copy-link-bar.png', clip: { x: 0, y: 0, width: 1440, height: 120 } });
  await page.keyboard.press('Enter');
  await expect(page.getByText('Link copied to the clipboard')).toBeVisible();
  const link = await page.evaluate(() => navigator.clipboard.readText());
  expect(link).toBe(page.url());
  const b = project.images.find((i) => i.filename === 'b.png')!;
  expect(new URL(link).pathname).toBe(`/projects/${project.projectId}/images/${b.id}`);
  expect(new URL(link).search).toBe('?folder=%2Fbirds&sort=filename&order=asc');
  await page.screenshot({ path: 'test-results/editor-copy-link.png' });

  // A teammate's browser, signed out: the link shows sign-in, then the image, at the same URL.
  const fresh = await browser.newContext();
  const other = await fresh.newPage();
  await other.goto(link);
  await signIn(other, project.user);
  await expect(other.getByRole('heading', { name: 'b.png', level: 1 })).toBeVisible({ timeout: 20_000 });
  expect(other.url()).toBe(link);
  await expect(other.getByText('2 of 3')).toBeVisible();
  await fresh.close();
});

test('a link opened signed out is where sign-up and onboarding end', async ({ page }) => {
  const user = uniqueUser('linked');
  await signUp(page, user, '/settings');
  await page.getByLabel('Organization name').fill(`Linked ${user.id}`);
  await page.getByRole('button', { name: 'Create Organization & Continue' }).click();
  await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
  await expect(page).toHaveURL(/\/settings$/);
});

// The owner's old paths, then another organization's view of the same project: one owner and
// project (a test's fixed part, a context, a sign-up and the app's first load, is some 3 s of
// CPU: tests/README.md, "Where the time goes").
test("the paths before issue 29 redirect to the new ones; another organization's links show the ordinary not-found page, as links to nothing do; a member is switched to the link's organization", async ({ page, browser }) => {
  test.setTimeout(180_000);
  const project = await editorProject(page, { classes: CLASSES, images: [{ name: 'a.png', width: 320, height: 240 }] });
  const base = `/projects/${project.projectId}`;
  const image = project.images[0]!;

  await test.step('the paths before issue 29 redirect to the new ones', async () => {
    // /project: the last project's Data tab; /projects/:id: its Data tab.
    await page.goto('/project');
    await expect(page).toHaveURL(at(`${base}/data`));
    await expect(page.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
    await page.goto(base);
    await expect(page).toHaveURL(at(`${base}/data`));
    // /project/annotate/<name>: the image of that name in the last project, else that project.
    await page.goto('/project/annotate/a.png');
    await expect(page).toHaveURL(at(`${base}/images/${image.id}`));
    await expect(page.getByRole('heading', { name: 'a.png', level: 1 })).toBeVisible();
    await page.goto('/project/annotate/nothing.png');
    await expect(page).toHaveURL(at(`${base}/data`));
    // A redirect replaces its entry: Back does not bounce through it.
    await page.goBack();
    await expect(page).toHaveURL(at(`${base}/images/${image.id}`));
  });

  await test.step("another organization's links show the ordinary not-found page, as links to nothing do; a member is switched to the link's organization", async () => {

    const fresh = await browser.newContext();
    const other = await fresh.newPage();
    const outsider = uniqueUser('outsider');
    await signUpWithOrganization(other, outsider, `Outsider Org ${outsider.id}`);
    const notFound = async (path: string) => {
      await other.goto(path);
      await expect(other.getByRole('heading', { name: 'Page not found' })).toBeVisible();
      expect(new URL(other.url()).pathname + new URL(other.url()).search).toBe(path);
      return other.getByRole('main').innerText();
    };
    // The project and its image exist, in another organization: the same page as for nothing.
    const theirs = await notFound(`${base}/data`);
    await other.setViewportSize({ width: 1440, height: 900 });
    await other.screenshot({ path: 'test-results/not-found.png' });
    expect(await notFound(`${base}/images/${image.id}?folder=%2F`)).toBe(theirs);
    expect(await notFound(`/projects/${randomUUID()}/data`)).toBe(theirs);
    expect(await notFound(`/projects/${randomUUID()}/images/${randomUUID()}`)).toBe(theirs);
    expect(await notFound('/projects/not-an-id/data')).toBe(theirs);
    expect(await notFound(`${base}/images/not-an-id`)).toBe(theirs);
    expect(theirs).not.toContain('Streets');
    expect(theirs).not.toContain('a.png');
    // Its one way out.
    await other.getByRole('button', { name: 'Go to projects' }).click();
    await expect(other).toHaveURL(/\/select$/);

    // The owner: an image id that is not there, and a tab that does not exist.
    await page.goto(`${base}/images/${randomUUID()}`);
    await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
    await page.goto(`${base}/settings`);
    await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();

    // Once a member, the outsider's link opens, and the current organization becomes the project's.
    const invite = await apiCall(page, 'POST', `/organizations/${project.orgId}/invites`, { email: outsider.email, role: 'annotator' });
    expect(invite.status).toBe(200);
    const inviteToken = (invite.body.invite_url as string).split('/invite/')[1];
    expect((await apiCall(other, 'POST', `/invites/${inviteToken}/accept`)).status).toBe(200);
    await other.goto('/select');
    await expect(other.getByRole('heading', { name: `Outsider Org ${outsider.id}`, level: 1 })).toBeVisible();
    await other.goto(`${base}/images/${image.id}`);
    await expect(other.getByRole('heading', { name: 'a.png', level: 1 })).toBeVisible({ timeout: 20_000 });
    await other.goto(`${base}/data`);
    await expect(other.getByRole('heading', { name: 'Streets', level: 1 })).toBeVisible();
    await expect(other.getByRole('navigation', { name: 'Main' })).toContainText(`Editor Org ${project.user.id}`);
    await fresh.close();
  });
});
