// The editor on big work: a large image opens through the renderer's tiles and is really drawn,
// and a dense document keeps the sidebar virtualised.
import { expect, test, type Locator, type Page } from '@playwright/test';
import sharp from 'sharp';
import { apiCall, editorProject, loadSaved, openProjectPage, pixelAt, runnerApi } from './editor-helpers';

/** Whether any pixel within `r` px of (x, y) is white (a selected shape's handle). */
async function whiteNear(page: Page, x: number, y: number, r: number): Promise<boolean> {
  const png = await page.screenshot({ clip: { x: Math.round(x - r), y: Math.round(y - r), width: 2 * r + 1, height: 2 * r + 1 } });
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  for (let i = 0; i < info.width * info.height; i++) if (data[i * 3]! > 240 && data[i * 3 + 1]! > 240 && data[i * 3 + 2]! > 240) return true;
  return false;
}

/**
 * The zoom shown, for a poll that wheels once more while it is 300% or less. The editor zooms by
 * the wheel's delta, so the events Chromium merges while the page is busy still count; the poll
 * is for the ones a busy page has not yet handled when the loop ends. A person scrolls on.
 * ZOOM_WAIT: idle, 30 notches take about 1 s and end at 470%; in CI (2 workers, SwiftShader
 * drawing 20,000 shapes a frame) the page handled them so slowly that the zoom read 103% after the
 * loop and 10 s of polling, and 113% a moment later (session 25's CI, first try; the retry passed).
 */
const ZOOM_WAIT = 60_000;
function zoomedPast300(page: Page, zoom: Locator) {
  return async () => {
    const percent = parseInt(await zoom.innerText(), 10);
    if (!(percent > 300)) await page.mouse.wheel(0, -100);
    return percent;
  };
}

test('editor: an 8000 x 6000 image opens, is drawn, and zooms at the pointer', async ({ page }) => {
  test.setTimeout(180_000);
  await editorProject(page, { classes: [{ name: 'car', type: 'box', color: '#FFADAD' }], images: [{ name: 'aerial.png', width: 8000, height: 6000 }] });
  await page.getByRole('button', { name: 'aerial.png', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'aerial.png', level: 1 })).toBeVisible();
  await expect(page.getByText('Loading image...')).toBeHidden({ timeout: 60_000 });
  const canvas = (await page.getByTestId('editor-canvas').boundingBox())!;
  const cx = canvas.x + canvas.width / 2;
  const cy = canvas.y + canvas.height / 2;
  // The image's middle third is a dark square (60, 80, 120) on a light background; until the
  // tiles arrive the stage shows its dark surround (27, 31, 42).
  const isSquare = async () => {
    const [r, g, b] = await pixelAt(page, cx, cy);
    return Math.abs(r - 60) < 20 && Math.abs(g - 80) < 20 && Math.abs(b - 120) < 20;
  };
  await expect.poll(isSquare, { timeout: 30_000 }).toBe(true);
  // Fitted far below 100%; wheel zoom at the pointer keeps the square under it.
  await expect(page.getByRole('group', { name: 'Zoom' })).toContainText(/^(\d|1\d)%$/);
  await page.mouse.move(cx, cy);
  for (let i = 0; i < 12; i++) await page.mouse.wheel(0, -100);
  await expect(page.getByRole('group', { name: 'Zoom' })).not.toContainText(/^(\d|1\d)%$/);
  await expect.poll(isSquare, { timeout: 30_000 }).toBe(true);
  // D pans the view right over the image; the background comes in from the right edge.
  await page.getByTestId('editor-canvas').focus();
  for (let i = 0; i < 30; i++) await page.keyboard.press('d');
  await page.screenshot({ path: 'test-results/editor-large.png' });
});

test('editor: 20,000 annotations load, the list stays virtual, a row selects its shape', async ({ page }) => {
  test.setTimeout(180_000);
  // Seeded before the app's first load (open: false), so the app starts once.
  const project = await editorProject(page, { classes: [{ name: 'tree', type: 'box', color: '#CAFFBF' }], images: [{ name: 'forest.png', width: 4000, height: 3000 }], open: false });
  const annotations = Array.from({ length: 20_000 }, (_, i) => ({
    id: `t-${i}`,
    name: 'tree',
    bounding_box: { x: (i % 200) * 20, y: Math.floor(i / 200) * 30, w: 12, h: 20 },
  }));
  const res = await runnerApi(page, 'POST', '/annotations/save-data', { image_id: project.images[0]!.id, project_id: project.projectId, image_filename: 'forest.png', annotations });
  expect(res.status).toBe(200);
  // Class names off: a selected shape's label (white text) would sit beside the handles looked for below.
  await page.evaluate(() => localStorage.setItem('vellum.editorLabels', 'false'));
  await openProjectPage(page, project.projectId);
  await page.getByRole('button', { name: 'forest.png', exact: true }).click();
  await expect(page.getByText('Loading image...')).toBeHidden({ timeout: 60_000 });
  const list = page.getByRole('listbox', { name: 'Annotation list' });
  await expect(page.getByRole('complementary', { name: 'Annotations' })).toContainText('20,000');
  // Only the rows in view exist in the page.
  expect(await list.getByRole('option').count()).toBeLessThan(80);
  await list.getByRole('option').first().click();
  await expect(page.getByRole('complementary', { name: 'Annotations' })).toContainText('1/20,000');
  // Scroll to the end: the oldest annotation's row appears.
  await list.evaluate((el) => (el.scrollTop = el.scrollHeight));
  await expect(list.getByRole('option').last()).toBeVisible();
  expect(await list.getByRole('option').count()).toBeLessThan(80);
  // A row brings its shape into view. Zoomed in on the top-left corner (nothing selected, so no
  // white handle anywhere), the newest row's shape, at the bottom right, is centred: its white
  // handles appear at the canvas centre +- half its size (12 x 20 image px) at the zoom shown.
  await page.getByTestId('editor-canvas').focus();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('complementary', { name: 'Annotations' })).not.toContainText('1/20,000');
  const cb = (await page.getByTestId('editor-canvas').boundingBox())!;
  // Zoom in at a point inside the image near its top-left corner (the square image is fitted in
  // the middle of the canvas), so the newest shape, at the bottom-right, is far out of view and
  // its row below centres it. Anchored in the canvas margin instead, the zoom sometimes ended with
  // that shape in view, where bringing it into view does not move the camera.
  const side = Math.min(cb.width, cb.height);
  await page.mouse.move(cb.x + cb.width / 2 - side / 2 + 60, cb.y + cb.height / 2 - side / 2 + 60);
  for (let i = 0; i < 30; i++) await page.mouse.wheel(0, -100);
  const zoom = page.getByRole('group', { name: 'Zoom' });
  await expect.poll(zoomedPast300(page, zoom), { timeout: ZOOM_WAIT }).toBeGreaterThan(300);
  const cx = cb.x + cb.width / 2, cy = cb.y + cb.height / 2;
  expect(await whiteNear(page, cx, cy, 60)).toBe(false);
  await list.evaluate((el) => (el.scrollTop = 0));
  await list.getByRole('option').first().click();
  await expect(page.getByRole('complementary', { name: 'Annotations' })).toContainText('1/20,000');
  const scale = parseInt(await zoom.innerText(), 10) / 100;
  await expect.poll(async () => [await whiteNear(page, cx + 6 * scale, cy, 5), await whiteNear(page, cx - 6 * scale, cy, 5), await whiteNear(page, cx, cy - 10 * scale, 5)]).toEqual([true, true, true]);
  // Select all and delete: one step, undone at once.
  await page.getByTestId('editor-canvas').focus();
  await page.keyboard.press('Control+a');
  await expect(page.getByRole('complementary', { name: 'Annotations' })).toContainText('20,000/20,000');
  await page.keyboard.press('Delete');
  await expect(page.getByText('No annotations yet')).toBeVisible();
  await page.keyboard.press('Control+z');
  await expect(page.getByRole('complementary', { name: 'Annotations' })).toContainText('20,000');
  await page.screenshot({ path: 'test-results/editor-dense.png' });
});

/**
 * Measurement (issue 4's target: no main-thread task over 50 ms while 100k shapes load). The
 * long tasks seen from the click on the image until the document is complete are written to
 * test-results/editor-load-longtasks.json and printed; the figure goes into the README's
 * Performance section. Only behaviour is asserted here: progress shows, the document is complete.
 */
test('editor: 100,000 annotations load in slices with progress; leaving mid-load cancels it; one edited shape is saved alone and there after a reload (long tasks measured)', async ({ page, browser }, testInfo) => {
  test.setTimeout(600_000);
  const project = await editorProject(page, {
    classes: [{ name: 'tree', type: 'box', color: '#CAFFBF' }, { name: 'field', type: 'polygon', color: '#A0C4FF' }],
    images: [{ name: 'county.png', width: 4000, height: 4000 }, { name: 'village.png' }],
  });
  const image = project.images[0]!;
  const village = project.images[1]!;
  const small = [0, 1, 2].map((i) => ({ id: `v-${i}`, name: 'tree', bounding_box: { x: 50 + i * 100, y: 50, w: 60, h: 60 } }));
  expect((await apiCall(page, 'POST', '/annotations/save-data', { image_id: village.id, project_id: project.projectId, image_filename: 'village.png', annotations: small })).status).toBe(200);
  // 90,000 boxes and 10,000 eight-point polygons, seeded in parts of 10,000 (one save-data may carry 8 MB).
  const N = 100_000;
  let version = 0;
  for (let from = 0; from < N; from += 10_000) {
    const upserts = Array.from({ length: 10_000 }, (_, k) => {
      const i = from + k;
      const x = (i % 400) * 10;
      const y = Math.floor(i / 400) * 16;
      if (i % 10 === 9) {
        const path = Array.from({ length: 8 }, (_, j) => [x + 4 + 4 * Math.cos((j * Math.PI) / 4), y + 6 + 6 * Math.sin((j * Math.PI) / 4)]);
        return { id: `s-${i}`, name: 'field', bounding_box: { x, y, w: 8, h: 12 }, polygon: { path } };
      }
      return { id: `s-${i}`, name: 'tree', bounding_box: { x, y, w: 7, h: 12 } };
    });
    const res = await runnerApi(page, 'POST', '/annotations/save-changes', { image_id: image.id, project_id: project.projectId, image_filename: 'county.png', base_version: version, upserts });
    expect(res.status).toBe(200);
    version = res.body.version;
  }
  // Long tasks from the moment the image is opened.
  await page.evaluate(() => {
    const w = window as unknown as { __longTasks: { start: number; duration: number }[]; __obs?: PerformanceObserver };
    w.__longTasks = [];
    w.__obs = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__longTasks.push({ start: e.startTime, duration: e.duration });
    });
    w.__obs.observe({ type: 'longtask' });
  });
  const t0 = await page.evaluate(() => performance.now());
  const cdp = process.env.VELLUM_PROFILE ? await page.context().newCDPSession(page) : null;
  // VELLUM_PROFILE=<file>: a CPU profile of the page over the window, with the long tasks and a
  // mark (a 20 ms busy function) in <file>.tasks.json to line the two clocks up. The sampling
  // interval (VELLUM_PROFILE_INTERVAL, default 1000 us) itself slows the page: compare runs made alike.
  let profileMark = 0;
  if (cdp) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: Number(process.env.VELLUM_PROFILE_INTERVAL ?? 1000) });
    await cdp.send('Profiler.start');
    profileMark = await page.evaluate(function vellumProfileMark() {
      const s = performance.now();
      while (performance.now() - s < 20);
      return s;
    });
  }
  // VELLUM_TRACE=<file>: a Chrome trace of the window (top-level tasks with what posted them,
  // timeline events), for the native time a CPU profile shows only as '(program)'.
  if (process.env.VELLUM_TRACE) await browser.startTracing(page, { path: process.env.VELLUM_TRACE, categories: ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline', 'loading', 'v8'] });
  await page.getByRole('button', { name: 'county.png', exact: true }).click();
  // The loading state says how far it got, and the list does not show the previous document
  // meanwhile. Checked with plain DOM reads, so the checks cost the page little. (A trace still
  // shows one DevTools command of ~0.4 s CPU on the page's thread as load-data arrives, in every
  // run: the harness's, not the app's; the long-task observer below does not report it.)
  await page.waitForFunction(() => {
    const shown = (e: Element | null | undefined) => Boolean(e && e.getClientRects().length > 0);
    const progress = document.querySelector('[role="progressbar"][aria-label="Loading 100,000 annotations"]');
    const label = progress?.nextElementSibling;
    const list = [...document.querySelectorAll('aside[aria-label="Annotations"] p')].find((p) => p.textContent === 'Loading annotations...');
    return shown(progress) && shown(label) && /^Loading 100,000 annotations\.\.\. \d{1,3}%$/.test(label?.textContent ?? '') && shown(list);
  }, null, { polling: 100, timeout: 60_000 });
  // Then the whole document: a light poll (a locator's text search would add its own long tasks).
  await page.waitForFunction(() => !document.querySelector('[role="progressbar"]') && /^100,000$/.test(document.querySelector('aside[aria-label="Annotations"] [aria-live]')?.textContent ?? ''), null, { polling: 250, timeout: 120_000 });
  // Let the renderer's packing and the index build in idle time finish inside the window.
  await page.waitForTimeout(3000);
  await expect(page.getByText('Loading image...')).toBeHidden();
  if (process.env.VELLUM_TRACE) {
    await browser.stopTracing();
    const fs = await import('node:fs');
    fs.writeFileSync(`${process.env.VELLUM_TRACE}.tasks.json`, JSON.stringify({ t0, tasks: await page.evaluate(() => (window as unknown as { __longTasks: unknown[] }).__longTasks) }));
  }
  if (cdp) {
    const { profile } = await cdp.send('Profiler.stop');
    const fs = await import('node:fs');
    fs.writeFileSync(process.env.VELLUM_PROFILE!, JSON.stringify(profile));
    const tasks = await page.evaluate(() => (window as unknown as { __longTasks: unknown[] }).__longTasks);
    fs.writeFileSync(`${process.env.VELLUM_PROFILE}.tasks.json`, JSON.stringify({ mark: profileMark, tasks }));
  }
  const measured = await page.evaluate((start) => {
    const w = window as unknown as { __longTasks: { start: number; duration: number }[]; __obs?: PerformanceObserver };
    w.__obs?.disconnect();
    return { tasks: w.__longTasks.filter((t) => t.start >= start).map((t) => ({ start: Math.round(t.start - start), duration: Math.round(t.duration) })), windowMs: Math.round(performance.now() - start) };
  }, t0);
  const longest = Math.max(0, ...measured.tasks.map((t) => t.duration));
  const report = { annotations: N, longestTaskMs: longest, tasksOver50ms: measured.tasks.length, windowMs: measured.windowMs, tasks: measured.tasks };
  console.log(`editor load of ${N} annotations: longest main-thread task ${longest} ms, ${measured.tasks.length} task(s) over 50 ms in ${measured.windowMs} ms`, JSON.stringify(measured.tasks));
  await testInfo.attach('editor-load-longtasks.json', { body: JSON.stringify(report, null, 2), contentType: 'application/json' });

  // Leaving while it loads: to the previous image and back, then away again mid-load. The small
  // image shows its own three shapes, and the abandoned 100k load never replaces them.
  // County's document is held at the network until its switch shows the loading state: coming
  // back, the editor keeps village on the canvas for up to 1.2 s, and a prefetched document on an
  // idle machine could load in that time, with no progress to see and no load to leave.
  const count = page.getByRole('complementary', { name: 'Annotations' }).locator('[aria-live]');
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const countyData = (url: URL) => url.pathname.endsWith(`/annotations/load-data/${image.id}`);
  await page.route(countyData, async (route) => {
    await held;
    await route.continue();
  });
  await page.keyboard.press(',');
  await expect(page.getByRole('heading', { name: 'village.png', level: 1 })).toBeVisible();
  await expect(count).toHaveText('3', { timeout: 30_000 });
  await page.keyboard.press('.');
  await expect(page.getByRole('heading', { name: 'county.png', level: 1 })).toBeVisible();
  await expect(page.getByText('Loading image...')).toBeVisible({ timeout: 30_000 });
  // The bar is caught as it appears (a locator's polling slows to 1 s and could miss a short load).
  await page.evaluate(() => {
    const w = window as unknown as { __sawBar?: boolean };
    w.__sawBar = false;
    const seen = new MutationObserver(() => {
      if (!document.querySelector('[role="progressbar"][aria-label="Loading 100,000 annotations"]')) return;
      w.__sawBar = true;
      seen.disconnect();
    });
    seen.observe(document.body, { childList: true, subtree: true });
  });
  release();
  await page.waitForFunction(() => (window as unknown as { __sawBar?: boolean }).__sawBar === true, null, { timeout: 60_000 });
  await page.unroute(countyData);
  await page.keyboard.press(',');
  await expect(page.getByRole('heading', { name: 'village.png', level: 1 })).toBeVisible();
  await expect(count).toHaveText('3', { timeout: 30_000 });
  await expect(page.getByText('Loading image...')).toBeHidden();
  await page.waitForTimeout(5000);
  await expect(count).toHaveText('3');
  await expect(page.getByRole('listbox', { name: 'Annotation list' }).getByRole('option')).toHaveCount(3);

  // Editing one shape of the 100k saves that shape alone, and a reload shows it saved.
  await page.keyboard.press('.');
  await expect(page.getByRole('heading', { name: 'county.png', level: 1 })).toBeVisible();
  await expect(count).toHaveText('100,000', { timeout: 120_000 });
  await expect(page.getByText('Loading image...')).toBeHidden();
  const cb = (await page.getByTestId('editor-canvas').boundingBox())!;
  // Zoom in at a point inside the image near its top-left corner (the square image is fitted in
  // the middle of the canvas), so the newest shape, at the bottom-right, is far out of view and
  // its row below centres it. Anchored in the canvas margin instead, the zoom sometimes ended with
  // that shape in view, where bringing it into view does not move the camera.
  const side = Math.min(cb.width, cb.height);
  await page.mouse.move(cb.x + cb.width / 2 - side / 2 + 60, cb.y + cb.height / 2 - side / 2 + 60);
  for (let i = 0; i < 30; i++) await page.mouse.wheel(0, -100);
  const zoom = page.getByRole('group', { name: 'Zoom' });
  await expect.poll(zoomedPast300(page, zoom), { timeout: ZOOM_WAIT }).toBeGreaterThan(300);
  const scale = parseInt(await zoom.innerText(), 10) / 100;
  // The newest row is s-99999, an octagon around (3994, 3990) + (4, 6): the row centres it.
  const list = page.getByRole('listbox', { name: 'Annotation list' });
  await list.getByRole('option').first().click();
  await expect(page.getByRole('complementary', { name: 'Annotations' })).toContainText('1/100,000');
  const saves: number[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/annotations/save-changes')) saves.push(Buffer.byteLength(r.postData() ?? ''));
  });
  const before = (await loadSaved(page, project, image.id)) as { annotations: { id: string; bounding_box: { x: number } }[]; version: number };
  const cx = cb.x + cb.width / 2, cy = cb.y + cb.height / 2;
  // The save's own answer is awaited: polling load-data (100k shapes parsed in the page and sent
  // back to the runner) took longer than the poll's window on a loaded machine.
  const savedAnswer = page.waitForResponse((r) => r.url().includes('/annotations/save-changes'), { timeout: 60_000 });
  await page.mouse.move(cx, cy);
  await page.mouse.down();
  await page.mouse.move(cx - 20 * scale, cy, { steps: 4 });
  await page.mouse.move(cx - 40 * scale, cy, { steps: 4 });
  await page.mouse.up();
  const saveState = page.getByRole('status').filter({ hasText: /^(Saved|Saving\.\.\.|Unsaved changes)$/ });
  const answer = await savedAnswer;
  expect(answer.status()).toBe(200);
  expect(((await answer.json()) as { version: number }).version).toBe(before.version + 1);
  await expect(saveState).toHaveText('Saved', { timeout: 30_000 });
  // The shape alone goes out: each save is small. Usually one; a drag that outlasts the save's 3 s
  // ceiling (a machine at load 25-35 handles its pointer moves over 100k shapes that slowly) also
  // sends where the shape was on the way, as it should: no change waits longer than that.
  expect(saves.length).toBeGreaterThanOrEqual(1);
  for (const bytes of saves) expect(bytes).toBeLessThan(2048);
  const after = (await loadSaved(page, project, image.id)) as typeof before;
  const movedShape = after.annotations.find((a) => a.id === 's-99999')!;
  expect(movedShape.bounding_box.x).toBeCloseTo(3990 - 40, -1);
  expect(after.annotations.length).toBe(N);
  // Every other shape is as it was.
  expect(after.annotations.filter((a, i) => a.id !== 's-99999' && JSON.stringify(a) !== JSON.stringify(before.annotations[i])).length).toBe(0);

  await page.reload();
  await expect(page.getByRole('heading', { name: 'county.png', level: 1 })).toBeVisible({ timeout: 60_000 });
  await expect(count).toHaveText('100,000', { timeout: 120_000 });
  await expect(saveState).toHaveText('Saved');
  await list.getByRole('option').first().click();
  await expect(page.getByRole('complementary', { name: 'Annotations' })).toContainText('1/100,000');
  expect(((await loadSaved(page, project, image.id)) as typeof before).annotations.find((a) => a.id === 's-99999')!.bounding_box.x).toBe(movedShape.bounding_box.x);
});
