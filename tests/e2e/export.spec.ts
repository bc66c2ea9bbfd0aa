import fs from 'node:fs';
import { expect, test, type Download, type Page } from '@playwright/test';
import JSZip from 'jszip';
import sharp from 'sharp';
import { apiCall, editorProject, openProjectPage, uploadImages } from './editor-helpers';

async function png(r: number, g: number, b: number): Promise<Buffer> {
  return sharp({ create: { width: 40, height: 30, channels: 3, background: { r, g, b } } }).png().toBuffer();
}

/** The Data tab's Export dialog: opened from the page header's Export button, and an export read back as the zip the browser saved. */
function exportDialog(page: Page) {
  const dialog = page.getByRole('dialog', { name: 'Export Dataset' });
  const exportButton = dialog.getByRole('button', { name: 'Export', exact: true });
  return {
    dialog,
    exportButton,
    /** Opens the dialog, then picks the scope whose label is `scope` when given. */
    async open(scope?: string): Promise<void> {
      await page.getByRole('button', { name: /^Export \(\d+\)$/ }).click();
      await expect(dialog).toBeVisible();
      if (scope) await dialog.getByText(scope).click();
    },
    /** Clicks Export and reads the saved zip. */
    async download(): Promise<SavedZip> {
      const [download] = await Promise.all([page.waitForEvent('download'), exportButton.click()]);
      return savedZip(download);
    },
  };
}

interface SavedZip {
  filename: string;
  zip: JSZip;
  /** Its files (not folders), sorted. */
  files: string[];
}

async function savedZip(download: Download): Promise<SavedZip> {
  const zip = await JSZip.loadAsync(fs.readFileSync((await download.path())!));
  return { filename: download.suggestedFilename(), zip, files: Object.keys(zip.files).filter((n) => !zip.files[n]!.dir).sort() };
}

test('export: the dialog validates, streams the zip and saves {name}_{format}.zip that holds the COCO json, or the YOLO labels', async ({ page }) => {
  test.setTimeout(120_000);
  // The project, its classes, images and annotations through the API before the app's first load
  // (creating a project and uploading have tests of their own): the Data tab loads once.
  const project = await editorProject(page, {
    name: 'Birds',
    classes: [{ name: 'bird', type: 'box', color: '#FFADAD' }, { name: 'wing', type: 'polygon', color: '#A0C4FF' }],
    images: [
      { name: 'a.png', buffer: await png(200, 40, 40) },
      { name: 'b.png', buffer: await png(40, 200, 40) },
      { name: 'c.png', buffer: await png(40, 40, 200) },
    ],
    open: false,
  });
  const byName = Object.fromEntries(project.images.map((i) => [i.filename, i]));
  const docs: Record<string, unknown[]> = {
    'a.png': [
      { id: 'a1', name: 'bird', bounding_box: { x: 1, y: 2, w: 10, h: 8 } },
      { id: 'a2', name: 'bird', bounding_box: { x: 20, y: 5, w: 6, h: 6 } },
      { id: 'a3', name: 'wing', bounding_box: { x: 0, y: 0, w: 10, h: 10 }, polygon: { path: [[0, 0], [10, 0], [0, 10]] } },
    ],
    'b.png': [{ id: 'b1', name: 'bird', bounding_box: { x: 3, y: 3, w: 5, h: 5 } }],
    'c.png': [{ id: 'c1', name: 'bird', bounding_box: { x: 4, y: 4, w: 4, h: 4 } }],
  };
  for (const [name, annotations] of Object.entries(docs)) {
    const res = await apiCall(page, 'POST', '/annotations/save-data', { image_id: byName[name]!.id, project_id: project.projectId, image_filename: name, annotations });
    expect(res.status).toBe(200);
  }
  await openProjectPage(page, project.projectId);
  const tiles = page.getByTestId('image-tile');
  await expect(tiles).toHaveCount(3);
  await expect(page.getByRole('tab', { name: /Classes/ })).toContainText('2');

  // Default scope is 'All complete', and nothing is complete yet.
  const ui = exportDialog(page);
  const { dialog, exportButton } = ui;
  await ui.open();
  await expect(dialog.getByLabel('Export name')).toHaveValue('Birds');
  await expect(dialog.getByRole('radio', { name: /All complete/ })).toBeChecked();
  await expect(dialog.getByRole('radio', { name: /Vellum/ })).toBeChecked();
  await exportButton.click();
  await expect(dialog.getByTestId('export-error')).toHaveText('No images to export with the current selection');

  // 'Selected' with no selection, an empty name, no class: the button is disabled and says why.
  await dialog.getByText('Selected (0)').click();
  await expect(dialog.getByText('Please select images to export')).toBeVisible();
  await expect(exportButton).toBeDisabled();
  await dialog.getByText('All complete').click();
  await dialog.getByLabel('Export name').fill('  ');
  await expect(exportButton).toBeDisabled();
  await dialog.getByLabel('Export name').fill('Birds export');
  await dialog.getByRole('button', { name: 'Select none' }).click();
  await expect(dialog.getByText('Select at least one class to export')).toBeVisible();
  await expect(exportButton).toBeDisabled();
  await dialog.getByRole('button', { name: 'Select all' }).click();
  await expect(exportButton).toBeEnabled();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();

  // Mark a and b complete from the floating toolbar, then export from it as COCO with the images.
  for (const n of ['a.png', 'b.png']) await page.getByRole('checkbox', { name: `Select ${n}` }).click();
  const toolbar = page.getByRole('toolbar', { name: 'Selected images' });
  await toolbar.getByRole('button', { name: 'Stage' }).click();
  await page.getByRole('menuitem', { name: 'Done' }).click();
  await expect(tiles.filter({ hasText: 'a.png' })).toContainText('Done');
  // The one Export entry point, the page header's, counts the selection and offers it as a scope.
  await page.getByRole('button', { name: 'Export (2)' }).click();
  await expect(dialog.getByRole('radio', { name: /Selected \(2\)/ })).toBeVisible();
  await dialog.getByLabel('Export name').fill('Birds export');
  await dialog.getByText('COCO', { exact: true }).click();
  await dialog.getByLabel('Include image files').check();
  await expect(dialog.getByLabel('Export name')).toHaveValue('Birds export');
  await page.screenshot({ path: 'test-results/export-dialog.png' });
  // While the server prepares the zip, the dialog says so (then counts the bytes as they arrive).
  let releaseExport!: () => void;
  const exportHeld = new Promise<void>((r) => (releaseExport = r));
  await page.route(
    '**/api/v1/annotations/export',
    async (route) => {
      await exportHeld;
      await route.fallback();
    },
    { times: 1 },
  );
  const downloading = page.waitForEvent('download');
  await exportButton.click();
  await expect(dialog.getByTestId('export-progress')).toHaveText(/Preparing export\.\.\.|images written|received/);
  await expect(dialog.getByRole('button', { name: /Exporting/ })).toBeVisible();
  releaseExport();
  const { filename, zip, files } = await savedZip(await downloading);
  expect(filename).toBe('Birds export_coco.zip');
  await expect(dialog).toBeHidden();
  expect(files).toEqual(['README.txt', 'annotations.json', 'images/a.png', 'images/b.png']);
  const coco = JSON.parse(await zip.file('annotations.json')!.async('string'));
  // Each image's file_name is its entry in the zip.
  expect(coco.images.map((i: { file_name: string }) => i.file_name).sort()).toEqual(['images/a.png', 'images/b.png']);
  expect(coco.annotations).toHaveLength(4);
  expect(coco.categories.map((c: { name: string }) => c.name).sort()).toEqual(['bird', 'wing']);
  // The image files are the uploaded PNGs, with the sizes the COCO images list gives.
  for (const entry of coco.images as { file_name: string; width: number; height: number; id: number }[]) {
    const meta = await sharp(Buffer.from(await zip.file(entry.file_name)!.async('uint8array'))).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', entry.width, entry.height]);
  }
  // Boxes as [x, y, width, height]; the polygon as one flat coordinate list; area and iscrowd set.
  const imageA = coco.images.find((i: { file_name: string }) => i.file_name === 'images/a.png').id;
  const catId = (name: string) => coco.categories.find((c: { name: string }) => c.name === name).id;
  const ofA = coco.annotations.filter((x: { image_id: number }) => x.image_id === imageA);
  expect(ofA).toHaveLength(3);
  expect(ofA.filter((x: { category_id: number }) => x.category_id === catId('bird')).map((x: { bbox: number[] }) => x.bbox)).toEqual(
    expect.arrayContaining([
      [1, 2, 10, 8],
      [20, 5, 6, 6],
    ]),
  );
  const wing = ofA.find((x: { category_id: number }) => x.category_id === catId('wing'));
  expect(wing.segmentation).toEqual([[0, 0, 10, 0, 0, 10]]);
  expect(wing.area).toBeCloseTo(50);
  for (const x of coco.annotations) expect([typeof x.area, x.iscrowd]).toEqual(['number', 0]);
  expect(await zip.file('README.txt')!.async('string')).toMatch(/COCO/);

  // Only the 'wing' class, in the vellum format, for the current filters (at the root: all images).
  await ui.open('Current filters');
  await dialog.getByLabel('bird').uncheck();
  const second = await ui.download();
  expect(second.filename).toBe('Birds_vellum.zip');
  const vellum = second.zip;
  expect(second.files).toEqual(['README.txt', 'annotations/a.png.json', 'annotations/b.png.json', 'annotations/c.png.json', 'vellum.json']);
  const a = JSON.parse(await vellum.file('annotations/a.png.json')!.async('string'));
  expect(a.annotations).toMatchObject([docs['a.png']![2]!]); // as saved
  expect(a.image).toMatchObject({ filename: 'a.png' });
  const manifest = JSON.parse(await vellum.file('vellum.json')!.async('string'));
  // At the project root, current filters are every image in every folder: scope 'all'.
  expect(manifest).toMatchObject({ format: 'vellum', name: 'Birds', scope: 'all', class_filter: ['wing'], include_images: false, image_count: 3, annotation_count: 1 });
  // The manifest carries each class's tools (issue 33): a polygon class may be drawn as polygons and masks.
  expect(manifest.project.classes).toEqual([{ name: 'wing', type: 'polygon', color: '#A0C4FF', tools: ['polygon', 'mask'] }]);

  // YOLO for the current filters: Ultralytics data.yaml and a label file per image, in segment
  // form as chosen (boxes as their 4 corners, normalised); the default is Detect (a box class).
  await ui.open();
  for (const f of [/Vellum/, /COCO/, /YOLO/, /Pascal VOC/]) await expect(dialog.getByRole('radio', { name: f })).toBeVisible();
  await dialog.getByText('Current filters').click();
  await dialog.getByText('YOLO', { exact: true }).click();
  await expect(dialog.getByText('Saved as Birds_yolo.zip')).toBeVisible();
  await expect(dialog.getByRole('radio', { name: /Detect/ })).toBeChecked();
  await dialog.getByText('Segment', { exact: true }).click();
  await page.screenshot({ path: 'test-results/export-dialog-yolo.png' });
  const third = await ui.download();
  expect(third.filename).toBe('Birds_yolo.zip');
  const yolo = third.zip;
  expect(third.files).toEqual(['README.txt', 'data.yaml', 'labels/a.txt', 'labels/b.txt', 'labels/c.txt']);
  const dataYaml = await yolo.file('data.yaml')!.async('string');
  expect(dataYaml).toContain('names:\n  0: "bird"\n  1: "wing"\n');
  const aLines = (await yolo.file('labels/a.txt')!.async('string')).trim().split('\n');
  expect(aLines).toEqual([
    '0 0.025000 0.066667 0.275000 0.066667 0.275000 0.333333 0.025000 0.333333',
    '0 0.500000 0.166667 0.650000 0.166667 0.650000 0.366667 0.500000 0.366667',
    '1 0.000000 0.000000 0.250000 0.000000 0.000000 0.333333',
  ]);

  // A failed export says so in the dialog.
  await page.route('**/api/v1/annotations/export', (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{"success":false,"error":"Storage is unreachable","code":"internal_error"}' }));
  await ui.open();
  await exportButton.click();
  await expect(dialog.getByTestId('export-error')).toHaveText('Export failed: Storage is unreachable');
  await page.screenshot({ path: 'test-results/export-error.png' });
});

/** The annotation files of a saved Vellum zip (one per image). */
const vellumImages = (saved: SavedZip) => saved.files.filter((n) => n.startsWith('annotations/'));

test('export scope: "All images" at the root holds every folder; "This folder" takes its sub-folders unless toggled off; the count is shown first', async ({ page }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  // Folders and images through the API before the app's first load (open: false): one load.
  const project = await editorProject(page, { open: false });
  for (const [name, parent] of [['north', '/'], ['deep', '/north'], ['south', '/']] as const) {
    expect((await apiCall(page, 'POST', '/api/folders/create', { project_id: project.projectId, name, parent_folder_path: parent })).status).toBe(200);
  }
  // 16 images at the root, 4 in folders (one two levels down): 20 in all.
  const tiny = await png(90, 120, 160);
  const files = [
    ...Array.from({ length: 16 }, (_, i) => ({ name: `root-${String(i).padStart(2, '0')}.png`, buffer: tiny, folder: '/' })),
    { name: 'n1.png', buffer: tiny, folder: '/north' },
    { name: 'n2.png', buffer: tiny, folder: '/north' },
    { name: 'deep.png', buffer: tiny, folder: '/north/deep' },
    { name: 's1.png', buffer: tiny, folder: '/south' },
  ];
  await uploadImages(page, project.projectId, project.orgId, files);
  await openProjectPage(page, project.projectId);

  const sent: Record<string, unknown>[] = [];
  await page.route('**/api/v1/annotations/export', async (route) => {
    sent.push(route.request().postDataJSON());
    await route.fallback();
  });
  const ui = exportDialog(page);
  const { dialog } = ui;
  const count = dialog.getByTestId('export-count');

  // The root: "Current filters" are all images, in every folder, and the dialog says how many.
  await ui.open();
  await expect(count).toHaveText('0 images will be exported'); // the default, All complete: none yet
  await dialog.getByText('Current filters').click();
  await expect(dialog.getByRole('radio', { name: /Current filters.*All images, in every folder/ })).toBeChecked();
  await expect(count).toHaveText('20 images will be exported');
  await expect(dialog.getByLabel(/Include sub-folders/)).toHaveCount(0);
  await page.screenshot({ path: 'test-results/shots/export-root-all.png' });
  const atRoot = await ui.download();
  expect(sent.at(-1)).toMatchObject({ scope: 'all' });
  const rootFiles = vellumImages(atRoot);
  expect(rootFiles).toHaveLength(20);
  expect(rootFiles).toEqual(expect.arrayContaining(['annotations/north/n1.png.json', 'annotations/north/deep/deep.png.json', 'annotations/south/s1.png.json', 'annotations/root-15.png.json']));

  // Inside /north: "This folder" with its sub-folder by default (3), 2 with the toggle off (by keyboard).
  await page.getByRole('button', { name: 'Open folder north' }).click();
  await expect(page.getByTestId('image-tile')).toHaveCount(2);
  await ui.open('This folder');
  await expect(dialog.getByRole('radio', { name: /This folder.*\/north/ })).toBeChecked();
  const toggle = dialog.getByLabel('Include sub-folders of /north');
  await expect(toggle).toBeChecked();
  await expect(count).toHaveText('3 images will be exported');
  await page.screenshot({ path: 'test-results/shots/export-folder-subfolders.png' });
  await toggle.focus();
  await page.keyboard.press('Space');
  await expect(toggle).not.toBeChecked();
  await expect(count).toHaveText('2 images will be exported');
  await page.screenshot({ path: 'test-results/shots/export-folder-only.png' });
  const only = await ui.download();
  expect(sent.at(-1)).toMatchObject({ scope: 'current_filters', filters: { folder_path: '/north', include_subfolders: false } });
  expect(vellumImages(only)).toEqual(['annotations/north/n1.png.json', 'annotations/north/n2.png.json']);

  // Opened again: the toggle is back on, and the export holds the sub-folder's image too.
  await ui.open('This folder');
  await expect(count).toHaveText('3 images will be exported');
  const tree = await ui.download();
  expect(sent.at(-1)).toMatchObject({ scope: 'current_filters', filters: { folder_path: '/north', include_subfolders: true } });
  expect(vellumImages(tree)).toEqual(['annotations/north/deep/deep.png.json', 'annotations/north/n1.png.json', 'annotations/north/n2.png.json']);
});

test('export for training: a split with a seed, the YOLO task, progress while the zip streams, and Cancel', async ({ page }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  // The 20 images through the API before the app's first load (open: false): one load.
  const project = await editorProject(page, { open: false });
  const tiny = await png(60, 90, 120);
  await uploadImages(page, project.projectId, project.orgId, Array.from({ length: 20 }, (_, i) => ({ name: `s-${String(i).padStart(2, '0')}.png`, buffer: tiny, folder: '/' })));
  await openProjectPage(page, project.projectId);
  const sent: Record<string, unknown>[] = [];
  await page.route('**/api/v1/annotations/export', async (route) => {
    sent.push(route.request().postDataJSON());
    await route.fallback();
  });
  const ui = exportDialog(page);
  const { dialog, exportButton } = ui;

  await ui.open('Current filters');
  await expect(dialog.getByTestId('export-count')).toHaveText('20 images will be exported');
  await dialog.getByText('YOLO', { exact: true }).click();
  // The task, each with what it does.
  await expect(dialog.getByText('One box per shape: polygons and masks by their bounding box')).toBeVisible();
  await expect(dialog.getByText('Polygons for polygons and masks; boxes as their 4 corners')).toBeVisible();
  await dialog.getByText('Detect', { exact: true }).click();
  // The split, by keyboard: percentages validated as they are typed.
  const splitToggle = dialog.getByLabel('Split into train / val / test');
  await splitToggle.focus();
  await page.keyboard.press('Space');
  await expect(splitToggle).toBeChecked();
  await dialog.getByRole('spinbutton', { name: 'Train', exact: true }).fill('60');
  await dialog.getByRole('spinbutton', { name: 'Val', exact: true }).fill('35');
  await dialog.getByRole('spinbutton', { name: 'Test', exact: true }).fill('10');
  await expect(dialog.getByText('The percentages must add up to 100 (now 105)')).toBeVisible();
  await expect(exportButton).toBeDisabled();
  await page.screenshot({ path: 'test-results/shots/export-split-invalid.png' });
  await dialog.getByRole('spinbutton', { name: 'Val', exact: true }).fill('30');
  await dialog.getByRole('spinbutton', { name: 'Seed', exact: true }).fill('5');
  await expect(dialog.getByLabel('Stratify by class')).toBeChecked();
  await expect(exportButton).toBeEnabled();
  await page.screenshot({ path: 'test-results/shots/export-split-yolo.png' });
  const { zip } = await ui.download();
  expect(sent.at(-1)).toMatchObject({ format: 'yolo', yolo_task: 'detect', split: { train: 0.6, val: 0.3, test: 0.1, seed: 5, stratify: true }, progress_id: expect.any(String) });
  const yaml = await zip.file('data.yaml')!.async('string');
  expect(yaml).toContain('train: images/train\nval: images/val\ntest: images/test\n');
  const labels = Object.keys(zip.files).filter((n) => n.startsWith('labels/') && !zip.files[n]!.dir);
  expect(labels.filter((n) => n.startsWith('labels/train/'))).toHaveLength(12);
  expect(labels.filter((n) => n.startsWith('labels/val/'))).toHaveLength(6);
  expect(labels.filter((n) => n.startsWith('labels/test/'))).toHaveLength(2);
  expect(await zip.file('README.txt')!.async('string')).toContain('Split (seed 5, stratified by class): train 12, val 6, test 2 image(s).');

  // Progress while the zip streams, from the server's progress route, then Cancel: the download
  // is aborted, which stops the server's work, and the dialog stays open. Six 2 MB images (first by
  // name) make the zip far larger than what the sockets between server and browser hold (~4 MB),
  // and the browser's download is throttled to 64 KB/s (Chrome's network emulation, as on a slow
  // link): the server waits on the socket, so the export is caught part-way, as a large one is.
  const noisy = await sharp(Buffer.from(Array.from({ length: 820 * 820 * 3 }, (_, i) => (i * 2654435761) >>> 24)), { raw: { width: 820, height: 820, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer();
  await uploadImages(page, project.projectId, project.orgId, Array.from({ length: 6 }, (_, i) => ({ name: `a-big-${i}.png`, buffer: noisy, folder: '/' })));
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
  await ui.open('Current filters');
  await expect(dialog.getByTestId('export-count')).toHaveText('26 images will be exported');
  await dialog.getByLabel('Include image files').check();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: 64 * 1024, uploadThroughput: -1 });
  await exportButton.click();
  const progressLine = dialog.getByTestId('export-progress');
  await expect(progressLine).toHaveText(/^\d+ of 26 images written · .+ received$/);
  const shown = Number(/^(\d+) of 26/.exec((await progressLine.textContent())!)![1]);
  expect(shown).toBeLessThan(26);
  await page.screenshot({ path: 'test-results/shots/export-progress.png' });
  const cancel = dialog.getByRole('button', { name: 'Cancel export' });
  await cancel.focus();
  await page.keyboard.press('Enter');
  await expect(dialog.getByTestId('export-cancelled')).toHaveText('Export cancelled: the server stopped writing it.');
  await expect(exportButton).toBeEnabled();
  await page.screenshot({ path: 'test-results/shots/export-cancelled.png' });
  // The server's own account: the export it was running ended as cancelled, part-way.
  const progressId = sent.at(-1)!.progress_id as string;
  expect(progressId).toEqual(expect.any(String));
  await expect
    .poll(async () => (await apiCall(page, 'GET', `/api/v1/annotations/export/progress?project_id=${project.projectId}&progress_id=${progressId}`)).body)
    .toMatchObject({ state: 'cancelled', image_count: 26, images_written: expect.any(Number) });
  const final = (await apiCall(page, 'GET', `/api/v1/annotations/export/progress?project_id=${project.projectId}&progress_id=${progressId}`)).body;
  expect(final.images_written).toBeLessThan(26);
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
});
