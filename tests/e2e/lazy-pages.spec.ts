// The project page and the editor come in chunks of their own (issue 16). A chunk that does not
// arrive (offline, or a new deployment replaced it) shows an error with Try again, which fetches it
// anew; nothing else on the page is lost.
import { expect, test } from '@playwright/test';
import { createProject, signUpWithOrganization, uniqueUser } from './helpers';

test("a page whose code does not arrive says so, and Try again loads it", async ({ page }) => {
  const user = uniqueUser('lazy');
  await signUpWithOrganization(page, user, `Lazy ${user.id}`);
  await createProject(page, 'Streets');
  // A fresh load of the projects page, which has not fetched the project page's code yet.
  await page.reload();
  await expect(page.getByRole('button', { name: 'Open project Streets' })).toBeVisible();

  // The project page's chunk does not arrive (its preload and its import alike) until the network is back.
  let online = false;
  let refused = 0;
  await page.route(/\/assets\/ProjectPage-[^/]*\.js$/, (route) => {
    if (online) return route.fallback();
    refused++;
    return route.abort('internetdisconnected');
  });
  await page.getByRole('button', { name: 'Open project Streets' }).click();
  await expect(page.getByText("The project page didn't load")).toBeVisible();
  await expect(page.getByText('Check your connection and try again.')).toBeVisible();
  expect(refused).toBeGreaterThan(0);
  // The app shell stays around the error: the sidebar's links still work.
  await expect(page.getByRole('link', { name: 'Projects' }).first()).toBeVisible();
  online = true;
  await page.getByRole('button', { name: 'Try again' }).click();
  await expect(page.getByText("The project page didn't load")).toBeHidden();
  await expect(page.getByRole('tab', { name: /Data/ })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Streets', level: 1 })).toBeVisible();
});
