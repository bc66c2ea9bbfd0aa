// Previous / next keep the editor (issue 19): the screen's DOM stays (the same canvas and stage
// nodes), the next image's first frame is drawn on the same canvas, the edits of the image left
// are saved, and coming back to an image brings its undo history back.
import { expect, test, type Page } from '@playwright/test';
import { drawBox, editorProject, loadSaved, pixelAt } from './editor-helpers';

const rows = (page: Page) => page.getByRole('listbox', { name: 'Annotation list' }).getByRole('option');
const canvas = (page: Page) => page.getByTestId('editor-canvas');

/** Tags the canvas and the stage around it, so a later check can tell they are the same nodes. */
async function tagNodes(page: Page, tag: string) {
  await page.evaluate((t) => {
    const c = document.querySelector('[data-testid="editor-canvas"]') as (HTMLElement & { __switchTag?: string }) | null;
    const main = c?.closest('main') as (HTMLElement & { __switchTag?: string }) | null;
    if (!c || !main) throw new Error('no editor canvas');
    c.__switchTag = t;
    main.__switchTag = t;
  }, tag);
}
async function tags(page: Page) {
  return page.evaluate(() => {
    const c = document.querySelector('[data-testid="editor-canvas"]') as (HTMLElement & { __switchTag?: string }) | null;
    return [c?.__switchTag ?? null, (c?.closest('main') as (HTMLElement & { __switchTag?: string }) | null)?.__switchTag ?? null];
  });
}
const imageFrames = async (page: Page) => Number((await canvas(page).getAttribute('data-image-frames')) ?? 0);

/** The green of the dark square in the middle of image i (editor-helpers' scenePng: 80 + 30 i). */
const squareGreen = (i: number) => 80 + i * 30;
async function centreGreen(page: Page) {
  const b = (await canvas(page).boundingBox())!;
  return (await pixelAt(page, b.x + b.width / 2, b.y + b.height / 2))[1];
}

test('editor switch: next and previous keep the editor, draw the new image, save the one left, and bring its undo back', async ({ page }) => {
  test.setTimeout(180_000);
  const project = await editorProject(page, {
    classes: [{ name: 'car', type: 'box', color: '#FFADAD' }],
    images: [{ name: 'switch_1.png' }, { name: 'switch_2.png' }, { name: 'switch_3.png' }],
  });
  const [img1, , img3] = project.images;
  // The Data tab lists the newest first: switch_3, switch_2, switch_1.
  await page.getByRole('button', { name: 'switch_3.png', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'switch_3.png', level: 1 })).toBeVisible();
  await expect(page.getByText('Loading image...')).toBeHidden({ timeout: 20_000 });
  await expect(page.getByText('1 of 3')).toBeVisible();
  await expect.poll(() => centreGreen(page), { timeout: 15_000 }).toBeCloseTo(squareGreen(2), -1);
  await tagNodes(page, 'first');

  // A box on switch_3, then straight to the next image with the key (no wait for the save).
  await drawBox(page, [60, 60], [200, 160]);
  await expect(rows(page)).toHaveCount(1);
  await page.keyboard.press('Escape');
  let frames = await imageFrames(page);
  await page.keyboard.press('.');
  await expect(page.getByRole('heading', { name: 'switch_2.png', level: 1 })).toBeVisible();
  await expect(page.getByText('2 of 3')).toBeVisible();
  await expect.poll(() => imageFrames(page)).toBe(frames + 1);
  expect(await tags(page)).toEqual(['first', 'first']);
  await expect.poll(() => centreGreen(page)).toBeCloseTo(squareGreen(1), -1);
  await expect(page.getByText('No annotations yet')).toBeVisible();
  // The box left behind is saved.
  await expect.poll(async () => (await loadSaved(page, project, img3.id)).annotations.length, { timeout: 20_000 }).toBe(1);

  // The button does the same.
  frames = await imageFrames(page);
  await page.getByRole('button', { name: 'Next image (.)' }).click();
  await expect(page.getByRole('heading', { name: 'switch_1.png', level: 1 })).toBeVisible();
  await expect.poll(() => imageFrames(page)).toBe(frames + 1);
  expect(await tags(page)).toEqual(['first', 'first']);
  await expect.poll(() => centreGreen(page)).toBeCloseTo(squareGreen(0), -1);
  await drawBox(page, [300, 300], [420, 380]);
  await expect(rows(page)).toHaveCount(1);

  // Back to switch_3 with the key: its box is there, and undo takes it away (its history came back).
  await page.keyboard.press('Escape');
  await page.keyboard.press(',');
  await expect(page.getByRole('heading', { name: 'switch_2.png', level: 1 })).toBeVisible();
  await expect(page.getByText('No annotations yet')).toBeVisible();
  await page.keyboard.press(',');
  await expect(page.getByRole('heading', { name: 'switch_3.png', level: 1 })).toBeVisible();
  await expect(rows(page)).toHaveCount(1);
  await expect.poll(() => centreGreen(page)).toBeCloseTo(squareGreen(2), -1);
  expect(await tags(page)).toEqual(['first', 'first']);
  await expect.poll(async () => (await loadSaved(page, project, img1.id)).annotations.length, { timeout: 20_000 }).toBe(1);
  await page.keyboard.press('Control+z');
  await expect(rows(page)).toHaveCount(0);
  await expect.poll(async () => (await loadSaved(page, project, img3.id)).annotations.length, { timeout: 20_000 }).toBe(0);
  await page.keyboard.press('Control+y');
  await expect(rows(page)).toHaveCount(1);
  await expect.poll(async () => (await loadSaved(page, project, img3.id)).annotations.length, { timeout: 20_000 }).toBe(1);
});
