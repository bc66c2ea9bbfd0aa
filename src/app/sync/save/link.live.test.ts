// Live co-editing (issue 20): another person's saved change reaches the live document through the
// save link (the manager's copy of the server document moves on, then Editor.applyRemote), not a
// reload; this tab's own saves are recognised by version; local work pending or gathering stays,
// and its save goes on the new version without a 409.
import { describe, expect, it } from 'vitest';
import { Editor, type EditorAnnotation } from '../../../engine';
import { EditorSaveLink, type Overlap } from './link';
import { THEIR_EDIT_WINDOW_MS } from './slot';
import { box, fakeClock, fakeServer, harness, newIdb } from '../../../../tests/support/saveTestkit';

const IMG = '00000000-0000-4000-8000-000000000001';
const ref = { imageId: IMG, projectId: '00000000-0000-4000-8000-0000000000aa', imageFilename: 'lot.png' };
const rect = (id: string, x: number, y = 0): EditorAnnotation => ({ id, type: 'box', class: 'car', x, y, width: 10, height: 10, attributes: [] });

async function setup() {
  const clock = fakeClock();
  const server = fakeServer(clock);
  server.saveAs(IMG, [box('a', 0), box('b', 100)]);
  const { manager } = harness(clock, server, newIdb());
  const editor = new Editor({ viewport: { width: 1000, height: 800 }, image: { width: 1000, height: 800 } });
  const overlaps: Overlap[] = [];
  const link = new EditorSaveLink(editor, manager, { setTimer: clock.setTimer, clearTimer: clock.clearTimer, onOverlap: (o) => overlaps.push(o) });
  link.start();
  const loaded = server.loaded(IMG);
  await link.load(loaded.annotations);
  await manager.open(ref, loaded);
  link.attach(ref);
  return { clock, server, manager, editor, link, overlaps, v0: loaded.version };
}

describe('a change saved elsewhere, told by the live socket', () => {
  it('goes into the document (selection and undo of local edits stay) and moves the base on', async () => {
    const { clock, server, manager, editor, link, v0 } = await setup();
    editor.execute('move', { ids: ['a'], dx: 5, dy: 0 });
    editor.select(['a']);
    await clock.advance(150); // handed to the manager, not yet saved
    // Someone else adds c and removes b (version v0 + 1 on the server).
    server.saveAs(IMG, [box('a', 0), box('c', 300)]);
    const out = link.applyRemoteChange(IMG, { version: v0 + 1, base_version: v0, upserts: [box('c', 300)], removed_ids: ['b'] });
    expect(out.kind).toBe('applied');
    expect(editor.getOrderedIds()).toEqual(['a', 'c']);
    expect(editor.getAnnotation('a')).toMatchObject({ x: 5 }); // pending local edit kept
    expect([...editor.getView().selected]).toEqual(['a']);
    expect(manager.version(IMG)).toBe(v0 + 1);
    // Undo undoes only the local move.
    expect(editor.getUndoLabels()).toEqual(['Move 1 annotation(s)']);
    // The pending move is saved on the new version: no 409.
    await clock.advance(2000);
    expect(server.calls.at(-1)!.body).toMatchObject({ base_version: v0 + 1 });
    expect(manager.version(IMG)).toBe(v0 + 2);
    expect((server.doc(IMG).annotations as { id: string }[]).map((a) => a.id).sort()).toEqual(['a', 'c']);
    // The socket's changed for that save of this tab: already held, nothing happens.
    expect(link.applyRemoteChange(IMG, { version: v0 + 2, base_version: v0 + 1, upserts: [box('a', 5)], removed_ids: [] }).kind).toBe('known');
    editor.undo();
    expect(editor.getAnnotation('a')).toMatchObject({ x: 0 });
    expect(editor.getAnnotation('c')).toBeDefined();
  });

  it('keeps a shape still gathering; a change that skips versions is a gap; one during a save waits for it', async () => {
    const { clock, server, editor, link, v0 } = await setup();
    editor.execute('create', { annotation: rect('n', 500) });
    expect(link.applyRemoteChange(IMG, { version: v0 + 2, base_version: v0 + 1, upserts: [], removed_ids: ['a'] }).kind).toBe('gap');
    // Another person edits b while n is still in the 150 ms window.
    expect(link.applyRemoteChange(IMG, { version: v0 + 1, base_version: v0, upserts: [box('b', 120)], removed_ids: [] }).kind).toBe('applied');
    server.saveAs(IMG, [box('a', 0), box('b', 120)]);
    expect(editor.getAnnotation('n')).toBeDefined();
    expect(editor.getAnnotation('b')).toMatchObject({ x: 120 });
    await clock.advance(150);
    const release = server.holdSaves();
    await clock.advance(2000);
    expect(link.applyRemoteChange(IMG, { version: v0 + 2, base_version: v0 + 1, upserts: [], removed_ids: [] }).kind).toBe('busy'); // the socket heard this tab's save first
    release();
    await clock.advance(0);
    expect(link.applyRemoteChange(IMG, { version: v0 + 2, base_version: v0 + 1, upserts: [], removed_ids: [] }).kind).toBe('known');
  });
});

describe('a save the server applied on a newer version than its base', () => {
  it('brings the skipped changes into the document; the socket\'s messages for them are held already', async () => {
    const { clock, server, manager, editor, link, overlaps, v0 } = await setup();
    editor.execute('move', { ids: ['a'], dx: 5, dy: 0 });
    editor.select(['a']);
    await clock.advance(150);
    const release = server.holdSaves();
    await clock.advance(2000); // the save of a's move is on its way
    // Someone else saves first: b moved, c added. Their message meets this tab's save in flight.
    server.saveAs(IMG, [box('a', 0), box('b', 150), box('c', 300)]);
    const theirs = { version: v0 + 1, base_version: v0, upserts: [box('b', 150), box('c', 300)], removed_ids: [], by: 'user-2' };
    expect(link.applyRemoteChange(IMG, theirs).kind).toBe('busy');
    // Meanwhile here: b moved again (still gathering).
    editor.execute('move', { ids: ['b'], dx: 0, dy: 9 });
    const told: unknown[] = [];
    link.onServerChange((change) => told.push(change));
    release();
    await clock.advance(0);
    // The skipped version's shapes are told as the server's (the live image's drafts of them end on those).
    expect(told).toEqual([{ upserts: [box('b', 150), box('c', 300)], removed_ids: [] }]);
    // One request: the server applied it on top of theirs.
    expect(server.calls).toHaveLength(1);
    expect(manager.version(IMG)).toBe(v0 + 2);
    expect(editor.getOrderedIds()).toEqual(['a', 'b', 'c']);
    expect(editor.getAnnotation('a')).toMatchObject({ x: 5 });
    expect(editor.getAnnotation('b')).toMatchObject({ x: 100, y: 9 }); // the later local edit stays
    expect([...editor.getView().selected]).toEqual(['a']);
    expect(editor.getUndoLabels()).toEqual(['Move 1 annotation(s)', 'Move 1 annotation(s)']);
    // Their message tried again, and the one for this tab's own save: held, nothing applied twice.
    expect(link.applyRemoteChange(IMG, theirs).kind).toBe('known');
    expect(link.applyRemoteChange(IMG, { version: v0 + 2, base_version: v0 + 1, upserts: [box('a', 5)], removed_ids: [], by: 'user-1' }).kind).toBe('known');
    expect(editor.getOrderedIds()).toEqual(['a', 'b', 'c']);
    // b: both edited it; this side's unsaved edit is the later one and is kept (who did the other is not known from the answer).
    expect(overlaps).toEqual([{ by: null, since: v0, version: v0 + 1, overwritten: [], theirsWon: [], kept: ['b'] }]);
    await clock.advance(150 + 2000);
    expect(server.calls.at(-1)!.body).toMatchObject({ base_version: v0 + 2 });
    expect(server.doc(IMG).annotations).toEqual([box('a', 5), { ...box('b', 100), bounding_box: { x: 100, y: 9, w: 10, h: 10 } }, box('c', 300)]);
  });
});

describe('both people edit one shape: the later edit wins and both are told', () => {
  it('the one whose saved edit another person\'s later change replaced', async () => {
    const { clock, server, editor, link, overlaps, v0 } = await setup();
    editor.execute('move', { ids: ['a'], dx: 5, dy: 0 });
    await clock.advance(150 + 2000);
    expect(server.doc(IMG).version).toBe(v0 + 1);
    // This tab's own save comes back on the socket: not an overlap.
    link.applyRemoteChange(IMG, { version: v0 + 1, base_version: v0, upserts: [box('a', 5)], removed_ids: [], by: 'user-1' });
    expect(overlaps).toEqual([]);
    // Then user-2 moves a and removes b (never edited here).
    server.saveAs(IMG, [box('a', 40)]);
    expect(link.applyRemoteChange(IMG, { version: v0 + 2, base_version: v0 + 1, upserts: [box('a', 40)], removed_ids: ['b'], by: 'user-2' }).kind).toBe('applied');
    expect(editor.getAnnotation('a')).toMatchObject({ x: 40 });
    expect(overlaps).toEqual([{ by: 'user-2', since: v0 + 1, version: v0 + 2, overwritten: ['a'], theirsWon: [], kept: [] }]);
  });

  it('the one whose unsaved edit is the later: kept, and told whose change it met', async () => {
    const { clock, server, editor, link, overlaps, v0 } = await setup();
    editor.execute('move', { ids: ['b'], dx: 0, dy: 3 });
    await clock.advance(150); // pending, saved after the debounce
    server.saveAs(IMG, [box('a', 0), box('b', 170)]);
    expect(link.applyRemoteChange(IMG, { version: v0 + 1, base_version: v0, upserts: [box('b', 170)], removed_ids: [], by: 'user-2' }).kind).toBe('applied');
    expect(editor.getAnnotation('b')).toMatchObject({ x: 100, y: 3 });
    expect(overlaps).toEqual([{ by: 'user-2', since: v0, version: v0 + 1, overwritten: [], theirsWon: [], kept: ['b'] }]);
    await clock.advance(2000);
    expect(server.doc(IMG)).toMatchObject({ version: v0 + 2 });
    expect((server.doc(IMG).annotations as ReturnType<typeof box>[])[1]!.bounding_box).toMatchObject({ x: 100, y: 3 });
  });
});

describe('both edit one shape and the other\'s save arrives later: the earlier edit is dropped, both are told', () => {
  it('B edited first but saved after A: B\'s merge keeps A\'s shape and names it, and A finds it among its recent edits', async () => {
    const clock = fakeClock();
    const server = fakeServer(clock);
    server.saveAs(IMG, [box('a', 0), box('b', 100)]);
    const person = async (userId: string, debounceMs: number) => {
      const { manager } = harness(clock, server, newIdb(), userId, { debounceMs });
      const editor = new Editor({ viewport: { width: 1000, height: 800 }, image: { width: 1000, height: 800 } });
      const merged: string[][] = [];
      const link = new EditorSaveLink(editor, manager, { setTimer: clock.setTimer, clearTimer: clock.clearTimer, onMerged: (m) => merged.push(m.theirsWon) });
      link.start();
      const loaded = server.loaded(IMG);
      await link.load(loaded.annotations);
      await manager.open(ref, loaded);
      link.attach(ref);
      return { manager, editor, link, merged };
    };
    const a = await person('user-1', 2000);
    const b = await person('user-2', 10_000); // B's save leaves late (a slow network, offline)
    const v0 = server.doc(IMG).version;
    b.editor.execute('move', { ids: ['a'], dx: 0, dy: 30 }); // B first
    await clock.advance(1000);
    a.editor.execute('move', { ids: ['a'], dx: 40, dy: 0 }); // then A, saved first
    await clock.advance(150 + 2000);
    expect(server.doc(IMG).version).toBe(v0 + 1);
    expect(a.link.outlasted(IMG, ['a', 'b'])).toEqual(['a']); // A saved a recently
    // B's save arrives: 409, the merge keeps A's later shape of a and names it.
    await clock.advance(10_000);
    expect(b.merged).toEqual([['a']]);
    expect(server.doc(IMG).version).toBe(v0 + 1); // nothing left to save
    // B tells the others (live `overlap`): A's edit of a is the one kept.
    expect(a.link.outlasted(IMG, b.merged[0]!)).toEqual(['a']);
    expect(a.link.outlasted('00000000-0000-4000-8000-000000000002', ['a'])).toEqual([]);
    for (const p of [a, b]) expect(p.editor.getAnnotation('a')).toMatchObject({ x: 40, y: 0 });
    expect((server.doc(IMG).annotations as ReturnType<typeof box>[])[0]!.bounding_box).toMatchObject({ x: 40, y: 0 });
  });
});

describe('offline edits, another person\'s shape, then undo (live-offline.spec, in the save link)', () => {
  // B (this tab) draws b1 and moves a offline; A saves a2 meanwhile; B comes back. B's three undos
  // take back B's own edits only: a2 stays in B's document and on the server.
  const orders = ['the rebased save first', 'the socket first, while the save is held', 'the socket first, before the save'] as const;
  it.each(orders)('%s', async (order) => {
    const { clock, server, editor, link, v0 } = await setup();
    editor.execute('create', { annotation: rect('b1', 500) });
    editor.execute('move', { ids: ['a'], dx: 5, dy: 0 });
    for (let i = 0; i < 10; i++) server.script.push({ kind: 'retry', status: null, message: 'Failed to fetch' });
    await clock.advance(150 + 2000); // offline: the save fails and waits to be tried again
    server.script.length = 0; // back online for the next try
    server.saveAs(IMG, [box('a', 0), box('b', 100), box('a2', 700)]);
    const theirs = { version: v0 + 1, base_version: v0, upserts: [box('a2', 700)], removed_ids: [], by: 'user-2' };
    if (order === 'the socket first, before the save') link.applyRemoteChange(IMG, theirs);
    const release = order === 'the socket first, while the save is held' ? server.holdSaves() : null;
    await clock.advance(60_000); // back online: the save goes
    if (release) {
      link.applyRemoteChange(IMG, theirs);
      release();
    }
    await clock.advance(0);
    if (order === 'the rebased save first') link.applyRemoteChange(IMG, theirs);
    await clock.advance(150 + 2000);
    expect([...editor.getOrderedIds()].sort()).toEqual(['a', 'a2', 'b', 'b1']);
    editor.undo();
    editor.undo();
    editor.undo();
    await clock.advance(150 + 2000 + 60_000);
    expect([...editor.getOrderedIds()].sort()).toEqual(['a', 'a2', 'b']);
    expect(editor.getAnnotation('a')).toMatchObject({ x: 0 });
    expect((server.doc(IMG).annotations as { id: string }[]).map((s) => s.id).sort()).toEqual(['a', 'a2', 'b']);
  });
});

describe('an unsaved edit here meets a change of the same shape saved later (a device back after a while)', () => {
  const at = (ms: number) => new Date(ms).toISOString();
  /** The network is down: this device's saves fail and wait (until the script is emptied). */
  const offline = (server: ReturnType<typeof fakeServer>) => {
    for (let i = 0; i < 20; i++) server.script.push({ kind: 'retry', status: null, message: 'Failed to fetch' });
  };

  it('saved surely later (past the window an online save can take): the editor takes theirs, this change is never saved, and both are told', async () => {
    const { clock, server, manager, editor, link, overlaps, v0 } = await setup();
    offline(server);
    editor.execute('move', { ids: ['a'], dx: 5, dy: 0 });
    await clock.advance(150 + 2000 + THEIR_EDIT_WINDOW_MS); // its save failed: offline
    server.saveAs(IMG, [box('a', 40), box('b', 100)]);
    const out = link.applyRemoteChange(IMG, { version: v0 + 1, base_version: v0, upserts: [box('a', 40)], removed_ids: [], by: 'user-2', saved_at: at(clock.now()) });
    expect(out).toMatchObject({ kind: 'applied', theirsWon: ['a'] });
    expect(editor.getAnnotation('a')).toMatchObject({ x: 40 });
    expect(overlaps).toEqual([{ by: 'user-2', since: v0, version: v0 + 1, overwritten: ['a'], theirsWon: ['a'], kept: [] }]);
    server.script.length = 0; // back online
    await clock.advance(60_000);
    expect(server.doc(IMG).version).toBe(v0 + 1); // nothing of a's older move was saved over it
    expect(manager.status().state).toBe('saved');
    expect((server.doc(IMG).annotations as ReturnType<typeof box>[])[0]!.bounding_box).toMatchObject({ x: 40 });
  });

  it('a removal saved surely later wins over an old unsaved move; an unsaved edit made after it was saved is kept', async () => {
    const { clock, server, editor, link, overlaps, v0 } = await setup();
    offline(server);
    editor.execute('move', { ids: ['a'], dx: 5, dy: 0 });
    await clock.advance(150 + THEIR_EDIT_WINDOW_MS + 1000);
    const theirsAt = clock.now();
    await clock.advance(1000);
    editor.execute('move', { ids: ['b'], dx: 0, dy: 7 }); // after their save
    await clock.advance(150);
    server.saveAs(IMG, []);
    const out = link.applyRemoteChange(IMG, { version: v0 + 1, base_version: v0, upserts: [], removed_ids: ['a', 'b'], by: 'user-2', saved_at: at(theirsAt) });
    expect(out).toMatchObject({ kind: 'applied', theirsWon: ['a'] });
    expect(editor.getAnnotation('a')).toBeUndefined();
    expect(editor.getAnnotation('b')).toMatchObject({ x: 100, y: 7 });
    expect(overlaps).toEqual([{ by: 'user-2', since: v0, version: v0 + 1, overwritten: ['a'], theirsWon: ['a'], kept: ['b'] }]);
    server.script.length = 0;
    await clock.advance(60_000);
    expect(server.calls.at(-1)!.body).toMatchObject({ base_version: v0 + 1, removed_ids: [] });
    expect((server.doc(IMG).annotations as { id: string }[]).map((s) => s.id)).toEqual(['b']);
  });

  it('saved within the window of this unsaved edit: the edit here is kept as the later (its own edit time is not known)', async () => {
    const { clock, server, editor, link, overlaps, v0 } = await setup();
    offline(server);
    editor.execute('move', { ids: ['a'], dx: 5, dy: 0 });
    await clock.advance(150 + THEIR_EDIT_WINDOW_MS - 1000);
    server.saveAs(IMG, [box('a', 40), box('b', 100)]);
    const out = link.applyRemoteChange(IMG, { version: v0 + 1, base_version: v0, upserts: [box('a', 40)], removed_ids: [], by: 'user-2', saved_at: at(clock.now()) });
    expect(out).toMatchObject({ kind: 'applied', theirsWon: [] });
    expect(editor.getAnnotation('a')).toMatchObject({ x: 5 });
    expect(overlaps).toEqual([{ by: 'user-2', since: v0, version: v0 + 1, overwritten: [], theirsWon: [], kept: ['a'] }]);
    server.script.length = 0;
    await clock.advance(60_000);
    expect((server.doc(IMG).annotations as ReturnType<typeof box>[])[0]!.bounding_box).toMatchObject({ x: 5 });
  });

  it('this device\'s own save, its answer lost, is no later edit of someone else', async () => {
    const { clock, server, editor, link, overlaps, v0 } = await setup();
    offline(server);
    editor.execute('move', { ids: ['a'], dx: 5, dy: 0 });
    await clock.advance(150 + THEIR_EDIT_WINDOW_MS + 1000);
    server.saveAs(IMG, [box('a', 5), box('b', 100)]);
    const out = link.applyRemoteChange(IMG, { version: v0 + 1, base_version: v0, upserts: [box('a', 5)], removed_ids: [], by: 'user-1', saved_at: at(clock.now()) });
    expect(out).toMatchObject({ kind: 'applied', theirsWon: [] });
    expect(editor.getAnnotation('a')).toMatchObject({ x: 5 });
    expect(overlaps).toEqual([]);
    server.script.length = 0;
    await clock.advance(60_000);
    expect(server.doc(IMG).version).toBe(v0 + 1); // already on the server: nothing sent again
  });

  it('a rebased save\'s skipped version, saved surely after an unsaved edit here of its shape, wins too', async () => {
    const { clock, server, manager, editor, overlaps, v0 } = await setup();
    editor.execute('move', { ids: ['a'], dx: 5, dy: 0 });
    await clock.advance(150);
    const release = server.holdSaves();
    await clock.advance(2000); // the save of a's move is on its way, and stays there a while
    editor.execute('move', { ids: ['b'], dx: 0, dy: 9 });
    await clock.advance(150); // b pending here
    await clock.advance(THEIR_EDIT_WINDOW_MS + 1000);
    server.saveAs(IMG, [box('a', 0), box('b', 150)]); // someone else moves b, later
    release();
    await clock.advance(0);
    expect(manager.version(IMG)).toBe(v0 + 2);
    expect(editor.getAnnotation('a')).toMatchObject({ x: 5 });
    expect(editor.getAnnotation('b')).toMatchObject({ x: 150, y: 0 });
    expect(overlaps).toEqual([{ by: null, since: v0, version: v0 + 1, overwritten: ['b'], theirsWon: ['b'], kept: [] }]);
    await clock.advance(10_000);
    expect(server.doc(IMG).version).toBe(v0 + 2);
    expect(manager.status().state).toBe('saved');
  });
});
