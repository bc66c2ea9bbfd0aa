import { expect, test } from '@playwright/test';
import { slugify } from '../../src/contract/validation';
import { createProject, signIn, signUp, signUpWithOrganization, uniqueUser } from './helpers';
import { apiCall, editorProject } from './editor-helpers';

test('a new user signs up, onboards, creates a project that survives a reload and a new sign-in', async ({ page }) => {
  const user = uniqueUser('journey');
  await signUp(page, user);

  // Onboarding: the name comes from sign-up, the identifier derives from the organization name.
  await expect(page.getByLabel('Full name')).toHaveValue(user.fullName);
  const submit = page.getByRole('button', { name: 'Create Organization & Continue' });
  await expect(submit).toBeDisabled();
  const orgName = `Journey Labs ${user.id}`;
  await page.getByLabel('Organization name').fill(orgName);
  await expect(page.getByLabel('Organization identifier')).toHaveValue(slugify(orgName));
  await expect(page.getByText(`vellum-${slugify(orgName)}`)).toBeVisible();
  await expect(submit).toBeEnabled();
  await submit.click();

  // Projects page: organization header, empty state.
  await expect(page).toHaveURL(/\/select$/);
  await expect(page.getByRole('heading', { name: orgName, level: 1 })).toBeVisible();
  await expect(page.getByText('Free plan').first()).toBeVisible();
  await expect(page.getByText('No projects yet')).toBeVisible();
  await expect(page.getByText('Create your first annotation project to get started')).toBeVisible();

  // The create button stays disabled until the name has more than blanks.
  await page.getByRole('button', { name: 'Create Your First Project' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create Project' });
  await dialog.getByLabel('Project name').fill('   ');
  await expect(dialog.getByRole('button', { name: 'Create Project' })).toBeDisabled();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  await createProject(page, 'Street scenes', 'Cars, people and signs');
  await expect(page.getByText('No projects yet')).toBeHidden();

  await page.reload();
  await expect(page.getByRole('button', { name: 'Open project Street scenes' })).toBeVisible();

  await page.getByRole('button', { name: 'Sign Out' }).click();
  await expect(page.getByRole('heading', { name: 'Welcome Back' })).toBeVisible();
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Welcome Back' })).toBeVisible();

  await signIn(page, user);
  await expect(page.getByText('Successfully signed in!')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Open project Street scenes' })).toBeVisible();

  // Opening a card shows the project's page at its own URL, which survives a reload.
  await page.getByRole('button', { name: 'Open project Street scenes' }).click();
  await expect(page).toHaveURL(/\/projects\/[0-9a-f-]{36}\/data$/);
  await expect(page.getByRole('heading', { name: 'Street scenes', level: 1 })).toBeVisible();
  await expect(page.getByText('0 images').first()).toBeVisible();
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Street scenes', level: 1 })).toBeVisible();
});

// One person through project settings, the organization switcher and the routes (a test's fixed
// part, a context, a sign-up and the app's first load, is some 3 s of CPU: tests/README.md, "Where
// the time goes"). The routes come last: they collapse the sidebar, which is remembered.
test('project settings rename and delete a project; the organization switcher changes the organization and remembers it; unknown paths show not-found, the sidebar remembers collapsing', async ({ page }) => {
  test.setTimeout(180_000);
  const user = uniqueUser('switch');
  const first = `First Org ${user.id}`;
  await signUpWithOrganization(page, user, first);

  await test.step('project settings rename a project and delete it after confirmation', async () => {
    await createProject(page, 'Draft dataset');

    await page.getByRole('button', { name: 'Project settings' }).click();
    const settings = page.getByRole('dialog', { name: 'Project Settings' });
    const save = settings.getByRole('button', { name: 'Save Changes' });
    await expect(save).toBeDisabled();
    await settings.getByLabel('Project name').fill('');
    await expect(save).toBeDisabled();
    await settings.getByLabel('Project name').fill('Final dataset');
    await save.click();
    await expect(settings).toBeHidden();
    await expect(page.getByRole('button', { name: 'Open project Final dataset' })).toBeVisible();
    await page.reload();
    await expect(page.getByRole('button', { name: 'Open project Final dataset' })).toBeVisible();

    await page.getByRole('button', { name: 'Project settings' }).click();
    await page.getByRole('dialog', { name: 'Project Settings' }).getByRole('button', { name: 'Delete Project' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete project?' });
    await expect(confirm).toBeVisible();
    await expect(confirm.getByRole('button', { name: 'Delete Project' })).not.toBeFocused();
    await confirm.getByRole('button', { name: 'Delete Project' }).click();
    await expect(confirm).toBeHidden();
    await expect(page.getByText('No projects yet')).toBeVisible();
    await page.reload();
    await expect(page.getByText('No projects yet')).toBeVisible();
  });

  await test.step('the organization switcher changes the current organization and remembers it', async () => {
    // The step above left the first organization with no project.
    await createProject(page, 'Only in the first');

    // A second organization, created through the API with the page's own session.
    const second = `Second Org ${user.id}`;
    const status = await page.evaluate(async ({ name, slug }) => {
      const key = Object.keys(localStorage).find((k) => k.startsWith('sb-') && k.endsWith('-auth-token'));
      const token = JSON.parse(localStorage.getItem(key!)!).access_token as string;
      const res = await fetch('/api/v1/organizations', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name, slug }),
      });
      return res.status;
    }, { name: second, slug: `second-${user.id}` });
    expect(status).toBe(200);

    await page.reload();
    await expect(page.getByRole('heading', { name: first, level: 1 })).toBeVisible();
    await page.getByRole('button', { name: /Switch organization/ }).click();
    const remembered = page.waitForResponse((r) => r.url().endsWith('/api/v1/users/me') && r.request().method() === 'PATCH');
    await page.getByRole('menuitem', { name: new RegExp(second) }).click();
    await expect(page.getByRole('heading', { name: second, level: 1 })).toBeVisible();
    expect((await remembered).status()).toBe(200);
    await expect(page.getByText('No projects yet')).toBeVisible();

    await page.reload();
    await expect(page.getByRole('heading', { name: second, level: 1 })).toBeVisible();

    await page.getByRole('button', { name: /Switch organization/ }).click();
    await page.getByRole('menuitem', { name: new RegExp(first) }).click();
    await expect(page.getByRole('button', { name: 'Open project Only in the first' })).toBeVisible();
  });

  await test.step('routes: unknown paths show the not-found page, /project without a project goes to /select; the sidebar remembers collapsing', async () => {
    await page.goto('/somewhere/else');
    await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
    await expect(page).toHaveURL(/\/somewhere\/else$/);
    await page.getByRole('button', { name: 'Go to projects' }).click();
    await expect(page).toHaveURL(/\/select$/);
    await page.goto('/project');
    await expect(page).toHaveURL(/\/select$/);
    await page.goto('/');
    await expect(page).toHaveURL(/\/select$/);

    await page.getByRole('link', { name: 'Models' }).click();
    await expect(page.getByRole('heading', { name: 'Models', level: 1 })).toBeVisible();
    await expect(page.getByRole('listitem', { name: 'COCO objects (CenterNet, built-in)' })).toBeVisible();

    await page.getByRole('link', { name: 'Settings' }).click();
    await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
    await expect(page.getByText(user.email).first()).toBeVisible();

    await page.getByRole('button', { name: 'Collapse sidebar' }).click();
    await expect(page.getByRole('button', { name: 'Expand sidebar' })).toBeVisible();
    await page.reload();
    await expect(page.getByRole('button', { name: 'Expand sidebar' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Projects' })).toBeVisible();
  });
});

test('a project card stacks the three newest thumbnails with +N, two class chips with +N, and progress in the amber tone at 40%', async ({ page }) => {
  const project = await editorProject(page, {
    classes: [
      { name: 'car', type: 'box', color: '#FFADAD' },
      { name: 'person', type: 'polygon', color: '#CAFFBF' },
      { name: 'sign', type: 'keypoint', color: '#9BF6FF' },
    ],
    images: ['a.png', 'b.png', 'c.png', 'd.png', 'e.png'].map((name) => ({ name, width: 200, height: 150 })),
  });
  const done = await apiCall(page, 'PATCH', '/api/images/batch/update', { project_id: project.projectId, image_ids: project.images.slice(0, 2).map((i) => i.id), updates: { status: 'complete' } });
  expect(done.status).toBe(200);
  await page.goto('/select');
  const card = page.getByRole('article', { name: 'Streets' });
  const thumbs = card.getByRole('img');
  await expect(thumbs).toHaveCount(3);
  await expect(thumbs.nth(0)).toHaveAttribute('alt', 'e.png');
  for (let i = 0; i < 3; i++) await expect.poll(() => thumbs.nth(i).evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  await expect(card.getByText('+2', { exact: true })).toBeVisible();
  await expect(card.getByText('car', { exact: true })).toBeVisible();
  await expect(card.getByText('person', { exact: true })).toBeVisible();
  await expect(card.getByText('sign', { exact: true })).toHaveCount(0);
  await expect(card.getByLabel('1 more classes')).toHaveText('+1');
  const bar = card.getByRole('progressbar', { name: 'Images complete' });
  await expect(bar).toHaveAttribute('aria-valuenow', '40');
  await expect(bar).toHaveAttribute('aria-valuetext', '2 of 5 images complete');
  const amber = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--color-progress-mid').trim());
  const fill = await bar.locator('div').evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(await page.evaluate(([a]) => { const el = document.createElement('i'); el.style.color = a; document.body.append(el); const c = getComputedStyle(el).color; el.remove(); return c; }, [amber])).toBe(fill);
  await card.screenshot({ path: 'test-results/project-card.png' });
});

test('the sign-in page shows the branding panel at 1200 px and wider, and only the form below', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Welcome Back' })).toBeVisible();
  await expect(page.getByRole('complementary', { name: 'About Vellum' })).toBeVisible();
  await page.setViewportSize({ width: 1024, height: 800 });
  await expect(page.getByRole('complementary', { name: 'About Vellum' })).toBeHidden();
  await expect(page.getByRole('heading', { name: 'Welcome Back' })).toBeVisible();
});
