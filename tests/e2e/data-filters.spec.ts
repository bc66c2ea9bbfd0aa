// The Data tab finds images by their annotations (issue 32 §4): the class panel lists each class
// with its shapes and images, a click filters by it through every folder, the URL holds the
// filter (reload and Back keep it), a chip removes it; 'None' finds the images without
// annotations and a count range narrows them; then the filtered view is exported with a split and
// the zip holds exactly those images, divided into train and val.
import { expect, test, type Page } from '@playwright/test';
import { apiCall, editorProject, scenePng, uploadImages, type EditorProject } from './editor-helpers';

test.use({ viewport: { width: 1440, height: 900 } });

const CLASSES = [
  { name: 'heron', type: 'box' as const, color: '#F07575' },
  { name: 'owl', type: 'box' as const, color: '#4E79A7' },
];
const box = (id: string, name: string, x: number) => ({ id, name, bounding_box: { x, y: 20, w: 60, h: 40 }, attributes: [] });

/** Herons at the root and in /birds, an owl in /birds, and two images with nothing on them. */
async function birdsProject(page: Page): Promise<EditorProject> {
  const project = await editorProject(page, { classes: CLASSES });
  expect((await apiCall(page, 'POST', '/api/folders/create', { project_id: project.projectId, name: 'birds', parent_folder_path: '/' })).status).toBe(200);
  const files = [
    { name: 'heron-01.png', folder: '/' },
    { name: 'pond.png', folder: '/' },
    { name: 'heron-02.png', folder: '/birds' },
    { name: 'heron-03.png', folder: '/birds' },
    { name: 'owl.png', folder: '/birds' },
    { name: 'sky.png', folder: '/birds' },
  ];
  project.images = await uploadImages(page, project.projectId, project.orgId, await Promise.all(files.map(async (f, i) => ({ name: f.name, folder: f.folder, buffer: await scenePng(320, 200, i * 40) }))));
  const save = async (name: string, annotations: unknown[]) => {
    const img = project.images.find((i) => i.filename === name)!;
    expect((await apiCall(page, 'POST', '/annotations/save-data', { image_id: img.id, project_id: project.projectId, image_filename: name, annotations })).status).toBe(200);
  };
  await save('heron-01.png', [box('a', 'heron', 10), box('b', 'heron', 90), box('c', 'owl', 170)]);
  await save('heron-02.png', [box('d', 'heron', 10)]);
  await save('heron-03.png', [box('e', 'heron', 40)]);
  await save('owl.png', [box('f', 'owl', 10), box('g', 'owl', 100)]);
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
  return project;
}

/** The file names of the image tiles on screen (each tile's main button is named by it), sorted. */
const tileNames = (page: Page) =>
  page
    .getByTestId('image-tile')
    .evaluateAll((tiles) => tiles.map((t) => t.querySelector('button[aria-describedby]')?.getAttribute('aria-label') ?? '').sort());

async function shot(page: Page, name: string) {
  if (process.env.VELLUM_SHOTS) await page.screenshot({ path: `${process.env.VELLUM_SHOTS}/${name}.png` });
}

test('class panel: filter by class from the panel, the URL holds it, reload and Back keep it, a chip removes it', async ({ page }) => {
  test.setTimeout(120_000);
  await birdsProject(page);
  const panel = page.getByRole('complementary', { name: 'Classes and annotation filters' });
  const heron = panel.getByRole('button', { name: /heron/ });
  // Each class with its shapes and its images.
  await expect(heron.getByLabel('4 shapes')).toHaveText('4');
  await expect(heron.getByLabel('3 images')).toHaveText('3');
  await expect(panel.getByRole('button', { name: /owl/ }).getByLabel('2 images')).toHaveText('2');
  await expect(page.getByTestId('image-tile')).toHaveCount(2); // the root: heron-01 and pond
  await shot(page, 'data-filters-1-panel');

  // A click filters by the class through every folder, from the keyboard too.
  await heron.focus();
  await page.keyboard.press('Enter');
  await expect(heron).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('image-tile')).toHaveCount(3);
  await expect.poll(() => tileNames(page)).toEqual(['heron-01.png', 'heron-02.png', 'heron-03.png']);
  expect(new URL(page.url()).searchParams.getAll('class')).toEqual(['heron']);
  const chip = page.getByRole('button', { name: 'Remove filter heron' });
  await expect(chip).toBeVisible();
  await shot(page, 'data-filters-2-heron');

  // Reload keeps it.
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
  await expect(page.getByTestId('image-tile')).toHaveCount(3);
  await expect(page.getByRole('complementary', { name: 'Classes and annotation filters' }).getByRole('button', { name: /heron/ })).toHaveAttribute('aria-pressed', 'true');

  // A second class: images having either.
  await page.getByRole('complementary', { name: 'Classes and annotation filters' }).getByRole('button', { name: /owl/ }).click();
  await expect(page.getByTestId('image-tile')).toHaveCount(4);
  expect(new URL(page.url()).searchParams.getAll('class')).toEqual(['heron', 'owl']);
  // Back returns to heron alone.
  await page.goBack();
  await expect(page.getByTestId('image-tile')).toHaveCount(3);
  expect(new URL(page.url()).searchParams.getAll('class')).toEqual(['heron']);

  // The chip removes the filter: the root folder again.
  await page.getByRole('button', { name: 'Remove filter heron' }).click();
  await expect(page.getByTestId('image-tile')).toHaveCount(2);
  expect(new URL(page.url()).searchParams.getAll('class')).toEqual([]);

  // 'None': the images without annotations, in every folder; a count range: owl.png and heron-01.
  const annotated = page.getByRole('group', { name: 'Annotated or not' });
  await annotated.getByRole('button', { name: 'None' }).click();
  await expect.poll(() => tileNames(page)).toEqual(['pond.png', 'sky.png']);
  expect(new URL(page.url()).searchParams.get('annotated')).toBe('no');
  await annotated.getByRole('button', { name: 'Any' }).click();
  await page.getByLabel('Min').fill('2');
  await page.getByLabel('Min').press('Enter');
  await expect.poll(() => tileNames(page)).toEqual(['heron-01.png', 'owl.png']);
  expect(new URL(page.url()).searchParams.get('min_annotations')).toBe('2');
  await expect(page.getByRole('button', { name: 'Remove filter 2+ annotations' })).toBeVisible();
  await page.getByLabel('Max').fill('1');
  await page.getByLabel('Max').press('Enter');
  await expect(page.getByRole('alert').filter({ hasText: 'Min is above max' })).toBeVisible();
  await shot(page, 'data-filters-3-range');
});
