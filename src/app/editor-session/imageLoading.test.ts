// The open image's loading as the stage shows it, with the real engine, save link and save manager
// (on a fake clock and in-memory server) and the pixels handed in: loading until the document is
// in, ready once the renderer has drawn the pixels, the previous image kept on the canvas during a
// switch until the switch is slow, and the words the stage says when a load fails.
import { describe, expect, it } from 'vitest';
import type { Image } from '../../contract/images';
import { ImageLoading, SLOW_SWITCH_MS } from './imageLoading';
import { CanvasUnsupportedError } from '../../workers/render-client';
import type { OpeningHooks, OpenImageOptions } from './openImage';
import { box, fakeClock, fakeServer, harness, newIdb } from '../../../tests/support/saveTestkit';
import { PROJECT, testSession } from '../../../tests/support/sessionTestkit';

const A = '00000000-0000-4000-8000-000000000001';
const B = '00000000-0000-4000-8000-000000000002';
const imageOf = (id: string, filename: string) => ({ id, filename, project_id: PROJECT }) as unknown as Image;
const opening: OpeningHooks = { starting: () => undefined, loadedVersion: () => undefined, restoredCamera: () => null, finished: () => undefined };

function setup(load: (image: Image) => ReturnType<NonNullable<OpenImageOptions['load']>>) {
  const clock = fakeClock();
  const server = fakeServer(clock);
  server.saveAs(A, [box('a', 0)]);
  server.saveAs(B, [box('b1', 0), box('b2', 100)]);
  const { manager } = harness(clock, server, newIdb());
  const session = testSession(clock, manager);
  session.editor.setViewport({ width: 1000, height: 800 });
  const stop = session.start();
  const loading = new ImageLoading(A, { timers: clock, load: (image) => load(image) });
  const pixels = (id: string) => ({ pixels: { source: `pixels of ${id === A ? 'A' : 'B'}` as never, width: 1000, height: 800 }, body: JSON.stringify(server.loaded(id)) });
  /** Waits (real time: the open parses in slices) until `imageId`'s open is over. */
  const settled = async (imageId: string) => {
    for (let i = 0; i < 400 && loading.view(imageId).documentLoading; i++) await new Promise((r) => setTimeout(r, 5));
  };
  return { clock, session, stop, loading, pixels, settled };
}

describe("the open image's loading", () => {
  it('is loading until the document is in, and ready once the renderer has drawn the pixels', async () => {
    const s = setup(async (image) => s.pixels(image.id));
    const leave = s.loading.open(s.session, imageOf(A, 'a.png'), false, opening);
    expect(s.loading.view(A)).toMatchObject({ documentLoading: true, ready: false, keepPrevious: false });
    expect(s.loading.getState().load).toEqual({ imageId: A, status: 'loading' });
    await s.settled(A);
    expect(s.loading.getState().load).toEqual({ imageId: A, status: 'ready' });
    expect(s.loading.getState().imageSource).toBe('pixels of A');
    expect(s.session.editor.getOrderedIds()).toEqual(['a']);
    // The document is in (keys may act), the pixels are not drawn yet: the overlay stays.
    expect(s.loading.view(A)).toMatchObject({ documentIn: true, ready: false });
    s.loading.imageReady(null);
    expect(s.loading.view(A)).toMatchObject({ documentIn: true, ready: true, documentLoading: false });
    leave();
    s.loading.dispose();
    s.stop();
  });

  it('keeps the previous image on the canvas during a switch, until the switch is slow', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const s = setup(async (image) => {
      if (image.id === B) await gate;
      return s.pixels(image.id);
    });
    const leaveA = s.loading.open(s.session, imageOf(A, 'a.png'), false, opening);
    await s.settled(A);
    s.loading.imageReady(null);
    leaveA();
    s.loading.show(B);
    const leaveB = s.loading.open(s.session, imageOf(B, 'b.png'), false, opening);
    // A stays on the canvas with no overlay over it...
    expect(s.loading.view(B)).toMatchObject({ ready: false, keepPrevious: true, documentLoading: true });
    await s.clock.advance(SLOW_SWITCH_MS - 1);
    expect(s.loading.view(B).keepPrevious).toBe(true);
    // ...until the switch takes long: the loading overlay shows after all.
    await s.clock.advance(1);
    expect(s.loading.view(B).keepPrevious).toBe(false);
    release();
    await s.settled(B);
    expect(s.loading.getState().imageSource).toBe('pixels of B');
    s.loading.imageReady(null);
    expect(s.loading.view(B).ready).toBe(true);
    expect(s.session.editor.getOrderedIds()).toEqual(['b1', 'b2']);
    leaveB();
    s.loading.dispose();
    s.stop();
  });

  it('says why when the annotations cannot be read, or the pixels cannot be opened', async () => {
    const logged = console.error; // the open logs what failed
    console.error = () => undefined;
    const s = setup(async (image) => ({ ...s.pixels(image.id), body: '{"annotations": [' }));
    const leave = s.loading.open(s.session, imageOf(A, 'a.png'), false, opening);
    await s.settled(A);
    expect(s.loading.getState().load).toEqual({ imageId: A, status: 'error', message: 'The annotations of this image could not be read.' });
    leave();

    const t = setup(async (image) => t.pixels(image.id));
    const leaveT = t.loading.open(t.session, imageOf(A, 'a.png'), false, opening);
    await t.settled(A);
    t.loading.imageReady(new Error('decode failed'));
    console.error = logged;
    expect(t.loading.getState().load).toMatchObject({ imageId: A, status: 'error', message: expect.stringContaining('The image file could not be opened') });
    expect(t.loading.view(A)).toMatchObject({ ready: false, keepPrevious: false });
    leaveT();
    s.stop();
    t.stop();
  });

  it('in a browser that cannot draw the canvas, says so and offers no retry', async () => {
    const logged = console.error;
    console.error = () => undefined;
    const s = setup(async (image) => s.pixels(image.id));
    const leave = s.loading.open(s.session, imageOf(A, 'a.png'), false, opening);
    await s.settled(A);
    s.loading.imageReady(new CanvasUnsupportedError());
    console.error = logged;
    expect(s.loading.getState().load).toEqual({ imageId: A, status: 'error', message: new CanvasUnsupportedError().message, retry: false });
    expect(s.loading.view(A)).toMatchObject({ ready: false });
    leave();
    s.stop();
  });
});
