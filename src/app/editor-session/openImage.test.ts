// Opening an image in the session, with the real engine and save link, the save manager on a fake
// clock and in-memory server, and the pixels and load-data body handed in: the document is in,
// the user's edits are saved for that image, and an open left before it finished attaches nothing.
import { describe, expect, it } from 'vitest';
import type { Image } from '../../contract/images';
import { openImage, type OpenImageOptions } from './openImage';
import { box, fakeClock, fakeServer, harness, newIdb } from '../../../tests/support/saveTestkit';
import { PROJECT, testSession } from '../../../tests/support/sessionTestkit';

const IMG = '00000000-0000-4000-8000-000000000001';
const image = { id: IMG, filename: 'lot.png', project_id: PROJECT } as unknown as Image;

async function setup() {
  const clock = fakeClock();
  const server = fakeServer(clock);
  server.saveAs(IMG, [box('a', 0), box('b', 100)]);
  const { manager } = harness(clock, server, newIdb());
  const session = testSession(clock, manager);
  session.editor.setViewport({ width: 1000, height: 800 });
  const stop = session.start();
  const events: string[] = [];
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const opts = (wait: boolean): OpenImageOptions => ({
    image,
    readOnly: false,
    opening: {
      starting: (id) => events.push(`starting ${id === IMG}`),
      loadedVersion: (_id, v) => events.push(`version ${v}`),
      restoredCamera: () => null,
      finished: () => events.push('finished'),
    },
    shownImage: () => IMG,
    progress: { clear: () => undefined, report: () => undefined },
    onReady: (source) => events.push(`ready ${String(source)}`),
    onRecovered: (n) => events.push(`recovered ${n}`),
    onError: (err) => events.push(`error ${String(err)}`),
    load: async () => {
      if (wait) await gate;
      return { pixels: { source: 'pixels', width: 1000, height: 800 } as never, body: JSON.stringify(server.loaded(IMG)) };
    },
  });
  const settled = async () => {
    for (let i = 0; i < 400 && !events.includes('finished'); i++) await new Promise((r) => setTimeout(r, 5));
  };
  return { clock, server, session, stop, events, opts, settled, release };
}

describe('openImage', () => {
  it('puts the document in the editor, then saves the user\'s edits for the image', async () => {
    const s = await setup();
    const leave = openImage(s.session, s.opts(false));
    await s.settled();
    expect(s.events).toEqual(['starting true', `version ${s.server.loaded(IMG).version}`, 'ready pixels', 'finished']);
    expect(s.session.editor.getOrderedIds()).toEqual(['a', 'b']);
    expect(s.session.link.image?.imageId).toBe(IMG);
    s.session.editor.setTool('keypoint');
    s.session.editor.setActiveClass('eye');
    s.session.editor.pointerDown({ x: 500, y: 400 }); // input is no longer paused
    s.session.editor.pointerUp({ x: 500, y: 400 });
    expect(s.session.editor.getOrderedIds()).toHaveLength(3);
    for (let i = 0; i < 4; i++) await s.clock.advance(3000);
    expect((s.server.doc(IMG).annotations as unknown[]).length).toBe(3);
    leave();
    expect(s.session.link.image).toBeNull();
    s.stop();
  });

  it('left before its pixels came: nothing is loaded or attached, and input stays paused', async () => {
    const s = await setup();
    const leave = openImage(s.session, s.opts(true));
    leave();
    s.release();
    await new Promise((r) => setTimeout(r, 50));
    expect(s.events).toEqual(['starting true']);
    expect(s.session.editor.getOrderedIds()).toEqual([]);
    expect(s.session.link.image).toBeNull();
    s.session.editor.setTool('keypoint');
    s.session.editor.setActiveClass('eye');
    s.session.editor.pointerDown({ x: 500, y: 400 });
    expect(s.session.editor.getOrderedIds()).toEqual([]);
    s.stop();
  });
});
