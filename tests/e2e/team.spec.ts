// Teams (issue 6) in the browser: an owner invites a second person, who accepts and annotates as an
// annotator but cannot delete the project; made a viewer, they can no longer edit. A person
// deletes their account, signs in again within the grace period and sees the reactivation message.
import { expect, test, type Page } from '@playwright/test';
import { createProject, onboard, signIn, signUp, uniqueUser } from './helpers';
import { scenePng } from './editor-helpers';

async function token(page: Page): Promise<string> {
  return page.evaluate(() => {
    const key = Object.keys(localStorage).find((k) => k.startsWith('sb-') && k.endsWith('-auth-token'));
    return JSON.parse(localStorage.getItem(key!)!).access_token as string;
  });
}

async function openSettings(page: Page, section: string) {
  await page.getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name: section }).click();
}

test('an invited annotator annotates but cannot delete the project; made a viewer, they can no longer edit', async ({ page, browser }) => {
  test.setTimeout(200_000);
  const owner = uniqueUser('owner');
  const member = uniqueUser('member');
  const orgName = `Team Org ${owner.id}`;

  // The owner: organization, project with a class and an image.
  await signUp(page, owner);
  await onboard(page, orgName);
  await createProject(page, 'Streets');
  await page.getByRole('button', { name: 'Open project Streets' }).click();
  await expect(page.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
  const bytes = await scenePng(800, 600, 0);
  await page.getByTestId('add-images-input').setInputFiles([{ name: 'corner.png', mimeType: 'image/png', buffer: bytes }]);
  await expect(page.getByTestId('image-tile')).toHaveCount(1);
  const ownerAuth = { authorization: `Bearer ${await token(page)}` };
  const me = await (await page.request.get('/api/v1/users/me', { headers: ownerAuth })).json();
  const orgId = me.profile.default_organization_id as string;
  const project = (await (await page.request.get(`/api/v1/projects/organization/${orgId}`, { headers: ownerAuth })).json()).projects[0];
  expect((await page.request.patch(`/api/v1/projects/${project.id}`, { headers: ownerAuth, data: { classes: [{ name: 'car', type: 'box', color: '#FFADAD' }] } })).status()).toBe(200);
  const image = (await (await page.request.get(`/api/v1/projects/${project.id}/images?limit=10`, { headers: ownerAuth })).json()).images[0];

  // Invite by email as annotator: the link is shown to copy.
  await openSettings(page, 'Members');
  await page.getByLabel('Email address').fill(member.email);
  await page.getByLabel('Role', { exact: true }).selectOption('annotator');
  await page.getByRole('button', { name: 'Invite', exact: true }).click();
  const created = page.getByRole('dialog', { name: 'Invite created' });
  await expect(created).toBeVisible();
  const link = (await created.getByTestId('invite-link').textContent())!.trim();
  expect(link).toMatch(/\/invite\/[A-Za-z0-9_-]{43}$/);
  await created.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByRole('region', { name: 'Pending invites' })).toContainText(member.email);

  // The second person signs up, opens the link (no onboarding needed) and accepts.
  const context = await browser.newContext();
  const other = await context.newPage();
  await signUp(other, member);
  await other.goto(link);
  await expect(other.getByRole('heading', { name: `Join ${orgName}` })).toBeVisible();
  await expect(other.getByText('to join as an annotator')).toBeVisible();
  await other.getByRole('button', { name: 'Accept Invite' }).click();
  await expect(other.getByRole('heading', { name: orgName, level: 1 })).toBeVisible();

  // As an annotator: they draw a box in the editor and it is saved on the server.
  const memberAuth = { authorization: `Bearer ${await token(other)}` };
  await other.getByRole('button', { name: 'Open project Streets' }).click();
  await expect(other.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
  await other.goto('/project/annotate/corner.png');
  await expect(other.getByRole('heading', { name: 'corner.png', level: 1 })).toBeVisible();
  await expect(other.getByText('Loading image...')).toBeHidden({ timeout: 20_000 });
  const canvas = other.getByTestId('editor-canvas');
  await expect(canvas).toBeVisible();
  await other.keyboard.press('b');
  const box = (await canvas.boundingBox())!;
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  await other.mouse.move(cx - 60, cy - 50);
  await other.mouse.down();
  await other.mouse.move(cx, cy, { steps: 4 });
  await other.mouse.move(cx + 60, cy + 50, { steps: 4 });
  await other.mouse.up();
  // The server's document itself (the 'Saved' label also shows before any change).
  const savedAnnotations = async () => (await (await other.request.get(`/api/v1/annotations/load-data/${image.id}?project_id=${project.id}`, { headers: memberAuth })).json()).annotations;
  await expect.poll(savedAnnotations, { timeout: 20_000 }).toEqual([expect.objectContaining({ name: 'car', bounding_box: expect.any(Object) })]);
  const save = (annotations: unknown[]) =>
    other.request.post('/api/v1/annotations/save-data', { headers: memberAuth, data: { image_id: image.id, project_id: project.id, image_filename: image.filename, annotations } });
  await other.goto('/select');
  await expect(other.getByRole('heading', { name: orgName, level: 1 })).toBeVisible();
  // ...but the project cannot be deleted: the button is disabled and the server says 403.
  await other.getByRole('button', { name: 'Project settings' }).first().click();
  const settings = other.getByRole('dialog', { name: 'Project Settings' });
  await expect(settings.getByRole('button', { name: 'Delete Project' })).toBeDisabled();
  await expect(settings.getByRole('button', { name: 'Save Changes' })).toBeDisabled();
  await settings.getByRole('button', { name: 'Cancel' }).click();
  expect((await other.request.delete(`/api/v1/projects/${project.id}`, { headers: memberAuth })).status()).toBe(403);
  await expect(other.getByRole('button', { name: 'Create Project' })).toHaveCount(0);
  // Annotators upload; they do not edit classes.
  await other.getByRole('button', { name: 'Open project Streets' }).click();
  await expect(other.getByRole('button', { name: 'Add', exact: true })).toBeEnabled();
  await other.getByRole('tab', { name: 'Classes' }).click();
  await expect(other.getByRole('button', { name: 'Add Class' })).toBeDisabled();
  await other.getByRole('tab', { name: 'Data' }).click();

  // The owner makes them a viewer.
  await page.reload();
  const row = page.getByTestId('member-row').filter({ hasText: member.email });
  await expect(row.getByRole('combobox')).toHaveValue('annotator');
  await row.getByRole('combobox').selectOption('viewer');
  await expect(page.getByText(/is now viewer/)).toBeVisible();

  // The viewer can no longer edit: saves are refused and the page disables uploads and classes.
  const refused = await save([]);
  expect(refused.status()).toBe(403);
  expect((await refused.json()).error).toContain('viewer');
  await other.reload();
  await expect(other.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
  await expect(other.getByRole('button', { name: 'Add', exact: true })).toBeDisabled();
  await other.getByRole('tab', { name: 'Classes' }).click();
  await expect(other.getByRole('button', { name: 'Add Class' })).toBeDisabled();
  await expect(other.getByRole('button', { name: 'Delete car' })).toBeDisabled();
  // The annotation they made is still there for everyone to read.
  const loaded = await other.request.get(`/api/v1/annotations/load-data/${image.id}?project_id=${project.id}`, { headers: memberAuth });
  expect((await loaded.json()).annotations).toHaveLength(1);
  await context.close();
});

test('deleting the account signs out; signing in again within the grace period shows the reactivation message', async ({ page }) => {
  test.setTimeout(90_000);
  const user = uniqueUser('leaver');
  await signUp(page, user);
  await onboard(page, `Leaver Org ${user.id}`);
  await createProject(page, 'Keepsake');

  await openSettings(page, 'Account');
  await page.getByRole('button', { name: 'Delete Account' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete Account Permanently' });
  await expect(dialog).toBeVisible();
  // The destructive action is never focused by default.
  await expect(dialog.getByRole('button', { name: 'Delete Account' })).not.toBeFocused();
  const alert = page.waitForEvent('dialog');
  await dialog.getByRole('button', { name: 'Delete Account' }).click();
  const message = await alert;
  expect(message.message()).toBe('Account successfully deleted. Final billing data has been calculated for 1 organization(s).');
  await message.accept();
  await expect(page.getByRole('heading', { name: 'Welcome Back' })).toBeVisible();

  await signIn(page, user);
  const banner = page.getByRole('status').filter({ hasText: 'Account reactivated' });
  await expect(banner).toBeVisible();
  await expect(banner).toContainText('Welcome back! Your account has been reactivated and 1 organization(s) restored.');
  await expect(page.getByRole('button', { name: 'Open project Keepsake' })).toBeVisible();
  // Dismissed, it stays gone after a reload.
  await banner.getByRole('button', { name: 'Dismiss message' }).click();
  await expect(banner).toBeHidden();
  await page.reload();
  await expect(page.getByRole('button', { name: 'Open project Keepsake' })).toBeVisible();
  await expect(page.getByText('Account reactivated')).toHaveCount(0);
});
