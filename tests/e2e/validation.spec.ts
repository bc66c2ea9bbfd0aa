import { expect, test } from '@playwright/test';
import { MESSAGES } from '../../src/contract/validation';
import { apiSignUp, signUp, uniqueUser } from './helpers';

test('the authentication page validates the email and the sign-up password', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Welcome Back' })).toBeVisible();

  await page.getByRole('button', { name: 'Continue', exact: true }).click();
  await expect(page.getByText(MESSAGES.emailRequired)).toBeVisible();

  // The test server has no Google client configured: the button says so instead of failing.
  await page.getByRole('button', { name: 'Continue with Google' }).click();
  await expect(page.getByText('Google sign-in is not set up on this server.')).toBeVisible();
  await expect(page).toHaveURL(/\/$/);

  await page.getByLabel('Email address').fill('not-an-email');
  await page.getByRole('button', { name: 'Continue', exact: true }).click();
  await expect(page.getByText(MESSAGES.emailInvalid)).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Welcome Back' })).toBeVisible();

  const user = uniqueUser('validation');
  await page.getByLabel('Email address').fill(user.email);
  await page.getByRole('button', { name: 'Continue', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Enter Your Password' })).toBeVisible();
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page.getByText(MESSAGES.passwordRequired)).toBeVisible();

  // Unknown credentials (the auth service answers a wrong password the same way): the page says
  // so and stays on the password step, the password cleared and focused (issue 37); sign-up is
  // a choice the person makes, with the email kept.
  const password = page.getByLabel('Password', { exact: true });
  await password.fill('whatever-123');
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page.getByText('Incorrect email or password. Check them and try again, or create an account if you are new.')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Enter Your Password' })).toBeVisible();
  await expect(password).toHaveValue('');
  await expect(password).toBeFocused();
  await page.getByRole('button', { name: 'Create an account' }).click();
  await expect(page.getByRole('heading', { name: 'Complete Your Profile' })).toBeVisible();
  await expect(page.getByText(`Creating an account for ${user.email}`)).toBeVisible();
  await expect(page.getByLabel('Password', { exact: true })).toHaveValue('');

  await page.getByRole('button', { name: 'Create Account' }).click();
  await expect(page.getByText(MESSAGES.fullNameRequired)).toBeVisible();
  await expect(page.getByText(MESSAGES.passwordRequired)).toBeVisible();
  await page.getByLabel('Full name').fill('Short Password');
  await page.getByLabel('Password', { exact: true }).fill('abc');
  await page.getByRole('button', { name: 'Create Account' }).click();
  await expect(page.getByText(MESSAGES.passwordShort)).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Complete Your Profile' })).toBeVisible();

  await page.getByRole('button', { name: 'Back', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Welcome Back' })).toBeVisible();
});

// One person on the onboarding page for both of its checks (a test's fixed part, a context, a
// sign-up and the app's first load, is some 3 s of CPU: tests/README.md, "Where the time goes").
// The one who took the identifier first is signed up and onboarded through the API: that is not
// the subject, and needs no page.
test('onboarding: an identifier already taken shows the server message under the field; the identifier is validated', async ({ page }) => {
  const first = uniqueUser('taken-a');
  const taken = `taken-${first.id}`;
  const session = await apiSignUp(page.request, first);
  const onboarded = await page.request.post('/api/v1/users/onboarding', { headers: { authorization: `Bearer ${session.access_token}` }, data: { full_name: first.fullName, organization_name: 'Taken One', organization_slug: taken } });
  expect(onboarded.status()).toBe(200);
  const user = uniqueUser('taken-b');
  await signUp(page, user);

  await test.step('an identifier that is already taken shows the server message under the field', async () => {
    await page.getByLabel('Organization name').fill('Taken Two');
    await page.getByLabel('Organization identifier').fill(taken);
    await page.getByRole('button', { name: 'Create Organization & Continue' }).click();
    await expect(page.getByLabel('Organization identifier')).toHaveAttribute('aria-invalid', 'true');
    await expect(page.getByText(MESSAGES.slugTaken)).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Welcome to Vellum!' })).toBeVisible();
  });

  await test.step('onboarding validates the organization identifier', async () => {
    await page.getByLabel('Organization name').fill(`Slug Test ${user.id}`);
    const slug = page.getByLabel('Organization identifier');

    await slug.fill('Acme');
    await page.getByRole('button', { name: 'Create Organization & Continue' }).click();
    await expect(page.getByText(MESSAGES.slugChars)).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Welcome to Vellum!' })).toBeVisible();

    await slug.fill('ab');
    await slug.blur();
    await expect(page.getByText(MESSAGES.slugShort)).toBeVisible();

    await slug.fill('');
    await expect(page.getByRole('button', { name: 'Create Organization & Continue' })).toBeDisabled();

    await page.getByLabel('Organization name').fill('');
    await page.getByLabel('Full name').fill('');
    await expect(page.getByRole('button', { name: 'Create Organization & Continue' })).toBeDisabled();
  });
});
