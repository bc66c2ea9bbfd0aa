// Live co-editing (issue 20) in two browsers: two people of one organization on the same image see
// each other's avatar in the top bar, and each other's saved edits without a reload (A draws a
// box, B sees it; B moves it, A sees the move; B's undo takes back only B's move). The settings
// toggle hides the avatars. B's selection and pointer show in A's editor in B's colour. When both
// edit one box, the later edit wins and both are told, whichever of the two saves arrives first.
import { expect, test, type Browser, type Page } from '@playwright/test';
import { annotationRows, canvasBox, dragOnCanvas, drawBox, editorProject, loadSaved, type EditorProject } from './editor-helpers';
import { member, memberBrowser } from './live-helpers';

const CLASSES = [{ name: 'car', type: 'box' as const, color: '#FFADAD' }];
const IMAGE = 'lot.png';

/** A second person, invited into the project's organization as an annotator, signed in in a browser of their own on the image. */
async function secondPerson(browser: Browser, owner: Page, project: EditorProject) {
  const image = project.images.find((i) => i.filename === IMAGE)!;
  return memberBrowser(browser, await member(owner, project, 'Ada Lovelace'), { image: { projectId: project.projectId, ...image } });
}

/** Clicks a canvas point with the select tool; true when that selected the one annotation. */
async function selectsAt(page: Page, at: [number, number]): Promise<boolean> {
  await page.keyboard.press('Escape');
  const b = await canvasBox(page);
  await page.mouse.click(b.x + at[0], b.y + at[1]);
  return (await annotationRows(page).first().getAttribute('aria-selected')) === 'true';
}

test('two people on one image: avatars, and each sees the other\'s box and move without a reload', async ({ page, browser }) => {
  test.setTimeout(150_000);
  const project = await editorProject(page, { classes: CLASSES, images: [{ name: IMAGE }], open: IMAGE });
  const img = project.images[0]!;
  const b = await secondPerson(browser, page, project);
  try {
    const second = b.page;
    // Each sees the other in the top bar, then themselves.
    const peersA = page.getByRole('list', { name: 'People on this image' });
    const peersB = second.getByRole('list', { name: 'People on this image' });
    await expect(peersA.getByRole('img', { name: 'Ada Lovelace', exact: true })).toBeVisible({ timeout: 15_000 });
    await expect(peersB.getByRole('img', { name: project.user.fullName, exact: true })).toBeVisible({ timeout: 15_000 });
    await expect(peersA.getByRole('img')).toHaveCount(2);
    await expect(peersA.getByRole('img').nth(1)).toHaveAccessibleName(`${project.user.fullName} (you)`);
    await expect(peersB.getByRole('img').nth(1)).toHaveAccessibleName('Ada Lovelace (you)');
    await expect(peersA.getByRole('img', { name: 'Ada Lovelace', exact: true })).toHaveText('AL');
    await page.locator('header').first().screenshot({ path: 'test-results/live-top-bar.png' });

    // A draws; B's list gets the box without a reload.
    await drawBox(page, [150, 150], [260, 240]);
    await expect(annotationRows(second)).toHaveCount(1, { timeout: 20_000 });
    await second.keyboard.press('q');
    expect(await selectsAt(second, [205, 195])).toBe(true);

    // B moves it; A's editor moves it too. (B sees A's box as a draft first: wait for A's save.)
    await expect.poll(async () => (await loadSaved(page, project, img.id)).annotations.length, { timeout: 20_000 }).toBe(1);
    const before = (await loadSaved(page, project, img.id)).annotations[0].bounding_box;
    await second.keyboard.press('Escape');
    await dragOnCanvas(second, [205, 195], [405, 295]);
    await expect.poll(async () => (await loadSaved(page, project, img.id)).annotations[0].bounding_box.x, { timeout: 20_000 }).toBeGreaterThan(before.x + 50);
    await page.keyboard.press('q');
    await expect.poll(() => selectsAt(page, [405, 295]), { timeout: 10_000 }).toBe(true);
    expect(await selectsAt(page, [170, 165])).toBe(false);
    await expect(annotationRows(page)).toHaveCount(1);
    await page.screenshot({ path: 'test-results/live-moved.png' });

    // B's undo takes back B's move only: A's box stays (in B's editor, on the server and in A's).
    await second.keyboard.press('Control+z');
    await second.keyboard.press('Control+z');
    await expect(annotationRows(second)).toHaveCount(1);
    await expect.poll(async () => (await loadSaved(page, project, img.id)).annotations[0].bounding_box.x, { timeout: 20_000 }).toBe(before.x);
    const afterUndo = await loadSaved(page, project, img.id);
    expect(afterUndo.annotations).toHaveLength(1);
    await expect.poll(() => selectsAt(page, [205, 195]), { timeout: 10_000 }).toBe(true);
    await expect(annotationRows(page)).toHaveCount(1);

    // B leaves: A's top bar no longer shows them.
    await b.context.close();
    await expect(peersA).toHaveCount(0, { timeout: 20_000 });
  } finally {
    await b.context.close().catch(() => undefined);
  }
});

test('Show collaborators off hides the avatars, and stays off after a reload', async ({ page, browser }) => {
  test.setTimeout(120_000);
  const project = await editorProject(page, { classes: CLASSES, images: [{ name: IMAGE }], open: IMAGE });
  const b = await secondPerson(browser, page, project);
  try {
    const avatar = page.getByRole('list', { name: 'People on this image' }).getByRole('img', { name: 'Ada Lovelace', exact: true });
    await expect(avatar).toBeVisible({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Editor settings' }).click();
    await page.getByRole('switch', { name: 'Show collaborators' }).click();
    await expect(avatar).toBeHidden();
    await page.keyboard.press('Escape');
    await page.reload();
    await expect(page.getByTestId('editor-canvas')).toBeVisible();
    await expect(page.getByText('Loading image...')).toBeHidden({ timeout: 20_000 });
    await page.getByRole('button', { name: 'Editor settings' }).click();
    await expect(page.getByRole('switch', { name: 'Show collaborators' })).not.toBeChecked();
    await expect(avatar).toBeHidden();
  } finally {
    await b.context.close();
  }
});

test('peers\' cursors and selections: B selects A\'s box and A sees it outlined in B\'s colour; B\'s pointer shows in A\'s editor with B\'s name', async ({ page, browser }) => {
  test.setTimeout(150_000);
  const project = await editorProject(page, { classes: CLASSES, images: [{ name: IMAGE }], open: IMAGE });
  const b = await secondPerson(browser, page, project);
  try {
    const second = b.page;
    const avatarB = page.getByRole('list', { name: 'People on this image' }).getByRole('img', { name: 'Ada Lovelace', exact: true });
    await expect(avatarB).toBeVisible({ timeout: 15_000 });
    const colorB = await avatarB.evaluate((el) => getComputedStyle(el).backgroundColor);

    await drawBox(page, [150, 150], [260, 240]);
    await expect(annotationRows(second)).toHaveCount(1, { timeout: 20_000 });
    // B may see A's box as a live draft first: B selects it once it is saved.
    await expect.poll(async () => (await loadSaved(page, project, project.images[0]!.id)).annotations.length, { timeout: 20_000 }).toBe(1);
    await page.keyboard.press('Escape');

    // B selects A's box: A sees it outlined in B's colour, around the box.
    await second.keyboard.press('q');
    expect(await selectsAt(second, [205, 195])).toBe(true);
    const outline = page.getByTestId('peer-selection');
    await expect(outline).toHaveCount(1, { timeout: 10_000 });
    await expect(outline).toHaveAttribute('title', 'Ada Lovelace');
    expect(await outline.evaluate((el) => getComputedStyle(el).borderTopColor)).toBe(colorB);
    const a = await canvasBox(page);
    const ob = (await outline.boundingBox())!;
    expect(Math.abs(ob.x - a.x - 150)).toBeLessThan(8);
    expect(Math.abs(ob.y - a.y - 150)).toBeLessThan(8);
    expect(Math.abs(ob.width - 110)).toBeLessThan(12);

    // B moves the pointer over the canvas: A sees B's cursor with B's name, where B's pointer is.
    const bc = await canvasBox(second);
    await second.mouse.move(bc.x + 320, bc.y + 260, { steps: 4 });
    await second.mouse.move(bc.x + 400, bc.y + 300, { steps: 4 });
    const cursor = page.getByTestId('peer-cursor');
    await expect(cursor).toHaveCount(1, { timeout: 10_000 });
    await expect(cursor).toContainText('Ada Lovelace');
    await expect
      .poll(async () => {
        const cb = (await cursor.boundingBox())!;
        return Math.round(Math.hypot(cb.x - a.x - 400, cb.y - a.y - 300));
      }, { timeout: 5_000 })
      .toBeLessThan(4);
    expect(await cursor.locator('path').getAttribute('fill')).toBe(await outline.getAttribute('data-color'));
    await page.screenshot({ path: 'test-results/live-peer-cursor.png' });

    // Show collaborators off hides the cursor and the outline; on shows them again.
    await page.getByRole('button', { name: 'Editor settings' }).click();
    const toggle = page.getByRole('switch', { name: 'Show collaborators' });
    await toggle.click();
    await expect(cursor).toHaveCount(0);
    await expect(outline).toHaveCount(0);
    await toggle.click();
    await expect(outline).toHaveCount(1);
    await page.keyboard.press('Escape');

    // A opens the image again: B's selection is sent anew when A arrives, so A sees it at once.
    // (Right after the reload 'Loading image...' is not shown yet: wait for A to have joined, B among A's people.)
    await page.reload();
    await expect(avatarB).toBeVisible({ timeout: 30_000 });
    await expect(outline).toHaveCount(1, { timeout: 10_000 });

    // B clears the selection: the outline goes. B leaves: the cursor goes.
    await second.keyboard.press('Escape');
    await expect(outline).toHaveCount(0, { timeout: 10_000 });
    await second.mouse.move(bc.x + 420, bc.y + 310);
    await expect(cursor).toHaveCount(1, { timeout: 10_000 });
    await b.context.close();
    await expect(cursor).toHaveCount(0, { timeout: 20_000 });
  } finally {
    await b.context.close().catch(() => undefined);
  }
});

/** A draws a box on the image and a second person (B) has it in their editor: the box as saved. */
async function bothOnABox(page: Page, browser: Browser) {
  const project = await editorProject(page, { classes: CLASSES, images: [{ name: IMAGE }], open: IMAGE });
  const img = project.images[0]!;
  const b = await secondPerson(browser, page, project);
  try {
    await drawBox(page, [150, 150], [260, 240]);
    await expect(annotationRows(b.page)).toHaveCount(1, { timeout: 20_000 });
    // B may see A's box before it is saved (a live draft): the box as saved is the server's.
    await expect.poll(async () => (await loadSaved(page, project, img.id)).annotations.length, { timeout: 20_000 }).toBe(1);
    const before = (await loadSaved(page, project, img.id)).annotations[0].bounding_box as { x: number; y: number };
    return { project, img, b, second: b.page, before };
  } catch (err) {
    await b.context.close().catch(() => undefined);
    throw err;
  }
}

test('both edit one shape: the later edit wins in both editors and on the server, and both are told', async ({ page, browser }) => {
  test.setTimeout(150_000);
  const { project, img, b, second, before } = await bothOnABox(page, browser);
  try {

    // B's live socket goes through a relay that can hold what the server sends, so that B edits
    // the box without having seen A's edit of it (as when B's network is slow).
    let hold = false;
    const held: (() => void)[] = [];
    await second.routeWebSocket(/\/api\/v1\/live$/, (ws) => {
      const server = ws.connectToServer();
      server.onMessage((m) => (hold ? held.push(() => ws.send(m)) : ws.send(m)));
      ws.onMessage((m) => server.send(m));
    });
    await second.reload();
    await expect(second.getByText('Loading image...')).toBeHidden({ timeout: 20_000 });
    await expect(annotationRows(second)).toHaveCount(1);
    await expect(second.getByRole('list', { name: 'People on this image' }).getByRole('img', { name: project.user.fullName, exact: true })).toBeVisible({ timeout: 15_000 });
    hold = true;

    // A moves the box right and it is saved; B does not hear of it yet.
    await page.keyboard.press('q');
    await page.keyboard.press('Escape');
    await dragOnCanvas(page, [205, 195], [265, 195]);
    await expect.poll(async () => (await loadSaved(page, project, img.id)).annotations[0].bounding_box.x, { timeout: 20_000 }).toBeGreaterThan(before.x + 30);

    // Then B moves the same box down: the later edit. B's save meets A's and keeps B's.
    await second.keyboard.press('q');
    await second.keyboard.press('Escape');
    await dragOnCanvas(second, [205, 195], [205, 305]);
    // (Canvas points are not image pixels: B's box is lower, at A's box's old x.)
    const savedBox = async () => (await loadSaved(page, project, img.id)).annotations[0].bounding_box as { x: number; y: number };
    await expect.poll(async () => (await savedBox()).y, { timeout: 20_000 }).toBeGreaterThan(before.y + 50);
    expect((await savedBox()).x).toBe(before.x);

    // Both are told: B that both changed it and the later edit was kept, A who changed theirs.
    await expect(second.getByText('Conflict merged: someone else saved this image too. 1 annotation(s) changed on both sides kept the later edit.')).toBeVisible({ timeout: 10_000 });
    const told = page.getByText('Ada Lovelace changed 1 annotation(s) you edited: the later edit, theirs, was kept.');
    await expect(told).toBeVisible({ timeout: 20_000 });
    await page.screenshot({ path: 'test-results/live-both-told.png' });

    // What B's socket held now arrives: already known, nothing changes there.
    hold = false;
    for (const send of held.splice(0)) send();

    // Both editors show B's box where B put it, once, and nothing at A's spot.
    for (const p of [page, second]) {
      await expect(annotationRows(p)).toHaveCount(1);
      await expect.poll(() => selectsAt(p, [205, 305]), { timeout: 10_000 }).toBe(true);
      expect(await selectsAt(p, [265, 195])).toBe(false);
    }
    const saved = await loadSaved(page, project, img.id);
    expect(saved.annotations).toHaveLength(1);
    expect(saved.annotations[0].bounding_box.x).toBe(before.x);
    expect(saved.annotations[0].bounding_box.y).toBeGreaterThan(before.y + 50);
  } finally {
    await b.context.close().catch(() => undefined);
  }
});

test('both edit one shape and the earlier edit is saved last: the merge keeps the later one, and both are told', async ({ page, browser }) => {
  test.setTimeout(150_000);
  const { project, img, b, second, before } = await bothOnABox(page, browser);
  try {
    await expect(page.getByRole('list', { name: 'People on this image' }).getByRole('img', { name: 'Ada Lovelace', exact: true })).toBeVisible({ timeout: 15_000 });

    // B's saves wait on the way (a slow network), so that B's edit, made first, reaches the server last.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let sent!: () => void;
    const saveSent = new Promise<void>((r) => (sent = r));
    await second.route('**/api/v1/annotations/save-changes', async (route) => {
      sent();
      await gate;
      await route.continue();
    });

    // B moves the box down first; its save leaves and is held.
    await second.keyboard.press('q');
    await second.keyboard.press('Escape');
    await dragOnCanvas(second, [205, 195], [205, 305]);
    await saveSent;

    // Then A moves the same box right: the later edit, saved at once.
    await page.keyboard.press('q');
    await page.keyboard.press('Escape');
    await dragOnCanvas(page, [205, 195], [265, 195]);
    await expect.poll(async () => (await loadSaved(page, project, img.id)).annotations[0].bounding_box.x, { timeout: 20_000 }).toBeGreaterThan(before.x + 30);
    const afterA = await loadSaved(page, project, img.id);

    // B's save arrives: 409, and B's merge keeps A's later shape. B is told by the merge, A by B's editor over the live socket.
    release();
    await expect(second.getByText('Conflict merged: someone else saved this image too. 1 annotation(s) changed on both sides kept the later edit.')).toBeVisible({ timeout: 20_000 });
    const told = page.getByText('Ada Lovelace also edited 1 annotation(s) you edited: the later edit, yours, was kept.');
    await expect(told).toBeVisible({ timeout: 20_000 });
    await page.screenshot({ path: 'test-results/live-both-told-yours-kept.png' });
    await told.screenshot({ path: 'test-results/live-yours-kept-toast.png' });

    // The server holds A's shape, and B's merge had nothing left to save (no new version).
    await expect(second.getByRole('status').filter({ hasText: /^(Saved|Conflict merged)$/ })).toBeVisible({ timeout: 15_000 });
    const saved = await loadSaved(page, project, img.id);
    expect(saved.version).toBe(afterA.version);
    expect(saved.annotations).toEqual(afterA.annotations);
    expect(saved.annotations[0].bounding_box.y).toBe(before.y);

    // Both editors show A's box where A put it, once, and nothing where B had moved it.
    for (const p of [page, second]) {
      await expect(annotationRows(p)).toHaveCount(1);
      await expect.poll(() => selectsAt(p, [265, 195]), { timeout: 10_000 }).toBe(true);
      expect(await selectsAt(p, [205, 305])).toBe(false);
    }
    // Nobody was told the other way round.
    await expect(page.getByText(/the later edit, theirs, was kept/)).toHaveCount(0);
    await expect(second.getByText(/the later edit, yours, was kept/)).toHaveCount(0);
  } finally {
    await b.context.close().catch(() => undefined);
  }
});
