// Fast set-up for editor tests: sign up and onboard through the UI (the real session), then
// create the project, its classes and images through the product API with that session's token.
import { expect, type Page } from '@playwright/test';
import sharp from 'sharp';
import { signUpOnboarded, uniqueUser } from './helpers';

export interface EditorProject {
  projectId: string;
  orgId: string;
  images: { id: string; filename: string }[];
  user: ReturnType<typeof uniqueUser>;
}

/** A PNG with a light background and a darker square, so drawings are visible in screenshots. */
export async function scenePng(width: number, height: number, hue: number): Promise<Buffer> {
  const bg = { r: 200 - hue, g: 210, b: 190 + hue / 2 };
  const square = await sharp({ create: { width: Math.round(width / 3), height: Math.round(height / 3), channels: 3, background: { r: 60, g: 80 + hue, b: 120 } } }).png().toBuffer();
  return sharp({ create: { width, height, channels: 3, background: bg } })
    .composite([{ input: square, left: Math.round(width / 3), top: Math.round(height / 3) }])
    .png()
    .toBuffer();
}

/** Calls the product API from the page with the signed-in user's token. */
export async function apiCall<T = any>(page: Page, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  return page.evaluate(
    async ({ method, path, body }) => {
      const key = Object.keys(localStorage).find((k) => /^sb-.*-auth-token$/.test(k));
      const token = key ? JSON.parse(localStorage.getItem(key)!).access_token : '';
      const res = await fetch(path.startsWith('/api/') ? path : `/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    { method, path, body },
  );
}

/** The signed-in user's access token, as supabase-js keeps it in the page's storage. */
export async function pageToken(page: Page): Promise<string> {
  return page.evaluate(() => {
    const key = Object.keys(localStorage).find((k) => /^sb-.*-auth-token$/.test(k));
    return key ? (JSON.parse(localStorage.getItem(key)!).access_token as string) : '';
  });
}

/**
 * The product API called from the test runner with the page's token, for large bodies: `apiCall`
 * carries a body through the page and its answer back over the DevTools protocol, which for a
 * 100,000-shape document costs the page and the runner seconds of CPU each way. Unlike
 * `apiCall`, it is not seen by `page.route` and not cut by an offline context.
 */
export async function runnerApi<T = any>(page: Page, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await page.request.fetch(path.startsWith('/api/') ? path : `/api/v1${path}`, { method, headers: { authorization: `Bearer ${await pageToken(page)}` }, data: body, timeout: 120_000 });
  const text = await res.text();
  return { status: res.status(), body: text ? JSON.parse(text) : null };
}

export async function uploadImages(page: Page, projectId: string, orgId: string, files: { name: string; buffer: Buffer; folder?: string }[]) {
  const out: { id: string; filename: string }[] = [];
  for (const f of files) {
    const folder = f.folder ?? '/';
    const urls = await apiCall(page, 'POST', `/projects/${projectId}/images/batch-upload-urls?org_id=${orgId}`, { files: [{ filename: f.name, content_type: 'image/png', folder_path: folder }] });
    expect(urls.status).toBe(200);
    const u = urls.body.urls[0];
    // The bytes go from the runner straight to the storage URL: through the page they were
    // base64 over the DevTools protocol and decoded there, megabytes for the large images.
    const put = await page.request.put(u.upload_url, { headers: { 'content-type': 'image/png' }, data: f.buffer });
    expect(put.status()).toBeLessThan(300);
    const meta = await sharp(f.buffer).metadata();
    const reg = await apiCall(page, 'POST', `/projects/${projectId}/images/register?org_id=${orgId}`, {
      filename: u.filename, gcs_bucket: u.gcs_bucket, gcs_path: u.gcs_path, gcs_uri: u.gcs_uri, folder_path: folder, file_size: f.buffer.length, mime_type: 'image/png', width: meta.width, height: meta.height,
    });
    expect(reg.status).toBe(200);
    out.push({ id: reg.body.image.id, filename: reg.body.image.filename });
  }
  return out;
}

/**
 * Signs up, onboards, creates a project (`name`, else Streets) with `classes` and uploads `images`
 * (oldest first, so the Data tab's default newest-first order lists the last one first; each a
 * `scenePng` of its size unless it brings its own PNG `buffer`), all through the API before the
 * app's first load (each load of the app costs the page about a second of CPU), then opens the
 * project page; with `open` the editor on the image of that name instead, and with `open: false`
 * nothing (the page stays on a static file of the origin, signed in: the app is not started).
 */
export async function editorProject(
  page: Page,
  opts: {
    name?: string;
    classes?: { name: string; type: 'box' | 'polygon' | 'polyline' | 'keypoint'; color: string }[];
    images?: { name: string; width?: number; height?: number; folder?: string; buffer?: Buffer }[];
    open?: string | false;
  } = {},
): Promise<EditorProject> {
  const user = uniqueUser('editor');
  const { orgId } = await signUpOnboarded(page, user, `Editor Org ${user.id}`);
  const created = await apiCall(page, 'POST', '/projects', { organization_id: orgId, name: opts.name ?? 'Streets', description: null, annotation_types: ['box', 'polygon', 'polyline', 'keypoint'], classes: opts.classes ?? [] });
  expect(created.status).toBe(200);
  const projectId = created.body.project.id;
  const images = await uploadImages(
    page,
    projectId,
    orgId,
    await Promise.all((opts.images ?? []).map(async (im, i) => ({ name: im.name, folder: im.folder, buffer: im.buffer ?? (await scenePng(im.width ?? 800, im.height ?? 600, i * 30)) }))),
  );
  if (opts.open === false) return { projectId, orgId, images, user };
  if (opts.open) {
    const image = images.find((i) => i.filename === opts.open);
    if (!image) throw new Error(`no image called ${opts.open}`);
    await gotoEditorImage(page, projectId, image);
  } else {
    await openProjectPage(page, projectId);
  }
  return { projectId, orgId, images, user };
}

/**
 * Loads the app straight on the project's Data tab by its URL. Through the projects page (load it,
 * click Open project) cost 0.42 s more CPU (tests/README.md, "Where the time goes", session 26);
 * the projects page and its Open project button have tests of their own.
 */
export async function openProjectPage(page: Page, projectId: string) {
  await page.goto(`/projects/${projectId}/data`);
  await expect(page.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
}

/** The image's saved document, read by the runner (`runnerApi`: documents may be large). */
export async function loadSaved(page: Page, project: EditorProject, imageId: string) {
  const res = await runnerApi(page, 'GET', `/annotations/load-data/${imageId}?project_id=${project.projectId}`);
  expect(res.status).toBe(200);
  return res.body as { annotations: any[]; version: number };
}

/** The editor URL of the image called `name` in the project (issue 29: /projects/:projectId/images/:imageId). */
export async function editorUrl(page: Page, projectId: string, name: string): Promise<string> {
  const res = await apiCall(page, 'GET', `/projects/${projectId}/images?search=${encodeURIComponent(name)}&is_archived=all&limit=100`);
  expect(res.status).toBe(200);
  const image = (res.body.images as { id: string; filename: string }[]).find((i) => i.filename === name);
  if (!image) throw new Error(`no image called ${name}`);
  return `/projects/${projectId}/images/${image.id}`;
}

/** The id of the project whose page (or editor) is open, else of the last project opened. */
export async function projectIdOf(page: Page): Promise<string> {
  const fromUrl = /\/projects\/([0-9a-f-]{36})/.exec(new URL(page.url()).pathname)?.[1];
  // A new tab is on about:blank, whose storage the page may not read: the app's origin first.
  if (!fromUrl && !page.url().startsWith('http')) await page.goto('/');
  const id = fromUrl ?? (await page.evaluate(() => (JSON.parse(localStorage.getItem('vellum.selectedProject') ?? 'null') as { id?: string } | null)?.id));
  if (!id) throw new Error(`no project open: ${page.url()}`);
  return id;
}

/** Opens an image of the open project in the editor by its name and waits until it is drawn. */
export async function openEditorImage(page: Page, name: string) {
  await page.goto(await editorUrl(page, await projectIdOf(page), name));
  await editorImageDrawn(page, name);
}

/** Loads the app on the image's editor URL (a page's first load of the app can go straight there) and waits until it is drawn. */
export async function gotoEditorImage(page: Page, projectId: string, image: { id: string; filename: string }) {
  await page.goto(`/projects/${projectId}/images/${image.id}`);
  await editorImageDrawn(page, image.filename);
}

/** Waits until the editor shows the image called `name`, drawn. */
async function editorImageDrawn(page: Page, name: string) {
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
  await expect(page.getByText('Loading image...')).toBeHidden({ timeout: 20_000 });
  await expect(page.getByTestId('editor-canvas')).toBeVisible();
}

/** Opens an image from the project's Data tab (the page must show it) and waits until it is drawn. */
export async function openFromDataTab(page: Page, name: string) {
  await page.getByRole('button', { name, exact: true }).click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
  await expect(page.getByText('Loading image...')).toBeHidden({ timeout: 20_000 });
}

/** The editor canvas's box on the page: canvas points below are relative to its top-left corner. */
export async function canvasBox(page: Page) {
  const box = await page.getByTestId('editor-canvas').boundingBox();
  if (!box) throw new Error('no canvas');
  return box;
}

/** Presses at `from`, moves in two stretches of 4 steps and releases at `to` (canvas points). */
export async function dragOnCanvas(page: Page, from: [number, number], to: [number, number]) {
  const b = await canvasBox(page);
  await page.mouse.move(b.x + from[0], b.y + from[1]);
  await page.mouse.down();
  await page.mouse.move(b.x + (from[0] + to[0]) / 2, b.y + (from[1] + to[1]) / 2, { steps: 4 });
  await page.mouse.move(b.x + to[0], b.y + to[1], { steps: 4 });
  await page.mouse.up();
}

/** Draws a box with the Bounding Box tool between two canvas points. */
export async function drawBox(page: Page, from: [number, number], to: [number, number]) {
  await page.keyboard.press('r');
  await dragOnCanvas(page, from, to);
}

/** The rows of the editor's annotation list, top first. */
export const annotationRows = (page: Page) => page.getByRole('listbox', { name: 'Annotation list' }).getByRole('option');

/** Waits until the top bar says Saved (changes wait at most 150 ms before they count as unsaved). */
export async function waitUntilSaved(page: Page) {
  await page.waitForTimeout(300);
  await expect(page.getByRole('status').filter({ hasText: /^Saved$/ })).toBeVisible({ timeout: 15_000 });
}

/** The mean colour of a 5 x 5 patch of the page around (x, y). */
export async function pixelAt(page: Page, x: number, y: number): Promise<[number, number, number]> {
  const png = await page.screenshot({ clip: { x: Math.round(x) - 2, y: Math.round(y) - 2, width: 5, height: 5 } });
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const sum = [0, 0, 0];
  for (let i = 0; i < info.width * info.height; i++) for (let c = 0; c < 3; c++) sum[c]! += data[i * 3 + c]!;
  const n = info.width * info.height;
  return [sum[0]! / n, sum[1]! / n, sum[2]! / n];
}

/**
 * The image's rectangle as drawn on the canvas (page pixels), once the editor shows it at rest: two
 * reads in a row agree, and the rectangle is not empty (and has the image's `aspect`, width over
 * height, when given). Read before the image's first frame (a busy machine), the canvas is dark and
 * the rectangle comes out inside out: a spec that places points from it puts them elsewhere (the
 * keyboard-draw and consensus specs failed so, under load).
 */
export async function drawnImageRect(page: Page, opts: { aspect?: number } = {}) {
  let last = { left: 0, right: 0, top: 0, bottom: 0 };
  await expect
    .poll(
      async () => {
        const now = await readImageRect(page);
        const w = now.right - now.left;
        const h = now.bottom - now.top;
        const shaped = w > 0 && h > 0 && (opts.aspect === undefined || Math.abs(w / h - opts.aspect) < 0.03);
        const settled = shaped && (['left', 'right', 'top', 'bottom'] as const).every((k) => Math.abs(now[k] - last[k]) < 1);
        last = now;
        return settled;
      },
      { timeout: 20_000, intervals: [100, 250, 500] },
    )
    .toBe(true);
  return last;
}

/**
 * One read of drawnImageRect: a screenshot with what lies over the canvas (the Auto-Annotate bar,
 * the class picker, the zoom controls) hidden, scenePng's light image against the editor's dark
 * surround, along the canvas's middle row and a column just inside the image's left edge.
 */
async function readImageRect(page: Page) {
  const b = await canvasBox(page);
  const overlays = (hidden: boolean) =>
    page.getByTestId('editor-canvas').evaluate((canvas, h) => {
      const box = canvas.parentElement!;
      for (const el of Array.from(box.parentElement!.children)) if (el !== box) (el as HTMLElement).style.visibility = h ? 'hidden' : '';
    }, hidden);
  await overlays(true);
  const png = await page.screenshot({ clip: b });
  await overlays(false);
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const light = (x: number, y: number) => data[(y * info.width + x) * 3]! > 120;
  const sx = info.width / b.width;
  const midY = Math.round(info.height / 2);
  let left = 0;
  while (left < info.width && !light(left, midY)) left++;
  let right = info.width - 1;
  while (right > 0 && !light(right, midY)) right--;
  const col = left + Math.round(8 * sx);
  let top = 0;
  while (top < info.height && !light(col, top)) top++;
  let bottom = info.height - 1;
  while (bottom > 0 && !light(col, bottom)) bottom--;
  return { left: b.x + left / sx, right: b.x + right / sx, top: b.y + top / sx, bottom: b.y + bottom / sx };
}
