// The open image's live co-editing joined to its open, with the real engine and save link, the
// save manager on a fake clock and in-memory server, and a stand-in for the tab's live client:
// the version the open loaded reaches the live image, a change log that no longer reaches back
// asks for the image again, and the document's arrival catches up and sends our selection (again
// to whoever arrives) until it leaves.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LivePeer } from '../../contract/live';
import type { LiveClient, LiveImageHandler } from '../sync/live';
import { LiveOpenImage } from './liveOpen';
import { box, fakeClock, fakeServer, harness, newIdb } from '../../../tests/support/saveTestkit';
import { MemoryStorage, testSession } from '../../../tests/support/sessionTestkit';

const IMG = '00000000-0000-4000-8000-000000000001';
const OTHER = '00000000-0000-4000-8000-000000000002';
const peer = (id: string): LivePeer => ({ user_id: id, name: id, color: '#123456' }) as unknown as LivePeer;

function liveStandIn() {
  const handlers = new Map<string, LiveImageHandler>();
  const sent: string[] = [];
  const client = {
    connected: true,
    userId: 'me',
    onPeerOverlap: () => () => undefined,
    sendOverlap: () => undefined,
    watch: (imageId: string, _projectId: string, h: LiveImageHandler) => {
      handlers.set(imageId, h);
      return () => handlers.delete(imageId);
    },
    resync: (imageId: string) => void sent.push(`resync ${imageId === IMG}`),
    sendCursor: () => undefined,
    sendSelection: (imageId: string, ids: string[]) => void sent.push(`selection ${imageId === IMG} [${ids.join(',')}]`),
  };
  return { client: client as unknown as LiveClient, handlers, sent };
}

async function setup(readOnly: boolean) {
  const clock = fakeClock();
  const server = fakeServer(clock);
  server.saveAs(IMG, [box('a', 0), box('b', 100)]);
  const { manager } = harness(clock, server, newIdb());
  const live = liveStandIn();
  const session = testSession(clock, manager, { live: live.client });
  const stopSession = session.start();
  await session.link.load(server.loaded(IMG).annotations);
  const open = new LiveOpenImage(session, IMG, readOnly);
  const stop = open.start();
  const handler = () => live.handlers.get(IMG);
  return { session, open, stop, stopSession, handler, sent: live.sent, editor: session.editor, server, manager };
}

/** The image attached to the session's save link, its document in, as the editor screen has it. */
async function attached() {
  const s = await setup(false);
  const loaded = s.server.loaded(IMG);
  const ref = { imageId: IMG, projectId: '00000000-0000-4000-8000-0000000000aa', imageFilename: 'lot.png' };
  await s.manager.open(ref, loaded);
  s.session.link.attach(ref);
  s.session.documentReady = true;
  s.open.setDocumentIn(true);
  return { ...s, v0: loaded.version };
}

describe('LiveOpenImage', () => {
  beforeEach(() => {
    (globalThis as { window?: unknown }).window = { localStorage: new MemoryStorage() };
  });
  afterEach(() => {
    delete (globalThis as { window?: unknown }).window;
  });

  it("hands the version the open loaded to a view-only editor's live image, only for its image", async () => {
    const s = await setup(true);
    s.session.documentReady = true;
    expect(s.handler()!.version()).toBeNull();
    s.open.opening.loadedVersion(OTHER, 9);
    expect(s.handler()!.version()).toBeNull();
    s.open.opening.loadedVersion(IMG, 4);
    expect(s.handler()!.version()).toBe(4);
    // Not while another image's document is in the editor.
    s.session.documentReady = false;
    expect(s.handler()!.version()).toBeNull();
    s.stop();
    expect(s.handler()).toBeUndefined();
    s.stopSession();
  });

  it('asks for the image to be opened again when the change log no longer reaches back', async () => {
    const s = await setup(false);
    let told = 0;
    s.open.subscribeReopen(() => told++);
    expect(s.open.reopenCount()).toBe(0);
    s.handler()!.reload();
    s.handler()!.reload();
    expect(s.open.reopenCount()).toBe(2);
    expect(told).toBe(2);
    s.stop();
    s.stopSession();
  });

  it('catches up when the document arrives, then sends our selection as it changes and again to whoever arrives, until the document leaves', async () => {
    const s = await setup(false);
    s.editor.select(['a']);
    expect(s.sent).toEqual([]); // the document is not in yet
    s.open.setDocumentIn(true);
    expect(s.sent).toEqual(['resync true', 'selection true [a]']);
    s.editor.select(['a', 'b']);
    s.editor.select(['a', 'b']); // unchanged: not sent again
    expect(s.sent.slice(2)).toEqual(['selection true [a,b]']);
    s.handler()!.onPeers!([peer('me'), peer('ada')]);
    expect(s.sent.slice(3)).toEqual(['selection true [a,b]']);
    s.open.setDocumentIn(false);
    s.editor.select(['b']);
    s.handler()!.onPeers!([peer('me')]);
    expect(s.sent).toHaveLength(4);
    // Reopened: it catches up again.
    s.open.setDocumentIn(true);
    expect(s.sent.slice(4)).toEqual(['resync true', 'selection true [b]']);
    s.stop();
    s.editor.select(['a']);
    expect(s.sent).toHaveLength(6);
    s.stopSession();
  });

  it("keeps another person's draft box, and the user's selection of it, when its author's tab goes and the save it sent on the way lands after (the author reloading)", async () => {
    const s = await attached();
    const h = s.handler()!;
    h.onPeers!([peer('me'), peer('ada')]);
    // Ada draws a box: this editor shows it at once as her draft, and the user selects it.
    h.onDraft!('ada', [box('n', 300)], []);
    s.editor.select(['n']);
    expect(s.sent.at(-1)).toBe('selection true [n]');
    const selected = s.sent.length;
    // Ada reloads: her socket closes before the save her tab sent as it went has landed.
    h.onPeers!([peer('me')]);
    s.server.saveAs(IMG, [box('a', 0), box('b', 100), box('n', 300)]);
    expect(h.apply({ version: s.v0 + 1, base_version: s.v0, upserts: [box('n', 300)], removed_ids: [], by: 'ada' })).toBe('applied');
    // She is back: the box never left this editor, it is still selected, and she is sent that selection.
    h.onPeers!([peer('me'), peer('ada')]);
    expect(s.editor.getAnnotation('n')).toBeDefined();
    expect([...s.editor.getView().selected]).toEqual(['n']);
    expect(s.sent.at(-1)).toBe('selection true [n]');
    expect(s.sent.slice(selected).filter((m) => m !== 'selection true [n]')).toEqual([]);
    expect(s.open.image.getState().presence.drafts.size).toBe(0);
    s.stop();
    s.stopSession();
  });
});
