// The open image's live side, with a stand-in for the tab's live client: a view-only editor applies
// another person's change that builds on the version it loaded and tells the client when it
// missed versions; the people and their cursors are kept, and a cursor left alone fades out.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StoredAnnotation } from '../../../contract/annotations';
import { LIVE_DRAFT_INTERVAL_MS, LIVE_DRAFT_LEAVE_GRACE_MS, LIVE_DRAFT_TIMEOUT_MS, type LivePeer } from '../../../contract/live';
import type { LiveChange, LiveClient, LiveImageHandler, PeerOverlap } from './client';
import { LiveImage } from './liveImage';
import { PEER_CURSOR_FADE_MS, PEER_CURSOR_IDLE_MS } from './peerPresence';

const IMG = 'image-1';

function standIn() {
  const handlers = new Map<string, LiveImageHandler>();
  const sent: unknown[] = [];
  const overlaps = new Set<(imageId: string, o: PeerOverlap) => void>();
  const client = {
    connected: true,
    userId: 'me',
    onPeerOverlap: (l: (imageId: string, o: PeerOverlap) => void) => (overlaps.add(l), () => overlaps.delete(l)),
    watch: (imageId: string, _projectId: string, h: LiveImageHandler) => {
      handlers.set(imageId, h);
      return () => handlers.delete(imageId);
    },
    resync: () => undefined,
    sendCursor: (imageId: string, x: number, y: number) => sent.push(['cursor', imageId, x, y]),
    sendSelection: (imageId: string, ids: string[]) => sent.push(['selection', imageId, ids]),
    sendDraft: (imageId: string, base: number, upserts: unknown[], removed: string[]) => sent.push(['draft', imageId, base, upserts, removed]),
  };
  return { client: client as unknown as LiveClient, handlers, sent, overlaps };
}

const change = (base: number, version: number): LiveChange => ({ base_version: base, version, upserts: [{ id: 'x', name: 'car', bounding_box: { x: 1, y: 2, w: 3, h: 4 } }], removed_ids: [], by: 'ada' });
/** A car box of `id` at x (the drafts' tests). */
const carBox = (id: string, x: number): StoredAnnotation => ({ id, name: 'car', bounding_box: { x, y: 0, w: 5, h: 5 } });
const peer = (id: string): LivePeer => ({ user_id: id, name: id, color: '#123456' }) as unknown as LivePeer;

describe('LiveImage', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function setup(readOnly: boolean) {
    const { client, handlers, sent, overlaps } = standIn();
    const applied: unknown[] = [];
    let ready = false;
    /** The editor's document, by id. */
    const doc = new Map<string, StoredAnnotation>();
    const edits = new Set<(ids: readonly string[]) => void>();
    const serverChanges = new Set<(change: { upserts: StoredAnnotation[]; removed_ids: string[] }) => void>();
    /** What the save link answers a saved change with ('known': a rebased save of ours took it in first). */
    let remoteKind: 'applied' | 'known' = 'applied';
    const link = {
      image: readOnly ? null : { imageId: IMG, projectId: 'p' },
      applyRemoteChange: () => ({ kind: remoteKind }),
      applyToEditor: (upserts: StoredAnnotation[], removed: string[]) => {
        applied.push({ upserts, removed });
        for (const id of removed) doc.delete(id);
        for (const a of upserts) doc.set(a.id, a);
      },
      onEdit: (l: (ids: readonly string[]) => void) => (edits.add(l), () => edits.delete(l)),
      onServerChange: (l: (change: { upserts: StoredAnnotation[]; removed_ids: string[] }) => void) => (serverChanges.add(l), () => serverChanges.delete(l)),
      showsDrafts: () => () => undefined,
      storedOf: (ids: Iterable<string>) => {
        const list = [...ids];
        return { upserts: list.filter((id) => doc.has(id)).map((id) => doc.get(id)!), removed: list.filter((id) => !doc.has(id)) };
      },
    };
    const image = new LiveImage({ imageId: IMG, projectId: 'p', readOnly, link: link as never, saver: { version: () => (ready ? 4 : null) }, live: client, documentReady: () => ready, reopen: () => undefined, now: () => Date.now() });
    const stop = image.start();
    /** The user edits shapes of the document (the link tells the live image). */
    const edit = (...shapes: StoredAnnotation[]) => {
      for (const a of shapes) doc.set(a.id, a);
      for (const l of edits) l(shapes.map((a) => a.id));
    };
    /** A save of ours was rebased over saved versions (or a conflict merged): the link put their shapes into the document. */
    const absorb = (upserts: StoredAnnotation[], removed: string[]) => {
      link.applyToEditor(upserts, removed);
      for (const l of serverChanges) l({ upserts, removed_ids: removed });
    };
    const answerRemote = (kind: 'applied' | 'known') => (remoteKind = kind);
    return { image, stop, handler: () => handlers.get(IMG)!, handlers, applied, sent, doc, edit, absorb, answerRemote, overlaps, setReady: () => (ready = true) };
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
    // Still: nothing is redrawn until it starts to fade (the screen re-renders on each change).
    const heard = seen.length;
    vi.advanceTimersByTime(PEER_CURSOR_IDLE_MS - 1);
    expect(seen.length).toBe(heard);
    // It moves: the wait starts again.
    s.handler().onCursor!('ada', { x: 11, y: 20 });
    vi.advanceTimersByTime(PEER_CURSOR_IDLE_MS - 1);
    expect(seen.length).toBe(heard + 1);
    // Then it fades out on a few redraws, and goes.
    vi.advanceTimersByTime(PEER_CURSOR_FADE_MS + 500);
    expect(s.image.getState().presence.cursors.size).toBe(0);
    expect(seen.at(-1)).toBe(0);
    expect(seen.length - heard - 1).toBeGreaterThanOrEqual(3);
    expect(seen.length - heard - 1).toBeLessThanOrEqual(8);
    vi.advanceTimersByTime(60_000);
    expect(seen.length - heard - 1).toBeLessThanOrEqual(8);
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

  it('sends the user\'s edits as a draft at once, then at most one per interval with the last state', () => {
    const s = setup(false);
    s.setReady();
    const box = (x: number): StoredAnnotation => ({ id: 'a', name: 'car', bounding_box: { x, y: 0, w: 5, h: 5 } });
    s.edit(box(1));
    expect(s.sent).toEqual([['draft', IMG, 4, [box(1)], []]]);
    s.edit(box(2));
    s.edit(box(3));
    expect(s.sent).toHaveLength(1);
    vi.advanceTimersByTime(LIVE_DRAFT_INTERVAL_MS);
    expect(s.sent).toEqual([['draft', IMG, 4, [box(1)], []], ['draft', IMG, 4, [box(3)], []]]);
    s.stop();
  });

  it('a view-only editor sends no draft', () => {
    const s = setup(true);
    s.setReady();
    s.edit({ id: 'a', name: 'car', bounding_box: { x: 1, y: 0, w: 5, h: 5 } });
    expect(s.sent).toEqual([]);
    s.stop();
  });

  it('shows another person\'s draft as theirs until their save confirms it; it ends a grace after they leave, or when no save came in time', () => {
    const s = setup(false);
    s.setReady();
    s.handler().onPeers!([peer('me'), peer('ada')]);
    s.handler().onDraft!('ada', [carBox('a', 1)], []);
    expect(s.doc.get('a')).toEqual(carBox('a', 1));
    expect(s.image.getState().presence.drafts).toEqual(new Map([['a', 'ada']]));
    // Her save confirms it: no longer a draft, and it stays after the timeout.
    expect(s.handler().apply({ base_version: 4, version: 5, upserts: [carBox('a', 1)], removed_ids: [], by: 'ada' })).toBe('applied');
    expect(s.image.getState().presence.drafts.size).toBe(0);
    // The next draft is never saved: it ends after the timeout.
    s.handler().onDraft!('ada', [carBox('b', 2)], []);
    vi.advanceTimersByTime(LIVE_DRAFT_TIMEOUT_MS);
    expect(s.doc.has('b')).toBe(false);
    expect(s.doc.has('a')).toBe(true);
    // Her tab closes: her drafts end a grace later (unless the save her tab sent as it went lands).
    s.handler().onDraft!('ada', [carBox('c', 3)], []);
    s.handler().onPeers!([peer('me')]);
    vi.advanceTimersByTime(LIVE_DRAFT_LEAVE_GRACE_MS - 1);
    expect(s.doc.has('c')).toBe(true);
    vi.advanceTimersByTime(1);
    expect(s.doc.has('c')).toBe(false);
    expect(s.image.getState().presence.drafts.size).toBe(0);
    s.stop();
  });

  it('a draft whose save the document took in through a rebased save of ours ends on the saved shape, not by removing it', () => {
    const s = setup(false);
    s.setReady();
    s.handler().onPeers!([peer('me'), peer('ada')]);
    // Ada draws a box while our save is failing (offline HTTP, the socket still up): her draft shows.
    s.handler().onDraft!('ada', [carBox('a', 1)], []);
    // Our save goes through, rebased over her version: the box goes in with the skipped versions,
    // and her `changed` for it, waiting for our save's answer, is then already held.
    s.absorb([carBox('a', 1)], []);
    s.answerRemote('known');
    expect(s.handler().apply({ base_version: 4, version: 5, upserts: [carBox('a', 1)], removed_ids: [], by: 'ada' })).toBe('known');
    expect(s.image.getState().presence.drafts.size).toBe(0);
    vi.advanceTimersByTime(LIVE_DRAFT_TIMEOUT_MS);
    expect(s.doc.get('a')).toEqual(carBox('a', 1));
    // Without her `changed` (the socket closed meanwhile): her draft ends a grace after she is
    // gone, and the document keeps the box the rebased save brought.
    s.handler().onDraft!('ada', [carBox('b', 2)], []);
    s.absorb([carBox('b', 2)], []);
    s.handler().onPeers!([]);
    vi.advanceTimersByTime(LIVE_DRAFT_LEAVE_GRACE_MS);
    expect(s.image.getState().presence.drafts.size).toBe(0);
    expect(s.doc.get('b')).toEqual(carBox('b', 2));
    s.stop();
  });

  it('another person\'s overlap on this image (their merge dropped their edit for a later saved one) ends their drafts of those shapes', () => {
    // Found by tests/api/live-chaos.test.ts (seeds 3 and 7): Bea's dropped edit stayed shown over
    // Ada's saved shape, as Bea's draft, until the draft's timeout.
    const s = setup(false);
    s.setReady();
    s.handler().onPeers!([peer('me'), peer('ada'), peer('bea')]);
    s.doc.set('a', carBox('a', 1));
    s.handler().onDraft!('bea', [carBox('a', 50)], []);
    expect(s.handler().apply({ base_version: 4, version: 5, upserts: [carBox('a', 7)], removed_ids: [], by: 'ada' })).toBe('applied');
    expect(s.doc.get('a')).toEqual(carBox('a', 50)); // her draft, shown again over Ada's later save
    for (const l of s.overlaps) l('other-image', { user_id: 'bea', name: 'bea', ids: ['a'] });
    expect(s.image.getState().presence.drafts).toEqual(new Map([['a', 'bea']]));
    for (const l of s.overlaps) l(IMG, { user_id: 'bea', name: 'bea', ids: ['a'] });
    expect(s.image.getState().presence.drafts.size).toBe(0);
    expect(s.doc.get('a')).toEqual(carBox('a', 7));
    s.stop();
    expect(s.overlaps.size).toBe(0);
  });

  it('another person\'s draft does not replace a shape the user just changed', () => {
    const s = setup(false);
    s.setReady();
    s.edit({ id: 'a', name: 'car', bounding_box: { x: 1, y: 0, w: 5, h: 5 } });
    s.handler().onDraft!('ada', [{ id: 'a', name: 'car', bounding_box: { x: 90, y: 0, w: 5, h: 5 } }], []);
    expect(s.doc.get('a')!.bounding_box.x).toBe(1);
    expect(s.image.getState().presence.drafts.size).toBe(0);
    s.stop();
  });
});
