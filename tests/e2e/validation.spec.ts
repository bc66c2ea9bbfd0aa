import { expect, test } from '@playwright/test';
import { MESSAGES } from '../../src/contract/validation';
import { signUp, uniqueUser } from './helpers';

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

test('onboarding validates the organization identifier', async ({ page }) => {
  const user = uniqueUser('slug');
  await signUp(page, user);

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

test('an identifier that is already taken shows the server message under the field', async ({ page, browser }) => {
  const first = uniqueUser('taken-a');
  await signUp(page, first);
  const slug = `taken-${first.id}`;
  await page.getByLabel('Organization name').fill('Taken One');
  await page.getByLabel('Organization identifier').fill(slug);
  await page.getByRole('button', { name: 'Create Organization & Continue' }).click();
  await expect(page.getByRole('heading', { name: 'Taken One', level: 1 })).toBeVisible();

  const context = await browser.newContext();
  const other = await context.newPage();
  const second = uniqueUser('taken-b');
  await signUp(other, second);
  await other.getByLabel('Organization name').fill('Taken Two');
  await other.getByLabel('Organization identifier').fill(slug);
  await other.getByRole('button', { name: 'Create Organization & Continue' }).click();
  await expect(other.getByLabel('Organization identifier')).toHaveAttribute('aria-invalid', 'true');
  await expect(other.getByText(MESSAGES.slugTaken)).toBeVisible();
  await expect(other.getByRole('heading', { name: 'Welcome to Vellum!' })).toBeVisible();
  await context.close();
});
