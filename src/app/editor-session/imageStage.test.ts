// The image's stage as the top bar shows it, with the real engine, save link and save manager (on
// a fake clock and in-memory server): a stage chosen is shown at once and sent; a refusal puts the
// stage back with the server's word; the first save of a new image moves it to In progress.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ImageStatus } from '../../contract/images';
import { ApiRequestError } from '../api/client';
import { ImageStage, type StagedImage } from './imageStage';
import type { Tell } from './session';
import { fakeClock, fakeServer, harness, newIdb } from '../../../tests/support/saveTestkit';
import { MemoryStorage, PROJECT, testSession } from '../../../tests/support/sessionTestkit';

const IMG = '00000000-0000-4000-8000-000000000001';
const OTHER = '00000000-0000-4000-8000-000000000002';
const image: StagedImage = { id: IMG, filename: 'lot.png', status: 'new' };

function setup(answer: (status: ImageStatus) => Promise<{ image: { status: ImageStatus } }> = async (status) => ({ image: { status } })) {
  const clock = fakeClock();
  const server = fakeServer(clock);
  const { manager } = harness(clock, server, newIdb());
  const told: string[] = [];
  const tell: Tell = (message, tone) => void told.push(`${tone}: ${message}`);
  const sent: string[] = [];
  const stage = new ImageStage({
    orgId: 'org-1',
    saver: manager,
    tell,
    update: (id, orgId, status) => {
      sent.push(`${id === IMG ? 'lot' : id} ${orgId} ${status}`);
      return answer(status);
    },
  });
  const learnt: string[] = [];
  const confirmed: string[] = [];
  stage.onLearnt((id, status) => learnt.push(`${id === IMG ? 'lot' : 'other'} ${status}`));
  stage.onConfirmed((id, status) => confirmed.push(`${id === IMG ? 'lot' : 'other'} ${status}`));
  stage.show(IMG);
  const stop = stage.start();
  return { clock, server, manager, stage, told, sent, learnt, confirmed, stop, tell };
}

/** An editor session on lot.png, empty, opened and saving through the setup's manager. */
async function openedSession(s: ReturnType<typeof setup>) {
  const session = testSession(s.clock, s.manager, { tell: s.tell });
  const stopSession = session.start();
  const { editor, link } = session;
  editor.setImageSize({ width: 1000, height: 800 });
  editor.setViewport({ width: 1000, height: 800 });
  const ref = { imageId: IMG, projectId: PROJECT, imageFilename: 'lot.png' };
  link.expect(IMG);
  await link.load([]);
  await s.manager.open(ref, s.server.loaded(IMG));
  link.attach(ref);
  return { editor, stopSession };
}

describe("the image's stage", () => {
  beforeEach(() => {
    (globalThis as { window?: unknown }).window = { localStorage: new MemoryStorage() };
  });
  afterEach(() => {
    delete (globalThis as { window?: unknown }).window;
  });

  it('is shown at once when chosen, sent to the server, and confirmed with a word', async () => {
    let release: () => void = () => undefined;
    const s = setup((status) => new Promise((resolve) => (release = () => resolve({ image: { status } }))));
    const done = s.stage.setStage(image, 'review');
    expect(s.stage.statusOf(image)).toBe('review');
    expect(s.stage.getState().busy).toBe(true);
    expect(s.sent).toEqual(['lot org-1 review']);
    release();
    await done;
    expect(s.stage.statusOf(image)).toBe('review');
    expect(s.stage.getState().busy).toBe(false);
    expect(s.told).toEqual(['success: lot.png set to In review']);
    expect(s.learnt).toEqual(['lot review']);
    expect(s.confirmed).toEqual(['lot review']);
    // Another image is shown with its own stage.
    expect(s.stage.statusOf({ id: OTHER, filename: 'b.png', status: 'complete' })).toBe('complete');
    s.stop();
  });

  it('goes back to the stage it had when the server refuses, with the server\'s reason', async () => {
    const s = setup(async () => Promise.reject(new ApiRequestError(403, JSON.stringify({ error: 'You may not set the stage', code: 'forbidden' }))));
    await s.stage.setStage(image, 'complete');
    expect(s.stage.statusOf(image)).toBe('new');
    expect(s.stage.getState().busy).toBe(false);
    expect(s.told).toEqual(['danger: You may not set the stage']);
    expect(s.confirmed).toEqual([]);
    s.stop();
  });

  it('choosing the stage the image already has sends nothing', async () => {
    const s = setup();
    await s.stage.setStage(image, 'new');
    expect(s.sent).toEqual([]);
    expect(s.told).toEqual([]);
    s.stop();
  });

  it("shows In progress once the first save of a new image's shapes is answered, not for another image", async () => {
    const s = setup();
    const { editor, stopSession } = await openedSession(s);
    editor.setTool('keypoint');
    editor.setActiveClass('eye');
    editor.pointerDown({ x: 50, y: 60 });
    editor.pointerUp({ x: 50, y: 60 });
    expect(s.stage.statusOf(image)).toBe('new');
    for (let i = 0; i < 4; i++) await s.clock.advance(3000);
    expect(s.stage.statusOf(image)).toBe('annotating');
    expect(s.learnt).toEqual(['lot annotating']);

    // The screen moved on: a save of the image left behind changes nothing shown.
    s.stage.show(OTHER);
    expect(s.stage.statusOf({ id: OTHER, filename: 'b.png', status: 'new' })).toBe('new');
    stopSession();
    s.stop();
  });

  it("follows a co-editor's first save: this tab's next save answers In progress, and the stage shown moves there", async () => {
    const s = setup();
    s.stage.show(IMG, 'new');
    const { editor, stopSession } = await openedSession(s);
    // Someone else saves first: the server moves the image to In progress with that save.
    s.server.saveAs(IMG, [{ id: 'theirs', name: 'car', bounding_box: { x: 10, y: 10, w: 20, h: 20 } } as never]);
    editor.setTool('keypoint');
    editor.setActiveClass('eye');
    editor.pointerDown({ x: 50, y: 60 });
    editor.pointerUp({ x: 50, y: 60 });
    expect(s.stage.statusOf(image)).toBe('new');
    for (let i = 0; i < 4; i++) await s.clock.advance(3000);
    expect(s.stage.statusOf(image)).toBe('annotating');
    expect(s.learnt).toEqual(['lot annotating']);
    stopSession();
    s.stop();
  });

  it('Shift+S opens the picker, or says why this role may not set stages', () => {
    const s = setup();
    s.stage.openPicker('Viewers cannot set the stage');
    expect(s.stage.getState().open).toBe(false);
    expect(s.told).toEqual(['neutral: Viewers cannot set the stage']);
    s.stage.openPicker(null);
    expect(s.stage.getState().open).toBe(true);
    s.stop();
  });
});
