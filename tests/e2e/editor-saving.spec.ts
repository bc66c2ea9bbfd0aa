// Saving under faults (issue 5): the network cut during edits, the server answering 503 twice,
// the tab closed before the debounce fires, and two browser contexts editing one image. After
// each, the document the server holds (load-data with the user's token) has every edit. The
// editor saves changes (save-changes), so a document past save-data's 8 MB keeps saving.
import { randomUUID } from 'node:crypto';
import { expect, test, type Browser, type BrowserContext, type Page, type Route } from '@playwright/test';
import { MAX_SAVE_BYTES } from '../../src/contract/annotation-api';
import { apiCall, editorProject, loadSaved, type EditorProject, drawBox, openEditorImage } from './editor-helpers';
import { signIn } from './helpers';

const CLASSES = [{ name: 'car', type: 'box' as const, color: '#FFADAD' }];
const IMAGE = 'lot.png';

const rows = (page: Page) => page.getByRole('listbox', { name: 'Annotation list' }).getByRole('option');
const saveState = (page: Page) => page.getByRole('status').filter({ hasText: /^(Saved|Saving\.\.\.|Unsaved changes|Offline - changes kept on this device|Save failed.*|Sign in to save.*|Conflict merged)$/ });

const titles = {
  usage: 'usage records: each box drawn or pasted is counted in the usage summary; a failed record is only logged',
  network: 'the network cut during edits: changes wait on the device and are saved when it comes back',
  unavailable: 'the server answering 503 twice, then 200: one saved document',
  closed: 'the tab closed before the debounce fires: the edits are on the server when it is reopened',
  closedLocal: 'the tab closed before the debounce fires without reaching the server: reopened, the editor restores the changes from the device and saves them',
  contexts: 'two browser contexts editing the same image: both edits end up in the saved document',
  rebase: 'a save the server rebased on another one, answered during a drag: the drag goes on, and the saved document has both sides and the whole move',
};

/** Waits until the server's document holds `n` annotations (the 'Saved' label alone is also the state before any change). */
async function savedCount(page: Page, project: EditorProject, imageId: string, n: number) {
  await expect.poll(async () => (await loadSaved(page, project, imageId)).annotations.length, { timeout: 20_000 }).toBe(n);
}

/**
 * What a step works with: the page (its editor open on `img`, an image no other step touches), its
 * context and browser, and the project. Steps share a journey's person and project, not an image:
 * a test's fixed part (a context, a sign-up, the app's first load) is some 3 s of CPU
 * (tests/README.md, "Where the time goes").
 */
interface Step {
  page: Page;
  context: BrowserContext;
  browser: Browser;
  project: EditorProject;
  img: { id: string; filename: string };
}

/** The project set up through the API with an image per step, and the app's first load straight on the first one in the editor. */
async function journey(fixtures: { page: Page; context: BrowserContext; browser: Browser }, steps: [string, (step: Step) => Promise<Page | void>][]) {
  const project = await editorProject(fixtures.page, { classes: CLASSES, images: steps.map((_, i) => ({ name: `lot-${i + 1}.png` })), open: 'lot-1.png' });
  let page = fixtures.page;
  for (const [i, [title, run]] of steps.entries()) {
    const img = project.images[i]!;
    await test.step(title, async () => {
      if (i > 0) await openEditorImage(page, img.filename);
      page = (await run({ ...fixtures, page, project, img })) ?? page;
    });
  }
}

/** The steps, each a test of its own before (their titles above), with every assertion kept. */
async function usageRecords({ page, project, img }: Step) {
  const usage = async () => (await apiCall(page, 'GET', `/usage/summary/${project.orgId}`)).body.annotations as { total: number; by_type: Record<string, number> };
  const logged: string[] = [];
  page.on('console', (m) => logged.push(m.text()));

  // The usage service is down: the box is still drawn and saved, and nothing is shown.
  await page.route('**/api/v1/usage/annotation', (route) =>
    route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ success: false, error: 'Service unavailable', code: 'unavailable' }) }),
  );
  await drawBox(page, [150, 150], [260, 240]);
  await savedCount(page, project, img.id, 1);
  await expect.poll(() => logged.some((t) => t.includes('Failed to record annotation usage:'))).toBe(true);
  await expect(page.getByRole('button', { name: 'Dismiss message' })).toHaveCount(0); // no toast
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect(saveState(page)).toHaveText('Saved');
  expect((await usage()).total).toBe(0);
  await page.unroute('**/api/v1/usage/annotation');

  await drawBox(page, [320, 150], [420, 260]);
  await expect.poll(async () => (await usage()).by_type).toEqual({ bbox: 1 });
  // Copy and paste both boxes: one creation action, one record of 2.
  await page.keyboard.press('q');
  await page.keyboard.press('Control+a');
  await page.keyboard.press('Control+c');
  await page.keyboard.press('Control+v');
  await expect(page.getByText('Pasted 2 annotation(s)')).toBeVisible();
  await expect.poll(async () => (await usage()).by_type).toEqual({ bbox: 3 });
  const summary = await usage();
  expect(summary.total).toBe(3);
}

async function networkCut({ page, context, project, img }: Step) {
  await drawBox(page, [150, 150], [260, 240]);
  await savedCount(page, project, img.id, 1);

  await context.setOffline(true);
  await drawBox(page, [320, 150], [420, 260]);
  await expect(saveState(page)).toHaveText('Offline - changes kept on this device', { timeout: 15_000 });
  await drawBox(page, [150, 320], [260, 420]);
  await expect(rows(page)).toHaveCount(3);
  await page.screenshot({ path: 'test-results/editor-saving-offline.png' });

  await context.setOffline(false);
  await expect(saveState(page)).toHaveText('Saved', { timeout: 20_000 });
  const doc = await loadSaved(page, project, img.id);
  expect(doc.annotations).toHaveLength(3);
  expect(doc.annotations.every((a) => a.name === 'car' && a.bounding_box.w > 0)).toBe(true);
}

async function serverUnavailable({ page, project, img }: Step) {
  const answers: number[] = [];
  await page.route('**/api/v1/annotations/save-changes', async (route) => {
    if (answers.length < 2) {
      answers.push(503);
      await route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ success: false, error: 'Service unavailable', code: 'unavailable' }) });
      return;
    }
    answers.push(200);
    await route.continue();
  });
  await drawBox(page, [150, 150], [260, 240]);
  await expect(saveState(page)).toHaveText('Save failed - retrying', { timeout: 10_000 });
  await expect(saveState(page)).toHaveText('Saved', { timeout: 20_000 });
  expect(answers).toEqual([503, 503, 200]);
  const doc = await loadSaved(page, project, img.id);
  expect(doc.version).toBe(1);
  expect(doc.annotations).toHaveLength(1);
  await page.unroute('**/api/v1/annotations/save-changes');
}

async function tabClosed({ page, context, project, img }: Step): Promise<Page> {
  await drawBox(page, [150, 150], [260, 240]);
  await drawBox(page, [320, 150], [420, 260]);
  await expect(rows(page)).toHaveCount(2);
  await page.close(); // well within the 2000 ms debounce: the page-hide flush sends them
  const reopened = await context.newPage();
  await openEditorImage(reopened, img.filename);
  await expect(rows(reopened)).toHaveCount(2);
  await savedCount(reopened, project, img.id, 2);
  await expect(saveState(reopened)).toHaveText('Saved', { timeout: 15_000 });
  return reopened;
}

async function tabClosedOffline({ page, context, project, img }: Step): Promise<Page> {
  await drawBox(page, [150, 150], [260, 240]);
  await savedCount(page, project, img.id, 1);

  // From here no save reaches the server (on a busy machine drawing two boxes can outlast the
  // debounce), and the page-hide flush fails too: only IndexedDB holds the two new boxes.
  await page.evaluate(() => {
    const real = window.fetch.bind(window);
    window.fetch = (input, init) => (/save-(data|changes)/.test(String(input instanceof Request ? input.url : input)) ? Promise.reject(new TypeError('Failed to fetch')) : real(input, init));
  });
  await drawBox(page, [320, 150], [420, 260]);
  await drawBox(page, [150, 320], [260, 420]);
  await expect(rows(page)).toHaveCount(3);
  await page.waitForTimeout(300); // IndexedDB commits
  await page.close();

  const reopened = await context.newPage();
  await reopened.goto('/');
  expect((await loadSaved(reopened, project, img.id)).annotations).toHaveLength(1);
  await openEditorImage(reopened, img.filename);
  await expect(reopened.getByText('Restored 2 unsaved changes kept on this device. They are being saved.')).toBeVisible();
  await expect(rows(reopened)).toHaveCount(3);
  await reopened.screenshot({ path: 'test-results/editor-saving-restored.png' });
  await savedCount(reopened, project, img.id, 3);
  await expect(saveState(reopened)).toHaveText('Saved', { timeout: 15_000 });
  return reopened;
}

async function twoContexts({ page, browser, project, img }: Step) {

  const other = await browser.newContext({ baseURL: test.info().project.use.baseURL, viewport: { width: 1440, height: 900 } });
  try {
    const second = await other.newPage();
    await second.goto('/');
    await signIn(second, project.user);
    await second.getByRole('button', { name: 'Open project Streets' }).click();
    await expect(second.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
    await openEditorImage(second, img.filename);

    // Each draws a box within the same debounce window, on the same version.
    await drawBox(page, [150, 150], [260, 240]);
    await drawBox(second, [400, 300], [520, 420]);
    await savedCount(page, project, img.id, 2);
    await expect(saveState(page)).toHaveText(/^(Saved|Conflict merged)$/, { timeout: 20_000 });
    await expect(saveState(second)).toHaveText(/^(Saved|Conflict merged)$/, { timeout: 20_000 });
    const doc = await loadSaved(page, project, img.id);
    // Both editors hold both boxes: the one that saved second either heard the first save on the
    // live socket before its own (its box then went on the new version, no conflict) or merged
    // a 409 (the saves crossed).
    await expect(rows(page)).toHaveCount(2, { timeout: 20_000 });
    await expect(rows(second)).toHaveCount(2, { timeout: 20_000 });
    await second.screenshot({ path: 'test-results/editor-saving-merged.png' });
    expect(new Set(doc.annotations.map((a) => a.id as string)).size).toBe(2);
  } finally {
    await other.close();
  }
}

async function rebasedDuringDrag({ page, project, img }: Step) {
  await drawBox(page, [150, 150], [260, 240]);
  await savedCount(page, project, img.id, 1);
  const firstIds = new Set((await loadSaved(page, project, img.id)).annotations.map((a) => a.id as string));

  // The next save is held on its way to the server.
  let hold!: (route: Route) => void;
  const heldSave = new Promise<Route>((resolve) => (hold = resolve));
  let first = true;
  await page.route('**/api/v1/annotations/save-changes', async (route) => {
    if (!first) return route.continue();
    first = false;
    hold(route);
  });
  await drawBox(page, [320, 150], [420, 250]);
  const held = await heldSave;
  const sent = held.request().postDataJSON() as { upserts: { id: string; bounding_box: { x: number; y: number; w: number } }[]; removed_ids: string[] };
  // Only the change goes: the new box, not the one saved before.
  expect(sent.upserts.map((a) => firstIds.has(a.id))).toEqual([false]);
  const drawn = sent.upserts[0]!;

  // Someone else saves the image meanwhile, so the held save is stale; it touches only its new
  // box, so the server applies it on top of theirs and its answer carries their change.
  const current = await loadSaved(page, project, img.id);
  const theirs = { id: randomUUID(), name: 'car', bounding_box: { x: 560, y: 380, w: 90, h: 70 } };
  const other = await apiCall(page, 'POST', '/annotations/save-data', { image_id: img.id, project_id: project.projectId, image_filename: img.filename, annotations: [...current.annotations, theirs], base_version: current.version });
  expect(other.status).toBe(200);
  const answer = await held.fetch();
  expect(answer.status()).toBe(200);
  expect(await answer.json()).toMatchObject({ rebased_from: other.body.version, changes: { since: current.version, upserts: [theirs] } });

  // The user drags the new box by 120 screen px; the answer (with their box) lands halfway.
  await page.keyboard.press('q');
  const b = (await page.getByTestId('editor-canvas').boundingBox())!;
  await page.mouse.move(b.x + 370, b.y + 200);
  await page.mouse.down();
  await page.mouse.move(b.x + 430, b.y + 200, { steps: 6 });
  await held.fulfill({ response: answer });
  await expect(rows(page)).toHaveCount(3);
  await page.mouse.move(b.x + 490, b.y + 200, { steps: 6 });
  await page.mouse.up();

  await expect(rows(page)).toHaveCount(3);
  await savedCount(page, project, img.id, 3);
  await expect(saveState(page)).toHaveText('Saved', { timeout: 20_000 });
  // The whole drag, not where it stood when the merge landed.
  const expectedX = drawn.bounding_box.x + 120 * (drawn.bounding_box.w / 100);
  const savedX = async () => (await loadSaved(page, project, img.id)).annotations.find((a) => a.id === drawn.id)?.bounding_box.x ?? NaN;
  await expect.poll(async () => Math.abs((await savedX()) - expectedX), { timeout: 20_000 }).toBeLessThan(2);
  const doc = await loadSaved(page, project, img.id);
  expect(doc.annotations.map((a) => a.id as string)).toContain(theirs.id);
}

// Three journeys of about a minute each (fullyParallel hands out tests: none long enough to keep
// one worker busy alone at the end of a run).
test('saving on one page: usage records, the network cut, the server answering 503 twice', async ({ page, context, browser }) => {
  test.setTimeout(240_000);
  await journey({ page, context, browser }, [
    // First: the organization's usage summary starts at nothing drawn.
    [titles.usage, usageRecords],
    [titles.network, networkCut],
    [titles.unavailable, serverUnavailable],
  ]);
});

test('saving when the tab closes before the debounce fires, with and without the server', async ({ page, context, browser }) => {
  test.setTimeout(240_000);
  await journey({ page, context, browser }, [
    [titles.closed, tabClosed],
    [titles.closedLocal, tabClosedOffline],
  ]);
});

test('saving beside other saves: two browser contexts on one image, a save rebased during a drag', async ({ page, context, browser }) => {
  test.setTimeout(240_000);
  await journey({ page, context, browser }, [
    [titles.contexts, twoContexts],
    [titles.rebase, rebasedDuringDrag],
  ]);
});

test('a document over the 8 MB a whole save may carry keeps saving: a box drawn on it is saved as its change', async ({ page }) => {
  test.setTimeout(240_000);
  const project = await editorProject(page, {
    classes: [CLASSES[0]!, { name: 'field', type: 'polygon', color: '#A0C4FF' }],
    images: [{ name: IMAGE, width: 4000, height: 3000 }],
    open: false, // the app starts once, on the editor, after the seeding
  });
  const img = project.images[0]!;
  // 16,000 polygons of 40 points, seeded with save-changes in parts (each under 8 MB).
  const N = 16_000;
  const polygon = (i: number) => {
    const cx = 20 + (i % 160) * 24.5;
    const cy = 20 + Math.floor(i / 160) * 29.5;
    const path = Array.from({ length: 40 }, (_, j) => [+(cx + 9.25 * Math.cos((j * Math.PI) / 20)).toFixed(2), +(cy + 11.75 * Math.sin((j * Math.PI) / 20)).toFixed(2)]);
    return { id: `p-${i}`, name: 'field', bounding_box: { x: cx - 9.25, y: cy - 11.75, w: 18.5, h: 23.5 }, polygon: { path } };
  };
  const all = Array.from({ length: N }, (_, i) => polygon(i));
  expect(Buffer.byteLength(JSON.stringify(all))).toBeGreaterThan(MAX_SAVE_BYTES);
  // Megabytes go from here straight to the server, not through the page.
  const token = await page.evaluate(() => JSON.parse(localStorage.getItem(Object.keys(localStorage).find((k) => /^sb-.*-auth-token$/.test(k))!)!).access_token as string);
  const headers = { authorization: `Bearer ${token}` };
  let version = 0;
  for (let from = 0; from < N; from += 4000) {
    const res = await page.request.post('/api/v1/annotations/save-changes', { headers, data: { image_id: img.id, project_id: project.projectId, image_filename: IMAGE, base_version: version, upserts: all.slice(from, from + 4000) } });
    expect(res.status()).toBe(200);
    version = ((await res.json()) as { version: number }).version;
  }

  const saves: { url: string; bytes: number }[] = [];
  page.on('request', (r) => {
    if (/\/annotations\/(save-data|save-changes|batch-save-data)/.test(r.url())) saves.push({ url: r.url(), bytes: r.postDataBuffer()?.length ?? 0 });
  });
  await page.goto(`/projects/${project.projectId}/images/${img.id}`);
  await expect(page.getByRole('complementary', { name: 'Annotations' })).toContainText('16,000', { timeout: 120_000 });
  await expect(page.getByText('Loading image...')).toBeHidden({ timeout: 120_000 });
  const saved = page.waitForResponse((r) => r.url().endsWith('/api/v1/annotations/save-changes'), { timeout: 60_000 });
  await drawBox(page, [150, 150], [260, 240]);
  expect((await saved).status()).toBe(200);
  await expect(saveState(page)).toHaveText('Saved', { timeout: 20_000 });
  // One small request: the box, on the version the editor loaded.
  expect(saves.map((s) => new URL(s.url).pathname)).toEqual(['/api/v1/annotations/save-changes']);
  expect(saves[0]!.bytes).toBeLessThan(2048);

  const res = await page.request.get(`/api/v1/annotations/load-data/${img.id}?project_id=${project.projectId}`, { headers });
  expect(res.status()).toBe(200);
  const doc = (await res.json()) as { annotations: Record<string, unknown>[]; version: number };
  expect(doc.version).toBe(version + 1);
  expect(doc.annotations).toHaveLength(N + 1);
  expect(doc.annotations.at(-1)).toMatchObject({ name: 'car', bounding_box: { w: expect.any(Number) } });
  expect(doc.annotations[N - 1]).toEqual(all[N - 1]);
});
