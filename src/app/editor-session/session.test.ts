// The editor session joined as the screen starts it: the real engine and save link, the save
// manager on a fake clock and in-memory server, a stand-in live client. What the user does in the
// editor reaches the server, and is recorded as usage, whoever created it.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EditorAnnotation } from '../../engine';
import type { LiveClient } from '../sync/live';
import { EditorSession, type Tell } from './session';
import { THEIR_EDIT_WINDOW_MS } from '../sync/save/slot';
import { box, fakeClock, fakeServer, harness, newIdb } from '../../../tests/support/saveTestkit';
import { roleHolder } from '../../../tests/support/sessionTestkit';

const IMG = '00000000-0000-4000-8000-000000000001';
const OTHER = '00000000-0000-4000-8000-000000000002';
const PROJECT = '00000000-0000-4000-8000-0000000000aa';
const ref = (imageId: string) => ({ imageId, projectId: PROJECT, imageFilename: `${imageId}.png` });

class MemoryStorage {
  private m = new Map<string, string>();
  getItem = (k: string) => this.m.get(k) ?? null;
  setItem = (k: string, v: string) => void this.m.set(k, v);
  removeItem = (k: string) => void this.m.delete(k);
}

/** What the session sent on the live socket as `overlap` (image, ids). */
const overlapsSent: [string, string[]][] = [];
const liveStandIn = { userId: 'user-1', onPeerOverlap: () => () => undefined, sendOverlap: (imageId: string, ids: string[]) => void overlapsSent.push([imageId, ids]) } as unknown as LiveClient;

async function setup() {
  const clock = fakeClock();
  const server = fakeServer(clock);
  server.saveAs(IMG, [box('a', 0)]);
  server.saveAs(OTHER, []);
  const { manager } = harness(clock, server, newIdb());
  const told: string[] = [];
  const role = roleHolder('annotator');
  const recorded: { imageId: string; shapes: (EditorAnnotation | undefined)[] }[] = [];
  const session = new EditorSession({
    projectId: PROJECT,
    orgId: 'org-1',
    role,
    saver: manager,
    live: liveStandIn,
    segmentation: { warmup: async () => ({}), health: async () => ({ status: 'healthy' }), process: async () => ({}), mask: async () => Promise.reject(new Error('no masks here')) },
    tell: ((message) => void told.push(message)) as Tell,
    recordCreated: async (target, shapes) => void recorded.push({ imageId: target.imageId, shapes: [...shapes] }),
    timers: { setTimer: clock.setTimer, clearTimer: clock.clearTimer },
  });
  const stop = session.start();
  // As the screen opens an image (useImageLoading).
  const open = async (imageId: string) => {
    const loaded = server.loaded(imageId);
    session.link.expect(imageId);
    await session.link.load(loaded.annotations);
    await manager.open(ref(imageId), loaded);
    session.link.attach(ref(imageId));
  };
  const { editor } = session;
  editor.setImageSize({ width: 1000, height: 800 });
  editor.setViewport({ width: 1000, height: 800 });
  const settle = async () => {
    for (let i = 0; i < 4; i++) await clock.advance(3000);
  };
  const savedIds = (imageId: string) => (server.doc(imageId).annotations as { id: string }[]).map((a) => a.id).sort();
  return { clock, server, manager, session, editor, role, stop, open, settle, told, recorded, savedIds };
}

describe('the editor session', () => {
  beforeEach(() => {
    (globalThis as { window?: unknown }).window = { localStorage: new MemoryStorage() };
  });
  afterEach(() => {
    delete (globalThis as { window?: unknown }).window;
  });

  it('an old unsaved edit (offline) that a change saved later replaced: the user is told theirs was kept, and its author through the live socket', async () => {
    const { clock, server, session, editor, open, settle, told } = await setup();
    await open(IMG);
    overlapsSent.length = 0;
    for (let i = 0; i < 20; i++) server.script.push({ kind: 'retry', status: null, message: 'Failed to fetch' }); // offline
    editor.execute('move', { ids: ['a'], dx: 5, dy: 0 });
    await clock.advance(150 + THEIR_EDIT_WINDOW_MS + 1000); // handed to the manager, its save failed
    const v = server.doc(IMG).version;
    server.saveAs(IMG, [box('a', 60)]);
    const change = { version: v + 1, base_version: v, upserts: [box('a', 60)], removed_ids: [], by: 'user-2', saved_at: new Date(clock.now()).toISOString() };
    expect(session.link.applyRemoteChange(IMG, change).kind).toBe('applied');
    await settle();
    expect(editor.getAnnotation('a')).toMatchObject({ x: 60 });
    expect(overlapsSent).toEqual([[IMG, ['a']]]);
    // The toast names the other person from the image's history, a request of its own (not on the fake clock).
    await vi.waitFor(() => expect(told).toContain('Someone else changed 1 annotation(s) you edited: the later edit, theirs, was kept.'));
    server.script.length = 0; // back online
    await settle();
    expect(server.doc(IMG).version).toBe(v + 1);
  });

  it('saves a keypoint placed with one click and records it as created', async () => {
    const s = await setup();
    await s.open(IMG);
    s.editor.setTool('keypoint');
    s.editor.setActiveClass('eye');
    s.editor.pointerDown({ x: 50, y: 60 });
    s.editor.pointerUp({ x: 50, y: 60 });
    const created = s.editor.getOrderedIds().find((id) => id !== 'a')!;
    await s.settle();
    expect(s.savedIds(IMG)).toEqual(['a', created].sort());
    expect(s.recorded).toEqual([{ imageId: IMG, shapes: [expect.objectContaining({ id: created, type: 'keypoint', class: 'eye' })] }]);
    s.stop();
  });

  it('pastes what was copied on another image, saves it there and records the paste', async () => {
    const s = await setup();
    await s.open(IMG);
    s.editor.select(['a']);
    s.session.copy(IMG);
    expect(s.told).toEqual(['Copied 1 annotation(s)']);
    s.session.link.detach(IMG);
    await s.open(OTHER);
    s.session.paste(OTHER);
    const pasted = s.editor.getOrderedIds();
    expect(pasted).toHaveLength(1);
    await s.settle();
    expect(s.savedIds(OTHER)).toEqual(pasted);
    expect(s.recorded.at(-1)).toEqual({ imageId: OTHER, shapes: [expect.objectContaining({ id: pasted[0], type: 'box' })] });
    s.stop();
  });

  it('removes every shape as one undo step, saved at once', async () => {
    const s = await setup();
    await s.open(IMG);
    expect(s.session.removeAll()).toBe(1);
    await s.settle();
    expect(s.savedIds(IMG)).toEqual([]);
    s.editor.undo();
    await s.settle();
    expect(s.savedIds(IMG)).toEqual(['a']);
    s.stop();
  });

  it('says why a box too small is not kept, and how many shapes a paste added; a read-only role pastes nothing', async () => {
    const s = await setup();
    await s.open(IMG);
    s.editor.setTool('box');
    s.editor.setActiveClass('car');
    // Click mode: one corner, then the other, 3 px away.
    s.editor.pointerDown({ x: 300, y: 300 });
    s.editor.pointerUp({ x: 300, y: 300 });
    s.editor.pointerMove({ x: 303, y: 303 });
    s.editor.pointerDown({ x: 303, y: 303 });
    s.editor.pointerUp({ x: 303, y: 303 });
    expect(s.editor.getOrderedIds()).toEqual(['a']);
    expect(s.told).toEqual(['Boxes must be at least 10 × 10 pixels']);
    s.editor.setTool('select');
    s.editor.select(['a']);
    s.session.copy(IMG);
    s.session.paste(IMG);
    expect(s.editor.getOrderedIds()).toHaveLength(2);
    expect(s.told.slice(1)).toEqual(['Copied 1 annotation(s)', 'Pasted 1 annotation(s)']);
    s.role.set('viewer');
    s.session.paste(IMG);
    expect(s.session.removeAll()).toBe(0);
    expect(s.editor.getOrderedIds()).toHaveLength(2);
    s.stop();
  });

  it('tells its readers while changes gather, and stops listening when stopped', async () => {
    const s = await setup();
    await s.open(IMG);
    const seen: boolean[] = [];
    s.session.subscribeGathering(() => seen.push(s.session.isGathering()));
    s.editor.execute('move', { ids: ['a'], dx: 5, dy: 0 });
    await s.settle();
    expect(seen).toEqual([true, false]);
    s.stop();
    s.editor.execute('move', { ids: ['a'], dx: 5, dy: 0 });
    await s.settle();
    expect((s.server.doc(IMG).annotations as { bounding_box: { x: number } }[])[0]!.bounding_box.x).toBe(5);
  });
});
