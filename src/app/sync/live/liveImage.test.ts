// The open image's live side, with a stand-in for the tab's live client: a view-only editor applies
// another person's change that builds on the version it loaded and tells the client when it
// missed versions; the people and their cursors are kept, and a cursor left alone fades out.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LivePeer } from '../../../contract/live';
import type { LiveChange, LiveClient, LiveImageHandler } from './client';
import { LiveImage } from './liveImage';
import { PEER_CURSOR_FADE_MS, PEER_CURSOR_IDLE_MS } from './peerPresence';

const IMG = 'image-1';

function standIn() {
  const handlers = new Map<string, LiveImageHandler>();
  const sent: unknown[] = [];
  const client = {
    connected: true,
    userId: 'me',
    watch: (imageId: string, _projectId: string, h: LiveImageHandler) => {
      handlers.set(imageId, h);
      return () => handlers.delete(imageId);
    },
    resync: () => undefined,
    sendCursor: (imageId: string, x: number, y: number) => sent.push(['cursor', imageId, x, y]),
    sendSelection: (imageId: string, ids: string[]) => sent.push(['selection', imageId, ids]),
  };
  return { client: client as unknown as LiveClient, handlers, sent };
}

const change = (base: number, version: number): LiveChange => ({ base_version: base, version, upserts: [{ id: 'x', name: 'car', bounding_box: { x: 1, y: 2, w: 3, h: 4 } }], removed_ids: [], by: 'ada' });
const peer = (id: string): LivePeer => ({ user_id: id, name: id, color: '#123456' }) as unknown as LivePeer;

describe('LiveImage', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function setup(readOnly: boolean) {
    const { client, handlers, sent } = standIn();
    const applied: unknown[] = [];
    let ready = false;
    const link = {
      image: null,
      applyRemoteChange: () => ({ kind: 'applied' as const }),
      applyToEditor: (upserts: unknown[], removed: string[]) => void applied.push({ upserts, removed }),
    };
    const image = new LiveImage({ imageId: IMG, projectId: 'p', readOnly, link: link as never, saver: { version: () => null }, live: client, documentReady: () => ready, reopen: () => undefined, now: () => Date.now() });
    const stop = image.start();
    return { image, stop, handler: () => handlers.get(IMG)!, handlers, applied, sent, setReady: () => (ready = true) };
  }

  it('a view-only editor applies a change on the version it loaded, and knows older ones and gaps', () => {
    const s = setup(true);
    expect(s.handler().version()).toBeNull(); // still loading
    s.setReady();
    s.image.loadedVersion(4);
    expect(s.handler().version()).toBe(4);
    expect(s.handler().apply(change(4, 5))).toBe('applied');
    expect(s.applied).toHaveLength(1);
    expect(s.handler().version()).toBe(5);
    expect(s.handler().apply(change(4, 5))).toBe('known');
    expect(s.handler().apply(change(7, 8))).toBe('gap');
    expect(s.applied).toHaveLength(1);
    s.stop();
    expect(s.handlers.has(IMG)).toBe(false);
  });

  it('keeps the people and their cursors; a cursor left alone fades out and goes', () => {
    const s = setup(false);
    const seen: number[] = [];
    s.image.subscribe(() => seen.push(s.image.getState().presence.cursors.size));
    s.handler().onPeers!([peer('me'), peer('ada')]);
    s.handler().onCursor!('ada', { x: 10, y: 20 });
    expect(s.image.getState().peers.map((p) => (p as unknown as { user_id: string }).user_id)).toEqual(['me', 'ada']);
    expect(s.image.getState().presence.cursors.size).toBe(1);
    vi.advanceTimersByTime(PEER_CURSOR_IDLE_MS + PEER_CURSOR_FADE_MS + 500);
    expect(s.image.getState().presence.cursors.size).toBe(0);
    expect(seen.at(-1)).toBe(0);
    s.stop();
  });

  it('sends our selection once per change, and again when asked', () => {
    const s = setup(false);
    s.image.sendSelection(['a']);
    s.image.sendSelection(['a']);
    s.image.sendSelection(['a'], true);
    s.image.sendSelection(['a', 'b']);
    expect(s.sent).toEqual([
      ['selection', IMG, ['a']],
      ['selection', IMG, ['a']],
      ['selection', IMG, ['a', 'b']],
    ]);
    s.stop();
  });
});
