// Teams (issue 6) in the browser: an owner invites a second person, who accepts and annotates as an
// annotator but cannot delete the project; made a viewer, they can no longer edit. A person
// deletes their account, signs in again within the grace period and sees the reactivation message.
// Owners, reviewers, annotators and viewers each see on the project pages what their role allows.
import { expect, test, type Page } from '@playwright/test';
import { apiSignUp, createProject, showAllImages, signIn, signUp, signUpWithOrganization, uniqueUser, useSession } from './helpers';
import { apiCall, editorProject, scenePng } from './editor-helpers';

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

  // The owner: organization (through the API: sign-up and onboarding have tests of their own),
  // project with a class and an image.
  await signUpWithOrganization(page, owner, orgName);
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
  await useSession(other, await apiSignUp(other.request, member));
  await other.goto(link);
  await expect(other.getByRole('heading', { name: `Join ${orgName}` })).toBeVisible();
  await expect(other.getByText('to join as an annotator')).toBeVisible();
  await other.getByRole('button', { name: 'Accept Invite' }).click();
  await expect(other.getByRole('heading', { name: orgName, level: 1 })).toBeVisible();

  // As an annotator: they draw a box in the editor and it is saved on the server.
  const memberAuth = { authorization: `Bearer ${await token(other)}` };
  await other.getByRole('button', { name: 'Open project Streets' }).click();
  await expect(other.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
  await other.goto(`/projects/${project.id}/images/${image.id}`);
  await expect(other.getByRole('heading', { name: 'corner.png', level: 1 })).toBeVisible();
  await expect(other.getByText('Loading image...')).toBeHidden({ timeout: 20_000 });
  const canvas = other.getByTestId('editor-canvas');
  await expect(canvas).toBeVisible();
  await other.keyboard.press('r');
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
  // ...but the project cannot be deleted: its card offers no settings and the server says 403.
  await expect(other.getByRole('article', { name: 'Streets' }).getByRole('button', { name: 'Project settings' })).toHaveCount(0);
  expect((await other.request.delete(`/api/v1/projects/${project.id}`, { headers: memberAuth })).status()).toBe(403);
  await expect(other.getByRole('button', { name: 'Create Project' })).toBeDisabled();
  // Annotators upload; they do not edit classes.
  await other.getByRole('button', { name: 'Open project Streets' }).click();
  await expect(other.getByRole('button', { name: 'Add', exact: true })).toBeEnabled();
  await other.getByRole('tab', { name: 'Classes' }).click();
  await expect(other.getByRole('button', { name: 'Add Class' })).toBeDisabled();
  // Loaded afresh now, so that the app's own re-read of the profile (every 30 s) is not due during
  // what follows: the change below must reach it through the server's refusal.
  // The reload stays on the Classes tab (the tab is in the URL, issue 29).
  await other.reload();
  await expect(other.getByRole('button', { name: 'Add Class' })).toBeDisabled();
  await other.getByRole('tab', { name: /Data/ }).click();
  await expect(other.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
  await showAllImages(other);
  await expect(other.getByRole('button', { name: 'Add', exact: true })).toBeEnabled();

  // The owner makes them a viewer.
  await page.reload();
  const row = page.getByTestId('member-row').filter({ hasText: member.email });
  await expect(row.getByRole('combobox')).toHaveValue('annotator');
  await row.getByRole('combobox').selectOption('viewer');
  await expect(page.getByText(/is now viewer/)).toBeVisible();

  // The viewer can no longer edit: saves are refused.
  const refused = await save([]);
  expect(refused.status()).toBe(403);
  expect((await refused.json()).error).toContain('viewer');

  // Their open app, not reloaded, still offers Add; the upload they try is refused by the server,
  // and the app reads the role again at once: it says so, and stops offering what it cannot do.
  const refusal = other.waitForResponse((r) => r.url().includes(`/projects/${project.id}/images/`) && r.status() === 403);
  await other.getByTestId('add-images-input').setInputFiles([{ name: 'late.png', mimeType: 'image/png', buffer: bytes }]);
  expect((await (await refusal).json()).error).toContain('viewer');
  await expect(other.getByRole('status').getByText(`Your role in ${orgName} is now Viewer.`)).toBeVisible();
  await expectGated(other, other.getByRole('button', { name: 'Add', exact: true }), false, 'Viewer', 'upload images');
  await expect(other.getByTestId('image-tile')).toHaveCount(1);
  await other.getByRole('tab', { name: 'Classes' }).click();
  await expect(other.getByRole('button', { name: 'Add Class' })).toBeDisabled();
  await expect(other.getByRole('button', { name: 'Delete car' })).toHaveCount(0);
  // The annotation they made is still there for everyone to read.
  const loaded = await other.request.get(`/api/v1/annotations/load-data/${image.id}?project_id=${project.id}`, { headers: memberAuth });
  expect((await loaded.json()).annotations).toHaveLength(1);

  // In the editor the viewer looks but does not change: 'View only' with the reason, drawing tools
  // disabled, Delete and the draw hotkey do nothing, and nothing is sent to be saved.
  const saves: string[] = [];
  other.on('request', (r) => {
    if (/\/annotations\/(save-data|save-changes|batch-save-data)/.test(r.url())) saves.push(r.url());
  });
  await other.goto(`/projects/${project.id}/images/${image.id}`);
  await expect(other.getByText('Loading image...')).toBeHidden({ timeout: 20_000 });
  await expect(other.getByRole('note').filter({ hasText: 'View only' })).toContainText('Viewer');
  await expect(other.getByRole('button', { name: 'Box (R)' })).toHaveAttribute('aria-disabled', 'true');
  const list = other.getByRole('listbox', { name: 'Annotation list' });
  await expect(list.getByRole('option')).toHaveCount(1);
  await list.getByRole('option').first().click();
  await other.keyboard.press('Delete');
  await other.keyboard.press('r');
  await other.mouse.move(cx - 100, cy - 80);
  await other.mouse.down();
  await other.mouse.move(cx - 40, cy - 20, { steps: 4 });
  await other.mouse.up();
  await expect(other.getByRole('button', { name: 'Box (R)' })).toHaveAttribute('aria-pressed', 'false');
  await expect(list.getByRole('option')).toHaveCount(1);
  await expect(other.getByRole('button', { name: 'Remove All' })).toBeDisabled();
  await other.waitForTimeout(2500);
  expect(saves).toEqual([]);

  // Removed by the owner, the member's open app (left alone, no reload) notices on its next
  // background read: it says so, and without another organization it offers to create one. That
  // app runs on a clock of the test's (time flows; the 30 s to the next read is jumped below).
  await other.clock.install();
  await other.goto('/select');
  await expect(other.getByRole('heading', { name: orgName, level: 1 })).toBeVisible();
  // Meanwhile the owner could not delete their account: nobody else could own the organization.
  await openSettings(page, 'Account');
  await page.getByRole('button', { name: 'Delete Account' }).click();
  const deleting = page.getByRole('dialog', { name: 'Delete Account Permanently' });
  await expect(deleting.getByRole('list', { name: 'Your organizations' })).toContainText(`${orgName} You are its only owner and it has no admin to take over`);
  const deleteButton = deleting.getByRole('button', { name: 'Delete Account' });
  await expect(deleteButton).toBeDisabled();
  await deleteButton.hover();
  await expect(page.getByRole('tooltip')).toHaveText(`Someone else must be able to own ${orgName} first`);
  await deleting.getByRole('button', { name: 'Cancel' }).click();
  await expect(deleting).toBeHidden();
  await openSettings(page, 'Members');
  await page.getByRole('button', { name: `Remove ${member.fullName}` }).click();
  const confirmRemove = page.getByRole('dialog', { name: 'Remove member?' });
  await expect(confirmRemove).toContainText(`${member.fullName} will lose access at once`);
  await confirmRemove.getByRole('button', { name: 'Remove Member' }).click();
  await expect(page.getByRole('status').getByText(`${member.fullName} was removed`)).toBeVisible();
  await expect(page.getByTestId('member-row')).toHaveCount(1);
  await other.clock.fastForward(31_000);
  await expect(other.getByRole('status').getByText(`You are no longer a member of ${orgName}.`)).toBeVisible({ timeout: 45_000 });
  await expect(other.getByRole('heading', { name: 'Welcome to Vellum!' })).toBeVisible();
  await context.close();
  // The organization keeps its owner: the last one is told so before trying to leave.
  const leave = page.getByTestId('member-row').filter({ hasText: owner.email }).getByRole('button', { name: 'Leave' });
  await expect(leave).toBeDisabled();
  await leave.hover();
  await expect(page.getByRole('tooltip')).toHaveText('You are the last owner: make another member an owner before you leave');
});

test('a signed-out person opens an invite link, signs up on it and lands back on it; Google and the confirmation e-mail return to it too', async ({ page, browser }) => {
  test.setTimeout(120_000);
  const owner = uniqueUser('inviter');
  const orgName = `Link Org ${owner.id}`;
  await signUpWithOrganization(page, owner, orgName);
  const orgId = (await apiCall(page, 'GET', '/users/me')).body.profile.default_organization_id as string;
  const guest = uniqueUser('guest');
  const invite = await apiCall(page, 'POST', `/organizations/${orgId}/invites`, { email: guest.email, role: 'reviewer' });
  expect(invite.status).toBe(200);
  const link = invite.body.invite_url as string;
  const path = new URL(link).pathname;

  const context = await browser.newContext();
  const other = await context.newPage();
  // Google sign-in, as if the server had it set up; the provider's round trip is stubbed.
  await other.route('**/api/v1/config', async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, json: { ...(await response.json()), googleEnabled: true } });
  });
  let authorize: URL | null = null;
  await other.route('**/auth/v1/authorize**', async (route) => {
    authorize = new URL(route.request().url());
    await route.fulfill({ status: 302, headers: { location: link } });
  });
  await other.goto(path);
  // Signed out: the authentication page, on the invite's address.
  await expect(other.getByRole('heading', { name: 'Welcome Back' })).toBeVisible();
  expect(new URL(other.url()).pathname).toBe(path);

  // Google is asked to bring the browser back to the invite link.
  await other.getByRole('button', { name: 'Continue with Google' }).click();
  await expect.poll(() => authorize?.searchParams.get('redirect_to')).toBe(new URL(link).href);
  await expect(other.getByRole('heading', { name: 'Welcome Back' })).toBeVisible();
  expect(new URL(other.url()).pathname).toBe(path);

  // Signing up there: the confirmation e-mail's link would return to the invite as well, and the
  // new person lands on the invite (no onboarding), accepts, and is in.
  const signup = other.waitForRequest((r) => r.url().includes('/auth/v1/signup'));
  await other.getByRole('button', { name: 'Sign up' }).click();
  await other.getByLabel('Email address').fill(guest.email);
  await other.getByRole('button', { name: 'Continue', exact: true }).click();
  await other.getByLabel('Full name').fill(guest.fullName);
  await other.getByLabel('Password', { exact: true }).fill(guest.password);
  await other.getByRole('button', { name: 'Create Account' }).click();
  expect(new URL((await signup).url()).searchParams.get('redirect_to')).toBe(new URL(link).href);
  await expect(other.getByRole('heading', { name: `Join ${orgName}` })).toBeVisible();
  await expect(other.getByText('to join as a reviewer')).toBeVisible();
  await expect(other.getByRole('button', { name: 'Accept Invite' })).toBeFocused();
  await other.keyboard.press('Enter');
  await expect(other.getByRole('heading', { name: orgName, level: 1 })).toBeVisible();
  await expect(other.getByRole('status').getByText(`You joined ${orgName}`)).toBeVisible();
  expect(new URL(other.url()).pathname).toBe('/select');

  // The used link says so; a withdrawn one too.
  await other.goto(path);
  await expect(other.getByRole('heading', { name: `You are a member of ${orgName}` })).toBeVisible();
  // Members may leave; without another organization they are offered to create one.
  await other.getByRole('button', { name: 'Go to Vellum' }).click();
  await other.getByRole('link', { name: 'Settings' }).click();
  await other.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name: 'Members' }).click();
  await expect(other.getByRole('region', { name: 'Invite people' })).toHaveCount(0);
  await expect(other.getByRole('region', { name: 'Members' })).toContainText('Owners and admins invite people and change roles; your role is Reviewer.');
  // What each role may do, read from the permission table: each role with what it adds.
  await other.getByRole('region', { name: 'Members' }).getByText('What each role may do').click();
  await expect(other.getByRole('definition').filter({ hasText: 'Everything an annotator may, and:' })).toContainText('accept or reject what was submitted');
  await expect(other.getByRole('definition').filter({ hasText: 'Everything an admin may, and:' })).toHaveText('Everything an admin may, and: manage the plan and billing.');
  await other.getByTestId('member-row').filter({ hasText: guest.email }).getByRole('button', { name: 'Leave' }).click();
  const leaving = other.getByRole('dialog', { name: `Leave ${orgName}?` });
  await expect(leaving.getByRole('button', { name: 'Leave Organization' })).not.toBeFocused();
  await leaving.getByRole('button', { name: 'Leave Organization' }).click();
  await expect(other.getByRole('status').getByText(`You left ${orgName}`)).toBeVisible();
  await expect(other.getByRole('heading', { name: 'Welcome to Vellum!' })).toBeVisible();
  await expect(other.getByText(`You are no longer a member of ${orgName}.`)).toHaveCount(0);
  const third = uniqueUser('third');
  const second = await apiCall(page, 'POST', `/organizations/${orgId}/invites`, { email: third.email, role: 'viewer' });
  await page.getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('button', { name: 'Members' }).click();
  const pending = page.getByRole('region', { name: 'Pending invites' });
  await expect(pending).toContainText(third.email);
  await pending.getByRole('button', { name: `Withdraw the invite for ${third.email}` }).click();
  await expect(page.getByRole('status').getByText('Invite withdrawn')).toBeVisible();
  await expect(pending).toHaveCount(0);
  await context.close();
  const thirdContext = await browser.newContext();
  const late = await thirdContext.newPage();
  await useSession(late, await apiSignUp(late.request, third));
  await late.goto(new URL(second.body.invite_url as string).pathname);
  await expect(late.getByRole('alert')).toContainText('This invite can no longer be used');
  await expect(late.getByRole('alert')).toContainText(`This invite was withdrawn. Ask someone at ${orgName} for a new one.`);
  // A link that is no invite at all.
  await late.goto(`/invite/${'x'.repeat(43)}`);
  await expect(late.getByRole('alert')).toContainText('Invite not found');
  await expect(late.getByRole('alert')).toContainText('This invite link is not valid.');
  await late.getByRole('button', { name: 'Go to Vellum' }).click();
  await expect(late.getByRole('heading', { name: 'Welcome to Vellum!' })).toBeVisible();
  await thirdContext.close();
});

test('API keys in Settings: a name is required, the key is shown once, listed, works as a Bearer token with its role, and deleting it stops it; Usage shows what was used', async ({ page }) => {
  test.setTimeout(90_000);
  const user = uniqueUser('keys');
  await signUpWithOrganization(page, user, `Keys Org ${user.id}`);
  const orgId = (await apiCall(page, 'GET', '/users/me')).body.profile.default_organization_id as string;
  const project = (await apiCall(page, 'POST', '/projects', { organization_id: orgId, name: 'Streets', description: null, annotation_types: ['box'], classes: [] })).body.project;
  for (const [annotation_type, annotation_count] of [['bbox', 3], ['polygon', 2]] as const) {
    expect((await apiCall(page, 'POST', '/usage/annotation', { organization_id: orgId, project_id: project.id, annotation_type, annotation_count })).status).toBe(200);
  }

  await openSettings(page, 'Usage');
  const usage = page.getByRole('region', { name: 'Usage' });
  await expect(usage).toContainText('5Annotations');
  const row = page.getByRole('region', { name: 'By project' }).getByRole('row', { name: /Streets/ });
  await expect(row.getByRole('cell')).toHaveText(['Streets', '3', '2', '0', '0', '0', '0 B']);

  await openSettings(page, 'API Keys');
  const card = page.getByRole('region', { name: 'API Keys' });
  await expect(card.getByText('No API keys yet')).toBeVisible();
  await card.getByRole('button', { name: 'Create API Key' }).click();
  const create = page.getByRole('dialog', { name: 'Create API Key' });
  await expect(create.getByLabel('Name')).toBeFocused();
  // The spec's alert for a missing name; nothing is created.
  const alerts: string[] = [];
  page.once('dialog', (d) => {
    alerts.push(d.message());
    void d.accept();
  });
  await create.getByRole('button', { name: 'Create Key' }).click();
  await expect.poll(() => alerts).toEqual(['Please enter a name for the API key']);
  await expect(create).toBeVisible();
  await create.getByLabel('Name').fill('Nightly import');
  await create.getByLabel('Role').selectOption('viewer');
  await create.getByLabel('Name').press('Enter');

  const shown = page.getByRole('dialog', { name: 'Your new API key' });
  await expect(shown).toContainText('it is shown only once');
  const key = (await shown.getByTestId('api-key-value').textContent())!.trim();
  expect(key).toMatch(/^vlm_[A-Za-z0-9_-]{43}$/);
  await shown.getByRole('button', { name: 'Done' }).click();
  await expect(shown).toBeHidden();
  const list = card.getByRole('list', { name: 'API keys' });
  await expect(list.getByRole('listitem')).toHaveCount(1);
  await expect(list).toContainText('Nightly import');
  await expect(list).toContainText(`${key.slice(0, 12)}…`);
  await expect(list).toContainText('never used');
  await expect(list).toContainText('Viewer');

  // The key is a Bearer token acting as a viewer of this organization.
  const bearer = { authorization: `Bearer ${key}` };
  const projects = await page.request.get(`/api/v1/projects/organization/${orgId}`, { headers: bearer });
  expect(projects.status()).toBe(200);
  expect((await projects.json()).projects.map((p: { name: string }) => p.name)).toEqual(['Streets']);
  const refused = await page.request.post('/api/v1/projects', { headers: bearer, data: { organization_id: orgId, name: 'Nope', description: null, annotation_types: ['box'], classes: [] } });
  expect(refused.status()).toBe(403);
  // Shown once: after a reload only its prefix is on the page, and it was used.
  await page.reload();
  await expect(list).toContainText('last used');
  expect(await page.content()).not.toContain(key);

  // Deleting asks the spec's question; Escape keeps the key, the danger button deletes it.
  await list.getByRole('button', { name: 'Delete API key Nightly import' }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete API key' });
  await expect(confirm).toContainText('Are you sure you want to delete this API key? This action cannot be undone.');
  await expect(confirm.getByRole('button', { name: 'Delete' })).not.toBeFocused();
  await page.keyboard.press('Escape');
  await expect(confirm).toBeHidden();
  await expect(list.getByRole('listitem')).toHaveCount(1);
  await list.getByRole('button', { name: 'Delete API key Nightly import' }).click();
  await confirm.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('status').getByText('API key “Nightly import” deleted')).toBeVisible();
  await expect(card.getByText('No API keys yet')).toBeVisible();
  expect((await page.request.get(`/api/v1/projects/organization/${orgId}`, { headers: bearer })).status()).toBe(401);
});

test('deleting the account signs out; signing in again within the grace period shows the reactivation message', async ({ page }) => {
  test.setTimeout(90_000);
  const user = uniqueUser('leaver');
  await signUpWithOrganization(page, user, `Leaver Org ${user.id}`);
  await createProject(page, 'Keepsake');

  await openSettings(page, 'Account');
  await page.getByRole('button', { name: 'Delete Account' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete Account Permanently' });
  await expect(dialog).toBeVisible();
  // What happens, organization by organization.
  await expect(dialog.getByRole('list', { name: 'Your organizations' })).toHaveText(`Leaver Org ${user.id} You are its only member: it is deleted with its projects and files.`);
  // The destructive action is never focused by default.
  await expect(dialog.getByRole('button', { name: 'Delete Account' })).not.toBeFocused();
  // The alert is accepted inside the listener: a modal dialog blocks the page, and an accept()
  // sent after the listener returned hung until the test timed out (once in CI).
  const alert = new Promise<string>((resolve) => {
    page.once('dialog', (d) => {
      resolve(d.message());
      void d.accept();
    });
  });
  await dialog.getByRole('button', { name: 'Delete Account' }).click();
  expect(await alert).toBe('Account successfully deleted. Final billing data has been calculated for 1 organization(s).');
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

// What each role sees on the projects list and the project page (the rule in
// src/app/stores/permissions.ts): header buttons stay, disabled with a tooltip naming the role;
// everything else a role may not do is hidden, drags included, and a desktop drop is refused.
type Seen = {
  createProject: boolean;
  projectSettings: boolean;
  upload: boolean;
  organize: boolean;
  stage: boolean;
  archive: boolean;
  edit: boolean;
  restore: boolean;
  deleteForGood: boolean;
  classes: boolean;
};
const SEES: Record<'owner' | 'reviewer' | 'annotator' | 'viewer', Seen> = {
  owner: { createProject: true, projectSettings: true, upload: true, organize: true, stage: true, archive: true, edit: true, restore: true, deleteForGood: true, classes: true },
  reviewer: { createProject: false, projectSettings: false, upload: true, organize: true, stage: true, archive: true, edit: true, restore: true, deleteForGood: false, classes: false },
  annotator: { createProject: false, projectSettings: false, upload: true, organize: true, stage: false, archive: false, edit: true, restore: false, deleteForGood: false, classes: false },
  viewer: { createProject: false, projectSettings: false, upload: false, organize: false, stage: false, archive: false, edit: false, restore: false, deleteForGood: false, classes: false },
};

/** Enabled when allowed; else disabled, and hovering it shows `Your role (<Role>) cannot <action>`. */
async function expectGated(page: Page, button: ReturnType<Page['getByRole']>, allowed: boolean, role: string, action: string) {
  await expect(button).toBeVisible();
  if (allowed) {
    await expect(button).toBeEnabled();
    return;
  }
  await expect(button).toBeDisabled();
  await button.hover();
  await expect(page.getByRole('tooltip')).toHaveText(`Your role (${role}) cannot ${action}`);
  // Away from the button. Radix closes a tooltip on a pointer move outside the grace area it makes
  // when the pointer leaves the trigger, but it starts listening for those moves only after React
  // has rendered that area: a move that comes first is not seen (1 in 40 in a probe, under load),
  // and the tooltip closes on the next one, as for a person whose mouse keeps moving. So the
  // pointer keeps moving, between two points outside, until the tooltip is gone.
  await page.mouse.move(0, 0);
  let corner = 0;
  await expect(async () => {
    corner = 1 - corner;
    await page.mouse.move(1 + corner, 1 + corner);
    await expect(page.getByRole('tooltip')).toHaveCount(0, { timeout: 500 });
  }).toPass({ timeout: 10_000 });
}

async function expectRoleView(page: Page, key: keyof typeof SEES, screenshot?: string) {
  const seen = SEES[key];
  const role = key[0].toUpperCase() + key.slice(1);
  const count = (allowed: boolean) => (allowed ? 1 : 0);

  // Projects list.
  await page.goto('/select');
  await expectGated(page, page.getByRole('button', { name: 'Create Project' }), seen.createProject, role, 'create projects');
  const card = page.getByRole('article', { name: 'Streets' });
  await expect(card.getByRole('button', { name: 'Project settings' })).toHaveCount(count(seen.projectSettings));

  // Project page header.
  await page.getByRole('button', { name: 'Open project Streets' }).click();
  await expect(page.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
  if (key === 'annotator') await showAllImages(page);
  await expect(page.getByTestId('image-tile')).toHaveCount(2);
  await expectGated(page, page.getByRole('button', { name: 'Add', exact: true }), seen.upload, role, 'upload images');
  await expectGated(page, page.getByRole('button', { name: 'Project settings' }), seen.projectSettings, role, 'change project settings');
  await expect(page.getByRole('button', { name: /^Export \(\d+\)$/ })).toBeEnabled();

  // Data tab: New Folder, folder rename, drags, the status pill.
  await expectGated(page, page.getByRole('button', { name: 'New Folder' }), seen.organize, role, 'create folders');
  const folder = page.getByTestId('folder-tile').filter({ hasText: 'Birds' });
  await expect(folder.getByRole('button', { name: 'Rename folder Birds' })).toHaveCount(count(seen.organize));
  await expect(folder).toHaveAttribute('draggable', String(seen.organize));
  await expect(page.getByTestId('image-tile').first()).toHaveAttribute('draggable', String(seen.organize));
  await expect(page.getByTestId('status-cycle')).toHaveCount(seen.stage ? 2 : 0);

  // The floating toolbar offers what the role may do with a selection.
  await page.getByRole('checkbox', { name: 'Select a.png' }).click();
  const bar = page.getByRole('toolbar', { name: 'Selected images' });
  await expect(bar).toContainText('1 selected');
  await expect(bar.getByRole('button', { name: 'Folder' })).toHaveCount(count(seen.organize));
  await expect(bar.getByRole('button', { name: 'Stage' })).toHaveCount(count(seen.stage));
  await expect(bar.getByRole('button', { name: 'Archive' })).toHaveCount(count(seen.archive));
  await expect(bar.getByRole('button', { name: 'Edit' })).toHaveCount(count(seen.edit));
  await expect(page.getByRole('button', { name: 'Export (1)' })).toBeEnabled();
  await expect(bar.getByRole('button', { name: 'Clear' })).toBeEnabled();
  if (screenshot) {
    await page.getByRole('checkbox', { name: 'Select b.png' }).click();
    await expect(bar).toContainText('2 selected');
    await expect(page.locator('img[data-loaded]')).toHaveCount(2);
    await page.mouse.move(0, 0);
    await page.screenshot({ path: `test-results/${screenshot}` });
  }
  await bar.getByRole('button', { name: 'Clear' }).click();
  await expect(bar).toBeHidden();

  // A desktop file drop: refused, with the reason, when the role may not upload.
  if (!seen.upload) {
    const dataTransfer = await page.evaluateHandle(() => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array([137, 80, 78, 71])], 'dropped.png', { type: 'image/png' }));
      return dt;
    });
    const area = page.getByRole('list', { name: 'Contents of All images' });
    await area.dispatchEvent('dragenter', { dataTransfer });
    await expect(page.getByText(`Your role (${role}) cannot upload images`)).toBeVisible();
    await expect(page.getByText('Drop to upload to All images')).toHaveCount(0);
    await area.dispatchEvent('drop', { dataTransfer });
    await expect(page.getByRole('status').getByText(`Your role (${role}) cannot upload images`)).toBeVisible();
    await expect(page.getByRole('region', { name: 'Uploads' })).toHaveCount(0);
    await expect(page.getByTestId('image-tile')).toHaveCount(2);
  }

  // Archive tab: Restore and Delete as allowed; with neither, nothing to select and the hint says why.
  await page.getByRole('tab', { name: /Archive/ }).click();
  await expect(page.getByTestId('image-tile')).toHaveCount(1);
  const hint = page.getByText('Archived images are hidden from the dataset.');
  if (seen.restore || seen.deleteForGood) {
    await page.getByRole('checkbox', { name: 'Select c.png' }).click();
    await expect(bar.getByRole('button', { name: 'Restore' })).toHaveCount(count(seen.restore));
    await expect(bar.getByRole('button', { name: 'Delete' })).toHaveCount(count(seen.deleteForGood));
    await bar.getByRole('button', { name: 'Clear' }).click();
  } else {
    await expect(page.getByRole('checkbox', { name: 'Select c.png' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Select all' })).toHaveCount(0);
    await expect(hint).toContainText(`Your role (${role}) cannot restore or delete them`);
  }
  if (seen.restore && !seen.deleteForGood) await expect(hint).toContainText('admins and owners delete them permanently');

  // Classes tab: Add Class stays, disabled; the rows' actions are hidden.
  await page.getByRole('tab', { name: /Classes/ }).click();
  await expectGated(page, page.getByRole('button', { name: 'Add Class' }), seen.classes, role, 'edit classes');
  for (const name of ['Change colour of car', 'Rename car', 'Duplicate car', 'Delete car']) {
    await expect(page.getByRole('button', { name })).toHaveCount(count(seen.classes));
  }
  await page.getByRole('tab', { name: /Data/ }).click();
}

test('each role sees on the projects list and the project page exactly what it may do', async ({ page, browser }) => {
  test.setTimeout(150_000);
  const project = await editorProject(page, {
    classes: [{ name: 'car', type: 'box', color: '#FFADAD' }],
    images: ['a.png', 'b.png', 'c.png'].map((name) => ({ name, width: 320, height: 240 })),
  });
  expect((await apiCall(page, 'POST', '/api/folders/create', { project_id: project.projectId, name: 'Birds', parent_folder_path: '/' })).status).toBe(200);
  const archived = project.images.find((i) => i.filename === 'c.png')!;
  expect((await apiCall(page, 'PATCH', '/api/images/batch/update', { project_id: project.projectId, image_ids: [archived.id], updates: { is_archived: true } })).status).toBe(200);

  await expectRoleView(page, 'owner', 'roles-data-owner.png');

  // A member joins through an invite made and accepted over the API.
  const member = uniqueUser('roles');
  const invite = await apiCall(page, 'POST', `/organizations/${project.orgId}/invites`, { email: member.email, role: 'annotator' });
  expect(invite.status).toBe(200);
  const context = await browser.newContext();
  const other = await context.newPage();
  await signUp(other, member);
  const inviteToken = (invite.body.invite_url as string).split('/invite/')[1];
  expect((await apiCall(other, 'POST', `/invites/${inviteToken}/accept`)).status).toBe(200);
  const memberId = (await apiCall(other, 'GET', '/users/me')).body.profile.id as string;
  const makeRole = async (role: string) => expect((await apiCall(page, 'PATCH', `/organizations/${project.orgId}/members/${memberId}`, { role })).status).toBe(200);

  await expectRoleView(other, 'annotator');
  await makeRole('reviewer');
  await expectRoleView(other, 'reviewer');
  await makeRole('viewer');
  await expectRoleView(other, 'viewer', 'roles-data-viewer.png');
  await context.close();
});
