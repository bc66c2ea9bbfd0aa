import { expect, type APIRequestContext, type Page, type Route } from '@playwright/test';

let counter = 0;
/** A fresh, unique identity for one test. */
export function uniqueUser(prefix = 'user') {
  const id = `${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  return { email: `${prefix}-${id}@example.com`, password: 'correct-horse-7', fullName: 'Grace Hopper', id };
}

/** Signs up through the authentication page's sign-up path (shown at `at`) and lands on onboarding. */
export async function signUp(page: Page, user: { email: string; password: string; fullName: string }, at = '/') {
  await page.goto(at);
  await expect(page.getByRole('heading', { name: 'Welcome Back' })).toBeVisible();
  await page.getByRole('button', { name: 'Sign up' }).click();
  await expect(page.getByRole('heading', { name: 'Get Started' })).toBeVisible();
  await page.getByLabel('Email address').fill(user.email);
  await page.getByRole('button', { name: 'Continue', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Complete Your Profile' })).toBeVisible();
  await page.getByLabel('Full name').fill(user.fullName);
  await page.getByLabel('Password', { exact: true }).fill(user.password);
  await page.getByRole('button', { name: 'Create Account' }).click();
  await expect(page.getByRole('heading', { name: 'Welcome to Vellum!' })).toBeVisible();
}

/** A supabase-js session as the auth service answers it. */
export interface Session {
  access_token: string;
  expires_in: number;
  expires_at?: number;
  [key: string]: unknown;
}

/** Signs a new person up through the auth API (no page involved); answers their session. */
export async function apiSignUp(request: APIRequestContext, user: { email: string; password: string; fullName: string }): Promise<Session> {
  const config = await (await request.get('/api/v1/config')).json();
  const signUp = await request.post('/auth/v1/signup', { headers: { apikey: config.supabaseAnonKey }, data: { email: user.email, password: user.password, data: { full_name: user.fullName } } });
  expect(signUp.status()).toBe(200);
  return signUp.json();
}

/**
 * Gives the page's origin the session the way supabase-js keeps it (the app then starts signed in).
 * It is written from a static file of the origin, so that the app itself starts only once, signed in.
 */
export async function useSession(page: Page, session: Session) {
  await page.goto('/favicon.svg');
  // supabase-js's storage key for a client on this origin: sb-<first label of the host>-auth-token.
  await page.evaluate((s) => {
    const key = `sb-${location.hostname.split('.')[0]}-auth-token`;
    localStorage.setItem(key, JSON.stringify({ ...s, expires_at: s.expires_at ?? Math.floor(Date.now() / 1000) + s.expires_in }));
  }, session);
}

/**
 * Signs up and completes onboarding through the API, and gives the page the session the way
 * supabase-js keeps it. The page is left on a static file of the origin: the app has not started,
 * so a test can set up more through the API (`apiCall` works from there) before its one first load.
 */
export async function signUpOnboarded(page: Page, user: { email: string; password: string; fullName: string }, organizationName: string): Promise<{ session: Session; orgId: string }> {
  const session = await apiSignUp(page.request, user);
  const slug = organizationName.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40);
  const onboarding = await page.request.post('/api/v1/users/onboarding', { headers: { authorization: `Bearer ${session.access_token}` }, data: { full_name: user.fullName, organization_name: organizationName, organization_slug: slug } });
  expect(onboarding.status()).toBe(200);
  await useSession(page, session);
  return { session, orgId: ((await onboarding.json()) as { organization: { id: string } }).organization.id };
}

/**
 * `signUpOnboarded`, then the app's first load, for tests whose subject comes after onboarding (the
 * sign-up and onboarding pages have tests of their own). Lands on the organization's projects page.
 */
export async function signUpWithOrganization(page: Page, user: { email: string; password: string; fullName: string }, organizationName: string): Promise<{ session: Session; orgId: string }> {
  const onboarded = await signUpOnboarded(page, user, organizationName);
  await page.goto('/');
  await expect(page.getByRole('heading', { name: organizationName, level: 1 })).toBeVisible();
  return onboarded;
}

/** Completes onboarding with an organization named `name` (its identifier derives from it). */
export async function onboard(page: Page, name: string) {
  await page.getByLabel('Organization name').fill(name);
  await page.getByRole('button', { name: 'Create Organization & Continue' }).click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
}

/** An annotator's Data tab opens on My work (issue 29: their assigned images); this shows every image. */
export async function showAllImages(page: Page) {
  const mine = page.getByRole('button', { name: 'My work' });
  await expect(mine).toHaveAttribute('aria-pressed', 'true');
  await mine.click();
  await expect(mine).toHaveAttribute('aria-pressed', 'false');
}

export async function signIn(page: Page, user: { email: string; password: string }) {
  await expect(page.getByRole('heading', { name: 'Welcome Back' })).toBeVisible();
  await page.getByLabel('Email address').fill(user.email);
  await page.getByRole('button', { name: 'Continue', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Enter Your Password' })).toBeVisible();
  await page.getByLabel('Password', { exact: true }).fill(user.password);
  await page.getByRole('button', { name: 'Sign In' }).click();
}

export async function createProject(page: Page, name: string, description = '') {
  await page.getByRole('button', { name: /^Create (Your First )?Project$/ }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Create Project' });
  await expect(dialog).toBeVisible();
  await dialog.getByLabel('Project name').fill(name);
  if (description) await dialog.getByLabel('Description').fill(description);
  await dialog.getByRole('button', { name: 'Create Project' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('button', { name: `Open project ${name}` })).toBeVisible();
}

/**
 * Routes the storage PUT of one file. An upload URL names a staging object of its own, not the
 * file, so its path is learnt from the upload-url answer for that filename.
 */
export async function routeUploadPut(page: Page, filename: string, handler: (route: Route) => Promise<void> | void) {
  const paths = new Set<string>();
  await page.route('**/images/upload-url?*', async (route) => {
    const response = await route.fetch();
    const body = await response.json();
    if (body?.filename === filename && typeof body.upload_url === 'string') paths.add(new URL(body.upload_url).pathname);
    await route.fulfill({ response, json: body });
  });
  await page.route((url) => paths.has(url.pathname), (route) => (route.request().method() === 'PUT' ? handler(route) : route.fallback()));
}
