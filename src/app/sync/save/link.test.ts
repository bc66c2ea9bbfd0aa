// The editor (the real engine) linked to the save manager (fake clock, in-memory server with
// versions, fake-indexeddb): a conflict merged while the user keeps working loses none of it.
import { describe, expect, it } from 'vitest';
import { Editor, type EditorAnnotation } from '../../../engine';
import { EditorSaveLink } from './link';
import type { MergeResult } from './types';
import { box, fakeClock, fakeServer, harness, newIdb } from '../../../../tests/support/saveTestkit';

const IMG = '00000000-0000-4000-8000-000000000001';
const ref = { imageId: IMG, projectId: '00000000-0000-4000-8000-0000000000aa', imageFilename: 'lot.png' };
const rect = (id: string, x: number, y = 0): EditorAnnotation => ({ id, type: 'box', class: 'car', x, y, width: 10, height: 10, attributes: [] });

async function setup(doc: ReturnType<typeof box>[]) {
  const clock = fakeClock();
  const server = fakeServer(clock);
  server.saveAs(IMG, doc);
  const { manager } = harness(clock, server, newIdb());
  const editor = new Editor({ viewport: { width: 1000, height: 800 }, image: { width: 1000, height: 800 } });
  const merges: MergeResult[] = [];
  const link = new EditorSaveLink(editor, manager, { setTimer: clock.setTimer, clearTimer: clock.clearTimer, onMerged: (m) => merges.push(m) });
  link.start();
  // As the screen opens an image.
  const loaded = server.loaded(IMG);
  link.load(loaded.annotations);
  await manager.open(ref, loaded);
  link.attach(ref);
  /** A pointer gesture in image coordinates (the camera is at 1:1). */
  const pointer = (kind: 'down' | 'move' | 'up', x: number, y: number) =>
    kind === 'down' ? editor.pointerDown({ x, y }) : kind === 'move' ? editor.pointerMove({ x, y }) : editor.pointerUp({ x, y });
  return { clock, server, manager, editor, link, merges, pointer };
}

const savedIds = (server: ReturnType<typeof fakeServer>) => (server.doc(IMG).annotations as { id: string }[]).map((a) => a.id).sort();

describe('a conflict merged while the user keeps editing', () => {
  it('keeps a shape drawn and an edit made after the save was sent, still in the 150 ms window', async () => {
    const { clock, server, editor, merges } = await setup([box('a', 0), box('b', 100)]);
    server.rebaseStaleSaves(false); // a 409 (the server's change log no longer reaches back), merged here
    editor.execute('move', { ids: ['a'], dx: 5, dy: 0 });
    await clock.advance(150);
    const release = server.holdSaves();
    await clock.advance(2000); // the save of the move is on its way
    expect(server.calls).toHaveLength(1);
    // Someone else saves first: they add c and edit b.
    server.saveAs(IMG, [box('a', 0), box('b', 100, 'truck'), box('c', 200)]);
    // Meanwhile, here: a new box, and b edited again (both still gathering, not yet handed over).
    await clock.advance(10);
    editor.execute('create', { annotation: rect('n', 300) });
    editor.execute('move', { ids: ['b'], dx: 0, dy: 7 });
    editor.select(['n']);
    release();
    await clock.advance(0); // the 409 lands and is merged; the 150 ms timer has not fired yet
    expect(merges).toHaveLength(1);

    // The editor shows the merge and keeps the newer local work, selection and undo history.
    expect(editor.getOrderedIds()).toEqual(['a', 'b', 'n', 'c']);
    expect(editor.getAnnotation('a')).toMatchObject({ x: 5 });
    expect(editor.getAnnotation('b')).toMatchObject({ x: 100, y: 7, class: 'car' });
    expect(editor.getAnnotation('c')).toMatchObject({ x: 200 });
    expect([...editor.getView().selected]).toEqual(['n']);
    expect(editor.getUndoLabels()).toEqual(['Move 1 annotation(s)', 'Create box', 'Move 1 annotation(s)']);

    await clock.advance(150 + 2000);
    expect(savedIds(server)).toEqual(['a', 'b', 'c', 'n']);
    const saved = new Map((server.doc(IMG).annotations as ReturnType<typeof box>[]).map((a) => [a.id, a]));
    expect(saved.get('a')!.bounding_box.x).toBe(5);
    expect(saved.get('b')!.bounding_box).toMatchObject({ x: 100, y: 7 });
    expect(saved.get('n')!.bounding_box.x).toBe(300);

    // Undo still works on the local steps, and never undoes the other side's c.
    editor.undo();
    editor.undo();
    expect(editor.getAnnotation('n')).toBeUndefined();
    expect(editor.getAnnotation('c')).toBeDefined();
  });

  it('lets a drag in progress go on across the merge', async () => {
    const big = { id: 'a', name: 'car', bounding_box: { x: 100, y: 100, w: 100, h: 100 } };
    const { clock, server, editor, pointer } = await setup([big, box('b', 300)]);
    editor.execute('move', { ids: ['b'], dx: 1, dy: 0 });
    await clock.advance(150);
    const release = server.holdSaves();
    await clock.advance(2000);
    server.saveAs(IMG, [big, box('b', 300), box('c', 500)]);
    pointer('down', 150, 150);
    pointer('move', 170, 150);
    release();
    await clock.advance(0);
    pointer('move', 190, 170);
    pointer('up', 190, 170);
    expect(editor.getAnnotation('a')).toMatchObject({ x: 140, y: 120 });
    expect(editor.getAnnotation('c')).toBeDefined();
    expect(editor.getUndoLabels().at(-1)).toBe('Move 1 annotation(s)');
    await clock.advance(150 + 2000);
    const saved = new Map((server.doc(IMG).annotations as ReturnType<typeof box>[]).map((a) => [a.id, a]));
    expect(saved.get('a')!.bounding_box).toMatchObject({ x: 140, y: 120 });
    expect(saved.get('b')!.bounding_box.x).toBe(301);
    expect(saved.has('c')).toBe(true);
  });
});

describe('changes handed to the save manager', () => {
  it('a move sends the moved shape only, read from the editor alone', async () => {
    const { clock, server, editor } = await setup([box('a', 0), box('b', 100), box('c', 200)]);
    editor.execute('move', { ids: ['b'], dx: 3, dy: 0 });
    editor.execute('move', { ids: ['b'], dx: 3, dy: 0 });
    await clock.advance(150 + 2000);
    expect(server.calls.map((c) => c.body)).toMatchObject([{ base_version: 1, upserts: [box('b', 106)], removed_ids: [] }]);
    expect(server.doc(IMG).annotations).toEqual([box('a', 0), box('b', 106), box('c', 200)]);
  });

  it('a replaced document (remove-all, its undo) removes what it no longer holds', async () => {
    const { clock, server, editor } = await setup([box('a', 0), box('b', 100)]);
    editor.execute('create', { annotation: rect('n', 300) });
    editor.execute('remove-all', {});
    await clock.advance(0);
    expect(server.doc(IMG).annotations).toEqual([]);
    expect([...(server.calls.at(-1)!.body as { removed_ids: string[] }).removed_ids].sort()).toEqual(['a', 'b', 'n']);
    editor.undo();
    await clock.advance(0);
    expect(savedIds(server)).toEqual(['a', 'b', 'n']);
  });
});

describe('the live drafts\' side of the link (issue 35)', () => {
  it('tells onEdit the ids of each user edit at once, never of a change made elsewhere', async () => {
    const { editor, link } = await setup([box('a', 0)]);
    const told: string[][] = [];
    link.onEdit((ids) => told.push([...ids]));
    editor.execute('create', { annotation: rect('n', 300) });
    expect(told).toEqual([['n']]); // before the 150 ms gathering ends
    link.applyToEditor([box('theirs', 500)], [], new Set());
    expect(told).toEqual([['n']]);
    expect(link.storedOf(['n', 'gone'])).toEqual({ upserts: [expect.objectContaining({ id: 'n' })], removed: ['gone'] });
  });

  it('a change of the whole document (remove-all and its undo) never saves another person\'s draft shown here', async () => {
    const { clock, server, editor, link } = await setup([box('a', 0)]);
    link.showsDrafts(() => ['draft']);
    link.applyToEditor([box('draft', 500)], [], new Set());
    editor.execute('remove-all', {});
    await clock.advance(0);
    editor.undo();
    await clock.advance(0);
    expect(editor.getAnnotation('draft')).toBeDefined();
    expect(savedIds(server)).toEqual(['a']);
    expect(server.calls.every((c) => !JSON.stringify(c.body).includes('draft'))).toBe(true);
  });
});
