// How the editor draws (issue 19): class names on the canvas, switched off and on in the settings
// panel, and the session's image adjustments, which change the canvas but never the stored image.
import { expect, test, type Page } from '@playwright/test';
import sharp from 'sharp';
import { fitToScreen } from '../../src/engine/camera';
import { apiCall, editorProject, openEditorImage, pixelAt, scenePng } from './editor-helpers';

const IMAGE = 'street.png';
const W = 800, H = 600;
// the car box's top-left corner, image px
const CAR = { x: 90, y: 110, w: 200, h: 130 };

/** The canvas's pixels (RGB) and where the image lies on the page (the editor fits it at opening). */
async function canvasShot(page: Page) {
  const canvas = page.getByTestId('editor-canvas');
  const box = (await canvas.boundingBox())!;
  const png = await canvas.screenshot();
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, box };
}

async function openSettings(page: Page, tab: 'Image' | 'Annotation') {
  const tabs = page.getByRole('tablist', { name: 'Editor settings' });
  if (!(await tabs.isVisible())) {
    await page.getByRole('button', { name: 'Editor settings' }).click({ timeout: 30_000 });
    await expect(tabs).toBeVisible();
  }
  await page.getByRole('tab', { name: tab }).click({ timeout: 15_000 });
}

async function closeSettings(page: Page) {
  await page.keyboard.press('Escape');
  await expect(page.getByRole('tablist', { name: 'Editor settings' })).toBeHidden();
  await page.mouse.move(2, 2); // nothing hovered on the canvas
}

test('editor: class names are drawn at the shapes and switch off; adjustments change the canvas, not the stored image', async ({ page }) => {
  test.setTimeout(180_000);
  const project = await editorProject(page, {
    classes: [
      { name: 'car', type: 'box', color: '#F07575' },
      { name: 'tree', type: 'polygon', color: '#75F0A6' },
      { name: 'road edge', type: 'polyline', color: '#ACCAF6' },
      { name: 'person', type: 'keypoint', color: '#F0D775' },
    ],
    images: [{ name: IMAGE, width: W, height: H }],
  });
  const image = project.images[0]!;
  const annotations = [
    { id: 'car-1', name: 'car', bounding_box: CAR },
    { id: 'tree-1', name: 'tree', bounding_box: { x: 520, y: 80, w: 200, h: 170 }, polygon: { path: [[540, 90], [700, 80], [720, 230], [600, 250], [520, 180]] } },
    { id: 'road-1', name: 'road edge', bounding_box: { x: 60, y: 420, w: 680, h: 120 }, polyline: { path: [[60, 540], [300, 470], [520, 440], [740, 420]] } },
    { id: 'person-1', name: 'person', bounding_box: { x: 640, y: 330, w: 0, h: 0 }, keypoint: { x: 640, y: 330 } },
  ];
  const saved = await apiCall(page, 'POST', '/annotations/save-data', { image_id: image.id, project_id: project.projectId, image_filename: IMAGE, annotations });
  expect(saved.status).toBe(200);
  await openEditorImage(page, IMAGE);
  await expect(page.getByRole('complementary', { name: 'Annotations' })).toContainText('4');
  await page.mouse.move(2, 2);

  // Where the car's corner is on the canvas (the image is fitted and centred when it opens).
  const first = await canvasShot(page);
  const cam = fitToScreen({ width: first.box.width, height: first.box.height }, { width: W, height: H });
  const corner = { x: cam.x + CAR.x * cam.scale, y: cam.y + CAR.y * cam.scale };

  // Labels are on by default: switch them off, and the pixels that change are the car's label:
  // a dark pill with white text just above the box's top-left corner.
  let on = first;
  await expect.poll(async () => darkAbove((on = await canvasShot(page)), corner)).toBeGreaterThan(100);
  await openSettings(page, 'Annotation');
  const labelSwitch = page.getByRole('switch', { name: 'Show class names' });
  await expect(labelSwitch).toBeChecked();
  await labelSwitch.click();
  await expect(labelSwitch).not.toBeChecked();
  await closeSettings(page);
  let off = on;
  // the frame after the change may take a moment (worker)
  await expect.poll(async () => {
    off = await canvasShot(page);
    return diffBox(on, off, corner, 60) !== null;
  }).toBe(true);
  const label = diffBox(on, off, corner, 60)!;
  expect(label.bottom).toBeLessThanOrEqual(corner.y);
  expect(label.bottom).toBeGreaterThan(corner.y - 12);
  expect(label.left).toBeGreaterThan(corner.x - 6);
  expect(label.left).toBeLessThan(corner.x + 6);
  expect(label.bottom - label.top + 1).toBeLessThanOrEqual(20);
  expect(label.right - label.left + 1).toBeGreaterThan(30);
  expect(label.white).toBeGreaterThan(8); // the text
  expect(label.dark).toBeGreaterThan(100); // the pill
  // Back on: the same picture as before.
  await openSettings(page, 'Annotation');
  await labelSwitch.click();
  await closeSettings(page);
  await expect.poll(async () => diffBox(on, await canvasShot(page), corner, 60)).toBeNull();

  // Outline width: Thick draws the car's outline wider than Normal, and is kept after a reload.
  const edgeAt = { x: corner.x, y: corner.y + (CAR.h * cam.scale) / 2 };
  const normal = outlinePixels(await canvasShot(page), edgeAt);
  expect(normal).toBeGreaterThan(40);
  await openSettings(page, 'Annotation');
  await expect(page.getByRole('radio', { name: /Normal/ })).toBeChecked();
  await page.getByRole('radio', { name: /Thick/ }).check();
  await closeSettings(page);
  await expect.poll(async () => outlinePixels(await canvasShot(page), edgeAt)).toBeGreaterThan(normal + 10);
  await page.reload();
  await expect(page.getByText('Loading image...')).toBeHidden({ timeout: 20_000 });
  await openSettings(page, 'Annotation');
  await expect(page.getByRole('radio', { name: /Thick/ })).toBeChecked();
  await expect(page.getByRole('switch', { name: 'Show class names' })).toBeChecked();
  await page.getByRole('radio', { name: /Normal/ }).check();
  await closeSettings(page);
  await expect.poll(async () => Math.abs(outlinePixels(await canvasShot(page), edgeAt) - normal)).toBeLessThanOrEqual(4);

  // Screenshots with labels, at 1440 and 1024 px wide, and the settings panel.
  await page.screenshot({ path: 'test-results/editor-view-1440.png' });
  await openSettings(page, 'Annotation');
  await page.screenshot({ path: 'test-results/editor-view-settings-annotation.png' });
  await openSettings(page, 'Image');
  await page.screenshot({ path: 'test-results/editor-view-settings-image.png' });
  await closeSettings(page);

  // Image adjustments: the dark square in the middle of the image gets brighter on the canvas.
  const cb = first.box;
  const mid = { x: cb.x + cb.width / 2, y: cb.y + cb.height / 2 };
  const before = await pixelAt(page, mid.x, mid.y);
  expect(before[0]).toBeLessThan(90); // the square (60, 80, 120)
  await openSettings(page, 'Image');
  await page.getByLabel('Brightness').fill('1.5');
  await expect(page.getByText('150%')).toBeVisible();
  await page.getByLabel('Gamma').fill('1.5');
  await closeSettings(page);
  await expect.poll(async () => (await pixelAt(page, mid.x, mid.y))[0]).toBeGreaterThan(before[0] + 40);
  const brighter = await pixelAt(page, mid.x, mid.y);
  expect(brighter[2]).toBeGreaterThan(before[2] + 40);
  await page.screenshot({ path: 'test-results/editor-view-adjusted.png' });

  // The stored image is the one uploaded, byte for byte in its pixels.
  const url = await apiCall(page, 'GET', `/images/${image.id}/signed-url`);
  expect(url.status).toBe(200);
  const stored = await page.evaluate(async (u) => {
    const r = await fetch(u);
    const b = new Uint8Array(await r.arrayBuffer());
    let s = '';
    for (const x of b) s += String.fromCharCode(x);
    return btoa(s);
  }, url.body.signed_url as string);
  const storedPx = await sharp(Buffer.from(stored, 'base64')).removeAlpha().raw().toBuffer();
  const uploadedPx = await sharp(await scenePng(W, H, 0)).removeAlpha().raw().toBuffer();
  expect(storedPx.equals(uploadedPx)).toBe(true);

  // Reset: the image is drawn as it is again.
  await openSettings(page, 'Image');
  await page.getByRole('button', { name: 'Reset' }).click();
  await expect(page.getByText('100%').first()).toBeVisible();
  await closeSettings(page);
  await expect.poll(async () => Math.abs((await pixelAt(page, mid.x, mid.y))[0] - before[0])).toBeLessThan(4);

  // At 1024 px wide, fitted again: the labels follow their shapes.
  await page.setViewportSize({ width: 1024, height: 768 });
  await page.mouse.move(2, 2);
  await expect(page.getByTestId('editor-canvas')).toBeVisible();
  await page.getByRole('button', { name: 'Fit to screen' }).click();
  await page.mouse.move(2, 2);
  const small = await canvasShot(page);
  const fit = fitToScreen({ width: small.box.width, height: small.box.height }, { width: W, height: H });
  const carAt = { x: fit.x + CAR.x * fit.scale, y: fit.y + CAR.y * fit.scale };
  await expect.poll(async () => darkAbove(await canvasShot(page), carAt)).toBeGreaterThan(100); // the car's label, at its new place
  await page.screenshot({ path: 'test-results/editor-view-1024.png' });
});

interface DiffBox {
  left: number;
  top: number;
  right: number;
  bottom: number;
  white: number;
  dark: number;
}

/**
 * The bounds (page px) of the pixels that differ between two shots within `r` px of `near`
 * (canvas px), with how many of them were near-white and dark in `a`; null if none differ.
 */
function diffBox(a: Awaited<ReturnType<typeof canvasShot>>, b: Awaited<ReturnType<typeof canvasShot>>, near: { x: number; y: number }, r: number): DiffBox | null {
  let left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity, white = 0, dark = 0;
  const sx = a.width / a.box.width; // device px per CSS px
  for (let y = Math.max(0, Math.floor((near.y - r) * sx)); y < Math.min(a.height, (near.y + r) * sx); y++) {
    for (let x = Math.max(0, Math.floor((near.x - r) * sx)); x < Math.min(a.width, (near.x + r * 3) * sx); x++) {
      const o = (y * a.width + x) * 3;
      const d = Math.abs(a.data[o]! - b.data[o]!) + Math.abs(a.data[o + 1]! - b.data[o + 1]!) + Math.abs(a.data[o + 2]! - b.data[o + 2]!);
      if (d < 30) continue;
      left = Math.min(left, x / sx);
      right = Math.max(right, x / sx);
      top = Math.min(top, y / sx);
      bottom = Math.max(bottom, y / sx);
      const [R, G, B] = [a.data[o]!, a.data[o + 1]!, a.data[o + 2]!];
      if (R > 220 && G > 220 && B > 220) white++;
      if (R + G + B < 250) dark++;
    }
  }
  return left === Infinity ? null : { left, top, right, bottom, white, dark };
}

/** Dark pixels (the label's pill, about (46, 57, 69) over the light image) in the 80 x 22 px above `corner`. */
function darkAbove(shot: Awaited<ReturnType<typeof canvasShot>>, corner: { x: number; y: number }): number {
  const sx = shot.width / shot.box.width;
  let n = 0;
  for (let y = Math.max(0, Math.floor((corner.y - 25) * sx)); y < (corner.y - 3) * sx; y++) {
    for (let x = Math.max(0, Math.floor((corner.x - 2) * sx)); x < (corner.x + 80) * sx; x++) {
      const o = (y * shot.width + x) * 3;
      if (shot.data[o]! + shot.data[o + 1]! + shot.data[o + 2]! < 250) n++;
    }
  }
  return n;
}

/**
 * Pixels of the car's outline (#F07575, and its blends with the dark halo at the line's edges: their
 * green is under 140, where the image's is 210, the box's fill's 164 and the halo's alone 151) in 20
 * rows across its left edge at `at`: about 4 a row at 2 px, 5 at 3 px.
 */
function outlinePixels(shot: Awaited<ReturnType<typeof canvasShot>>, at: { x: number; y: number }): number {
  const sx = shot.width / shot.box.width;
  let n = 0;
  for (let y = Math.round((at.y - 10) * sx); y < (at.y + 10) * sx; y++) {
    for (let x = Math.round((at.x - 8) * sx); x < (at.x + 8) * sx; x++) {
      const o = (y * shot.width + x) * 3;
      if (shot.data[o + 1]! < 140) n++;
    }
  }
  return n;
}
