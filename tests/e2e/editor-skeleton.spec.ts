// Keypoint skeletons in the editor (issue 33 §4): with a skeleton class, the Keypoint tool (K)
// places the class's points in order, naming the next one at the pointer; X skips a point, O marks
// the next one occluded. The instance is one annotation, saved with one {x, y, v} per point, and
// it is there after a reload, and the COCO export writes it as one person with its keypoints.
// Also the 1440 x 900 screenshots of a skeleton.
import fs from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import JSZip from 'jszip';
import { annotationRows as rows, drawnImageRect, editorProject, loadSaved, openFromDataTab, waitUntilSaved } from './editor-helpers';

/** The Data tab's Export dialog in `format` (the current filters), the downloaded archive. */
async function exportZip(page: Page, format: 'COCO') {
  await page.getByRole('button', { name: /^Export \(\d+\)$/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Export Dataset' });
  await dialog.getByText('Current filters').click();
  await dialog.getByText(format, { exact: true }).click();
  const downloading = page.waitForEvent('download');
  await dialog.getByRole('button', { name: 'Export', exact: true }).click();
  const download = await downloading;
  await expect(dialog).toBeHidden();
  return JSZip.loadAsync(fs.readFileSync((await download.path())!));
}

const PERSON = { name: 'person', color: '#FFD8A8', kind: 'skeleton', skeleton: { points: ['nose', 'left_eye', 'right_eye', 'neck', 'left_hand'], edges: [[0, 1], [0, 2], [0, 3], [3, 4]] } };

test('draw a skeleton with an occluded point and a skipped one, reload: it is there as drawn', async ({ page }) => {
  test.setTimeout(180_000);
  // (the helper's class type predates skeleton classes)
  const project = await editorProject(page, { classes: [PERSON as never], images: [{ name: 'pose_1.png', width: 800, height: 600 }] });
  await openFromDataTab(page, 'pose_1.png');
  const img = await drawnImageRect(page);
  const scale = (img.right - img.left) / 800; // page px per image px
  const at = (x: number, y: number) => [img.left + x * scale, img.top + y * scale] as const;

  await page.keyboard.press('k');
  await expect(page.getByRole('button', { name: 'Class: person' })).toBeVisible();
  const next = page.getByTestId('skeleton-next');
  await page.mouse.move(...at(390, 180));
  await expect(next).toContainText('nose');
  await expect(next).toContainText('1/5');
  await page.mouse.click(...at(400, 200));
  await expect(next).toContainText('left_eye');
  await page.keyboard.press('x'); // left_eye not labelled
  await page.keyboard.press('o'); // right_eye occluded
  await expect(next).toContainText('right_eye (occluded)');
  await page.mouse.click(...at(370, 190));
  await page.mouse.click(...at(400, 300));
  await page.mouse.move(...at(480, 390));
  await expect(next).toContainText('left_hand');
  await page.mouse.click(...at(470, 400));
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toContainText('Skeleton');
  await page.mouse.move(...at(600, 120));
  await page.screenshot({ path: 'test-results/shots/skeleton.png' });
  // Not selected: round dots, the occluded one a ring.
  await page.keyboard.press('Escape');
  await page.screenshot({ path: 'test-results/shots/skeleton-unselected.png' });
  await waitUntilSaved(page);

  const expected = [[400, 200, 2], [0, 0, 0], [370, 190, 1], [400, 300, 2], [470, 400, 2]];
  const check = async () => {
    const { annotations } = await loadSaved(page, project, project.images[0]!.id);
    expect(annotations).toHaveLength(1);
    expect(annotations[0].name).toBe('person');
    const points = annotations[0].points as { x: number; y: number; v: number }[];
    expect(points.map((p) => p.v)).toEqual(expected.map((e) => e[2]));
    points.forEach((p, i) => {
      expect(Math.abs(p.x - expected[i]![0]!)).toBeLessThan(2);
      expect(Math.abs(p.y - expected[i]![1]!)).toBeLessThan(2);
    });
    expect(annotations[0].bounding_box.w).toBeGreaterThan(95);
  };
  await check();
  await page.reload();
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).first()).toContainText('Skeleton');
  await check();

  // COCO: one annotation with the triples in the class's order, the category's names and 1-based skeleton.
  await page.getByRole('button', { name: 'Back', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Manage Dataset' })).toBeVisible();
  const coco = JSON.parse(await (await exportZip(page, 'COCO')).file('annotations.json')!.async('string'));
  expect(coco.annotations).toHaveLength(1);
  const [a] = coco.annotations;
  expect(a.num_keypoints).toBe(4);
  expect(a.keypoints.filter((_: number, i: number) => i % 3 === 2)).toEqual([2, 0, 1, 2, 2]);
  expect(a.keypoints.slice(3, 5)).toEqual([0, 0]);
  expect(Math.abs(a.keypoints[6] - 370)).toBeLessThan(2);
  const category = coco.categories.find((c: { id: number }) => c.id === a.category_id);
  expect(category).toMatchObject({ name: 'person', keypoints: PERSON.skeleton.points, skeleton: [[1, 2], [1, 3], [1, 4], [4, 5]] });
});
